//! What `diff` and `ci` print is bounded whatever a pull request renders:
//! a changed multi-line string (an embedded config) is a line diff with a
//! little context, masked line by line; a huge value is cut with a note;
//! the command still answers, naming what changed.

use std::path::Path;

use super::common::{git, run, write};

/// A library whose ConfigMap embeds a 400-line config (with a password
/// line from a secret data value), in three environments.
fn embedded_config(p: &Path, changed: bool) {
    let config: String = (0..400)
        .map(|i| {
            let v = if changed && (i == 10 || i == 200) {
                format!("changed_{i}")
            } else {
                format!("value_{i}")
            };
            format!("  setting_{i}: {v}\n")
        })
        .collect();
    let password = if changed {
        "hunter2-new"
    } else {
        "hunter2-old"
    };
    write(
        p,
        "lib/values.yml",
        format!("#@data/values\n---\nreplicas: 1\ndb_password: {password}\nconfig: |\n{config}"),
    );
    write(
        p,
        "lib/cm.yml",
        "#@ load(\"@ytt:data\", \"data\")\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  app.yml: #@ data.values.config + \"password: \" + data.values.db_password + \"\\n\"\n",
    );
    for e in ["dev", "stage", "prod"] {
        write(
            p,
            &format!("envs/{e}.yml"),
            "#@data/values\n---\nreplicas: 2\n",
        );
    }
}

fn commit(p: &Path, message: &str) {
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", message]);
}

#[test]
fn a_changed_embedded_config_is_a_short_masked_line_diff() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    embedded_config(p, false);
    commit(p, "base");
    embedded_config(p, true);
    commit(p, "change two settings and the password");
    for format in ["text", "markdown", "json"] {
        let (code, out, err) = run(
            p,
            &[
                "diff", "--base", "HEAD~1", "--head", "HEAD", "--color", "never", "--format",
                format,
            ],
        );
        assert_eq!(code, 0, "{format}: {out}{err}");
        // two lines of 400 changed in three environments, twice each (the
        // values and the ConfigMap): the whole text is not printed
        assert!(out.len() < 30_000, "{format}: {} bytes", out.len());
        assert!(!out.contains("setting_100"), "{format}: {out}");
        assert!(!out.contains("hunter2"), "{format}: {out}");
        let plain = out.replace('\\', "");
        for shown in [
            "setting_10: value_10",
            "setting_10: changed_10",
            "setting_200: changed_200",
            "setting_9: value_9",
            "setting_12: value_12",
        ] {
            assert!(plain.contains(shown), "{format}: {shown}:\n{out}");
        }
        // the password line is named as changed, its values hidden
        assert!(
            plain.contains("password: (value not shown)"),
            "{format}: {out}"
        );
    }
    let (_, text, _) = run(
        p,
        &[
            "diff", "--base", "HEAD~1", "--head", "HEAD", "--color", "never",
        ],
    );
    for line in [
        "  ~ config  (text changed: 2 lines removed, 2 added)",
        "      - setting_10: value_10",
        "      + setting_10: changed_10",
        "      data.app.yml  (text changed: 3 lines removed, 3 added)",
        "          - password: (value not shown)",
        "          + password: (value not shown)",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
}

#[test]
fn a_huge_value_is_cut_and_the_diff_still_answers() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "lib/values.yml",
        "#@data/values\n---\nbanner: \"\"\nreplicas: 1\n",
    );
    write(
        p,
        "lib/cm.yml",
        "#@ load(\"@ytt:data\", \"data\")\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  banner: #@ data.values.banner\n",
    );
    for e in ["dev", "stage", "prod"] {
        write(
            p,
            &format!("envs/{e}.yml"),
            "#@data/values\n---\nreplicas: 2\n",
        );
    }
    commit(p, "base");
    let huge = "z".repeat(10_000_000);
    write(
        p,
        "lib/values.yml",
        format!("#@data/values\n---\nbanner: \"{huge}\"\nreplicas: 1\n"),
    );
    commit(p, "a 10 MB banner");
    for format in ["text", "markdown", "json"] {
        let (code, out, err) = run(
            p,
            &[
                "diff", "--base", "HEAD~1", "--head", "HEAD", "--color", "never", "--format",
                format,
            ],
        );
        assert_eq!(code, 0, "{format}: {err}");
        assert!(out.len() < 100_000, "{format}: {} bytes", out.len());
        assert!(
            out.contains("(cut: 10000000 characters in all)"),
            "{format}: {}",
            &out[..out.len().min(3000)]
        );
        assert!(out.contains("banner"), "{format}");
    }
}
