//! EnableKinesisStreamingDestination, DisableKinesisStreamingDestination,
//! DescribeKinesisStreamingDestination and UpdateKinesisStreamingDestination: which Kinesis
//! stream a table's changes go to, kept in its table record. A change takes effect with
//! the next write: Enable answers `ENABLING` and the destination is `ACTIVE` at once (on
//! DynamoDB it takes a while), Disable answers `DISABLING` and it is `DISABLED` at once.

use std::sync::Arc;

use kura_model::constraint::Constraints;
use kura_model::messages;

use super::destination::{MICROSECOND, MILLISECOND};
use super::stream::name_of_arn;
use crate::api::kinesis::*;
use crate::catalog::{KinesisDestinationRecord, TableRecord};
use crate::error::{EngineError, Result};
use crate::{Engine, keys};

const PRECISIONS: [&str; 2] = [MILLISECOND, MICROSECOND];

impl Engine {
    pub async fn enable_kinesis_streaming_destination(
        &self,
        input: KinesisStreamingDestinationInput,
    ) -> Result<KinesisStreamingDestinationOutput> {
        let (table, arn) = self.destination_request(&input.table_name, &input.stream_arn)?;
        let precision = precision(
            "enableKinesisStreamingConfiguration.approximateCreationDateTimePrecision",
            input.enable_kinesis_streaming_configuration.as_ref(),
        )?;
        let name = name_of_arn(&arn).unwrap_or_default().to_owned();
        let snapshot = self.store.snapshot()?;
        if snapshot
            .get(kura_store::Space::Meta, &keys::kinesis_name_key(&name))?
            .is_none()
        {
            return Err(EngineError::ResourceNotFound(format!(
                "Requested resource not found: Stream: {arn} not found"
            )));
        }
        drop(snapshot);
        let chosen = precision.clone();
        let target = arn.clone();
        self.change_destinations(&table, move |table| {
            if let Some(active) = table.kinesis_destinations.iter().find(|d| d.active) {
                return Err(EngineError::validation(if active.stream_arn == target {
                    format!("Table {} is already streaming to {target}.", table.name)
                } else {
                    format!(
                        "Table {} already has an enabled Kinesis streaming destination ({}); \
                         disable it first.",
                        table.name, active.stream_arn
                    )
                }));
            }
            table
                .kinesis_destinations
                .retain(|d| d.stream_arn != target);
            table.kinesis_destinations.push(KinesisDestinationRecord {
                stream_arn: target,
                active: true,
                precision: chosen,
            });
            Ok(())
        })
        .await?;
        Ok(KinesisStreamingDestinationOutput {
            table_name: table.name.clone(),
            stream_arn: arn,
            destination_status: "ENABLING",
            enable_kinesis_streaming_configuration: Some(KinesisStreamingConfiguration {
                approximate_creation_date_time_precision: Some(precision),
            }),
        })
    }

    pub async fn disable_kinesis_streaming_destination(
        &self,
        input: KinesisStreamingDestinationInput,
    ) -> Result<KinesisStreamingDestinationOutput> {
        let (table, arn) = self.destination_request(&input.table_name, &input.stream_arn)?;
        let target = arn.clone();
        self.change_destinations(&table, move |table| {
            active_destination(table, &target)?.active = false;
            Ok(())
        })
        .await?;
        Ok(KinesisStreamingDestinationOutput {
            table_name: table.name.clone(),
            stream_arn: arn,
            destination_status: "DISABLING",
            enable_kinesis_streaming_configuration: input.enable_kinesis_streaming_configuration,
        })
    }

    pub fn describe_kinesis_streaming_destination(
        &self,
        input: DescribeKinesisStreamingDestinationInput,
    ) -> Result<DescribeKinesisStreamingDestinationOutput> {
        let mut c = Constraints::new();
        c.required_text("tableName", input.table_name.as_deref(), 1, 1024);
        c.finish()?;
        let table = self.destination_table(input.table_name.as_deref().unwrap_or_default())?;
        Ok(DescribeKinesisStreamingDestinationOutput {
            table_name: table.name.clone(),
            kinesis_data_stream_destinations: table
                .kinesis_destinations
                .iter()
                .map(|d| KinesisDataStreamDestination {
                    stream_arn: d.stream_arn.clone(),
                    destination_status: if d.active { "ACTIVE" } else { "DISABLED" },
                    approximate_creation_date_time_precision: d.precision.clone(),
                })
                .collect(),
        })
    }

    pub async fn update_kinesis_streaming_destination(
        &self,
        input: UpdateKinesisStreamingDestinationInput,
    ) -> Result<UpdateKinesisStreamingDestinationOutput> {
        let (table, arn) = self.destination_request(&input.table_name, &input.stream_arn)?;
        let Some(configuration) = input.update_kinesis_streaming_configuration else {
            return Err(EngineError::validation(
                "UpdateKinesisStreamingConfiguration must be provided.",
            ));
        };
        let chosen = precision(
            "updateKinesisStreamingConfiguration.approximateCreationDateTimePrecision",
            Some(&configuration),
        )?;
        let target = arn.clone();
        self.change_destinations(&table, move |table| {
            let destination = active_destination(table, &target)?;
            if destination.precision == chosen {
                return Err(EngineError::validation(format!(
                    "The destination already uses {chosen} precision."
                )));
            }
            destination.precision = chosen;
            Ok(())
        })
        .await?;
        Ok(UpdateKinesisStreamingDestinationOutput {
            table_name: table.name.clone(),
            stream_arn: arn,
            destination_status: "UPDATING",
            update_kinesis_streaming_configuration: Some(configuration),
        })
    }

    /// The table and stream ARN of a destination request, checked.
    fn destination_request(
        &self,
        table_name: &Option<String>,
        stream_arn: &Option<String>,
    ) -> Result<(Arc<TableRecord>, String)> {
        let mut c = Constraints::new();
        c.required_text("tableName", table_name.as_deref(), 1, 1024);
        c.required_text("streamArn", stream_arn.as_deref(), 37, 1024);
        c.finish()?;
        let table = self.destination_table(table_name.as_deref().unwrap_or_default())?;
        let arn = stream_arn.clone().unwrap_or_default();
        if name_of_arn(&arn).is_none() {
            return Err(EngineError::validation(format!(
                "Invalid Kinesis stream ARN: {arn}"
            )));
        }
        Ok((table, arn))
    }

    /// A table named by name or ARN.
    fn destination_table(&self, name: &str) -> Result<Arc<TableRecord>> {
        let name = crate::arn::parse_table(name).unwrap_or(name);
        self.catalog
            .get(name)
            .ok_or_else(|| EngineError::ResourceNotFound(messages::table_not_found(name)))
    }

    /// Rewrites the table record with `change` applied, as a catalog change.
    async fn change_destinations(
        &self,
        table: &TableRecord,
        change: impl FnOnce(&mut TableRecord) -> Result<()> + Send + 'static,
    ) -> Result<()> {
        let catalog = self.catalog.clone();
        let name = table.name.clone();
        self.writer
            .submit(true, move |w| {
                let current = catalog.get(&name).ok_or_else(|| {
                    EngineError::ResourceNotFound(messages::table_not_found(&name))
                })?;
                let mut next = (*current).clone();
                change(&mut next)?;
                catalog.stage(w, Arc::new(next))
            })
            .await
    }
}

/// The table's active destination to `arn`, or the refusal of a request that needs one.
fn active_destination<'a>(
    table: &'a mut TableRecord,
    arn: &str,
) -> Result<&'a mut KinesisDestinationRecord> {
    let name = table.name.clone();
    table
        .kinesis_destinations
        .iter_mut()
        .find(|d| d.stream_arn == arn && d.active)
        .ok_or_else(|| EngineError::validation(format!("Table {name} is not streaming to {arn}.")))
}

/// The precision a configuration asks for (`MILLISECOND` when it names none).
fn precision(path: &str, configuration: Option<&KinesisStreamingConfiguration>) -> Result<String> {
    let wanted = configuration.and_then(|c| c.approximate_creation_date_time_precision.as_deref());
    let mut c = Constraints::new();
    c.one_of(path, wanted, &PRECISIONS);
    c.finish()?;
    Ok(wanted.unwrap_or(MILLISECOND).to_owned())
}
