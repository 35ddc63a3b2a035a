//! References of a data value: where the schema declares it, where each
//! environment's final value was set (its values file line, or the
//! schema's default), and every `data.values.a.b` of the library's
//! templates and Starlark files that reads it (or something below it).

use lsp_types::{Location, Position, Range};

use crate::app::inspect::PairReading;
use crate::yaml::{Pos, Value};

/// Where `path` is declared, set and read, as `(file in the folder, line
/// (1-based), UTF-16 column (0-based), UTF-16 length)`; `read` gives a
/// file's text (the editor's buffer, else the disk).
pub fn places(
    path: &[String],
    readings: &[PairReading],
    include_declaration: bool,
    read: &dyn Fn(&str) -> Option<String>,
) -> Vec<(String, u32, u32, u32)> {
    let mut out: Vec<(String, u32, u32, u32)> = Vec::new();
    let mut add = |p: (String, u32, u32, u32)| {
        if !out.contains(&p) {
            out.push(p);
        }
    };
    let key = path
        .last()
        .map(|k| k.encode_utf16().count() as u32)
        .unwrap_or(0);
    if include_declaration {
        if let Some(pos) = readings
            .iter()
            .find_map(|r| r.schema.as_ref())
            .and_then(|s| super::hover::declaration_at(&s.value_type, path))
        {
            add(at(pos, key));
        }
    }
    // each environment's value: where it was set
    for r in readings {
        let Some(values) = &r.values else { continue };
        if let Some(pos) = set_at(&values.value, path) {
            add(at(&pos, key));
        }
    }
    // the library's reads
    let needle = format!("data.values.{}", path.join("."));
    let mut files: Vec<&crate::source::RepoPath> = readings
        .iter()
        .flat_map(|r| r.library_files.iter())
        .collect();
    files.sort();
    files.dedup();
    for f in files {
        let name = f.as_str();
        if !(name.ends_with(".yml")
            || name.ends_with(".yaml")
            || name.ends_with(".star")
            || name.ends_with(".txt"))
        {
            continue;
        }
        let Some(text) = read(name) else { continue };
        for (n, line) in text.lines().enumerate() {
            let mut from = 0;
            while let Some(i) = line[from..].find(&needle) {
                let start = from + i;
                let end = start + needle.len();
                from = end;
                // `data.values.replicas` but not `data.values.replicas_max`
                let next = line[end..].chars().next();
                if next.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let col = line[..start].encode_utf16().count() as u32;
                add((
                    name.to_string(),
                    n as u32 + 1,
                    col,
                    needle.encode_utf16().count() as u32,
                ));
            }
        }
    }
    out
}

/// The position of the map item at `path` in a pair's final values.
fn set_at(v: &Value, path: &[String]) -> Option<Pos> {
    let mut node = v;
    let mut found = None;
    for key in path {
        let Value::Map(m) = node else { return None };
        let item = m.items.iter().find(|i| i.key.scalar_display() == *key)?;
        found = Some(item.pos.clone());
        node = &item.value;
    }
    found.filter(|p| p.is_known() && p.location().is_some())
}

fn at(pos: &Pos, len: u32) -> (String, u32, u32, u32) {
    (
        pos.file_name().to_string(),
        pos.line(),
        pos.col().saturating_sub(1),
        len,
    )
}

/// An LSP location of a place in the folder `root`.
pub fn location(
    root: &std::path::Path,
    (file, line, col, len): &(String, u32, u32, u32),
) -> Option<Location> {
    let uri = super::uri::of_path(&root.join(file))?;
    let start = Position {
        line: line.saturating_sub(1),
        character: *col,
    };
    Some(Location {
        uri,
        range: Range {
            start,
            end: Position {
                line: start.line,
                character: col + len,
            },
        },
    })
}
