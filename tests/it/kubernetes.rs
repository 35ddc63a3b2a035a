//! Rendered documents checked against real Kubernetes schemas (the
//! kubernetes-validate wheel's, extracted by `.ci/run` into
//! target/tools/kubernetes-json-schema), with CRDs of the repository, the
//! Kubernetes version switch, and a remote location served over loopback
//! with the schema cache and `--offline`.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::Value;

use super::common::{check_json, git, run, skip, write};

/// The extracted schemas; `None` (skipped, loudly) only outside CI.
fn schemas() -> Option<PathBuf> {
    let p = std::env::var_os("YTTCHECK_K8S_SCHEMAS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/kubernetes-json-schema")
        });
    if p.join("v1.30.0-local-strict/_definitions.json").is_file() {
        return Some(p);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "Kubernetes schemas not found at {} and CI is set (.ci/run extracts them)",
        p.display()
    );
    skip("kubernetes schemas: not extracted (run .ci/run, which downloads the kubernetes-validate wheel)");
    None
}

/// kubeconform's template over the wheel's `-local` layout.
fn location(root: &str) -> String {
    format!("{root}/{{{{ .NormalizedKubernetesVersion }}}}-local{{{{ .StrictSuffix }}}}/{{{{ .ResourceKind }}}}{{{{ .KindSuffix }}}}.json")
}

const DEPLOYMENT: &str = r#"#@ load("@ytt:data", "data")
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
        ports:
        - containerPort: #@ data.values.port
        resources:
          #@yaml/text-templated-strings
          (@= data.values.resources_key @): {memory: 1Gi}
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  size: #@ data.values.size
"#;

/// A library whose prod environment gives `port: http` and misspells
/// `limits`; dev is clean.
fn repository() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "app/config/schema.yml",
        "#@data/values-schema\n---\n#@schema/type any=True\nport: 80\nresources_key: limits\n#@schema/type any=True\nsize: 1\n",
    );
    write(p, "app/config/deployment.yml", DEPLOYMENT);
    write(
        p,
        "app/envs/dev/values.yml",
        "#@data/values\n---\nport: 8080\n",
    );
    write(
        p,
        "app/envs/prod/values.yml",
        "#@data/values\n---\nport: http\nresources_key: limitz\nsize: \"3\"\n",
    );
    git(p, &["add", "-A"]);
    d
}

fn findings(report: &Value, rule: &str) -> Vec<Value> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule)
        .cloned()
        .collect()
}

fn strict_args(root: &Path, version: &str) -> Vec<String> {
    vec![
        "--schema-location".into(),
        location(&root.to_string_lossy()),
        "--kubernetes-version".into(),
        version.into(),
        "--kubernetes-strict".into(),
    ]
}

fn refs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

#[test]
fn a_prod_only_type_error_and_misspelt_field_are_found_at_the_template_lines() {
    let Some(root) = schemas() else { return };
    let repo = repository();
    let (code, report) = check_json(repo.path(), &refs(&strict_args(&root, "1.30.0")));
    assert_eq!(code, 1, "{report:#}");
    let invalid = findings(&report, "kubernetes/invalid");
    assert_eq!(invalid.len(), 1, "{invalid:#?}");
    let f = &invalid[0];
    assert_eq!(
        f["message"],
        "rendered Deployment web: spec.template.spec.containers[0].ports[0].containerPort: expected integer, found string"
    );
    assert_eq!(f["location"]["path"], "app/config/deployment.yml");
    assert_eq!(f["location"]["line"], 18);
    assert_eq!(f["environments"], serde_json::json!(["prod"]));
    assert_eq!(
        f["key_path"],
        "spec.template.spec.containers[0].ports[0].containerPort"
    );
    // the value's own line, as a related place
    assert_eq!(
        f["related"][0]["location"]["path"],
        "app/envs/prod/values.yml"
    );
    assert_eq!(f["related"][0]["location"]["line"], 3);
    // never the value itself (it may be a secret)
    assert!(!f.to_string().contains("http\\\""), "{f}");

    let unknown = findings(&report, "kubernetes/unknown-field");
    assert_eq!(unknown.len(), 1, "{unknown:#?}");
    assert_eq!(
        unknown[0]["message"],
        "rendered Deployment web: spec.template.spec.containers[0].resources.limitz: unknown field \"limitz\""
    );
    assert_eq!(unknown[0]["location"]["line"], 21);
    assert_eq!(unknown[0]["environments"], serde_json::json!(["prod"]));

    // the custom kind has no schema: a note, for both environments
    let none = findings(&report, "kubernetes/no-schema");
    assert_eq!(none.len(), 1, "{none:#?}");
    assert_eq!(none[0]["severity"], "note");
    assert_eq!(none[0]["environments"], serde_json::json!(["dev", "prod"]));

    // dev alone is clean (notes do not fail)
    let (code, report) = check_json(
        repo.path(),
        &[refs(&strict_args(&root, "1.30.0")), vec!["--env", "dev"]].concat(),
    );
    assert_eq!(code, 0, "{report:#}");

    // without strict, the misspelt field is not a finding
    let loose = [
        "--schema-location".to_string(),
        location(&root.to_string_lossy()),
        "--kubernetes-version".into(),
        "1.30.0".into(),
    ];
    let (_, report) = check_json(repo.path(), &refs(&loose));
    assert!(findings(&report, "kubernetes/unknown-field").is_empty());
    assert_eq!(findings(&report, "kubernetes/invalid").len(), 1);
}

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
";

#[test]
fn a_crd_of_the_repository_validates_its_custom_resources() {
    let Some(root) = schemas() else { return };
    let repo = repository();
    let p = repo.path();
    write(p, "crds/widget.yml", CRD);
    write(
        p,
        ".yttcheck.yml",
        "kubernetes:\n  version: 1.30.0\n  strict: true\n  crds: [crds/]\n",
    );
    git(p, &["add", "-A"]);
    let args = [
        "--schema-location".to_string(),
        location(&root.to_string_lossy()),
    ];
    let (_, report) = check_json(p, &refs(&args));
    let invalid = findings(&report, "kubernetes/invalid");
    let widget: Vec<_> = invalid
        .iter()
        .filter(|f| {
            f["message"]
                .as_str()
                .unwrap()
                .starts_with("rendered Widget w")
        })
        .collect();
    assert_eq!(widget.len(), 1, "{invalid:#?}");
    assert_eq!(
        widget[0]["message"],
        "rendered Widget w: spec.size: expected integer, found string"
    );
    assert_eq!(widget[0]["location"]["line"], 28);
    assert_eq!(widget[0]["environments"], serde_json::json!(["prod"]));
    assert!(
        findings(&report, "kubernetes/no-schema").is_empty(),
        "{report:#}"
    );
    // the CRD file is configuration, not an unused YAML file
    assert!(
        !report.to_string().contains("crds/widget.yml"),
        "{report:#}"
    );

    // a CRD lying in the repository, read by no pair and named nowhere, too
    write(
        p,
        ".yttcheck.yml",
        "kubernetes:\n  version: 1.30.0\n  strict: true\n",
    );
    git(p, &["add", "-A"]);
    let (_, report) = check_json(p, &refs(&args));
    let widget = findings(&report, "kubernetes/invalid")
        .into_iter()
        .filter(|f| {
            f["message"]
                .as_str()
                .unwrap()
                .starts_with("rendered Widget w")
        })
        .count();
    assert_eq!(widget, 1, "{report:#}");
    assert!(
        findings(&report, "kubernetes/no-schema").is_empty(),
        "{report:#}"
    );

    // a CRD the pair renders itself works the same, and skip_kinds silences a kind
    std::fs::remove_file(p.join("crds/widget.yml")).unwrap();
    write(p, "app/config/crd.yml", CRD);
    write(
        p,
        ".yttcheck.yml",
        "kubernetes:\n  version: 1.30.0\n  strict: true\n  skip_kinds: [Deployment]\n",
    );
    git(p, &["add", "-A"]);
    let (_, report) = check_json(p, &refs(&args));
    let invalid = findings(&report, "kubernetes/invalid");
    assert_eq!(invalid.len(), 1, "{invalid:#?}");
    assert!(invalid[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("rendered Widget w"));
    assert!(findings(&report, "kubernetes/unknown-field").is_empty());
}

#[test]
fn the_kubernetes_version_chooses_the_schemas() {
    let Some(root) = schemas() else { return };
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        "lib/schema.yml",
        "#@data/values-schema\n---\nsize: 1Gi\n",
    );
    // `status.resizeStatus` is in 1.25's schema and gone by 1.37's
    write(
        p,
        "lib/pvc.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: #@ data.values.size\nstatus:\n  resizeStatus: \"\"\n",
    );
    write(p, "envs/dev/lib.yml", "#@data/values\n---\nsize: 2Gi\n");
    git(p, &["add", "-A"]);
    let (code, report) = check_json(p, &refs(&strict_args(&root, "1.25.0")));
    assert_eq!(code, 0, "{report:#}");
    let (code, report) = check_json(p, &refs(&strict_args(&root, "1.37.0")));
    assert_eq!(code, 1, "{report:#}");
    let unknown = findings(&report, "kubernetes/unknown-field");
    assert_eq!(unknown.len(), 1, "{report:#}");
    assert_eq!(
        unknown[0]["message"],
        "rendered PersistentVolumeClaim data: status.resizeStatus: unknown field \"resizeStatus\""
    );
    assert_eq!(unknown[0]["location"]["line"], 13);
}

/// A loopback HTTP server over a folder, counting the requests it answers.
struct Server {
    url: String,
    served: Arc<AtomicUsize>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl Server {
    fn start(root: PathBuf) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let served = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (s, halt) = (served.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if halt.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut conn) = conn else { continue };
                let mut reader = BufReader::new(conn.try_clone().unwrap());
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    continue;
                }
                // the headers, up to the blank line
                loop {
                    let mut h = String::new();
                    if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
                        break;
                    }
                }
                let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
                let file = root.join(path.trim_start_matches('/'));
                s.fetch_add(1, Ordering::SeqCst);
                let response = match (path.contains(".."), std::fs::read(&file)) {
                    (false, Ok(body)) => {
                        let mut r = format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n",
                            body.len()
                        )
                        .into_bytes();
                        r.extend(body);
                        r
                    }
                    _ => {
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .to_vec()
                    }
                };
                let _ = conn.write_all(&response);
            }
        });
        Server { url, served, stop }
    }

    fn served(&self) -> usize {
        self.served.load(Ordering::SeqCst)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // wake the accept loop
        let _ = std::net::TcpStream::connect(self.url.trim_start_matches("http://"));
    }
}

#[test]
fn a_remote_location_is_fetched_once_then_served_offline_from_the_cache() {
    let Some(root) = schemas() else { return };
    let repo = repository();
    let p = repo.path();
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().join("c");
    let server = Server::start(root.clone());
    let remote = |url: &str, cache_dir: &Path| {
        vec![
            "--schema-location".to_string(),
            location(url),
            "--kubernetes-version".into(),
            "1.30.0".into(),
            "--kubernetes-strict".into(),
            "--cache-dir".into(),
            cache_dir.to_string_lossy().into_owned(),
        ]
    };
    let args = remote(&server.url, &cache_dir);
    let (code, online) = check_json(p, &refs(&args));
    assert_eq!(code, 1, "{online:#}");
    assert_eq!(
        findings(&online, "kubernetes/invalid").len(),
        1,
        "{online:#}"
    );
    assert_eq!(findings(&online, "kubernetes/unknown-field").len(), 1);
    // the ConfigMap's schema (the locations are first asked for a built-in
    // kind: a location that has none checks nothing), its
    // _definitions.json, the deployment's schema and the widget's 404 (each
    // once, though two pairs asked)
    assert_eq!(server.served(), 4);
    assert!(cache_dir.join("kubernetes-schemas").is_dir());
    drop(server);

    // offline, from the schema cache alone (the results kept beside it are
    // removed, so the schemas must be read): the same findings
    for e in std::fs::read_dir(&cache_dir).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() && e.file_name() != "kubernetes-schemas" {
            std::fs::remove_dir_all(e.path()).unwrap();
        }
    }
    let offline = [args.clone(), vec!["--offline".into()]].concat();
    let (code, again) = check_json(p, &refs(&offline));
    assert_eq!(code, 1);
    assert_eq!(again["findings"], online["findings"]);

    // offline with an empty cache: an error, never a clean report (and no
    // request to the server)
    let other = tempfile::tempdir().unwrap();
    let server = Server::start(root.clone());
    let fresh = remote(&server.url, &other.path().join("c"));
    let empty = [fresh.clone(), vec!["--offline".into()]].concat();
    let (code, report) = check_json(p, &refs(&empty));
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(server.served(), 0);
    let unavailable = findings(&report, "kubernetes/schema-unavailable");
    assert!(!unavailable.is_empty(), "{report:#}");
    assert!(unavailable[0]["message"]
        .as_str()
        .unwrap()
        .contains("--offline"));
    // and a schema that could not be read is not kept as a result: online
    // again, with the same cache folder, the schemas are read
    let (code, report) = check_json(p, &refs(&fresh));
    assert_eq!(code, 1);
    assert!(
        findings(&report, "kubernetes/schema-unavailable").is_empty(),
        "{report:#}"
    );
    assert_eq!(findings(&report, "kubernetes/invalid").len(), 1);
}

#[test]
fn a_repositorys_configuration_cannot_point_the_runner_elsewhere() {
    let Some(root) = schemas() else { return };
    let repo = repository();
    let p = repo.path();
    // plain http (an address inside the runner's network), a folder outside
    for (location, says) in [
        (
            "http://169.254.169.254/latest/{{ .ResourceKind }}.json",
            "is not https",
        ),
        ("../outside", "leads out of the repository"),
        ("/etc", "absolute path"),
    ] {
        write(
            p,
            ".yttcheck.yml",
            format!("kubernetes:\n  schema_locations: [\"{location}\"]\n"),
        );
        let (code, _, err) = run(p, &["check", "--daemon", "never", "-q"]);
        assert_eq!(code, 2, "{location}: {err}");
        assert!(err.contains(says), "{location}: {err}");
    }
    // a schema folder of the repository that links out of it is not read
    std::fs::create_dir_all(p.join("schemas")).unwrap();
    std::os::unix::fs::symlink(
        root.join("v1.30.0-local-strict"),
        p.join("schemas/v1.30.0-local-strict"),
    )
    .unwrap();
    write(
        p,
        ".yttcheck.yml",
        "kubernetes:\n  version: 1.30.0\n  strict: true\n  schema_locations: [\"schemas/{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json\"]\n",
    );
    let (_, report) = check_json(p, &[]);
    assert!(
        findings(&report, "kubernetes/invalid").is_empty(),
        "{report:#}"
    );
    let refused = findings(&report, "kubernetes/schema-unavailable");
    assert!(!refused.is_empty(), "{report:#}");
    assert!(refused[0]["message"]
        .as_str()
        .unwrap()
        .contains("leads out of the repository"));
    // a kind that is not Kubernetes' form never becomes a path
    write(
        p,
        "app/config/odd.yml",
        "---\napiVersion: v1\nkind: ../../../etc/passwd\n",
    );
    git(p, &["add", "-A"]);
    let (_, report) = check_json(p, &[]);
    assert!(
        report.to_string().contains("are not of Kubernetes' forms"),
        "{report:#}"
    );
}

#[test]
fn the_warm_daemon_answers_as_the_check_in_process_does() {
    let Some(root) = schemas() else { return };
    let repo = repository();
    let p = repo.path();
    git(p, &["commit", "-q", "-m", "initial"]);
    let _stop = super::common::DaemonStopper(p.to_path_buf());
    let args = strict_args(&root, "1.30.0");
    let ask = |daemon: &str| {
        let mut a = vec!["check", "--daemon", daemon, "-q", "--format", "json"];
        a.extend(refs(&args));
        run(p, &a)
    };
    let (code, fresh, _) = ask("never");
    assert_eq!(code, 1);
    // twice: the second run reuses the daemon's compiled schemas
    for _ in 0..2 {
        let (code, warm, err) = ask("always");
        assert!(!err.contains("could not answer"), "{err}");
        assert_eq!(code, 1, "{err}");
        assert_eq!(warm, fresh);
    }
}
