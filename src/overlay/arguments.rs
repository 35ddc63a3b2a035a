//! The arguments of the overlay annotations: `@overlay/replace via=,
//! or_add=`, `@overlay/insert before=, after=, via=`, `@overlay/assert via=`
//! and `@overlay/match`'s `expects=`, `missing_ok=`, `when=`, checked and
//! evaluated as ytt does, with its messages.

use super::*;

pub(super) struct ReplaceKw<'v> {
    pub(super) via: Option<SValue<'v>>,
    pub(super) or_add: bool,
}

pub(super) struct InsertKw<'v> {
    pub(super) before: bool,
    pub(super) after: bool,
    pub(super) via: Option<SValue<'v>>,
}

impl<'v> Op<'_, 'v, '_, '_> {
    pub(super) fn replace_kwargs(&mut self, meta: &Meta) -> Result<ReplaceKw<'v>, OverlayError> {
        let mut out = ReplaceKw {
            via: None,
            or_add: false,
        };
        if let Some(ann) = meta.annotation(REPLACE) {
            for (k, v) in &ann.kwargs {
                match k.as_str() {
                    "via" => {
                        let f = self.sval(v);
                        if !crate::template::runtime::go::is_callable(f) {
                            return Err(format!(
                                "Expected '{REPLACE}' annotation keyword argument 'via' to be function, but was {}",
                                go_type_name(f)
                            ).into());
                        }
                        out.via = Some(f);
                    }
                    "or_add" => {
                        let b = self.sval(v);
                        out.or_add = b.unpack_bool().ok_or_else(|| {
                            format!("expected starlark.Bool, but was {}", go_type_name(b))
                        })?;
                    }
                    other => {
                        return Err(format!(
                            "Unknown '{REPLACE}' annotation keyword argument '{other}'"
                        )
                        .into())
                    }
                }
            }
        }
        Ok(out)
    }

    pub(super) fn replace_value(
        &mut self,
        kw: &ReplaceKw<'v>,
        existing: Option<&Value>,
        new: &Value,
    ) -> Result<Value, OverlayError> {
        self.via_value(kw.via, existing, new)
    }

    pub(super) fn via_value(
        &mut self,
        via: Option<SValue<'v>>,
        existing: Option<&Value>,
        new: &Value,
    ) -> Result<Value, OverlayError> {
        match via {
            None => Ok(new.clone()),
            Some(f) => {
                let e = match existing {
                    Some(v) => self.yaml_arg(v),
                    None => SValue::new_none(),
                };
                let n = self.yaml_arg(new);
                self.call_value(f, &[e, n])
            }
        }
    }

    pub(super) fn insert_kwargs(&mut self, meta: &Meta) -> Result<InsertKw<'v>, OverlayError> {
        let Some(ann) = meta.annotation(INSERT) else {
            return Err(format!("Expected item to have '{INSERT}' annotation").into());
        };
        if ann.kwargs.is_empty() {
            return Err(format!(
                "Expected '{INSERT}' annotation to have at least one keyword argument (before=..., after=...)"
            ).into());
        }
        let ann: Annotation = ann.clone();
        let mut out = InsertKw {
            before: false,
            after: false,
            via: None,
        };
        for (k, v) in &ann.kwargs {
            let sv = self.sval(v);
            match k.as_str() {
                "before" => {
                    out.before = sv.unpack_bool().ok_or_else(|| {
                        format!("expected starlark.Bool, but was {}", go_type_name(sv))
                    })?
                }
                "after" => {
                    out.after = sv.unpack_bool().ok_or_else(|| {
                        format!("expected starlark.Bool, but was {}", go_type_name(sv))
                    })?
                }
                "via" => {
                    if !crate::template::runtime::go::is_callable(sv) {
                        return Err(format!(
                            "Expected '{INSERT}' annotation keyword argument 'via' to be function, but was {}",
                            go_type_name(sv)
                        ).into());
                    }
                    out.via = Some(sv);
                }
                other => {
                    return Err(
                        format!("Unknown '{INSERT}' annotation keyword argument '{other}'").into(),
                    )
                }
            }
        }
        Ok(out)
    }

    pub(super) fn assert_kwargs(
        &mut self,
        meta: &Meta,
    ) -> Result<Option<SValue<'v>>, OverlayError> {
        let mut via = None;
        if let Some(ann) = meta.annotation(ASSERT) {
            for (k, v) in &ann.kwargs {
                match k.as_str() {
                    "via" => via = Some(self.sval(v)),
                    other => {
                        return Err(format!(
                            "Unknown '{ASSERT}' annotation keyword argument '{other}'"
                        )
                        .into())
                    }
                }
            }
        }
        Ok(via)
    }

    pub(super) fn assert_check(
        &mut self,
        via: &Option<SValue<'v>>,
        existing: &Value,
        new: &Value,
    ) -> Result<(), OverlayError> {
        let Some(f) = via else {
            let (ok, desc) = compare::compare(existing, new);
            if !ok {
                return Err(format!("Expected objects to equal, but did not: {desc}").into());
            }
            return Ok(());
        };
        if !crate::template::runtime::go::is_callable(*f) {
            return Err(format!(
                "Expected '{ASSERT}' annotation keyword argument 'via' to be function, but was {}",
                go_type_name(*f)
            )
            .into());
        }
        let e = self.yaml_arg(existing);
        let n = self.yaml_arg(new);
        let r = self
            .ev
            .eval_function(*f, &[e, n], &[])
            .map_err(|e| crate::template::runtime::go::go_error_text(&e))?;
        if r.is_none() {
            return Ok(());
        }
        if let Some(b) = r.unpack_bool() {
            if !b {
                return Err("Expected via invocation to return true, but was false"
                    .to_string()
                    .into());
            }
            return Ok(());
        }
        let store = crate::template::runtime::current_store(self.ev);
        if let Ok(Value::Array(a)) = to_yaml(r, store) {
            if a.items.len() == 2 {
                if let (Value::Bool(ok), Value::Str(msg)) = (&a.items[0].value, &a.items[1].value) {
                    if !ok {
                        return Err(format!(
                            "Expected via invocation to return true, but was false with message: {msg}"
                        ).into());
                    }
                    return Ok(());
                }
            }
        }
        Err("Expected via invocation to return NoneType, Bool or Tuple(Bool,String), but returned neither of those".to_string().into())
    }
}

/// The keyword arguments of `@overlay/match` (`by=`, `expects=`,
/// `missing_ok=`, `when=`) or `@overlay/match-child-defaults` (the same but
/// `by=`), with what is not given taken from `defaults`.
pub(super) fn expects_kwargs(
    meta: &Meta,
    annotation: &str,
    defaults: &Expects,
) -> Result<(Option<crate::yaml::AnnValue>, Expects), OverlayError> {
    let mut by = None;
    let mut e = Expects::default();
    if let Some(ann) = meta.annotation(annotation) {
        for (k, v) in &ann.kwargs {
            match k.as_str() {
                "by" if annotation == MATCH => by = Some(v.clone()),
                "expects" => e.expects = Some(v.clone()),
                "missing_ok" => e.missing_ok = Some(v.clone()),
                "when" => e.when = Some(v.clone()),
                other => {
                    return Err(format!(
                        "Unknown '{annotation}' annotation keyword argument '{other}'"
                    )
                    .into())
                }
            }
        }
    }
    e.fill_defaults(defaults);
    Ok((by, e))
}
