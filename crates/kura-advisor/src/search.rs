//! Searching with filters: `types.collection-in-search` (filters reaching into documents
//! or searching lists and sets) and `api.keyword-search` (text searched with `contains()`).

use kura_engine::counters::TrafficSnapshot;
use kura_model::{AttributeValue, Item};

use crate::check::{Check, listed};

impl Check<'_> {
    /// Filters that search inside documents or sets.
    pub(super) fn searched_collections(&mut self, sample: &[Item], t: &TrafficSnapshot) {
        let collections: Vec<&str> = t
            .contains_attributes
            .iter()
            .map(String::as_str)
            .filter(|name| {
                sample.iter().any(|item| {
                    matches!(
                        item.get(*name),
                        Some(
                            AttributeValue::L(_)
                                | AttributeValue::Ss(_)
                                | AttributeValue::Ns(_)
                                | AttributeValue::Bs(_)
                        )
                    )
                })
            })
            .collect();
        let mut evidence = Vec::new();
        if t.nested_filters > 0 {
            evidence.push(format!(
                "{} filter(s) reach into documents (a.b, a[0])",
                t.nested_filters
            ));
        }
        if !collections.is_empty() {
            evidence.push(format!(
                "contains() searches lists or sets: {}",
                listed(&collections)
            ));
        }
        if !evidence.is_empty() {
            self.found("types.collection-in-search", None, evidence.join("; "));
        }
        // contains() on text as a habit: a substring search, the full-text search the
        // guideline sends to OpenSearch.
        let texts: Vec<&str> = t
            .contains_attributes
            .iter()
            .map(String::as_str)
            .filter(|name| {
                sample
                    .iter()
                    .any(|item| matches!(item.get(*name), Some(AttributeValue::S(_))))
            })
            .collect();
        if t.contains_filters >= 10 && !texts.is_empty() {
            self.found(
                "api.keyword-search",
                None,
                format!(
                    "{} Query/Scan pages filtered with contains(), searching text in {}",
                    t.contains_filters,
                    listed(&texts)
                ),
            );
        }
    }
}
