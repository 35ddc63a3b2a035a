//! Completion of data values paths from the schema: the keys of the map at
//! the cursor in a values file (those not written yet), and the keys after
//! `data.values.` (and `data.values.a.`) in a template or `.star` file.

use lsp_types::{CompletionItem, CompletionItemKind, Documentation, MarkupContent, MarkupKind};

use crate::schema::Type;

/// Where the cursor is: after `data.values.` and a path, or in a map of a
/// values file under a path, with the keys its map already has.
#[derive(Debug, PartialEq, Eq)]
pub enum Place {
    Reference {
        path: Vec<String>,
    },
    ValuesKey {
        path: Vec<String>,
        present: Vec<String>,
    },
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// A line's map key (`key:` with or without a value), if it is one.
fn key_of(line: &str) -> Option<&str> {
    let t = line.trim_start().trim_start_matches("- ");
    if t.starts_with('#') {
        return None;
    }
    let (key, _) = t.split_once(':')?;
    (!key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-'))
    .then_some(key)
}

/// The place of the cursor at `line`, `character` (0-based).
pub fn place_at(text: &str, line: u32, character: u32, values_file: bool) -> Option<Place> {
    let lines: Vec<&str> = text.split('\n').collect();
    let current = lines.get(line as usize)?;
    let before = &current[..super::position::byte_offset(current, character)];
    if let Some(i) = before.rfind("data.values.") {
        let chain = &before[i + "data.values.".len()..];
        if chain
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        {
            let mut path: Vec<String> = chain.split('.').map(String::from).collect();
            path.pop(); // the piece being written
            return Some(Place::Reference { path });
        }
    }
    if !values_file {
        return None;
    }
    // the keys above with less indentation are the path; the keys beside
    // (same indentation, same parent) are present
    let own = indent(current);
    let mut path = Vec::new();
    let mut level = own;
    for l in lines[..line as usize].iter().rev() {
        if l.trim().is_empty() || l.trim_start().starts_with('#') || l.starts_with("---") {
            if l.starts_with("---") {
                break;
            }
            continue;
        }
        let i = indent(l);
        if i < level {
            match key_of(l) {
                Some(k) => {
                    path.push(k.to_string());
                    level = i;
                }
                None => break,
            }
            if i == 0 {
                break;
            }
        }
    }
    path.reverse();
    let mut present = Vec::new();
    let siblings = |ls: &mut dyn Iterator<Item = &&str>, present: &mut Vec<String>| {
        for l in ls {
            if l.trim().is_empty() {
                continue;
            }
            let i = indent(l);
            if i < own || l.starts_with("---") {
                break;
            }
            if i == own {
                if let Some(k) = key_of(l) {
                    present.push(k.to_string());
                }
            }
        }
    };
    siblings(&mut lines[..line as usize].iter().rev(), &mut present);
    siblings(&mut lines[line as usize + 1..].iter(), &mut present);
    Some(Place::ValuesKey { path, present })
}

/// The schema's keys at `path` as completion items (`present` left out).
pub fn items(schema: &Type, path: &[String], present: &[String]) -> Vec<CompletionItem> {
    let mut t = schema;
    for key in path {
        let Type::Map(m) = t else { return Vec::new() };
        let Some(item) = m.items.iter().find(|i| i.key.as_str() == Some(key)) else {
            return Vec::new();
        };
        t = &item.value_type;
    }
    let Type::Map(m) = t else { return Vec::new() };
    m.items
        .iter()
        .filter_map(|i| {
            let key = i.key.as_str()?;
            if present.iter().any(|p| p == key) {
                return None;
            }
            let doc = i.value_type.doc();
            let mut text = String::new();
            for s in [&doc.title, &doc.description] {
                if !s.is_empty() {
                    text.push_str(&crate::escape::markdown::text(s));
                    text.push_str("\n\n");
                }
            }
            if doc.deprecated {
                text.push_str("*deprecated*");
            }
            Some(CompletionItem {
                label: key.to_string(),
                kind: Some(CompletionItemKind::FIELD),
                detail: Some(i.value_type.name()),
                documentation: (!text.is_empty()).then(|| {
                    Documentation::MarkupContent(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value: text.trim_end().to_string(),
                    })
                }),
                deprecated: Some(doc.deprecated),
                ..Default::default()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_place_of_the_cursor() {
        let t = "#@ load(\"@ytt:data\", \"data\")\nx: #@ data.values.db.po\n";
        assert_eq!(
            place_at(t, 1, 23, false),
            Some(Place::Reference {
                path: vec!["db".into()]
            })
        );
        assert_eq!(place_at(t, 0, 3, false), None);
        let v = "db:\n  host: x\n  \n  port: 1\nname: web\n";
        assert_eq!(
            place_at(v, 2, 2, true),
            Some(Place::ValuesKey {
                path: vec!["db".into()],
                present: vec!["host".into(), "port".into()]
            })
        );
        assert_eq!(
            place_at(v, 5, 0, true),
            Some(Place::ValuesKey {
                path: vec![],
                present: vec!["name".into(), "db".into()]
            })
        );
    }
}
