//! What `kura --version` prints.

/// `kura --version`: the crate version, the commit and the Cargo profile it was built
/// from (build.rs), so a bug report names exactly what ran.
pub(crate) const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("KURA_COMMIT"),
    ", profile ",
    env!("KURA_PROFILE"),
    ")"
);
