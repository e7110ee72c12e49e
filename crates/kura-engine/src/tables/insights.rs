//! UpdateContributorInsights, DescribeContributorInsights and ListContributorInsights: the
//! setting per table and GSI, kept in the table record; what is recorded lives in
//! [`crate::counters::insights`].

use std::sync::Arc;

use kura_model::constraint::Constraints;
use kura_model::messages;

use crate::Engine;
use crate::api::*;
use crate::catalog::{IndexKind, InsightsRecord, TableRecord};
use crate::counters::Counters;
use crate::counters::insights::Mode;
use crate::error::{EngineError, Result};

const ACTIONS: [&str; 2] = ["ENABLE", "DISABLE"];
const ACCESSED: &str = "ACCESSED_AND_THROTTLED_KEYS";
const THROTTLED: &str = "THROTTLED_KEYS";
const MODES: [&str; 2] = [ACCESSED, THROTTLED];
/// ListContributorInsights' largest page.
const MAX_RESULTS: i64 = 100;

fn mode_of(wire: &str) -> Mode {
    if wire == THROTTLED {
        Mode::ThrottledKeys
    } else {
        Mode::AccessedAndThrottledKeys
    }
}

fn wire_mode(wire: &str) -> &'static str {
    if wire == THROTTLED {
        THROTTLED
    } else {
        ACCESSED
    }
}

impl Engine {
    pub async fn update_contributor_insights(
        &self,
        input: UpdateContributorInsightsInput,
    ) -> Result<UpdateContributorInsightsOutput> {
        let mut c = Constraints::new();
        c.required_text("tableName", input.table_name.as_deref(), 1, 1024);
        c.not_null(
            "contributorInsightsAction",
            input.contributor_insights_action.as_ref(),
        );
        c.one_of(
            "contributorInsightsAction",
            input.contributor_insights_action.as_deref(),
            &ACTIONS,
        );
        c.one_of(
            "contributorInsightsMode",
            input.contributor_insights_mode.as_deref(),
            &MODES,
        );
        if input.index_name.is_some() {
            c.name("indexName", input.index_name.as_deref());
        }
        c.finish()?;
        let name = input.table_name.unwrap_or_default();
        let index = input.index_name;
        let enable = input.contributor_insights_action.as_deref() == Some("ENABLE");
        let mode = wire_mode(
            input
                .contributor_insights_mode
                .as_deref()
                .unwrap_or(ACCESSED),
        );
        let table = self.insights_table(&name, index.as_deref())?;
        let catalog = self.catalog.clone();
        let now = self.clock.now_ms();
        let target = index.clone();
        let table_name = table.name.clone();
        let counters = self.counters.clone();
        self.writer
            .submit(true, move |w| {
                let current = catalog.get(&table_name).ok_or_else(|| {
                    EngineError::ResourceNotFound(messages::table_not_found(&name))
                })?;
                let mut next = (*current).clone();
                next.insights.retain(|r| r.index != target);
                if enable {
                    next.insights.push(InsightsRecord {
                        index: target,
                        mode: mode.to_owned(),
                        updated_ms: now,
                    });
                }
                let next = Arc::new(next);
                catalog.stage(w, next.clone())?;
                // In commit order, so the recording always follows the last setting.
                w.after_commit(move || follow_record(&counters, &next));
                Ok(())
            })
            .await?;
        Ok(ContributorInsightsSummary {
            table_name: table.name.clone(),
            index_name: index,
            contributor_insights_status: if enable { "ENABLING" } else { "DISABLING" },
            contributor_insights_mode: enable.then_some(mode),
        })
    }

    pub fn describe_contributor_insights(
        &self,
        input: DescribeContributorInsightsInput,
    ) -> Result<DescribeContributorInsightsOutput> {
        let mut c = Constraints::new();
        c.required_text("tableName", input.table_name.as_deref(), 1, 1024);
        if input.index_name.is_some() {
            c.name("indexName", input.index_name.as_deref());
        }
        c.finish()?;
        let name = input.table_name.unwrap_or_default();
        let table = self.insights_table(&name, input.index_name.as_deref())?;
        let record = table.insights.iter().find(|r| r.index == input.index_name);
        Ok(DescribeContributorInsightsOutput {
            table_name: table.name.clone(),
            contributor_insights_rule_list: record
                .map(|r| rule_names(&table, r))
                .unwrap_or_default(),
            index_name: input.index_name,
            contributor_insights_status: if record.is_some() {
                "ENABLED"
            } else {
                "DISABLED"
            },
            last_update_date_time: record.map(|r| r.updated_ms as f64 / 1000.0),
            contributor_insights_mode: record.map(|r| wire_mode(&r.mode)),
        })
    }

    pub fn list_contributor_insights(
        &self,
        input: ListContributorInsightsInput,
    ) -> Result<ListContributorInsightsOutput> {
        let mut c = Constraints::new();
        if input.table_name.is_some() {
            c.required_text("tableName", input.table_name.as_deref(), 1, 1024);
        }
        c.at_most("maxResults", input.max_results, MAX_RESULTS);
        c.finish()?;
        let tables: Vec<Arc<TableRecord>> = match &input.table_name {
            Some(name) => vec![self.insights_table(name, None)?],
            None => self.catalog.all().values().cloned().collect(),
        };
        // The table and each of its GSIs, in name order, each with its setting.
        let mut all = Vec::new();
        for table in &tables {
            let globals = table
                .indexes
                .iter()
                .filter(|i| i.kind == IndexKind::Global)
                .map(|i| Some(i.name.clone()));
            for index in std::iter::once(None).chain(globals) {
                let record = table.insights.iter().find(|r| r.index == index);
                all.push(ContributorInsightsSummary {
                    table_name: table.name.clone(),
                    index_name: index,
                    contributor_insights_status: if record.is_some() {
                        "ENABLED"
                    } else {
                        "DISABLED"
                    },
                    contributor_insights_mode: record.map(|r| wire_mode(&r.mode)),
                });
            }
        }
        let start = match &input.next_token {
            None => 0,
            Some(token) => token
                .parse::<usize>()
                .map_err(|_| EngineError::validation(messages::INVALID_PAGINATION_TOKEN))?,
        };
        let page = match input.max_results {
            Some(n) if n > 0 => n as usize,
            _ => MAX_RESULTS as usize,
        };
        let end = start.saturating_add(page).min(all.len());
        let next_token = (end < all.len()).then(|| end.to_string());
        Ok(ListContributorInsightsOutput {
            contributor_insights_summaries: all
                .into_iter()
                .skip(start)
                .take(end.saturating_sub(start))
                .collect(),
            next_token,
        })
    }

    /// The table Contributor Insights is asked about, and its GSI when one is named.
    fn insights_table(&self, name: &str, index: Option<&str>) -> Result<Arc<TableRecord>> {
        let table = self
            .catalog
            .get(name)
            .ok_or_else(|| EngineError::ResourceNotFound(messages::table_not_found(name)))?;
        if let Some(index) = index
            && !table
                .indexes
                .iter()
                .any(|i| i.name == index && i.kind == IndexKind::Global)
        {
            return Err(EngineError::ResourceNotFound(messages::index_not_found(
                index, name,
            )));
        }
        Ok(table)
    }

    /// Turns recording back on for every table and GSI whose record says it is enabled
    /// (at open: what was recorded before the stop is gone, the setting is not).
    pub(crate) fn resume_insights(&self) {
        for table in self.catalog.all().values() {
            follow_record(&self.counters, table);
        }
    }
}

/// Makes what the engine records match `table`'s record: targets it enables record (in
/// their mode), others stop and forget.
pub(crate) fn follow_record(counters: &Counters, table: &TableRecord) {
    let enabled = &table.insights;
    if enabled.is_empty() && counters.existing(&table.name).is_none() {
        return;
    }
    let insights = &counters.application(&table.name).insights;
    for target in insights.targets() {
        if !enabled.iter().any(|r| r.index == target) {
            insights.disable(target.as_deref());
        }
    }
    for record in enabled {
        insights.enable(record.index.as_deref(), mode_of(&record.mode));
    }
}

/// The CloudWatch rule names AWS creates: most accessed (C) and most throttled (T) keys,
/// by partition key (PK) and, with a sort key, by partition and sort key (SK).
fn rule_names(table: &TableRecord, record: &InsightsRecord) -> Vec<String> {
    let has_sort = match &record.index {
        None => table.key_schema.range.is_some(),
        Some(name) => table
            .index(name)
            .is_some_and(|i| i.range_attributes().next().is_some()),
    };
    let throttled_only = record.mode == THROTTLED;
    let target = match &record.index {
        None => table.name.clone(),
        Some(index) => format!("{}-{index}", table.name),
    };
    let mut kinds = Vec::new();
    if !throttled_only {
        kinds.push("PKC");
    }
    kinds.push("PKT");
    if has_sort {
        if !throttled_only {
            kinds.push("SKC");
        }
        kinds.push("SKT");
    }
    kinds
        .into_iter()
        .map(|k| {
            format!(
                "DynamoDBContributorInsights-{k}-{target}-{}",
                record.updated_ms
            )
        })
        .collect()
}
