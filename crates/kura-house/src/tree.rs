//! A crate's modules as parsed Rust: each module (file or inline) with the names it
//! defines, the `use`s it declares and the paths its code writes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::HouseError;
use crate::scan;
use crate::uses::{UseEntry, flatten_use};

/// A module path inside one crate: `[]` for lib.rs or main.rs, `["ops", "items"]` for
/// src/ops/items.rs or for `mod items { .. }` inside src/ops.rs.
pub type ModulePath = Vec<String>;

/// One module, file or inline.
#[derive(Debug, Default)]
pub(crate) struct Module {
    /// The file module this module's text lives in.
    pub file: ModulePath,
    /// Names of the items defined here (types, functions, constants, macros).
    pub items: BTreeSet<String>,
    /// Child modules, file or inline.
    pub children: BTreeSet<String>,
    pub uses: Vec<UseEntry>,
    /// Paths written in code or macro bodies, as written.
    pub paths: Vec<Vec<String>>,
}

/// A parsed source file.
pub(crate) struct SourceFile {
    pub path: PathBuf,
    pub lines: usize,
    pub syntax: syn::File,
}

/// Every module of one crate.
pub struct Crate {
    pub(crate) modules: BTreeMap<ModulePath, Module>,
    pub(crate) files: BTreeMap<ModulePath, SourceFile>,
}

impl Crate {
    /// Reads and parses every `.rs` file under `src`.
    pub fn read(src: &Path) -> Result<Crate, HouseError> {
        let mut files = BTreeMap::new();
        for path in rust_files(src)? {
            let text = std::fs::read_to_string(&path).map_err(|source| HouseError::Read {
                path: path.clone(),
                source,
            })?;
            let syntax = syn::parse_file(&text).map_err(|e| HouseError::Parse {
                path: path.clone(),
                message: e.to_string(),
                line: e.span().start().line,
            })?;
            let module = file_module(src, &path);
            let lines = text.lines().count();
            files.insert(
                module,
                SourceFile {
                    path,
                    lines,
                    syntax,
                },
            );
        }
        let mut modules = BTreeMap::new();
        for (module, file) in &files {
            collect(&mut modules, module, module, &file.syntax.items);
        }
        Ok(Crate { modules, files })
    }
}

/// The module a file is: `src/ops/mod.rs` and `src/ops.rs` are both `ops`.
fn file_module(src: &Path, path: &Path) -> ModulePath {
    let relative = path.strip_prefix(src).unwrap_or(path);
    let mut module: ModulePath = relative
        .iter()
        .map(|s| s.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if matches!(
        module.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        module.pop();
    }
    module
}

fn rust_files(src: &Path) -> Result<Vec<PathBuf>, HouseError> {
    let mut found = Vec::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|source| HouseError::Read {
            path: dir.clone(),
            source,
        })?;
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Records `items` as the body of `module`, and inline child modules below it.
fn collect(
    modules: &mut BTreeMap<ModulePath, Module>,
    file: &ModulePath,
    module: &ModulePath,
    items: &[syn::Item],
) {
    let mut inline = Vec::new();
    {
        let entry = modules.entry(module.clone()).or_default();
        entry.file = file.clone();
        for item in items {
            match item {
                syn::Item::Mod(m) => {
                    entry.children.insert(m.ident.to_string());
                    if let Some((_, content)) = &m.content {
                        inline.push((m.ident.to_string(), content));
                    }
                }
                syn::Item::Use(u) => flatten_use(&u.tree, &mut Vec::new(), &mut entry.uses),
                other => {
                    if let Some(name) = item_name(other) {
                        entry.items.insert(name);
                    }
                    entry.paths.extend(scan::paths_in_item(other));
                }
            }
        }
    }
    for (name, content) in inline {
        let mut child = module.clone();
        child.push(name);
        collect(modules, file, &child, content);
    }
}

fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::TraitAlias(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        _ => return None,
    };
    Some(ident.to_string())
}
