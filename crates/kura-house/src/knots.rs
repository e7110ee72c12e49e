//! Knots: sets of files that import each other round a loop (strongly connected
//! components of more than one file), found with Tarjan's algorithm.

use std::collections::{BTreeMap, BTreeSet};

use crate::resolve::FileGraph;
use crate::tree::ModulePath;

/// Files that import each other, each with the files of the knot it imports.
#[derive(Debug, PartialEq, Eq)]
pub struct Knot {
    pub files: BTreeMap<ModulePath, BTreeSet<ModulePath>>,
}

impl Knot {
    /// One line per file: `a → b, c`.
    pub fn describe(&self) -> String {
        let name = module_name;
        let lines: Vec<String> = self
            .files
            .iter()
            .map(|(file, imports)| {
                let imports: Vec<String> = imports.iter().map(name).collect();
                format!("  {} → {}", name(file), imports.join(", "))
            })
            .collect();
        format!("knot of {} files:\n{}", self.files.len(), lines.join("\n"))
    }
}

/// `a::b`, or `<root>` for lib.rs and main.rs.
pub fn module_name(module: &ModulePath) -> String {
    if module.is_empty() {
        "<root>".to_owned()
    } else {
        module.join("::")
    }
}

/// Every knot of the graph, largest first.
pub fn knots(graph: &FileGraph) -> Vec<Knot> {
    let nodes: Vec<&ModulePath> = graph.edges.keys().collect();
    let index_of: BTreeMap<&ModulePath, usize> =
        nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let successors: Vec<Vec<usize>> = nodes
        .iter()
        .map(|m| {
            graph.edges[*m]
                .iter()
                .filter_map(|d| index_of.get(d).copied())
                .collect()
        })
        .collect();
    let mut found: Vec<Knot> = tarjan(&successors)
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            let members: BTreeSet<&ModulePath> = component.iter().map(|&i| nodes[i]).collect();
            let files = members
                .iter()
                .map(|m| {
                    let inside = graph.edges[*m]
                        .iter()
                        .filter(|d| members.contains(d))
                        .cloned()
                        .collect();
                    ((*m).clone(), inside)
                })
                .collect();
            Knot { files }
        })
        .collect();
    found.sort_by_key(|k| std::cmp::Reverse(k.files.len()));
    found
}

/// Strongly connected components, iteratively (no recursion depth limit).
fn tarjan(successors: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = successors.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut components = Vec::new();
    let mut next = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (node, next successor to look at)
        let mut work = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (node, ref mut at)) = work.last_mut() {
            if let Some(&succ) = successors[node].get(*at) {
                *at += 1;
                if index[succ] == usize::MAX {
                    index[succ] = next;
                    low[succ] = next;
                    next += 1;
                    stack.push(succ);
                    on_stack[succ] = true;
                    work.push((succ, 0));
                } else if on_stack[succ] {
                    low[node] = low[node].min(index[succ]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == index[node] {
                let mut component = Vec::new();
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component.push(member);
                    if member == node {
                        break;
                    }
                }
                components.push(component);
            }
        }
    }
    components
}
