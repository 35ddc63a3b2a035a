//! `yttcheck explain RULE`: what a rule checks, why, and how to fix it.

use clap::Args;

use crate::check::rules::{explain, find, RULES};

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// A rule id (`schema/type-mismatch`); without one, lists every rule
    pub rule: Option<String>,
}

pub fn run(args: &ExplainArgs) -> i32 {
    match &args.rule {
        None => {
            for r in RULES {
                println!("{:<30} {:<8} {}", r.id, r.severity.as_str(), r.summary);
            }
            0
        }
        Some(id) => match find(id) {
            Some(r) => {
                print!("{}", explain(r));
                0
            }
            None => {
                let best = RULES
                    .iter()
                    .map(|r| (crate::template::metas::strsim(id, r.id), r.id))
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
