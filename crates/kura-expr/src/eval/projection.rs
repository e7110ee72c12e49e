//! Projections: the parts of an item that the given paths select, in the nested shape
//! DynamoDB returns (`a.b` gives `{a: {b: ...}}`; `l[1], l[3]` give `{l: [l1, l3]}`).

use std::collections::BTreeMap;

use kura_model::{AttributeValue, Item};

use super::path;
use crate::ast::{Path, PathElement};

/// A partial copy of a value: what the projected paths reached.
enum Node {
    Whole(AttributeValue),
    Map(BTreeMap<String, Node>),
    /// Selected list elements by their original index; compacted on output.
    List(BTreeMap<usize, Node>),
}

impl Node {
    fn into_value(self) -> AttributeValue {
        match self {
            Node::Whole(v) => v,
            Node::Map(m) => {
                AttributeValue::M(m.into_iter().map(|(k, n)| (k, n.into_value())).collect())
            }
            Node::List(l) => AttributeValue::L(l.into_values().map(Node::into_value).collect()),
        }
    }
}

/// The attributes of `item` selected by `paths`; paths that reach nothing add nothing.
pub fn project(item: &Item, paths: &[Path]) -> Item {
    let mut root: BTreeMap<String, Node> = BTreeMap::new();
    for p in paths {
        let Some(value) = path::get(item, p) else {
            continue;
        };
        insert(&mut root, &p.0, value);
    }
    root.into_iter().map(|(k, n)| (k, n.into_value())).collect()
}

fn insert(root: &mut BTreeMap<String, Node>, elements: &[PathElement], value: &AttributeValue) {
    let Some(PathElement::Attribute(top)) = elements.first() else {
        return;
    };
    if elements.len() == 1 {
        root.insert(top.clone(), Node::Whole(value.clone()));
        return;
    }
    let mut node = root
        .entry(top.clone())
        .or_insert_with(|| empty_for(&elements[1]));
    for (i, element) in elements[1..].iter().enumerate() {
        let last = i + 2 == elements.len();
        let next = elements.get(i + 2);
        node = match (node, element) {
            (Node::Whole(_), _) => return, // an overlapping path already took the whole value
            (Node::Map(m), PathElement::Attribute(k)) => {
                if last {
                    m.insert(k.clone(), Node::Whole(value.clone()));
                    return;
                }
                m.entry(k.clone())
                    .or_insert_with(|| empty_for(next.unwrap_or(element)))
            }
            (Node::List(l), PathElement::Index(ix)) => {
                if last {
                    l.insert(*ix, Node::Whole(value.clone()));
                    return;
                }
                l.entry(*ix)
                    .or_insert_with(|| empty_for(next.unwrap_or(element)))
            }
            _ => return,
        };
    }
}

fn empty_for(element: &PathElement) -> Node {
    match element {
        PathElement::Attribute(_) => Node::Map(BTreeMap::new()),
        PathElement::Index(_) => Node::List(BTreeMap::new()),
    }
}
