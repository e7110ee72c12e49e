//! UpdateContinuousBackups and DescribeContinuousBackups: point-in-time recovery.
//!
//! Continuous backups (on-demand backups) are always available, as in DynamoDB. Turning
//! point-in-time recovery on starts (or keeps) the table's change history; the window is
//! from the later of the moment it was enabled and `RecoveryPeriodInDays` ago, up to now.
//! Kura's history is exact to the change, so the latest restorable time is the present,
//! not DynamoDB's "about five minutes ago".

use std::sync::Arc;

use kura_model::constraint::Constraints;
use kura_model::messages::backups as msg;

use super::DAY_MS;
use crate::Engine;
use crate::api::*;
use crate::catalog::{PitrSpec, TableRecord};
use crate::error::{EngineError, Result};

/// Source: API Reference, `PointInTimeRecoverySpecification.RecoveryPeriodInDays`.
pub const MIN_RECOVERY_DAYS: i64 = 1;
pub const MAX_RECOVERY_DAYS: i64 = 35;

/// The recovery window of a table with `pitr`, as of `now_ms`: (earliest, latest).
pub(crate) fn window(pitr: &PitrSpec, now_ms: i64) -> (i64, i64) {
    let earliest = pitr
        .enabled_ms
        .max(now_ms - i64::from(pitr.recovery_days) * DAY_MS);
    (earliest.min(now_ms), now_ms)
}

fn description(table: &TableRecord, now_ms: i64) -> ContinuousBackupsDescription {
    let seconds = |ms: i64| ms as f64 / 1000.0;
    let point_in_time_recovery_description = match &table.pitr {
        None => PointInTimeRecoveryDescription {
            point_in_time_recovery_status: "DISABLED",
            recovery_period_in_days: None,
            earliest_restorable_date_time: None,
            latest_restorable_date_time: None,
        },
        Some(pitr) => {
            let (earliest, latest) = window(pitr, now_ms);
            PointInTimeRecoveryDescription {
                point_in_time_recovery_status: "ENABLED",
                recovery_period_in_days: Some(pitr.recovery_days),
                earliest_restorable_date_time: Some(seconds(earliest)),
                latest_restorable_date_time: Some(seconds(latest)),
            }
        }
    };
    ContinuousBackupsDescription {
        continuous_backups_status: "ENABLED",
        point_in_time_recovery_description,
    }
}

impl Engine {
    pub fn describe_continuous_backups(
        &self,
        input: DescribeContinuousBackupsInput,
    ) -> Result<DescribeContinuousBackupsOutput> {
        let mut c = Constraints::new();
        c.name("tableName", input.table_name.as_deref());
        c.finish()?;
        let name = input.table_name.unwrap_or_default();
        // A table still being created is not found, as on DynamoDB.
        let table = self
            .catalog
            .ready(&name)
            .ok_or_else(|| EngineError::TableNotFound(msg::table_not_found(&name)))?;
        Ok(DescribeContinuousBackupsOutput {
            continuous_backups_description: description(&table, self.clock.now_ms()),
        })
    }

    pub async fn update_continuous_backups(
        &self,
        input: UpdateContinuousBackupsInput,
    ) -> Result<UpdateContinuousBackupsOutput> {
        let mut c = Constraints::new();
        c.name("tableName", input.table_name.as_deref());
        let spec = input.point_in_time_recovery_specification;
        c.not_null("pointInTimeRecoverySpecification", spec.as_ref());
        if let Some(spec) = &spec {
            c.not_null(
                "pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled",
                spec.point_in_time_recovery_enabled.as_ref(),
            );
            c.at_least(
                "pointInTimeRecoverySpecification.recoveryPeriodInDays",
                spec.recovery_period_in_days,
                MIN_RECOVERY_DAYS,
            );
            c.at_most(
                "pointInTimeRecoverySpecification.recoveryPeriodInDays",
                spec.recovery_period_in_days,
                MAX_RECOVERY_DAYS,
            );
        }
        c.finish()?;
        let spec = spec.unwrap_or_default();
        let enable = spec.point_in_time_recovery_enabled.unwrap_or(false);
        let days = spec.recovery_period_in_days;
        if !enable && days.is_some() {
            return Err(EngineError::validation(msg::RECOVERY_PERIOD_WHEN_DISABLING));
        }
        let name = input.table_name.unwrap_or_default();
        let catalog = self.catalog.clone();
        let table = self
            .writer
            .submit(true, move |w| {
                let table = catalog
                    .ready(&name)
                    .ok_or_else(|| EngineError::TableNotFound(msg::table_not_found(&name)))?;
                let mut next = table.as_ref().clone();
                if enable {
                    let recovery_days = days.map_or(MAX_RECOVERY_DAYS as u32, |d| d as u32);
                    next.pitr = Some(match &table.pitr {
                        Some(on) => PitrSpec {
                            recovery_days,
                            ..on.clone()
                        },
                        None => PitrSpec {
                            enabled_ms: w.now_ms(),
                            recovery_days,
                        },
                    });
                    if next.history_from.is_none() {
                        next.history_from = Some(w.next_stamp());
                    }
                } else {
                    // The history stops being recorded once no backup or restore needs
                    // it either (`retention`).
                    next.pitr = None;
                }
                if next != *table {
                    let next = Arc::new(next);
                    catalog.stage(w, next.clone())?;
                    return Ok(next);
                }
                Ok(table)
            })
            .await?;
        tracing::info!(table = %table.name, enabled = enable, "point-in-time recovery");
        Ok(UpdateContinuousBackupsOutput {
            continuous_backups_description: description(&table, self.clock.now_ms()),
        })
    }
}
