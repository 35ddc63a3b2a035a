//! `yttcheck explain RULE`: what a rule checks, why, and how to fix it.

use clap::Args;

use crate::diagnostics::{explain, RuleId};

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// A rule id (`schema/type-mismatch`, or just `type-mismatch` when one
    /// rule ends so); without one, lists every rule
    pub rule: Option<String>,
}

/// The rule `id` names: its full id, or the part after the namespace when
/// only one rule has it.
fn find(id: &str) -> Option<RuleId> {
    RuleId::from_id(id).or_else(|| {
        let mut by_name = RuleId::ALL
            .iter()
            .copied()
            .filter(|r| r.id().split_once('/').map(|(_, n)| n) == Some(id));
        match (by_name.next(), by_name.next()) {
            (Some(r), None) => Some(r),
            _ => None,
        }
    })
}

/// The policies `.yttcheck.yml` in the current folder declares, one line
/// each (what `policy/violation` findings come from).
fn policies() -> Vec<String> {
    use crate::workspace::config::{Config, CONFIG_FILE};
    let Ok(text) = std::fs::read_to_string(CONFIG_FILE) else {
        return Vec::new();
    };
    let Some(path) = crate::source::RepoPath::new(CONFIG_FILE) else {
        return Vec::new();
    };
    let Ok(config) = Config::parse(&path, &text) else {
        return Vec::new();
    };
    config
        .policies
        .iter()
        .map(|p| {
            let globs = |g: &[String]| {
                if g.is_empty() {
                    "*".to_string()
                } else {
                    g.join(", ")
                }
            };
            format!(
                "{:<30} {:<8} libraries: {}; environments: {}",
                p.name.clone().unwrap_or_else(|| p.path.clone()),
                p.severity.as_deref().unwrap_or("error"),
                globs(&p.libraries),
                globs(&p.environments)
            ) + &if p.name.is_some() {
                format!(" ({})", p.path)
            } else {
                String::new()
            }
        })
        .collect()
}

fn print_policies() {
    let list = policies();
    if !list.is_empty() {
        println!(
            "\npolicies of {} (policy/violation):",
            crate::workspace::config::CONFIG_FILE
        );
        for l in list {
            println!("{l}");
        }
    }
}

pub fn run(args: &ExplainArgs) -> i32 {
    match &args.rule {
        None => {
            for r in RuleId::ALL {
                let d = r.doc();
                println!("{:<30} {:<8} {}", d.id, d.severity.as_str(), d.summary);
            }
            print_policies();
            0
        }
        Some(id) => match find(id) {
            Some(r) => {
                print!("{}", explain(r));
                if r == RuleId::PolicyViolation {
                    print_policies();
                }
                0
            }
            None => {
                let best = RuleId::ALL
                    .iter()
                    .map(|r| (crate::template::metas::strsim(id, r.id()), r.id()))
                    .min_by_key(|(d, _)| *d)
                    .filter(|(d, _)| *d <= 4);
                match best {
                    Some((_, near)) => {
                        eprintln!("yttcheck: error: no rule '{id}' (did you mean '{near}'?)")
                    }
                    None => {
                        eprintln!("yttcheck: error: no rule '{id}'; `yttcheck explain` lists them")
                    }
                }
                2
            }
        },
    }
}
