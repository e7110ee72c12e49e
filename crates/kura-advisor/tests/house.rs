//! kura-advisor keeps the house rules (kura-house, ADR 0031): no import knot, no file over 800
//! lines, and its long functions counted.

#[test]
fn the_house_rules_hold() {
    kura_house::assert_house_rules(
        env!("CARGO_MANIFEST_DIR"),
        kura_house::Allowances {
            knotted_files: &[],
            long_functions: 1,
        },
    );
}

/// The advisor is a front end's (ADR 0033): the binary and the console depend on it; no
/// serving crate and no other tool does (kura-mcp gets it from the binary as a function).
/// Its own tests may.
#[test]
fn only_the_front_ends_depend_on_the_advisor() {
    let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crates/");
    let mut dependents = Vec::new();
    for entry in std::fs::read_dir(crates).expect("crates/") {
        let dir = entry.expect("an entry").path();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let mut section = "";
        for line in manifest.lines().map(str::trim) {
            if line.starts_with('[') {
                section = line;
            } else if section == "[dependencies]" && line.starts_with("kura-advisor") {
                let name = dir.file_name().expect("a name").to_string_lossy();
                dependents.push(name.into_owned());
            }
        }
    }
    dependents.sort();
    assert_eq!(dependents, ["kura", "kura-console"]);
}
