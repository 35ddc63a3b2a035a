//! Kubernetes `Secret`s of the repository that hold data values: the
//! Secrets `PackageInstall`s take their values from (kapp-controller writes
//! each key of `stringData`/`data` to a file and gives it to ytt as
//! `--data-values-file`, in key order), and sample values kept as Secrets.
//!
//! A key's text is read so that its lines stay the Secret file's lines: the
//! usual literal block (`values.yml: |`) is given back de-indented at the
//! lines it has in the file, so ytt's `file:line` facts point into the
//! Secret. Any other form (a quoted string, base64 under `data:`) starts at
//! its key's line.

use std::sync::Arc;

use base64::Engine as _;

use crate::source::RepoPath;
use crate::yaml::node::{DocSet, MapItem, Value};
use crate::yaml::SourceFile;

use super::packages::at;

/// One `Secret` document of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretDoc {
    pub path: RepoPath,
    /// Which document of the file (0-based, as parsed).
    pub document: usize,
    pub name: String,
    pub namespace: Option<String>,
    /// The keys of `stringData` and `data`, sorted, once each (what
    /// kapp-controller writes, in the order it passes them to ytt).
    pub keys: Vec<String>,
}

/// Whether a file's text may hold a Secret (a cheap look before parsing:
/// a document's `kind: Secret` at the start of a line).
pub fn may_hold_secrets(text: &str) -> bool {
    crate::secrets::has_top_kind(text, "Secret")
}

/// The Secret documents of a parsed file.
pub fn secrets_in(path: &RepoPath, docs: &DocSet) -> Vec<SecretDoc> {
    docs.docs
        .iter()
        .enumerate()
        .filter_map(|(i, d)| {
            let m = d.value.as_map()?;
            let api = m.get("apiVersion")?.value.as_str()?;
            let kind = m.get("kind")?.value.as_str()?;
            if api != "v1" || kind != "Secret" {
                return None;
            }
            let text = |p: &[&str]| at(&d.value, p).and_then(Value::as_str).map(str::to_string);
            let mut keys: Vec<String> = ["stringData", "data"]
                .iter()
                .filter_map(|f| at(&d.value, &[f])?.as_map())
                .flat_map(|m| {
                    m.items
                        .iter()
                        .filter_map(|i| i.key.as_str().map(str::to_string))
                })
                .collect();
            keys.sort();
            keys.dedup();
            Some(SecretDoc {
                path: path.clone(),
                document: i,
                name: text(&["metadata", "name"]).unwrap_or_default(),
                namespace: text(&["metadata", "namespace"]),
                keys,
            })
        })
        .collect()
}

/// Why a key's text could not be read, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedError {
    pub message: String,
    /// 1-based; 0 when the file has no place for it.
    pub line: u32,
}

/// The text of key `key` of the Secret that is document `document` of
/// `src`, placed at the file's lines (see the module's doc). `stringData`
/// wins over `data`, as the API server merges them.
pub fn values_text(
    src: &Arc<SourceFile>,
    document: usize,
    key: &str,
) -> Result<String, EmbeddedError> {
    let fail = |message: String, line: u32| EmbeddedError { message, line };
    let docs = crate::yaml::parse::parse(src, false).map_err(|e| {
        fail(
            format!("the file cannot be parsed: {}", e.ytt_message()),
            e.line,
        )
    })?;
    let doc = docs
        .docs
        .get(document)
        .ok_or_else(|| fail(format!("its Secret (document {}) is gone", document + 1), 0))?;
    let item = |field: &str| -> Option<&MapItem> { at(&doc.value, &[field])?.as_map()?.get(key) };
    if let Some(item) = item("stringData") {
        let Some(text) = item.value.as_str() else {
            return Err(fail(
                format!("stringData.{key} is no string"),
                item.pos.line(),
            ));
        };
        return Ok(placed(src, item.pos.line(), text));
    }
    if let Some(item) = item("data") {
        let line = item.pos.line();
        let Some(encoded) = item.value.as_str() else {
            return Err(fail(format!("data.{key} is no string"), line));
        };
        let compact: String = encoded.chars().filter(|c| !c.is_whitespace()).collect();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(compact.as_bytes())
            .map_err(|e| fail(format!("data.{key} is not base64: {e}"), line))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| fail(format!("data.{key} is not UTF-8 text"), line))?;
        return Ok(at_line(line, &text));
    }
    Err(fail(
        format!("its Secret has no key {key} in stringData or data"),
        doc.pos.line(),
    ))
}

/// Every scalar value a Secret's values text holds, as messages show
/// them (`12345`, `hunter2`): what no message may print. A text that is no
/// plain YAML gives each line's value after its `key:` instead, so a
/// values file ytt refuses still has its values hidden.
pub fn scalar_values(text: &str) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Map(m) => m.items.iter().for_each(|i| walk(&i.value, out)),
            Value::Array(a) => a.items.iter().for_each(|i| walk(&i.value, out)),
            Value::Null => {}
            other => out.push(other.scalar_display()),
        }
    }
    let src = SourceFile::new("values", text.to_string());
    let mut out = Vec::new();
    match crate::yaml::parse::parse(&src, false) {
        Ok(docs) => docs.docs.iter().for_each(|d| walk(&d.value, &mut out)),
        Err(_) => {
            for line in text.lines() {
                let value = line.split_once(':').map_or(line, |(_, v)| v);
                let value = value.split(" #").next().unwrap_or(value).trim();
                let value = value.trim_start_matches("- ").trim_matches(['"', '\'']);
                if !value.is_empty() {
                    out.push(value.to_string());
                }
            }
        }
    }
    out
}

/// Every scalar of the values that `wanted` keeps in Secrets, read through
/// `sources` ([`scalar_values`] of each key's text): what no report may
/// print. A key that cannot be read has nothing to hide.
pub fn secret_scalars(
    sources: &crate::source::SourceCache,
    wanted: &[super::plan::EmbeddedValues],
) -> Vec<String> {
    wanted
        .iter()
        .filter_map(|e| values_text(&sources.get(&e.path).ok()?, e.document, &e.key).ok())
        .flat_map(|text| scalar_values(&text))
        .collect()
}

/// `text`, the value of the key at line `key_line`, at the lines it has in
/// the file when it is written there as a literal block scalar, else from
/// the key's line on. The block keeps its indentation (YAML takes an
/// indented root as it is), so columns are the file's too, unless it holds
/// document markers, which count only at column 1.
fn placed(src: &SourceFile, key_line: u32, text: &str) -> String {
    let Some((lines, indent)) = literal_block(src, key_line) else {
        return at_line(key_line, text);
    };
    let dedented: Vec<&str> = lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or(""))
        .collect();
    if dedented.join("\n").trim_end_matches('\n') != text.trim_end_matches('\n') {
        return at_line(key_line, text);
    }
    let markers = dedented
        .iter()
        .any(|l| l.starts_with("---") || l.starts_with("..."));
    let mut out = "\n".repeat(key_line as usize);
    out.push_str(&if markers { dedented } else { lines }.join("\n"));
    out.push('\n');
    out
}

/// `text` starting at line `line` (1-based).
fn at_line(line: u32, text: &str) -> String {
    let mut out = "\n".repeat(line.saturating_sub(1) as usize);
    out.push_str(text);
    out
}

/// The lines below `key_line` that a literal block scalar opened on it
/// (`key: |`, `|-`, `|+`) holds (blank ones as empty lines, trailing blank
/// ones left out) and its indentation; `None` when the key's line opens no
/// literal block or gives its indentation explicitly.
fn literal_block(src: &SourceFile, key_line: u32) -> Option<(Vec<&str>, usize)> {
    let head = src.line_text(key_line)?;
    let head = head.split(" #").next().unwrap_or(head).trim_end();
    let (_, indicator) = head.rsplit_once(':')?;
    if !matches!(indicator.trim(), "|" | "|-" | "|+") {
        return None;
    }
    let key_indent = indent(head);
    let mut lines = Vec::new();
    let mut block_indent = None;
    let mut n = key_line + 1;
    while let Some(line) = src.line_text(n) {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            lines.push("");
        } else {
            let i = indent(line);
            if i <= key_indent {
                break;
            }
            let b = *block_indent.get_or_insert(i);
            if i < b {
                break;
            }
            lines.push(line);
        }
        n += 1;
    }
    while lines.last() == Some(&"") {
        lines.pop();
    }
    Some((lines, block_indent?))
}

/// A line's indentation in spaces.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(text: &str) -> Arc<SourceFile> {
        SourceFile::new("s.yml", text)
    }

    const SECRET: &str = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: v\n  namespace: apps\nstringData:\n  values.yml: |\n    replicas: 2\n\n    image:\n      tag: x\n  other.yml: \"a: 1\\nb: 2\"\ndata:\n  enc.yml: cmVwbGljYXM6IDMK\n";

    #[test]
    fn a_literal_block_keeps_the_secrets_lines() {
        let text = values_text(&src(SECRET), 0, "values.yml").unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[7], "    replicas: 2");
        assert_eq!(lines[9], "    image:");
        assert_eq!(lines[10], "      tag: x");
        let value = crate::yaml::parse::parse(&SourceFile::new("v", text), false).unwrap();
        assert_eq!(
            at(&value.docs[0].value, &["image", "tag"]).and_then(Value::as_str),
            Some("x")
        );
        // a document marker counts only at column 1: such a block is dedented
        let marked = "kind: Secret\nstringData:\n  v.yml: |\n    a: 1\n    ---\n    b: 2\n";
        let text = values_text(&src(marked), 0, "v.yml").unwrap();
        assert_eq!(text.lines().nth(4), Some("---"));
    }

    #[test]
    fn other_forms_start_at_their_key() {
        let text = values_text(&src(SECRET), 0, "other.yml").unwrap();
        assert_eq!(text.lines().nth(11), Some("a: 1"));
        let text = values_text(&src(SECRET), 0, "enc.yml").unwrap();
        assert_eq!(text.lines().nth(13), Some("replicas: 3"));
    }

    #[test]
    fn the_keys_are_sorted_and_a_missing_one_is_an_error_at_the_secret() {
        let docs = crate::yaml::parse::parse(&src(SECRET), false).unwrap();
        let found = secrets_in(&RepoPath::new("s.yml").unwrap(), &docs);
        assert_eq!(found[0].keys, ["enc.yml", "other.yml", "values.yml"]);
        assert_eq!(found[0].namespace.as_deref(), Some("apps"));
        let e = values_text(&src(SECRET), 0, "nope.yml").unwrap_err();
        assert_eq!(e.line, 1);
        let bad = "apiVersion: v1\nkind: Secret\ndata:\n  v.yml: '%%%'\n";
        let e = values_text(&src(bad), 0, "v.yml").unwrap_err();
        assert!(e.message.contains("not base64"), "{}", e.message);
        assert_eq!(e.line, 4);
    }
}
