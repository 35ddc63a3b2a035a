//! Evaluation budgets (yttcheck's extension: ytt has none, so a runaway
//! template would hang it), from `.yttcheck.yml`'s `budget:` and the flags.

use serde::{Deserialize, Serialize};

use super::UsageError;
use crate::template::EvalOpts;
use crate::workspace;

/// The largest timeout (`--timeout`, `budget: timeout_seconds`): a day. A
/// number beyond what a duration holds would otherwise end the process.
pub const MAX_TIMEOUT_SECONDS: f64 = 86_400.0;

/// The largest step budget (`--max-steps`): a trillion (hours of evaluation).
pub const MAX_STEPS_LIMIT: u64 = 1_000_000_000_000;

/// Budgets asked for; what is not given keeps its default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// Most Starlark steps one file evaluation may take.
    pub max_steps: Option<u64>,
    /// Most seconds one file evaluation may take.
    pub timeout: Option<f64>,
}

impl Budget {
    /// Applies the budgets given to evaluation options; the message names
    /// the flag (`--max-steps`), which a caller may rename.
    pub fn apply(&self, opts: &mut EvalOpts) -> Result<(), String> {
        if let Some(n) = self.max_steps {
            if n == 0 {
                return Err("--max-steps must be at least 1".to_string());
            }
            if n > MAX_STEPS_LIMIT {
                return Err(format!(
                    "--max-steps must be at most {MAX_STEPS_LIMIT} (got {n})"
                ));
            }
            opts.max_steps = n;
        }
        if let Some(t) = self.timeout {
            if !(t.is_finite() && t > 0.0 && t <= MAX_TIMEOUT_SECONDS) {
                return Err(format!(
                    "--timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT_SECONDS} (one day), got {t}"
                ));
            }
            opts.timeout = std::time::Duration::from_secs_f64(t);
        }
        Ok(())
    }
}

/// Evaluation options: the configuration's `budget:`, then the request's
/// budgets where given.
pub fn eval_opts(
    asked: &Budget,
    config: Option<&workspace::config::BudgetSpec>,
) -> Result<EvalOpts, UsageError> {
    let mut eval = EvalOpts::default();
    if let Some(b) = config {
        let from_config = Budget {
            max_steps: b.max_steps,
            timeout: b.timeout_seconds,
        };
        from_config.apply(&mut eval).map_err(|e| {
            UsageError(format!(
                "{}: budget: {}",
                workspace::CONFIG_FILE,
                e.trim_start_matches("--")
            ))
        })?;
    }
    asked.apply(&mut eval).map_err(UsageError)?;
    Ok(eval)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_out_of_range_are_refused_and_others_applied() {
        let mut o = EvalOpts::default();
        let zero = Budget {
            max_steps: Some(0),
            timeout: None,
        };
        assert!(zero.apply(&mut o).unwrap_err().contains("at least 1"));
        let huge = Budget {
            max_steps: Some(MAX_STEPS_LIMIT + 1),
            timeout: None,
        };
        assert!(huge.apply(&mut o).unwrap_err().contains("at most"));
        for t in [
            0.0,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            MAX_TIMEOUT_SECONDS * 2.0,
        ] {
            let b = Budget {
                max_steps: None,
                timeout: Some(t),
            };
            assert!(b.apply(&mut o).is_err(), "{t}");
        }
        let ok = Budget {
            max_steps: Some(7),
            timeout: Some(1.5),
        };
        ok.apply(&mut o).unwrap();
        assert_eq!(o.max_steps, 7);
        assert_eq!(o.timeout, std::time::Duration::from_millis(1500));
    }
}
