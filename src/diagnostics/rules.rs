//! Every rule a finding can have, as a typed id, documented once beside it:
//! what it checks, why it matters, an example that fails and its fix (as
//! ruff documents each rule beside its code). This text is what `yttcheck
//! explain RULE` prints, what SARIF carries as `fullDescription` and `help`,
//! and what the README's rule table lists (a test keeps them in step).
//!
//! A rule id is chosen where a problem is found, as a value of [`RuleId`];
//! nothing derives one from message text, and the compiler checks every use.

use super::Severity;

/// A rule's documentation.
#[derive(Debug)]
pub struct RuleDoc {
    /// Stable, namespaced id (`schema/type-mismatch`).
    pub id: &'static str,
    pub severity: Severity,
    /// One line.
    pub summary: &'static str,
    /// Why it matters.
    pub why: &'static str,
    /// A failing example.
    pub example: &'static str,
    /// How to fix it.
    pub fix: &'static str,
}

macro_rules! rules {
    ($(
        $(#[$doc:meta])*
        $variant:ident {
            id: $id:literal,
            severity: $sev:ident,
            summary: $summary:literal,
            why: $why:literal,
            example: $example:literal,
            fix: $fix:literal,
        },
    )*) => {
        /// A rule id: what kind of problem a finding is.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum RuleId {
            $( $(#[$doc])* $variant, )*
        }

        impl RuleId {
            /// Every rule, in the order the README lists them.
            pub const ALL: &'static [RuleId] = &[ $( RuleId::$variant, )* ];

            /// The rule's documentation.
            pub fn doc(self) -> &'static RuleDoc {
                match self {
                    $( RuleId::$variant => &RuleDoc {
                        id: $id,
                        severity: Severity::$sev,
                        summary: $summary,
                        why: $why,
                        example: $example,
                        fix: $fix,
                    }, )*
                }
            }
        }
    };
}

rules! {
    /// `.yttcheck.yml` is malformed, or names files that do not exist.
    ConfigInvalid {
        id: "config/invalid",
        severity: Error,
        summary: "`.yttcheck.yml` is malformed, or names files that do not exist.",
        why: "A typo in the config file would silently change what is checked.",
        example: "librarys:\n- glob: libs/*",
        fix: "libraries:\n- glob: libs/*",
    },
    /// A file cannot be read as text: missing, unreadable, binary, too large or not UTF-8.
    FileUnreadable {
        id: "file/unreadable",
        severity: Error,
        summary: "A file cannot be read as text: missing, unreadable, binary, too large or not UTF-8.",
        why: "ytt would fail on it too; yttcheck never skips a file silently.",
        example: "values.yml saved as Latin-1 (`café` as byte 0xE9)",
        fix: "Save the file as UTF-8 (or remove it from the library).",
    },
    /// A ytt file that starts with a byte order mark, which ytt reads as content: its first line is no annotation.
    FileByteOrderMark {
        id: "file/byte-order-mark",
        severity: Warning,
        summary: "A ytt file that starts with a byte order mark, which ytt reads as content: its first line is no annotation.",
        why: "ytt puts `---` before the file, and go-yaml skips a byte order mark only at the start of its input: `#@data/values` on the first line becomes the text of a document, so the file gives no data values (and a `#@ load(...)` there is lost). Editors on Windows add the mark silently.",
        example: "<BOM>#@data/values\n---\nreplicas: 3",
        fix: "Save the file as UTF-8 without a byte order mark.",
    },
    /// A YAML file of the repository that no library x environment pair reads.
    WorkspaceUnusedFile {
        id: "workspace/unused-file",
        severity: Note,
        summary: "A YAML file of the repository that no library x environment pair reads.",
        why: "A values file in a folder discovery does not know (say `deploy/prod.yml`) would silently never be checked; this note says so.",
        example: "deploy/prod.yml   # not under envs/, environments/ or values/",
        fix: "Move it under envs/<name>/ (or values/), or declare it in .yttcheck.yml (`environments:`, or a library's `files:`).",
    },
    /// An environment's YAML file named after no library, in an environment of several libraries: no library reads it.
    WorkspaceUnmatchedValuesFile {
        id: "workspace/unmatched-values-file",
        severity: Warning,
        summary: "An environment's YAML file named after no library, in an environment of several libraries: no library reads it.",
        why: "In `envs/<env>/`, `<library>.yml` is that library's. A file named after no library used to be applied to every library of the environment, so a values file meant for one (named after a package whose library has another name) broke all the others with undeclared keys. It is nobody's instead, and this says so.",
        example: "envs/prod/secretgen.yml   # the library is named secretgen-controller",
        fix: "Rename it after the library (`yttcheck list` shows the names), or give it an environment-wide name (common.yml, values.yml, _all.yml...) if every library of the environment should read it.",
    },
    /// A Package CR's valuesSchema that disagrees with its library's schema: a value missing from either, or a type or default that differs.
    PackageSchemaDrift {
        id: "package/schema-drift",
        severity: Error,
        summary: "A Package CR's `spec.valuesSchema.openAPIv3` that disagrees with its library's schema: a value one has and the other not, or a type (with `nullable`) or default that differs.",
        why: "The CR is what `kctrl` and `tanzu package available get --values-schema` show the package's users, and what kapp-controller documents installs with; the schema is what ytt checks their values against. Kept in step by hand, they drift: users are shown values that ytt refuses, defaults that are not the defaults, and not shown values that exist. The library's side is ytt's own export (`--data-values-schema-inspect -o openapi-v3`), so a CR written from it matches exactly. Found at the CR's property (a Package CR is tied to the library its `template[].ytt.paths` name in the bundle beside it, or by `package:` on the library's entry in .yttcheck.yml).",
        example: "# schema.yaml\n#@data/values-schema\n---\nreplicas: 2\n# package.yaml\nspec:\n  valuesSchema:\n    openAPIv3:\n      properties:\n        replicas:\n          type: string   # the schema says integer\n          default: \"2\"",
        fix: "Write the valuesSchema from the schema: the editor's fix-it writes the block afresh (the rest of the file kept byte for byte), or paste `yttcheck inspect -f LIBRARY --data-values-schema-inspect -o openapi-v3`'s components.schemas.dataValues under valuesSchema.openAPIv3.",
    },
    /// A Package CR whose valuesSchema documents a value otherwise than the library's schema.
    PackageDocDrift {
        id: "package/doc-drift",
        severity: Note,
        summary: "A Package CR whose valuesSchema documents a value otherwise than the library's schema (title, description, examples, deprecation).",
        why: "Users read the CR's descriptions (`kctrl package available get --values-schema`); the schema's `@schema/desc` is where authors change them. A description changed in one place only tells users something the package no longer does.",
        example: "#@schema/desc \"Replicas of the controller\"\nreplicas: 2\n# package.yaml: description: How many pods",
        fix: "Change the description in the schema and write the CR's valuesSchema from it (the fix-it of package/schema-drift does both at once).",
    },
    /// A Package CR with a valuesSchema whose library has no schema: compared by key only.
    PackageUntypedLibrary {
        id: "package/untyped-library",
        severity: Note,
        summary: "A Package CR with a valuesSchema whose library has no schema (`#@data/values` only): there is nothing typed to compare it with.",
        why: "ytt exports an untyped (null) schema for such a library, so types and defaults cannot be held to anything; the keys the library's data values declare are compared instead (package/key-drift). Said once per CR, never as a wall of errors.",
        example: "# values.yaml\n#@data/values\n---\nnamespace: harbor\n# package.yaml has spec.valuesSchema.openAPIv3",
        fix: "Turn the library's data values into a schema (`#@data/values-schema`), then write the CR's valuesSchema from it.",
    },
    /// A Package CR whose valuesSchema offers keys the untyped library does not declare, or misses keys it does.
    PackageKeyDrift {
        id: "package/key-drift",
        severity: Warning,
        summary: "A Package CR whose valuesSchema names keys the library's (untyped) data values do not declare, or does not name keys they declare.",
        why: "A key the CR offers that the data values do not declare is refused by ytt when a user sets it (whereabouts' CR said `resources.request` where its values say `requests`); a declared key the CR does not name is invisible to users.",
        example: "# values.yaml: whereabouts.config.resources.requests.cpu\n# package.yaml: whereabouts.config.resources.request.cpu",
        fix: "Rename the key on the side that is wrong (the data values are what ytt reads).",
    },
    /// A Package CR without a valuesSchema for a library with a schema.
    PackageMissingValuesSchema {
        id: "package/missing-values-schema",
        severity: Warning,
        summary: "A Package CR without `spec.valuesSchema.openAPIv3` for a library that has a schema.",
        why: "Users of the package are shown no values (`kctrl package available get --values-schema` prints nothing) although the library declares and checks them.",
        example: "spec:\n  refName: x.example.com\n  template: ...   # no valuesSchema",
        fix: "Add valuesSchema.openAPIv3 from `yttcheck inspect -f LIBRARY --data-values-schema-inspect -o openapi-v3` (its components.schemas.dataValues).",
    },
    /// A suppression that no finding needed any more.
    SuppressionUnused {
        id: "suppression/unused",
        severity: Note,
        summary: "A suppression (`#! yttcheck: ignore[...]`, an `ignore:` entry of `.yttcheck.yml`, or baseline entries) that no finding needed.",
        why: "A suppression outlives the problem it hid; left in place it would silently hide the next one.",
        example: "#! yttcheck: ignore[schema/undeclared-key]\nreplicas: 3   # the key is declared now",
        fix: "Remove the comment or entry (`check --update-baseline` rewrites a baseline).",
    },
    /// A file is not valid YAML, or nests/aliases beyond yttcheck's limits.
    YamlSyntax {
        id: "yaml/syntax",
        severity: Error,
        summary: "A file is not valid YAML, or nests/aliases beyond yttcheck's limits.",
        why: "ytt cannot read the file, so nothing that depends on it can be checked.",
        example: "ports: [80, 443\nhost: x",
        fix: "ports: [80, 443]\nhost: x",
    },
    /// A template or Starlark file fails to compile or evaluate (syntax error, runtime error, failed `load()`).
    TemplateError {
        id: "template/error",
        severity: Error,
        summary: "A template or Starlark file fails to compile or evaluate (syntax error, runtime error, failed `load()`).",
        why: "ytt stops at the first such error; the values of the library cannot be computed.",
        example: "#@data/values\n---\nport: #@ 80 + \"80\"",
        fix: "#@data/values\n---\nport: #@ 80 + 80",
    },
    /// An evaluation ran out of its step, time or memory budget.
    TemplateBudget {
        id: "template/budget",
        severity: Error,
        summary: "An evaluation ran out of its step, time or memory budget.",
        why: "An endless loop or a value that grows without bound would hang ytt or exhaust the machine; yttcheck stops it and names the line.",
        example: "#@ for i in range(1000000000):\n#@   x = i\n#@ end",
        fix: "Bound the loop; raise `--max-steps`/`--timeout` (or `budget:` in the config) only for legitimately large evaluations.",
    },
    /// An annotation in one of ytt's namespaces (`schema/`, `data/`, `overlay/`, ...) that ytt does not know.
    AnnotationUnknown {
        id: "annotation/unknown",
        severity: Warning,
        summary: "An annotation in one of ytt's namespaces (`schema/`, `data/`, `overlay/`, ...) that ytt does not know.",
        why: "ytt silently ignores annotations it does not know, so the author's intent (say, `@schema/nulable`) does nothing; the check still evaluates the pair as ytt would.",
        example: "#@schema/nulable\ntag: \"\"",
        fix: "#@schema/nullable\ntag: \"\"",
    },
    /// A `#@` comment that ytt reads as an annotation but that looks like code (`#@data.values.x`): ytt ignores it.
    AnnotationNotTemplate {
        id: "annotation/not-template",
        severity: Error,
        summary: "A `#@` comment that ytt reads as an annotation but that looks like code (`#@data.values.x`): ytt ignores it.",
        why: "Without a space after `#@`, ytt takes the comment for an annotation named `data.values.x`, keeps it and ignores it: the node silently renders `null` (carvel-dev/ytt#621).",
        example: "replicas: #@data.values.replicas",
        fix: "replicas: #@ data.values.replicas",
    },
    /// A template reads a data value the library does not declare (its schema, or its values when it has no schema).
    TemplateUndeclaredValue {
        id: "template/undeclared-value",
        severity: Error,
        summary: "A template reads a data value the library does not declare (its schema, or its values when it has no schema).",
        why: "ytt fails on the read with `struct has no .x field or method`, and only when the line runs, so a value renamed in the schema breaks the one environment that takes that branch, at deploy time.",
        example: "# schema: replica_count: 1
replicas: #@ data.values.replicas",
        fix: "replicas: #@ data.values.replica_count",
    },
    /// A declared data value that no template, helper or private library reads, in any environment (a yttcheck extension; needs rendering).
    SchemaUnusedValue {
        id: "schema/unused-value",
        severity: Warning,
        summary: "A declared data value that no template, helper or private library reads, in any environment (a yttcheck extension; needs rendering).",
        why: "A value nothing reads is dead configuration: environments set it and nothing changes (carvel-dev/ytt#253). It is only reported when every pair of the library rendered, so the reads seen are complete.",
        example: "#@data/values-schema
---
replicas: 1
legacy_port: 8080  # no template reads it",
        fix: "Remove the value from the schema (or mark it `@schema/deprecated` first), or read it where it was meant to be used. A vendored package floods a first run with these: silence the rule for its files with `ignore: [{rule: schema/unused-value, paths: [\"vendor/**\"]}]` in `.yttcheck.yml`.",
    },
    /// A declared data value that a template reads only on a path no environment takes (under a condition none meets): a note, not dead configuration (a yttcheck extension; needs rendering).
    SchemaUnreachedValue {
        id: "schema/unreached-value",
        severity: Note,
        summary: "A declared data value that a template reads only on a path no environment takes (under a condition none meets): a note, not dead configuration (a yttcheck extension; needs rendering).",
        why: "The value is wired up (`images.velero` under `#@ if values.images.update:`), but no environment switches that path on, so none of them proves the read works; a typo there fails only on the day someone enables it.",
        example: "#@ if data.values.images.update:
image: #@ data.values.images.velero
#@ end
# every environment sets images.update: false",
        fix: "Add an environment (or a test environment) that takes the path, or drop the value if the path is dead.",
    },
    /// A pair's final data values break a rule of a policy of `.yttcheck.yml` (its severity is the policy's).
    PolicyViolation {
        id: "policy/violation",
        severity: Error,
        summary: "A pair's final data values break a rule of a policy of `.yttcheck.yml` (its severity is the policy's).",
        why: "Policies are an organisation's rules on where a value may run (at least 3 replicas in prod, no `latest` image outside dev), written in ytt's own `@assert/validate` language next to the configuration they govern.",
        example: "# policies/prod.yml, for environments [prod]\n#@assert/validate (\"at least 3 replicas in prod\", lambda v: v >= 3)\nreplicas: 0\n# envs/prod/web.yml\nreplicas: 1",
        fix: "replicas: 3",
    },
    /// A rendered document breaks its kind's Kubernetes schema (or its CRD's): a field of the wrong type, a required field missing, a value the schema does not allow. Reported at the template line that wrote the field.
    KubernetesInvalid {
        id: "kubernetes/invalid",
        severity: Error,
        summary: "A rendered document breaks its kind's Kubernetes schema (or its CRD's): a field of the wrong type, a required field missing, a value the schema does not allow. Reported at the template line that wrote the field.",
        why: "The API server refuses the object, so the deploy fails; `ytt | kubeconform` would say so on a line of the rendered stream, for one environment at a time. Here it is the template line (and the data value it copied), for every environment it fails in.",
        example: "# config/deployment.yml\nports:\n- containerPort: #@ data.values.port\n# envs/prod/values.yml\nport: http",
        fix: "# envs/prod/values.yml\nport: 8080",
    },
    /// Under `kubernetes.strict`, a rendered document has a field its kind's schema does not define (usually a misspelt key).
    KubernetesUnknownField {
        id: "kubernetes/unknown-field",
        severity: Error,
        summary: "Under `kubernetes.strict`, a rendered document has a field its kind's schema does not define (usually a misspelt key).",
        why: "The API server drops unknown fields (or refuses them with strict field validation): a misspelt `limitz:` silently leaves the container without limits.",
        example: "resources:\n  limitz:\n    memory: 1Gi",
        fix: "resources:\n  limits:\n    memory: 1Gi",
    },
    /// No schema location has a schema for a rendered document's kind (and no CRD of the repository defines it): the document is not checked.
    KubernetesNoSchema {
        id: "kubernetes/no-schema",
        severity: Note,
        summary: "No schema location has a schema for a rendered document's kind (and no CRD of the repository defines it): the document is not checked.",
        why: "A custom resource whose CRD is not in the repository, or a kind Kubernetes does not know in the version checked, cannot be validated; saying so keeps a clean report honest.",
        example: "apiVersion: kapp.k14s.io/v1alpha1\nkind: Config",
        fix: "kubernetes:\n  skip_kinds: [kapp.k14s.io/v1alpha1/Config]   # or name its CRD in `crds:`, or add a schema location that has it",
    },
    /// A schema location could not be read (the network: a host that did not answer within `--schema-timeout` or resolves to an address that is not public; a cache miss with `--offline`; a schema that is not JSON; a `$ref` that leaves the schema's folder; a CRD nesting deeper than 128 levels): the documents of that kind are not checked.
    KubernetesSchemaUnavailable {
        id: "kubernetes/schema-unavailable",
        severity: Error,
        summary: "A schema location could not be read (the network: a host that did not answer within `--schema-timeout` or resolves to an address that is not public; a cache miss with `--offline`; a schema that is not JSON; a `$ref` that leaves the schema's folder; a CRD nesting deeper than 128 levels): the documents of that kind are not checked.",
        why: "A check that could not check must not pass as clean.",
        example: "yttcheck check --offline   # the schema cache is empty",
        fix: "Run once online to fill the cache (`--cache-dir`, or `~/.cache/yttcheck`), or point `--schema-location` at a folder of schemas.",
    },
    /// A rendered object whose apiVersion its environment's Kubernetes version no longer serves (removed).
    KubernetesRemovedApi {
        id: "kubernetes/removed-api",
        severity: Error,
        summary: "A rendered object whose apiVersion its environment's Kubernetes version no longer serves (removed).",
        why: "The API server refuses the object: an upgrade of that environment's cluster breaks the deploy. Each environment targets its own version (`kubernetes.versions`), so the check says which environments are ready for an upgrade and which are not.",
        example: "apiVersion: policy/v1beta1   # removed in 1.25\nkind: PodDisruptionBudget",
        fix: "Use the replacement the finding names (`policy/v1`), checking its schema's differences.",
    },
    /// A CRD of the repository that defines a built-in Kubernetes kind (`deployments.apps`): ignored, the built-in schema checks that kind.
    KubernetesCrdShadowsBuiltIn {
        id: "kubernetes/crd-shadows-built-in",
        severity: Warning,
        summary: "A CRD of the repository that defines a built-in Kubernetes kind (`deployments.apps`): ignored, the built-in schema checks that kind.",
        why: "The API server serves its built-in kinds itself and refuses such a CRD; taken as written, one file anywhere in the repository would replace the Deployment schema (an empty one silences every Deployment's validation).",
        example: "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: deployments.apps}\nspec: {group: apps, names: {kind: Deployment}}",
        fix: "Remove the CRD, or give the resource a group of your own (`example.com`).",
    },
    /// A rendered object whose apiVersion is deprecated in its environment's Kubernetes version, or by its CRD.
    KubernetesDeprecatedApi {
        id: "kubernetes/deprecated-api",
        severity: Warning,
        summary: "A rendered object whose apiVersion is deprecated in its environment's Kubernetes version, or by its CRD.",
        why: "A deprecated API is removed in a later release: moving before the upgrade is cheaper than during it.",
        example: "apiVersion: batch/v1beta1   # deprecated in 1.21\nkind: CronJob",
        fix: "Use the replacement the finding names.",
    },
    /// A policy of `.yttcheck.yml` selects no pair (its globs match no library x environment).
    PolicyUnused {
        id: "policy/unused",
        severity: Note,
        summary: "A policy of `.yttcheck.yml` selects no pair (its globs match no library x environment).",
        why: "A rule that applies nowhere protects nothing, usually because an environment was renamed.",
        example: "policies:\n- path: policies/prod.yml\n  environments: [production]   # the environment is `prod`",
        fix: "policies:\n- path: policies/prod.yml\n  environments: [prod]",
    },
    /// The schema itself is wrong: a misused annotation, a null default without `@schema/nullable`, an array without exactly one item, a default of the wrong type.
    SchemaInvalid {
        id: "schema/invalid",
        severity: Error,
        summary: "The schema itself is wrong: a misused annotation, a null default without `@schema/nullable`, an array without exactly one item, a default of the wrong type.",
        why: "ytt refuses the schema, so no environment of the library can be checked.",
        example: "#@data/values-schema\n---\nports: []",
        fix: "#@data/values-schema\n---\nports:\n- 80",
    },
    /// A data value has a different type than the schema declares.
    SchemaTypeMismatch {
        id: "schema/type-mismatch",
        severity: Error,
        summary: "A data value has a different type than the schema declares.",
        why: "ytt fails on it; templates would otherwise receive a value of the wrong type.",
        example: "# schema: replicas: 1\nreplicas: \"3\"",
        fix: "replicas: 3",
    },
    /// A data value is given for a key the schema does not declare.
    SchemaUndeclaredKey {
        id: "schema/undeclared-key",
        severity: Error,
        summary: "A data value is given for a key the schema does not declare.",
        why: "Usually a typo: the value the author meant to set keeps its default.",
        example: "# schema: replicas: 1\nreplica: 3",
        fix: "replicas: 3",
    },
    /// A data values overlay does not apply: no match, several matches, or a failed `@overlay/assert`.
    OverlayError {
        id: "overlay/error",
        severity: Error,
        summary: "A data values overlay does not apply: no match, several matches, or a failed `@overlay/assert`.",
        why: "ytt fails on it; a new key in a `@data/values` document needs `@overlay/match missing_ok=True` (or a schema).",
        example: "#@data/values\n---\nnew_key: 1",
        fix: "#@data/values\n---\n#@overlay/match missing_ok=True\nnew_key: 1",
    },
    /// Data values cannot be computed for another reason: a plain values file with annotations, a malformed flag, a misplaced document.
    ValuesError {
        id: "values/error",
        severity: Error,
        summary: "Data values cannot be computed for another reason: a plain values file with annotations, a malformed flag, a misplaced document.",
        why: "ytt fails on it.",
        example: "# given with --data-values-file:\n#@data/values\n---\na: 1",
        fix: "Remove the `#@` annotations from plain values files (or give the file with `-f`).",
    },
    /// A value is given for a key the schema marks `@schema/deprecated`.
    ValuesDeprecated {
        id: "values/deprecated",
        severity: Warning,
        summary: "A value is given for a key the schema marks `@schema/deprecated`.",
        why: "The library intends to drop the key; its consumers should move off it before it does.",
        example: "#@schema/deprecated \"use image.tag\"\ntag: \"\"\n# values: tag: v1",
        fix: "Set the replacement the deprecation notice names.",
    },
    /// A value is given for a key the schema marks `@schema/removed` (a yttcheck extension).
    ValuesRemoved {
        id: "values/removed",
        severity: Error,
        summary: "A value is given for a key the schema marks `@schema/removed` (a yttcheck extension).",
        why: "The library no longer reads the key: the value has no effect.",
        example: "#@schema/removed \"use image.tag\"\ntag: \"\"\n# values: tag: v1",
        fix: "Remove the value, or set the replacement the notice names.",
    },
    /// A validation rule is misused: unknown keyword, wrong argument type, a rule that is not a 2-tuple, `when=` with the wrong arity or result.
    ValidationInvalidRule {
        id: "validation/invalid-rule",
        severity: Error,
        summary: "A validation rule is misused: unknown keyword, wrong argument type, a rule that is not a 2-tuple, `when=` with the wrong arity or result.",
        why: "ytt refuses to validate, so none of the library's values are checked.",
        example: "#@schema/validation one_of=3\nmode: a",
        fix: "#@schema/validation one_of=[\"a\", \"b\"]\nmode: a",
    },
    /// A value fails a custom rule `(description, assertion)`.
    ValidationCustom {
        id: "validation/custom",
        severity: Error,
        summary: "A value fails a custom rule `(description, assertion)`.",
        why: "The library's author declared what a valid value is.",
        example: "#@schema/validation (\"an odd number\", lambda v: v % 2 == 1)\nreplicas: 2",
        fix: "replicas: 3",
    },
    /// A value is below `min=`.
    ValidationMin {
        id: "validation/min",
        severity: Error,
        summary: "A value is below `min=`.",
        why: "The library's author declared the smallest valid value.",
        example: "#@schema/validation min=1\nreplicas: 0",
        fix: "replicas: 1",
    },
    /// A value is above `max=`.
    ValidationMax {
        id: "validation/max",
        severity: Error,
        summary: "A value is above `max=`.",
        why: "The library's author declared the largest valid value.",
        example: "#@schema/validation max=10\nreplicas: 11",
        fix: "replicas: 10",
    },
    /// A string, array or map is shorter than `min_len=`.
    ValidationMinLen {
        id: "validation/min_len",
        severity: Error,
        summary: "A string, array or map is shorter than `min_len=`.",
        why: "Often an input that must be given (an empty string is the default of a required value).",
        example: "#@schema/validation min_len=1\npassword: \"\"",
        fix: "password: s3cr3t (from a values file or a flag)",
    },
    /// A string, array or map is longer than `max_len=`.
    ValidationMaxLen {
        id: "validation/max_len",
        severity: Error,
        summary: "A string, array or map is longer than `max_len=`.",
        why: "The library's author declared the longest valid value (Kubernetes names, labels).",
        example: "#@schema/validation max_len=63\nname: a-very-long-name-...",
        fix: "Shorten the value.",
    },
    /// A value is null where `not_null=True` requires one.
    ValidationNotNull {
        id: "validation/not_null",
        severity: Error,
        summary: "A value is null where `not_null=True` requires one.",
        why: "A nullable value that the library needs in some configurations was not given.",
        example: "#@schema/nullable\n#@schema/validation not_null=True\ntoken: \"\"",
        fix: "token: abc (from a values file or a flag)",
    },
    /// Not exactly one of a map's listed children has a value.
    ValidationOneNotNull {
        id: "validation/one_not_null",
        severity: Error,
        summary: "Not exactly one of a map's listed children has a value.",
        why: "Alternatives (one storage backend, one auth method) must be chosen, and only one.",
        example: "#@schema/validation one_not_null=[\"s3\", \"gcs\"]\nstorage: {s3: null, gcs: null}",
        fix: "Give exactly one of them a value.",
    },
    /// A value is not one of `one_of=`'s choices.
    ValidationOneOf {
        id: "validation/one_of",
        severity: Error,
        summary: "A value is not one of `one_of=`'s choices.",
        why: "The library's author enumerated the valid values.",
        example: "#@schema/validation one_of=[\"debug\", \"info\"]\nlog_level: trace",
        fix: "log_level: debug",
    },
    /// A string, array or map does not have exactly `len=` items (yttcheck extension).
    ValidationLen {
        id: "validation/len",
        severity: Error,
        summary: "A string, array or map does not have exactly `len=` items (yttcheck extension).",
        why: "Keys and secrets often need an exact length.",
        example: "#@schema/validation len=16\nsecret_key: short",
        fix: "secret_key: 0123456789abcdef",
    },
    /// A string is not in the `format=` (hostname, ip, email, uri, date-time, port, duration, quantity, ...; yttcheck extension).
    ValidationFormat {
        id: "validation/format",
        severity: Error,
        summary: "A string is not in the `format=` (hostname, ip, email, uri, date-time, port, duration, quantity, ...; yttcheck extension).",
        why: "A malformed address or quantity fails only at deploy time otherwise.",
        example: "#@schema/validation format=\"hostname\"\nhost: -bad-",
        fix: "host: good.example.com",
    },
    /// A string does not start with `starts_with=` (yttcheck extension).
    ValidationStartsWith {
        id: "validation/starts_with",
        severity: Error,
        summary: "A string does not start with `starts_with=` (yttcheck extension).",
        why: "Prefixes carry meaning (registries, schemes).",
        example: "#@schema/validation starts_with=\"ghcr.io/\"\nimage: docker.io/x",
        fix: "image: ghcr.io/x",
    },
    /// A string does not end with `ends_with=` (yttcheck extension).
    ValidationEndsWith {
        id: "validation/ends_with",
        severity: Error,
        summary: "A string does not end with `ends_with=` (yttcheck extension).",
        why: "Suffixes carry meaning (`.git`, domains).",
        example: "#@schema/validation ends_with=\".git\"\nrepo: https://x/y",
        fix: "repo: https://x/y.git",
    },
    /// A string does not contain `contains=` (yttcheck extension).
    ValidationContains {
        id: "validation/contains",
        severity: Error,
        summary: "A string does not contain `contains=` (yttcheck extension).",
        why: "For example, an image reference that must be digest-pinned (`@sha256:`).",
        example: "#@schema/validation contains=\"@sha256:\"\nimage: app:latest",
        fix: "image: app@sha256:...",
    },
    /// A string does not match the `matches=` regular expression (yttcheck extension).
    ValidationMatches {
        id: "validation/matches",
        severity: Error,
        summary: "A string does not match the `matches=` regular expression (yttcheck extension).",
        why: "The library's author declared the shape of valid values.",
        example: "#@schema/validation matches=\"^[a-z-]+$\"\nname: My_App",
        fix: "name: my-app",
    },
    /// A number is not even (`even=True`, yttcheck extension).
    ValidationEven {
        id: "validation/even",
        severity: Error,
        summary: "A number is not even (`even=True`, yttcheck extension).",
        why: "Some sizes must be even.",
        example: "#@schema/validation even=True\nmemory_gb: 3",
        fix: "memory_gb: 4",
    },
    /// A number is not odd (`odd=True`, yttcheck extension).
    ValidationOdd {
        id: "validation/odd",
        severity: Error,
        summary: "A number is not odd (`odd=True`, yttcheck extension).",
        why: "Quorum-based systems want an odd number of replicas.",
        example: "#@schema/validation odd=True\nreplicas: 2",
        fix: "replicas: 3",
    },
    /// A number is not a multiple of `multiple_of=` (yttcheck extension).
    ValidationMultipleOf {
        id: "validation/multiple_of",
        severity: Error,
        summary: "A number is not a multiple of `multiple_of=` (yttcheck extension).",
        why: "Sizes often come in fixed steps.",
        example: "#@schema/validation multiple_of=1024\nbuffer: 1000",
        fix: "buffer: 1024",
    },
}

impl RuleId {
    /// The stable id (`schema/type-mismatch`).
    pub fn id(self) -> &'static str {
        self.doc().id
    }

    /// The severity a finding of this rule has unless configured otherwise.
    pub fn default_severity(self) -> Severity {
        self.doc().severity
    }

    /// Whether ytt itself fails where this rule finds a problem (a file it
    /// cannot read or parse, a template, schema, overlay or values error, a
    /// failed validation), as opposed to what only yttcheck reports (lints,
    /// policies, deprecations, configuration). `inspect LIBRARY@ENV` prints
    /// the values unless one of these is an error, as ytt would.
    pub fn ytt_fails(self) -> bool {
        let id = self.id();
        matches!(
            self,
            RuleId::FileUnreadable
                | RuleId::YamlSyntax
                | RuleId::TemplateError
                | RuleId::TemplateBudget
                | RuleId::SchemaInvalid
                | RuleId::SchemaTypeMismatch
                | RuleId::SchemaUndeclaredKey
                | RuleId::OverlayError
                | RuleId::ValuesError
        ) || id.starts_with("validation/")
    }

    /// Whether the rule is a lint of how a file is written, which changes
    /// neither whether ytt succeeds nor what it renders (an annotation ytt
    /// ignores, a value declared and never read): in a vendored package it
    /// is its authors' to fix, so there it is a note.
    pub fn is_authoring_lint(self) -> bool {
        matches!(
            self,
            RuleId::AnnotationUnknown
                | RuleId::AnnotationNotTemplate
                | RuleId::FileByteOrderMark
                | RuleId::SchemaUnusedValue
                | RuleId::SchemaUnreachedValue
                | RuleId::TemplateUndeclaredValue
                | RuleId::ValuesDeprecated
        )
    }

    /// Whether rendering a pair's templates may raise this rule (a template
    /// or overlay error, a value read but undeclared, or unused, an output
    /// validation or policy): a check with `--no-render` cannot tell that a
    /// suppression of it silences nothing.
    pub fn may_come_from_rendering(self) -> bool {
        matches!(
            self,
            RuleId::TemplateError
                | RuleId::TemplateBudget
                | RuleId::TemplateUndeclaredValue
                | RuleId::SchemaUnusedValue
                | RuleId::SchemaUnreachedValue
                | RuleId::OverlayError
                | RuleId::YamlSyntax
                | RuleId::FileUnreadable
                | RuleId::PolicyViolation
                | RuleId::KubernetesInvalid
                | RuleId::KubernetesUnknownField
                | RuleId::KubernetesNoSchema
                | RuleId::KubernetesSchemaUnavailable
                | RuleId::KubernetesRemovedApi
                | RuleId::KubernetesDeprecatedApi
                | RuleId::KubernetesCrdShadowsBuiltIn
        ) || self.id().starts_with("validation/")
    }

    /// Whether a rule pattern of the configuration (`*`, an id, a namespace,
    /// a policy's specific id) may select a finding that only rendering
    /// raises.
    pub fn pattern_may_need_rendering(pattern: &str) -> bool {
        pattern == "*"
            || pattern.starts_with("policy/")
            || RuleId::ALL.iter().any(|r| {
                let id = r.id();
                r.may_come_from_rendering()
                    && (id == pattern || id.starts_with(&format!("{pattern}/")))
            })
    }

    /// The rule `id` names: its full id, or the part after the namespace
    /// when only one rule has it (`yttcheck explain type-mismatch`).
    pub fn find(id: &str) -> Option<RuleId> {
        RuleId::from_id(id).or_else(|| {
            let mut by_name = RuleId::ALL
                .iter()
                .copied()
                .filter(|r| r.id().split_once('/').map(|(_, n)| n) == Some(id));
            match (by_name.next(), by_name.next()) {
                (Some(r), None) => Some(r),
                _ => None,
            }
        })
    }

    /// The rule with this id.
    pub fn from_id(id: &str) -> Option<RuleId> {
        RuleId::ALL.iter().copied().find(|r| r.id() == id)
    }

    /// The rule of a named validation rule (`min_len`, `format`, ...); custom
    /// rules and any other name are `validation/custom`.
    pub fn validation(name: &str) -> RuleId {
        RuleId::ALL
            .iter()
            .copied()
            .find(|r| r.id().strip_prefix("validation/") == Some(name) && name != "invalid-rule")
            .unwrap_or(RuleId::ValidationCustom)
    }
}

/// Whether rule id `id` is `prefix` or below it (`policy/prod/replicas/min`
/// is within `policy/prod`, not within `policy/pro`).
pub fn id_within(id: &str, prefix: &str) -> bool {
    id.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Whether `pattern` can name findings in the configuration (`rules:`,
/// `ignore:`, inline `ignore[...]`): `*`, a rule's id, a namespace of them
/// (`schema`), or a policy's own ids (`policy/<policy>[/<rule>]`).
pub fn is_rule_pattern(pattern: &str) -> bool {
    if pattern == "*" || RuleId::from_id(pattern).is_some() {
        return true;
    }
    if let Some(rest) = pattern.strip_prefix("policy/") {
        return !rest.is_empty() && rest.split('/').all(|seg| !seg.is_empty());
    }
    RuleId::ALL
        .iter()
        .any(|r| r.id().split('/').next() == Some(pattern))
}

impl std::fmt::Display for RuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

impl serde::Serialize for RuleId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

/// `yttcheck explain RULE`'s text.
pub fn explain(rule: RuleId) -> String {
    let d = rule.doc();
    format!(
        "{id} ({sev})\n\n{summary}\n\nWhy: {why}\n\nExample that fails:\n\n{example}\n\nFix:\n\n{fix}\n",
        id = d.id,
        sev = d.severity.as_str(),
        summary = d.summary,
        why = d.why,
        example = indent(d.example),
        fix = indent(d.fix),
    )
}

fn indent(s: &str) -> String {
    s.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_namespaced() {
        let mut ids: Vec<&str> = RuleId::ALL.iter().map(|r| r.id()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), RuleId::ALL.len());
        assert!(RuleId::ALL.iter().all(|r| r.id().contains('/')));
        for r in RuleId::ALL {
            assert_eq!(RuleId::from_id(r.id()), Some(*r));
        }
        assert_eq!(RuleId::validation("min_len"), RuleId::ValidationMinLen);
        assert_eq!(RuleId::validation("something"), RuleId::ValidationCustom);
        assert_eq!(RuleId::validation("invalid-rule"), RuleId::ValidationCustom);
    }
}
