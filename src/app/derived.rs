//! What `yttcheck docs` writes from each library's schema, as the files of
//! the repository should read: the data values reference in the library's
//! README.md (`app::docs`), the committed exports `.yttcheck.yml` names
//! (`exports:`), the `valuesSchema` of the library's Package CRs, and, on
//! request, a `# yaml-language-server: $schema=` modeline in each plain
//! values file of a library with a JSON Schema export (so editors without
//! `yttcheck lsp` complete and validate them). The face compares each with
//! the file and writes it, or names it stale.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::schema::Schema;
use crate::source::{RepoPath, SourceCache};
use crate::workspace::Plan;

use super::UsageError;

/// What to write.
#[derive(Debug, Clone, Default)]
pub struct DocsRequest {
    /// Only these libraries (all when empty).
    pub libraries: Vec<String>,
    /// Add each environment's final values to the references.
    pub environments: bool,
    /// Every library's reference into this one file (relative to the
    /// repository) instead of each README.md.
    pub output: Option<String>,
    /// Write modelines into the plain values files of libraries with a
    /// JSON Schema export.
    pub modelines: bool,
}

/// A file as it should read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    /// Relative to the repository.
    pub path: String,
    pub text: String,
    /// What it is, for people (`values reference`).
    pub what: &'static str,
}

/// The prefix of a modeline the YAML language server reads.
const MODELINE: &str = "# yaml-language-server: $schema=";

/// Every file `docs` writes, as it should read. `read` gives a file's
/// current text (empty when there is none).
pub fn wanted(
    cache: &SourceCache,
    plan: &Plan,
    req: &DocsRequest,
    read: &dyn Fn(&str) -> String,
) -> Result<Vec<Wanted>, UsageError> {
    let opts = super::inspect::values_only(super::budget::eval_opts(
        &Default::default(),
        plan.budget.as_ref(),
    )?);
    let chosen = |name: &str| req.libraries.is_empty() || req.libraries.iter().any(|l| l == name);
    for e in &plan.exports {
        if !plan.libraries.iter().any(|l| l.name == e.library) {
            return Err(UsageError(format!(
                "exports: no library is named '{}' (`yttcheck list` shows the names)",
                e.library
            )));
        }
    }
    let schemas = crate::check::library_schemas_of(cache, plan, &opts, |name| chosen(name));
    let schema_of = |name: &str| Schema {
        doc_type: schemas.get(name).cloned().flatten(),
    };
    // each pair's final values, when the tables of them are asked for
    let checked = req
        .environments
        .then(|| crate::check::run(cache, plan, &opts));
    let secrets = crate::secrets::Secrets::new(&plan.secret_words);
    let mut out = Vec::new();
    let mut all = String::new();
    for lib in plan.libraries.iter().filter(|l| chosen(&l.name)) {
        let environments: Vec<super::docs::EnvironmentValues> = checked
            .iter()
            .flat_map(|c| c.pairs.iter())
            .filter(|p| p.library == lib.name && p.environment != crate::workspace::DEFAULTS_ENV)
            .map(|p| super::docs::EnvironmentValues {
                environment: &p.environment,
                values: p.values.as_ref().map(|d| &d.value),
                kept_in_secret: plan.pairs.iter().any(|q| {
                    plan.libraries[q.library].name == p.library
                        && q.environment == p.environment
                        && !q.inputs.embedded_values.is_empty()
                }),
            })
            .collect();
        let reference = super::docs::reference_with(
            &lib.name,
            schemas.get(&lib.name).and_then(Option::as_ref),
            &environments,
            &secrets,
        );
        if req.output.is_some() {
            all.push_str(&reference);
            all.push('\n');
        } else {
            let path = if lib.root.is_root() {
                "README.md".to_string()
            } else {
                format!("{}/README.md", lib.root)
            };
            let readme = read(&path);
            // a library without a schema has no reference to keep, unless
            // asked for its environments' values or one was written before
            // (a first `docs --check` on adoption finds nothing stale there)
            let untyped = schemas.get(&lib.name).and_then(Option::as_ref).is_none();
            if !untyped || req.environments || readme.contains(super::docs::BEGIN) {
                out.push(Wanted {
                    text: super::docs::splice(&readme, &reference),
                    path,
                    what: "values reference",
                });
            }
        }
        out.extend(package_crs(lib, &schema_of(&lib.name), read));
    }
    if let Some(path) = &req.output {
        out.push(Wanted {
            path: path.clone(),
            text: all,
            what: "values reference",
        });
    }
    for e in plan.exports.iter().filter(|e| chosen(&e.library)) {
        let path = crate::source::confine(&e.path)
            .map_err(|m| UsageError(format!("exports: {}: {m}", e.path)))?;
        let format = export_format(e)?;
        let schema = schema_of(&e.library);
        out.push(Wanted {
            path: path.to_string(),
            text: export_text(&schema, format, &path)?,
            what: "schema export",
        });
    }
    if req.modelines {
        out.extend(modelines(plan, &chosen, read)?);
    }
    Ok(out)
}

/// The format of an export: named, or by the file's extension.
fn export_format(e: &crate::workspace::config::ExportSpec) -> Result<&'static str, UsageError> {
    match e.format.as_deref() {
        Some("json-schema") => Ok("json-schema"),
        Some("openapi-v3") => Ok("openapi-v3"),
        None if e.path.ends_with(".json") => Ok("json-schema"),
        None => Ok("openapi-v3"),
        Some(other) => Err(UsageError(format!(
            "exports: {}: format '{other}' is none of json-schema, openapi-v3",
            e.path
        ))),
    }
}

/// An export's text: what `yttcheck inspect -f LIBRARY
/// --data-values-schema-inspect -o FORMAT` prints (OpenAPI as JSON in a
/// `.json` file).
fn export_text(schema: &Schema, format: &str, path: &RepoPath) -> Result<String, UsageError> {
    let json = |v: &serde_json::Value| {
        serde_json::to_string_pretty(v)
            .map(|s| s + "\n")
            .map_err(|e| UsageError(e.to_string()))
    };
    match format {
        "json-schema" => json(&crate::schema::export::json_schema(schema)),
        _ => {
            let doc = crate::schema::export::openapi(schema, Default::default());
            if path.as_str().ends_with(".json") {
                json(&crate::kubernetes::json::to_json(&doc))
            } else {
                Ok(crate::yaml::print::print_value(&doc))
            }
        }
    }
}

/// Each Package CR of `lib` whose valuesSchema says something else than
/// the schema, written from it (the CRs of one file one after the other).
fn package_crs(
    lib: &crate::workspace::Library,
    schema: &Schema,
    read: &dyn Fn(&str) -> String,
) -> Vec<Wanted> {
    let mut by_file: BTreeMap<&RepoPath, Vec<usize>> = BTreeMap::new();
    for cr in &lib.packages {
        by_file.entry(&cr.path).or_default().push(cr.document);
    }
    let mut out = Vec::new();
    for (path, documents) in by_file {
        let mut text = read(path.as_str());
        let mut changed = false;
        for document in documents {
            let src = Arc::new(crate::yaml::SourceFile::new(path.as_str(), &text));
            if let Some(new) =
                crate::check::package::with_values_schema(&src, path, document, schema)
            {
                text = new;
                changed = true;
            }
        }
        if changed {
            out.push(Wanted {
                path: path.to_string(),
                text,
                what: "Package CR valuesSchema",
            });
        }
    }
    out
}

/// `to` relative to the folder of `from` (`../../schemas/web.json`).
fn relative(from: &RepoPath, to: &RepoPath) -> String {
    let parent = from.parent().unwrap_or_default();
    let dir: Vec<&str> = parent.components().collect();
    let target: Vec<&str> = to.components().collect();
    let common = dir.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; dir.len() - common];
    parts.extend(&target[common..]);
    parts.join("/")
}

/// The plain values files (`--data-values-file`) that one library alone
/// reads, of each library with a JSON Schema export, with a modeline
/// naming the export: the first line, or the modeline the file has
/// already, rewritten when it names another schema.
fn modelines(
    plan: &Plan,
    chosen: &dyn Fn(&str) -> bool,
    read: &dyn Fn(&str) -> String,
) -> Result<Vec<Wanted>, UsageError> {
    let mut export_of: BTreeMap<&str, RepoPath> = BTreeMap::new();
    for e in &plan.exports {
        if export_format(e)? == "json-schema" {
            if let Ok(p) = crate::source::confine(&e.path) {
                export_of.entry(e.library.as_str()).or_insert(p);
            }
        }
    }
    let mut readers: BTreeMap<&RepoPath, Vec<&str>> = BTreeMap::new();
    for pair in &plan.pairs {
        let library = plan.libraries[pair.library].name.as_str();
        for f in &pair.inputs.data_values_files {
            let r = readers.entry(f).or_default();
            if !r.contains(&library) {
                r.push(library);
            }
        }
    }
    let mut out = Vec::new();
    for (file, libraries) in readers {
        let [library] = libraries.as_slice() else {
            continue;
        };
        let Some(export) = export_of.get(library).filter(|_| chosen(library)) else {
            continue;
        };
        let line = format!("{MODELINE}{}", relative(file, export));
        let text = read(file.as_str());
        let mut lines: Vec<&str> = text.split('\n').collect();
        match lines.iter().position(|l| l.starts_with(MODELINE)) {
            Some(i) => lines[i] = &line,
            None => lines.insert(0, &line),
        }
        out.push(Wanted {
            path: file.to_string(),
            text: lines.join("\n"),
            what: "modeline",
        });
    }
    Ok(out)
}

/// `--output` as a path of the repository: an absolute path the user typed
/// is taken when it lies inside the repository (the folder the command
/// runs in); `docs` writes nowhere else.
pub fn output_in_repository(
    root: &std::path::Path,
    output: Option<&std::path::Path>,
) -> Result<Option<String>, UsageError> {
    let Some(output) = output else {
        return Ok(None);
    };
    if !output.is_absolute() {
        return Ok(Some(output.to_string_lossy().into_owned()));
    }
    let outside = || {
        UsageError(format!(
            "--output {} is outside the repository ({}): name a file inside it",
            crate::escape::control(&output.to_string_lossy()),
            crate::escape::control(&root.to_string_lossy())
        ))
    };
    let (Some(parent), Some(name)) = (output.parent(), output.file_name()) else {
        return Err(outside());
    };
    let (Ok(parent), Ok(root)) = (parent.canonicalize(), root.canonicalize()) else {
        return Err(outside());
    };
    let rel = parent
        .strip_prefix(&root)
        .map_err(|_| outside())?
        .join(name);
    Ok(Some(rel.to_string_lossy().into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_relative_to_a_files_folder() {
        let p = |s: &str| RepoPath::new(s).unwrap();
        assert_eq!(
            relative(&p("envs/prod/web.yml"), &p("schemas/web.json")),
            "../../schemas/web.json"
        );
        assert_eq!(
            relative(&p("web.yml"), &p("schemas/web.json")),
            "schemas/web.json"
        );
        assert_eq!(relative(&p("a/b/x.yml"), &p("a/s.json")), "../s.json");
    }
}
