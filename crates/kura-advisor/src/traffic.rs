//! The checks that read what Kura saw: index use, request shapes, hot partitions.

use kura_engine::counters::TrafficSnapshot;

use kura_engine::design::IndexKind;

use crate::check::{Check, SCAN_PAGE_BYTES};

impl Check<'_> {
    /// Index use: GSIs nothing reads, LSIs never read with strong consistency.
    pub(super) fn index_use(&mut self, counters: &kura_engine::counters::TableCounters) {
        use kura_engine::counters::IndexScope;
        let requests = counters.requests.load(std::sync::atomic::Ordering::Relaxed);
        let used = counters.index_consumption();
        let pages = |scope: IndexScope, name: &str| {
            used.iter()
                .find(|(s, n, _)| *s == scope && n == name)
                .map_or((0, 0), |(_, _, c)| {
                    (
                        c.pages.load(std::sync::atomic::Ordering::Relaxed),
                        c.consistent_pages
                            .load(std::sync::atomic::Ordering::Relaxed),
                    )
                })
        };
        // Index pages that had to read the table as well, and GSI reads refused for
        // asking what the index does not project (each one a failed request).
        for (scope, name, c) in &used {
            let all = c.pages.load(std::sync::atomic::Ordering::Relaxed);
            let followed = c.followed_pages.load(std::sync::atomic::Ordering::Relaxed);
            let refused = c.refused_reads.load(std::sync::atomic::Ordering::Relaxed);
            let mut seen = Vec::new();
            if followed >= 10 && followed * 10 >= all {
                let how = match scope {
                    IndexScope::Local => {
                        "fetched attributes the LSI does not project from the table"
                    }
                    IndexScope::Global => {
                        "were followed within 10 s by a GetItem or BatchGetItem of a key they returned"
                    }
                };
                seen.push(format!(
                    "{followed} of {all} Query/Scan pages on {name} {how}"
                ));
            }
            if refused > 0 {
                seen.push(format!(
                    "{refused} Query/Scan request(s) on {name} asked for attributes it does not project and were refused"
                ));
            }
            if !seen.is_empty() {
                self.found("projection.index-not-covered", Some(name), seen.join("; "));
            }
        }
        for index in &self.table.indexes {
            match index.kind {
                IndexKind::Global => {
                    let (read, _) = pages(IndexScope::Global, &index.name);
                    if read == 0 && requests >= 1000 {
                        self.found(
                            "index.unused-gsi",
                            Some(&index.name),
                            format!("no Query or Scan read {} while the table served {requests} requests", index.name),
                        );
                    }
                }
                IndexKind::Local => {
                    let (read, consistent) = pages(IndexScope::Local, &index.name);
                    let evidence = if read >= 100 && consistent == 0 {
                        Some(format!(
                            "{read} Query/Scan pages on {}, none strongly consistent",
                            index.name
                        ))
                    } else if read == 0 && requests >= 1000 {
                        Some(format!(
                            "no Query or Scan read {} while the table served {requests} requests",
                            index.name
                        ))
                    } else {
                        None
                    };
                    if let Some(evidence) = evidence {
                        self.found("index.lsi-conditions", Some(&index.name), evidence);
                    }
                }
            }
        }
    }

    /// The API-use rules, one finding each, over the table's traffic snapshot.
    pub(super) fn traffic(&mut self, t: &TrafficSnapshot, size_bytes: u64) {
        self.page_habits(t, size_bytes);
        self.item_habits(t);
    }

    /// How pages are read: unprocessed keys, Scans, pagination, filters, projections.
    fn page_habits(&mut self, t: &TrafficSnapshot, size_bytes: u64) {
        let waiting = t.unprocessed_returned.saturating_sub(t.unprocessed_retried);
        if waiting > 0 {
            self.found(
                "api.unprocessed-retry",
                None,
                format!(
                    "{} unprocessed key(s) answered, {} sent again",
                    t.unprocessed_returned, t.unprocessed_retried
                ),
            );
        }
        if t.scans > 0 && size_bytes > SCAN_PAGE_BYTES {
            let discarded = t.filter_evaluated_items.saturating_sub(t.filter_kept_items);
            self.found(
                "api.scan",
                None,
                format!(
                    "{} Scan page(s) of a {size_bytes}-byte table: {} items read, {} returned ({discarded} discarded by filters)",
                    t.scans, t.scanned_items, t.scan_returned_items
                ),
            );
        }
        if t.pages_unfollowed > 0 {
            let untracked = if t.pages_untracked > 0 {
                format!(
                    "; {} more cut past the 10,000 remembered",
                    t.pages_untracked
                )
            } else {
                String::new()
            };
            self.found(
                "api.pagination-followed",
                None,
                format!(
                    "{} of {} page(s) cut at 1 MB were never continued from their LastEvaluatedKey ({} request(s) carried an ExclusiveStartKey){untracked}",
                    t.pages_unfollowed, t.pages_with_more, t.pages_continued
                ),
            );
        }
        let discarded = t
            .query_filter_evaluated_items
            .saturating_sub(t.query_filter_kept_items);
        if t.filtered_queries >= 10
            && t.query_filter_evaluated_items >= 1000
            && discarded * 10 >= t.query_filter_evaluated_items * 9
        {
            self.found(
                "api.query-filter-discard",
                None,
                format!(
                    "{} filtered Query page(s) read {} items and their filters kept {}",
                    t.filtered_queries, t.query_filter_evaluated_items, t.query_filter_kept_items
                ),
            );
        }
        if t.unprojected_gsi_reads > 0 {
            self.found(
                "projection.gsi-read-without-projection-expression",
                None,
                format!(
                    "{} GSI Query/Scan page(s) without a ProjectionExpression",
                    t.unprojected_gsi_reads
                ),
            );
        }
        if t.unprojected_queries > 0 {
            self.found(
                "api.query-projection-expression",
                None,
                format!(
                    "{} Query page(s) without a ProjectionExpression",
                    t.unprojected_queries
                ),
            );
        }
        if t.unprojected_scans > 0 {
            self.found(
                "api.scan-projection-expression",
                None,
                format!(
                    "{} Scan page(s) without a ProjectionExpression",
                    t.unprojected_scans
                ),
            );
        }
    }

    /// How items are written and read back: unguarded updates, read-modify-write, bulk
    /// writes one by one, reads after writes, consistent reads.
    fn item_habits(&mut self, t: &TrafficSnapshot) {
        if t.unguarded_updates > 0 {
            self.found(
                "api.update-existence-condition",
                None,
                format!(
                    "{} of {} UpdateItem requests had no attribute_exists/attribute_not_exists on the key",
                    t.unguarded_updates, t.updates
                ),
            );
        }
        if t.read_modify_writes >= 10 && t.read_modify_writes * 10 >= t.replacing_puts {
            self.found(
                "api.read-modify-write",
                None,
                format!(
                    "{} of {} PutItems that replaced an item came within 5 s of a read of its key",
                    t.read_modify_writes, t.replacing_puts
                ),
            );
        }
        if t.bulk_windows > 0 {
            self.found(
                "api.batch-write-for-bulk",
                None,
                format!(
                    "{} time(s) {} or more unconditional PutItem/DeleteItem within 10 s",
                    t.bulk_windows,
                    kura_engine::counters::traffic::BULK_WRITES
                ),
            );
        }
        if t.reads_after_write >= 10 && t.reads_after_write * 10 >= t.eventual_gets {
            self.found(
                "api.write-then-read-eventual",
                None,
                format!(
                    "{} of {} eventually consistent GetItems read a key written within the second before",
                    t.reads_after_write, t.eventual_gets
                ),
            );
        }
        if t.reads >= 100 && t.consistent_reads * 2 >= t.reads {
            self.found(
                "api.consistent-reads",
                None,
                format!(
                    "{} of {} reads were strongly consistent",
                    t.consistent_reads, t.reads
                ),
            );
        }
    }

    /// From Contributor Insights, where it is on: one partition key taking a fifth or more
    /// of at least 1,000 accesses in the last hour (after its error bound). Elsewhere from
    /// the always-on count (one access in eight): a fifth or more of at least 100 counted
    /// accesses since the counters began.
    pub(super) fn hot_partitions(
        &mut self,
        insights: &kura_engine::counters::Insights,
        hot: &[kura_engine::counters::hot::HotReport],
        now_ms: i64,
    ) {
        let globals = self
            .table
            .indexes
            .iter()
            .filter(|i| i.kind == IndexKind::Global)
            .map(|i| Some(i.name.clone()));
        for index in std::iter::once(None).chain(globals) {
            let Some(report) = insights.report(index.as_deref(), now_ms, 60, 1) else {
                self.hot_without_insights(index.as_deref(), hot);
                continue;
            };
            let top = &report.most_accessed_partition_keys;
            let Some(hottest) = top.keys.first() else {
                continue;
            };
            let sure = hottest.count.saturating_sub(top.error_bound);
            if top.events >= 1000 && sure * 5 >= top.events {
                self.found(
                    "keys.hot-partition",
                    index.as_deref(),
                    format!(
                        "partition key {:?} took {} of {} accesses in the last hour (±{})",
                        hottest.key, hottest.count, top.events, top.error_bound
                    ),
                );
            }
        }
    }

    /// `keys.hot-partition` from the always-on count, for a target without Contributor
    /// Insights.
    fn hot_without_insights(
        &mut self,
        index: Option<&str>,
        hot: &[kura_engine::counters::hot::HotReport],
    ) {
        use kura_engine::counters::hot::SAMPLED;
        let Some(report) = hot.iter().find(|r| r.index.as_deref() == index) else {
            return;
        };
        let Some((key, count, error)) = &report.top else {
            return;
        };
        let sure = count.saturating_sub(*error);
        if report.counted >= 100 && sure * 5 >= report.counted {
            self.found_as(
                crate::rules::Basis::Traffic,
                "keys.hot-partition",
                index,
                format!(
                    "partition key {key:?} took {count} of {} accesses counted (one in {SAMPLED}; ±{error}), without Contributor Insights",
                    report.counted
                ),
            );
        }
    }
}
