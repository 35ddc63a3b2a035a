//! Comments attached to nodes as ytt attaches them: a comment belongs to
//! the last node on its line, else to the first node on a following line
//! of the same document, else to the next document.

use super::node::{Comment, Document, Meta, Value};

/// Node positions of one document in the order ytt walks them.
enum Slot {
    Doc,
    Path(Vec<usize>),
}

fn collect_lines(doc: &Document, include_doc: bool) -> Vec<(u32, Slot)> {
    let mut out = Vec::new();
    if include_doc && doc.pos.is_known() {
        out.push((doc.pos.line(), Slot::Doc));
    }
    let mut path = Vec::new();
    collect_value_lines(&doc.value, &mut path, &mut out);
    out
}

fn collect_value_lines(v: &Value, path: &mut Vec<usize>, out: &mut Vec<(u32, Slot)>) {
    match v {
        Value::Map(m) => {
            for (i, item) in m.items.iter().enumerate() {
                path.push(i);
                if item.pos.is_known() {
                    out.push((item.pos.line(), Slot::Path(path.clone())));
                }
                collect_value_lines(&item.value, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, item) in a.items.iter().enumerate() {
                path.push(i);
                if item.pos.is_known() {
                    out.push((item.pos.line(), Slot::Path(path.clone())));
                }
                collect_value_lines(&item.value, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn meta_at<'a>(doc: &'a mut Document, slot: &Slot) -> &'a mut Meta {
    match slot {
        Slot::Doc => &mut doc.meta,
        Slot::Path(path) => {
            let mut v = &mut doc.value;
            let last = path.len() - 1;
            for (depth, &i) in path.iter().enumerate() {
                match v {
                    Value::Map(m) => {
                        if depth == last {
                            return &mut m.items[i].meta;
                        }
                        v = &mut m.items[i].value;
                    }
                    Value::Array(a) => {
                        if depth == last {
                            return &mut a.items[i].meta;
                        }
                        v = &mut a.items[i].value;
                    }
                    _ => unreachable!("paths only lead through collections"),
                }
            }
            unreachable!("empty path")
        }
    }
}

/// Attaches comments to the nodes of `doc` by line; returns the comments that
/// found no node (they go to the next document).
pub(super) fn assign_comments(
    doc: &mut Document,
    comments: Vec<Comment>,
    doc_unknown: bool,
) -> Vec<Comment> {
    if comments.is_empty() {
        return Vec::new();
    }
    let slots = collect_lines(doc, !doc_unknown);
    // line -> indices into slots (in walk order)
    let mut by_line: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
    for (i, (line, _)) in slots.iter().enumerate() {
        by_line.entry(*line).or_default().push(i);
    }
    let mut unassigned = Vec::new();
    for comment in comments {
        let line = comment.pos.line();
        match by_line.range(line..).next() {
            Some((&node_line, idxs)) => {
                let idx = if node_line == line {
                    *idxs.last().unwrap()
                } else {
                    idxs[0]
                };
                let slot = &slots[idx].1;
                meta_at(doc, slot).comments.push(comment);
            }
            None => unassigned.push(comment),
        }
    }
    unassigned
}

/// The root collection of the first document takes the document's line once it
/// is known (ytt fixes the first document's position after assignment).
pub(super) fn fix_root_position(doc: &mut Document) {
    let pos = doc.pos.clone();
    match &mut doc.value {
        Value::Map(m) if !m.pos.is_known() => m.pos = pos,
        Value::Array(a) if !a.pos.is_known() => a.pos = pos,
        _ => {}
    }
}
