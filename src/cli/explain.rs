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

pub fn run(args: &ExplainArgs) -> i32 {
    match &args.rule {
        None => {
            for r in RuleId::ALL {
                let d = r.doc();
                println!("{:<30} {:<8} {}", d.id, d.severity.as_str(), d.summary);
            }
            0
        }
        Some(id) => match find(id) {
            Some(r) => {
                print!("{}", explain(r));
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
