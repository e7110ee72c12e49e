//! `kura mcp`'s inputs from arbitrary text: a tool call's arguments (any JSON, for every
//! tool, read-only and with writes allowed) become a request or a plain error, never a
//! panic, and a read-only server never builds a PartiQL write; a table description, TTL
//! description and item sample (any JSON) are explained without panicking. The first line
//! names the tool, the rest is JSON.
#![no_main]
use kura_mcp::requests::request_for;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const TOOLS: [&str; 10] = [
    "list_tables",
    "describe_table",
    "get_item",
    "query",
    "scan",
    "execute_statement",
    "put_item",
    "update_item",
    "delete_item",
    "explain_access_patterns",
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (first, rest) = text.split_once('\n').unwrap_or(("", text));
    let statement_only = kura_mcp::reads_only(first);
    let Ok(arguments) = serde_json::from_str::<Value>(rest) else {
        return;
    };
    for tool in TOOLS {
        if let Ok((operation, body)) = request_for(tool, arguments.clone(), false) {
            if operation == "ExecuteStatement" {
                let statement = body["Statement"].as_str().unwrap_or_default();
                assert!(kura_mcp::reads_only(statement), "a write passed: {statement}");
            }
        }
        let _ = request_for(tool, arguments.clone(), true);
    }
    let _ = statement_only;
    let sample: Vec<Value> = arguments["sample"].as_array().cloned().unwrap_or_default();
    let explained = kura_mcp::access::explain(&arguments["table"], &arguments["ttl"], &sample);
    assert!(explained["accessPatterns"].is_array());
});
