//! Issue 58, "Fidelity III": the last behaviours where Kura answered otherwise than
//! DynamoDB, through the SDKs. Sources and the choices made where none was captured:
//! docs/compat.md.

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeAction, AttributeDefinition, AttributeValue as Av, AttributeValueUpdate, BillingMode,
    CreateGlobalSecondaryIndexAction, GlobalSecondaryIndex, GlobalSecondaryIndexUpdate, KeyType,
    LocalSecondaryIndex, Projection, ProjectionType, ScalarAttributeType as St, Select,
};
use aws_sdk_dynamodbstreams::Client as StreamsClient;
use aws_sdk_dynamodbstreams::types::{ShardFilter, ShardFilterType, ShardIteratorType};

use super::{code, create_table, def, key, message};

pub const INVALID: &str = "One or more parameter values were invalid: ";

pub fn s(v: &str) -> Av {
    Av::S(v.to_owned())
}

pub fn item(pairs: &[(&str, Av)]) -> HashMap<String, Av> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

pub fn gsi(name: &str, keys: &[(&str, KeyType)], projection: Projection) -> GlobalSecondaryIndex {
    let mut b = GlobalSecondaryIndex::builder()
        .index_name(name)
        .projection(projection);
    for (attr, ty) in keys {
        b = b.key_schema(key(attr, ty.clone()));
    }
    b.build().expect("gsi")
}

pub fn projection(ty: ProjectionType, non_key: &[&str]) -> Projection {
    let mut b = Projection::builder().projection_type(ty);
    for n in non_key {
        b = b.non_key_attributes(*n);
    }
    b.build()
}

pub fn keys_only() -> Projection {
    projection(ProjectionType::KeysOnly, &[])
}

/// Asserts a ValidationException with exactly `expected`.
pub fn refused<T: std::fmt::Debug, E, R>(
    result: Result<T, aws_sdk_dynamodb::error::SdkError<E, R>>,
    expected: &str,
    what: &str,
) where
    E: aws_sdk_dynamodb::error::ProvideErrorMetadata + std::fmt::Debug,
    R: std::fmt::Debug,
{
    let err = result.expect_err(what);
    assert_eq!(code(&err), "ValidationException", "{what}: {err:?}");
    assert_eq!(message(&err), expected, "{what}");
}

fn streams_code<E: aws_sdk_dynamodbstreams::error::ProvideErrorMetadata, R>(
    err: &aws_sdk_dynamodbstreams::error::SdkError<E, R>,
) -> (String, String) {
    let e = err.as_service_error();
    (
        e.and_then(|e| e.code()).unwrap_or("<none>").to_owned(),
        e.and_then(|e| e.message()).unwrap_or("").to_owned(),
    )
}

// ---- streams ----

/// DescribeStream lists shards by ShardId; an empty shard's own StartingSequenceNumber
/// opens an AT or AFTER iterator; malformed ListStreams starts and incomplete ShardFilters
/// are refused.
pub async fn streams(client: &Client, streams: &StreamsClient, table: &str) {
    super::streams::create_streamed_table(client, table).await;
    let arn = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .expect("describe table")
        .table()
        .and_then(|t| t.latest_stream_arn())
        .expect("a stream")
        .to_owned();
    let described = streams
        .describe_stream()
        .stream_arn(&arn)
        .send()
        .await
        .expect("describe stream");
    let shards = described
        .stream_description()
        .map(|d| d.shards().to_vec())
        .unwrap_or_default();
    assert!(shards.len() > 1, "a new stream has several shards");
    let ids: Vec<String> = shards
        .iter()
        .filter_map(|s| s.shard_id().map(str::to_owned))
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "shards in ShardId order");
    // One by one, each page starting after the last id, gives the same order.
    let mut paged = Vec::new();
    let mut start: Option<String> = None;
    loop {
        let page = streams
            .describe_stream()
            .stream_arn(&arn)
            .limit(1)
            .set_exclusive_start_shard_id(start.clone())
            .send()
            .await
            .expect("page");
        let d = page.stream_description().expect("description");
        paged.extend(
            d.shards()
                .iter()
                .filter_map(|s| s.shard_id().map(str::to_owned)),
        );
        match d.last_evaluated_shard_id() {
            Some(last) => start = Some(last.to_owned()),
            None => break,
        }
    }
    assert_eq!(paged, sorted);

    // Every shard is empty: its StartingSequenceNumber opens both iterator types.
    let mut iterators = Vec::new();
    for shard in &shards {
        let first = shard
            .sequence_number_range()
            .and_then(|r| r.starting_sequence_number())
            .expect("starting sequence number");
        for kind in [
            ShardIteratorType::AtSequenceNumber,
            ShardIteratorType::AfterSequenceNumber,
        ] {
            let it = streams
                .get_shard_iterator()
                .stream_arn(&arn)
                .shard_id(shard.shard_id().unwrap_or_default())
                .shard_iterator_type(kind.clone())
                .sequence_number(first)
                .send()
                .await
                .unwrap_or_else(|e| panic!("{kind:?} at an empty shard's start: {e:?}"))
                .shard_iterator()
                .expect("iterator")
                .to_owned();
            let records = streams
                .get_records()
                .shard_iterator(&it)
                .send()
                .await
                .expect("get records");
            assert!(records.records().is_empty());
            iterators.push(it);
        }
    }
    // The iterators miss nothing written after them: the one new record is read once by
    // each type (AT and AFTER) on the shard that took it.
    client
        .put_item()
        .table_name(table)
        .item("pk", s("after"))
        .send()
        .await
        .expect("put");
    let mut read = 0;
    for it in &iterators {
        let records = streams
            .get_records()
            .shard_iterator(it)
            .send()
            .await
            .expect("get records");
        read += records.records().len();
    }
    assert_eq!(read, 2, "one record, read by the AT and the AFTER iterator");

    // ListStreams: a start that is not a stream ARN.
    let long_enough = "this-is-not-a-stream-arn-but-it-is-long-enough";
    let err = streams
        .list_streams()
        .exclusive_start_stream_arn(long_enough)
        .send()
        .await
        .expect_err("malformed start");
    assert_eq!(
        streams_code(&err),
        (
            "ValidationException".to_owned(),
            format!("Invalid StreamArn: {long_enough}")
        )
    );
    let err = streams
        .list_streams()
        .exclusive_start_stream_arn("short")
        .send()
        .await
        .expect_err("short start");
    assert_eq!(
        streams_code(&err),
        (
            "ValidationException".to_owned(),
            "1 validation error detected: Value 'short' at 'exclusiveStartStreamArn' failed to satisfy constraint: Member must have length greater than or equal to 37".to_owned()
        )
    );
    // A well-formed ARN of a stream that does not exist still pages.
    let gone = format!("{}x", &arn[..arn.len() - 1]);
    streams
        .list_streams()
        .exclusive_start_stream_arn(&gone)
        .send()
        .await
        .expect("a well-formed unknown start");

    // DescribeStream: a ShardFilter needs both members.
    let first_id = ids.first().cloned().unwrap_or_default();
    for (filter, path) in [
        (
            ShardFilter::builder()
                .r#type(ShardFilterType::ChildShards)
                .build(),
            "shardFilter.shardId",
        ),
        (
            ShardFilter::builder().shard_id(&first_id).build(),
            "shardFilter.type",
        ),
    ] {
        let err = streams
            .describe_stream()
            .stream_arn(&arn)
            .shard_filter(filter)
            .send()
            .await
            .expect_err("incomplete ShardFilter");
        assert_eq!(
            streams_code(&err),
            (
                "ValidationException".to_owned(),
                format!(
                    "1 validation error detected: Value null at '{path}' failed to satisfy constraint: Member must not be null"
                )
            )
        );
    }
}

// ---- limits ----

/// Key attribute names and projected non-key attributes of indexes over 255 bytes are
/// framework constraints, reported before any definition check.
pub async fn index_name_limits(client: &Client) {
    let long = "a".repeat(256);
    let too_long = |path: &str, value: &str| {
        format!(
            "Value '{value}' at '{path}' failed to satisfy constraint: Member must have length less than or equal to 255"
        )
    };
    let one = |m: String| format!("1 validation error detected: {m}");
    let base = || {
        client
            .create_table()
            .table_name("LongNames")
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(def("pk", St::S))
            .attribute_definitions(def("sk", St::S))
            .key_schema(key("pk", KeyType::Hash))
            .key_schema(key("sk", KeyType::Range))
    };
    // A GSI key name over 255 bytes that is not even defined: the length is reported.
    refused(
        base()
            .global_secondary_indexes(gsi("byLong", &[(&long, KeyType::Hash)], keys_only()))
            .send()
            .await,
        &one(too_long(
            "globalSecondaryIndexes.1.member.keySchema.1.member.attributeName",
            &long,
        )),
        "long GSI key name",
    );
    // Defined: the definition's name is reported too, first.
    refused(
        base()
            .attribute_definitions(def(&long, St::S))
            .global_secondary_indexes(gsi("byLong", &[(&long, KeyType::Hash)], keys_only()))
            .send()
            .await,
        &format!(
            "2 validation errors detected: {}; {}",
            too_long("attributeDefinitions.3.member.attributeName", &long),
            too_long(
                "globalSecondaryIndexes.1.member.keySchema.1.member.attributeName",
                &long
            )
        ),
        "long defined GSI key name",
    );
    let lsi = LocalSecondaryIndex::builder()
        .index_name("lsi1")
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key(&long, KeyType::Range))
        .projection(keys_only())
        .build()
        .expect("lsi");
    refused(
        base().local_secondary_indexes(lsi).send().await,
        &one(too_long(
            "localSecondaryIndexes.1.member.keySchema.2.member.attributeName",
            &long,
        )),
        "long LSI key name",
    );
    refused(
        base()
            .global_secondary_indexes(gsi(
                "byPk",
                &[("pk", KeyType::Hash)],
                projection(ProjectionType::Include, &["ok", &long]),
            ))
            .send()
            .await,
        &one(too_long(
            "globalSecondaryIndexes.1.member.projection.nonKeyAttributes.2.member",
            &long,
        )),
        "long projected attribute",
    );
    // ALL projects long non-key names without naming them.
    base()
        .global_secondary_indexes(gsi(
            "byPk",
            &[("pk", KeyType::Hash)],
            projection(ProjectionType::All, &[]),
        ))
        .send()
        .await
        .expect("ALL");
    client
        .put_item()
        .table_name("LongNames")
        .item("pk", s("p"))
        .item("sk", s("s"))
        .item(&long, s("v"))
        .send()
        .await
        .expect("a long non-key name");
    // The table's own key names.
    refused(
        client
            .create_table()
            .table_name("LongKey")
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(def("pk", St::S))
            .key_schema(key(&long, KeyType::Hash))
            .send()
            .await,
        &one(too_long("keySchema.1.member.attributeName", &long)),
        "long table key name",
    );
    // UpdateTable's new GSI.
    let create = CreateGlobalSecondaryIndexAction::builder()
        .index_name("late")
        .key_schema(key(&long, KeyType::Hash))
        .projection(keys_only())
        .build()
        .expect("create");
    refused(
        client
            .update_table()
            .table_name("LongNames")
            .attribute_definitions(def("other", St::S))
            .global_secondary_index_updates(
                GlobalSecondaryIndexUpdate::builder().create(create).build(),
            )
            .send()
            .await,
        &one(too_long(
            "globalSecondaryIndexUpdates.1.member.create.keySchema.1.member.attributeName",
            &long,
        )),
        "long key name of a new GSI",
    );
}

/// Attribute names of 65,536 bytes or more, and empty ones, are refused wherever a name
/// is given: items, nested maps, AttributesToGet, AttributeUpdates, expression names.
pub async fn attribute_name_limits(client: &Client, table: &str) {
    create_table(client, table, "pk", None).await;
    let too_large =
        "1 validation error detected: Attribute name is too large, must be less than 65536 bytes";
    let empty = "1 validation error detected: Empty attribute name";
    let max = "n".repeat(65_535);
    let over = "n".repeat(65_536);
    client
        .put_item()
        .table_name(table)
        .item("pk", s("max"))
        .item(&max, s("v"))
        .send()
        .await
        .expect("a 65,535-byte name");
    refused(
        client
            .put_item()
            .table_name(table)
            .item("pk", s("over"))
            .item(&over, s("v"))
            .send()
            .await,
        too_large,
        "a 65,536-byte name",
    );
    refused(
        client
            .put_item()
            .table_name(table)
            .item("pk", s("over"))
            .item("m", Av::M(item(&[(&over, s("v"))])))
            .send()
            .await,
        too_large,
        "a 65,536-byte map key",
    );
    refused(
        client
            .update_item()
            .table_name(table)
            .key("pk", s("over"))
            .update_expression("SET #n = :v")
            .expression_attribute_names("#n", &over)
            .expression_attribute_values(":v", s("v"))
            .send()
            .await,
        too_large,
        "a 65,536-byte expression attribute name",
    );
    refused(
        client
            .update_item()
            .table_name(table)
            .key("pk", s("over"))
            .attribute_updates(
                &over,
                AttributeValueUpdate::builder()
                    .action(AttributeAction::Put)
                    .value(s("v"))
                    .build(),
            )
            .send()
            .await,
        too_large,
        "a 65,536-byte AttributeUpdates name",
    );
    refused(
        client
            .get_item()
            .table_name(table)
            .key("pk", s("max"))
            .attributes_to_get(&over)
            .send()
            .await,
        too_large,
        "a 65,536-byte AttributesToGet name",
    );
    // Empty names.
    refused(
        client
            .put_item()
            .table_name(table)
            .item("pk", s("empty"))
            .item("", s("v"))
            .send()
            .await,
        empty,
        "an empty name in an item",
    );
    refused(
        client
            .get_item()
            .table_name(table)
            .key("pk", s("max"))
            .attributes_to_get("")
            .send()
            .await,
        empty,
        "an empty AttributesToGet name",
    );
    refused(
        client
            .update_item()
            .table_name(table)
            .key("pk", s("empty"))
            .attribute_updates(
                "",
                AttributeValueUpdate::builder()
                    .action(AttributeAction::Put)
                    .value(s("v"))
                    .build(),
            )
            .send()
            .await,
        empty,
        "an empty AttributeUpdates name",
    );
    let got = client
        .get_item()
        .table_name(table)
        .key("pk", s("empty"))
        .send()
        .await
        .expect("get");
    assert!(got.item().is_none(), "nothing refused was written");
}

// ---- GSI and table validation ----

/// UpdateTable's new GSI needs its keys in the request's own AttributeDefinitions, with
/// the types they already have; duplicate definitions name the attribute.
pub async fn index_definitions(client: &Client) {
    create_table(client, "Defs", "pk", Some(("sk", St::S))).await;
    let create = |keys: &[(&str, KeyType)]| {
        let mut b = CreateGlobalSecondaryIndexAction::builder()
            .index_name("bySk")
            .projection(keys_only());
        for (attr, ty) in keys {
            b = b.key_schema(key(attr, ty.clone()));
        }
        GlobalSecondaryIndexUpdate::builder()
            .create(b.build().expect("create"))
            .build()
    };
    // No AttributeDefinitions at all, though the table defines sk.
    refused(
        client
            .update_table()
            .table_name("Defs")
            .global_secondary_index_updates(create(&[("sk", KeyType::Hash)]))
            .send()
            .await,
        &format!("{INVALID}AttributeDefinitions is not specified for index: bySk"),
        "no definitions",
    );
    // Some, without the key the table already defines.
    refused(
        client
            .update_table()
            .table_name("Defs")
            .attribute_definitions(def("g", St::S))
            .global_secondary_index_updates(create(&[("g", KeyType::Hash), ("sk", KeyType::Range)]))
            .send()
            .await,
        &format!(
            "{INVALID}Some index key attributes are not defined in AttributeDefinitions. Keys: [g, sk], AttributeDefinitions: [g]"
        ),
        "a key defined only by the table",
    );
    // A key attribute redefined with another type.
    refused(
        client
            .update_table()
            .table_name("Defs")
            .attribute_definitions(def("sk", St::N))
            .global_secondary_index_updates(create(&[("sk", KeyType::Hash)]))
            .send()
            .await,
        &format!(
            "{INVALID}Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. Existing schema: [sk:S] New schema: [sk:N]"
        ),
        "a key retyped",
    );
    // Defined again with its own type: accepted.
    client
        .update_table()
        .table_name("Defs")
        .attribute_definitions(def("sk", St::S))
        .global_secondary_index_updates(create(&[("sk", KeyType::Hash)]))
        .send()
        .await
        .expect("a GSI on a key attribute, defined again");

    // Duplicate AttributeDefinitions name the attribute.
    refused(
        client
            .create_table()
            .table_name("Dup")
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(def("pk", St::S))
            .attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name("pk")
                    .attribute_type(St::S)
                    .build()
                    .expect("def"),
            )
            .key_schema(key("pk", KeyType::Hash))
            .send()
            .await,
        "Attribute Name is duplicated: pk",
        "duplicate definitions",
    );
}

/// A GSI answers only what it projects: asking for more is refused. A key condition on
/// an attribute outside the GSI's key is "not supported".
pub async fn index_reads(client: &Client) {
    client
        .create_table()
        .table_name("Proj")
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(def("pk", St::S))
        .attribute_definitions(def("g", St::S))
        .key_schema(key("pk", KeyType::Hash))
        .global_secondary_indexes(gsi(
            "byG",
            &[("g", KeyType::Hash)],
            projection(ProjectionType::Include, &["shown"]),
        ))
        .send()
        .await
        .expect("create");
    client
        .put_item()
        .table_name("Proj")
        .item("pk", s("p"))
        .item("g", s("G"))
        .item("shown", s("yes"))
        .item("xhidden", s("no"))
        .send()
        .await
        .expect("put");
    let query = || {
        client
            .query()
            .table_name("Proj")
            .index_name("byG")
            .key_condition_expression("g = :g")
            .expression_attribute_values(":g", s("G"))
    };
    let not_projected =
        |attrs: &str| format!("{INVALID}Global secondary index byG does not project [{attrs}]");
    refused(
        query().projection_expression("pk, xhidden").send().await,
        &not_projected("xhidden"),
        "Query with ProjectionExpression",
    );
    refused(
        query()
            .projection_expression("xhidden.x, shown, xother")
            .send()
            .await,
        &not_projected("xhidden, xother"),
        "Query with nested paths",
    );
    refused(
        client
            .scan()
            .table_name("Proj")
            .index_name("byG")
            .select(Select::SpecificAttributes)
            .attributes_to_get("xhidden")
            .send()
            .await,
        &not_projected("xhidden"),
        "Scan with AttributesToGet",
    );
    refused(
        client
            .scan()
            .table_name("Proj")
            .index_name("byG")
            .projection_expression("xhidden")
            .send()
            .await,
        &not_projected("xhidden"),
        "Scan with ProjectionExpression",
    );
    let got = query()
        .projection_expression("pk, g, shown")
        .send()
        .await
        .expect("projected attributes");
    assert_eq!(got.count(), 1);
    // A filter may name what the index lacks: it is simply missing there.
    let got = query()
        .filter_expression("attribute_not_exists(xhidden)")
        .send()
        .await
        .expect("filter on an unprojected attribute");
    assert_eq!(got.count(), 1);
    // A key condition on an attribute outside the GSI's key.
    refused(
        client
            .query()
            .table_name("Proj")
            .index_name("byG")
            .key_condition_expression("g = :g AND shown = :s")
            .expression_attribute_values(":g", s("G"))
            .expression_attribute_values(":s", s("yes"))
            .send()
            .await,
        "Query key condition not supported",
        "a non-key attribute in a GSI key condition",
    );
}
