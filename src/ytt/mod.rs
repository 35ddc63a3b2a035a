//! ytt's standard library: the `@ytt:` modules.
//!
//! Modules that depend on nothing are built once per process and shared
//! (frozen modules are `Send + Sync`); `@ytt:data` depends on the data values
//! of the evaluation and is built per session.

use starlark::environment::FrozenModule;

use crate::template::eval::EvalSession;
use crate::template::{TemplateError, TemplateErrorKind};

pub mod args;
pub mod assert;
pub mod codec;
pub mod data;
pub mod ip;
pub mod library;
pub mod math;
pub mod object;
pub mod overlay;
pub mod regexp;
pub mod structs;
pub mod template;
pub mod url;
pub mod version;

/// ytt's standard library, for [`CompileCache::new`](crate::template::CompileCache::new).
pub struct YttStdLib;

impl crate::template::eval::StdLib for YttStdLib {
    fn module(&self, name: &str, session: &EvalSession) -> Result<FrozenModule, TemplateError> {
        module(name, session)
    }

    fn data_module(
        &self,
        values: &crate::yaml::Value,
        reads: Option<&std::sync::Arc<crate::template::runtime::values::ReadLog>>,
    ) -> Result<FrozenModule, String> {
        data::module(values, reads)
    }
}

/// The standard library as hosts pass it to a compile cache.
pub fn stdlib() -> std::sync::Arc<dyn crate::template::eval::StdLib> {
    std::sync::Arc::new(YttStdLib)
}

/// The `@ytt:<name>` module for a `load()`.
pub fn module(name: &str, session: &EvalSession) -> Result<FrozenModule, TemplateError> {
    let m = match name {
        "data" => return session.data_module(),
        "assert" => assert::module(),
        "struct" => structs::module(),
        "yaml" => codec::yaml_module(),
        "json" => codec::json_module(),
        "base64" => codec::base64_module(),
        "sha256" => codec::sha256_module(),
        "md5" => codec::md5_module(),
        "regexp" => regexp::regexp_module(),
        "math" => math::math_module(),
        "url" => url::url_module(),
        "ip" => ip::ip_module(),
        "version" => version::version_module(),
        "template" => template::template_module(),
        "overlay" => overlay::module(),
        "library" if session.libraries.is_some() => library::module(),
        "library" => {
            return Err(TemplateError::new(
                TemplateErrorKind::Load,
                "@ytt:library is only available when rendering templates (`yttcheck render`, `check --render`); data values, schemas and validations do not need it",
                None,
            ))
        }
        _ => {
            return Err(TemplateError::new(
                TemplateErrorKind::Load,
                format!("builtin ytt library does not have module '{name}'"),
                None,
            ))
        }
    };
    Ok(m.clone())
}

pub(crate) use crate::template::eval::static_module;
pub(crate) use crate::template::runtime::go::err;
