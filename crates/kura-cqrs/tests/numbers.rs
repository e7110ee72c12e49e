//! Numbers keep their precision through the framework (against Kura in process, or the
//! endpoint in `KURA_ENDPOINT`): a number attribute written with `publish_sync` or
//! `publish_async` (and the projector) reads back from the data table with every digit,
//! in DynamoDB's canonical form, both through the framework's reads and as the N text the
//! endpoint stores; publishing it again is "not dirty".

#![cfg(feature = "exact-numbers")]

mod common;

use aws_sdk_dynamodb::types::AttributeValue;
use kura_cqrs::names;
use kura_cqrs::{
    CommandInput, CommandService, DataService, Invoker, Projector, ProjectorOptions, TableNames,
    ensure_tables,
};
use proptest::prelude::*;
use serde_json::{Value, json};

struct Services {
    client: aws_sdk_dynamodb::Client,
    tables: TableNames,
    commands: CommandService,
    data: DataService,
    projector: Projector,
}

async fn services() -> Services {
    let (client, streams) = common::clients().await;
    let tables = common::unique_names("numbers");
    ensure_tables(&client, &tables).await.expect("tables");
    let projector = Projector::new(
        client.clone(),
        streams,
        tables.clone(),
        ProjectorOptions::default(),
    );
    Services {
        commands: CommandService::new(client.clone(), tables.clone()),
        data: DataService::new(client.clone(), tables.clone()),
        client,
        tables,
        projector,
    }
}

fn number(text: &str) -> Value {
    serde_json::from_str(text).expect("a JSON number")
}

impl Services {
    /// `attributes.n` of a data row: as the framework reads it, and the N text the
    /// endpoint answers, which must agree.
    async fn stored_text(&self, sk: &str) -> String {
        let row = self
            .data
            .get_item("NUM#t1", sk)
            .await
            .expect("read")
            .expect("row");
        let read = row.attributes["n"].to_string();
        let raw = self
            .client
            .get_item()
            .table_name(&self.tables.data)
            .key(names::PK, AttributeValue::S("NUM#t1".into()))
            .key(names::SK, AttributeValue::S(sk.into()))
            .consistent_read(true)
            .send()
            .await
            .expect("get");
        let Some(AttributeValue::M(attributes)) = raw.item().and_then(|i| i.get(names::ATTRIBUTES))
        else {
            panic!("no attributes in {raw:?}")
        };
        let Some(AttributeValue::N(text)) = attributes.get("n") else {
            panic!("no number in {attributes:?}")
        };
        assert_eq!(&read, text, "the framework reads what the endpoint stores");
        read
    }
}

/// (written, read back): 38 digits, a fraction past f64, DynamoDB's extremes, and
/// notations DynamoDB writes back in plain form.
fn cases() -> Vec<(&'static str, String)> {
    vec![
        (
            "12345678901234567890123456789012345678",
            "12345678901234567890123456789012345678".into(),
        ),
        (
            "0.1000000000000000000000000000000000001",
            "0.1000000000000000000000000000000000001".into(),
        ),
        (
            "-99999999999999999999999999999999999999",
            "-99999999999999999999999999999999999999".into(),
        ),
        ("9007199254740993", "9007199254740993".into()),
        ("1.50", "1.5".into()),
        ("-5e-3", "-0.005".into()),
        ("0.000", "0".into()),
        ("-1E+125", format!("-1{}", "0".repeat(125))),
        ("1E-130", format!("0.{}1", "0".repeat(129))),
    ]
}

#[tokio::test]
async fn exact_numbers_survive_publish_and_read() {
    let services = services().await;
    let Services {
        commands,
        data,
        projector,
        ..
    } = &services;
    let invoker = Invoker::default();
    for (i, (written, want)) in cases().into_iter().enumerate() {
        let value = number(written);
        let input = |sk: &str| {
            CommandInput::new("NUM#t1", sk, 0)
                .with_attribute("n", value.clone())
                .with_attribute(
                    "nested",
                    json!({"list": [value.clone()], "map": {"x": value.clone()}}),
                )
        };
        // Sync: the data row is written in the publishing transaction.
        let sync_sk = format!("SYNC#{i}");
        let stored = commands
            .publish_sync(&input(&sync_sk), &invoker)
            .await
            .expect("publish")
            .expect("written");
        assert_eq!(stored.attributes["n"].to_string(), want, "as published");
        assert_eq!(services.stored_text(&sync_sk).await, want, "{written}");
        let row = data
            .get_item("NUM#t1", &sync_sk)
            .await
            .expect("read")
            .expect("row");
        assert_eq!(row.attributes["nested"]["list"][0].to_string(), want);
        assert_eq!(row.attributes["nested"]["map"]["x"].to_string(), want);
        // The same value again, in whatever notation, is not dirty.
        assert!(
            commands
                .publish_sync(&input(&sync_sk).with_version(1), &invoker)
                .await
                .expect("again")
                .is_none(),
            "{written} read back as {want} must compare equal"
        );
        // Async: the projector copies the command row from the stream.
        commands
            .publish_async(&input(&format!("ASYNC#{i}")), &invoker)
            .await
            .expect("publish")
            .expect("written");
    }
    while projector.run_once().await.expect("round") > 0 {}
    for (i, (written, want)) in cases().into_iter().enumerate() {
        assert_eq!(
            services.stored_text(&format!("ASYNC#{i}")).await,
            want,
            "{written} through the stream"
        );
    }
}

/// A decimal within DynamoDB's range: sign, 1 to 38 significant digits (no leading or
/// trailing zero), and the power of ten they are scaled by.
fn decimal() -> impl Strategy<Value = (bool, String, i64)> {
    (any::<bool>(), "[1-9]([0-9]{0,36}[1-9])?").prop_flat_map(|(negative, digits)| {
        let len = i64::try_from(digits.len()).expect("len");
        // 10^-130 <= |value| < 10^126
        (Just(negative), Just(digits), -130i64..=(126 - len))
    })
}

/// `digits × 10^scale` in plain notation (DynamoDB's canonical form).
fn plain(negative: bool, digits: &str, scale: i64) -> String {
    let sign = if negative { "-" } else { "" };
    let len = i64::try_from(digits.len()).expect("len");
    let zeros = |n: i64| "0".repeat(usize::try_from(n).expect("count"));
    if scale >= 0 {
        format!("{sign}{digits}{}", zeros(scale))
    } else if len + scale > 0 {
        let (int, frac) = digits.split_at(usize::try_from(len + scale).expect("point"));
        format!("{sign}{int}.{frac}")
    } else {
        format!("{sign}0.{}{digits}", zeros(-(len + scale)))
    }
}

#[test]
fn any_number_round_trips() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let services = runtime.block_on(services());
    let invoker = Invoker::default();
    let case = std::sync::atomic::AtomicU32::new(0);
    let config = ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(config, |((negative, digits, scale) in decimal(), scientific in any::<bool>())| {
        let want = plain(negative, &digits, scale);
        let written = if scientific {
            format!("{}{digits}E{scale}", if negative { "-" } else { "" })
        } else {
            want.clone()
        };
        let sk = format!("P#{}", case.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        let back = runtime.block_on(async {
            services
                .commands
                .publish_sync(
                    &CommandInput::new("NUM#t1", &sk, 0).with_attribute("n", number(&written)),
                    &invoker,
                )
                .await
                .expect("publish");
            services.stored_text(&sk).await
        });
        prop_assert_eq!(back, want, "written as {}", written);
    });
}
