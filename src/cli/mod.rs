//! The command line: `yttcheck <subcommand>`.

/// `eprintln!` for the command line: a message through [`out::err`], which
/// escapes what must not reach a terminal or the Actions runner raw.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::cli::out::err(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `println!` for the command line's messages (not data): through
/// [`out::out`].
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::out::out(&format!("{}\n", format_args!($($arg)*)))
    };
}

pub mod args;
pub mod check;
pub mod ci;
pub mod comment;
pub mod daemon;
pub mod diff;
pub mod docs;
pub mod explain;
pub mod hook;
pub mod inspect;
pub mod list;
pub mod out;
pub mod render;
pub mod rendered;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "yttcheck",
    version,
    about = "A fast, git-aware checker for Carvel ytt data values, schemas and validations",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check every library x environment pair of the repository
    Check(check::CheckArgs),
    /// One GitHub Actions step: check what the event calls for, then write
    /// annotations, SARIF, step outputs and the job summary
    Ci(ci::CiArgs),
    /// Post the pull request comment a `ci --comment-file` step wrote (the
    /// fork-safe `workflow_run` pattern)
    Comment(comment::CommentArgs),
    /// The repository's warm daemon, which makes checks in hooks fast
    Daemon(daemon::DaemonArgs),
    /// Diff the final data values (and schemas) between a base revision and head
    Diff(diff::DiffArgs),
    /// Write each library's data values reference (from its schema) into
    /// the README.md of its folder, or check that it is fresh
    Docs(docs::DocsArgs),
    /// Install or remove yttcheck's git hooks (pre-commit, pre-push)
    Hook(hook::HookArgs),
    /// List the library x environment pairs a check would run, and the files each reads
    List(list::ListArgs),
    /// Explain a rule (or list them all)
    Explain(explain::ExplainArgs),
    /// Print the final data values (or schema) exactly as `ytt --data-values-inspect` does
    Inspect(inspect::InspectArgs),
    /// Render templates exactly as `ytt -f ...` does
    Render(render::RenderArgs),
    /// The language server (LSP over stdin and stdout): findings in the
    /// editor as you type
    Lsp,
}

/// The argument `render`/`inspect` did not take, as ytt words it.
fn unknown_argument(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    match (e.kind(), e.get(ContextKind::InvalidArg)) {
        (ErrorKind::UnknownArgument, Some(ContextValue::String(arg))) => {
            crate::app::ytt::unknown_argument(&std::env::args().nth(1)?, arg)
        }
        _ => None,
    }
}

/// Runs the command line; returns the exit code.
pub fn main() -> i32 {
    // Starlark's print() goes to stderr, as in ytt
    crate::template::eval::set_print_sink(|text| errln!("{text}"));
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) if e.use_stderr() => {
            // ytt's face (`render`, `inspect`) words it as ytt, exit 1
            if let Some(text) = unknown_argument(&e) {
                errln!("yttcheck: Error: {}", crate::escape::control(&text));
                return 1;
            }
            // the message quotes the arguments (file names a hook passed)
            out::err(&e.render().to_string());
            return 2;
        }
        Err(e) => {
            // --help, --version: our own text
            let _ = e.print();
            return 0;
        }
    };
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Ci(args) => ci::run(&args),
        Command::Comment(args) => comment::run(&args),
        Command::Daemon(args) => daemon::run(&args),
        Command::Diff(args) => diff::run(&args),
        Command::Docs(args) => docs::run(&args),
        Command::Hook(args) => hook::run(&args),
        Command::List(args) => list::run(&args),
        Command::Explain(args) => explain::run(&args),
        Command::Inspect(args) => inspect::run(&args),
        // `render --all`: every pair of the repository (rendered.rs)
        Command::Render(args) if args.all => rendered::run(&args),
        Command::Render(args) => render::run(&args),
        Command::Lsp => match args::current_dir().and_then(|cwd| {
            crate::lsp::serve(
                cwd,
                std::sync::Arc::new(crate::fetch::schemas::fetcher),
                std::io::stdin(),
                out::protocol(),
            )
            .map_err(crate::app::UsageError)
        }) {
            Ok(()) => 0,
            Err(e) => {
                errln!("yttcheck lsp: {e}");
                1
            }
        },
    }
}

#[cfg(test)]
mod tests {
    /// clap checks a command line's definition only in debug builds, at
    /// first use; this checks it in every build (a flag whose id clashes
    /// with `--version` once passed every release test and failed every
    /// debug one).
    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
