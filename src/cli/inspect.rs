//! `yttcheck inspect`: ytt's `--data-values-inspect` and
//! `--data-values-schema-inspect`, with ytt's flags and output.

use clap::Args;

use super::args::BudgetArgs;
use crate::app::UsageError;

use crate::app::ytt::{InspectRun, YttRun};
use crate::source::worktree::WorkTree;
use crate::source::Stdin;
use crate::template::multi_line_error;

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
    /// The run these flags ask for.
    pub fn run(&self) -> YttRun {
        YttRun {
            files: self.files.clone(),
            data_values_file: self.data_values_file.clone(),
            data_value: self.data_value.clone(),
            data_value_yaml: self.data_value_yaml.clone(),
            data_value_file: self.data_value_file.clone(),
            data_values_env: self.data_values_env.clone(),
            data_values_env_yaml: self.data_values_env_yaml.clone(),
            skip_validation: self.skip_validation,
            ignore_unknown_comments: self.ignore_unknown_comments,
            strict: self.strict,
            implicit_map_key_overrides: self.implicit_map_key_overrides,
            file_marks: self.file_marks.clone(),
            budget: self.budget.budget(),
        }
    }
}

impl InspectArgs {
    /// The run these flags ask for.
    pub fn run(&self) -> InspectRun {
        InspectRun {
            input: self.input.run(),
            schema_inspect: self.schema_inspect,
            output: self.output.clone(),
            openapi_validations: self.openapi_validations,
            files_inspect: self.input.files_inspect,
        }
    }
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
    let shown = crate::app::inspect::shown(&result, args.pair_schema, args.openapi_validations);
    for m in &shown.messages {
        errln!("yttcheck: {m}");
    }
    match shown.output {
        Some(out) => {
            super::out::data(&out);
            0
        }
        None => 1,
    }
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
    crate::app::ytt::inspect_in(
        &WorkTree::command_line(cwd),
        &Stdin::default(),
        &crate::values::flags::environ(),
        &args.run(),
    )
}
