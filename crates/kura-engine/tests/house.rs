//! kura-engine keeps the house rules (kura-house, ADR 0031). Its import knots are not yet
//! untied: the files still in one are listed, and the list may only shrink.

#[test]
fn the_house_rules_hold() {
    kura_house::assert_house_rules(
        env!("CARGO_MANIFEST_DIR"),
        kura_house::Allowances {
            knotted_files: &[
                "backups",
                "backups::backup",
                "backups::pitr",
                "backups::restore",
                "backups::retention",
                "engine",
                "exports",
                "exports::job",
                "imports",
                "imports::job",
                "indexes::backfill",
                "items",
                "open",
                "streams",
                "streams::operations",
                "sweeper",
                "tables",
                "tables::create",
                "tables::describe",
                "tables::insights",
                "tables::policy",
                "tables::tags",
                "tables::update",
                "transactions",
                "vectors::upkeep",
            ],
            long_functions: 16,
        },
    );
}
