//! Rendered documents checked against Kubernetes' JSON schemas and the
//! repository's own CRDs, as kubeconform checks `ytt ... | kubeconform`,
//! but reported where the field was written: the template line (and the
//! data value it came from), for the environments it fails in.
//!
//! * [`location`]: kubeconform's schema locations (`{{ .ResourceKind }}`...).
//! * [`Schemas`]: every kind's schema fetched and compiled once per run and
//!   shared by every pair; `$ref`s to a sibling file (`_definitions.json` of
//!   the `-local` layouts) resolved beside the schema that names them.
//! * [`crd`]: a CustomResourceDefinition turned into the schemas of its
//!   versions (OpenAPI v3 -> JSON Schema, kubeconform's strict mode).
//! * [`validate`]: a rendered document -> JSON, and each schema error ->
//!   a [`Violation`] at the node that holds the offending field.
//!
//! The engine never touches the network or a disk cache: the host gives it
//! a [`SchemaFetch`] (the command line's fetches over HTTPS with rustls and
//! keeps what it got in a cache folder; tests give folders and loopback
//! servers).

pub mod crd;
pub mod expansion;
pub mod json;
pub mod lifecycle;
pub mod location;
pub mod structural;
pub mod validate;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde::{Deserialize, Serialize};

pub use location::{Kind, Location};
pub use validate::{validate_documents, Violation};

/// How rendered documents are checked (flags and `.yttcheck.yml`'s
/// `kubernetes:` merged by the host).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KubernetesOptions {
    /// `1.30.0` (or `master`, kubeconform's default).
    pub version: String,
    /// Schema locations, tried in order; empty: kubeconform's default.
    pub locations: Vec<String>,
    /// Unknown fields are findings (the `-strict` schemas; CRDs get
    /// `additionalProperties: false`).
    pub strict: bool,
    /// Kinds not checked: `Kind` or `group/version/Kind`.
    pub skip_kinds: Vec<String>,
}

/// The bytes a location names, fetched by the host.
pub trait SchemaFetch: Send + Sync {
    /// `Ok(None)` when nothing is there (a 404, no such file): the next
    /// location is tried. `Err` when the location could not be read (the
    /// network, a cache miss offline, a refused location).
    fn fetch(&self, location: &str) -> Result<Option<Arc<[u8]>>, String>;
}

/// What a kind's lookup found.
pub enum Lookup {
    Schema {
        validator: Box<jsonschema::Validator>,
        /// Where it was found (a location, or `CRD <name>`).
        from: String,
    },
    /// No location has a schema for the kind.
    Missing { tried: Vec<String> },
    /// A location could not be read, or its schema not compiled.
    Failed(String),
}

type Key = (String, String);

/// Every kind's schema, fetched and compiled once per run.
pub struct Schemas {
    opts: KubernetesOptions,
    locations: Vec<Location>,
    fetch: Arc<dyn SchemaFetch>,
    /// `(apiVersion, kind)` -> its lookup, made once (other threads asking
    /// for the same kind wait for it).
    kinds: Mutex<HashMap<Key, Arc<OnceLock<Lookup>>>>,
    /// A CRD's compiled schema by the SHA-256 of its JSON: pairs that
    /// render the same CRD share one.
    crds: Mutex<HashMap<[u8; 32], Arc<OnceLock<Lookup>>>>,
    /// Sibling documents (`_definitions.json`) parsed once.
    siblings: Arc<Mutex<HashMap<String, serde_json::Value>>>,
    /// What a schema found in an object, by the schema and the object's
    /// content: environments render the same objects again and again, and
    /// each distinct one is validated once (bounded: a daemon keeps it).
    found: Mutex<HashMap<(usize, [u8; 32]), validate::Found>>,
    /// Per schema folder, the shared definitions its kinds refer to
    /// (`_definitions.json` of the `-local` layouts, 1.2 MB), prepared once:
    /// each kind's schema is compiled against it, not against a copy of it
    /// analysed again for every kind.
    definitions: Mutex<HashMap<String, Option<Definitions>>>,
}

/// A folder's shared definitions: prepared for the validator, and as JSON
/// (what [`expansion`] counts).
type Definitions = (Arc<jsonschema::Registry<'static>>, Arc<serde_json::Value>);

/// Where the `-local` layouts' schemas find their shared definitions (their
/// `$ref`s are `/api/_definitions.json#/$defs/...` under the `$id`
/// `https://kubernetes.io/api/...`).
const DEFINITIONS_URI: &str = "https://kubernetes.io/api/_definitions.json";

/// At most this many objects' verdicts are kept (then they are forgotten
/// all at once, as the memo's maps are).
const FOUND_LIMIT: usize = 50_000;

impl std::fmt::Debug for Schemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schemas").field("opts", &self.opts).finish()
    }
}

impl Schemas {
    /// Checks every location (an unknown variable is an error now).
    pub fn new(opts: KubernetesOptions, fetch: Arc<dyn SchemaFetch>) -> Result<Schemas, String> {
        let locations = if opts.locations.is_empty() {
            vec![Location::parse("default")?]
        } else {
            opts.locations
                .iter()
                .map(|l| Location::parse(l))
                .collect::<Result<Vec<_>, _>>()?
        };
        Ok(Schemas {
            opts,
            locations,
            fetch,
            kinds: Mutex::default(),
            crds: Mutex::default(),
            siblings: Arc::default(),
            found: Mutex::default(),
            definitions: Mutex::default(),
        })
    }

    /// What the schema `schema` (its address: schemas live as long as
    /// `self`) finds in an object whose content digest is `object`, found
    /// by `validate` the first time only.
    pub(crate) fn found_once(
        &self,
        schema: usize,
        object: [u8; 32],
        validate: impl FnOnce() -> validate::Found,
    ) -> validate::Found {
        let key = (schema, object);
        if let Some(f) = self
            .found
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return f.clone();
        }
        let f = validate();
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        if found.len() >= FOUND_LIMIT {
            found.clear();
        }
        found.insert(key, f.clone());
        f
    }

    pub fn options(&self) -> &KubernetesOptions {
        &self.opts
    }

    /// Whether `skip_kinds` names this kind (`Kind`, or `group/version/Kind`).
    pub fn skips(&self, kind: &Kind) -> bool {
        self.opts.skip_kinds.iter().any(|s| {
            s == kind.kind
                || s.strip_suffix(kind.kind)
                    .and_then(|p| p.strip_suffix('/'))
                    .is_some_and(|gv| gv == kind.api_version)
        })
    }

    /// Whether a lookup so far could not read or compile its schema.
    pub fn has_failures(&self) -> bool {
        let failed = |cell: &Arc<OnceLock<Lookup>>| matches!(cell.get(), Some(Lookup::Failed(_)));
        let kinds = self.kinds.lock().unwrap_or_else(|e| e.into_inner());
        let crds = self.crds.lock().unwrap_or_else(|e| e.into_inner());
        kinds.values().any(failed) || crds.values().any(failed)
    }

    /// The schema of `kind` from the locations, looked up once per run.
    pub fn lookup(&self, kind: &Kind) -> Arc<OnceLock<Lookup>> {
        let cell = {
            let mut kinds = self.kinds.lock().unwrap_or_else(|e| e.into_inner());
            kinds
                .entry((kind.api_version.to_string(), kind.kind.to_string()))
                .or_default()
                .clone()
        };
        cell.get_or_init(|| self.find(kind));
        cell
    }

    fn find(&self, kind: &Kind) -> Lookup {
        let mut tried = Vec::new();
        for location in &self.locations {
            let at = location.of(kind, &self.opts.version, self.opts.strict);
            match self.fetch.fetch(&at) {
                Ok(Some(bytes)) => return self.compile_fetched(&at, &bytes),
                Ok(None) => tried.push(at),
                Err(e) => return Lookup::Failed(e),
            }
        }
        Lookup::Missing { tried }
    }

    fn compile_fetched(&self, at: &str, bytes: &[u8]) -> Lookup {
        let schema: serde_json::Value = match serde_json::from_slice(bytes) {
            Ok(v) => v,
            Err(e) => return Lookup::Failed(format!("{at} is not JSON: {e}")),
        };
        let retriever = Siblings {
            base: at.to_string(),
            fetch: self.fetch.clone(),
            parsed: self.siblings.clone(),
        };
        let folder = at.rsplit_once('/').map_or("", |(f, _)| f);
        // (only a schema that names them: a `-standalone` schema has no
        // `$ref`, and no folder of definitions is asked for)
        let names_definitions = bytes.windows(17).any(|w| w == b"_definitions.json");
        let definitions = names_definitions
            .then(|| self.definitions_of(folder))
            .flatten();
        // the validator has no budget: what a schema may cost is bounded
        // before it is compiled
        let documents = |name: &str| -> Option<Arc<serde_json::Value>> {
            if name == "_definitions.json" {
                if let Some((_, doc)) = &definitions {
                    return Some(doc.clone());
                }
            }
            self.sibling(folder, name)
        };
        if let Err(why) = expansion::within_bound(&schema, &documents) {
            return Lookup::Failed(format!("the schema at {at} cannot be used: {why}"));
        }
        let definitions = definitions.map(|(registry, _)| registry);
        let options = jsonschema::options()
            .with_retriever(retriever)
            .should_validate_formats(false);
        let built = match &definitions {
            Some(registry) => options.with_registry(registry).build(&schema),
            None => options.build(&schema),
        };
        match built {
            Ok(v) => Lookup::Schema {
                validator: Box::new(v),
                from: at.to_string(),
            },
            Err(e) => Lookup::Failed(format!("the schema at {at} cannot be used: {e}")),
        }
    }

    /// The definitions beside the schemas of `folder`, prepared once (`None`
    /// when the folder has none, or they cannot be read: a kind's `$ref`
    /// to them is then retrieved as any other sibling, and fails as one).
    fn definitions_of(&self, folder: &str) -> Option<Definitions> {
        let mut kept = self.definitions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = kept.get(folder) {
            return r.clone();
        }
        let registry = self
            .fetch
            .fetch(&format!("{folder}/_definitions.json"))
            .ok()
            .flatten()
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .and_then(|doc| {
                let registry = jsonschema::Registry::new()
                    .add(DEFINITIONS_URI, doc.clone())
                    .ok()?
                    .prepare()
                    .ok()?;
                Some((Arc::new(registry), Arc::new(doc)))
            });
        kept.insert(folder.to_string(), registry.clone());
        registry
    }

    /// A file beside the schemas of `folder` (a plain name only, as
    /// [`Siblings`] follows), parsed once; `None` when there is none.
    fn sibling(&self, folder: &str, name: &str) -> Option<Arc<serde_json::Value>> {
        if !plain_file_name(name) {
            return None;
        }
        let sibling = format!("{folder}/{name}");
        let kept = || self.siblings.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = kept().get(&sibling) {
            return Some(Arc::new(v.clone()));
        }
        // (fetched with no lock held: it may be the network)
        let bytes = self.fetch.fetch(&sibling).ok().flatten()?;
        let value: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
        kept().insert(sibling, value.clone());
        Some(Arc::new(value))
    }

    /// The compiled schema of one version of a CRD (`schema` as
    /// [`crd::schemas`] made it), shared by every pair that renders it.
    pub fn crd_schema(&self, name: &str, schema: &serde_json::Value) -> Arc<OnceLock<Lookup>> {
        use sha2::Digest;
        let digest: [u8; 32] = sha2::Sha256::digest(schema.to_string().as_bytes()).into();
        let cell = {
            let mut crds = self.crds.lock().unwrap_or_else(|e| e.into_inner());
            crds.entry(digest).or_default().clone()
        };
        cell.get_or_init(|| {
            match jsonschema::options()
                .with_retriever(NoRetrieval)
                .should_validate_formats(true)
                .build(schema)
            {
                Ok(v) => Lookup::Schema {
                    validator: Box::new(v),
                    from: format!("CRD {name}"),
                },
                Err(e) => Lookup::Failed(format!("the schema of CRD {name} cannot be used: {e}")),
            }
        });
        cell
    }
}

/// Resolves a `$ref` to another file as the file of that name beside the
/// schema that names it: the `-local` layouts refer to
/// `https://kubernetes.io/api/_definitions.json` and ship it beside every
/// schema. Only a plain file name is followed (never `..`, another host or
/// a scheme the location did not have): a schema from the network cannot
/// make the runner fetch anything but its own folder's files.
struct Siblings {
    base: String,
    fetch: Arc<dyn SchemaFetch>,
    parsed: Arc<Mutex<HashMap<String, serde_json::Value>>>,
}

type RetrieveError = Box<dyn std::error::Error + Send + Sync>;

impl jsonschema::Retrieve for Siblings {
    fn retrieve(&self, uri: &jsonschema::Uri<String>) -> Result<serde_json::Value, RetrieveError> {
        let path = uri.path().as_str();
        let name = path.rsplit('/').next().unwrap_or("");
        if !plain_file_name(name) {
            return Err(format!(
                "the schema at {} refers to {uri}, which is not a file beside it",
                self.base
            )
            .into());
        }
        let folder = self.base.rsplit_once('/').map_or("", |(f, _)| f);
        let sibling = format!("{folder}/{name}");
        if let Some(v) = self
            .parsed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&sibling)
        {
            return Ok(v.clone());
        }
        let bytes = self.fetch.fetch(&sibling)?.ok_or_else(|| {
            format!(
                "{sibling} (named by the schema at {}) does not exist",
                self.base
            )
        })?;
        let value: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|e| format!("{sibling} is not JSON: {e}"))?;
        self.parsed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(sibling, value.clone());
        Ok(value)
    }
}

/// Whether a `$ref`'s file part is one plain file name (no `..`, no
/// folder, no scheme): the only sibling a schema may name.
fn plain_file_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// A CRD's schema refers to nothing outside itself.
struct NoRetrieval;

impl jsonschema::Retrieve for NoRetrieval {
    fn retrieve(&self, uri: &jsonschema::Uri<String>) -> Result<serde_json::Value, RetrieveError> {
        Err(format!("a CRD's schema cannot refer to {uri}").into())
    }
}
