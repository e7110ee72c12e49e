//! kura-server keeps the house rules (kura-house, ADR 0031). Its import knots are not yet
//! untied: the files still in one are listed, and the list may only shrink.

#[test]
fn the_house_rules_hold() {
    kura_house::assert_house_rules(
        env!("CARGO_MANIFEST_DIR"),
        kura_house::Allowances {
            knotted_files: &[
                "audit",
                "authz",
                "authz::backups",
                "authz::items",
                "authz::kinesis",
                "authz::partiql",
                "authz::streams",
                "call",
                "embedded",
                "ops",
                "ops::admission",
                "ops::backups",
                "ops::insights",
                "ops::items",
                "ops::kinesis",
                "ops::partiql",
                "ops::streams",
                "ops::tables",
                "pipeline",
                "schemas",
            ],
            long_functions: 7,
        },
    );
}
