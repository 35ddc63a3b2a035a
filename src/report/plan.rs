//! `yttcheck list`'s printers: the plan's pairs (each with the ytt command
//! it amounts to, given by the caller, and every file it reads), its
//! libraries and Package CRs, and what gets no pair and why; as text or JSON.

use crate::workspace::Plan;

/// Where a library's name came from, when it is not its folder's own or
/// it was declared: `discovered`/`declared in .yttcheck.yml`, and how.
fn library_origin(lib: &crate::workspace::Library) -> Option<String> {
    let from = if lib.declared {
        "declared in .yttcheck.yml"
    } else {
        "discovered"
    };
    match &lib.name_origin {
        Some(o) if o != "named in .yttcheck.yml" => Some(format!("{from}, named {o}")),
        Some(o) => Some(format!("{from}, {o}")),
        None if lib.declared => Some(from.to_string()),
        None => None,
    }
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=@:,+%".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The plan as text; `commands` holds each pair's ytt command (argv);
/// `all` lists every combination that gets no pair, with why. Names and
/// paths come from the repository: the caller prints it as a message.
pub fn text(plan: &Plan, commands: &[Vec<String>], all: bool) -> String {
    let mut out = String::new();
    for (p, cmd) in plan.pairs.iter().zip(commands) {
        out.push_str(&format!("{}\n", p.name(plan)));
        let cmd: Vec<String> = cmd.iter().map(|s| shell_quote(s)).collect();
        out.push_str(&format!("  {}\n", cmd.join(" ")));
        for e in &p.inputs.embedded_values {
            // kapp-controller writes each key to a file for
            // --data-values-file; no shell line can say that alone
            out.push_str(&format!(
                "  and --data-values-file: key {} of the Secret in {} (document {})\n",
                crate::escape::control(&e.key),
                e.path,
                e.document + 1
            ));
        }
        for f in plan.files_read(p) {
            out.push_str(&format!("    {f}\n"));
        }
    }
    for p in &plan.problems {
        out.push_str(&format!("problem: {}: {}\n", p.path, p.message));
    }
    for u in &plan.unmatched_files {
        out.push_str(&format!(
            "unmatched: {} (environment {}) is named after no library{}\n",
            u.path,
            u.environment,
            u.closest
                .as_ref()
                .map(|c| format!(": did you mean {c}?"))
                .unwrap_or_default()
        ));
    }
    for l in &plan.libraries {
        if let Some(origin) = library_origin(l) {
            out.push_str(&format!("library {}: {}, {origin}\n", l.name, l.root));
        }
        for p in &l.packages {
            out.push_str(&format!(
                "package {}: {} ({}), by {}\n",
                l.name,
                p.path,
                crate::escape::control(&p.name),
                p.tied_by
            ));
        }
    }
    if all {
        for (path, why) in &plan.conventions {
            out.push_str(&format!("{}: {why}\n", shown_path(path)));
        }
        for f in &plan.loose_files {
            out.push_str(&format!(
                "values file {}: {}\n",
                f.path,
                f.explain(&plan.libraries)
            ));
        }
        for s in &plan.skipped {
            out.push_str(&format!(
                "no pair {}@{}: {}\n",
                plan.libraries[s.library].name, s.environment, s.reason
            ));
        }
    } else if !plan.skipped.is_empty() {
        out.push_str(&format!(
            "{} library x environment combination{} get{} no pair (`yttcheck list --all` says why)\n",
            plan.skipped.len(),
            if plan.skipped.len() == 1 { "" } else { "s" },
            if plan.skipped.len() == 1 { "s" } else { "" },
        ));
    }
    out.push_str(&format!(
        "{} pair{} of {} librar{}\n",
        plan.pairs.len(),
        if plan.pairs.len() == 1 { "" } else { "s" },
        plan.libraries_in_use(),
        if plan.libraries_in_use() == 1 {
            "y"
        } else {
            "ies"
        }
    ));
    out
}

/// A path as `list` names it; the repository root as such.
fn shown_path(path: &crate::source::RepoPath) -> String {
    if path.is_root() {
        "(the repository root)".to_string()
    } else {
        path.to_string()
    }
}

/// The plan as JSON (`commands` as for [`text`]).
pub fn json(plan: &Plan, commands: &[Vec<String>]) -> String {
    let pairs: Vec<serde_json::Value> = plan
        .pairs
        .iter()
        .zip(commands)
        .map(|(p, command)| {
            serde_json::json!({
                "name": p.name(plan),
                "library": plan.libraries[p.library].name,
                "environment": p.environment,
                "ytt": command,
                "embedded_values": p.inputs.embedded_values.iter().map(|e| serde_json::json!({
                    "file": e.path.as_str(),
                    "document": e.document,
                    "key": e.key,
                })).collect::<Vec<_>>(),
                "files": plan.files_read(p).iter().map(|f| f.as_str().to_string()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let problems: Vec<serde_json::Value> = plan
        .problems
        .iter()
        .map(|p| serde_json::json!({"path": p.path.as_str(), "message": p.message}))
        .collect();
    let libraries: Vec<serde_json::Value> = plan
        .libraries
        .iter()
        .map(|l| {
            serde_json::json!({
                "name": l.name,
                "root": l.root.as_str(),
                "declared": l.declared,
                "name_origin": l.name_origin,
                "packages": l.packages.iter().map(|p| serde_json::json!({
                    "path": p.path.as_str(),
                    "name": p.name,
                    "tied_by": p.tied_by,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let skipped: Vec<serde_json::Value> = plan
        .skipped
        .iter()
        .map(|s| {
            serde_json::json!({
                "library": plan.libraries[s.library].name,
                "environment": s.environment,
                "reason": s.reason,
            })
        })
        .collect();
    let values_files: Vec<serde_json::Value> = plan
        .loose_files
        .iter()
        .map(|f| {
            let library = match f.outcome {
                crate::workspace::plan::LooseOutcome::Environment { library, .. } => {
                    Some(plan.libraries[library].name.clone())
                }
                _ => None,
            };
            serde_json::json!({
                "path": f.path.as_str(),
                "library": library,
                "environment": library.as_ref().map(|_| f.environment()),
                "reason": f.explain(&plan.libraries),
            })
        })
        .collect();
    let conventions: Vec<serde_json::Value> = plan
        .conventions
        .iter()
        .map(|(path, why)| serde_json::json!({"path": path.as_str(), "reason": why}))
        .collect();
    let mut out = serde_json::to_string_pretty(&serde_json::json!({
        "pairs": pairs,
        "libraries": libraries,
        "skipped": skipped,
        "values_files": values_files,
        "conventions": conventions,
        "problems": problems,
    }))
    .unwrap_or_default();
    out.push('\n');
    out
}

/// The plan's policies, one line each, with the id prefix of their
/// findings (`policy/prod/replicas`), severity, file, pairs, pack and
/// description; only those whose id `wanted` starts with (or that start
/// with `wanted`) when given (`yttcheck explain`).
pub fn policies(plan: &Plan, wanted: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    for (i, p) in plan.policies.iter().enumerate() {
        let id = crate::check::policy::policy_id(&p.name);
        if let Some(w) = wanted {
            use crate::diagnostics::rules::id_within;
            if !id_within(w, &id) && !id_within(&id, w) {
                continue;
            }
        }
        let pairs = plan
            .pairs
            .iter()
            .filter(|pair| pair.policies.contains(&i))
            .count();
        let mut line = format!(
            "{id:<30} {:<8} {} ({pairs} pair{})",
            p.severity,
            p.file,
            if pairs == 1 { "" } else { "s" }
        );
        if let Some(pack) = &p.pack {
            line.push_str(&format!(
                "; pack {}{}",
                pack.name,
                pack.version
                    .as_ref()
                    .map(|v| format!(" {v}"))
                    .unwrap_or_default()
            ));
        }
        if let Some(d) = p
            .description
            .as_ref()
            .or(p.pack.as_ref().and_then(|k| k.description.as_ref()))
        {
            line.push_str(&format!(": {d}"));
        }
        out.push(line);
    }
    out
}
