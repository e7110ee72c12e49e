//! kura keeps the house rules (kura-house, ADR 0031): no import knot, no file over 800
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
