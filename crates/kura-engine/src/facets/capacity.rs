//! Capacity emulation's doors: [`Engine::capacity`].

use crate::catalog::PublishedTable;
use crate::context::RequestContext;
use crate::engine::Engine;
use crate::error::{EngineError, Result};
use crate::{counters, throttle};

/// Capacity emulation (`--enforce-capacity`): its switch and its check at the door.
pub struct Capacity<'a> {
    pub(super) engine: &'a Engine,
}

impl Capacity<'_> {
    /// Stops throttling while `paused` (seeding at start); resuming refills every bucket.
    pub fn pause(&self, paused: bool) {
        if let Some(throttle) = &self.engine.throttle {
            throttle.pause(paused);
        }
    }

    /// Whether capacity is emulated (`--enforce-capacity`).
    pub fn enforced(&self) -> bool {
        self.engine.throttle.is_some()
    }

    /// Lets a request on `table` (and `index`) through, or refuses it with
    /// DynamoDB's throttling error when capacity is emulated and the table, an index or the
    /// partition key value of `key` (a key or a whole item) is out of capacity. The caller
    /// passes the request's copy of the table; an unknown table has none and passes (the
    /// operation reports it).
    pub fn check_on(
        &self,
        ctx: &RequestContext,
        table: &PublishedTable,
        index: Option<&str>,
        access: throttle::Access,
        key: Option<&kura_model::wire::ItemJson>,
    ) -> Result<()> {
        let Some(throttle) = &self.engine.throttle else {
            return Ok(());
        };
        let record = table.0.as_ref();
        let table = record.name.as_str();
        // The partition key value in Contributor Insights' text: a string as sent, any
        // other type once validated.
        let partition = key
            .and_then(|key| key.get(&record.key_schema.hash.name))
            .and_then(|value| match value.as_string() {
                Some(s) => Some(s.to_owned()),
                None => value
                    .clone()
                    .into_value()
                    .ok()
                    .map(|v| counters::key_text(&v)),
            });
        let request = throttle::CapacityRequest {
            table: record,
            index,
            access,
            partition,
            region: &ctx.region,
        };
        let now = self.engine.clock.now_ms();
        throttle.may_run(&request, now).map_err(|refused| {
            // Contributor Insights' most throttled keys.
            if let Some(partition) = &request.partition {
                let stats = self.engine.counters.table(table);
                if stats.insights.active() {
                    stats.insights.throttled(
                        index,
                        &counters::insights::EventKey {
                            partition,
                            sort: None,
                        },
                        now,
                    );
                }
            }
            tracing::debug!(table, reason = %refused.reason.reason, "throttled");
            EngineError::Throttled(Box::new(refused))
        })
    }
}
