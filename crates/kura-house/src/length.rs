//! Lengths: files over a line limit, and non-test functions over a line limit (counted
//! from `fn` to the closing brace).

use std::collections::BTreeSet;

use syn::visit::Visit;

use crate::tree::{Crate, ModulePath};

/// A function longer than the limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LongFunction {
    pub file: String,
    pub name: String,
    pub lines: usize,
}

/// Files with more than `limit` lines, as `path (N lines)`.
pub fn long_files(krate: &Crate, limit: usize) -> Vec<String> {
    krate
        .files
        .values()
        .filter(|f| f.lines > limit)
        .map(|f| format!("{} ({} lines)", f.path.display(), f.lines))
        .collect()
}

/// Functions outside tests with more than `limit` lines, longest first.
pub fn long_functions(krate: &Crate, limit: usize) -> Vec<LongFunction> {
    let test_files = test_files(krate);
    let mut found = Vec::new();
    for (module, file) in &krate.files {
        if test_files.iter().any(|t| module.starts_with(t)) {
            continue;
        }
        let mut counter = Counter {
            limit,
            file: file.path.display().to_string(),
            found: &mut found,
        };
        counter.visit_file(&file.syntax);
    }
    found.sort_by_key(|f| std::cmp::Reverse(f.lines));
    found
}

/// File modules declared under `#[cfg(test)]` (`#[cfg(test)] mod tests;`).
fn test_files(krate: &Crate) -> BTreeSet<ModulePath> {
    let mut tests = BTreeSet::new();
    for (module, file) in &krate.files {
        for item in &file.syntax.items {
            if let syn::Item::Mod(m) = item
                && m.content.is_none()
                && is_test_only(&m.attrs)
            {
                let mut child = module.clone();
                child.push(m.ident.to_string());
                tests.insert(child);
            }
        }
    }
    tests
}

/// `#[cfg(test)]` or `#[test]` (and `#[tokio::test]` and the like).
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        let path = attr.path();
        if path.segments.last().is_some_and(|s| s.ident == "test") {
            return true;
        }
        path.is_ident("cfg")
            && attr
                .parse_args::<syn::Ident>()
                .is_ok_and(|ident| ident == "test")
    })
}

struct Counter<'a> {
    limit: usize,
    file: String,
    found: &'a mut Vec<LongFunction>,
}

impl Counter<'_> {
    fn check(&mut self, sig: &syn::Signature, block: &syn::Block) {
        let start = sig.fn_token.span.start().line;
        let end = block.brace_token.span.close().end().line;
        let lines = end.saturating_sub(start) + 1;
        if lines > self.limit {
            self.found.push(LongFunction {
                file: self.file.clone(),
                name: sig.ident.to_string(),
                lines,
            });
        }
    }
}

impl<'ast> Visit<'ast> for Counter<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if !is_test_only(&item.attrs) {
            syn::visit::visit_item_mod(self, item);
        }
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if !is_test_only(&item.attrs) {
            self.check(&item.sig, &item.block);
            syn::visit::visit_item_fn(self, item);
        }
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if !is_test_only(&item.attrs) {
            self.check(&item.sig, &item.block);
            syn::visit::visit_impl_item_fn(self, item);
        }
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if let Some(block) = &item.default {
            self.check(&item.sig, block);
        }
        syn::visit::visit_trait_item_fn(self, item);
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        if !is_test_only(&item.attrs) {
            syn::visit::visit_item_impl(self, item);
        }
    }
}
