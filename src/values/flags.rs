//! ytt's data values flags as overlay documents.
//!
//! ytt applies them in a fixed order, whatever their order on the command
//! line: `--data-values-file`, then `--data-values-env`, `--data-values-env-yaml`,
//! then all `--data-value`/`-v`, all `--data-value-yaml`, and last
//! `--data-value-file`. Each becomes a document that adds or replaces one key
//! path (`a.b.c=v` → `a: {b: {c: v}}` with `missing_ok=True` and
//! `replace or_add=True`), positioned as ytt positions them
//! (`(data-value arg):1`).

use crate::diagnostics::RuleId;
use std::sync::Arc;

use crate::source::{find_files, load_file, Snapshot, Stdin};
use crate::yaml::parse::parse_opts;
use crate::yaml::{
    AnnValue, Annotation, DocSet, Document, Map, MapItem, Meta, Pos, SourceFile, Value,
};

use super::envelope::Envelope;

/// The data values flags of one ytt invocation.
#[derive(Debug, Clone, Default)]
pub struct DataValuesFlags {
    pub env_from_strings: Vec<String>,
    pub env_from_yaml: Vec<String>,
    pub kvs_from_strings: Vec<String>,
    pub kvs_from_yaml: Vec<String>,
    pub kvs_from_files: Vec<String>,
    pub from_files: Vec<String>,
}

/// Envelopes for the root library, and for other libraries.
pub struct Overlays {
    pub root: Vec<Envelope>,
    pub libraries: Vec<Envelope>,
}

impl DataValuesFlags {
    pub fn is_empty(&self) -> bool {
        self.env_from_strings.is_empty()
            && self.env_from_yaml.is_empty()
            && self.kvs_from_strings.is_empty()
            && self.kvs_from_yaml.is_empty()
            && self.kvs_from_files.is_empty()
            && self.from_files.is_empty()
    }

    /// Turns the flags into overlay documents; `environ` is the process
    /// environment in its order.
    pub fn as_overlays(
        &self,
        snap: &dyn Snapshot,
        stdin: &Stdin,
        environ: &[(String, String)],
        strict: bool,
    ) -> Result<Overlays, FlagError> {
        let mut all: Vec<Envelope> = Vec::new();
        for f in &self.from_files {
            let vals = self
                .file(snap, stdin, f, strict)
                .map_err(|e| e.context("Extracting data value from file: "))?;
            all.extend(vals);
        }
        for (prefixes, yaml, name) in [
            (&self.env_from_strings, false, "data-values-env"),
            (&self.env_from_yaml, true, "data-values-env-yaml"),
        ] {
            for prefix in prefixes {
                let vals = env(prefix, yaml, name, environ, strict).map_err(|e| {
                    format!("Extracting data values from env under prefix '{prefix}': {e}")
                })?;
                all.extend(vals);
            }
        }
        for (kvs, yaml, name) in [
            (&self.kvs_from_strings, false, "data-value"),
            (&self.kvs_from_yaml, true, "data-value-yaml"),
        ] {
            for kv in kvs {
                let v = kv_flag(kv, yaml, name, strict)
                    .map_err(|e| format!("Extracting data value from KV: {e}"))?;
                all.push(v);
            }
        }
        for kv in &self.kvs_from_files {
            let v = self
                .kv_file(snap, stdin, kv)
                .map_err(|e| e.context("Extracting data value from file: "))?;
            all.push(v);
        }
        let (libraries, root) = all
            .into_iter()
            .partition(|e| e.intended_for_another_library());
        Ok(Overlays { root, libraries })
    }

    fn file(
        &self,
        snap: &dyn Snapshot,
        stdin: &Stdin,
        full: &str,
        strict: bool,
    ) -> Result<Vec<Envelope>, FlagError> {
        let (lib_ref, path) = lib_ref_and_remainder(full)?;
        let found =
            find_files(snap, path, stdin).map_err(|e| format!("Find files '{path}': {e}"))?;
        let mut out = Vec::new();
        for f in found {
            if f.implied && crate::files::file_type_of(&f.rel_path) != crate::files::FileType::Yaml
            {
                continue;
            }
            let rel = f.rel_path.clone();
            let file = load_file(snap, f, 0).map_err(|e| match e.not_utf8 {
                // go-yaml's reader words bytes that are not UTF-8
                Some(problem) => FlagError {
                    message: format!("Unmarshaling YAML data values file '{rel}': yaml: {problem}"),
                    rule: RuleId::YamlSyntax,
                    place: Some((rel.clone(), e.line)),
                },
                None => FlagError {
                    message: format!("Reading file '{rel}': {}", e.message),
                    rule: RuleId::FileUnreadable,
                    place: Some((rel.clone(), 0)),
                },
            })?;
            // comments are read only to refuse annotations (`#@`) in a
            // plain file: a file without `#@` has none to refuse
            let may_be_templated = file.src.text().contains("#@");
            let ds = parse_opts(&file.src, may_be_templated, strict).map_err(|e| FlagError {
                message: format!(
                    "Unmarshaling YAML data values file '{}': {}",
                    file.rel_path,
                    e.ytt_message()
                ),
                rule: RuleId::YamlSyntax,
                place: Some((file.rel_path.clone(), e.line)),
            })?;
            for doc in ds.docs {
                if doc.value.is_null() {
                    continue;
                }
                let overlay = as_plain_merge_overlay(doc).map_err(|e| FlagError {
                    message: format!("Checking data values file '{path}': {e}"),
                    rule: RuleId::ValuesError,
                    place: Some((path.to_string(), 0)),
                })?;
                out.push(Envelope::with_lib_ref(overlay, lib_ref)?);
            }
        }
        Ok(out)
    }

    fn kv_file(&self, snap: &dyn Snapshot, stdin: &Stdin, kv: &str) -> Result<Envelope, FlagError> {
        let Some((key_part, path)) = kv.split_once('=') else {
            return Err("Expected format key=/file/path".to_string().into());
        };
        let found =
            find_files(snap, path, stdin).map_err(|e| format!("Finding file '{path}': {e}"))?;
        if found.len() > 1 {
            return Err(format!("Expected \'{path}\' to be a file, but is a directory").into());
        }
        let Some(f) = found.into_iter().next() else {
            return Err(format!("Expected \'{path}\' to be a file, but is a directory").into());
        };
        // ytt takes the file's bytes as they are (a byte order mark
        // included); bytes that are not UTF-8 become `!!binary`
        let bytes = match f.bytes {
            Some(b) => b,
            None => snap.read(&f.path).map_err(|e| FlagError {
                message: format!("Reading file '{path}': {}", e.message),
                rule: RuleId::FileUnreadable,
                place: Some((path.to_string(), 0)),
            })?,
        };
        if bytes.len() as u64 > crate::source::MAX_FILE_SIZE {
            return Err(FlagError {
                message: format!(
                    "Reading file '{path}': it is {} bytes, more than the {} MiB yttcheck reads",
                    bytes.len(),
                    crate::source::MAX_FILE_SIZE / 1024 / 1024
                ),
                rule: RuleId::FileUnreadable,
                place: Some((path.to_string(), 0)),
            });
        }
        let (value, contents) = match String::from_utf8(bytes) {
            Ok(text) => (Value::str(&text), text),
            Err(e) => (Value::Binary(e.into_bytes().into()), String::new()),
        };
        let (lib_ref, key) = lib_ref_and_key(key_part)?;
        let desc = format!("(data-value-file arg) {key}={path}");
        let pieces: Vec<&str> = key.split('.').collect();
        let doc = build_overlay(&pieces, value, &desc, &contents);
        Ok(Envelope::with_lib_ref(doc, lib_ref)?)
    }
}

/// A values flag that failed: ytt's message, and for findings the rule and
/// the file (and line, 0 when none) it is about, as the failing step knew them.
#[derive(Debug, Clone)]
pub struct FlagError {
    pub message: String,
    pub rule: RuleId,
    pub place: Option<(String, u32)>,
}

impl From<String> for FlagError {
    fn from(message: String) -> FlagError {
        FlagError {
            message,
            rule: RuleId::ValuesError,
            place: None,
        }
    }
}

impl std::fmt::Display for FlagError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl FlagError {
    /// ytt's message nests each step's context before the cause.
    fn context(mut self, prefix: &str) -> FlagError {
        self.message = format!("{prefix}{}", self.message);
        self
    }
}

fn env(
    prefix_arg: &str,
    yaml: bool,
    name: &str,
    environ: &[(String, String)],
    strict: bool,
) -> Result<Vec<Envelope>, String> {
    let (lib_ref, prefix) = lib_ref_and_key(prefix_arg)?;
    let mut out = Vec::new();
    let want = format!("{prefix}_");
    for (k, v) in environ {
        let Some(rest) = k.strip_prefix(&want) else {
            continue;
        };
        let value = if yaml {
            parse_yaml_value(v, strict).map_err(|e| {
                format!(
                    "Extracting data value from env variable '{k}': Deserializing YAML value: {e}"
                )
            })?
        } else {
            Value::str(v)
        };
        let pieces: Vec<&str> = rest.split("__").collect();
        let desc = format!("({name} arg) {prefix}");
        let line = format!("{k}={v}");
        out.push(Envelope::with_lib_ref(
            build_overlay(&pieces, value, &desc, &line),
            lib_ref,
        )?);
    }
    Ok(out)
}

fn kv_flag(kv: &str, yaml: bool, name: &str, strict: bool) -> Result<Envelope, String> {
    let Some((key_part, raw)) = kv.split_once('=') else {
        return Err("Expected format key=value".to_string());
    };
    let value = if yaml {
        parse_yaml_value(raw, strict).map_err(|e| {
            format!("Deserializing value for key '{key_part}': Deserializing YAML value: {e}")
        })?
    } else {
        Value::str(raw)
    };
    let (lib_ref, key) = lib_ref_and_key(key_part)?;
    let desc = format!("({name} arg)");
    let pieces: Vec<&str> = key.split('.').collect();
    Envelope::with_lib_ref(build_overlay(&pieces, value, &desc, kv), lib_ref)
}

/// Parses a `--data-value-yaml` value (first document; positions keep an
/// empty file name, as in ytt: `from: 1`).
pub fn parse_yaml_value(raw: &str, strict: bool) -> Result<Value, String> {
    let src = SourceFile::new("", raw);
    let ds = parse_opts(&src, false, strict).map_err(|e| e.ytt_message())?;
    Ok(ds
        .docs
        .into_iter()
        .next()
        .map(|d| d.value)
        .unwrap_or(Value::Null))
}

/// `@lib:rest` → (`@lib`, `rest`); ytt's `libraryRefAndRemainder`.
pub fn lib_ref_and_remainder(arg: &str) -> Result<(&str, &str), String> {
    if arg.starts_with('@') {
        match arg.split_once(':') {
            None => return Ok(("", arg)),
            Some((lib, rest)) => {
                if lib.len() == 1 {
                    return Err("Expected library ref to not be empty".to_string());
                }
                return Ok((lib, rest));
            }
        }
    }
    Ok(("", arg))
}

fn lib_ref_and_key(arg: &str) -> Result<(&str, &str), String> {
    let (lib, key) = lib_ref_and_remainder(arg)?;
    if key.contains(':') {
        return Err(format!(
            "Expected at most one library-key separator ':' in '{key}'"
        ));
    }
    Ok((lib, key))
}

fn kw(name: &str, value: bool) -> Annotation {
    let mut a = Annotation::new(name, Pos::unknown());
    let k = if name == crate::overlay::MATCH {
        "missing_ok"
    } else {
        "or_add"
    };
    a.kwargs.push((k.to_string(), AnnValue::Bool(value)));
    a
}

/// ytt's `buildOverlay`: `a.b=v` as nested maps that add or replace `a.b`.
pub fn build_overlay(pieces: &[&str], value: Value, desc: &str, line: &str) -> Document {
    let src = SourceFile::new(desc, line);
    let pos = Pos::new(&src, 1, 1);
    let mut value = Some(value);
    let mut inner: Option<Map> = None;
    for (i, piece) in pieces.iter().enumerate().rev() {
        let mut item = MapItem {
            key: Value::str(piece),
            value: Value::Null,
            pos: pos.clone(),
            meta: Meta::default(),
        };
        item.meta.set_annotation(kw(crate::overlay::MATCH, true));
        if i == pieces.len() - 1 {
            item.value = value.take().unwrap_or(Value::Null);
            item.meta.set_annotation(kw(crate::overlay::REPLACE, true));
        } else {
            item.value = Value::Map(crate::yaml::Shared::new(inner.take().unwrap_or_default()));
        }
        inner = Some(Map {
            items: vec![item],
            pos: Pos::unknown(),
            meta: Meta::default(),
        });
    }
    Document {
        value: Value::Map(crate::yaml::Shared::new(inner.unwrap_or_default())),
        pos,
        meta: Meta::default(),
        injected: false,
    }
}

/// ytt's `AnnotateForPlainMerge`: a plain values file merges like an overlay
/// that may add keys and replaces arrays and scalars.
pub fn as_plain_merge_overlay(mut doc: Document) -> Result<Document, String> {
    let templated = doc
        .meta
        .comments
        .iter()
        .any(crate::template::compiler::metas::is_templating)
        || crate::template::compiler::metas::value_has_templating(&doc.value);
    if templated {
        return Err(crate::template::compiler::metas::PLAIN_YAML_EXPECTED.to_string());
    }
    strip_comments(&mut doc.value);
    doc.meta.comments.clear();
    // the document itself: overlay on its value
    annotate_plain(&mut doc.meta, &doc.value);
    annotate_children(&mut doc.value);
    Ok(doc)
}

fn strip_comments(v: &mut Value) {
    match v {
        Value::Map(m) => {
            m.override_duplicate_keys();
            for i in &mut m.items {
                i.meta.comments.clear();
                strip_comments(&mut i.value);
            }
        }
        Value::Array(a) => {
            for i in &mut a.items {
                i.meta.comments.clear();
                strip_comments(&mut i.value);
            }
        }
        _ => {}
    }
}

/// Annotations for a node whose value is `value`: `missing_ok=True`, plus
/// `replace or_add=True` unless the value is a map (maps merge).
fn annotate_plain(meta: &mut Meta, value: &Value) {
    meta.set_annotation(kw(crate::overlay::MATCH, true));
    if !matches!(value, Value::Map(_)) {
        meta.set_annotation(kw(crate::overlay::REPLACE, true));
    }
}

fn annotate_children(v: &mut Value) {
    // arrays are replaced whole: their items need no annotations
    if let Value::Map(m) = v {
        for i in &mut m.items {
            annotate_plain(&mut i.meta, &i.value);
            annotate_children(&mut i.value);
        }
    }
}

/// Wraps a document set's documents (for callers that want them as values).
pub fn docs_of(ds: DocSet) -> Vec<Document> {
    ds.docs
}

/// The process environment in its own order.
pub fn environ() -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

/// Keeps `Arc` in scope for callers building overlays from shared files.
pub type SharedFile = Arc<crate::files::InputFile>;
