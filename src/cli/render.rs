//! `yttcheck render`: what `ytt -f ...` prints (or, with `--output-files`,
//! writes), with ytt's flags and error texts.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;

use crate::render::{OutputContent, Rendered, Renderer};
use crate::source::worktree::WorkTree;
use crate::source::Stdin;
use crate::template::{multi_line_error, CompileCache};
use crate::yaml::print::print_docset;

use super::inspect::YttInputs;

/// ytt-compatible flags of a full render.
#[derive(Args, Debug, Default)]
pub struct RenderArgs {
    #[command(flatten)]
    pub input: YttInputs,

    /// Output: yaml (the default) or json
    #[arg(
        short = 'o',
        long = "output",
        value_name = "TYPE",
        value_delimiter = ','
    )]
    pub output: Vec<String>,

    /// Write every output file (YAML and text templates) under DIR instead of
    /// printing the documents (ytt's --output-files)
    #[arg(
        long = "output-files",
        value_name = "DIR",
        conflicts_with = "emptied_output_directory"
    )]
    pub output_files: Option<PathBuf>,

    /// Delete everything in DIR, then write every output file under it
    /// (ytt's flag of the same name: DIR is emptied first)
    #[arg(long = "dangerous-emptied-output-directory", value_name = "DIR")]
    pub emptied_output_directory: Option<PathBuf>,

    /// Render every library x environment pair of the repository (run at
    /// its root) into --output-files DIR/<library>/<environment>/, each pair's
    /// folder replaced whole [yttcheck extension]
    #[arg(long, requires = "output_files", conflicts_with_all = ["files", "emptied_output_directory"])]
    pub all: bool,

    /// With --all: write nothing; exit 1 naming each pair whose committed
    /// output under DIR is stale (for a pre-commit hook and CI)
    #[arg(long, requires = "all")]
    pub check: bool,

    /// Print the final data values instead of rendering (as ytt does with
    /// this flag; the same as `yttcheck inspect`)
    #[arg(long = "data-values-inspect", conflicts_with_all = ["output_files", "emptied_output_directory"])]
    pub data_values_inspect: bool,

    /// Print the data values schema instead of rendering (with -o
    /// openapi-v3; as ytt does with this flag)
    #[arg(long = "data-values-schema-inspect", conflicts_with_all = ["output_files", "emptied_output_directory"])]
    pub schema_inspect: bool,
}

/// Runs `render`; returns the process exit code.
pub fn run(args: &RenderArgs) -> i32 {
    let cwd = match std::env::current_dir() {
        Ok(c) => c,
        Err(e) => {
            errln!("yttcheck: Error: {e}");
            return 1;
        }
    };
    // ytt's inspect flags on a render: what `inspect` prints, flag for flag
    if args.data_values_inspect || args.schema_inspect {
        return super::inspect::run(&super::inspect::InspectArgs {
            input: args.input.clone(),
            data_values_inspect: args.data_values_inspect,
            schema_inspect: args.schema_inspect,
            output: args.output.clone(),
            ..Default::default()
        });
    }
    let snap = WorkTree::command_line(cwd);
    if args.input.files_inspect {
        let json = args.output.iter().any(|t| t == "json");
        return match args.input.files_inspect(&snap, &Stdin::default(), json) {
            Ok(out) => {
                super::out::data(&out);
                0
            }
            Err(msg) => {
                errln!("yttcheck: Error: {}", multi_line_error(&msg));
                1
            }
        };
    }
    let started = std::time::Instant::now();
    let result = render_in(
        &snap,
        &Stdin::default(),
        &crate::values::flags::environ(),
        args,
    )
    .and_then(|r| deliver(&r, args));
    if args.input.debug {
        super::out::err(&format!("total: {:?}\n", started.elapsed()));
    }
    match result {
        Ok(()) => 0,
        Err(msg) => {
            errln!("yttcheck: Error: {}", multi_line_error(&msg));
            1
        }
    }
}

/// Renders the files `args` names from `snap`.
pub fn render_in(
    snap: &dyn crate::source::Snapshot,
    stdin: &Stdin,
    environ: &[(String, String)],
    args: &RenderArgs,
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

/// Prints the documents, or writes the output files.
fn deliver(r: &Rendered, args: &RenderArgs) -> Result<(), String> {
    if let Some(dir) = &args.output_files {
        return write_files(r, dir);
    }
    if let Some(dir) = &args.emptied_output_directory {
        return write_emptied(r, dir);
    }
    let out = if args.output.iter().any(|t| t == "json") {
        let mut out = String::new();
        for d in r.docs.docs.iter().filter(|d| !d.is_empty()) {
            out.push_str(
                &crate::ytt::codec::json_encode(&d.value, 0, true).map_err(|e| e.to_string())?,
            );
        }
        out
    } else {
        print_docset(&r.docs)
    };
    super::out::data(&out);
    // as ytt: text templates' results are not printed, and it says so
    if r.files
        .iter()
        .any(|f| matches!(f.content, OutputContent::Text(_)))
    {
        super::out::err(
            "\nWarning: Found Non-YAML templates in input. Non-YAML templates are not rendered to standard output.\nIf you want to include those results, use the --output-files or --dangerous-emptied-output-directory flag.\n",
        );
    }
    Ok(())
}

/// ytt's `--dangerous-emptied-output-directory`: `dir` emptied (a link
/// there is removed, not followed), then written as `--output-files`
/// writes.
fn write_emptied(r: &Rendered, dir: &Path) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    let dups: Vec<&str> = r
        .files
        .iter()
        .filter(|f| !seen.insert(f.path.as_str()))
        .map(|f| f.path.as_str())
        .collect();
    if !dups.is_empty() {
        return Err(format!(
            "Multiple files have same output destination paths: {}",
            dups.join(", ")
        ));
    }
    if ["/", ".", "./", ""].contains(&dir.to_string_lossy().as_ref()) {
        return Err("Expected output directory path to not be one of '/', '.', './', ''".into());
    }
    match std::fs::symlink_metadata(dir) {
        Ok(md) if md.file_type().is_symlink() || !md.is_dir() => {
            std::fs::remove_file(dir).map_err(|e| format!("Deleting '{}': {e}", dir.display()))?
        }
        Ok(_) => std::fs::remove_dir_all(dir)
            .map_err(|e| format!("Deleting '{}': {e}", dir.display()))?,
        Err(_) => {}
    }
    write_files(r, dir)
}

/// ytt's `--output-files`: each output file under `dir` (created when
/// missing), announced with `creating: <path>`. A path that would leave
/// `dir` (an absolute name or `..` given with `-f name=path`) is refused.
fn write_files(r: &Rendered, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("Creating '{}': {e}", dir.display()))?;
    for f in &r.files {
        let bytes = match &f.content {
            OutputContent::Yaml(docs) => crate::yaml::print::print_docs(&r.docs.docs[docs.clone()]),
            OutputContent::Text(t) => t.clone(),
        };
        let path = crate::disk::write::output_file(dir, &f.path, bytes.as_bytes())
            .map_err(|e| format!("Writing '{}': {e}", f.path))?;
        outln!("creating: {}", path.display());
    }
    Ok(())
}
