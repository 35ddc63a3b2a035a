//! `yttcheck inspect`: ytt's `--data-values-inspect` and
//! `--data-values-schema-inspect`, with ytt's flags and output.

use std::sync::Arc;

use clap::Args;

use super::args::BudgetArgs;
use crate::app::UsageError;

use crate::files::{LibraryCtx, LibraryTree};
use crate::schema::export::{json_schema, openapi, OpenApiOpts};
use crate::source::worktree::WorkTree;
use crate::source::{collect_inputs, Stdin};
use crate::template::{multi_line_error, CompileCache, EvalOpts, EvalSession};
use crate::values::{library_schema, library_values, DataValuesFlags};
use crate::yaml::print::print_docset;
use crate::yaml::{DocSet, Value};

/// ytt-compatible flags.
#[derive(Args, Debug, Default)]
pub struct InspectArgs {
    /// A pair of the repository (`web@prod`): print its final data values as
    /// `check` computes them, instead of reading -f files [yttcheck extension]
    #[arg(value_name = "LIBRARY@ENV", conflicts_with_all = ["files", "data_values_file", "data_value", "data_value_yaml", "data_value_file", "data_values_env", "data_values_env_yaml"])]
    pub pair: Option<String>,

    /// With LIBRARY@ENV: print the library's schema as OpenAPI v3 instead
    #[arg(long = "schema", requires = "pair")]
    pub pair_schema: bool,

    #[command(flatten)]
    pub input: YttInputs,

    /// Print the final data values (the default; accepted for ytt compatibility)
    #[arg(long = "data-values-inspect")]
    pub data_values_inspect: bool,

    /// Print the data values schema (with -o openapi-v3 or -o json-schema)
    #[arg(long = "data-values-schema-inspect")]
    pub schema_inspect: bool,

    /// Output: yaml, json, openapi-v3, json-schema (yttcheck extension)
    #[arg(
        short = 'o',
        long = "output",
        value_name = "TYPE",
        value_delimiter = ','
    )]
    pub output: Vec<String>,

    /// With -o openapi-v3: add validation keywords (minimum, maxLength, enum, ...) [yttcheck extension]
    #[arg(long = "openapi-validations")]
    pub openapi_validations: bool,
}

/// ytt's inputs: files, data values flags and evaluation options (shared
/// by `inspect` and `render`).
#[derive(Args, Debug, Default, Clone)]
pub struct YttInputs {
    /// File(s) or directories to process (ytt's -f; `name=path` and `-` work as in ytt)
    #[arg(short = 'f', long = "file", value_name = "PATH")]
    pub files: Vec<String>,

    /// Set multiple data values via plain YAML files ([@lib:]path)
    #[arg(long = "data-values-file", value_name = "PATH")]
    pub data_values_file: Vec<String>,

    /// Set a data value to a string (key.path=value)
    #[arg(short = 'v', long = "data-value", value_name = "KV")]
    pub data_value: Vec<String>,

    /// Set a data value, parsed as YAML (key.path=value)
    #[arg(long = "data-value-yaml", value_name = "KV")]
    pub data_value_yaml: Vec<String>,

    /// Set a data value to the contents of a file (key.path=path)
    #[arg(long = "data-value-file", value_name = "KV")]
    pub data_value_file: Vec<String>,

    /// Data values (as strings) from env vars PREFIX_key__sub=value
    #[arg(long = "data-values-env", value_name = "PREFIX")]
    pub data_values_env: Vec<String>,

    /// Data values (parsed as YAML) from env vars PREFIX_key__sub=value
    #[arg(long = "data-values-env-yaml", value_name = "PREFIX")]
    pub data_values_env_yaml: Vec<String>,

    /// Skip validations (not recommended)
    #[arg(long = "dangerous-data-values-disable-validation")]
    pub skip_validation: bool,

    /// Treat comments that are not '#@'/'#!' as plain comments
    #[arg(long = "ignore-unknown-comments")]
    pub ignore_unknown_comments: bool,

    /// Only accept unambiguous YAML scalars (ytt's --strict)
    #[arg(short = 's', long = "strict")]
    pub strict: bool,

    /// Allow map keys to be given twice in templates
    #[arg(long = "implicit-map-key-overrides")]
    pub implicit_map_key_overrides: bool,

    /// File mark (ie change file path, mark as non-template) (format:
    /// file:key=value) (can be specified multiple times)
    #[arg(long = "file-mark", value_name = "MARK")]
    pub file_marks: Vec<String>,

    /// Inspect files (print the files the run reads, after file marks)
    #[arg(long = "files-inspect")]
    pub files_inspect: bool,

    /// Symlinks may lead here (accepted for ytt compatibility: yttcheck
    /// reads a link that stays inside the folder it runs in, never one
    /// that leads out)
    #[arg(
        long = "allow-symlink-destination",
        value_name = "PATH",
        value_delimiter = ','
    )]
    pub allow_symlink_destinations: Vec<String>,

    /// Symlinks may lead anywhere (accepted for ytt compatibility; see
    /// --allow-symlink-destination)
    #[arg(long = "dangerous-allow-all-symlink-destinations")]
    pub allow_all_symlink_destinations: bool,

    /// Print debug info (ytt's library tree and timing, on stderr)
    #[arg(long = "debug")]
    pub debug: bool,

    #[command(flatten)]
    pub budget: BudgetArgs,
}

impl YttInputs {
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
        self.budget.budget().apply(&mut opts)?;
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

fn output_kind(args: &InspectArgs, of: &[&str]) -> Result<Option<String>, String> {
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

/// `inspect LIBRARY@ENV`: one pair of the repository in the current folder,
/// evaluated as `check` evaluates it. Exit 2 for an unknown pair, 1 when the
/// pair has errors (they are printed as `check` prints them).
fn inspect_pair(args: &InspectArgs, name: &str) -> i32 {
    let Some((library, environment)) = name.split_once('@') else {
        errln!("yttcheck: error: expected LIBRARY@ENV (like web@prod), got '{name}'; `yttcheck list --names` lists the pairs");
        return 2;
    };
    let root = match super::args::current_dir() {
        Ok(d) => d,
        Err(UsageError(m)) => {
            errln!("yttcheck: error: {m}");
            return 2;
        }
    };
    let request = crate::app::inspect::PairRequest {
        root,
        library: library.to_string(),
        environment: environment.to_string(),
        strict: args.input.strict,
        skip_validation: args.input.skip_validation,
        budget: args.input.budget.budget(),
    };
    let result = match crate::app::inspect::pair(&request) {
        Ok(r) => r,
        Err(UsageError(m)) => {
            errln!("yttcheck: error: {m}");
            return 2;
        }
    };
    let schema = result.schema.clone();
    // the values are printed whenever ytt would print them: unless a
    // finding is one ytt fails on (other findings, lints and policies, go
    // to stderr beside the values)
    let fails = |f: &&crate::diagnostics::Finding| {
        f.severity == crate::diagnostics::Severity::Error && f.rule.ytt_fails()
    };
    let values = result.values.clone();
    // the schema is printable when it could be built, whatever the values
    let printable = if args.pair_schema {
        schema.is_some()
    } else {
        values.is_some() && !result.findings.iter().any(|f| fails(&f))
    };
    for f in &result.findings {
        if printable && fails(&f) {
            continue;
        }
        let place = f.location.as_ref().map(|l| l.display()).unwrap_or_default();
        errln!(
            "yttcheck: {}[{}] {place}: {}",
            f.severity.as_str(),
            f.rule_id(),
            f.message
        );
    }
    if !printable {
        return 1;
    }
    let out = if args.pair_schema {
        let schema = crate::schema::Schema { doc_type: schema };
        crate::yaml::print::print_value(&openapi(
            &schema,
            OpenApiOpts {
                with_validations: args.openapi_validations,
            },
        ))
    } else {
        match values {
            Some(doc) => print_docset(&DocSet {
                docs: vec![doc],
                ..DocSet::default()
            }),
            None => String::new(),
        }
    };
    super::out::data(&out);
    0
}

/// Runs `inspect`; returns the process exit code.
pub fn run(args: &InspectArgs) -> i32 {
    if let Some(name) = &args.pair {
        return inspect_pair(args, name);
    }
    match inspect(args) {
        Ok(out) => {
            super::out::data(&out);
            0
        }
        Err(msg) => {
            errln!("yttcheck: Error: {}", multi_line_error(&msg));
            1
        }
    }
}

/// Computes what `ytt ... --data-values-inspect` prints, or ytt's error text.
pub fn inspect(args: &InspectArgs) -> Result<String, String> {
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    inspect_in(
        &WorkTree::command_line(cwd),
        &Stdin::default(),
        &crate::values::flags::environ(),
        args,
    )
}

/// [`inspect`] over any snapshot and environment (the fuzz targets give an
/// in-memory one).
pub fn inspect_in(
    snap: &dyn crate::source::Snapshot,
    stdin: &Stdin,
    environ: &[(String, String)],
    args: &InspectArgs,
) -> Result<String, String> {
    let input = &args.input;
    // as ytt: the output types first, the file list before anything is
    // evaluated
    let format = output_kind(args, OUTPUT_FORMATS)?;
    if input.files_inspect {
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
