//! `yttcheck docs [--check] [--output FILE]`: writes each library's data
//! values reference (`app::docs`) into the README.md of its folder, or
//! checks that it is fresh (CI, the `yttcheck-docs` pre-commit hook).

use std::path::PathBuf;

use clap::Args;

use crate::app::{load_plan, open_source, Selection, UsageError};
use crate::check::CheckOptions;
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
    let opts = CheckOptions {
        jobs: 0,
        eval: crate::app::budget::eval_opts(&Default::default(), plan.budget.as_ref())?,
        skip_validation: false,
        progress: false,
        keep_values: true,
        render: false,
        unused_values: false,
        kubernetes: None,
    };
    let schemas = crate::check::library_schemas(&cache, &plan, &opts);
    // each pair's final values, when the tables of them are asked for
    let checked = args
        .environments
        .then(|| crate::check::run(&cache, &plan, &opts));
    let secrets = crate::secrets::Secrets::new(&plan.secret_words);
    let snapshot = source.opened.snapshot();
    let read = |rel: &str| -> String {
        snapshot
            .read(rel)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    };
    // (file, its text as it should be)
    let mut wanted: Vec<(String, String)> = Vec::new();
    let mut all = String::new();
    for lib in plan
        .libraries
        .iter()
        .filter(|l| args.libraries.is_empty() || args.libraries.contains(&l.name))
    {
        let environments: Vec<crate::app::docs::EnvironmentValues> = checked
            .iter()
            .flat_map(|c| c.pairs.iter())
            .filter(|p| p.library == lib.name && p.environment != crate::workspace::DEFAULTS_ENV)
            .map(|p| crate::app::docs::EnvironmentValues {
                environment: &p.environment,
                values: p.values.as_ref().map(|d| &d.value),
            })
            .collect();
        let reference = crate::app::docs::reference_with(
            &lib.name,
            schemas.get(&lib.name).and_then(Option::as_ref),
            &environments,
            &secrets,
        );
        if args.output.is_some() {
            all.push_str(&reference);
            all.push('\n');
            continue;
        }
        let rel = if lib.root.is_root() {
            "README.md".to_string()
        } else {
            format!("{}/README.md", lib.root)
        };
        // read through the snapshot: a README that links out of the
        // repository is never read
        let current = read(&rel);
        wanted.push((rel, crate::app::docs::splice(&current, &reference)));
    }
    if let Some(out) = &args.output {
        wanted.push((out.to_string_lossy().into_owned(), all));
    }
    let mut stale = 0;
    for (rel, text) in &wanted {
        if read(rel) == *text {
            continue;
        }
        stale += 1;
        if args.check {
            outln!("stale: {rel}");
        } else {
            super::write::output_file(&root, rel, text.as_bytes())
                .map_err(|e| UsageError(format!("cannot write {rel}: {e}")))?;
            outln!("wrote: {rel}");
        }
    }
    if args.check && stale > 0 {
        errln!(
            "yttcheck: {stale} data values reference{} stale: run `yttcheck docs`",
            if stale == 1 { " is" } else { "s are" }
        );
        return Ok(1);
    }
    if stale == 0 {
        outln!(
            "fresh: {} reference{}",
            wanted.len(),
            if wanted.len() == 1 { "" } else { "s" }
        );
    }
    Ok(0)
}
