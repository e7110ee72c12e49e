//! Whether a Query or Scan of an index reads items from the table: an LSI fetches what
//! its entries lack, a GSI refuses to be asked for it.

use kura_expr::Condition;
use kura_model::messages;

use super::target::{Output, Target};
use crate::catalog::{IndexKind, IndexProjection};
use crate::error::{EngineError, Result};
use crate::indexes::entries::projects;

/// When a Query or Scan on an LSI reads each item from the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fetch {
    Never,
    /// The filter names attributes the entries lack; results are still the entries.
    ForFilter,
    /// The results need attributes the entries lack.
    ForOutput,
}

/// Whether each item must be fetched from the table because the index's entries lack
/// attributes the request needs: LSIs fetch them (charged to the table), a GSI refuses
/// them.
pub(super) fn needs_fetch(
    output: &Output,
    select: Option<&str>,
    filter: Option<&Condition>,
    target: &Target,
) -> Result<Fetch> {
    let Some(index) = &target.index else {
        return Ok(Fetch::Never);
    };
    if index.projection == IndexProjection::All {
        return Ok(Fetch::Never);
    }
    let missing = |top: &str| !projects(&target.table, index, top);
    let wants_more = match output {
        Output::Items {
            projection: Some(paths),
        } => paths.iter().any(|p| missing(p.top())),
        Output::Items { projection: None } => select == Some("ALL_ATTRIBUTES"),
        Output::Count => false,
    };
    if index.kind == IndexKind::Global {
        if wants_more && select == Some("ALL_ATTRIBUTES") {
            return Err(EngineError::validation(messages::select_all_on_gsi(
                &index.name,
            )));
        }
        // Asking a GSI for what it does not project is refused (localstack issue #478,
        // quoting AWS); a filter may still name such attributes, which are then missing.
        if let Output::Items {
            projection: Some(paths),
        } = output
        {
            let mut absent: Vec<&str> = Vec::new();
            for top in paths.iter().map(|p| p.top()) {
                if missing(top) && !absent.contains(&top) {
                    absent.push(top);
                }
            }
            if !absent.is_empty() {
                return Err(EngineError::validation(messages::gsi_does_not_project(
                    &index.name,
                    &absent,
                )));
            }
        }
        return Ok(Fetch::Never);
    }
    if wants_more {
        return Ok(Fetch::ForOutput);
    }
    let filter_wants_more = filter.is_some_and(|f| f.paths().iter().any(|p| missing(p.top())));
    Ok(if filter_wants_more {
        Fetch::ForFilter
    } else {
        Fetch::Never
    })
}

impl crate::Engine {
    /// [`needs_fetch`], counting a read refused for asking a GSI for attributes it does not
    /// project: the application's request fails, and the advisor says why
    /// (`projection.index-not-covered`).
    pub(super) fn fetch_plan(
        &self,
        table_name: &str,
        output: &Output,
        select: Option<&str>,
        filter: Option<&Condition>,
        target: &Target,
    ) -> Result<Fetch> {
        needs_fetch(output, select, filter, target).inspect_err(|_| {
            if let Some(index) = &target.index {
                self.counters
                    .table(table_name)
                    .gsi_read_refused(&index.name);
            }
        })
    }
}
