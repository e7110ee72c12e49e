//! The test controls' inputs: fault rules (`POST /kura/admin/faults`) matched against any
//! request (the tables and the partition key value it names, as kura-api reads them off
//! the request's typed input), schema files and seed files. Any text is parsed or
//! refused, never panicking. The input is split at the first newline: the text, then
//! what the request names (comma-separated tables; the last one is also the key value).
#![no_main]
use libfuzzer_sys::fuzz_target;
use kura_server::test_controls::{faults, seed};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = kura_api::schema_file::schema_inputs(&text);
    let _ = seed::seed_requests(&text, "Table");
    let (spec, named) = text.split_once('\n').unwrap_or((&text, ""));
    let rules = faults::Faults::default();
    if let Ok(spec) = serde_json::from_str::<faults::FaultSpec>(spec) {
        let _ = rules.add(spec);
    }
    let tables: Vec<&str> = named.split(',').collect();
    let named = kura_api::Named {
        tables: &tables,
        partition: tables.last().copied(),
    };
    let request = faults::Request {
        operation: "PutItem",
        named: &named,
    };
    let _ = rules.decide(&request);
    let _ = rules.list();
});
