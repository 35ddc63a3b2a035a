//! Hover: on a key of a values file or a schema, or on `data.values.a.b` in
//! a template or `.star` file, what no other ytt tool can say: the schema's
//! type, default and documentation, and the final value in every
//! environment, with the file and line that set it (secrets not shown).

use crate::app::inspect::PairReading;
use crate::schema::Type;
use crate::yaml::{SourceFile, Value};

/// The data values path at `line`, `character` (0-based) of a file: a
/// `data.values.` reference under the cursor, else the map key written on
/// that line (with the keys above it).
pub fn path_at(name: &str, text: &str, line: u32, character: u32) -> Option<Vec<String>> {
    let line_text = text.lines().nth(line as usize)?;
    let at = super::position::byte_offset(line_text, character);
    if let Some(p) = reference_at(line_text, at) {
        return Some(p);
    }
    let docs = crate::yaml::parse::parse(&SourceFile::new(name, text), false).ok()?;
    docs.docs
        .iter()
        .find_map(|d| key_on_line(&d.value, line + 1, &mut Vec::new()))
}

/// `data.values.a.b` around the byte offset `at` of a line: the path up to
/// the piece under the cursor.
fn reference_at(line: &str, at: usize) -> Option<Vec<String>> {
    const PREFIX: &str = "data.values.";
    for (start, _) in line.match_indices(PREFIX) {
        let mut pieces: Vec<(usize, usize)> = Vec::new();
        let mut i = start + PREFIX.len();
        loop {
            let end = line[i..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(line.len(), |e| i + e);
            if end == i {
                break;
            }
            pieces.push((i, end));
            if line[end..].starts_with('.') {
                i = end + 1;
            } else {
                break;
            }
        }
        let Some(&(_, last_end)) = pieces.last() else {
            continue;
        };
        if at < start || at > last_end {
            continue;
        }
        let upto = pieces
            .iter()
            .position(|&(s, e)| at >= s && at <= e)
            .unwrap_or(pieces.len() - 1);
        return Some(
            pieces[..=upto]
                .iter()
                .map(|&(s, e)| line[s..e].to_string())
                .collect(),
        );
    }
    None
}

fn key_on_line(v: &Value, line: u32, path: &mut Vec<String>) -> Option<Vec<String>> {
    let map = v.as_map()?;
    for item in &map.items {
        let key = item
            .key
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| item.key.scalar_display());
        path.push(key);
        if item.pos.line() == line {
            return Some(path.clone());
        }
        if let Some(found) = key_on_line(&item.value, line, path) {
            return Some(found);
        }
        path.pop();
    }
    None
}

/// The type the schema declares at `path`, with its default and its
/// validation.
type Declared<'a> = (
    &'a Type,
    &'a Value,
    Option<&'a crate::assertions::rules::NodeValidation>,
);

fn schema_at<'a>(t: &'a Type, path: &[String]) -> Option<Declared<'a>> {
    let mut t = t;
    let mut default = None;
    let mut validation = None;
    for key in path {
        let Type::Map(m) = t else { return None };
        let item = m.items.iter().find(|i| i.key.as_str() == Some(key))?;
        default = Some(&item.default);
        validation = item.validation.as_deref();
        t = &item.value_type;
    }
    Some((t, default?, validation))
}

/// Where the schema declares `path` (its key's place).
pub fn declaration_at<'a>(t: &'a Type, path: &[String]) -> Option<&'a crate::yaml::Pos> {
    let mut t = t;
    let mut pos = None;
    for key in path {
        let Type::Map(m) = t else { return None };
        let item = m.items.iter().find(|i| i.key.as_str() == Some(key))?;
        pos = Some(&item.pos);
        t = &item.value_type;
    }
    pos
}

fn value_at<'a>(v: &'a Value, path: &[String]) -> Option<&'a crate::yaml::MapItem> {
    let (first, rest) = path.split_first()?;
    let item = v.as_map()?.get(first)?;
    if rest.is_empty() {
        Some(item)
    } else {
        value_at(&item.value, rest)
    }
}

/// Text as a Markdown code span, which shows it as it is: nothing inside
/// one is read as a link, an image or emphasis. Its fence is a run of
/// backticks longer than any in the text, so none closes it early; unsafe
/// characters (line ends, controls, invisible ones) are visible escapes
/// (`escape::control`). In a table's cell (`cell`), GFM splits the row at
/// its pipes before it reads code spans, so a `|` is escaped (`\|`, given
/// back as `|` inside the span), and the backslashes just before it doubled
/// (an escaped backslash would leave the pipe unescaped). Editors show a
/// code span as code, where they would show `<code>` as its tags (Neovim,
/// Helix) or drop it (VS Code, whose hovers take no HTML).
fn code(s: &str, cell: bool) -> String {
    let s = crate::escape::control(s);
    let mut body = String::with_capacity(s.len() + 4);
    let mut backslashes = 0;
    for c in s.chars() {
        if cell && c == '|' {
            body.extend(std::iter::repeat_n('\\', backslashes + 1));
        }
        backslashes = if c == '\\' { backslashes + 1 } else { 0 };
        body.push(c);
    }
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    // a space each side, which the span drops, when the text starts or ends
    // with a backtick or a space (or is empty)
    let pad = body.is_empty() || body.starts_with(['`', ' ']) || body.ends_with(['`', ' ']);
    if pad {
        format!("{fence} {body} {fence}")
    } else {
        format!("{fence}{body}{fence}")
    }
}

/// A value in one line: a scalar as YAML writes it, a collection by size.
fn short(v: &Value, cell: bool) -> String {
    match v {
        Value::Map(m) => format!(
            "a map of {} key{}",
            m.items.len(),
            if m.items.len() == 1 { "" } else { "s" }
        ),
        Value::Array(a) => format!(
            "an array of {} item{}",
            a.items.len(),
            if a.items.len() == 1 { "" } else { "s" }
        ),
        _ => code(crate::yaml::print::print_value(v).trim_end(), cell),
    }
}

/// The hover's Markdown for `path`, from the pairs that read the file.
pub fn markdown(path: &[String], readings: &[PairReading]) -> Option<String> {
    if readings.is_empty() {
        return None;
    }
    let secret = {
        let s = crate::secrets::Secrets::new(&readings[0].secret_words);
        path.iter().any(|k| s.is_secret(k))
    };
    let mut out = format!("**{}**", code(&path.join("."), false));
    let schema = readings
        .iter()
        .find_map(|r| r.schema.as_ref())
        .and_then(|s| schema_at(&s.value_type, path));
    let mut known = schema.is_some();
    if let Some((t, default, validation)) = schema {
        out.push_str(&format!(" — {}", t.name()));
        if !secret {
            out.push_str(&format!(", default {}", short(default, false)));
        }
        let doc = t.doc();
        for text in [&doc.title, &doc.description] {
            if !text.is_empty() {
                out.push_str(&format!("\n\n{}", crate::escape::markdown::text(text)));
            }
        }
        // each rule as written and in words
        let rules = validation.map(|v| v.described()).unwrap_or_default();
        if !rules.is_empty() {
            out.push_str("\n\nvalidations:");
            for (written, words) in rules {
                let written = if written.is_empty() {
                    String::new()
                } else {
                    format!("{} ", code(&written, false))
                };
                out.push_str(&format!(
                    "\n- {written}{}",
                    crate::escape::markdown::text(&words)
                ));
            }
        }
        if doc.deprecated {
            out.push_str(&format!(
                "\n\n*deprecated*{}",
                if doc.deprecation_notice.is_empty() {
                    String::new()
                } else {
                    format!(
                        ": {}",
                        crate::escape::markdown::text(&doc.deprecation_notice)
                    )
                }
            ));
        }
    }
    let mut rows = String::new();
    for r in readings {
        let item = r.values.as_ref().and_then(|d| value_at(&d.value, path));
        known |= item.is_some();
        let (value, origin) = match (item, &r.values) {
            (_, None) => ("(no values: the pair fails)".to_string(), String::new()),
            (None, Some(_)) => ("(not set)".to_string(), String::new()),
            (Some(i), Some(_)) => (
                if secret {
                    "(a secret: not shown)".to_string()
                } else {
                    short(&i.value, true)
                },
                code(&i.pos.compact(), true),
            ),
        };
        rows.push_str(&format!(
            "| {} | {value} | {origin} |\n",
            code(&format!("{}@{}", r.library, r.environment), true)
        ));
    }
    if !known {
        return None;
    }
    out.push_str("\n\n| pair | final value | set at |\n|---|---|---|\n");
    out.push_str(&rows);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_hold_any_text_and_cells_their_pipes() {
        assert_eq!(code("web@dev", true), "`web@dev`");
        assert_eq!(code("a `` b", false), "```a `` b```");
        assert_eq!(code("`x", false), "`` `x ``");
        assert_eq!(code("a|b", false), "`a|b`");
        assert_eq!(code("a|b", true), "`a\\|b`");
        assert_eq!(code("a\\|b", true), "`a\\\\\\|b`");
        assert_eq!(code("a\nb\u{202e}", true), "`a\\nb\\u202e`");
        assert_eq!(code("", true), "`  `");
    }

    #[test]
    fn the_path_under_the_cursor() {
        let line = "  replicas: #@ data.values.web.replicas + 1";
        let at = |s: &str| line.find(s).unwrap() as u32;
        assert_eq!(
            path_at("t.yml", line, 0, at("web")),
            Some(vec!["web".to_string()])
        );
        assert_eq!(
            path_at("t.yml", line, 0, at("replicas +")),
            Some(vec!["web".to_string(), "replicas".to_string()])
        );
        let yaml = "db:\n  host: x\n  port: 5432\nname: web\n";
        assert_eq!(
            path_at("v.yml", yaml, 2, 3),
            Some(vec!["db".to_string(), "port".to_string()])
        );
        assert_eq!(path_at("v.yml", yaml, 3, 0), Some(vec!["name".to_string()]));
        assert_eq!(
            path_at("v.yml", "a: [\n", 0, 0),
            None,
            "a file that does not parse"
        );
    }
}
