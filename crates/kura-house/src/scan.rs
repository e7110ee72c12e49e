//! The paths one item writes: in its code, in `use`s inside function bodies, and in the
//! token bodies of macro calls and `macro_rules!` (where `$crate::a::b` is `crate::a::b`).

use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::visit::Visit;

use crate::uses::{UseEntry, flatten_use};

/// Every path written in `item`, as written (macro bodies: those of two or more segments).
pub(crate) fn paths_in_item(item: &syn::Item) -> Vec<Vec<String>> {
    let mut scanner = Scanner::default();
    scanner.visit_item(item);
    scanner.paths
}

#[derive(Default)]
struct Scanner {
    paths: Vec<Vec<String>>,
}

impl<'ast> Visit<'ast> for Scanner {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            self.paths
                .push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, path);
    }

    // `pub(crate)` and `pub(in crate::a)` say who may see an item, not what it uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    // Attributes name derives, lints and docs, not the crate's modules.
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut entries: Vec<UseEntry> = Vec::new();
        flatten_use(&item.tree, &mut Vec::new(), &mut entries);
        self.paths.extend(entries.into_iter().map(|e| e.target));
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        tokens(mac.tokens.clone(), &mut self.paths);
        syn::visit::visit_macro(self, mac);
    }
}

/// Paths in a token stream: an identifier followed by `::` and another identifier, and so
/// on; a `$` before `crate` is dropped.
fn tokens(stream: TokenStream, out: &mut Vec<Vec<String>>) {
    let trees: Vec<TokenTree> = stream.into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        match &trees[i] {
            TokenTree::Group(group) => {
                tokens(group.stream(), out);
                i += 1;
            }
            TokenTree::Ident(first) if !follows_path_separator(&trees, i) => {
                let mut path = vec![first.to_string()];
                let mut at = i + 1;
                while is_path_separator(&trees, at) {
                    match trees.get(at + 2) {
                        Some(TokenTree::Ident(next)) => {
                            path.push(next.to_string());
                            at += 3;
                        }
                        _ => break,
                    }
                }
                if path.len() > 1 {
                    out.push(path);
                }
                i = at.max(i + 1);
            }
            _ => i += 1,
        }
    }
}

/// `::` at `at`: two `:` puncts, the first joint.
fn is_path_separator(trees: &[TokenTree], at: usize) -> bool {
    matches!(
        (trees.get(at), trees.get(at + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
    )
}

/// Whether the identifier at `at` continues a path (`x::here`), which is then not a start.
fn follows_path_separator(trees: &[TokenTree], at: usize) -> bool {
    at >= 2 && is_path_separator(trees, at - 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(code: &str) -> Vec<String> {
        let item: syn::Item = syn::parse_str(code).expect("item");
        paths_in_item(&item)
            .into_iter()
            .map(|p| p.join("::"))
            .collect()
    }

    #[test]
    fn code_uses_and_macro_bodies_are_read() {
        let found = paths(
            "fn f() { use crate::a::{B, c::D}; let x = super::e::F::new(); \
             table! { crate::ops::put => self::g::H } }",
        );
        for expected in [
            "crate::a::B",
            "crate::a::c::D",
            "super::e::F::new",
            "crate::ops::put",
            "self::g::H",
        ] {
            assert!(
                found.iter().any(|p| p == expected),
                "{expected} in {found:?}"
            );
        }
    }

    #[test]
    fn dollar_crate_is_crate() {
        let found = paths("macro_rules! m { () => { $crate::x::Y } }");
        assert!(found.iter().any(|p| p == "crate::x::Y"), "{found:?}");
    }
}
