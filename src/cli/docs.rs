//! `yttcheck docs [--check] [--output FILE] [--modelines]`: writes what
//! `app::derived` says each library's schema makes (its values reference
//! in README.md, committed exports, its Package CRs' valuesSchema,
//! modelines), or checks that it is fresh (CI, the `yttcheck-docs`
//! pre-commit hook).

use std::path::PathBuf;

use clap::Args;

use crate::app::{load_plan, open_source, Selection, UsageError};
use crate::source::SourceCache;

#[derive(Args, Debug)]
pub struct DocsArgs {
    /// Write nothing: exit 1 naming each reference that is stale
    #[arg(long)]
    pub check: bool,

    /// Write every library's reference into this one file instead of each
    /// library's README.md
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Only these libraries (repeatable)
    #[arg(long = "library", value_name = "NAME")]
    pub libraries: Vec<String>,

    /// Add a table of each environment's final values (values under
    /// secret-looking keys are not shown)
    #[arg(long)]
    pub environments: bool,

    /// Also write a `# yaml-language-server: $schema=` modeline into each
    /// plain values file of a library with a JSON Schema export (`exports:`
    /// in .yttcheck.yml), naming the export
    #[arg(long)]
    pub modelines: bool,
}

pub fn run(args: &DocsArgs) -> i32 {
    match run_inner(args) {
        Ok(code) => code,
        Err(UsageError(m)) => {
            errln!("yttcheck: error: {m}");
            2
        }
    }
}

fn run_inner(args: &DocsArgs) -> Result<i32, UsageError> {
    let root = super::args::current_dir()?;
    let selection = Selection {
        libraries: args.libraries.clone(),
        ..Selection::whole(root.clone())
    };
    let source = open_source(&selection)?;
    let cache = SourceCache::new(source.opened.snapshot());
    let plan = load_plan(&cache, &source, &selection)?;
    let snapshot = source.opened.snapshot();
    // read through the snapshot: a README that links out of the
    // repository is never read
    let read = |rel: &str| -> String {
        snapshot
            .read(rel)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    };
    let request = crate::app::derived::DocsRequest {
        libraries: args.libraries.clone(),
        environments: args.environments,
        output: crate::app::derived::output_in_repository(&root, args.output.as_deref())?,
        modelines: args.modelines,
    };
    let wanted = crate::app::derived::wanted(&cache, &plan, &request, &read)?;
    let mut stale = 0;
    for w in &wanted {
        if read(&w.path) == w.text {
            continue;
        }
        stale += 1;
        if args.check {
            outln!("stale: {} ({})", w.path, w.what);
        } else {
            crate::disk::write::output_file(&root, &w.path, w.text.as_bytes())
                .map_err(|e| UsageError(format!("cannot write {}: {e}", w.path)))?;
            outln!("wrote: {} ({})", w.path, w.what);
        }
    }
    if args.check && stale > 0 {
        errln!(
            "yttcheck: {stale} file{} stale: run `yttcheck docs`{}",
            if stale == 1 { " is" } else { "s are" },
            if args.modelines { " --modelines" } else { "" }
        );
        return Ok(1);
    }
    if stale == 0 {
        outln!(
            "fresh: {} file{}",
            wanted.len(),
            if wanted.len() == 1 { "" } else { "s" }
        );
    }
    Ok(0)
}
