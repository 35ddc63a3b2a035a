//! Consecutive nodes that cannot fail are placed by one statement
//! (`__ytt_node_run`): static ones copied whole, opened ones (maps and
//! items whose children follow) started. That must be invisible: each
//! template here is rendered as written and with a line of code before
//! every line (`#@ _ = None`, which leaves no two nodes adjacent, so no
//! runs), and the outputs, exit codes and errors must be the same, with
//! the second variant's line `2n` being the first's line `n`.

use std::path::Path;

use super::common::{run, write};

fn render(dir: &Path) -> (i32, String, String) {
    run(dir, &["render", "-f", "t.yml"])
}

/// `text` with `#@ _ = None` (indented as the line) before each line.
fn without_runs(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        out.push_str(&" ".repeat(indent));
        out.push_str("#@ _ = None\n");
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// `t.yml:N` as `t.yml:N/2` (the line the variant without runs moved to
/// `2N`).
fn halve_lines(stderr: &str) -> String {
    let mut out = String::new();
    let mut rest = stderr;
    while let Some(at) = rest.find("t.yml:") {
        let (before, after) = rest.split_at(at + "t.yml:".len());
        out.push_str(before);
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        let n: usize = after[..digits].parse().expect("a line number");
        assert_eq!(n % 2, 0, "an error on an inserted line: {stderr}");
        out.push_str(&(n / 2).to_string());
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// Renders `text` both ways; returns the run variant's result.
fn same_both_ways(text: &str) -> (i32, String, String) {
    let runs = tempfile::tempdir().unwrap();
    let plain = tempfile::tempdir().unwrap();
    write(runs.path(), "t.yml", text);
    write(plain.path(), "t.yml", without_runs(text));
    let a = render(runs.path());
    let (code, stdout, stderr) = render(plain.path());
    assert_eq!(a, (code, stdout, halve_lines(&stderr)), "{text}");
    a
}

const TEMPLATE: &str = "#@ items = [1, 2]
top: #@ len(items)
a:
  b:
    c: 1
    d:
      e: [1, 2]
      f: {g: h}
    computed: #@ items[0]
  list:
  - name: x
    port: 80
  #@ for i in items:
  - name: #@ \"n{}\".format(i)
    nested:
      deeper:
        value: #@ i * 10
        fixed: yes
  #@ end
z: last
";

#[test]
fn runs_render_as_node_by_node_statements() {
    let (code, out, err) = same_both_ways(TEMPLATE);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("value: 20"), "{out}");
    assert!(out.contains("computed: 1"), "{out}");
}

#[test]
fn errors_after_a_run_keep_their_lines() {
    // a value that fails inside the loop, below started maps
    let (code, _, err) = same_both_ways(&TEMPLATE.replace("i * 10", "10 // (i - 2)"));
    assert_eq!(code, 1);
    assert!(err.contains("t.yml:17"), "{err}");
    // a key given twice below started maps
    let (code, _, err) = same_both_ways(&TEMPLATE.replace("    c: 1\n", "    c: 1\n    c: 2\n"));
    assert_eq!(code, 1);
    assert!(err.contains("t.yml:6"), "{err}");
    assert!(err.contains("specified again"), "{err}");
}
