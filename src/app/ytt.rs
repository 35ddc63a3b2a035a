//! ytt's own command line (`inspect -f`, `render -f`, its data values
//! flags): its inputs as plain values, run over any snapshot, flag for flag
//! as ytt runs them. The command line parses the flags into these; the fuzz
//! targets fill them in directly.

use std::sync::Arc;

use crate::files::{LibraryCtx, LibraryTree};
use crate::render::{Rendered, Renderer};
use crate::schema::export::{json_schema, openapi, OpenApiOpts};
use crate::source::{collect_inputs, Stdin};
use crate::template::{CompileCache, EvalOpts, EvalSession};
use crate::values::{library_schema, library_values, DataValuesFlags};
use crate::workspace::{Pair, Plan};
use crate::yaml::print::print_docset;
use crate::yaml::{DocSet, Value};

use super::budget::Budget;

/// ytt's inputs: files, data values flags and evaluation options (shared
/// by `inspect` and `render`).
#[derive(Debug, Default, Clone)]
pub struct YttRun {
    /// `-f` (`name=path` and `-` as in ytt).
    pub files: Vec<String>,
    /// `--data-values-file`.
    pub data_values_file: Vec<String>,
    /// `-v`.
    pub data_value: Vec<String>,
    /// `--data-value-yaml`.
    pub data_value_yaml: Vec<String>,
    /// `--data-value-file`.
    pub data_value_file: Vec<String>,
    /// `--data-values-env`.
    pub data_values_env: Vec<String>,
    /// `--data-values-env-yaml`.
    pub data_values_env_yaml: Vec<String>,
    /// `--dangerous-data-values-disable-validation`.
    pub skip_validation: bool,
    /// `--ignore-unknown-comments`.
    pub ignore_unknown_comments: bool,
    /// `--strict`.
    pub strict: bool,
    /// `--implicit-map-key-overrides`.
    pub implicit_map_key_overrides: bool,
    /// `--file-mark`.
    pub file_marks: Vec<String>,
    /// `--max-steps`, `--timeout`.
    pub budget: Budget,
}

/// `inspect -f ...`: what to print.
#[derive(Debug, Default, Clone)]
pub struct InspectRun {
    pub input: YttRun,
    /// `--data-values-schema-inspect`.
    pub schema_inspect: bool,
    /// `-o`.
    pub output: Vec<String>,
    /// `--openapi-validations`.
    pub openapi_validations: bool,
    /// `--files-inspect`.
    pub files_inspect: bool,
}

/// `render -f ...`: the output types asked for.
#[derive(Debug, Default, Clone)]
pub struct RenderRun {
    pub input: YttRun,
    /// `-o`.
    pub output: Vec<String>,
}

impl YttRun {
    /// The data values flags, as the values pipeline takes them.
    pub fn flags(&self) -> DataValuesFlags {
        DataValuesFlags {
            env_from_strings: self.data_values_env.clone(),
            env_from_yaml: self.data_values_env_yaml.clone(),
            kvs_from_strings: self.data_value.clone(),
            kvs_from_yaml: self.data_value_yaml.clone(),
            kvs_from_files: self.data_value_file.clone(),
            from_files: self.data_values_file.clone(),
        }
    }

    /// The library tree of the `-f` files, the data values the flags give,
    /// and the evaluation options: what `inspect` and `render` start from.
    pub fn prepare(
        &self,
        snap: &dyn crate::source::Snapshot,
        stdin: &Stdin,
        environ: &[(String, String)],
    ) -> Result<(Arc<LibraryTree>, crate::values::flags::Overlays, EvalOpts), String> {
        let files = self.files(snap, stdin)?;
        let tree = Arc::new(LibraryTree::new(files));
        let overlays = self
            .flags()
            .as_overlays(snap, stdin, environ, self.strict)
            .map_err(|e| e.message)?;
        Ok((tree, overlays, self.eval_opts()?))
    }

    /// The `-f` files after `--file-mark`s.
    pub fn files(
        &self,
        snap: &dyn crate::source::Snapshot,
        stdin: &Stdin,
    ) -> Result<Vec<Arc<crate::files::InputFile>>, String> {
        let marks = self
            .file_marks
            .iter()
            .map(|m| crate::files::marks::FileMark::parse(m))
            .collect::<Result<Vec<_>, _>>()?;
        collect_inputs(snap, &self.files, stdin, &marks)
    }

    /// ytt's `--files-inspect`: the files of the run (those of private
    /// libraries aside), one YAML sequence.
    pub fn files_inspect(
        &self,
        snap: &dyn crate::source::Snapshot,
        stdin: &Stdin,
        json: bool,
    ) -> Result<String, String> {
        let files = self.files(snap, stdin)?;
        let names: Vec<Value> = files
            .iter()
            .filter(|f| !(f.rel_path.starts_with("_ytt_lib/") || f.rel_path.contains("/_ytt_lib/")))
            .map(|f| Value::str(&f.rel_path))
            .collect();
        if names.is_empty() {
            return Ok(String::new());
        }
        let list = Value::Array(crate::yaml::Shared::new(crate::yaml::Array {
            items: names
                .into_iter()
                .map(|value| crate::yaml::ArrayItem {
                    value,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }));
        if json {
            crate::ytt::codec::json_encode(&list, 0, false).map_err(|e| e.to_string())
        } else {
            Ok(crate::yaml::print::print_value(&list))
        }
    }

    /// Evaluation options from the flags.
    pub fn eval_opts(&self) -> Result<EvalOpts, String> {
        let mut opts = EvalOpts {
            ignore_unknown_comments: self.ignore_unknown_comments,
            strict: self.strict,
            implicit_map_key_overrides: self.implicit_map_key_overrides,
            ..EvalOpts::default()
        };
        self.budget.apply(&mut opts)?;
        Ok(opts)
    }
}

const OUTPUT_FORMATS: &[&str] = &["yaml", "json", "pos"];

/// A value with every map's items sorted by key (Go's `json.Marshal` of a
/// map sorts them).
fn sorted_keys(mut v: Value) -> Value {
    match &mut v {
        Value::Map(m) => {
            let items = std::mem::take(&mut m.items);
            let mut items: Vec<crate::yaml::MapItem> = items
                .into_iter()
                .map(|mut i| {
                    i.value = sorted_keys(std::mem::take(&mut i.value));
                    i
                })
                .collect();
            items.sort_by_key(|i| i.key.scalar_display());
            m.items = items;
        }
        Value::Array(a) => {
            for i in &mut a.items {
                i.value = sorted_keys(std::mem::take(&mut i.value));
            }
        }
        _ => {}
    }
    v
}
const OUTPUT_SCHEMAS: &[&str] = &["openapi-v3", "json-schema"];

fn output_kind(args: &InspectRun, of: &[&str]) -> Result<Option<String>, String> {
    for t in &args.output {
        if !OUTPUT_FORMATS.contains(&t.as_str()) && !OUTPUT_SCHEMAS.contains(&t.as_str()) {
            return Err(format!("Unknown output type '{t}'"));
        }
    }
    Ok(args
        .output
        .iter()
        .find(|t| of.contains(&t.as_str()))
        .cloned())
}

/// What `ytt ... --data-values-inspect` (or `--data-values-schema-inspect`)
/// prints for `args` over any snapshot and environment (the command line
/// gives the work tree and the process's; the fuzz targets an in-memory one),
/// or ytt's error text.
pub fn inspect_in(
    snap: &dyn crate::source::Snapshot,
    stdin: &Stdin,
    environ: &[(String, String)],
    args: &InspectRun,
) -> Result<String, String> {
    let input = &args.input;
    // as ytt: the output types first, the file list before anything is
    // evaluated
    let format = output_kind(args, OUTPUT_FORMATS)?;
    if args.files_inspect {
        return input.files_inspect(snap, stdin, format.as_deref() == Some("json"));
    }
    let (tree, overlays, opts) = input.prepare(snap, stdin, environ)?;
    let cache = CompileCache::new(crate::ytt::stdlib());
    let session = EvalSession::new(tree, &opts, &cache, Value::new_map(Default::default()));
    let schema = library_schema(&session, LibraryCtx::ROOT, &[]).map_err(|e| e.message)?;

    let schema_out = output_kind(args, OUTPUT_SCHEMAS)?;
    if args.schema_inspect {
        return match schema_out.as_deref() {
            Some("openapi-v3") => {
                let doc = openapi(
                    &schema.schema,
                    OpenApiOpts {
                        with_validations: args.openapi_validations,
                    },
                );
                // `-o json` too: the document as JSON (ytt applies both)
                if format.as_deref() == Some("json") {
                    // Go's encoding/json writes an object's keys sorted
                    return crate::ytt::codec::json_encode(&sorted_keys(doc), 0, true)
                        .map_err(|e| e.to_string());
                }
                Ok(crate::yaml::print::print_value(&doc))
            }
            Some("json-schema") => {
                let v = json_schema(&schema.schema);
                Ok(format!(
                    "{}\n",
                    serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
                ))
            }
            _ => Err(
                "Data values schema export only supported in OpenAPI v3 format; specify format with --output=openapi-v3 flag"
                    .to_string(),
            ),
        };
    }
    if schema_out.is_some() {
        return Err(
            "Output type currently only supported for data values schema (i.e. include --data-values-schema-inspect)"
                .to_string(),
        );
    }

    let values = library_values(
        &session,
        LibraryCtx::ROOT,
        &overlays.root,
        &schema.schema,
        input.skip_validation,
    )
    .map_err(|e| e.message)?;

    let ds = DocSet {
        docs: vec![values.doc],
        ..DocSet::default()
    };
    match output_kind(args, OUTPUT_FORMATS)?.as_deref() {
        Some("json") => {
            let mut out = String::new();
            for d in ds.docs.iter().filter(|d| !d.is_empty()) {
                out.push_str(
                    &crate::ytt::codec::json_encode(&d.value, 0, true)
                        .map_err(|e| e.to_string())?,
                );
            }
            Ok(out)
        }
        _ => Ok(print_docset(&ds)),
    }
}

/// Renders the files `args` names from `snap`, as `ytt -f ...` does.
pub fn render_in(
    snap: &dyn crate::source::Snapshot,
    stdin: &Stdin,
    environ: &[(String, String)],
    args: &RenderRun,
) -> Result<Rendered, String> {
    let input = &args.input;
    for t in &args.output {
        if !["yaml", "json", "pos", "openapi-v3"].contains(&t.as_str()) {
            return Err(format!("Unknown output type '{t}'"));
        }
    }
    if args.output.iter().any(|t| t == "openapi-v3") {
        return Err(
            "Output type currently only supported for data values schema (i.e. include --data-values-schema-inspect)"
                .to_string(),
        );
    }
    let (tree, overlays, opts) = input.prepare(snap, stdin, environ)?;
    let cache = Arc::new(CompileCache::new(crate::ytt::stdlib()));
    Renderer::new(tree, cache, input.skip_validation)
        .render_root(&opts, &overlays)
        .map_err(|e| e.message().to_string())
}

/// The ytt run of one pair of the repository: the library's folder with
/// its marks and what it leaves out, the environment's `-f` files and
/// flags (the values a pair keeps in a Secret are not among them: ytt has
/// no flag for them).
pub fn pair_run(plan: &Plan, pair: &Pair) -> YttRun {
    let lib = &plan.libraries[pair.library];
    let root = if lib.root.is_root() {
        ".".to_string()
    } else {
        lib.root.to_string()
    };
    let mut files = vec![root];
    // `rel=path` when ytt must see another path than the file's name
    files.extend(lib.extra_files.iter().chain(&pair.inputs.files).map(|f| {
        if f.rel == f.path.file_name() {
            f.path.to_string()
        } else {
            format!("{}={}", f.rel, f.path)
        }
    }));
    let mut file_marks = lib.file_marks.clone();
    // what its folder holds that it does not read (environment folders
    // inside it): ytt would take those as templates of the library
    file_marks.extend(lib.left_out.iter().map(|p| format!("{p}:exclude=true")));
    YttRun {
        files,
        file_marks,
        data_values_file: pair
            .inputs
            .data_values_files
            .iter()
            .map(ToString::to_string)
            .collect(),
        data_value: pair.inputs.data_values.clone(),
        data_value_yaml: pair.inputs.data_values_yaml.clone(),
        data_value_file: pair.inputs.data_value_files.clone(),
        data_values_env: pair.inputs.env_prefixes.clone(),
        data_values_env_yaml: pair.inputs.env_yaml_prefixes.clone(),
        ..YttRun::default()
    }
}

impl YttRun {
    /// The ytt command line of this run (`ytt -f LIBRARY --file-mark ...
    /// -f ... --data-values-file ...`): the first `-f` and its marks, then
    /// the other files and the data values flags, each in its order.
    pub fn command(&self) -> Vec<String> {
        let mut cmd = vec!["ytt".to_string()];
        let flag = |cmd: &mut Vec<String>, name: &str, values: &[String]| {
            for v in values {
                cmd.push(name.to_string());
                cmd.push(v.clone());
            }
        };
        let (first, rest) = self.files.split_at(self.files.len().min(1));
        flag(&mut cmd, "-f", first);
        flag(&mut cmd, "--file-mark", &self.file_marks);
        flag(&mut cmd, "-f", rest);
        flag(&mut cmd, "--data-values-file", &self.data_values_file);
        flag(&mut cmd, "--data-values-env", &self.data_values_env);
        flag(
            &mut cmd,
            "--data-values-env-yaml",
            &self.data_values_env_yaml,
        );
        flag(&mut cmd, "--data-value", &self.data_value);
        flag(&mut cmd, "--data-value-yaml", &self.data_value_yaml);
        flag(&mut cmd, "--data-value-file", &self.data_value_file);
        cmd
    }
}

/// ytt's (cobra's) words for an argument its command line does not take,
/// when `command` is ytt's face (`render`, `inspect`): `unknown flag: --x`,
/// `unknown shorthand flag: 'x' in -x`, `command 'ytt' does not accept
/// extra arguments 'x'`. `None` for another command's.
pub fn unknown_argument(command: &str, arg: &str) -> Option<String> {
    if !matches!(command, "render" | "inspect") {
        return None;
    }
    Some(if let Some(long) = arg.strip_prefix("--") {
        format!("unknown flag: --{}", long.split('=').next().unwrap_or(long))
    } else if let Some(short) = arg.strip_prefix('-').and_then(|s| s.chars().next()) {
        format!("unknown shorthand flag: '{short}' in {arg}")
    } else {
        format!("command 'ytt' does not accept extra arguments '{arg}'")
    })
}
