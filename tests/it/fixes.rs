//! Every fix a finding proposes is tested by applying it: the edit is made
//! to the file as the finding's `fix` says (the text an editor's code
//! action would write), and the check then no longer has that finding, and
//! the library still renders.

use std::path::Path;

use super::common::{check_json, run, write};

/// The findings of a check that carry a fix: (rule, path, line, fix).
fn fixes(dir: &Path) -> Vec<(String, String, u64, serde_json::Value)> {
    let (_, v) = check_json(dir, &[]);
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f.get("fix").is_some())
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["location"]["path"].as_str().unwrap().to_string(),
                f["location"]["line"].as_u64().unwrap(),
                f["fix"].clone(),
            )
        })
        .collect()
}

/// Applies a fix as an editor would: on the line, from the column, the
/// first `old` becomes `new`.
fn apply(dir: &Path, fix: &serde_json::Value) {
    let path = dir.join(fix["location"]["path"].as_str().unwrap());
    let text = std::fs::read_to_string(&path).unwrap();
    let line = fix["location"]["line"].as_u64().unwrap() as usize - 1;
    let column = fix["location"]["column"].as_u64().unwrap().max(1) as usize - 1;
    let (old, new) = (fix["old"].as_str().unwrap(), fix["new"].as_str().unwrap());
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let l = &lines[line];
    let from: usize = l.chars().take(column).map(char::len_utf8).sum();
    let at = from
        + l[from..]
            .find(old)
            .unwrap_or_else(|| panic!("{old:?} not in {l:?}"));
    lines[line] = format!("{}{new}{}", &l[..at], &l[at + old.len()..]);
    std::fs::write(&path, lines.join("\n")).unwrap();
}

#[test]
fn every_proposed_fix_fixes_its_finding_when_applied() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    // a misspelt key against a schema
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\nsvc_type: ClusterIP\n",
    );
    write(p, "envs/prod/web.yml", "replica: 3\n");
    // an overlay annotation written with `.` (as in real contour and harbor
    // packages), and a misspelt annotation
    write(
        p,
        "libs/web/service.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nkind: Service\nspec:\n  type: #@ data.values.svc_type\n  port: 80\n",
    );
    write(
        p,
        "libs/web/overlay.yml",
        "#@ load(\"@ytt:overlay\", \"overlay\")\n#@overlay/match by=overlay.subset({\"kind\": \"Service\"})\n---\nspec:\n  #@overlay.remove\n  port:\n",
    );
    write(
        p,
        "libs/web/more.yml",
        "#@ load(\"@ytt:overlay\", \"overlay\")\n#@overlay/mach by=overlay.subset({\"kind\": \"Service\"})\n---\nspec:\n  #@overlay/match missing_ok=True\n  extra: 1\n",
    );
    // a misspelt key against values without a schema (an overlay)
    write(
        p,
        "libs/api/values.yml",
        "#@data/values\n---\nreplicas: 1\n",
    );
    write(p, "envs/prod/api.yml", "#@data/values\n---\nreplicsa: 3\n");
    // code written as an annotation
    write(
        p,
        "libs/api/t.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\n#@data.values.replicas\nreplicas: 1\n",
    );

    let first = fixes(p);
    let rules: Vec<&str> = first.iter().map(|(r, ..)| r.as_str()).collect();
    for expected in [
        "schema/undeclared-key",
        "overlay/error",
        "annotation/not-template",
        "annotation/unknown",
    ] {
        assert!(
            rules.contains(&expected),
            "no fix for {expected}: {first:?}"
        );
    }
    // the hint for `#@overlay.remove` is the annotation, not code
    let remove = first
        .iter()
        .find(|(_, path, ..)| path == "libs/web/overlay.yml")
        .unwrap();
    assert_eq!(remove.3["new"], "#@overlay/remove");

    let mut remaining = first.clone();
    while let Some((rule, path, line, fix)) = remaining.pop() {
        apply(p, &fix);
        let after = fixes(p);
        let (_, v) = check_json(p, &[]);
        let still: Vec<&serde_json::Value> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| {
                f["rule"] == rule.as_str()
                    && f["location"]["path"] == path.as_str()
                    && f["location"]["line"] == line
            })
            .collect();
        assert!(
            still.is_empty(),
            "{rule} at {path}:{line} after its fix {fix}: {still:?}"
        );
        remaining.retain(|r| after.contains(r));
    }
    // every problem is gone, and the library renders as meant
    let (code, v) = check_json(p, &[]);
    assert_eq!(code, 0, "{v}");
    let (code, out, err) = run(
        p,
        &[
            "render",
            "-f",
            "libs/web",
            "--data-values-file",
            "envs/prod/web.yml",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("type: ClusterIP") && !out.contains("port:"),
        "{out}"
    );
    assert!(out.contains("extra: 1"), "{out}");
}

/// A key written with an escape (`"repl\x69caz"`) is renamed where it is
/// written: the fix's `old` is its text as written and its `span` the
/// bytes of it, so a consumer never renames the same word elsewhere on the
/// line (here the value `replicaz` of another key); a suggestion holding a
/// line end is written quoted, never raw.
#[test]
fn a_key_written_with_an_escape_is_renamed_by_its_span() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\nname: \"\"\n\"ab\\ncd\": 0\n",
    );
    let values = "{\"repl\\x69caz\": 2, name: replicaz}\n";
    write(p, "envs/prod/web.yml", values);
    write(p, "envs/dev/web.yml", "abccd: 1\n");
    let found = fixes(p);
    let fix_in = |path: &str| {
        found
            .iter()
            .find(|(_, p, _, _)| p == path)
            .map(|(_, _, _, f)| f.clone())
            .unwrap_or_else(|| panic!("no fix in {path}: {found:?}"))
    };
    let fix = fix_in("envs/prod/web.yml");
    assert_eq!(fix["old"], "\"repl\\x69caz\"", "{fix}");
    assert_eq!(fix["new"], "replicas", "{fix}");
    let (start, end) = (
        fix["span"]["start"].as_u64().unwrap() as usize,
        fix["span"]["end"].as_u64().unwrap() as usize,
    );
    assert_eq!(&values[start..end], "\"repl\\x69caz\"");
    // applied by its span: the key renamed, the value left alone
    let edited = format!(
        "{}{}{}",
        &values[..start],
        fix["new"].as_str().unwrap(),
        &values[end..]
    );
    assert_eq!(edited, "{replicas: 2, name: replicaz}\n");
    let fix = fix_in("envs/dev/web.yml");
    assert_eq!(fix["new"], "\"ab\\ncd\"", "{fix}");
    assert!(!fix["new"].as_str().unwrap().contains('\n'), "{fix}");
}
