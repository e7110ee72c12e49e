//! `use` trees flattened into one entry per name brought in.

/// One `use` entry: the name it brings in (`None` for a glob) and the path it names.
#[derive(Debug, Clone)]
pub(crate) struct UseEntry {
    pub name: Option<String>,
    pub target: Vec<String>,
}

/// `use a::{b, c::d as e, f::*}` → `b → a::b`, `e → a::c::d`, `* → a::f`.
pub(crate) fn flatten_use(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<UseEntry>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten_use(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let mut target = prefix.clone();
            // `use a::{self}` names `a` itself.
            if name != "self" {
                target.push(name.clone());
            }
            let name = if name == "self" {
                prefix.last().cloned()
            } else {
                Some(name)
            };
            out.push(UseEntry { name, target });
        }
        syn::UseTree::Rename(r) => {
            let mut target = prefix.clone();
            if r.ident != "self" {
                target.push(r.ident.to_string());
            }
            out.push(UseEntry {
                name: Some(r.rename.to_string()),
                target,
            });
        }
        syn::UseTree::Glob(_) => out.push(UseEntry {
            name: None,
            target: prefix.clone(),
        }),
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                flatten_use(tree, prefix, out);
            }
        }
    }
}
