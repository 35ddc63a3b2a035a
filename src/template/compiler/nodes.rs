//! The compiled program's model, shared by the compiler that writes it and
//! the runtime that runs it: the node table (what each tag of the program
//! stands for), the lines of ytt-dialect code with their template
//! positions, and the names of the instructions the code calls.

use std::sync::Arc;

use crate::yaml::{Annotation, Pos, Value};

pub type NodeTag = u32;
pub const ROOT_TAG: NodeTag = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    DocSet,
    Document,
    Map,
    MapItem,
    Array,
    ArrayItem,
}

/// A node of the template, as the runtime copies it when the program reaches
/// its `start_node`.
#[derive(Debug, Clone)]
pub struct NodeTemplate {
    pub kind: NodeKind,
    pub parent: NodeTag,
    pub pos: Pos,
    /// Map item key.
    pub key: Value,
    /// The scalar written in the template (for items and documents).
    pub scalar: Value,
    /// Annotations declared on the node (name, position of the comment).
    pub annotations: Vec<(String, Pos)>,
    /// The node's annotations when all their arguments are literals
    /// ([`super::literal`]): evaluated here, given to the node by
    /// `start_node` with no statement of their own.
    pub literal_annotations: Vec<Annotation>,
    pub injected: bool,
    /// Placed by `start_node` alone: the statements after it build its
    /// value. In a `__ytt_node_run` such a node is started, not set.
    pub opened: bool,
}

#[derive(Debug, Default)]
pub struct NodeTable {
    pub nodes: Vec<NodeTemplate>,
}

impl NodeTable {
    pub fn get(&self, tag: NodeTag) -> Option<&NodeTemplate> {
        self.nodes.get(tag as usize)
    }

    pub fn parent(&self, tag: NodeTag) -> NodeTag {
        self.get(tag).map(|n| n.parent).unwrap_or(ROOT_TAG)
    }

    /// Tags from the root down to (excluding) `tag`: ytt's definition, which
    /// the tests hold [`Self::common_parent`] to.
    #[cfg(test)]
    pub fn ancestors(&self, tag: NodeTag) -> Vec<NodeTag> {
        let mut out = Vec::new();
        let mut t = tag;
        loop {
            let p = self.parent(t);
            out.push(p);
            if p == ROOT_TAG {
                break;
            }
            t = p;
        }
        out.reverse();
        out
    }

    /// ytt's `FindCommonParentTag`: the last tag shared by the root paths
    /// `[root, .., curr]` and `[root, .., parent(new)]`, which is the lowest
    /// common ancestor of `curr` and `parent(new)`. Found by depth, with no
    /// list of ancestors: it runs for every node a template places.
    pub fn common_parent(&self, curr: NodeTag, new: NodeTag) -> NodeTag {
        if curr == ROOT_TAG {
            return ROOT_TAG;
        }
        let depth = |mut t: NodeTag| {
            let mut d = 0usize;
            while t != ROOT_TAG {
                t = self.parent(t);
                d += 1;
            }
            d
        };
        let (mut a, mut b) = (curr, self.parent(new));
        let (mut da, mut db) = (depth(a), depth(b));
        while da > db {
            a = self.parent(a);
            da -= 1;
        }
        while db > da {
            b = self.parent(b);
            db -= 1;
        }
        while a != b {
            a = self.parent(a);
            b = self.parent(b);
        }
        a
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// Code written by the user in `#@` comments.
    User,
    /// An instruction; `node` when it builds nodes (`start_node`/`set_node`),
    /// which makes an enclosing `def` a fragment function.
    Instr { node: bool },
    /// The `end` implied by `#@for/end` and friends.
    ImpliedEnd,
    /// A text-template instruction that appends to the open text context,
    /// which makes an enclosing `def` a text fragment function.
    Text,
}

#[derive(Debug, Clone)]
pub struct CodeLine {
    pub text: String,
    pub kind: LineKind,
    /// Template position shown when an error points at this line.
    pub src: Option<Pos>,
}

/// A compiled template: ytt-dialect code plus the node table.
#[derive(Debug)]
pub struct TemplateCode {
    pub name: String,
    pub lines: Vec<CodeLine>,
    pub nodes: Arc<NodeTable>,
}

#[derive(Debug, Clone, Default)]
pub struct CompileOpts {
    pub ignore_unknown_comments: bool,
}

#[derive(Debug, Clone)]
pub struct CompileError {
    pub pos: Pos,
    pub message: String,
}

pub const START_NODE: &str = "__ytt_start_node";
/// `__ytt_node(tag)`: `start_node` and `set_node` of a node that carries
/// no code, annotation or expression, in one statement; its value (a whole
/// subtree when nothing below it is templated either) is copied from the
/// table.
pub const NODE: &str = "__ytt_node";
/// `__ytt_node_run(first, last)`: each tag from `first` to `last` in turn,
/// `__ytt_node` of a static one and `start_node` of an opened one (whose
/// children follow), for consecutive nodes none of which can fail (the
/// static parts of a schema between its computed annotations, and the maps
/// and items that hold them), in one statement.
pub const NODE_RUN: &str = "__ytt_node_run";
pub const SET_NODE: &str = "__ytt_set_node";
pub const SET_KEY: &str = "__ytt_set_key";
pub const ANNOTATION: &str = "__ytt_ann";
pub const START_CTX: &str = "__ytt_start_ctx";
pub const END_CTX: &str = "__ytt_end_ctx";
pub const NODES_GLOBAL: &str = "__ytt_nodes";

/// The annotation that makes a node's strings text templates.
pub const TEXT_TEMPLATED: &str = "yaml/text-templated-strings";
