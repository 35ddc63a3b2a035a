//! Keeping hostile templates from hanging, exhausting memory or crashing.
//!
//! Repository content is untrusted (pull requests from forks), and ytt itself
//! has no limits: `for i in range(1000000000)` or `x = x + x` thirty times
//! keeps it busy or eats the machine. Every evaluation here runs under:
//!
//! * starlark-rust's own step ("tick") budget and cancellation deadline,
//!   checked at loop back-edges and calls;
//! * a hook before every statement that checks the heap and notes where the
//!   evaluation is, so a budget error names the template line that spent it;
//! * size-checked repetition: `*` (and `*=`) is compiled to [`MUL_FUNCTION`],
//!   which refuses to build a string or list larger than [`MAX_REPEAT`] in one
//!   step (`"x" * 2000000000` would otherwise allocate gigabytes, or make
//!   starlark-rust panic, before any other check runs);
//! * a panic guard: should the interpreter still panic, the panic becomes an
//!   error with the template line, never a crash.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use starlark::codemap::{CodeMap, FileSpanRef, Span};
use starlark::environment::GlobalsBuilder;
use starlark::eval::{BeforeStmtFunc, BeforeStmtFuncDyn, Evaluator};
use starlark::starlark_module;
use starlark::values::list::ListRef;
use starlark::values::tuple::TupleRef;
use starlark::values::{Heap, Value};

use crate::yaml::Pos;

use super::error::{TemplateError, TemplateErrorKind};
use crate::template::compiler::blocks::Program;

pub use crate::template::compiler::limits::{too_deep, MAX_EXPRESSION_DEPTH, MUL_FUNCTION};

/// Largest string (bytes) or list/tuple (items) one repetition may build.
pub const MAX_REPEAT: usize = 1 << 26;

/// How often (in statements) the statement hook looks at the clock.
const CLOCK_EVERY: u64 = 1024;

const BUDGET_MARKER: &str = "yttcheck evaluation budget: ";

#[starlark_module]
pub fn guarded_operators(builder: &mut GlobalsBuilder) {
    /// `a * b` with a size check on repetition.
    fn __ytt_mul<'v>(a: Value<'v>, b: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        if let Some(size) = repeat_size(a, b).or_else(|| repeat_size(b, a)) {
            if size > MAX_REPEAT as u128 {
                return Err(starlark::Error::new_other(anyhow::anyhow!(
                    "{BUDGET_MARKER}repetition would build a value of {size} bytes or items (at most {MAX_REPEAT} are allowed)"
                )));
            }
        }
        a.mul(b, heap)
    }

    /// `a << b` as go-starlark shifts: a negative count, or one of 512 and
    /// more, is an error (starlark-rust would build any big int).
    fn __ytt_shl<'v>(a: Value<'v>, b: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        shift_count(b)?;
        a.left_shift(b, heap)
    }

    /// `a >> b`, with go-starlark's checks of the count.
    fn __ytt_shr<'v>(a: Value<'v>, b: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        shift_count(b)?;
        a.right_shift(b, heap)
    }

    /// go-starlark's `len`: a string's length in bytes of UTF-8 (`len("é")`
    /// is 2), everything else as starlark-rust counts it.
    fn len<'v>(#[starlark(require = pos)] x: Value<'v>) -> starlark::Result<i32> {
        match x.unpack_str() {
            Some(s) => Ok(i32::try_from(s.len()).unwrap_or(i32::MAX)),
            None => x.length(),
        }
    }
}

/// The function `a << b` is compiled to.
pub const SHL_FUNCTION: &str = "__ytt_shl";
/// The function `a >> b` is compiled to.
pub const SHR_FUNCTION: &str = "__ytt_shr";

/// go-starlark's bounds of a shift count.
fn shift_count(b: Value) -> starlark::Result<()> {
    if let Some(n) = b.unpack_i32() {
        if n < 0 {
            return Err(starlark::Error::new_other(anyhow::anyhow!(
                "negative shift count: {n}"
            )));
        }
        if n >= 512 {
            return Err(starlark::Error::new_other(anyhow::anyhow!(
                "shift count too large: {n}"
            )));
        }
    } else if b.get_type() == "int" {
        // a big int: too large, or too negative
        let n = b.to_str();
        return Err(starlark::Error::new_other(anyhow::anyhow!(
            "{}",
            if n.starts_with('-') {
                format!("negative shift count: {n}")
            } else {
                format!("shift count too large: {n}")
            }
        )));
    }
    Ok(())
}

/// The size of `seq * count` when `seq` is a string, list or tuple and `count`
/// an int.
fn repeat_size(seq: Value, count: Value) -> Option<u128> {
    let n = count.unpack_i32()?;
    let len = if let Some(s) = seq.unpack_str() {
        s.len()
    } else if let Some(l) = ListRef::from_value(seq) {
        l.len()
    } else if let Some(t) = TupleRef::from_value(seq) {
        t.len()
    } else {
        return None;
    };
    Some(len as u128 * n.max(0) as u128)
}

/// Where an evaluation is: the statement it last started.
#[derive(Clone, Default)]
pub struct Tracker {
    last: Rc<RefCell<LastStatement>>,
}

/// The last statement's span, and its file. The file is cloned only when it
/// changes (calls into loaded modules): the hook runs before every statement.
#[derive(Default)]
struct LastStatement {
    file: Option<CodeMap>,
    span: Option<Span>,
}

impl Tracker {
    /// The statement hook to install on an evaluator.
    pub fn hook<'a, 'e: 'a>(&self, max_heap: usize, deadline: Instant) -> BeforeStmtFunc<'a, 'e> {
        BeforeStmtFunc::from_dyn(Box::new(StatementHook {
            last: self.last.clone(),
            statements: 0,
            max_heap,
            deadline,
        }))
    }

    /// The file name and 0-based line of the last statement started.
    pub fn last(&self) -> Option<(String, u32)> {
        let last = self.last.borrow();
        let (file, span) = (last.file.as_ref()?, last.span?);
        Some((
            file.filename().to_string(),
            file.resolve_span(span).begin.line as u32,
        ))
    }
}

struct StatementHook {
    last: Rc<RefCell<LastStatement>>,
    statements: u64,
    max_heap: usize,
    deadline: Instant,
}

impl<'e> BeforeStmtFuncDyn<'e> for StatementHook {
    fn call<'v>(
        &mut self,
        span: FileSpanRef,
        _continued: bool,
        eval: &mut Evaluator<'v, '_, 'e>,
    ) -> starlark::Result<()> {
        {
            let mut last = self.last.borrow_mut();
            if last.file.as_ref().map(|f| f.id()) != Some(span.file.id()) {
                last.file = Some(span.file.clone());
            }
            last.span = Some(span.span);
        }
        self.statements += 1;
        if eval.heap().allocated_bytes() > self.max_heap {
            return Err(starlark::Error::new_other(anyhow::anyhow!(
                "{BUDGET_MARKER}memory: the evaluation holds more than {} MiB",
                self.max_heap >> 20
            )));
        }
        if self.statements.is_multiple_of(CLOCK_EVERY) && Instant::now() > self.deadline {
            return Err(starlark::Error::new_other(anyhow::anyhow!(
                "Evaluation cancelled"
            )));
        }
        Ok(())
    }
}

/// Which budget an evaluation error reports.
#[derive(Debug, Clone)]
pub enum Runaway {
    Steps(u64),
    Time(Duration),
    Memory(String),
    Panic(String),
}

/// The budget an error of this evaluator's own limits reports, if it is one.
/// A budget error of a loaded file comes back already rendered (as a load
/// error), so it is not taken for this file's.
pub fn runaway_kind(e: &starlark::Error, max_steps: u64, timeout: Duration) -> Option<Runaway> {
    let text = format!("{}", e.without_diagnostic());
    if text.starts_with("Execution duration limit of") {
        Some(Runaway::Steps(max_steps))
    } else if text.starts_with("Evaluation cancelled") {
        Some(Runaway::Time(timeout))
    } else if text.starts_with("Heap memory limit") {
        Some(Runaway::Memory(
            "the evaluation holds more memory than allowed".to_string(),
        ))
    } else {
        text.strip_prefix(BUDGET_MARKER)
            .map(|rest| Runaway::Memory(rest.lines().next().unwrap_or(rest).to_string()))
    }
}

/// ytt-style error text for a stopped evaluation, pointing at `at` (a file
/// name and 0-based line of a generated program).
pub fn runaway_error(
    limit: &Runaway,
    at: Option<(String, u32)>,
    programs: &HashMap<String, Arc<Program>>,
) -> TemplateError {
    let (what, hint) = match limit {
        Runaway::Steps(n) => (
            format!("evaluation stopped after {n} steps (its step budget): is there an endless or very long loop?"),
            "if this evaluation is legitimately this large, raise the budget with --max-steps",
        ),
        Runaway::Time(d) => (
            format!("evaluation stopped after {}s (its time budget): is there an endless or very long loop?", d.as_secs_f64()),
            "if this evaluation is legitimately this slow, raise the budget with --timeout",
        ),
        Runaway::Memory(m) => (
            format!("evaluation stopped: {m}"),
            "a value grows without bound here (repetition, concatenation in a loop, deep recursion)",
        ),
        Runaway::Panic(m) => (
            format!("evaluation failed inside the Starlark interpreter: {m}"),
            "this is a yttcheck bug worth reporting, with the template that triggers it",
        ),
    };
    let pos: Option<Pos> = at.and_then(|(file, line)| {
        programs
            .get(&file)
            .and_then(|p| p.line_map.get(line as usize).cloned().flatten())
    });
    let mut message = format!("\n- {what}");
    if let Some(p) = &pos {
        message.push_str(&format!(
            "\n    while evaluating\n      {} | {}",
            p.compact(),
            p.line_text().unwrap_or("")
        ));
    }
    message.push_str(&format!("\n\n    hint: {hint}"));
    TemplateError::new(TemplateErrorKind::Budget, message, pos)
}

thread_local! {
    /// Set while a guarded evaluation runs on this thread: its panics are
    /// caught and turned into errors, so the default hook must not print them.
    static GUARDED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f`, turning a panic into `Err(message)`.
pub fn catch_panics<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    install_panic_hook();
    let was = GUARDED.with(|g| g.replace(Some(String::new())));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    let message = GUARDED.with(|g| g.replace(was)).unwrap_or_default();
    result.map_err(|_| {
        if message.is_empty() {
            "panic".to_string()
        } else {
            message
        }
    })
}

fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let guarded = GUARDED.with(|g| {
                let mut g = g.borrow_mut();
                match g.as_mut() {
                    Some(slot) => {
                        *slot = match info.payload().downcast_ref::<&str>() {
                            Some(s) => s.to_string(),
                            None => info
                                .payload()
                                .downcast_ref::<String>()
                                .cloned()
                                .unwrap_or_else(|| "panic".to_string()),
                        };
                        true
                    }
                    None => false,
                }
            });
            if !guarded {
                previous(info);
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_errors() {
        let r: Result<(), String> = catch_panics(|| panic!("boom {}", 1));
        assert_eq!(r.unwrap_err(), "boom 1");
        assert_eq!(catch_panics(|| 5).unwrap(), 5);
    }
}
