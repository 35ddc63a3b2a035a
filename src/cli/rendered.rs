//! `render --all --output-files DIR [--check]`: the rendered-manifests
//! pattern (GitOps repositories that commit what each environment
//! deploys): `app::rendered` renders every pair, this writes each pair's
//! folder through `disk::output`, or with `--check` compares instead of
//! writing and names each stale pair.

use std::path::Path;

use crate::app::{load_plan, open_source, Selection, UsageError};
use crate::disk::output;
use crate::source::SourceCache;

use super::render::RenderArgs;

pub fn run(args: &RenderArgs) -> i32 {
    match super::args::current_dir().and_then(|cwd| run_inner(&cwd, args)) {
        Ok(code) => code,
        Err(UsageError(m)) => {
            errln!("yttcheck: error: {m}");
            2
        }
    }
}

fn run_inner(cwd: &Path, args: &RenderArgs) -> Result<i32, UsageError> {
    let Some(dir) = &args.output_files else {
        return Err(UsageError("--all needs --output-files DIR".into()));
    };
    let selection = Selection::whole(cwd.to_path_buf());
    let source = open_source(&selection)?;
    let cache = SourceCache::new(source.opened.snapshot());
    let plan = load_plan(&cache, &source, &selection)?;
    let done = crate::app::rendered::render_work_tree(&plan, cwd);
    for f in &done.failed {
        errln!("yttcheck: error: {f}");
    }
    let dir = cwd.join(dir);
    if args.check {
        let stale = output::stale(&dir, &done.outputs, &done.failed).map_err(UsageError)?;
        for s in &stale {
            outln!("stale: {s}");
        }
        if stale.is_empty() && done.failed.is_empty() {
            outln!("fresh: {} pairs in {}", done.outputs.len(), dir.display());
            return Ok(0);
        }
        if !stale.is_empty() {
            errln!(
                "yttcheck: {} pair{} rendered output is stale: run `yttcheck render --all --output-files {}`",
                stale.len(),
                if stale.len() == 1 { "'s" } else { "s'" },
                args.output_files.as_ref().map_or(String::new(), |d| d.display().to_string())
            );
        }
        return Ok(1);
    }
    output::prepare(&dir).map_err(UsageError)?;
    for (folder, files) in &done.outputs {
        output::replace_folder(&dir, folder, files).map_err(UsageError)?;
        outln!(
            "rendered: {folder} ({} file{})",
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        );
    }
    Ok(i32::from(!done.failed.is_empty()))
}
