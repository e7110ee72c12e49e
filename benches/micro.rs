//! Micro-benchmarks of the hot pure functions: key encoding, item encoding, DynamoDB JSON
//! decoding, expression parsing and evaluation. `serde_json` parsing the same item is the
//! in-process baseline to read the item codec's figures against.
//!
//! Run: `cargo bench -p kura-bench --bench micro`

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use kura_expr::bindings::Bindings;
use kura_expr::eval;
use kura_expr::parse::condition::parse_condition;
use kura_expr::parse::update::parse_update;
use kura_model::item_codec::{decode_item, encode_item};
use kura_model::keycode::{ScalarType, decode_key_value, encode_key_value};
use kura_model::wire::{ItemJson, item_from_json};
use kura_model::{AttributeValue, Item, Number};

/// An item of about 1 KB with every common type, as the load benchmark writes.
fn item_json() -> String {
    let payload: String = (0..900).map(|i| (b'a' + (i % 26) as u8) as char).collect();
    format!(
        r#"{{"pk": {{"S": "customer#0001234"}}, "sk": {{"S": "order#2026-11-22#000042"}},
            "v": {{"N": "17"}}, "total": {{"N": "1234.56"}}, "paid": {{"BOOL": true}},
            "tags": {{"SS": ["new", "gift", "express"]}},
            "lines": {{"L": [{{"M": {{"sku": {{"S": "A-1"}}, "qty": {{"N": "2"}}}}}},
                             {{"M": {{"sku": {{"S": "B-7"}}, "qty": {{"N": "1"}}}}}}]}},
            "payload": {{"S": "{payload}"}}}}"#
    )
}

fn item() -> Item {
    item_from_json(serde_json::from_str::<ItemJson>(&item_json()).expect("json")).expect("item")
}

fn bindings() -> Bindings {
    let names: BTreeMap<String, String> = [
        ("#v", "v"),
        ("#t", "tags"),
        ("#l", "lines"),
        ("#tot", "total"),
        ("#paid", "paid"),
        ("#gone", "gone"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    let values: BTreeMap<String, AttributeValue> = [
        (":v", AttributeValue::N(Number::from_i64(17))),
        (":one", AttributeValue::N(Number::from_i64(1))),
        (":p", AttributeValue::s("order#2026")),
        (":tag", AttributeValue::Ss(vec!["vip".into()])),
        (":min", AttributeValue::N(Number::from_i64(100))),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    Bindings::from_parts(names, values)
}

fn keys(c: &mut Criterion) {
    let s = AttributeValue::s("customer#0001234/order#2026-11-22");
    let n = AttributeValue::N(Number::from_i64(1_234_567));
    let mut encoded_s = Vec::new();
    encode_key_value(&s, &mut encoded_s).expect("encode");
    let mut encoded_n = Vec::new();
    encode_key_value(&n, &mut encoded_n).expect("encode");
    c.bench_function("key encode S", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(64);
            encode_key_value(black_box(&s), &mut out).expect("encode");
            out
        })
    });
    c.bench_function("key encode N", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(32);
            encode_key_value(black_box(&n), &mut out).expect("encode");
            out
        })
    });
    c.bench_function("key decode S", |b| {
        b.iter(|| decode_key_value(ScalarType::S, &mut black_box(encoded_s.as_slice())))
    });
    c.bench_function("key decode N", |b| {
        b.iter(|| decode_key_value(ScalarType::N, &mut black_box(encoded_n.as_slice())))
    });
}

fn items(c: &mut Criterion) {
    let json = item_json();
    let item = item();
    let stored = encode_item(&item);
    c.bench_function("item JSON parse (serde_json::Value, baseline)", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(&json)).expect("json"))
    });
    c.bench_function("item JSON decode (DynamoDB JSON to Item)", |b| {
        b.iter(|| {
            item_from_json(serde_json::from_str::<ItemJson>(black_box(&json)).expect("json"))
                .expect("item")
        })
    });
    // The cross-account ARN check's cost on a request with no ARN in it (issue 37): one
    // byte search of the body, to set beside the decode of the same body above.
    let body = format!(r#"{{"TableName":"orders","Item":{json}}}"#);
    c.bench_function(
        "request ARN pre-check (memmem \"arn:\" over the body)",
        |b| b.iter(|| memchr::memmem::find(black_box(body.as_bytes()), b"arn:")),
    );
    c.bench_function("item encode (storage)", |b| {
        b.iter(|| encode_item(black_box(&item)))
    });
    c.bench_function("item decode (storage)", |b| {
        b.iter(|| decode_item(black_box(&stored)).expect("decode"))
    });
}

const CONDITION: &str = "#v = :v AND begins_with(sk, :p) AND (attribute_not_exists(#gone) OR #tot > :min) AND size(#l) > :one";
const UPDATE: &str = "SET #v = #v + :one, #paid = :one ADD #t :tag REMOVE #gone";

fn expressions(c: &mut Criterion) {
    let item = item();
    let condition =
        parse_condition(CONDITION, &mut bindings(), "ConditionExpression").expect("condition");
    let update = parse_update(UPDATE, &mut bindings()).expect("update");
    // Bindings are built outside the timed part (parsing marks the ones it uses).
    c.bench_function("expression parse condition", |b| {
        b.iter_batched(
            bindings,
            |mut names_and_values| {
                parse_condition(
                    black_box(CONDITION),
                    &mut names_and_values,
                    "ConditionExpression",
                )
                .expect("parse")
            },
            BatchSize::SmallInput,
        )
    });
    c.bench_function("expression parse update", |b| {
        b.iter_batched(
            bindings,
            |mut names_and_values| {
                parse_update(black_box(UPDATE), &mut names_and_values).expect("parse")
            },
            BatchSize::SmallInput,
        )
    });
    c.bench_function("expression eval condition", |b| {
        b.iter(|| eval::condition::evaluate(black_box(&condition), black_box(&item)))
    });
    c.bench_function("expression apply update", |b| {
        b.iter(|| eval::update::apply(black_box(&update), black_box(&item)).expect("apply"))
    });
}

/// SigV4 verification of one signed GetItem request, signing-key cache warm: what
/// `kura serve --auth` adds to each request (canonical request, two SHA-256, one HMAC).
fn auth(c: &mut Criterion) {
    use kura_auth::sigv4;
    use kura_auth::{Authenticator, Credentials, HttpRequest};
    let file = r#"{"Credentials": [{"AccessKeyId": "AKIDBENCH", "SecretAccessKey": "bench-secret", "User": "bench"}]}"#;
    let auth = Authenticator::new(Credentials::from_json(file).expect("credentials"));
    let now = time::OffsetDateTime::now_utc();
    let date = format!(
        "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
        now.year(),
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second()
    );
    let body = br#"{"TableName":"bench","Key":{"pk":{"S":"user#00042"},"sk":{"S":"profile"}}}"#;
    let mut headers = vec![
        ("content-type", "application/x-amz-json-1.0".to_owned()),
        ("host", "localhost:8000".to_owned()),
        ("x-amz-date", date.clone()),
        ("x-amz-target", "DynamoDB_20120810.GetItem".to_owned()),
    ];
    let signed = "content-type;host;x-amz-date;x-amz-target";
    let plain: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let creq = sigv4::canonical_request(
        "POST",
        "/",
        "",
        &plain,
        signed,
        &sigv4::sha256_hex(body),
        None,
    );
    let scope = format!("{}/us-east-1/dynamodb/aws4_request", &date[..8]);
    let signature = sigv4::signature(
        &sigv4::signing_key("bench-secret", &date[..8], "us-east-1", "dynamodb"),
        &sigv4::string_to_sign(&date, &scope, &creq),
    );
    headers.push((
        "authorization",
        format!("AWS4-HMAC-SHA256 Credential=AKIDBENCH/{scope}, SignedHeaders={signed}, Signature={signature}"),
    ));
    let request = HttpRequest {
        method: "POST",
        path: "/",
        query: "",
        headers: headers.iter().map(|(n, v)| (*n, v.as_str())).collect(),
        body,
    };
    auth.verify(&request).expect("the request verifies");
    c.bench_function("auth/sigv4 verify GetItem (key cached)", |b| {
        b.iter(|| black_box(auth.verify(black_box(&request))).is_ok())
    });
    c.bench_function("auth/signing key derivation", |b| {
        b.iter(|| {
            sigv4::signing_key(
                black_box("bench-secret"),
                "20260101",
                "us-east-1",
                "dynamodb",
            )
        })
    });
}

/// What authorization adds to a request of a principal with the per-tenant policy of
/// docs/security.md: the request context (global keys cloned, LeadingKeys and Attributes
/// set, as kura-server builds it) and one evaluation of the policy.
fn authz(c: &mut Criterion) {
    use kura_auth::{Decision, Policy, RequestContext, evaluate};
    let policy = Policy::from_json(
        r#"{"Version": "2012-10-17", "Statement": [{
          "Sid": "OwnTenantItemsOnly", "Effect": "Allow",
          "Action": ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem",
                     "dynamodb:DeleteItem", "dynamodb:Query", "dynamodb:Scan",
                     "dynamodb:BatchGetItem", "dynamodb:BatchWriteItem",
                     "dynamodb:ConditionCheckItem", "dynamodb:PartiQL*"],
          "Resource": ["arn:aws:dynamodb:*:*:table/app", "arn:aws:dynamodb:*:*:table/app/index/*"],
          "Condition": {
            "ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["*#${aws:PrincipalTag/tenant}"]},
            "Null": {"dynamodb:LeadingKeys": "false"}}}]}"#,
    )
    .expect("policy");
    let policies = [policy];
    let mut base = RequestContext::new();
    base.set("aws:username", "alice");
    base.set("aws:PrincipalTag/tenant", "acme");
    base.set("aws:SourceIp", "127.0.0.1");
    base.set_current_time(std::time::SystemTime::now());
    let resource = "arn:aws:dynamodb:us-east-1:123456789012:table/app";
    c.bench_function(
        "auth/per-tenant policy GetItem (context + evaluation)",
        |b| {
            b.iter(|| {
                let mut ctx = base.clone();
                ctx.set_all("dynamodb:LeadingKeys", vec!["ORDER#acme".to_owned()]);
                ctx.set_all(
                    "dynamodb:Attributes",
                    vec!["pk".to_owned(), "sk".to_owned()],
                );
                let d = evaluate(&policies, "dynamodb:GetItem", black_box(resource), &ctx);
                assert_eq!(d, Decision::Allow);
                black_box(d)
            })
        },
    );
}

/// What one request's metrics cost: the per-request recording `--metrics false` turns off
/// (labels, latency histogram), and the engine's always-on counters (capacity, traffic).
fn metrics(c: &mut Criterion) {
    use kura_api::metrics::{Metrics, Observation};
    use kura_api::operation::Op;
    let engine = kura_engine::Engine::in_memory();
    let metrics = Metrics::new(kura_api::EngineSlot::new(engine.clone()), true, None);
    let elapsed = std::time::Duration::from_micros(180);
    c.bench_function(
        "metrics/record one GetItem (observation + labels + histogram)",
        |b| {
            b.iter(|| {
                let observation = Observation::default();
                observation.table(black_box("prod-shop-order"));
                metrics.record(black_box(Op::GetItem), &observation, elapsed, None);
            })
        },
    );
    let consumed = kura_engine::api::Consumed::table(0.5);
    let storage_key = b"\x00\x00\x00\x01\x8a\x12\x34\x56user-42\x00\x00order-7".to_vec();
    c.bench_function(
        "metrics/engine counters of one GetItem (capacity, traffic, recent reads and writes)",
        |b| {
            b.iter(|| {
                let table = engine.telemetry().table(black_box("prod-shop-order"));
                table.consume(&consumed, false);
                table.traffic.read(false);
                let now = engine.now_ms();
                table.eventual_read(black_box(&storage_key), now);
                table.key_read(black_box(&storage_key), now, &|_| None);
            })
        },
    );
    // What the advisor's checks of issue 35 add alone, beside the totals above.
    c.bench_function(
        "metrics/advisor additions to one GetItem (read-after-write check)",
        |b| {
            b.iter(|| {
                let table = engine.telemetry().table(black_box("prod-shop-order"));
                table.eventual_read(black_box(&storage_key), 0);
            })
        },
    );
    // The always-on hot-key count (issue 52, item 4) on one access: a tick, and one access
    // in eight its key counted. The same request's counters above are the baseline.
    let partition = kura_model::AttributeValue::S("user-42".into());
    c.bench_function(
        "metrics/hot-key count of one access (one in 8 counted, Space-Saving of 16)",
        |b| {
            b.iter(|| {
                let table = engine.telemetry().table(black_box("prod-shop-order"));
                table
                    .hot
                    .accessed(None, std::slice::from_ref(black_box(&partition)));
            })
        },
    );
    let many: Vec<kura_model::AttributeValue> = (0..4096)
        .map(|i| kura_model::AttributeValue::S(format!("user-{i}")))
        .collect();
    let mut next = 0usize;
    c.bench_function(
        "metrics/hot-key count of one access, keys always new (evictions)",
        |b| {
            b.iter(|| {
                next = (next + 1) % many.len();
                let table = engine.telemetry().table(black_box("prod-shop-order"));
                table
                    .hot
                    .accessed(None, std::slice::from_ref(black_box(&many[next])));
            })
        },
    );
    // A PutItem that replaces a 1 KB item by one with the same attributes: the counters
    // (capacity, the put, the replacement with its recent-keys lookup) and the scan for an
    // attribute the new item dropped (api.put-drops-attributes), done on the writer thread.
    let old = item();
    let new = item();
    let slot = kura_engine::counters::recent::Slot::of(&storage_key);
    c.bench_function(
        "metrics/engine counters of one replacing PutItem (capacity, traffic, dropped-attribute scan)",
        |b| {
            b.iter(|| {
                let dropped = black_box(&old)
                    .keys()
                    .find(|name| !black_box(&new).contains_key(*name))
                    .cloned();
                let table = engine.telemetry().table(black_box("prod-shop-order"));
                table.consume(&consumed, true);
                table.traffic.put(false, false);
                let now = engine.now_ms();
                table.key_written(slot, now);
                table.key_replaced(slot, now);
                if let Some(name) = dropped {
                    table.traffic.dropped(|| name);
                }
            })
        },
    );
}

/// What Contributor Insights adds to a request on a table that has it enabled: one item's
/// key recorded in the current minute's summaries (the common case: a key already counted).
fn insights(c: &mut Criterion) {
    use kura_engine::counters::insights::{EventKey, Insights, Mode};
    let insights = Insights::default();
    insights.enable(None, Mode::AccessedAndThrottledKeys);
    let now = 1_795_698_680_000;
    let keys: Vec<String> = (0..50).map(|i| format!("user-{i}")).collect();
    let mut i = 0;
    c.bench_function(
        "metrics/contributor insights, one access (table enabled)",
        |b| {
            b.iter(|| {
                i = (i + 1) % keys.len();
                let key = EventKey {
                    partition: &keys[i],
                    sort: Some("order-7"),
                };
                insights.accessed(None, black_box(&key), now);
            })
        },
    );
}

criterion_group!(
    benches,
    keys,
    items,
    expressions,
    auth,
    authz,
    metrics,
    insights
);
criterion_main!(benches);
