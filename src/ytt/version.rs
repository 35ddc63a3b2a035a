//! `@ytt:version`: `require_at_least` of a semantic version.

use std::sync::OnceLock;

use starlark::environment::{FrozenModule, GlobalsBuilder};
use starlark::starlark_module;
use starlark::values::tuple::UnpackTuple;
use starlark::values::Value;

use super::args::{exactly, str_of};
use super::{err, static_module};

// ------------------------------------------------------------------ version

/// The ytt version yttcheck is compatible with (for `version.require_at_least`).
pub const YTT_COMPAT_VERSION: (u64, u64, u64) = (0, 49, 0);

fn parse_semver(s: &str) -> Option<(u64, u64, u64)> {
    let core = s.split(['-', '+']).next()?;
    let mut parts = core.split('.');
    let a = parts.next()?.parse().ok()?;
    let b = parts.next()?.parse().ok()?;
    let c = parts.next()?.parse().ok()?;
    if parts.next().is_some() {
        return None;
    }
    Some((a, b, c))
}

#[starlark_module]
fn version_members(builder: &mut GlobalsBuilder) {
    fn require_at_least<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
    ) -> starlark::Result<Value<'v>> {
        exactly("version.require_at_least", &args, 1)?;
        let s = str_of("version.require_at_least", args.items[0])?;
        let Some(want) = parse_semver(s) else {
            return Err(err(format!(
                "version.require_at_least: version string '{s}' must be a valid semver"
            )));
        };
        let have = YTT_COMPAT_VERSION;
        if have < want {
            return Err(err(format!(
                "version.require_at_least: ytt version '{}.{}.{}' does not meet the minimum required version '{s}'",
                have.0, have.1, have.2
            )));
        }
        Ok(Value::new_none())
    }
}

pub fn version_module() -> &'static FrozenModule {
    static CELL: OnceLock<FrozenModule> = OnceLock::new();
    static_module(&CELL, |b| b.namespace("version", version_members))
}
