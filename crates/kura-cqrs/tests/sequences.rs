//! Sequences (against Kura in process, or the endpoint in `KURA_ENDPOINT`): concurrent
//! callers get distinct consecutive numbers; a fiscal year in an explicit time zone
//! restarts the count at its first instant.

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use kura_cqrs::{RotateBy, SequenceService, SequenceSettings, ensure_tables};
use time::UtcOffset;
use time::macros::datetime;

async fn service() -> SequenceService {
    let client = common::client().await;
    let tables = common::unique_names("seq");
    ensure_tables(&client, &tables).await.expect("tables");
    SequenceService::new(client, tables.data)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_callers_get_distinct_numbers() {
    let service = Arc::new(service().await);
    let settings = SequenceSettings {
        format: "%%code1%%-%%no#:0>5%%".into(),
        ..SequenceSettings::default()
    };
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let service = service.clone();
        let settings = settings.clone();
        tasks.push(tokio::spawn(async move {
            let mut got = Vec::new();
            for _ in 0..25 {
                let seq = service
                    .next(
                        "Tenant001",
                        "INVOICE",
                        &["SHOP".into()],
                        &settings,
                        datetime!(2024-05-01 10:00 UTC),
                    )
                    .await
                    .expect("next");
                got.push((seq.no, seq.formatted_no));
            }
            got
        }));
    }
    let mut numbers = BTreeSet::new();
    for task in tasks {
        for (no, formatted) in task.await.expect("task") {
            assert_eq!(formatted, format!("SHOP-{no:05}"));
            assert!(numbers.insert(no), "{no} handed out twice");
        }
    }
    assert_eq!(numbers, (1..=200).collect());
}

#[tokio::test]
async fn fiscal_years_rotate_in_the_given_time_zone() {
    let service = service().await;
    let tokyo = SequenceSettings {
        format: "%%fiscal_year%%-%%no#:0>3%%".into(),
        rotate_by: RotateBy::FiscalYearly,
        start_month: 4,
        offset: UtcOffset::from_hms(9, 0, 0).expect("offset"),
        ..SequenceSettings::default()
    };
    let next = |at| {
        let service = service.clone();
        let settings = tokyo.clone();
        async move {
            service
                .next("t1", "ORDER", &[], &settings, at)
                .await
                .expect("next")
                .formatted_no
        }
    };
    // 14:59 UTC on March 31 is still March 31 in Tokyo; 15:00 UTC is April 1.
    assert_eq!(next(datetime!(2024-03-31 14:00 UTC)).await, "2023-001");
    assert_eq!(next(datetime!(2024-03-31 14:59 UTC)).await, "2023-002");
    assert_eq!(next(datetime!(2024-03-31 15:00 UTC)).await, "2024-001");
    assert_eq!(next(datetime!(2024-06-01 00:00 UTC)).await, "2024-002");
}
