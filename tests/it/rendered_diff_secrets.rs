//! A pull request's rendered diff shows no secret, whatever path carries
//! it: a secret data value into a Deployment's env var (named like a
//! secret or not), a ConfigMap embedding a YAML config with `password:`
//! lines, a `KEY=value` file, an inline URL. Each change is still named:
//! its path (and an embedded line's key) shown, its value hidden.

use std::path::Path;

use super::common::{git, run, write};

/// The values a reviewer must never see, before and after the change.
const LEAKS: &[&str] = &[
    "uaaadminclientsecret",
    "uaa_capi_kpack_watcher_client_credentials",
    "cc-db-hunter2",
    "cc-db-hunter3",
    "AKIASECRETKEY1",
    "AKIASECRETKEY2",
    "admin-pw-1",
    "admin-pw-2",
    "lookup-secret-1",
    "lookup-secret-2",
];

fn library(p: &Path) {
    write(
        p,
        "config/schema.yml",
        "#@data/values-schema\n---\ncapi:\n  kpack_watcher_client_secret: \"\"\n  cc_username_lookup_client_secret: \"\"\n  database:\n    password: \"\"\ncf_admin_password: \"\"\nblobstore:\n  aws_secret_access_key: \"\"\nreplicas: 1\n",
    );
    write(
        p,
        "config/deployment.yml",
        r#"#@ load("@ytt:data", "data")
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: kpack-watcher, namespace: cf}
spec:
  replicas: #@ data.values.replicas
  template:
    spec:
      containers:
      - name: watcher
        image: example.com/watcher@sha256:0123
        env:
        - name: UAA_CLIENT_SECRET
          value: #@ data.values.capi.kpack_watcher_client_secret
        - name: CLIENT_CREDENTIAL_REF
          value: #@ "creds-" + data.values.capi.cc_username_lookup_client_secret
        - name: LOG_LEVEL
          value: debug
      imagePullSecrets:
      - name: registry-credentials
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cloud-controller-ng, namespace: cf}
data:
  #@yaml/text-templated-strings
  cloud_controller_ng.yml: |
    db:
      host: db.cf.svc
      password: (@= data.values.capi.database.password @)
    blobstore:
      aws_access_key_id: AKIAIDPUBLIC
      aws_secret_access_key: (@= data.values.blobstore.aws_secret_access_key @)
    cloud_controller_username_lookup_client_secret: (@= data.values.capi.cc_username_lookup_client_secret @)
    logging: {level: info}
  #@yaml/text-templated-strings
  uaa.env: |
    UAA_ADMIN_USERS=admin|(@= data.values.cf_admin_password @)|scim.write
    UAA_ADMIN_PASSWORD=(@= data.values.cf_admin_password @)
    UAA_URL=https://uaa.cf.svc
"#,
    );
}

fn values(p: &Path, n: u32) {
    write(
        p,
        "envs/prod/config.yml",
        format!(
            "#@data/values\n---\ncapi:\n  kpack_watcher_client_secret: {}\n  cc_username_lookup_client_secret: lookup-secret-{n}\n  database:\n    password: cc-db-hunter{}\ncf_admin_password: admin-pw-{n}\nblobstore:\n  aws_secret_access_key: AKIASECRETKEY{n}\nreplicas: {}\n",
            if n == 1 { "uaaadminclientsecret" } else { "uaa_capi_kpack_watcher_client_credentials" },
            n + 1,
            n + 2
        ),
    );
}

#[test]
fn no_secret_prints_in_the_rendered_diff_and_each_change_is_named() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    git(p, &["init", "-q", "-b", "main"]);
    write(
        p,
        ".yttcheck.yml",
        "libraries: [{name: capi, path: config}]\n",
    );
    library(p);
    values(p, 1);
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "base"]);
    git(p, &["checkout", "-q", "-b", "change"]);
    values(p, 2);
    git(p, &["commit", "-q", "-am", "rotate the secrets"]);
    for format in ["text", "markdown", "json"] {
        let (code, out, err) = run(
            p,
            &[
                "diff", "--base", "main", "--head", "HEAD", "--color", "never", "--format", format,
            ],
        );
        assert!(code == 0 || code == 1, "{format}: {out}{err}");
        for leak in LEAKS {
            assert!(!out.contains(leak), "{format}: {leak} printed:\n{out}");
            assert!(!err.contains(leak), "{format}: {leak} printed:\n{err}");
        }
        // each change still named (Markdown escapes `_` and `[`)
        let out = out.replace('\\', "");
        for named in [
            "env[name=UAA_CLIENT_SECRET].value",
            "env[name=CLIENT_CREDENTIAL_REF].value",
            "cloud_controller_ng.yml",
            "uaa.env",
            "spec.replicas",
        ] {
            assert!(out.contains(named), "{format}: {named} not named:\n{out}");
        }
        // an embedded line's key is shown, its value hidden
        assert!(
            out.contains("cloud_controller_username_lookup_client_secret"),
            "{format}:\n{out}"
        );
        // what is no secret stays visible: the replicas' values
        if format == "text" {
            assert!(out.contains("3 -> 4") || out.contains("3 → 4"), "{out}");
        }
    }
}
