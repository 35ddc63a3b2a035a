//! `yttcheck list`: the planned pairs, the ytt command each one amounts to,
//! and every file it reads.

use clap::Args;

use crate::workspace::{Pair, Plan};

use crate::source::SourceCache;

use super::args::SelectionArgs;
use crate::app::{load_plan, open_source, UsageError};

#[derive(Args, Debug)]
pub struct ListArgs {
    #[command(flatten)]
    pub selection: SelectionArgs,

    /// Output format: text (pairs, their ytt commands and files) or json
    #[arg(long = "format", value_name = "FORMAT", default_value = "text")]
    pub format: String,

    /// Only the pairs' names, one a line (for scripts and shell loops)
    #[arg(long, conflicts_with = "format")]
    pub names: bool,

    /// Also each library x environment combination that gets no pair, and
    /// why (a library with no file in an environment that has files for
    /// others is not deployed there)
    #[arg(long)]
    pub all: bool,
}

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

/// The ytt command line that computes a pair's data values.
pub fn ytt_command(plan: &Plan, pair: &Pair) -> Vec<String> {
    let lib = &plan.libraries[pair.library];
    let root = if lib.root.is_root() {
        ".".to_string()
    } else {
        lib.root.to_string()
    };
    let mut cmd = vec!["ytt".to_string(), "-f".to_string(), root];
    // the library's own marks, then what its folder holds that it does not
    // read (environment folders inside it): ytt would take those as
    // templates of the library
    for m in &lib.file_marks {
        cmd.push("--file-mark".into());
        cmd.push(m.clone());
    }
    for p in &lib.left_out {
        cmd.push("--file-mark".into());
        cmd.push(format!("{p}:exclude=true"));
    }
    for f in lib.extra_files.iter().chain(&pair.inputs.files) {
        cmd.push("-f".into());
        // `rel=path` when ytt must see another path than the file's name
        if f.rel == f.path.file_name() {
            cmd.push(f.path.to_string());
        } else {
            cmd.push(format!("{}={}", f.rel, f.path));
        }
    }
    for f in &pair.inputs.data_values_files {
        cmd.push("--data-values-file".into());
        cmd.push(f.to_string());
    }
    let flags: [(&str, &Vec<String>); 5] = [
        ("--data-values-env", &pair.inputs.env_prefixes),
        ("--data-values-env-yaml", &pair.inputs.env_yaml_prefixes),
        ("--data-value", &pair.inputs.data_values),
        ("--data-value-yaml", &pair.inputs.data_values_yaml),
        ("--data-value-file", &pair.inputs.data_value_files),
    ];
    for (flag, values) in flags {
        for v in values {
            cmd.push(flag.to_string());
            cmd.push(v.clone());
        }
    }
    cmd.push("--data-values-inspect".into());
    cmd
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

pub fn run(args: &ListArgs) -> i32 {
    let selection = match super::args::current_dir() {
        Ok(cwd) => args.selection.selection(&cwd),
        Err(UsageError(m)) => {
            errln!("yttcheck: error: {m}");
            return 2;
        }
    };
    let source = match open_source(&selection) {
        Ok(s) => s,
        Err(UsageError(m)) => {
            errln!("yttcheck: error: {m}");
            return 2;
        }
    };
    let cache = SourceCache::new(source.opened.snapshot());
    let plan = match load_plan(&cache, &source, &selection) {
        Ok(p) => p,
        Err(UsageError(m)) => {
            errln!("yttcheck: error: {m}");
            return 2;
        }
    };
    let mut out = String::new();
    if args.format != "text" && args.format != "json" {
        errln!(
            "yttcheck: error: unknown format '{}' (expected one of: text, json)",
            args.format
        );
        return 2;
    }
    if args.names {
        for p in &plan.pairs {
            out.push_str(&p.name(&plan));
            out.push('\n');
        }
    } else if args.format == "json" {
        let pairs: Vec<serde_json::Value> = plan
            .pairs
            .iter()
            .map(|p| {
                serde_json::json!({
                    "name": p.name(&plan),
                    "library": plan.libraries[p.library].name,
                    "environment": p.environment,
                    "ytt": ytt_command(&plan, p),
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
        out = serde_json::to_string_pretty(&serde_json::json!({
            "pairs": pairs,
            "libraries": libraries,
            "skipped": skipped,
            "problems": problems,
        }))
        .unwrap_or_default();
        out.push('\n');
    } else {
        for p in &plan.pairs {
            out.push_str(&format!("{}\n", p.name(&plan)));
            let cmd: Vec<String> = ytt_command(&plan, p)
                .iter()
                .map(|s| shell_quote(s))
                .collect();
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
        if args.all {
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
    }
    if args.format == "json" {
        super::out::data(&crate::escape::json::harden(&out));
    } else {
        // names and paths from the repository: a message, made safe
        super::out::out(&out);
    }
    0
}
