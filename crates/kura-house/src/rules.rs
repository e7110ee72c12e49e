//! The rules checked together, with what a crate is still allowed.

use std::collections::BTreeSet;
use std::path::Path;

use crate::knots::{Knot, knots, module_name};
use crate::length::{long_files, long_functions};
use crate::resolve::file_graph;
use crate::tree::Crate;

/// The most non-test functions over 100 lines a crate may be allowed (issue 51).
pub const MAX_LONG_FUNCTIONS: usize = 12;

/// What a crate is allowed today while its knots are untied: both only shrink.
#[derive(Debug, Clone, Copy)]
pub struct Allowances<'a> {
    /// Files still in a knot (`a::b`, `<root>` for lib.rs or main.rs). A file outside the
    /// list that joins a knot fails, and so does a listed file no longer in one, so the
    /// list is shortened with the change that unties it.
    pub knotted_files: &'a [&'a str],
    /// Non-test functions over 100 lines, exactly: more fails, and fewer fails too, so the
    /// number is lowered with the change that shortens one.
    pub long_functions: usize,
}

/// Checks the crate at `manifest_dir` (its `CARGO_MANIFEST_DIR`) against the house rules,
/// panicking with what breaks them; for a crate's `tests/house.rs`.
pub fn assert_house_rules(manifest_dir: &str, allowed: Allowances<'_>) {
    let krate = match Crate::read(&Path::new(manifest_dir).join("src")) {
        Ok(krate) => krate,
        Err(error) => panic!("reading {manifest_dir}: {error}"),
    };
    let knots = knots(&file_graph(&krate));
    let knotted: BTreeSet<String> = knots
        .iter()
        .flat_map(|k| k.files.keys())
        .map(module_name)
        .collect();
    let listed: BTreeSet<String> = allowed
        .knotted_files
        .iter()
        .map(|s| s.to_string())
        .collect();
    let new: Vec<&String> = knotted.difference(&listed).collect();
    assert!(
        new.is_empty(),
        "files newly in an import knot: {new:?}\n{}",
        knots
            .iter()
            .map(Knot::describe)
            .collect::<Vec<_>>()
            .join("\n")
    );
    let untied: Vec<&String> = listed.difference(&knotted).collect();
    assert!(
        untied.is_empty(),
        "files no longer in a knot, to take off the crate's allow-list: {untied:?}"
    );
    let long = long_files(&krate, 800);
    assert!(long.is_empty(), "files over 800 lines: {long:#?}");
    assert!(
        allowed.long_functions <= MAX_LONG_FUNCTIONS,
        "a crate may keep at most {MAX_LONG_FUNCTIONS} non-test functions over 100 lines, \
         and this one is allowed {}: split some",
        allowed.long_functions
    );
    let functions = long_functions(&krate, 100);
    assert!(
        functions.len() == allowed.long_functions,
        "{} non-test functions over 100 lines, allowed {} (lower the number when one is \
         shortened; split a function instead of raising it): {functions:#?}",
        functions.len(),
        allowed.long_functions
    );
}
