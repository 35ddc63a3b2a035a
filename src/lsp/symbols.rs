//! Document symbols of a YAML file (values, schema, template): its keys as
//! a tree, so an editor's outline and "go to symbol" list them. Read from
//! the editor's buffer with the checker's own YAML parser; a file that does
//! not parse has no symbols (its diagnostics say why).

use lsp_types::{DocumentSymbol, Position, Range, SymbolKind};

use crate::yaml::{SourceFile, Value};

/// The keys of every document of `text`, nested as the YAML nests them.
pub fn of(name: &str, text: &str) -> Vec<DocumentSymbol> {
    let src = SourceFile::new(name, text);
    let Ok(docs) = crate::yaml::parse::parse(&src, false) else {
        return Vec::new();
    };
    let lines: Vec<&str> = text.lines().collect();
    docs.docs
        .iter()
        .flat_map(|d| children(&d.value, &lines, 0))
        .collect()
}

/// Symbols of the items of a map (keys), or of an array's items that hold
/// maps (`[0]`, `[1]`, ...). Nesting is bounded: an outline deeper than 64
/// levels helps no one.
fn children(v: &Value, lines: &[&str], depth: usize) -> Vec<DocumentSymbol> {
    if depth > 64 {
        return Vec::new();
    }
    match v {
        Value::Map(m) => m
            .items
            .iter()
            .filter(|i| i.pos.is_known())
            .map(|i| symbol(i.key.scalar_display(), &i.value, i.pos.line(), lines, depth))
            .collect(),
        Value::Array(a) => a
            .items
            .iter()
            .enumerate()
            .filter(|(_, i)| i.pos.is_known() && matches!(i.value, Value::Map(_) | Value::Array(_)))
            .map(|(n, i)| symbol(format!("[{n}]"), &i.value, i.pos.line(), lines, depth))
            .collect(),
        _ => Vec::new(),
    }
}

#[allow(deprecated)] // `deprecated` is a field LSP keeps for old clients
fn symbol(name: String, value: &Value, line: u32, lines: &[&str], depth: usize) -> DocumentSymbol {
    let line = line.saturating_sub(1);
    let width = lines
        .get(line as usize)
        .map(|l| l.encode_utf16().count() as u32)
        .unwrap_or(0);
    let range = Range {
        start: Position { line, character: 0 },
        end: Position {
            line,
            character: width,
        },
    };
    let kind = match value {
        Value::Map(_) => SymbolKind::OBJECT,
        Value::Array(_) => SymbolKind::ARRAY,
        Value::Bool(_) => SymbolKind::BOOLEAN,
        Value::Int(_) | Value::UInt(_) | Value::Float(_) => SymbolKind::NUMBER,
        Value::Str(_) | Value::Binary(_) => SymbolKind::STRING,
        Value::Null => SymbolKind::NULL,
    };
    let kids = children(value, lines, depth + 1);
    DocumentSymbol {
        name: if name.is_empty() { "\"\"".into() } else { name },
        detail: None,
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range: range,
        children: (!kids.is_empty()).then_some(kids),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_nest_as_the_yaml_does() {
        let s = of(
            "values.yml",
            "#@data/values\n---\ndb:\n  host: x\n  ports:\n  - name: a\n    port: 1\nreplicas: 2\n",
        );
        let names: Vec<_> = s.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["db", "replicas"]);
        assert_eq!(s[0].kind, SymbolKind::OBJECT);
        assert_eq!(s[1].kind, SymbolKind::NUMBER);
        assert_eq!(s[1].range.start.line, 7);
        let db = s[0].children.as_ref().unwrap();
        assert_eq!(db[0].name, "host");
        assert_eq!(db[1].name, "ports");
        let item = &db[1].children.as_ref().unwrap()[0];
        assert_eq!(item.name, "[0]");
        assert_eq!(item.children.as_ref().unwrap()[1].name, "port");
        assert!(of("bad.yml", "a: [\n").is_empty());
    }
}
