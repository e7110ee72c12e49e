//! From paths as written to the files that define what they name. A re-export is followed
//! to its definer; a glob of an ancestor (`use super::*`) counts only for the names used
//! through it; every other `use`, re-exports included, is an edge of the file that has it.

use std::collections::{BTreeMap, BTreeSet};

use crate::tree::{Crate, Module, ModulePath};

/// File module → the other file modules it imports.
#[derive(Debug, Default)]
pub struct FileGraph {
    pub edges: BTreeMap<ModulePath, BTreeSet<ModulePath>>,
}

/// The crate's files and what each imports from the others.
pub fn file_graph(krate: &Crate) -> FileGraph {
    let mut graph = FileGraph::default();
    for (from, _, file) in imports(krate) {
        graph.edges.entry(from).or_default().extend(file);
    }
    graph
}

/// Why `from` imports `to`: the paths written in `from` that resolve into `to`.
pub fn why(krate: &Crate, from: &ModulePath, to: &ModulePath) -> Vec<String> {
    imports(krate)
        .into_iter()
        .filter(|(f, _, file)| f == from && file.as_ref() == Some(to))
        .map(|(_, path, _)| path.join("::"))
        .collect()
}

/// Every path of every module, with the file it is written in and the other file it
/// resolves to (`None` when outside the crate or in the same file); every file appears.
fn imports(krate: &Crate) -> Vec<(ModulePath, Vec<String>, Option<ModulePath>)> {
    let resolver = Resolver {
        modules: &krate.modules,
        strict: false,
    };
    let mut found: Vec<_> = krate
        .files
        .keys()
        .map(|file| (file.clone(), Vec::new(), None))
        .collect();
    for (path, module) in &krate.modules {
        let mut targets = Vec::new();
        for entry in &module.uses {
            let through_ancestor_glob = entry.name.is_none()
                && resolver
                    .start(path, &entry.target)
                    .is_some_and(|(m, rest)| rest.is_empty() && path.starts_with(&m));
            if !through_ancestor_glob {
                targets.push((&entry.target, resolver.resolve(path, &entry.target, 0)));
            }
        }
        for written in &module.paths {
            targets.push((written, resolver.resolve(path, written, 0)));
        }
        let from = &module.file;
        for (written, target) in targets {
            let file = target
                .map(|t| resolver.file_of(&t))
                .filter(|file| file != from);
            found.push((from.clone(), written.clone(), file));
        }
    }
    found
}

struct Resolver<'a> {
    modules: &'a BTreeMap<ModulePath, Module>,
    /// Whether a name not found gives `None` rather than the module it was looked for in
    /// (inside a glob, where the name may be another glob's).
    strict: bool,
}

/// How deep re-exports and globs are followed before giving up (a loop of globs).
const MAX_DEPTH: usize = 12;

impl Resolver<'_> {
    /// The file the module at `path` lives in.
    fn file_of(&self, path: &ModulePath) -> ModulePath {
        self.modules
            .get(path)
            .map(|m| m.file.clone())
            .unwrap_or_else(|| path.clone())
    }

    /// Where a path starts: `crate`, `self` and `super`s give a module and the rest;
    /// a child module's name gives the child. Other first segments give `None`.
    fn start<'p>(
        &self,
        from: &ModulePath,
        path: &'p [String],
    ) -> Option<(ModulePath, &'p [String])> {
        let first = path.first()?;
        match first.as_str() {
            "crate" => Some((Vec::new(), &path[1..])),
            "self" => Some((from.clone(), &path[1..])),
            "super" => {
                let ups = path.iter().take_while(|s| *s == "super").count();
                let keep = from.len().checked_sub(ups)?;
                Some((from[..keep].to_vec(), &path[ups..]))
            }
            name if self.modules.get(from)?.children.contains(name) => {
                let mut child = from.clone();
                child.push(name.to_owned());
                Some((child, &path[1..]))
            }
            _ => None,
        }
    }

    /// The module that defines what `path`, written in `from`, names; `None` when it is
    /// outside the crate (another crate, the prelude, a local variable).
    fn resolve(&self, from: &ModulePath, path: &[String], depth: usize) -> Option<ModulePath> {
        if depth > MAX_DEPTH || path.is_empty() {
            return None;
        }
        if let Some((module, rest)) = self.start(from, path) {
            return self.walk(module, rest, depth);
        }
        // A name in scope: an item here, something a `use` here brought in, or a name
        // reached through a glob.
        let first = &path[0];
        let module = self.modules.get(from)?;
        if module.items.contains(first) {
            return Some(from.clone());
        }
        if let Some(entry) = module.uses.iter().find(|e| e.name.as_ref() == Some(first)) {
            let mut target = entry.target.clone();
            target.extend_from_slice(&path[1..]);
            return self.resolve(from, &target, depth + 1);
        }
        self.through_globs(from, module, path, depth)
    }

    /// Follows `rest` down from `module`.
    fn walk(&self, mut module: ModulePath, rest: &[String], depth: usize) -> Option<ModulePath> {
        for (i, segment) in rest.iter().enumerate() {
            let Some(here) = self.modules.get(&module) else {
                return (!self.strict).then_some(module);
            };
            if here.children.contains(segment) {
                module.push(segment.clone());
                continue;
            }
            if here.items.contains(segment) {
                return Some(module);
            }
            if let Some(entry) = here.uses.iter().find(|e| e.name.as_ref() == Some(segment)) {
                let mut target = entry.target.clone();
                target.extend_from_slice(&rest[i + 1..]);
                return self.resolve(&module, &target, depth + 1);
            }
            return self
                .through_globs(&module, here, &rest[i..], depth)
                .or((!self.strict).then_some(module));
        }
        Some(module)
    }

    /// Resolves `path` through the globs of `module` whose target has its first name.
    fn through_globs(
        &self,
        from: &ModulePath,
        module: &Module,
        path: &[String],
        depth: usize,
    ) -> Option<ModulePath> {
        let first = path.first()?;
        module
            .uses
            .iter()
            .filter(|e| e.name.is_none())
            .find_map(|glob| {
                let target = self.resolve(from, &glob.target, depth + 1)?;
                if !self.has_name(&target, first, depth + 1, &mut BTreeSet::new()) {
                    return None;
                }
                let mut full = glob.target.clone();
                full.extend_from_slice(path);
                let strict = Resolver {
                    modules: self.modules,
                    strict: true,
                };
                strict.resolve(from, &full, depth + 1)
            })
    }

    /// Whether `name` is defined in or brought into the module at `path`, through globs
    /// too (each module looked in once, so loops of globs end).
    fn has_name(
        &self,
        path: &ModulePath,
        name: &str,
        depth: usize,
        seen: &mut BTreeSet<ModulePath>,
    ) -> bool {
        let Some(module) = self.modules.get(path) else {
            return false;
        };
        if !seen.insert(path.clone()) {
            return false;
        }
        module.children.contains(name)
            || module.items.contains(name)
            || module.uses.iter().any(|e| e.name.as_deref() == Some(name))
            || module.uses.iter().filter(|e| e.name.is_none()).any(|glob| {
                self.resolve(path, &glob.target, depth + 1)
                    .is_some_and(|target| self.has_name(&target, name, depth + 1, seen))
            })
    }
}
