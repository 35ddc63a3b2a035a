//! `yttcheck explain RULE`: what a rule checks, why, and how to fix it.

use clap::Args;

use crate::diagnostics::{explain, RuleId};

use super::out;

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// A rule id (`schema/type-mismatch`, or just `type-mismatch` when one
    /// rule ends so); without one, lists every rule
    pub rule: Option<String>,
}

/// The policies of the repository in the current folder, one line each,
/// with the id prefix of their findings (`policy/prod/replicas`), for the
/// policies whose id `wanted` starts with (or that start with `wanted`).
fn policies(wanted: Option<&str>) -> Vec<String> {
    use crate::app::{load_plan, open_source, Selection};
    let Ok(cwd) = super::args::current_dir() else {
        return Vec::new();
    };
    let selection = Selection::whole(cwd);
    let Ok(source) = open_source(&selection) else {
        return Vec::new();
    };
    let cache = crate::source::cache::SourceCache::new(source.opened.snapshot());
    let Ok(plan) = load_plan(&cache, &source, &selection) else {
        return Vec::new();
    };
    crate::report::plan::policies(&plan, wanted)
}

fn print_policies(wanted: Option<&str>) {
    let list = policies(wanted);
    if !list.is_empty() {
        outln!("\npolicies of this repository (rule ids policy/<policy>/<rule>):");
        for l in list {
            outln!("{l}");
        }
    }
}

pub fn run(args: &ExplainArgs) -> i32 {
    match &args.rule {
        None => {
            for r in RuleId::ALL {
                let d = r.doc();
                outln!("{:<30} {:<8} {}", d.id, d.severity.as_str(), d.summary);
            }
            print_policies(None);
            0
        }
        Some(id) => match RuleId::find(id) {
            Some(r) => {
                out::out(&explain(r));
                if r == RuleId::PolicyViolation {
                    print_policies(None);
                }
                0
            }
            // a policy's own id: the rule it refines, and the policy
            None if id.starts_with("policy/") && !policies(Some(id)).is_empty() => {
                out::out(&explain(RuleId::PolicyViolation));
                print_policies(Some(id));
                0
            }
            None => {
                let best = RuleId::ALL
                    .iter()
                    .map(|r| (crate::template::compiler::metas::strsim(id, r.id()), r.id()))
                    .min_by_key(|(d, _)| *d)
                    .filter(|(d, _)| *d <= 4);
                match best {
                    Some((_, near)) => {
                        errln!("yttcheck: error: no rule '{id}' (did you mean '{near}'?)")
                    }
                    None => {
                        errln!("yttcheck: error: no rule '{id}'; `yttcheck explain` lists them")
                    }
                }
                2
            }
        },
    }
}
