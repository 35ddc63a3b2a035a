//! `yttcheck docs`: each library's data values reference, written from its
//! schema into the README.md of the library's folder (between markers; the
//! rest of the file kept byte for byte), so the table users read never
//! drifts from the schema. Every key path (nested maps, `[]` for array
//! items), its type, default, title, description, examples, deprecation,
//! whether it may be null, and every validation in words.

use crate::assertions::rules::NodeValidation;
use crate::escape::markdown::{code, text};
use crate::schema::{DocType, Type};
use crate::yaml::Value;

/// Where the reference starts and ends in a README.
pub const BEGIN: &str =
    "<!-- yttcheck:values:begin (written by `yttcheck docs`; edit the schema, not this table) -->";
pub const END: &str = "<!-- yttcheck:values:end -->";

/// One row of the reference.
struct Row {
    path: String,
    type_name: String,
    default: String,
    notes: Vec<String>,
}

fn short(v: &Value) -> String {
    crate::diff::values::Tree::from_value(v).short()
}

fn walk(
    t: &Type,
    path: &str,
    default: &Value,
    validation: Option<&NodeValidation>,
    rows: &mut Vec<Row>,
) {
    let (nullable, inner) = match t {
        Type::Null(n) => (true, n.value_type.as_ref()),
        other => (false, other),
    };
    let doc = t.doc();
    let inner_doc = inner.doc();
    let mut notes = Vec::new();
    for s in [
        &doc.title,
        &inner_doc.title,
        &doc.description,
        &inner_doc.description,
    ] {
        if !s.is_empty() && !notes.contains(&text(s)) {
            notes.push(text(s));
        }
    }
    // (a value that is not nullable is its own inner type, and a nullable
    // one's examples may be on both: each example once)
    for (description, example) in doc.examples.iter().chain(&inner_doc.examples) {
        let e = code(&short(example));
        let note = if description.is_empty() {
            format!("example: {e}")
        } else {
            format!("example ({}): {e}", text(description))
        };
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    if doc.deprecated || inner_doc.deprecated {
        let notice = [&doc.deprecation_notice, &inner_doc.deprecation_notice]
            .into_iter()
            .find(|n| !n.is_empty())
            .map(|n| format!(": {}", text(n)))
            .unwrap_or_default();
        notes.push(format!("**deprecated**{notice}"));
    }
    if nullable {
        notes.push("may be null".into());
    }
    for (written, words) in validation.map(|v| v.described()).unwrap_or_default() {
        notes.push(if written.is_empty() {
            text(&words)
        } else {
            format!("{} ({})", text(&words), code(&written))
        });
    }
    if !path.is_empty() {
        rows.push(Row {
            path: path.to_string(),
            type_name: t.name(),
            default: match inner {
                Type::Map(_) => String::new(),
                _ => code(&short(default)),
            },
            notes,
        });
    }
    match inner {
        Type::Map(m) => {
            for item in &m.items {
                let key = item.key.scalar_display();
                let child = if path.is_empty() {
                    key
                } else {
                    format!("{path}.{key}")
                };
                walk(
                    &item.value_type,
                    &child,
                    &item.default,
                    item.validation.as_deref(),
                    rows,
                );
            }
        }
        Type::Array(a) => walk(
            &a.item_type.value_type,
            &format!("{path}[]"),
            &a.item_type.default,
            a.item_type.validation.as_deref(),
            rows,
        ),
        _ => {}
    }
}

/// Each environment's final values of a library, for the reference's
/// table of them.
pub struct EnvironmentValues<'a> {
    pub environment: &'a str,
    /// None: the pair's values could not be computed.
    pub values: Option<&'a Value>,
    /// Whether its values are kept in a Secret (a PackageInstall's): a
    /// value it sets is the consumer's secret, and a reference ships with
    /// the package, so only a value equal to the default is shown.
    pub kept_in_secret: bool,
}

/// The value at a dotted key path (no `[]` step), when it is there.
fn value_at<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    let mut v = v;
    for key in path.split('.') {
        let Value::Map(m) = v else { return None };
        v = &m.get(key)?.value;
    }
    Some(v)
}

/// The table of each environment's final value of each leaf key path,
/// values under secret-looking keys not shown.
fn environments_table(
    rows: &[Row],
    environments: &[EnvironmentValues],
    secrets: &crate::secrets::Secrets,
) -> String {
    let mut out = String::from("\n### Final values per environment\n\n| value |");
    for e in environments {
        out.push_str(&format!(" {} |", code(e.environment)));
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(environments.len()));
    out.push('\n');
    for r in rows
        .iter()
        .filter(|r| !r.path.contains("[]") && !r.default.is_empty())
    {
        let secret = r.path.split('.').any(|k| secrets.is_secret(k));
        out.push_str(&format!("| {} |", code(&r.path)));
        for e in environments {
            let cell = match e.values.map(|v| value_at(v, &r.path)) {
                None => "(fails)".to_string(),
                Some(None) => String::new(),
                Some(Some(_)) if secret => "(secret: not shown)".to_string(),
                Some(Some(v)) if e.kept_in_secret && code(&short(v)) != r.default => {
                    "(kept in a Secret: not shown)".to_string()
                }
                Some(Some(v)) => code(&short(v)),
            };
            out.push_str(&format!(" {cell} |"));
        }
        out.push('\n');
    }
    out
}

/// The reference of a library's schema, between the markers (ending with a
/// line break).
pub fn reference(library: &str, schema: Option<&DocType>) -> String {
    reference_with(library, schema, &[], &crate::secrets::Secrets::default())
}

/// [`reference`], with a table of each environment's final values.
pub fn reference_with(
    library: &str,
    schema: Option<&DocType>,
    environments: &[EnvironmentValues],
    secrets: &crate::secrets::Secrets,
) -> String {
    let mut out = format!("{BEGIN}\n\n## Data values of {}\n\n", code(library));
    match schema {
        None => out.push_str(
            "This library declares no data values schema (`#@data/values-schema`): its values are untyped.\n",
        ),
        Some(dt) => {
            let mut rows = Vec::new();
            walk(&dt.value_type, "", &dt.default, dt.validation.as_deref(), &mut rows);
            out.push_str("| value | type | default | description and rules |\n|---|---|---|---|\n");
            for r in &rows {
                out.push_str(&format!(
                    "| {} | {} | {} | {} |\n",
                    code(&r.path),
                    code(&r.type_name),
                    r.default,
                    r.notes.join("<br>")
                ));
            }
            if !environments.is_empty() {
                out.push_str(&environments_table(&rows, environments, secrets));
            }
        }
    }
    out.push('\n');
    out.push_str(END);
    out.push('\n');
    out
}

/// `readme` with its reference replaced by `reference` (or, with no
/// markers, appended after a blank line): everything outside the markers
/// stays byte for byte.
pub fn splice(readme: &str, reference: &str) -> String {
    if let (Some(b), Some(e)) = (readme.find(BEGIN), readme.find(END)) {
        if b < e {
            let mut end = e + END.len();
            if readme[end..].starts_with('\n') {
                end += 1;
            }
            return format!("{}{reference}{}", &readme[..b], &readme[end..]);
        }
    }
    if readme.is_empty() {
        return reference.to_string();
    }
    let sep = if readme.ends_with("\n\n") {
        ""
    } else if readme.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    };
    format!("{readme}{sep}{reference}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_replaces_only_what_is_between_its_markers() {
        let r = format!("{BEGIN}\nnew\n{END}\n");
        assert_eq!(splice("", &r), r);
        assert_eq!(splice("# web\n", &r), format!("# web\n\n{r}"));
        let old = format!("# web\r\nintro\n\n{BEGIN}\nold\n{END}\ntail\n");
        assert_eq!(splice(&old, &r), format!("# web\r\nintro\n\n{r}tail\n"));
        // idempotent
        let once = splice("# web\n", &r);
        assert_eq!(splice(&once, &r), once);
    }
}
