//! Consumers' values against the package: `PackageInstall`s whose values
//! Secret is in the repository, and sample values files named in
//! `.yttcheck.yml`, checked as pairs of the package's library at the
//! Secret's lines.

use serde_json::Value;

use super::common::{check_json, copy_dir, run, write};

const SCHEMA: &str = "#@data/values-schema
---
#@schema/validation min=1
replicas: 1
image:
  tag: latest
#@schema/validation one_of=[\"debug\",\"info\"]
log_level: info
";

/// A Package CR of `web.example.com` at `version` whose bundle beside it
/// reads `config/`.
fn package(version: &str) -> String {
    format!(
        "apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: web.example.com.{version}
spec:
  refName: web.example.com
  version: {version}
  template:
    spec:
      fetch:
      - imgpkgBundle:
          image: example/web:{version}
      template:
      - ytt:
          paths:
          - config/
      deploy:
      - kapp: {{}}
"
    )
}

/// A PackageInstall of `web.example.com` named `name` whose values are
/// the Secret `secret` (none when empty), with `constraints`.
fn install(name: &str, constraints: &str, secret: &str) -> String {
    let values = if secret.is_empty() {
        String::new()
    } else {
        format!("  values:\n  - secretRef:\n      name: {secret}\n")
    };
    format!(
        "apiVersion: packaging.carvel.dev/v1alpha1
kind: PackageInstall
metadata:
  name: {name}
  namespace: apps
spec:
  serviceAccountName: installer
  packageRef:
    refName: web.example.com
    versionSelection:
      constraints: \"{constraints}\"
{values}"
    )
}

/// A Secret `name` whose `values.yml` is `values` (a literal block).
fn secret(name: &str, values: &str) -> String {
    let body: String = values.lines().map(|l| format!("    {l}\n")).collect();
    format!(
        "apiVersion: v1
kind: Secret
metadata:
  name: {name}
  namespace: apps
stringData:
  values.yml: |
{body}"
    )
}

/// A repository with the web package at 1.0.0 (its schema above).
fn repo() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let pkg = d.path().join("packages/web/1.0.0");
    write(&pkg, "bundle/config/schema.yml", SCHEMA);
    write(
        &pkg,
        "bundle/config/cm.yml",
        "#@ load(\"@ytt:data\", \"data\")\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  replicas: #@ str(data.values.replicas)\n",
    );
    write(&pkg, "package.yaml", package("1.0.0"));
    d
}

/// The findings of the pairs of environment `pair_env`, less the Package
/// CR's own (the CRs here carry no valuesSchema).
fn findings_of<'r>(report: &'r Value, pair_env: &str) -> Vec<&'r Value> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f["rule"].as_str().unwrap().starts_with("package/"))
        .filter(|f| {
            f["environments"]
                .as_array()
                .is_some_and(|e| e.iter().any(|e| e == pair_env))
        })
        .collect()
}

fn place(f: &Value) -> (String, u64, u64) {
    (
        f["location"]["path"].as_str().unwrap().to_string(),
        f["location"]["line"].as_u64().unwrap(),
        f["location"]["column"].as_u64().unwrap(),
    )
}

#[test]
fn an_installs_values_are_checked_at_the_secrets_lines() {
    let d = repo();
    let doc = format!(
        "{}---\n{}",
        install("web", ">=1.0.0", "web-values"),
        secret(
            "web-values",
            "replicas: 0\nimage:\n  tag: \"1.2\"\nlog_level: verbose\n"
        )
    );
    write(d.path(), "gitops/prod/web.yml", &doc);
    let line_of = |needle: &str| doc.lines().position(|l| l.contains(needle)).unwrap() as u64 + 1;
    let (code, report) = check_json(d.path(), &[]);
    assert_eq!(code, 1);
    let mine = findings_of(&report, "web");
    let mut got: Vec<(String, String, u64, u64)> = mine
        .iter()
        .map(|f| {
            let (p, l, c) = place(f);
            (f["rule"].as_str().unwrap().to_string(), p, l, c)
        })
        .collect();
    got.sort();
    let file = "gitops/prod/web.yml".to_string();
    assert_eq!(
        got,
        vec![
            (
                "validation/min".into(),
                file.clone(),
                line_of("replicas: 0"),
                5
            ),
            (
                "validation/one_of".into(),
                file,
                line_of("log_level: verbose"),
                5
            ),
        ]
    );
    // the package's own defaults are a pair too, and pass
    assert!(findings_of(&report, "defaults")
        .iter()
        .all(|f| f["severity"] != "error"));
    // list says where the values come from
    let (code, listed, _) = run(d.path(), &["list"]);
    assert_eq!(code, 0);
    assert!(
        listed.contains(
            "web@web\n  ytt -f packages/web/1.0.0/bundle/config --data-values-inspect\n  and --data-values-file: key values.yml of the Secret in gitops/prod/web.yml (document 2)\n"
        ),
        "{listed}"
    );
}

#[test]
fn good_values_pass_and_base64_data_is_read_from_its_key_on() {
    let d = repo();
    write(
        d.path(),
        "gitops/web.yml",
        install("web", "1.0.0", "web-values"),
    );
    // `replicas: "3"` (a string where the schema wants an int), base64 under data
    let encoded = "cmVwbGljYXM6ICIzIgo=";
    write(
        d.path(),
        "gitops/web-values.yml",
        format!("apiVersion: v1\nkind: Secret\nmetadata:\n  name: web-values\ndata:\n  values.yml: {encoded}\n"),
    );
    let (code, report) = check_json(d.path(), &[]);
    assert_eq!(code, 1);
    let mine = findings_of(&report, "web");
    assert_eq!(mine.len(), 1, "{mine:?}");
    assert_eq!(mine[0]["rule"], "schema/type-mismatch");
    assert_eq!(place(mine[0]).0, "gitops/web-values.yml");
    assert_eq!(place(mine[0]).1, 6);
    // fixed: clean
    write(
        d.path(),
        "gitops/web-values.yml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: web-values\ndata:\n  values.yml: cmVwbGljYXM6IDMK\n",
    );
    let (code, report) = check_json(d.path(), &[]);
    assert_eq!(code, 0, "{report}");
}

#[test]
fn the_version_the_constraints_allow_is_the_library_checked() {
    let d = repo();
    // 2.0.0 renamed replicas to count (and forbids the old key)
    let v2 = d.path().join("packages/web/2.0.0");
    write(
        &v2,
        "bundle/config/schema.yml",
        "#@data/values-schema\n---\ncount: 1\n",
    );
    write(&v2, "package.yaml", package("2.0.0"));
    for (constraints, errors) in [("<2.0.0", 0), (">=1.0.0", 1), ("1.0.x || 3.x", 0)] {
        write(
            d.path(),
            "gitops/web.yml",
            format!(
                "{}---\n{}",
                install("web", constraints, "v"),
                secret("v", "replicas: 2\n")
            ),
        );
        let (_, report) = check_json(d.path(), &[]);
        let errs: Vec<&Value> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == "error")
            .collect();
        assert_eq!(errs.len(), errors, "{constraints}: {errs:?}");
    }
}

#[test]
fn an_install_whose_secret_or_package_is_elsewhere_says_why_and_checks_nothing_false() {
    let d = repo();
    write(
        d.path(),
        "gitops/web.yml",
        install("web", ">=1.0.0", "sealed-elsewhere"),
    );
    // a package from a package repository elsewhere: no pair, no finding
    write(
        d.path(),
        "gitops/other.yml",
        install("other", ">=0.0.0", "").replace("web.example.com", "other.example.com"),
    );
    let (code, report) = check_json(d.path(), &[]);
    assert_eq!(code, 0, "{report}");
    let (code, listed, _) = run(d.path(), &["list", "--names"]);
    assert_eq!(code, 0);
    assert_eq!(listed, "web@defaults\n");
    let (_, listed, _) = run(d.path(), &["list", "--format", "json"]);
    let listed: Value = serde_json::from_str(&listed).unwrap();
    let reasons: Vec<&str> = listed["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(
        reasons[0].contains("values Secret sealed-elsewhere is not in the repository"),
        "{reasons:?}"
    );
}

#[test]
fn an_install_without_values_is_the_package_with_its_defaults() {
    let d = repo();
    write(
        d.path(),
        "packages/web/1.0.0/bundle/config/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min_len=1\nhost: \"\"\n",
    );
    write(d.path(), "gitops/web.yml", install("web", ">=1.0.0", ""));
    let (code, report) = check_json(d.path(), &[]);
    assert_eq!(code, 1);
    // the install would fail on the cluster: host is required
    let mine = findings_of(&report, "web");
    assert_eq!(mine.len(), 1, "{mine:?}");
    assert_eq!(mine[0]["rule"], "validation/min_len");
}

#[test]
fn a_sample_values_file_named_in_config_is_a_pair_of_its_own() {
    let d = repo();
    write(d.path(), "samples/values.yml", "replicas: -1\n");
    write(
        d.path(),
        "samples/secret.yml",
        secret("web-values", "log_level: debug\nimage:\n  tag: 1\n"),
    );
    write(
        d.path(),
        ".yttcheck.yml",
        "libraries:\n- path: packages/web/1.0.0/bundle/config\n  name: web\n  samples: [samples/values.yml, samples/secret.yml]\n",
    );
    let (code, report) = check_json(d.path(), &[]);
    assert_eq!(code, 1);
    let plain = findings_of(&report, "sample-values");
    assert_eq!(plain.len(), 1, "{plain:?}");
    assert_eq!(place(plain[0]), ("samples/values.yml".into(), 1, 1));
    let held = findings_of(&report, "sample-secret");
    assert_eq!(held.len(), 1, "{held:?}");
    assert_eq!(held[0]["rule"], "schema/type-mismatch");
    assert_eq!(place(held[0]), ("samples/secret.yml".into(), 10, 7));
    // a sample that is no file is an error of the config
    write(
        d.path(),
        ".yttcheck.yml",
        "libraries:\n- path: packages/web/1.0.0/bundle/config\n  samples: [samples/nope.yml]\n",
    );
    let (code, report) = check_json(d.path(), &[]);
    assert_eq!(code, 2, "a configuration error");
    assert!(report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["rule"] == "config/invalid"
            && f["message"].as_str().unwrap().contains("samples/nope.yml")));
}

/// TCE's example values files that ytt's recorded run took as
/// `--data-values-file`, each given instead through a PackageInstall's
/// Secret: the verdict is ytt's, and its error is at the Secret's line.
#[test]
fn real_packages_values_through_a_secret_get_ytts_verdict() {
    let Some(cases) = super::common::realworld_cases("package installs") else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let mut expected: Vec<(String, bool, Option<u64>)> = Vec::new();
    let mut names: Vec<String> = std::fs::read_dir(&cases)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("community-edition__addons-packages-"))
        .collect();
    names.sort();
    for name in names {
        let case = cases.join(&name);
        let short = name
            .trim_start_matches("community-edition__addons-packages-")
            .trim_end_matches("-bundle-config");
        let mut packaged = false;
        for inv in std::fs::read_dir(&case).unwrap().flatten() {
            let inv_name = inv.file_name().to_string_lossy().into_owned();
            let Ok(args) = std::fs::read_to_string(inv.path().join("args.json")) else {
                continue;
            };
            let args: Vec<String> = serde_json::from_str(&args).unwrap();
            if !inv_name.starts_with("values-")
                || args
                    != [
                        "-f",
                        "files/",
                        "--data-values-file",
                        &args[3],
                        "--data-values-inspect",
                    ]
            {
                continue;
            }
            let (pkg, version) = short.rsplit_once('-').unwrap();
            let ref_name = format!("{pkg}.community.tanzu.vmware.com");
            if !packaged {
                let dir = d.path().join("addons/packages").join(pkg).join(version);
                copy_dir(&case.join("files"), &dir.join("bundle/config"));
                let cr = package(version).replace("web.example.com", &ref_name);
                write(&dir, "package.yaml", cr);
                packaged = true;
            }
            let values = std::fs::read_to_string(case.join(&args[3])).unwrap();
            let install_name = format!("{pkg}-{}", inv_name.trim_start_matches("values-"));
            let doc = format!(
                "{}---\n{}",
                install(&install_name, version, &install_name)
                    .replace("web.example.com", &ref_name),
                secret(&install_name, &values)
            );
            let offset = doc.lines().position(|l| l == "  values.yml: |").unwrap() as u64 + 1;
            write(d.path(), &format!("gitops/{install_name}.yml"), &doc);
            let failed = std::fs::read_to_string(inv.path().join("expected.exit"))
                .unwrap()
                .trim()
                != "0";
            // ytt's error names the values file's line: `  20 | ...`
            let line = failed
                .then(|| std::fs::read_to_string(inv.path().join("expected.stderr")).unwrap())
                .and_then(|err| {
                    err.lines()
                        .find_map(|l| l.trim().split_once(" | ")?.0.trim().parse::<u64>().ok())
                });
            expected.push((install_name, failed, line.map(|l| l + offset)));
        }
    }
    assert!(expected.len() >= 5, "{expected:?}");
    assert!(expected.iter().any(|(_, failed, _)| *failed));
    let (_, report) = check_json(d.path(), &[]);
    for (install_name, failed, line) in &expected {
        let errors: Vec<&Value> = findings_of(&report, install_name)
            .into_iter()
            .filter(|f| f["severity"] == "error")
            .collect();
        assert_eq!(!errors.is_empty(), *failed, "{install_name}: {errors:?}");
        if let Some(line) = line {
            assert!(
                errors
                    .iter()
                    .any(|f| place(f).0 == format!("gitops/{install_name}.yml")
                        && place(f).1 == *line),
                "{install_name}: line {line}: {errors:?}"
            );
        }
    }
}

#[test]
fn render_all_renders_an_install_with_its_secrets_values() {
    let d = repo();
    write(
        d.path(),
        "gitops/web.yml",
        format!(
            "{}---\n{}",
            install("web-prod", ">=1.0.0", "v"),
            secret("v", "replicas: 7\n")
        ),
    );
    let (code, out, err) = run(d.path(), &["render", "--all", "--output-files", "rendered"]);
    assert_eq!(code, 0, "{out}{err}");
    let cm = std::fs::read_to_string(d.path().join("rendered/web/web-prod/cm.yml")).unwrap();
    assert!(cm.contains("replicas: \"7\""), "{cm}");
    let defaults = std::fs::read_to_string(d.path().join("rendered/web/defaults/cm.yml")).unwrap();
    assert!(defaults.contains("replicas: \"1\""), "{defaults}");
    let (code, out, _) = run(
        d.path(),
        &["render", "--all", "--output-files", "rendered", "--check"],
    );
    assert_eq!(code, 0, "{out}");
    // a Secret whose values break the schema fails that pair, named after it
    write(
        d.path(),
        "gitops/web.yml",
        format!(
            "{}---\n{}",
            install("web-prod", ">=1.0.0", "v"),
            secret("v", "replicas: many\n")
        ),
    );
    let (code, _, err) = run(
        d.path(),
        &["render", "--all", "--output-files", "rendered", "--check"],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("web@web-prod") && err.contains("gitops/web.yml"),
        "{err}"
    );
}

#[test]
fn a_secrets_values_are_never_printed() {
    let d = repo();
    write(
        d.path(),
        "gitops/web.yml",
        format!(
            "{}---\n{}",
            install("web-prod", ">=1.0.0", "v"),
            secret("v", "replicas: hunter2\n")
        ),
    );
    let (code, out, err) = run(
        d.path(),
        &["check", "--daemon", "never", "--color", "never"],
    );
    assert_eq!(code, 1);
    assert!(out.contains("replicas: (value not shown)"), "{out}");
    assert!(
        !out.contains("hunter2") && !err.contains("hunter2"),
        "{out}{err}"
    );
    let (code, out, err) = run(d.path(), &["render", "--all", "--output-files", "rendered"]);
    assert_eq!(code, 1);
    assert!(err.contains("replicas: (value not shown)"), "{err}");
    assert!(
        !out.contains("hunter2") && !err.contains("hunter2"),
        "{out}{err}"
    );
}

#[test]
fn a_diff_of_an_installs_values_says_what_changed_without_the_values() {
    let d = repo();
    let with = |replicas: &str| {
        format!(
            "{}---\n{}",
            install("web-prod", ">=1.0.0", "v"),
            secret("v", &format!("replicas: {replicas}\n"))
        )
    };
    write(d.path(), "gitops/web.yml", with("41"));
    super::common::git(d.path(), &["init", "-q", "-b", "main"]);
    super::common::git(d.path(), &["add", "-A"]);
    super::common::git(d.path(), &["commit", "-q", "-m", "base"]);
    write(d.path(), "gitops/web.yml", with("42"));
    let (code, out, err) = run(d.path(), &["diff", "--base", "HEAD", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let pair = report["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "web@web-prod")
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(pair["changes"][0]["path"], "replicas");
    assert_eq!(pair["changes"][0]["redacted"], true);
    assert!(pair["changes"][0].get("before").is_none(), "{out}");
    assert!(pair["changes"][0].get("after").is_none(), "{out}");
    // (the rendered objects are the package's output, a ConfigMap here,
    // shown as any pair's are; a rendered Secret's data never is)
    let (_, text, _) = run(d.path(), &["diff", "--base", "HEAD", "--no-render"]);
    assert!(
        text.contains("~ replicas  (changed; value not shown)"),
        "{text}"
    );
    assert!(!text.contains("41") && !text.contains("42"), "{text}");
}

/// A Secret's values are hidden per document: a `#@` in a password, a
/// comment, or a template document elsewhere in the same file do not make
/// its lines printable.
#[test]
fn a_secrets_values_stay_hidden_whatever_else_its_file_holds() {
    for (value, more) in [
        ("Tr0ub#@dor", ""),
        ("hunter2", "#@ load(\"@ytt:data\", \"data\")\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n"),
        ("hunter2", "# rotated by ops, see #@ops\n"),
    ] {
        let d = repo();
        write(
            d.path(),
            "gitops/web.yml",
            format!(
                "{more}{}---\n{}",
                install("web-prod", ">=1.0.0", "v"),
                secret("v", &format!("replicas: {value}\n"))
            ),
        );
        let (code, out, err) = run(
            d.path(),
            &["check", "--daemon", "never", "--color", "never"],
        );
        assert_eq!(code, 1, "{value}: {out}{err}");
        assert!(out.contains("replicas: (value not shown)"), "{value}: {out}");
        for leak in ["Tr0ub", "hunter2"] {
            assert!(!out.contains(leak) && !err.contains(leak), "{value}: {out}{err}");
        }
    }
}

/// A Secret's values that are no plain YAML fail as ytt fails them, named
/// by the Secret's file: the internal name they are read under never shows.
#[test]
fn a_secrets_values_are_named_by_its_file() {
    let d = repo();
    write(
        d.path(),
        "gitops/web.yml",
        format!(
            "{}---\n{}",
            install("web-prod", ">=1.0.0", "v"),
            secret("v", "replicas: 2 #@ not plain\n")
        ),
    );
    let (code, out, err) = run(
        d.path(),
        &[
            "check", "--daemon", "never", "--color", "never", "--format", "json",
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        !out.contains("embedded") && !out.contains("\\u0000"),
        "{out}"
    );
    assert!(out.contains("gitops/web.yml"), "{out}");
}

/// A Secret's value that a template cannot convert or a custom validation
/// refuses is quoted by ytt's message; no report, log or cache of any
/// command holds it.
#[test]
fn a_secrets_value_quoted_by_a_message_is_never_printed() {
    for (schema, template) in [
        // a conversion: ``Cannot parse `<value>` as an integer``
        (
            "#@data/values-schema\n---\nport: \"80\"\n",
            "data:\n  port: #@ str(int(data.values.port))\n",
        ),
        // a custom validation that names the value it refuses
        (
            "#@data/values-schema\n---\n#@schema/validation (\"a number\", lambda v: v.isdigit() or fail(\"{} is no number\".format(v)))\nport: \"80\"\n",
            "data:\n  port: #@ data.values.port\n",
        ),
    ] {
        let d = repo();
        let pkg = d.path().join("packages/web/1.0.0");
        write(&pkg, "bundle/config/schema.yml", schema);
        write(
            &pkg,
            "bundle/config/cm.yml",
            format!("#@ load(\"@ytt:data\", \"data\")\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n{template}"),
        );
        write(
            d.path(),
            "gitops/web.yml",
            format!(
                "{}---\n{}",
                install("web-prod", ">=1.0.0", "v"),
                secret("v", "port: hunter2port\n")
            ),
        );
        let cache_dir = tempfile::tempdir().unwrap();
        let cache = cache_dir.path().join("c");
        let cache_arg = cache.to_str().unwrap();
        let mut seen = String::new();
        for format in ["text", "json", "sarif", "github", "gitlab", "junit", "markdown"] {
            for _ in 0..2 {
                // the second run answers from the results cache
                let (code, out, err) = run(
                    d.path(),
                    &[
                        "check", "--daemon", "never", "--color", "never", "--format", format,
                        "--cache-dir", cache_arg,
                    ],
                );
                assert_eq!(code, 1, "{format}: {out}{err}");
                seen.push_str(&out);
                seen.push_str(&err);
            }
        }
        let (code, out, err) = run(d.path(), &["render", "--all", "--output-files", "rendered"]);
        assert_eq!(code, 1, "{out}{err}");
        assert!(err.contains("web@web-prod"), "{err}");
        seen.push_str(&out);
        seen.push_str(&err);
        assert!(seen.contains("(value not shown)"), "{seen}");
        assert!(!seen.contains("hunter2"), "{seen}");
        for entry in walkdir(&cache) {
            let bytes = std::fs::read(&entry).unwrap();
            assert!(
                !bytes.windows(7).any(|w| w == b"hunter2"),
                "{}",
                entry.display()
            );
        }
    }
}

/// Every file below `dir`.
fn walkdir(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.file_type().unwrap().is_dir() {
                todo.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out
}

/// `docs --environments` writes a reference that ships with the package:
/// an install's values, kept in its Secret, are not in it (a value equal
/// to the default says nothing new and shows).
#[test]
fn docs_environments_keep_an_installs_secret_values_out_of_the_reference() {
    let d = repo();
    write(
        d.path(),
        "gitops/web.yml",
        format!(
            "{}---\n{}",
            install("web-prod", ">=1.0.0", "v"),
            secret("v", "replicas: 1\nimage:\n  tag: hunter2tag\n")
        ),
    );
    let (code, out, err) = run(d.path(), &["docs", "--environments", "--output", "DOC.md"]);
    assert_eq!(code, 0, "{out}{err}");
    let doc = std::fs::read_to_string(d.path().join("DOC.md")).unwrap();
    assert!(doc.contains("<code>web-prod</code>"), "{doc}");
    assert!(
        doc.contains("| <code>image.tag</code> | (kept in a Secret: not shown) |"),
        "{doc}"
    );
    assert!(
        doc.contains("| <code>replicas</code> | <code>1</code> |"),
        "{doc}"
    );
    assert!(!doc.contains("hunter2"), "{doc}");
}

/// An install's values in a diff: an array item's identity from the
/// Secret is not printed in the change's path, and what the package
/// renders of the Secret's values is hidden in the rendered diff.
#[test]
fn a_diff_of_an_install_prints_no_value_of_its_secret_on_any_path() {
    let d = repo();
    let pkg = d.path().join("packages/web/1.0.0");
    write(
        &pkg,
        "bundle/config/schema.yml",
        "#@data/values-schema\n---\nupstreams:\n- name: \"\"\n  port: 80\n",
    );
    write(
        &pkg,
        "bundle/config/cm.yml",
        "#@ load(\"@ytt:data\", \"data\")\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  upstream: #@ data.values.upstreams[0].name\n  port: #@ str(data.values.upstreams[0].port)\n",
    );
    let with = |name: &str, port: u32| {
        format!(
            "{}---\n{}",
            install("web-prod", ">=1.0.0", "v"),
            secret(
                "v",
                &format!("upstreams:\n- name: {name}\n  port: {port}\n")
            )
        )
    };
    write(d.path(), "gitops/web.yml", with("hunter2-upstream", 8080));
    super::common::git(d.path(), &["init", "-q", "-b", "main"]);
    super::common::git(d.path(), &["add", "-A"]);
    super::common::git(d.path(), &["commit", "-q", "-m", "base"]);
    write(d.path(), "gitops/web.yml", with("s3cret-upstream", 8081));
    for format in ["text", "json", "markdown"] {
        let (code, out, err) = run(
            d.path(),
            &[
                "diff", "--base", "HEAD", "--color", "never", "--format", format,
            ],
        );
        assert_eq!(code, 0, "{format}: {err}");
        assert!(out.contains("web@web-prod"), "{format}: {out}");
        for leak in ["hunter2-upstream", "s3cret-upstream", "8080", "8081"] {
            assert!(!out.contains(leak), "{format}: {leak}:\n{out}");
        }
    }
}
