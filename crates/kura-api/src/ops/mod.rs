//! The handlers, grouped by family (`tables`, `items`, ...), and [`dispatch`] from an
//! [`Op`] of the operation table to its handler. Each takes its input through the steps
//! every operation shares (`input::begin`: parse, label, intercept, authorize, admit),
//! calls the engine, and serialises its output; the pipeline does the rest.

mod answer;
mod backups;
mod global_tables;
mod input;
mod insights;
mod items;
mod kinesis;
mod partiql;
mod streams;
mod strong;
mod tables;
mod throttling;

pub(crate) use crate::call::Call;
use crate::error::ApiError;
use crate::operation::Op;

pub use answer::{item_json, json};

/// Runs `op`'s handler. Exhaustive over the operation table.
pub(crate) async fn dispatch(op: Op, call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    match op {
        Op::CreateTable => tables::create_table(call).await,
        Op::DescribeTable => tables::describe_table(call).await,
        Op::ListTables => tables::list_tables(call).await,
        Op::UpdateTable => tables::update_table(call).await,
        Op::CreateGlobalTable => global_tables::create_global_table(call).await,
        Op::DescribeGlobalTable => global_tables::describe_global_table(call).await,
        Op::ListGlobalTables => global_tables::list_global_tables(call).await,
        Op::UpdateGlobalTable => global_tables::update_global_table(call).await,
        Op::DescribeGlobalTableSettings => {
            global_tables::describe_global_table_settings(call).await
        }
        Op::UpdateGlobalTableSettings => global_tables::update_global_table_settings(call).await,
        Op::DescribeTableReplicaAutoScaling => {
            global_tables::describe_table_replica_auto_scaling(call).await
        }
        Op::UpdateTableReplicaAutoScaling => {
            global_tables::update_table_replica_auto_scaling(call).await
        }
        Op::DeleteTable => tables::delete_table(call).await,
        Op::TagResource => tables::tag_resource(call).await,
        Op::UntagResource => tables::untag_resource(call).await,
        Op::ListTagsOfResource => tables::list_tags_of_resource(call).await,
        Op::DescribeLimits => tables::describe_limits(call).await,
        Op::DescribeEndpoints => tables::describe_endpoints(call).await,
        Op::PutItem => items::put_item(call).await,
        Op::GetItem => items::get_item(call).await,
        Op::DeleteItem => items::delete_item(call).await,
        Op::UpdateItem => items::update_item(call).await,
        Op::Query => items::query(call).await,
        Op::Scan => items::scan(call).await,
        Op::SearchVectors => items::search_vectors(call).await,
        Op::BatchGetItem => items::batch_get_item(call).await,
        Op::BatchWriteItem => items::batch_write_item(call).await,
        Op::TransactWriteItems => items::transact_write_items(call).await,
        Op::TransactGetItems => items::transact_get_items(call).await,
        Op::ExecuteStatement => partiql::execute_statement(call).await,
        Op::BatchExecuteStatement => partiql::batch_execute_statement(call).await,
        Op::ExecuteTransaction => partiql::execute_transaction(call).await,
        Op::UpdateTimeToLive => tables::update_time_to_live(call).await,
        Op::DescribeTimeToLive => tables::describe_time_to_live(call).await,
        Op::DescribeContinuousBackups => backups::describe_continuous_backups(call).await,
        Op::UpdateContinuousBackups => backups::update_continuous_backups(call).await,
        Op::CreateBackup => backups::create_backup(call).await,
        Op::DescribeBackup => backups::describe_backup(call).await,
        Op::ListBackups => backups::list_backups(call).await,
        Op::DeleteBackup => backups::delete_backup(call).await,
        Op::RestoreTableFromBackup => backups::restore_table_from_backup(call).await,
        Op::RestoreTableToPointInTime => backups::restore_table_to_point_in_time(call).await,
        Op::ExportTableToPointInTime => backups::export_table_to_point_in_time(call).await,
        Op::DescribeExport => backups::describe_export(call).await,
        Op::ListExports => backups::list_exports(call).await,
        Op::ImportTable => backups::import_table(call).await,
        Op::DescribeImport => backups::describe_import(call).await,
        Op::ListImports => backups::list_imports(call).await,
        Op::PutResourcePolicy => tables::put_resource_policy(call).await,
        Op::GetResourcePolicy => tables::get_resource_policy(call).await,
        Op::DeleteResourcePolicy => tables::delete_resource_policy(call).await,
        Op::UpdateContributorInsights => insights::update_contributor_insights(call).await,
        Op::DescribeContributorInsights => insights::describe_contributor_insights(call).await,
        Op::ListContributorInsights => insights::list_contributor_insights(call).await,
        Op::ListStreams => streams::list_streams(call).await,
        Op::DescribeStream => streams::describe_stream(call).await,
        Op::GetShardIterator => streams::get_shard_iterator(call).await,
        Op::GetRecords => streams::get_records(call).await,
        Op::EnableKinesisStreamingDestination => kinesis::enable_destination(call).await,
        Op::DisableKinesisStreamingDestination => kinesis::disable_destination(call).await,
        Op::DescribeKinesisStreamingDestination => kinesis::describe_destination(call).await,
        Op::UpdateKinesisStreamingDestination => kinesis::update_destination(call).await,
        Op::KinesisAddTagsToStream
        | Op::KinesisCreateStream
        | Op::KinesisDecreaseStreamRetentionPeriod
        | Op::KinesisDeleteStream
        | Op::KinesisDescribeStream
        | Op::KinesisDescribeStreamSummary
        | Op::KinesisGetRecords
        | Op::KinesisGetShardIterator
        | Op::KinesisIncreaseStreamRetentionPeriod
        | Op::KinesisListShards
        | Op::KinesisListStreams
        | Op::KinesisListTagsForStream
        | Op::KinesisPutRecord
        | Op::KinesisPutRecords
        | Op::KinesisRemoveTagsFromStream
        | Op::KinesisMergeShards
        | Op::KinesisSplitShard
        | Op::KinesisUpdateShardCount => kinesis::dispatch(op, call).await,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use kura_engine::api::{Capacity, ConsumedCapacity, GetItemOutput, PageOutput};
    use kura_model::number::Number;
    use kura_model::value::AttributeValue;
    use proptest::prelude::*;

    type Item = BTreeMap<String, AttributeValue>;

    fn attribute_value() -> impl Strategy<Value = AttributeValue> {
        let number = (any::<i64>(), 0u32..20).prop_map(|(m, e)| {
            Number::parse(&format!("{m}e-{e}")).unwrap_or_else(|_| Number::parse("0").expect("0"))
        });
        let leaf = prop_oneof![
            any::<String>().prop_map(AttributeValue::S),
            "[\\x00-\\x7f\"\\\\/]{0,40}".prop_map(AttributeValue::S),
            number.clone().prop_map(AttributeValue::N),
            prop::collection::vec(any::<u8>(), 0..20).prop_map(AttributeValue::B),
            any::<bool>().prop_map(AttributeValue::Bool),
            Just(AttributeValue::Null),
            prop::collection::vec(any::<String>(), 1..4).prop_map(AttributeValue::Ss),
            prop::collection::vec(number, 1..4).prop_map(AttributeValue::Ns),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(AttributeValue::L),
                prop::collection::btree_map(any::<String>(), inner, 0..4)
                    .prop_map(AttributeValue::M),
            ]
        })
    }

    fn item() -> impl Strategy<Value = Item> {
        prop::collection::btree_map(any::<String>(), attribute_value(), 0..6)
    }

    fn capacity() -> impl Strategy<Value = Option<ConsumedCapacity>> {
        let units = any::<f64>().prop_filter("finite", |f| f.is_finite());
        prop::option::of(
            (units.clone(), prop::option::of(units)).prop_map(|(total, read)| {
                let part = Capacity {
                    capacity_units: total,
                    read_capacity_units: read,
                    write_capacity_units: None,
                };
                ConsumedCapacity {
                    table_name: "t".into(),
                    capacity_units: total,
                    read_capacity_units: read,
                    write_capacity_units: None,
                    table: Some(part.clone()),
                    global_secondary_indexes: Some(BTreeMap::from([("g".to_owned(), part)])),
                    local_secondary_indexes: None,
                    vector_indexes: None,
                }
            }),
        )
    }

    fn same_bytes<T: super::answer::ItemAnswer>(answer: &T) -> Result<(), TestCaseError> {
        prop_assert_eq!(
            String::from_utf8(super::item_json(answer).expect("sonic")).expect("utf-8"),
            serde_json::to_string(answer).expect("serde_json")
        );
        Ok(())
    }

    proptest! {
        #[test]
        fn pages_are_the_bytes_serde_json_writes(
            items in prop::option::of(prop::collection::vec(item(), 0..4)),
            count in any::<usize>(),
            scanned_count in any::<usize>(),
            last_evaluated_key in prop::option::of(item()),
            consumed_capacity in capacity(),
        ) {
            same_bytes(&PageOutput { items, count, scanned_count, last_evaluated_key, consumed_capacity })?;
        }

        #[test]
        fn items_are_the_bytes_serde_json_writes(
            item in prop::option::of(item()),
            consumed_capacity in capacity(),
        ) {
            same_bytes(&GetItemOutput { item, consumed_capacity })?;
        }
    }
}
