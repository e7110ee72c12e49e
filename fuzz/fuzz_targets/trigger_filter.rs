//! Trigger definitions, functions' partial batch responses and Lambda filter patterns (a
//! trigger's FilterCriteria): any text is parsed or refused, and a parsed pattern judges any JSON record, never panicking. The input
//! is tried whole as a triggers file, then split at the first newline: the pattern, then the
//! record.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = kura_triggers::parse_file(&text);
    // A function's answer, read as a partial batch response.
    let _ = kura_triggers::event::judge(data, &["1", "2", "3"], true);
    let (pattern, record) = text.split_once('\n').unwrap_or((&text, "{}"));
    if let Ok(pattern) = kura_triggers::Pattern::parse(pattern)
        && let Ok(record) = serde_json::from_str::<serde_json::Value>(record)
    {
        let _ = pattern.matches(&record);
    }
});
