//! No crate of the workspace has an import cycle between its files (issue 30, ADR 0008):
//! each file can be read, changed and tested from the files below it. A file may use what
//! its ancestors define (`super::Call`, `crate::Shared`): that is how a module hands its
//! children their common types, and it is not counted. Everything else is an edge: a path
//! through `crate::`, `super::` or `self::`, or a child module named by its parent.
//!
//! The graph is read from the source text, not from rustc: code after the first
//! `#[cfg(test)]` of a file and comment lines are left out, and a path is resolved to the
//! deepest file module it names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path inside one crate: `[]` for lib.rs or main.rs, `["ops", "items"]` for
/// src/ops/items.rs.
type Module = Vec<String>;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every crate of the workspace: its name and its src directory.
fn crates() -> Vec<(String, PathBuf)> {
    let mut crates: Vec<(String, PathBuf)> = std::fs::read_dir(workspace().join("crates"))
        .expect("crates/")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.join("src").is_dir())
        .map(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            (name.to_owned(), p.join("src"))
        })
        .collect();
    crates.sort();
    crates
}

/// The file modules of one crate with their code (tests and comment lines removed).
fn modules(src: &Path) -> BTreeMap<Module, String> {
    let mut found = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("src dir")
            .filter_map(|e| e.ok())
        {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).expect("under src");
            let mut module: Module = relative
                .iter()
                .map(|s| s.to_string_lossy().trim_end_matches(".rs").to_owned())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            let text = std::fs::read_to_string(&path).expect("read");
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let code = code
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            found.insert(module, code);
        }
    }
    found
}

/// The paths written in `code` that start with one of `roots` (`crate`, `super`, a child
/// module's name), each as its segments; `use a::{b, c::d}` gives `a::b` and `a::c::d`.
fn paths(code: &str, roots: &BTreeSet<String>) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !ident(bytes[i]) || (i > 0 && (ident(bytes[i - 1]) || bytes[i - 1] == b':')) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && ident(bytes[i]) {
            i += 1;
        }
        let word = &code[start..i];
        if roots.contains(word) && code[i..].starts_with("::") {
            let (tails, end) = path_tail(code, i + 2);
            for tail in tails {
                let mut path = vec![word.to_owned()];
                path.extend(tail);
                out.push(path);
            }
            i = end;
        }
    }
    out
}

/// Parses what follows `root::` at `at`: segments and `{...}` groups. Returns every path
/// it spells and where it ends.
fn path_tail(code: &str, mut at: usize) -> (Vec<Vec<String>>, usize) {
    let bytes = code.as_bytes();
    let skip_space = |at: &mut usize| {
        while *at < bytes.len() && bytes[*at].is_ascii_whitespace() {
            *at += 1;
        }
    };
    skip_space(&mut at);
    if at < bytes.len() && bytes[at] == b'{' {
        at += 1;
        let mut all = Vec::new();
        loop {
            skip_space(&mut at);
            if at >= bytes.len() {
                return (all, at);
            }
            if bytes[at] == b'}' {
                return (all, at + 1);
            }
            if bytes[at] == b',' {
                at += 1;
                continue;
            }
            let (paths, end) = path_tail(code, at);
            all.extend(paths);
            at = if end == at { at + 1 } else { end };
        }
    }
    let start = at;
    while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
        at += 1;
    }
    let segment = code[start..at].to_owned();
    if segment.is_empty() {
        return (vec![Vec::new()], at);
    }
    if code[at..].starts_with("::") {
        let (tails, end) = path_tail(code, at + 2);
        let paths = tails
            .into_iter()
            .map(|tail| {
                let mut path = vec![segment.clone()];
                path.extend(tail);
                path
            })
            .collect();
        return (paths, end);
    }
    (vec![vec![segment]], at)
}

/// File module → the file modules it imports (ancestors left out).
fn graph(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let modules = modules(src);
    let known: BTreeSet<&Module> = modules.keys().collect();
    let children = |of: &Module| -> BTreeSet<String> {
        known
            .iter()
            .filter(|m| m.len() == of.len() + 1 && m.starts_with(of))
            .filter_map(|m| m.last().cloned())
            .collect()
    };
    // The deepest file module a path (from the crate root) names.
    let resolve = |path: &[String]| -> Module {
        (0..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|m| known.contains(m))
            .unwrap_or_default()
    };
    modules
        .iter()
        .map(|(module, code)| {
            let mut roots = children(module);
            roots.extend(["crate", "super", "self"].map(String::from));
            let deps = paths(code, &roots)
                .into_iter()
                .filter_map(|path| {
                    let (base, rest): (Module, &[String]) = match path[0].as_str() {
                        "crate" => (Vec::new(), &path[1..]),
                        "self" => (module.clone(), &path[1..]),
                        "super" => {
                            let ups = path.iter().take_while(|s| *s == "super").count();
                            let keep = module.len().checked_sub(ups)?;
                            (module[..keep].to_vec(), &path[ups..])
                        }
                        _ => (module.clone(), &path[..]),
                    };
                    let mut full = base;
                    full.extend_from_slice(rest);
                    let target = resolve(&full);
                    (!module.starts_with(&target)).then_some(target)
                })
                .collect();
            (module.clone(), deps)
        })
        .collect()
}

/// The modules left in a cycle once every module that imports no remaining one, or that
/// no remaining one imports, is taken away, repeatedly (Kahn both ways); empty when there
/// is no cycle.
fn cyclic(graph: &BTreeMap<Module, BTreeSet<Module>>) -> BTreeMap<String, Vec<String>> {
    let mut left = graph.clone();
    loop {
        let imported: BTreeSet<&Module> = left.values().flatten().collect();
        let outside: Vec<Module> = left
            .iter()
            .filter(|(m, deps)| deps.iter().all(|d| !left.contains_key(d)) || !imported.contains(m))
            .map(|(m, _)| m.clone())
            .collect();
        if outside.is_empty() {
            break;
        }
        for module in outside {
            left.remove(&module);
        }
    }
    let name = |m: &Module| m.join("::");
    left.iter()
        .map(|(m, deps)| {
            let deps = deps.iter().filter(|d| left.contains_key(*d)).map(name);
            (name(m), deps.collect())
        })
        .collect()
}

#[test]
fn no_crate_has_an_import_cycle() {
    let crates = crates();
    assert!(crates.len() >= 9, "found the crates: {crates:?}");
    let mut cycles = BTreeMap::new();
    for (name, src) in &crates {
        let graph = graph(src);
        assert!(!graph.is_empty(), "{name} has modules");
        let left = cyclic(&graph);
        if !left.is_empty() {
            cycles.insert(name.clone(), left);
        }
    }
    assert!(
        cycles.is_empty(),
        "import cycles (module → the modules of its cycle it imports): {cycles:#?}"
    );
}

/// The reader sees the cycles it is meant to see: a pair that imports each other through
/// `crate::`, a grouped `use`, and a parent naming its child.
#[test]
fn the_reader_finds_a_planted_cycle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path();
    std::fs::create_dir(src.join("ops")).expect("mkdir");
    std::fs::write(src.join("lib.rs"), "mod ops;\nmod authz;\n").expect("write");
    std::fs::write(
        src.join("ops/mod.rs"),
        "mod items;\npub struct Call;\nfn f() { items::run() }\n",
    )
    .expect("write");
    std::fs::write(
        src.join("ops/items.rs"),
        "use super::Call;\nuse crate::{authz::{check, Check}};\n",
    )
    .expect("write");
    std::fs::write(
        src.join("authz.rs"),
        "// crate::nothing in a comment\nuse crate::ops::Call;\n",
    )
    .expect("write");
    let graph = graph(src);
    let key = |s: &str| -> Module {
        s.split("::")
            .filter(|p| !p.is_empty())
            .map(String::from)
            .collect()
    };
    assert_eq!(graph[&key("ops")], BTreeSet::from([key("ops::items")]));
    assert_eq!(graph[&key("ops::items")], BTreeSet::from([key("authz")]));
    assert_eq!(graph[&key("authz")], BTreeSet::from([key("ops")]));
    assert_eq!(cyclic(&graph).len(), 3);
    // Without the back edge there is none.
    std::fs::write(src.join("authz.rs"), "pub struct Check;\n").expect("write");
    assert!(cyclic(&self::graph(src)).is_empty());
}

/// Every source file can be read in one sitting: none is over 800 lines (issue 30). Unit
/// tests that outgrow their file move to a `tests.rs` beside it.
#[test]
fn no_source_file_is_over_800_lines() {
    let mut long = Vec::new();
    for (name, src) in crates() {
        let mut dirs = vec![src];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("dir").filter_map(|e| e.ok()) {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let lines = std::fs::read_to_string(&path)
                        .expect("read")
                        .lines()
                        .count();
                    if lines > 800 {
                        long.push(format!("{name}: {} ({lines} lines)", path.display()));
                    }
                }
            }
        }
    }
    assert!(long.is_empty(), "files over 800 lines: {long:#?}");
}
