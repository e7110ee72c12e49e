//! What every route shares: the engine slot, auth, the pipeline, metrics, triggers,
//! admission and the test controls; and the options `kura serve` builds it from.

use std::sync::Arc;

use axum::extract::FromRef;
use kura_engine::Engine;

use crate::metrics_access::MetricsAccess;
use crate::{Authenticator, admission, test_controls};
use kura_api::{EngineSlot, metrics, pipeline};

/// What every handler shares: the engine, the authenticator when `--auth` is on, and the
/// pipeline every API request runs through.
#[derive(Clone)]
pub(crate) struct Shared {
    /// The engine serving requests (test controls may swap it: restore, reset).
    pub(crate) slot: Arc<EngineSlot>,
    pub(crate) auth: Option<Arc<Authenticator>>,
    /// Metrics, audit and fault injection around every operation.
    pub(crate) pipeline: Arc<pipeline::Pipeline>,
    pub(crate) metrics: Arc<metrics::Metrics>,
    pub(crate) triggers: Option<Arc<kura_triggers::Triggers>>,
    pub(crate) trigger_admin: bool,
    /// Places for API requests running at once.
    pub(crate) admission: Arc<admission::Admission>,
    pub(crate) controls: Option<Arc<test_controls::TestControls>>,
    /// Who may read `GET /metrics` on the API's port.
    pub(crate) metrics_access: MetricsAccess,
    /// Regions kept apart (`--regions separate`).
    pub(crate) regions: Option<Arc<kura_engine::replication::Regions>>,
}

impl Shared {
    /// The engine now; a request keeps the one it started with.
    pub(crate) fn engine(&self) -> Arc<Engine> {
        self.slot.current()
    }

    /// The engine of the region a request is signed for: with regions kept apart, that
    /// region's own; otherwise the one engine every region shares. A region the drill
    /// isolated answers as an unreachable one: 503 ServiceUnavailable.
    pub(crate) fn engine_for(
        &self,
        region: &str,
    ) -> Result<Arc<Engine>, kura_api::error::ApiError> {
        match &self.regions {
            Some(regions) if regions.refuses_requests(region) => {
                let mut refused = kura_api::error::ApiError::unavailable();
                refused.message = Some(format!(
                    "The region {region} is isolated (test controls: kura regions heal {region})"
                ));
                Err(refused)
            }
            Some(regions) => Ok(regions.engine(region)?),
            None => Ok(self.engine()),
        }
    }
}

impl FromRef<Shared> for Arc<Engine> {
    fn from_ref(shared: &Shared) -> Arc<Engine> {
        shared.engine()
    }
}
