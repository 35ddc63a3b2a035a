//! Policies of `.yttcheck.yml` through the binary: rules on final values in
//! ytt's validation language, selected by library and environment globs.

use std::path::Path;

use assert_cmd::Command;

use super::common::{check_json as check, write};

/// (rule, severity, path:line, environments, message) of each finding.
fn summary(json: &serde_json::Value) -> Vec<String> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{} {} {}:{} [{}] {}",
                f["rule"].as_str().unwrap(),
                f["severity"].as_str().unwrap(),
                f["location"]["path"].as_str().unwrap_or(""),
                f["location"]["line"].as_u64().unwrap_or(0),
                f["environments"]
                    .as_array()
                    .map(|a| a
                        .iter()
                        .map(|e| e.as_str().unwrap())
                        .collect::<Vec<_>>()
                        .join(","))
                    .unwrap_or_default(),
                f["message"].as_str().unwrap()
            )
        })
        .collect()
}

/// Two libraries, three environments.
fn repository() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\nimage:\n  tag: latest\ningress:\n  enabled: false\n  tls: false\n#@schema/nullable\nowner: \"\"\n",
    );
    write(
        p,
        "libs/api/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\nlog_level: info\n",
    );
    write(p, "envs/dev/web.yml", "replicas: 1\n");
    write(p, "envs/dev/api.yml", "log_level: debug\n");
    write(
        p,
        "envs/prod/web.yml",
        "replicas: 2\nimage:\n  tag: 1.4.2\ningress:\n  enabled: true\n",
    );
    write(p, "envs/prod/api.yml", "replicas: 4\nlog_level: debug\n");
    write(p, "envs/prod-eu/api.yml", "replicas: 1\n");
    d
}

#[test]
fn the_simplest_policy_works_as_written_in_the_issue() {
    let d = repository();
    let p = d.path();
    write(
        p,
        "policies/prod.yml",
        "#@ load(\"@ytt:assert\", \"assert\")\n---\n#@assert/validate (\"at least 3 replicas in prod\", lambda v: v >= 3)\nreplicas: 0\n",
    );
    write(
        p,
        ".yttcheck.yml",
        "policies: [{path: policies/prod.yml, environments: [prod]}]\n",
    );
    let (code, json) = check(p, &[]);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(
        summary(&json),
        vec!["policy/prod/at-least-3-replicas-in-prod error envs/prod/web.yml:1 [prod] policy 'prod': replicas: must be at least 3 replicas in prod"],
        "{json:#}"
    );
    let f = &json["findings"][0];
    assert_eq!(f["library"], "web");
    assert_eq!(f["related"][0]["location"]["path"], "policies/prod.yml");
    assert_eq!(f["related"][0]["location"]["line"], 3);
}

#[test]
fn named_and_custom_rules_when_not_null_globs_and_missing_keys() {
    let d = repository();
    let p = d.path();
    write(
        p,
        "policies/prod.yml",
        concat!(
            "#@ load(\"helpers.star\", \"pinned\")\n",
            "---\n",
            "#@assert/validate min=3\n",
            "replicas: 0\n",
            "image:\n",
            "  #@assert/validate (\"a pinned tag\", pinned)\n",
            "  tag: \"\"\n",
            "ingress:\n",
            "  #@assert/validate (\"TLS on\", lambda t: t), when=lambda v, ctx: ctx.root[\"ingress\"][\"enabled\"]\n",
            "  tls: true\n",
            "#@assert/validate not_null=True\n",
            "owner: \"\"\n",
            "#@assert/validate (\"no debug logging\", lambda l: l != \"debug\")\n",
            "log_level: \"\"\n",
            "#! no library has it, and it is not required: skipped\n",
            "#@assert/validate min=1\n",
            "budget: 0\n",
        ),
    );
    write(
        p,
        "policies/helpers.star",
        "def pinned(tag):\n  return tag != \"latest\"\nend\n",
    );
    write(
        p,
        ".yttcheck.yml",
        "policies:\n- path: policies/prod.yml\n  environments: [\"prod*\"]\n  libraries: [\"*\"]\n",
    );
    let (code, json) = check(p, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        summary(&json),
        vec![
            "policy/prod/min error envs/prod-eu/api.yml:1 [prod-eu] policy 'prod': replicas: must be a value >= 3 (found: value < 3)",
            "policy/prod/no-debug-logging error envs/prod/api.yml:2 [prod] policy 'prod': log_level: must be no debug logging",
            "policy/prod/min error envs/prod/web.yml:1 [prod] policy 'prod': replicas: must be a value >= 3 (found: value < 3)",
            // the value is the schema's default; `when=` saw ingress enabled
            "policy/prod/tls-on error libs/web/schema.yml:8 [prod] policy 'prod': ingress.tls: must be TLS on",
            "policy/prod/not_null error libs/web/schema.yml:10 [prod] policy 'prod': owner: must be not null (found: value is null)",
        ],
        "{json:#}"
    );

    // one library only, as a warning: reported, not failing
    write(
        p,
        ".yttcheck.yml",
        "policies:\n- path: policies/prod.yml\n  environments: [prod]\n  libraries: [\"ap*\"]\n  severity: warning\n",
    );
    let (code, json) = check(p, &[]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(
        summary(&json),
        vec!["policy/prod/no-debug-logging warning envs/prod/api.yml:2 [prod] policy 'prod': log_level: must be no debug logging"],
        "{json:#}"
    );
}

#[test]
fn required_keys_broken_policies_and_policies_that_select_nothing() {
    let d = repository();
    let p = d.path();
    write(
        p,
        "policies/owner.yml",
        "---\n#@policy/required\nteam: \"\"\n",
    );
    write(
        p,
        ".yttcheck.yml",
        "policies:\n- path: policies/owner.yml\n  libraries: [api]\n- path: policies/owner.yml\n  name: renamed\n  environments: [production]\n",
    );
    let (code, json) = check(p, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        summary(&json),
        vec![
            "policy/owner/required error policies/owner.yml:3 [dev,prod,prod-eu] policy 'owner': team is required, but this environment does not set it",
            "policy/unused note .yttcheck.yml:5 [] policy 'renamed' (policies/owner.yml) applies to no library x environment pair",
        ],
        "{json:#}"
    );
    // only part of the pairs: whether a policy selects nothing is unknown
    let (_, json) = check(p, &["--env", "dev"]);
    assert!(
        !summary(&json)
            .iter()
            .any(|s| s.starts_with("policy/unused")),
        "{json:#}"
    );

    // a policy that does not evaluate is a configuration error at its line
    write(
        p,
        "policies/owner.yml",
        "---\n#@assert/validate (\"x\", lambda v: v >\nteam: \"\"\n",
    );
    let (code, json) = check(p, &[]);
    assert_eq!(code, 2, "{json:#}");
    let s = summary(&json);
    assert!(
        s[0].starts_with(
            "config/invalid error policies/owner.yml:2 [] policy 'owner' cannot be used:"
        ),
        "{s:#?}"
    );

    // a path that does not exist
    std::fs::remove_file(p.join("policies/owner.yml")).unwrap();
    write(
        p,
        ".yttcheck.yml",
        "policies: [{path: policies/nope.yml}]\n",
    );
    let (code, json) = check(p, &[]);
    assert_eq!(code, 2);
    assert_eq!(
        summary(&json),
        vec!["config/invalid error .yttcheck.yml:1 [] policy 'policies/nope.yml' does not exist"],
    );
}

#[test]
fn a_policy_is_an_input_of_the_pairs_it_applies_to() {
    let d = repository();
    let p = d.path();
    write(
        p,
        "policies/prod.yml",
        "---\n#@assert/validate min=3\nreplicas: 0\n",
    );
    write(
        p,
        ".yttcheck.yml",
        "policies: [{path: policies/prod.yml, environments: [prod]}]\n",
    );
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(p)
        .args(["list", "--names", "policies/prod.yml"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "api@prod\nweb@prod\n");
}

#[test]
fn the_example_prod_pack_on_the_example_monorepo() {
    let d = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    copy_dir(&root.join("monorepo"), d.path());
    copy_dir(&root.join("policies"), &d.path().join("policies"));
    write(
        d.path(),
        ".yttcheck.yml",
        "policies:\n- path: policies/prod\n  environments: [prod*]\n",
    );
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(d.path())
        .args(["check", "--daemon", "never", "-q", "--color", "never"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let text = text
        .lines()
        .filter(|l| !l.starts_with("yttcheck: "))
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!("example_prod_pack", text);
}

use super::common::copy_dir;

#[test]
fn output_policies_check_rendered_documents_selected_by_their_fields() {
    let d = repository();
    let p = d.path();
    write(
        p,
        "libs/web/deployment.yml",
        concat!(
            "#@ load(\"@ytt:data\", \"data\")\n",
            "---\n",
            "kind: Deployment\n",
            "metadata:\n",
            "  name: web\n",
            "spec:\n",
            "  template:\n",
            "    spec:\n",
            "      containers:\n",
            "      - name: web\n",
            "        image: #@ \"web:\" + data.values.image.tag\n",
            "      - name: proxy\n",
            "        resources:\n",
            "          requests: {cpu: 100m}\n",
            "      - name: cache\n",
            "        resources:\n",
            "          limits: {memory: 64Mi}\n",
            "---\n",
            "kind: Service\n",
            "metadata:\n",
            "  name: web\n",
        ),
    );
    // "every container has limits", in ten lines
    write(
        p,
        "policies/limits.yml",
        concat!(
            "#@policy/output match={\"kind\": \"Deployment\"}\n",
            "---\n",
            "spec:\n",
            "  template:\n",
            "    spec:\n",
            "      containers:\n",
            "      #@assert/validate (\"a container with resources\", lambda c: \"resources\" in c)\n",
            "      - resources:\n",
            "          #@policy/required\n",
            "          limits: {}\n",
        ),
    );
    write(
        p,
        ".yttcheck.yml",
        "policies: [{path: policies/limits.yml, environments: [prod]}]\n",
    );
    let (code, json) = check(p, &[]);
    assert_eq!(code, 1);
    // (the template reads one value of the schema: the others are
    // schema/unused-value warnings, not this test's business)
    let policy: Vec<String> = summary(&json)
        .into_iter()
        .filter(|s| s.starts_with("policy/"))
        .collect();
    assert_eq!(
        policy,
        vec![
            "policy/limits/required error libs/web/deployment.yml:2 [prod] policy 'limits': rendered Deployment web: spec.template.spec.containers[1].resources.limits is required, but it is not set",
            "policy/limits/a-container-with-resources error libs/web/deployment.yml:10 [prod] policy 'limits': rendered Deployment web: spec.template.spec.containers[0]: must be a container with resources",
        ],
        "{json:#}"
    );
    // the Service matched nothing; api renders nothing: no findings there
}

/// A pack of two policies on the example repository: `prod/replicas`
/// (min=3) and `prod/logging` (a custom rule).
fn with_pack(p: &Path, config_tail: &str) {
    write(
        p,
        "policies/prod/replicas.yml",
        "---\n#@assert/validate min=3\nreplicas: 0\n",
    );
    write(
        p,
        "policies/prod/logging.yml",
        "---\n#@assert/validate (\"no debug logging\", lambda v: v != \"debug\")\nlog_level: info\n",
    );
    write(
        p,
        ".yttcheck.yml",
        format!("policies:\n- path: policies/prod\n  environments: [prod]\n{config_tail}"),
    );
}

#[test]
fn policy_rule_ids_select_findings_in_rules_ignores_and_inline_comments() {
    let d = repository();
    let p = d.path();
    with_pack(p, "");
    let (code, json) = check(p, &[]);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(
        summary(&json),
        vec![
            "policy/prod/logging/no-debug-logging error envs/prod/api.yml:2 [prod] policy 'prod/logging': log_level: must be no debug logging",
            "policy/prod/replicas/min error envs/prod/web.yml:1 [prod] policy 'prod/replicas': replicas: must be a value >= 3 (found: value < 3)",
        ],
        "{json:#}"
    );

    // severity by the most specific id; a whole pack by its prefix
    with_pack(
        p,
        "rules:\n  policy/prod: note\n  policy/prod/replicas/min: warning\n",
    );
    let (code, json) = check(p, &[]);
    assert_eq!(code, 0, "{json:#}");
    let sevs: Vec<String> = summary(&json)
        .iter()
        .map(|s| s.split(' ').take(2).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        sevs,
        vec![
            "policy/prod/replicas/min warning",
            "policy/prod/logging/no-debug-logging note"
        ]
    );

    // an ignore by one policy's prefix silences that policy only
    with_pack(
        p,
        "ignore:\n- rule: policy/prod/logging\n  paths: [\"envs/**\"]\n",
    );
    let (_, json) = check(p, &[]);
    assert_eq!(
        summary(&json)
            .iter()
            .map(|s| s.split(' ').next().unwrap().to_string())
            .collect::<Vec<_>>(),
        vec!["policy/prod/replicas/min"],
        "{json:#}"
    );

    // inline, with the rule's own id; a pattern naming no finding is news
    with_pack(p, "");
    write(
        p,
        "envs/prod/web.yml",
        "replicas: 2 #! yttcheck: ignore[policy/prod/replicas/min]\nimage:\n  tag: 1.4.2\ningress:\n  enabled: true\n",
    );
    write(
        p,
        "envs/prod/api.yml",
        "replicas: 4\nlog_level: debug #! yttcheck: ignore[policy/prod/replicas]\n",
    );
    let (_, json) = check(p, &[]);
    assert_eq!(
        summary(&json),
        vec![
            "policy/prod/logging/no-debug-logging error envs/prod/api.yml:2 [prod] policy 'prod/logging': log_level: must be no debug logging",
            "suppression/unused note envs/prod/api.yml:2 [] `#! yttcheck: ignore[policy/prod/replicas]` silences no finding here",
        ],
        "{json:#}"
    );

    // a baseline keeps the policy rule's id and silences it
    let run = |args: &[&str]| {
        Command::cargo_bin("yttcheck")
            .unwrap()
            .current_dir(p)
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["check", "--baseline", "base.json", "--update-baseline"]);
    assert!(out.status.success(), "{out:?}");
    let base = std::fs::read_to_string(p.join("base.json")).unwrap();
    assert!(
        base.contains("\"policy/prod/logging/no-debug-logging\""),
        "{base}"
    );
    let out = run(&["check", "--baseline", "base.json"]);
    assert!(out.status.success(), "{out:?}");

    // a pattern that is no rule at all is a config error
    with_pack(p, "rules:\n  polcy/prod: off\n");
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(p)
        .arg("check")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains(".yttcheck.yml:5: rules: no rule `polcy/prod`"),
        "{out:?}"
    );
}

#[test]
fn sarif_has_a_rule_per_policy_rule() {
    let d = repository();
    let p = d.path();
    with_pack(p, "");
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(p)
        .args(["check", "--format", "sarif"])
        .output()
        .unwrap();
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = &sarif["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for result in run["results"].as_array().unwrap() {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"], "{result:#}");
    }
    let ids: Vec<&str> = rules.iter().filter_map(|r| r["id"].as_str()).collect();
    assert!(ids.contains(&"policy/prod/replicas/min"), "{ids:?}");
    assert!(
        ids.contains(&"policy/prod/logging/no-debug-logging"),
        "{ids:?}"
    );
}

#[test]
fn a_pack_manifest_names_the_pack_and_sets_severities() {
    let d = repository();
    let p = d.path();
    with_pack(p, "");
    write(
        p,
        "policies/prod/yttcheck-pack.yml",
        "name: acme-prod\nversion: 1.4.0\ndescription: Rules every production environment follows\nseverity: warning\npolicies:\n  logging.yml: {severity: note, description: No debug logging in prod}\n",
    );
    let (code, json) = check(p, &[]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(
        summary(&json),
        vec![
            "policy/acme-prod/replicas/min warning envs/prod/web.yml:1 [prod] policy 'acme-prod/replicas': replicas: must be a value >= 3 (found: value < 3)",
            "policy/acme-prod/logging/no-debug-logging note envs/prod/api.yml:2 [prod] policy 'acme-prod/logging': log_level: must be no debug logging",
        ],
        "{json:#}"
    );

    // .yttcheck.yml has the last word
    with_pack(p, "  severity: error\n");
    let (code, _) = check(p, &[]);
    assert_eq!(code, 1);

    // explain shows the pack
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(p)
        .args(["explain", "policy/acme-prod/logging/no-debug-logging"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("policy/violation (error)"), "{text}");
    assert!(
        text.ends_with("policy/acme-prod/logging       error    policies/prod/logging.yml (2 pairs); pack acme-prod 1.4.0: No debug logging in prod\n"),
        "{text}"
    );

    // a manifest that is wrong is a configuration error at its line; the
    // manifest is an input of the pairs (edits re-check them)
    write(
        p,
        "policies/prod/yttcheck-pack.yml",
        "name: acme-prod\npolicies:\n  loging.yml: {severity: note}\n",
    );
    let (code, json) = check(p, &[]);
    assert_eq!(code, 2, "{json:#}");
    assert_eq!(
        summary(&json),
        vec!["config/invalid error policies/prod/yttcheck-pack.yml:3 [] policy pack manifest policies/prod/yttcheck-pack.yml: 'loging.yml' is not a policy file of the pack (it has: logging.yml, replicas.yml)"],
        "{json:#}"
    );
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(p)
        .args(["list", "--format", "json"])
        .output()
        .unwrap();
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        listed["problems"][0]["path"], "policies/prod/yttcheck-pack.yml",
        "{listed:#}"
    );
    assert!(
        !listed["pairs"].to_string().contains("yttcheck-pack"),
        "the manifest is no library or environment file: {listed:#}"
    );
}

#[test]
fn explain_lists_the_policies_of_the_repository() {
    let d = repository();
    let p = d.path();
    write(
        p,
        "policies/prod.yml",
        "---\n#@assert/validate min=3\nreplicas: 0\n",
    );
    write(
        p,
        ".yttcheck.yml",
        "policies:\n- path: policies/prod.yml\n  environments: [prod]\n  severity: warning\n",
    );
    let out = Command::cargo_bin("yttcheck")
        .unwrap()
        .current_dir(p)
        .args(["explain", "policy/violation"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.ends_with("policies of this repository (rule ids policy/<policy>/<rule>):\npolicy/prod                    warning  policies/prod.yml (2 pairs)\n"),
        "{text}"
    );
}

#[test]
fn data_values_and_schema_files_are_never_rendered_documents() {
    // an output policy that fails any document with a top-level `replicas`:
    // only data values and schema documents have one, and they are not
    // rendered, whether the library's own or the environment's
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "libs/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    write(
        p,
        "libs/web/values.yml",
        "#@data/values\n---\nreplicas: 2\n",
    );
    write(
        p,
        "libs/web/config.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nkind: Deployment\nspec:\n  replicas: #@ data.values.replicas\n",
    );
    write(p, "envs/prod/web.yml", "#@data/values\n---\nreplicas: 3\n");
    write(
        p,
        "envs/dev/web/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    write(
        p,
        "envs/dev/web/values.yml",
        "#@data/values\n---\nreplicas: 4\n",
    );
    write(
        p,
        "policies/outputs.yml",
        "#@policy/output match={}\n---\n#@assert/validate (\"a rendered document\", lambda v: False)\nreplicas: 0\n",
    );
    write(
        p,
        ".yttcheck.yml",
        "policies: [{path: policies/outputs.yml}]\n",
    );
    let (code, json) = check(p, &[]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["summary"]["pairs"], 2, "{json:#}");
    // (and the policy does apply to what is rendered)
    write(
        p,
        "libs/web/config.yml",
        "---\nkind: Deployment\nreplicas: 1\n",
    );
    let (code, json) = check(p, &[]);
    assert_eq!(code, 1, "{json:#}");
}
