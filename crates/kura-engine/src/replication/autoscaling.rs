//! DescribeTableReplicaAutoScaling and UpdateTableReplicaAutoScaling. Kura scales nothing
//! (capacity is what the table says), so a replica has no auto scaling settings to report
//! and an update is accepted without effect; the answer lists every replica, this region's
//! first, with its GSIs.

use kura_model::constraint::Constraints;
use kura_model::messages;

use super::status;
use crate::api::*;
use crate::catalog::IndexKind;
use crate::error::{EngineError, Result};
use crate::{Engine, RequestContext};

impl Engine {
    pub fn describe_table_replica_auto_scaling(
        &self,
        ctx: &RequestContext,
        input: DescribeTableInput,
    ) -> Result<TableAutoScalingOutput> {
        let mut c = Constraints::new();
        c.name("tableName", input.table_name.as_deref());
        c.finish()?;
        let name = input.table_name.unwrap_or_default();
        let table = self
            .catalog
            .get(&name)
            .ok_or_else(|| EngineError::ResourceNotFound(messages::table_not_found(&name)))?;
        let indexes = || {
            table
                .indexes
                .iter()
                .filter(|i| i.kind == IndexKind::Global)
                .map(|i| IndexAutoScaling {
                    index_name: i.name.clone(),
                    index_status: i.status(),
                })
                .collect::<Vec<_>>()
        };
        let own = ReplicaAutoScaling {
            region_name: ctx.region.clone(),
            replica_status: if table.creating() {
                "CREATING"
            } else {
                "ACTIVE"
            }
            .into(),
            global_secondary_indexes: indexes(),
        };
        let others = status::current(&table)
            .into_iter()
            .flat_map(|g| g.replicas.iter())
            .map(|r| ReplicaAutoScaling {
                region_name: r.region.clone(),
                replica_status: r.status.clone(),
                global_secondary_indexes: indexes(),
            });
        let table_status = if table.creating() {
            "CREATING"
        } else if status::adding_replica(&table) {
            "UPDATING"
        } else {
            "ACTIVE"
        };
        Ok(TableAutoScalingOutput {
            table_auto_scaling_description: TableAutoScalingDescription {
                table_name: name.clone(),
                table_status,
                replicas: std::iter::once(own).chain(others).collect(),
            },
        })
    }

    pub fn update_table_replica_auto_scaling(
        &self,
        ctx: &RequestContext,
        input: UpdateTableReplicaAutoScalingInput,
    ) -> Result<TableAutoScalingOutput> {
        self.describe_table_replica_auto_scaling(
            ctx,
            TableNameInput {
                table_name: input.table_name,
            },
        )
    }
}
