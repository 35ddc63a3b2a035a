//! `yttcheck render`: what `ytt -f ...` prints (or, with `--output-files`,
//! writes), with ytt's flags and error texts.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::render::{OutputContent, Rendered};
use crate::source::worktree::WorkTree;
use crate::source::Stdin;
use crate::template::multi_line_error;
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

impl RenderArgs {
    /// The run these flags ask for.
    pub fn run(&self) -> crate::app::ytt::RenderRun {
        crate::app::ytt::RenderRun {
            input: self.input.run(),
            output: self.output.clone(),
        }
    }
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
        return match args
            .input
            .run()
            .files_inspect(&snap, &Stdin::default(), json)
        {
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
    let result = crate::app::ytt::render_in(
        &snap,
        &Stdin::default(),
        &crate::values::flags::environ(),
        &args.run(),
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

/// Prints the documents, or writes the output files.
fn deliver(r: &Rendered, args: &RenderArgs) -> Result<(), String> {
    let announce = |path: &Path| outln!("creating: {}", path.display());
    if let Some(dir) = &args.output_files {
        return crate::disk::output::write_files(r, dir, &announce);
    }
    if let Some(dir) = &args.emptied_output_directory {
        return crate::disk::output::write_emptied(r, dir, &announce);
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
