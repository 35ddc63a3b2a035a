//! The Kubernetes schema surfaces a repository can aim (issue: safe on the
//! new surfaces): what `.yttcheck.yml` may name on the runner's network, a
//! schema host that never answers, a CRD nesting thousands of levels, and a
//! linked schema under the results cache. Each runs the real binary against
//! real sockets on 127.0.0.1 only, with small schemas of its own (no
//! download).

use std::io::Read;
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::common::{check_json, git, run, write};

/// A listener on 127.0.0.1 that accepts connections, counts them, reads
/// what comes and never answers (a host that hangs). Its threads end with
/// the test process.
fn silent_host() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            count.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || {
                let mut buf = [0u8; 1024];
                // hold the connection open, answering nothing
                while matches!(conn.read(&mut buf), Ok(n) if n > 0) {}
                std::thread::sleep(Duration::from_secs(120));
            });
        }
    });
    (port, accepted)
}

/// A library rendering `kinds` (one object each, `apiVersion: v1`).
fn repository(kinds: &[&str]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    let docs: String = kinds
        .iter()
        .map(|k| format!("---\napiVersion: v1\nkind: {k}\nmetadata:\n  name: x\n"))
        .collect();
    write(p, "app/config/objects.yml", docs);
    write(p, "app/config/values.yml", "#@data/values\n---\nn: 1\n");
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

#[test]
fn a_repositorys_configuration_may_name_only_public_host_names_on_443() {
    let repo = repository(&["ConfigMap"]);
    let p = repo.path();
    let (port, accepted) = silent_host();
    for (location, says) in [
        (format!("https://127.0.0.1:{port}/x.json"), "port"),
        (
            "https://127.0.0.1/{{ .ResourceKind }}.json".into(),
            "IP address",
        ),
        ("https://169.254.169.254/latest/x.json".into(), "IP address"),
        ("https://[::1]/x.json".into(), "IP address"),
        (
            "https://user@schemas.example.org/x.json".into(),
            "names a user",
        ),
        (
            "https://schemas.example.org:8443/x.json".into(),
            "port 8443",
        ),
        ("https://metadata/x.json".into(), "not name a public host"),
        ("https://localhost/x.json".into(), "not name a public host"),
        ("https://2130706433/x.json".into(), "not name a public host"),
    ] {
        write(
            p,
            ".yttcheck.yml",
            format!("# schemas\nkubernetes:\n  schema_locations:\n  - \"{location}\"\n"),
        );
        let (code, out, err) = run(p, &["check", "--daemon", "never", "-q"]);
        assert_eq!(code, 2, "{location}: {out}{err}");
        assert!(err.contains(says), "{location}: {err}");
        // at the line that names it, with what the runner can do
        assert!(err.contains(".yttcheck.yml:4:"), "{location}: {err}");
        assert!(err.contains("--allow-schema-host"), "{location}: {err}");
    }
    // a version goes into paths and URLs: only master or X.Y.Z
    for version in ["1.30.0/../../x", "\"1.30.0?\"", "latest"] {
        write(
            p,
            ".yttcheck.yml",
            format!("kubernetes:\n  version: {version}\n"),
        );
        let (code, _, err) = run(p, &["check", "--daemon", "never", "-q"]);
        assert_eq!(code, 2, "{version}: {err}");
        assert!(err.contains(".yttcheck.yml:2:"), "{version}: {err}");
        assert!(err.contains("expected `master`"), "{version}: {err}");
    }
    let (code, _, err) = run(
        p,
        &[
            "check",
            "--daemon",
            "never",
            "-q",
            "--kubernetes-version",
            "1.30/../x",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        0,
        "a refused location was connected to"
    );

    // the runner may allow a host (and its port): then it is asked
    write(
        p,
        ".yttcheck.yml",
        format!("kubernetes:\n  schema_locations: [\"https://127.0.0.1:{port}/{{{{ .ResourceKind }}}}.json\"]\n"),
    );
    let allow = format!("127.0.0.1:{port}");
    let (code, report) = check_json(p, &["--allow-schema-host", &allow, "--schema-timeout", "1"]);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(
        findings(&report, "kubernetes/schema-unavailable").len(),
        1,
        "{report:#}"
    );
    assert!(accepted.load(Ordering::SeqCst) >= 1);
}

#[test]
fn a_schema_host_that_never_answers_is_given_up_within_the_hosts_timeout() {
    // six kinds: asked one after another at the HTTP client's 60 s, this
    // took six minutes
    let kinds = [
        "ConfigMap",
        "Service",
        "Secret",
        "Pod",
        "Namespace",
        "ServiceAccount",
    ];
    let repo = repository(&kinds);
    let p = repo.path();
    let (port, accepted) = silent_host();
    let location = format!("http://127.0.0.1:{port}/{{{{ .ResourceKind }}}}.json");
    let started = Instant::now();
    let (code, report) = check_json(
        p,
        &["--schema-location", &location, "--schema-timeout", "1"],
    );
    let took = started.elapsed();
    assert_eq!(code, 1, "{report:#}");
    let unavailable = findings(&report, "kubernetes/schema-unavailable");
    assert_eq!(unavailable.len(), kinds.len(), "{report:#}");
    for f in &unavailable {
        assert!(
            f["message"]
                .as_str()
                .unwrap()
                .contains("could not be fetched"),
            "{f:#}"
        );
    }
    // the host is given up after its first timeout: one connection per
    // fetch already under way (the pool's threads), not one per kind
    assert!(
        accepted.load(Ordering::SeqCst) <= 3,
        "{}",
        accepted.load(Ordering::SeqCst)
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

/// A CRD whose schema nests `levels` objects, and a resource of it.
fn deep_crd(levels: usize) -> String {
    let mut schema = String::from("{type: string}");
    for _ in 0..levels {
        schema = format!("{{type: object, properties: {{a: {schema}}}}}");
    }
    format!(
        "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: deeps.example.com\nspec:\n  group: example.com\n  names: {{kind: Deep, plural: deeps}}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema: {schema}\n---\napiVersion: example.com/v1\nkind: Deep\nmetadata:\n  name: d\n"
    )
}

#[test]
fn a_crd_nesting_thousands_of_levels_is_refused_at_its_line_in_bounded_memory() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    // a schema folder with a built-in kind: the CRD is the only schema of
    // its kind
    write(p, "schemas/configmap.json", "{\"type\": \"object\"}");
    let crd = deep_crd(4_900);
    assert!(crd.len() > 100_000);
    write(p, "app/config/crd.yml", &crd);
    write(p, "app/config/values.yml", "#@data/values\n---\nn: 1\n");
    write(
        p,
        ".yttcheck.yml",
        "kubernetes:\n  schema_locations: [\"schemas/{{ .ResourceKind }}.json\"]\n  skip_kinds: [CustomResourceDefinition]\n",
    );
    git(p, &["add", "-A"]);
    // the check runs under a Python parent whose only child it is, which
    // reports that child's peak memory (the test process has many children)
    let bin = assert_cmd::cargo::cargo_bin("yttcheck");
    let Some(python) = super::common::python_with(&["resource"]) else {
        return;
    };
    let out = std::process::Command::new(python)
        .current_dir(p)
        .args([
            "-c",
            "import resource, subprocess, sys\nr = subprocess.run(sys.argv[1:])\nprint('maxrss_kib', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n",
        ])
        .arg(&bin)
        .args(["check", "--daemon", "never", "-q", "--format", "json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rss_mib: i64 = stderr
        .split("maxrss_kib ")
        .nth(1)
        .and_then(|r| r.trim().parse::<i64>().ok())
        .unwrap_or_else(|| panic!("no peak memory: {stderr}"))
        / 1024;
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let refused = findings(&report, "kubernetes/schema-unavailable");
    assert_eq!(refused.len(), 1, "{report:#}");
    let f = &refused[0];
    assert!(
        f["message"].as_str().unwrap().contains("nests deeper than"),
        "{f:#}"
    );
    assert_eq!(f["location"]["path"], "app/config/crd.yml");
    assert_eq!(f["location"]["line"], 1, "{f:#}");
    // it took 695 MB before the bound
    assert!(rss_mib < 300, "peak memory {rss_mib} MiB");

    // the same CRD lying in a folder no pair reads (its CRDs are read when
    // the check starts) and a resource of it rendered by the library
    let (crd, resource) = crd.rsplit_once("---\n").unwrap();
    std::fs::remove_file(p.join("app/config/crd.yml")).unwrap();
    write(p, "crds/deep.yml", crd);
    write(p, "app/config/deep.yml", format!("---\n{resource}"));
    git(p, &["add", "-A"]);
    let (code, report) = check_json(p, &[]);
    assert_eq!(code, 1, "{report:#}");
    let refused = findings(&report, "kubernetes/schema-unavailable");
    assert_eq!(refused.len(), 1, "{report:#}");
    assert_eq!(refused[0]["location"]["path"], "crds/deep.yml");
}

/// Writes a permissive or a strict ConfigMap schema at `path`.
fn configmap_schema(path: &Path, strict: bool) {
    let schema = if strict {
        r#"{"type": "object", "required": ["data"], "properties": {"data": {"type": "object"}}}"#
    } else {
        r#"{"type": "object"}"#
    };
    std::fs::write(path, schema).unwrap();
}

#[test]
fn a_linked_schema_whose_target_changed_is_read_again_under_the_results_cache() {
    let repo = repository(&["ConfigMap"]);
    let p = repo.path();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("real-configmap.json");
    configmap_schema(&target, false);
    let schemas = outside.path().join("schemas");
    std::fs::create_dir_all(&schemas).unwrap();
    std::os::unix::fs::symlink(&target, schemas.join("configmap.json")).unwrap();
    let cache = outside.path().join("cache");
    let location = format!("{}/{{{{ .ResourceKind }}}}.json", schemas.display());
    let args = [
        "--schema-location",
        location.as_str(),
        "--cache-dir",
        cache.to_str().unwrap(),
    ];
    let (code, report) = check_json(p, &args);
    assert_eq!(code, 0, "{report:#}");
    // the link's target changes (same link, same folder listing)
    std::thread::sleep(Duration::from_millis(20));
    configmap_schema(&target, true);
    let (cold_code, cold) = check_json(p, &args[..2]);
    assert_eq!(cold_code, 1, "{cold:#}");
    let (code, cached) = check_json(p, &args);
    assert_eq!(code, cold_code, "the cached run answered {cached:#}");
    assert_eq!(cached["findings"], cold["findings"]);
}
