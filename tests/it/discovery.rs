//! How libraries and environments are found (conventions and
//! `.yttcheck.yml`), on repositories made in temp dirs: nothing is skipped
//! without a word, names are stable, globs stay within a folder.

use std::path::Path;

use super::common::{run, write};

/// A planned pair: its name, the files it reads, its ytt command.
type Planned = (String, Vec<String>, Vec<String>);

/// The pairs of the plan, and its problems.
fn plan(dir: &Path) -> (Vec<Planned>, Vec<String>) {
    let (code, out, err) = run(dir, &["list", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let pairs = v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let strings = |k: &str| -> Vec<String> {
                p[k].as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap().to_string())
                    .collect()
            };
            (
                p["name"].as_str().unwrap().to_string(),
                strings("files"),
                strings("ytt"),
            )
        })
        .collect();
    let problems = v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{}: {}",
                p["path"].as_str().unwrap(),
                p["message"].as_str().unwrap()
            )
        })
        .collect();
    (pairs, problems)
}

fn names(pairs: &[Planned]) -> Vec<&str> {
    pairs.iter().map(|p| p.0.as_str()).collect()
}

const SCHEMA: &str = "#@data/values-schema\n---\nport: 1\n";

#[test]
fn config_globs_stay_within_one_folder() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "libs/web/schema/schema.yml", SCHEMA);
    write(p, "libs/web/templates/deploy.yml", "a: 1\n");
    write(p, "envs/prod/common.yml", "port: 2\n");
    write(p, "envs/prod/web/values.yml", "port: 3\n");
    write(
        p,
        ".yttcheck.yml",
        "libraries:\n- glob: libs/*\nenvironments:\n- glob: envs/*\n",
    );
    let (pairs, problems) = plan(p);
    assert_eq!(names(&pairs), vec!["web@prod"], "{problems:?}");
    assert!(pairs[0].1.contains(&"envs/prod/web/values.yml".to_string()));
}

#[test]
fn an_environment_folder_and_file_of_one_name_are_one_environment() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "schema.yml", SCHEMA);
    write(p, "envs/prod.yml", "port: 2\n");
    write(p, "envs/prod/more.yml", "port: 3\n");
    let (pairs, _) = plan(p);
    assert_eq!(names(&pairs), vec!["root@prod"]);
    let files = &pairs[0].1;
    assert!(files.contains(&"envs/prod.yml".to_string()), "{files:?}");
    assert!(
        files.contains(&"envs/prod/more.yml".to_string()),
        "{files:?}"
    );
    // and the environment files are not library files of the root library
    assert_eq!(files.iter().filter(|f| f.starts_with("envs/")).count(), 2);
}

#[test]
fn a_plain_values_file_may_hold_hash_at_in_a_block_scalar() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nport: 1\nscript: \"\"\n",
    );
    write(
        p,
        "envs/prod/web.yml",
        "port: \"bad\"\nscript: |\n  #@ generated\n  echo hi\n",
    );
    let (pairs, _) = plan(p);
    assert!(
        pairs[0]
            .2
            .join(" ")
            .contains("--data-values-file envs/prod/web.yml"),
        "{:?}",
        pairs[0].2
    );
    let (code, out, _) = run(p, &["check", "--format", "json"]);
    assert_eq!(code, 1);
    assert!(out.contains("\"rule\": \"schema/type-mismatch\""), "{out}");
}

#[test]
fn environment_helpers_are_given_to_ytt() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "libs/web/schema.yml", SCHEMA);
    write(p, "envs/prod/helpers.star", "PORT = 8080\n");
    write(
        p,
        "envs/prod/web.yml",
        "#@ load(\"helpers.star\", \"PORT\")\n#@data/values\n---\nport: #@ PORT\n",
    );
    let (code, out, err) = run(p, &["check"]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn a_schema_with_a_bom_or_a_bad_byte_is_not_lost() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "libs/web/schema.yml", format!("\u{feff}{SCHEMA}"));
    let (pairs, _) = plan(p);
    assert_eq!(names(&pairs), vec!["web@defaults"]);
    // the check says what ytt makes of it: the mark is content, so the
    // schema annotation is not seen
    let (_, out, _) = run(p, &["check", "--format", "json"]);
    assert!(out.contains("\"rule\": \"file/byte-order-mark\""), "{out}");

    write(
        p,
        "libs/api/schema.yml",
        b"#@data/values-schema\n---\nname: caf\xe9\n",
    );
    let (pairs, problems) = plan(p);
    assert_eq!(names(&pairs), vec!["web@defaults"]);
    assert!(
        problems
            .iter()
            .any(|m| m.contains("libs/api/schema.yml") && m.contains("UTF-8")),
        "{problems:?}"
    );
    let (code, out, _) = run(p, &["check", "--format", "json"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("\"rule\": \"file/unreadable\""), "{out}");
}

#[test]
fn a_library_climbs_to_the_folder_holding_its_files() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "libs/web/config/schema.yml", SCHEMA);
    write(
        p,
        "libs/web/values.yml",
        "#@data/values\n---\nport: \"bad\"\n",
    );
    write(p, "libs/api/schema.yml", SCHEMA);
    let (pairs, _) = plan(p);
    assert_eq!(names(&pairs), vec!["api@defaults", "web@defaults"]);
    assert!(
        pairs[1].2.join(" ").starts_with("ytt -f libs/web "),
        "{:?}",
        pairs[1].2
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_environment_is_an_environment() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "libs/web/schema.yml", SCHEMA);
    write(p, "envs/prod/web.yml", "port: 2\n");
    std::os::unix::fs::symlink("prod", p.join("envs/staging")).unwrap();
    let (pairs, _) = plan(p);
    assert_eq!(names(&pairs), vec!["web@prod", "web@staging"]);
    assert!(
        pairs[1].1.contains(&"envs/staging/web.yml".to_string()),
        "{:?}",
        pairs[1].1
    );
}

#[test]
fn libraries_that_share_a_folder_name_are_named_by_path_and_never_guessed() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "libs/web/schema.yml", SCHEMA);
    write(p, "apps/web/schema.yml", SCHEMA);
    write(p, "envs/prod/web.yml", "port: 2\n");
    let (pairs, problems) = plan(p);
    assert_eq!(
        names(&pairs),
        vec!["apps-web@defaults", "libs-web@defaults"]
    );
    assert!(
        problems.iter().any(
            |m| m.starts_with("envs/prod/web.yml: several libraries have a folder named 'web'")
        ),
        "{problems:?}"
    );
}

#[test]
fn matrix_prefers_an_exact_name_and_reports_typos() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "libs/web/schema.yml", SCHEMA);
    write(p, "libs/api/schema.yml", SCHEMA);
    write(p, "envs/dev/common.yml", "port: 2\n");
    write(p, "envs/prod/common.yml", "port: 3\n");
    write(
        p,
        ".yttcheck.yml",
        "matrix:\n  \"*\": [dev]\n  web: [prod]\n  api: [prdo]\n",
    );
    let (pairs, problems) = plan(p);
    assert_eq!(names(&pairs), vec!["api@defaults", "web@prod"]);
    assert!(
        problems.iter().any(|m| m.contains("environment 'prdo'")),
        "{problems:?}"
    );
}

#[test]
fn bad_globs_are_configuration_errors() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        ".yttcheck.yml",
        "libraries:\n- glob: \"libs/[web\"\n",
    );
    let (code, _, err) = run(d.path(), &["check"]);
    assert_eq!(code, 2);
    assert!(err.contains("bad glob 'libs/[web'"), "{err}");
}

#[test]
fn excluded_folders_are_left_out() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "libs/web/schema.yml", SCHEMA);
    write(p, "libs/old/schema.yml", SCHEMA);
    write(p, ".yttcheck.yml", "exclude: [libs/old]\n");
    let (pairs, _) = plan(p);
    assert_eq!(names(&pairs), vec!["web@defaults"]);
}

#[test]
fn extra_folders_keep_their_paths() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "platform/base/schema.yml",
        "#@ load(\"sub/x.star\", \"PORT\")\n#@data/values-schema\n---\nport: #@ PORT\n",
    );
    write(p, "shared/helpers/sub/x.star", "PORT = 8080\n");
    write(
        p,
        ".yttcheck.yml",
        "libraries:\n- path: platform/base\n  name: base\n  files: [shared/helpers]\n",
    );
    let (code, out, err) = run(p, &["check"]);
    assert_eq!(code, 0, "{out}{err}");
    let (pairs, _) = plan(p);
    assert!(
        pairs[0]
            .2
            .join(" ")
            .contains("-f sub/x.star=shared/helpers/sub/x.star"),
        "{:?}",
        pairs[0].2
    );
}

#[test]
fn images_and_latin1_notes_in_a_library_are_data_not_errors() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "libs/web/schema.yml", SCHEMA);
    write(p, "libs/web/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00");
    let (code, out, err) = run(p, &["check"]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn overlay_errors_point_at_the_overlay() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "libs/web/schema.yml", SCHEMA);
    write(
        p,
        "envs/prod/web.yml",
        "#@data/values\n---\n#@overlay/match missing_ok=False\nnew: 1\n",
    );
    let (code, out, _) = run(p, &["check", "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &v["findings"][0];
    assert_eq!(f["rule"], "overlay/error", "{out}");
    assert_eq!(f["location"]["path"], "envs/prod/web.yml");
    assert_eq!(f["location"]["line"], 4);
}

#[test]
fn problems_without_a_pair_fail_junit_too() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "libs/web/schema.yml", SCHEMA);
    write(
        p,
        ".yttcheck.yml",
        "libraries:\n- path: libs/web\n  files: [nothere.yml]\n",
    );
    let (code, out, _) = run(p, &["check", "--format", "junit"]);
    // a configuration problem: reported, and exit 2
    assert_eq!(code, 2);
    assert!(out.contains("<testcase name=\"yttcheck@plan\""), "{out}");
    assert!(out.contains("failures=\"1\""), "{out}");
}

#[test]
fn command_line_mistakes_are_usage_errors() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "libs/web/schema.yml", SCHEMA);
    write(p, "envs/prod/web.yml", "port: 2\n");
    let (code, _, err) = run(p, &["check", "--env", "prdo"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no environment named 'prdo' (environments: prod)"),
        "{err}"
    );
    let (code, _, err) = run(p, &["check", "-C", "/nonexistent/folder"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(p, &["check", "--format", "json", "--format", "github"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("only one format can go to standard output"),
        "{err}"
    );
}

#[test]
fn the_max_steps_flag_overrides_the_config_budget() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "lib/schema.yml", "#@ n = 0\n#@ for i in range(20000):\n#@   n = i\n#@ end\n#@data/values-schema\n---\nx: 1\n");
    write(p, ".yttcheck.yml", "budget:\n  max_steps: 1000\n");
    let (code, _, _) = run(p, &["check"]);
    assert_eq!(code, 1);
    let (code, out, err) = run(p, &["check", "--max-steps", "50000000"]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn values_files_are_environments_as_packages_lay_them_out() {
    // the layout of many Carvel packages: the library in `config/`, example
    // values as `values/<name>.yaml` beside it
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "pkg/config/schema.yml", SCHEMA);
    write(p, "pkg/values/dev.yaml", "port: 2\n");
    write(p, "pkg/values/prod.yml", "#@data/values\n---\nport: 3\n");
    write(p, "pkg/values/staging/port.yml", "port: 4\n");
    // a schema document in values/ belongs to a library, not an environment
    write(p, "other/values/schema.yml", SCHEMA);
    let (pairs, problems) = plan(p);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        names(&pairs),
        ["pkg@dev", "pkg@prod", "pkg@staging", "values@defaults"]
    );
    let dev = &pairs[0];
    assert!(
        dev.2
            .join(" ")
            .contains("--data-values-file pkg/values/dev.yaml"),
        "{dev:?}"
    );
    let prod = &pairs[1];
    assert!(
        prod.2.join(" ").contains("-f pkg/values/prod.yml"),
        "{prod:?}"
    );
}

#[test]
fn yaml_files_no_pair_reads_are_notes() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(p, "libs/web/schema.yml", SCHEMA);
    write(p, "envs/prod/web.yml", "port: 2\n");
    // a values file in a folder discovery does not know
    write(p, "deploy/prod.yml", "port: 3\n");
    let (code, out, err) = run(p, &["check", "--format", "json"]);
    assert_eq!(code, 0, "notes do not fail the run: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let notes: Vec<&serde_json::Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "workspace/unused-file")
        .collect();
    assert_eq!(notes.len(), 1, "{out}");
    assert_eq!(notes[0]["severity"], "note");
    assert_eq!(notes[0]["location"]["path"], "deploy/prod.yml");
    // a narrowed check does not report them
    let (_, out, _) = run(p, &["check", "--format", "json", "--library", "web"]);
    assert!(!out.contains("workspace/unused-file"), "{out}");
    // --fail-on note makes them count
    let (code, _, _) = run(p, &["check", "--fail-on", "note"]);
    assert_eq!(code, 1);
}

/// The ytt command `list` prints for a pair gives, under ytt's own flags,
/// exactly the values the pair's check computed (run here through
/// `yttcheck inspect`, which takes ytt's flags), and renders no environment
/// file as a template: for every pair of the examples, and for packages
/// whose environments live inside their folders.
#[test]
fn the_printed_ytt_command_is_equivalent_to_the_pair() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    for pkg in ["contour", "harbor"] {
        write(
            p,
            &format!("packages/{pkg}/config/schema.yml"),
            "#@data/values-schema\n---\nreplicas: 1\nvalues_file_marker: false\n",
        );
        write(
            p,
            &format!("packages/{pkg}/config/deploy.yml"),
            "#@ load(\"@ytt:data\", \"data\")\n---\nkind: Deployment\nreplicas: #@ data.values.replicas\n",
        );
        write(
            p,
            &format!("packages/{pkg}/config/values/prod.yaml"),
            "replicas: 3\nvalues_file_marker: true\n",
        );
    }
    write(
        p,
        ".yttcheck.yml",
        "libraries:\n  - glob: packages/*/config\nenvironments:\n  - name: prod\n    data_values_files: [\"packages/{library}/config/values/prod.yaml\"]\n",
    );
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut repos = vec![p.to_path_buf()];
    for e in ["monorepo", "shop", "harbor"] {
        repos.push(examples.join(e));
    }
    for repo in &repos {
        let (code, out, err) = run(repo, &["list", "--format", "json"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let pairs = v["pairs"].as_array().unwrap();
        assert!(!pairs.is_empty());
        for pair in pairs {
            let name = pair["name"].as_str().unwrap();
            let ytt: Vec<&str> = pair["ytt"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect();
            assert_eq!(ytt[0], "ytt");
            let (pair_code, pair_out, pair_err) = run(repo, &["inspect", name]);
            if repo == p {
                assert_eq!(pair_code, 0, "{name}: {pair_err}");
            }
            let mut args = vec!["inspect"];
            args.extend(&ytt[1..]);
            let (ytt_code, ytt_out, ytt_err) = run(repo, &args);
            assert_eq!(
                (pair_code == 0, &pair_out),
                (ytt_code == 0, &ytt_out),
                "{}: {name}: {ytt:?}\n{pair_err}\n{ytt_err}",
                repo.display()
            );
            // rendered, the environment's files are no templates of the
            // library
            let mut args = vec!["render"];
            args.extend(ytt[1..].iter().filter(|a| **a != "--data-values-inspect"));
            let (_, rendered, _) = run(repo, &args);
            assert!(
                !rendered.contains("values_file_marker"),
                "{name}: {rendered}"
            );
        }
    }
    // libraries in layout folders are named by the package
    let (_, out, _) = run(p, &["list", "--names"]);
    assert_eq!(out, "contour@prod\nharbor@prod\n");
}

#[test]
fn a_values_annotation_inside_a_block_scalar_makes_no_library() {
    // a Secret that carries a ytt values file for another tool: its
    // `#@data/values` line is text to ytt, so its folder is no library
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nport: 1\nnote: \"\"\n",
    );
    write(p, "envs/prod/web.yml", "port: 2\n");
    write(
        p,
        "manifests/values-secret.yml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: values\nstringData:\n  values.yml: |\n    #@data/values\n    ---\n    password: x\n",
    );
    // and a values file of an environment that embeds one stays plain
    write(
        p,
        "envs/dev/web.yml",
        "port: 3\nnote: |\n  #@data/values-schema\n  ---\n",
    );
    let (pairs, problems) = plan(p);
    assert_eq!(names(&pairs), ["web@dev", "web@prod"], "{problems:?}");
    let dev = &pairs[0].2.join(" ");
    assert!(dev.contains("--data-values-file envs/dev/web.yml"), "{dev}");
    let (code, out, err) = run(p, &["check"]);
    assert_eq!(code, 0, "{out}{err}");
}
