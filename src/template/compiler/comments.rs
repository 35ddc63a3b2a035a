//! What each comment of a template says, read once before compiling (the
//! compiler asks about most nodes twice), and whether a file holds any
//! templating at all.

use std::collections::HashMap;

use crate::yaml::{DocSet, Meta, Pos, Value};

use super::literal;
use super::metas::{self, MetaError, MetaKind};
use super::nodes::CompileOpts;
use super::nodes::TEXT_TEMPLATED;

pub(super) fn read_all(meta: &Meta, pos: &Pos, opts: &CompileOpts) -> Vec<Read> {
    meta.comments
        .iter()
        .map(|c| Read {
            kind: metas::classify(c, pos, opts.ignore_unknown_comments),
            literal: None,
        })
        .collect()
}

/// Whether code mentions `True`, `False` or `None` (as names, not inside
/// longer ones).
pub(super) fn mentions_constants(code: &str) -> bool {
    ["True", "False", "None"].iter().any(|word| {
        code.match_indices(word).any(|(i, _)| {
            let ident = |c: char| c.is_alphanumeric() || c == '_';
            !code[..i].chars().next_back().is_some_and(ident)
                && !code[i + word.len()..].chars().next().is_some_and(ident)
        })
    })
}

/// What a comment says, read before compiling.
#[derive(Clone)]
pub(super) struct Read {
    pub(super) kind: Result<MetaKind, MetaError>,
    /// An annotation's arguments, evaluated when they are all literals.
    pub(super) literal: Option<literal::Arguments>,
}

/// Every comment of a template, classified once (the compiler asks about
/// most nodes twice: whether they are static, then for their code), with
/// the literal arguments of all its annotations evaluated in one parse.
#[derive(Default)]
pub(super) struct Comments {
    by_meta: HashMap<*const Meta, Vec<Read>>,
}

impl Comments {
    pub(super) fn read(ds: &DocSet, opts: &CompileOpts) -> Comments {
        let mut c = Comments::default();
        c.visit(&ds.meta, &ds.pos, opts);
        for d in &ds.docs {
            c.visit(&d.meta, &d.pos, opts);
            c.visit_value(&d.value, opts);
        }
        // code that mentions `True`, `False` or `None` could bind them: then
        // a literal argument naming one is not the constant
        let mut constants_free = true;
        let mut annotations: Vec<(*const Meta, usize)> = Vec::new();
        let values = {
            let mut contents: Vec<&str> = Vec::new();
            for (meta, reads) in &c.by_meta {
                for (i, r) in reads.iter().enumerate() {
                    match &r.kind {
                        Ok(MetaKind::Code(code) | MetaKind::Value(code)) => {
                            constants_free &= !mentions_constants(code);
                        }
                        Ok(MetaKind::Annotation { name, .. }) if name == TEXT_TEMPLATED => {
                            constants_free = false;
                        }
                        Ok(MetaKind::Annotation { content, .. }) => {
                            annotations.push((*meta, i));
                            contents.push(content);
                        }
                        _ => {}
                    }
                }
            }
            literal::arguments_of_each(&contents, constants_free)
        };
        for ((meta, i), v) in annotations.into_iter().zip(values) {
            if let Some(reads) = c.by_meta.get_mut(&meta) {
                reads[i].literal = v;
            }
        }
        c
    }

    /// The comments of `meta` (of a node at `pos`), read.
    pub(super) fn of(
        &self,
        meta: &Meta,
        pos: &Pos,
        opts: &CompileOpts,
    ) -> std::borrow::Cow<'_, [Read]> {
        match self.by_meta.get(&(meta as *const Meta)) {
            Some(reads) => std::borrow::Cow::Borrowed(reads),
            // (every meta of the template was read; a new one would be too)
            None => std::borrow::Cow::Owned(read_all(meta, pos, opts)),
        }
    }

    fn visit(&mut self, meta: &Meta, pos: &Pos, opts: &CompileOpts) {
        if meta.comments.is_empty() {
            return;
        }
        self.by_meta
            .insert(meta as *const Meta, read_all(meta, pos, opts));
    }

    fn visit_value(&mut self, v: &Value, opts: &CompileOpts) {
        match v {
            Value::Map(m) => {
                self.visit(&m.meta, &m.pos, opts);
                for i in &m.items {
                    self.visit(&i.meta, &i.pos, opts);
                    self.visit_value(&i.value, opts);
                }
            }
            Value::Array(a) => {
                self.visit(&a.meta, &a.pos, opts);
                for i in &a.items {
                    self.visit(&i.meta, &i.pos, opts);
                    self.visit_value(&i.value, opts);
                }
            }
            _ => {}
        }
    }
}

/// Whether any node of a parsed file carries templating (ytt treats files
/// without any as plain YAML).
pub fn has_templating(ds: &DocSet) -> bool {
    fn meta_has(m: &Meta) -> bool {
        m.comments.iter().any(metas::is_templating)
    }
    fn value_has(v: &Value) -> bool {
        match v {
            Value::Map(m) => {
                meta_has(&m.meta)
                    || m.items
                        .iter()
                        .any(|i| meta_has(&i.meta) || value_has(&i.value))
            }
            Value::Array(a) => {
                meta_has(&a.meta)
                    || a.items
                        .iter()
                        .any(|i| meta_has(&i.meta) || value_has(&i.value))
            }
            _ => false,
        }
    }
    meta_has(&ds.meta)
        || ds
            .docs
            .iter()
            .any(|d| meta_has(&d.meta) || value_has(&d.value))
}
