//! The framework's modules import each other without a cycle: shared pieces (attribute
//! names, statuses, row reads, the projection step, TTL policies, the sync handler trait)
//! live below the services that use them, so each can be read and changed on its own.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module → the modules its code (not its tests or docs) names as `crate::module`.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sources = BTreeMap::new();
    for entry in std::fs::read_dir(&src).expect("src") {
        let path = entry.expect("entry").path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if path.extension().is_some_and(|e| e == "rs") && name != "lib" {
            let text = std::fs::read_to_string(&path).expect("read");
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let code: String = code
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            sources.insert(name.to_owned(), code);
        }
    }
    let names: BTreeSet<String> = sources.keys().cloned().collect();
    sources
        .iter()
        .map(|(module, code)| {
            let deps = code
                .split("crate::")
                .skip(1)
                .filter_map(|rest| {
                    let dep: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    (names.contains(&dep) && dep != *module).then_some(dep)
                })
                .collect();
            (module.clone(), deps)
        })
        .collect()
}

#[test]
fn no_import_cycle() {
    let graph = graph();
    assert!(graph.len() > 10, "found the modules: {graph:?}");
    // Remove modules with no remaining dependencies until none is left (Kahn).
    let mut left = graph.clone();
    while !left.is_empty() {
        let leaves: Vec<String> = left
            .iter()
            .filter(|(_, deps)| deps.iter().all(|d| !left.contains_key(d)))
            .map(|(m, _)| m.clone())
            .collect();
        assert!(!leaves.is_empty(), "an import cycle among {left:#?}");
        for leaf in leaves {
            left.remove(&leaf);
        }
    }
    // The shared pieces stay below the services.
    for low in [
        "names",
        "status",
        "rows",
        "projection",
        "sync",
        "ttl",
        "cancellation",
        "shards",
    ] {
        for high in ["service", "projector"] {
            assert!(!graph[low].contains(high), "{low} must not import {high}");
        }
    }
}
