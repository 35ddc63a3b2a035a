//! The document level of an overlay: which documents of the left doc sets
//! a right document matches, and merging, replacing, removing, inserting or
//! asserting them; and [`overlay_document`], the exact-match overlay of one
//! data values (or schema) document onto another.

use super::*;

impl<'v> Op<'_, 'v, '_, '_> {
    /// Overlays a document set onto document sets (ytt keeps several left sets
    /// to remember which file a document came from).
    pub fn apply_docsets(
        &mut self,
        left: &mut [DocSet],
        right: &DocSet,
        defaults: &Expects,
    ) -> Result<(), OverlayError> {
        for doc in &right.docs {
            let r = which_op(&doc.meta).and_then(|op| match op {
                MERGE => self.merge_document(left, doc, defaults),
                REMOVE => self.remove_document(left, doc, defaults),
                REPLACE => self.replace_document(left, doc, defaults),
                INSERT => self.insert_document(left, doc, defaults),
                APPEND => {
                    if let Some(last) = left.last_mut() {
                        last.docs.push(doc.clone());
                    }
                    Ok(())
                }
                ASSERT => self.assert_document(left, doc, defaults),
                op => Err(format!("Overlay op {op} is not supported on document").into()),
            });
            if let Err(e) = r {
                return Err(e.within("Document".to_string(), &doc.pos));
            }
        }
        Ok(())
    }

    pub(super) fn doc_indexes(
        &mut self,
        left: &[DocSet],
        doc: &Document,
        defaults: &Expects,
    ) -> Result<Option<Vec<(usize, usize)>>, OverlayError> {
        let kwargs_empty = doc
            .meta
            .annotation(MATCH)
            .map(|a| a.kwargs.is_empty())
            .unwrap_or(true);
        if !self.exact_match && kwargs_empty {
            return Err(format!(
                "Expected '{MATCH}' annotation to have at least one keyword argument (by=..., expects=...)"
            ).into());
        }
        let (by, e) = self.match_kwargs(&doc.meta, defaults)?;
        if self.exact_match {
            if left.len() != 1 && left.first().map(|d| d.docs.len()) != Some(1) {
                return Err(
                    "Expected to find exactly one left document when merging exactly two documents"
                        .to_string()
                        .into(),
                );
            }
            let pos = left[0]
                .docs
                .first()
                .map(|d| d.pos.clone())
                .unwrap_or_default();
            return Ok(if self.check(&e, &[pos])? {
                Some(vec![(0, 0)])
            } else {
                None
            });
        }
        let Some(by) = by else {
            return Err(format!(
                "Expected '{MATCH}' annotation keyword argument 'by'  to be specified"
            )
            .into());
        };
        let f = self.matcher_fn(&by, true)?;
        let mut right = None;
        let mut idxs = Vec::new();
        let mut matches = Vec::new();
        let mut combined = 0i64;
        for (i, ds) in left.iter().enumerate() {
            for (j, d) in ds.docs.iter().enumerate() {
                let first = matchers::First::Index(combined);
                if self.matches(f, first, &d.value, &doc.value, &mut right)? {
                    idxs.push((i, j));
                    matches.push(d.pos.clone());
                }
                combined += 1;
            }
        }
        Ok(if self.check(&e, &matches)? {
            Some(idxs)
        } else {
            None
        })
    }

    pub(super) fn merge_document(
        &mut self,
        left: &mut [DocSet],
        doc: &Document,
        defaults: &Expects,
    ) -> Result<(), OverlayError> {
        let child = self.child_defaults(&doc.meta, defaults)?;
        let Some(idxs) = self.doc_indexes(left, doc, defaults)? else {
            return Ok(());
        };
        for (i, j) in idxs {
            let mut replace = true;
            if !left[i].docs[j].value.is_null() {
                replace = self.apply(&mut left[i].docs[j].value, &doc.value, &child)?;
            }
            if replace {
                left[i].docs[j].value = doc.value.clone();
            }
        }
        Ok(())
    }

    pub(super) fn remove_document(
        &mut self,
        left: &mut [DocSet],
        doc: &Document,
        defaults: &Expects,
    ) -> Result<(), OverlayError> {
        let Some(idxs) = self.doc_indexes(left, doc, defaults)? else {
            return Ok(());
        };
        for (i, ds) in left.iter_mut().enumerate() {
            let mut j = 0;
            ds.docs.retain(|_| {
                let keep = !idxs.contains(&(i, j));
                j += 1;
                keep
            });
        }
        Ok(())
    }

    pub(super) fn replace_document(
        &mut self,
        left: &mut [DocSet],
        doc: &Document,
        defaults: &Expects,
    ) -> Result<(), OverlayError> {
        let via = self.replace_kwargs(&doc.meta)?;
        let Some(idxs) = self.doc_indexes(left, doc, defaults)? else {
            return Ok(());
        };
        for &(i, j) in &idxs {
            let v = self.replace_value(&via, Some(&left[i].docs[j].value), &doc.value)?;
            left[i].docs[j] = doc.with_value(v);
        }
        if idxs.is_empty() && via.or_add {
            let v = self.replace_value(&via, None, &doc.value)?;
            let n = doc.with_value(v);
            if let Some(first) = left.first_mut() {
                first.docs.push(n);
            }
        }
        Ok(())
    }

    pub(super) fn insert_document(
        &mut self,
        left: &mut [DocSet],
        doc: &Document,
        defaults: &Expects,
    ) -> Result<(), OverlayError> {
        let Some(idxs) = self.doc_indexes(left, doc, defaults)? else {
            return Ok(());
        };
        let ins = self.insert_kwargs(&doc.meta)?;
        for (i, ds) in left.iter_mut().enumerate() {
            let docs = std::mem::take(&mut ds.docs);
            ds.docs = self.with_inserted(docs, |j| idxs.contains(&(i, j)), doc, &ins)?;
        }
        Ok(())
    }

    pub(super) fn assert_document(
        &mut self,
        left: &mut [DocSet],
        doc: &Document,
        defaults: &Expects,
    ) -> Result<(), OverlayError> {
        let child = self.child_defaults(&doc.meta, defaults)?;
        let via = self.assert_kwargs(&doc.meta)?;
        let Some(idxs) = self.doc_indexes(left, doc, defaults)? else {
            return Ok(());
        };
        for (i, j) in idxs {
            self.assert_check(&via, &left[i].docs[j].value, &doc.value)?;
            self.apply(&mut left[i].docs[j].value, &doc.value, &child)?;
        }
        Ok(())
    }

    // ------------------------------------------------------------------ replace / insert / assert
}

/// Overlays one data values (or schema) document onto another, as ytt's data
/// values pre-processing does (exact document match), and strips overlay
/// annotations from the result.
pub fn overlay_document(
    ev: &mut Evaluator,
    left: Document,
    right: Document,
) -> Result<Document, OverlayError> {
    let mut sets = [DocSet {
        docs: vec![left],
        pos: Pos::unknown(),
        meta: Meta::default(),
    }];
    let right_set = DocSet {
        docs: vec![right],
        pos: Pos::unknown(),
        meta: Meta::default(),
    };
    let mut op = Op::new(ev, true);
    op.apply_docsets(&mut sets, &right_set, &Expects::default())?;
    let [set] = sets;
    let mut doc = set.docs.into_iter().next().unwrap_or_default();
    remove_overlay_annotations(&mut doc.value);
    doc.meta
        .annotations
        .retain(|a| !a.name.starts_with("overlay/"));
    Ok(doc)
}
