//! `yttcheck docs`: the data values reference of each library, written
//! from its schema into its folder's README.md between markers (the rest
//! kept byte for byte), and `--check` catching a stale one.

use super::common::{git, run, write};

const SCHEMA: &str = r#"#@data/values-schema
---
#@schema/title "Replicas"
#@schema/desc "How many pods run"
#@schema/validation min=1, max=20
replicas: 2
#@schema/validation one_of=["debug", "info", "warn"]
log_level: info
#@schema/nullable
#@schema/examples ("a host", "db.example.com")
host: ""
#@schema/deprecated "use host"
hostname: ""
ports:
- name: http
  #@schema/validation min=1
  port: 80
tls:
  enabled: false
"#;

#[test]
fn docs_writes_a_reference_that_covers_the_schema_and_check_finds_a_stale_one() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(p, "libs/web/schema.yml", SCHEMA);
    write(p, "libs/web/README.md", "# web\r\n\nOur web app.\n");
    write(p, "envs/dev/web.yml", "replicas: 3\n");
    let (code, out, err) = run(p, &["docs"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("wrote: libs/web/README.md"), "{out}");
    let readme = std::fs::read_to_string(p.join("libs/web/README.md")).unwrap();
    // the text around the markers is kept byte for byte
    assert!(
        readme.starts_with("# web\r\n\nOur web app.\n\n<!-- yttcheck:values:begin"),
        "{readme}"
    );
    for row in [
        "| <code>replicas</code> | <code>integer</code> | <code>2</code> | Replicas<br>How many pods run<br>a value \\>= 1 (<code>min=1</code>)<br>a value \\<= 20 (<code>max=20</code>) |",
        "(<code>one\\_of=\\[\"debug\", \"info\", \"warn\"\\]</code>)",
        "| <code>host</code> |",
        "example (a host): <code>db.example.com</code>",
        "may be null",
        "**deprecated**: use host",
        "| <code>ports\\[\\].port</code> | <code>integer</code> | <code>80</code> |",
        "| <code>tls.enabled</code> | <code>boolean</code> | <code>false</code> |",
    ] {
        assert!(readme.contains(row), "{row}\n{readme}");
    }
    // each example once (it was listed twice)
    assert_eq!(readme.matches("example (a host)").count(), 1, "{readme}");
    let (code, out, _) = run(p, &["docs", "--check"]);
    assert_eq!(code, 0, "{out}");
    // a second run changes nothing
    let (_, out, _) = run(p, &["docs"]);
    assert!(out.contains("fresh: 1 file"), "{out}");
    // the schema changes: the reference is stale until written again
    write(
        p,
        "libs/web/schema.yml",
        SCHEMA.replace("replicas: 2", "replicas: 4"),
    );
    let (code, out, err) = run(p, &["docs", "--check"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("stale: libs/web/README.md"), "{out}");
    assert!(err.contains("run `yttcheck docs`"), "{err}");
    assert_eq!(
        std::fs::read_to_string(p.join("libs/web/README.md")).unwrap(),
        readme
    );
    let (code, _, _) = run(p, &["docs"]);
    assert_eq!(code, 0);
    assert!(std::fs::read_to_string(p.join("libs/web/README.md"))
        .unwrap()
        .contains("| <code>integer</code> | <code>4</code> |"));
}

#[test]
fn a_readme_linked_out_of_the_repository_is_never_read() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("repo");
    std::fs::create_dir_all(&p).unwrap();
    git(&p, &["init", "-q", "-b", "main"]);
    write(
        &p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    write(d.path(), "secret.txt", "do not copy\n");
    std::os::unix::fs::symlink(d.path().join("secret.txt"), p.join("libs/web/README.md")).unwrap();
    let (code, out, err) = run(&p, &["docs"]);
    assert_eq!(code, 0, "{out}{err}");
    let readme = std::fs::read_to_string(p.join("libs/web/README.md")).unwrap();
    assert!(!readme.contains("do not copy"), "{readme}");
    // the link was replaced, not followed
    assert_eq!(
        std::fs::read_to_string(d.path().join("secret.txt")).unwrap(),
        "do not copy\n"
    );
}

#[test]
fn with_environments_the_reference_shows_each_final_value_and_no_secret() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\ndb:\n  host: localhost\n  password: \"\"\n",
    );
    write(
        p,
        "envs/dev/web.yml",
        "replicas: 1\ndb:\n  password: hunter1\n",
    );
    write(
        p,
        "envs/prod/web.yml",
        "replicas: 5\ndb:\n  host: db.prod\n  password: hunter2\n",
    );
    let (code, out, err) = run(p, &["docs", "--environments"]);
    assert_eq!(code, 0, "{out}{err}");
    let readme = std::fs::read_to_string(p.join("libs/web/README.md")).unwrap();
    for row in [
        "| value | <code>dev</code> | <code>prod</code> |",
        "| <code>replicas</code> | <code>1</code> | <code>5</code> |",
        "| <code>db.host</code> | <code>localhost</code> | <code>db.prod</code> |",
        "| <code>db.password</code> | (secret: not shown) | (secret: not shown) |",
    ] {
        assert!(readme.contains(row), "{row}\n{readme}");
    }
    assert!(!readme.contains("hunter"), "{readme}");
    let (code, _, _) = run(p, &["docs", "--environments", "--check"]);
    assert_eq!(code, 0);
}

/// `exports:` in .yttcheck.yml: each committed export written as `inspect
/// --data-values-schema-inspect -o FORMAT` prints it and held fresh by
/// `docs --check`; `--modelines` names the JSON Schema export in each plain
/// values file of the library; a Package CR's valuesSchema is written from
/// the schema too.
#[test]
fn docs_keeps_exports_modelines_and_package_crs_in_step_with_the_schema() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(p, "packages/web/bundle/config/schema.yml", SCHEMA);
    write(p, "envs/dev/web.yml", "replicas: 3\n");
    write(
        p,
        ".yttcheck.yml",
        "exports:\n- library: web\n  path: schemas/web.json\n- library: web\n  path: schemas/web.openapi.yml\n",
    );
    write(
        p,
        "packages/web/package.yaml",
        "apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: web.example.com.1.0.0\nspec:\n  refName: web.example.com\n  valuesSchema:\n    openAPIv3:\n      type: object\n      properties:\n        replicas:\n          type: string\n  template:\n    spec:\n      template:\n      - ytt:\n          paths: [config/]\n",
    );
    let (code, out, err) = run(p, &["docs", "--modelines"]);
    assert_eq!(code, 0, "{out}{err}");
    for w in [
        "wrote: schemas/web.json (schema export)",
        "wrote: schemas/web.openapi.yml (schema export)",
        "wrote: envs/dev/web.yml (modeline)",
        "wrote: packages/web/package.yaml (Package CR valuesSchema)",
    ] {
        assert!(out.contains(w), "{w}\n{out}");
    }
    let (_, json_schema, _) = run(
        p,
        &[
            "inspect",
            "-f",
            "packages/web/bundle/config",
            "--data-values-schema-inspect",
            "-o",
            "json-schema",
        ],
    );
    assert_eq!(
        std::fs::read_to_string(p.join("schemas/web.json")).unwrap(),
        json_schema
    );
    let (_, openapi, _) = run(
        p,
        &[
            "inspect",
            "-f",
            "packages/web/bundle/config",
            "--data-values-schema-inspect",
            "-o",
            "openapi-v3",
        ],
    );
    assert_eq!(
        std::fs::read_to_string(p.join("schemas/web.openapi.yml")).unwrap(),
        openapi
    );
    assert_eq!(
        std::fs::read_to_string(p.join("envs/dev/web.yml")).unwrap(),
        "# yaml-language-server: $schema=../../schemas/web.json\nreplicas: 3\n"
    );
    // the CR now matches: no package finding, and the rest of it is kept
    let cr = std::fs::read_to_string(p.join("packages/web/package.yaml")).unwrap();
    assert!(cr.starts_with("apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: web.example.com.1.0.0\nspec:\n  refName: web.example.com\n  valuesSchema:\n    openAPIv3:\n      type: object\n"), "{cr}");
    assert!(
        cr.ends_with(
            "  template:\n    spec:\n      template:\n      - ytt:\n          paths: [config/]\n"
        ),
        "{cr}"
    );
    let (_, report) = super::common::check_json(p, &[]);
    let package: Vec<&serde_json::Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"].as_str().unwrap().starts_with("package/"))
        .collect();
    assert!(package.is_empty(), "{report:#}");
    // ytt reads the values file with its modeline as before
    let (code, out, err) = run(p, &["docs", "--check", "--modelines"]);
    assert_eq!(code, 0, "{out}{err}");
    // the schema changes: each export is stale, and so is the CR
    write(
        p,
        "packages/web/bundle/config/schema.yml",
        SCHEMA.replace("replicas: 2", "replicas: 4"),
    );
    let (code, out, _) = run(p, &["docs", "--check"]);
    assert_eq!(code, 1, "{out}");
    for w in [
        "stale: schemas/web.json (schema export)",
        "stale: schemas/web.openapi.yml (schema export)",
        "stale: packages/web/package.yaml (Package CR valuesSchema)",
    ] {
        assert!(out.contains(w), "{w}\n{out}");
    }
    // an export of a library that does not exist is a usage error
    write(
        p,
        ".yttcheck.yml",
        "exports:\n- library: webb\n  path: schemas/web.json\n",
    );
    let (code, _, err) = run(p, &["docs", "--check"]);
    assert_eq!(code, 2);
    assert!(err.contains("no library is named 'webb'"), "{err}");
}

/// `docs --output` takes an absolute path the user typed when it lies in
/// the repository, and refuses one outside it, writing nothing there.
#[test]
fn docs_output_takes_an_absolute_path_inside_the_repository_only() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("repo");
    write(
        &p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    let inside = p.join("docs/values.md");
    std::fs::create_dir_all(p.join("docs")).unwrap();
    let (code, out, err) = run(&p, &["docs", "--output", inside.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(std::fs::read_to_string(&inside)
        .unwrap()
        .contains("replicas"));
    let outside = d.path().join("values.md");
    let (code, out, err) = run(&p, &["docs", "--output", outside.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("is outside the repository"), "{err}");
    assert!(!outside.exists());
}
