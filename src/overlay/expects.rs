//! `expects=`, `missing_ok=` and `when=` of `@overlay/match`: how many nodes
//! must match.

use starlark::values::list::ListRef;
use starlark::values::Value as SValue;

use crate::template::runtime::go::go_type_name;
use crate::yaml::{AnnValue, Pos};

use super::Op;

/// The match-count expectation of a node (unset fields fall back to
/// `@overlay/match-child-defaults` of ancestors).
#[derive(Clone, Default, Debug)]
pub struct Expects {
    pub expects: Option<AnnValue>,
    pub missing_ok: Option<AnnValue>,
    pub when: Option<AnnValue>,
}

/// A failed expectation; `conditional` when it came from `when=` (the
/// operation is then skipped instead of failing).
pub struct NumMatchError {
    pub message: String,
    pub conditional: bool,
}

impl NumMatchError {
    fn plain(message: impl Into<String>) -> Self {
        NumMatchError {
            message: message.into(),
            conditional: false,
        }
    }
}

enum Check<'v> {
    Int(i64),
    Value(SValue<'v>),
}

impl Expects {
    pub fn fill_defaults(&mut self, defaults: &Expects) {
        if self.expects.is_none() {
            self.expects = defaults.expects.clone();
        }
        if self.missing_ok.is_none() {
            self.missing_ok = defaults.missing_ok.clone();
        }
        if self.when.is_none() {
            self.when = defaults.when.clone();
        }
    }

    pub fn check<'v>(
        &self,
        matches: &[Pos],
        op: &mut Op<'_, 'v, '_, '_>,
    ) -> Result<(), NumMatchError> {
        let both = |a: &str, b: &str| {
            NumMatchError::plain(format!(
                "Expected only one of keyword arguments ('{a}', '{b}') specified"
            ))
        };
        match (&self.expects, &self.missing_ok, &self.when) {
            (Some(_), Some(_), _) => Err(both("missing_ok", "expects")),
            (_, Some(_), Some(_)) => Err(both("missing_ok", "when")),
            (Some(_), _, Some(_)) => Err(both("when", "expects")),
            (None, Some(m), None) => {
                let v = op.sval(m);
                match v.unpack_bool() {
                    Some(true) => {
                        // any of [0, 1]: none is fine, else exactly one
                        if matches.is_empty() {
                            return Ok(());
                        }
                        self.check_int(1, matches)
                    }
                    Some(false) => self.check_int(1, matches),
                    None => Err(NumMatchError::plain(
                        "Expected keyword argument 'missing_ok' to be a boolean",
                    )),
                }
            }
            (None, None, Some(w)) => {
                let v = op.sval(w);
                self.check_value(Check::Value(v), "when", matches, op)
            }
            (Some(e), None, None) => {
                let v = op.sval(e);
                self.check_value(Check::Value(v), "expects", matches, op)
            }
            (None, None, None) => self.check_value(Check::Int(1), "", matches, op),
        }
    }

    fn check_value<'v>(
        &self,
        v: Check<'v>,
        kwarg: &str,
        matches: &[Pos],
        op: &mut Op<'_, 'v, '_, '_>,
    ) -> Result<(), NumMatchError> {
        let v = match v {
            Check::Int(i) => return self.check_int(i, matches),
            Check::Value(v) => v,
        };
        if v.get_type() == "int" {
            let i = v.unpack_i32().map(i64::from).unwrap_or(i64::MAX);
            return self.check_int(i, matches);
        }
        if let Some(s) = v.unpack_str() {
            if let Some(n) = s.strip_suffix('+') {
                let Ok(n) = n.parse::<i64>() else {
                    return Err(NumMatchError::plain(format!(
                        "Expected '{s}' to be in format 'i+' where i is an integer"
                    )));
                };
                if (matches.len() as i64) < n {
                    return Err(NumMatchError {
                        message: format!(
                            "Expected number of matched nodes to be >= {n}, but was {}{}",
                            matches.len(),
                            format_positions(matches)
                        ),
                        conditional: self.when.is_some(),
                    });
                }
                return Ok(());
            }
            return Err(NumMatchError::plain(format!(
                "Expected '{s}' to be in format 'i+' where i is an integer"
            )));
        }
        if let Some(list) = ListRef::from_value(v) {
            let mut last = Ok(());
            for item in list.iter() {
                last = self.check_value(Check::Value(item), kwarg, matches, op);
                if last.is_ok() {
                    return Ok(());
                }
            }
            return last;
        }
        if crate::template::runtime::go::is_callable(v) {
            let n = op.ev.heap().alloc(matches.len() as i64);
            let r = op.ev.eval_function(v, &[n], &[]).map_err(|e| {
                NumMatchError::plain(crate::template::runtime::go::go_error_text(&e))
            })?;
            return match r.unpack_bool() {
                Some(true) => Ok(()),
                Some(false) => Err(NumMatchError {
                    message: "Expectation of number of matched nodes failed".to_string(),
                    conditional: self.when.is_some(),
                }),
                None => Err(NumMatchError::plain(format!(
                    "Expected keyword argument '{kwarg}' to have a function that returns a boolean"
                ))),
            };
        }
        Err(NumMatchError::plain(format!(
            "Expected 'overlay/match' annotation keyword argument '{kwarg}' to be either int, string or function, but was {}",
            go_type_name(v)
        )))
    }

    fn check_int(&self, want: i64, matches: &[Pos]) -> Result<(), NumMatchError> {
        if want != matches.len() as i64 {
            return Err(NumMatchError {
                message: format!(
                    "Expected number of matched nodes to be {want}, but was {}{}",
                    matches.len(),
                    format_positions(matches)
                ),
                conditional: self.when.is_some(),
            });
        }
        Ok(())
    }
}

fn format_positions(pos: &[Pos]) -> String {
    if pos.is_empty() {
        return String::new();
    }
    let mut lines: Vec<String> = pos.iter().map(|p| p.compact()).collect();
    lines.sort();
    format!(" (lines: {})", lines.join(", "))
}
