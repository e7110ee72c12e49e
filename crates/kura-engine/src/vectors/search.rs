//! SearchVectors: the request's checks in DynamoDB's order, the search condition's
//! reading (equality on search schema attributes, joined by AND), the exact top-k
//! search, and the projected answers with their scores.

use kura_expr::ast::{Comparator, Condition, Operand};
use kura_expr::request::compile_search;
use kura_model::constraint::Constraints;
use kura_model::item_codec::top_level_list_len;
use kura_model::messages::{self, vectors as msg};
use kura_model::size::item_size;
use kura_model::{AttributeValue, Item, Number};

use super::live::{as_f32, partition_bytes, placement};
use crate::Engine;
use crate::api::*;
use crate::catalog::vector::{SearchRole, VectorIndexRecord};
use crate::error::{EngineError, Result};
use crate::items::{corrupt, decode_stored_where};
use kura_store::Space;

/// SearchVectors answers are cut at 16 MB (there is no paging).
const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;
pub const MAX_TOP_K: i64 = 100;
const MAX_SEARCH_VECTOR: usize = 4096;
/// DynamoDB meters vector capacity at a minimum of 1 KB per request.
const MIN_CAPACITY_BYTES: f64 = 1024.0;

impl Engine {
    /// Changes the candidates every vector graph search keeps per level (`kura serve
    /// --vector-search-expansion`), now and for indexes made later: what the benchmark
    /// sweeps to draw recall against speed.
    pub fn set_vector_search_expansion(&self, expansion: usize) {
        self.vectors.set_search_expansion(expansion.max(1));
    }

    /// The `top_k` nearest storage keys of one vector index and their scores, without
    /// the operation around the index (request checks, reading the items back,
    /// projection): the benchmark times it beside hnswlib. Empty for an unknown index.
    #[doc(hidden)]
    pub fn vector_index_search(
        &self,
        table: &str,
        index: &str,
        query: &[f32],
        top_k: usize,
    ) -> Vec<(Vec<u8>, f64)> {
        let Some(record) = self.catalog.get(table) else {
            return Vec::new();
        };
        let Some(live) = self.vectors.get(record.id, index) else {
            return Vec::new();
        };
        let slots = live.slots.read();
        slots
            .search(query, top_k, None, None)
            .into_iter()
            .map(|hit| (hit.storage_key, hit.score))
            .collect()
    }

    pub async fn search_vectors(&self, input: SearchVectorsInput) -> Result<SearchVectorsOutput> {
        // Long: SearchVectors' checks in DynamoDB's order, then the search and its answer.
        let mut c = Constraints::new();
        c.not_null("tableName", input.table_name.as_ref());
        c.name("tableName", input.table_name.as_deref());
        c.not_null("indexName", input.index_name.as_ref());
        c.name("indexName", input.index_name.as_deref());
        c.not_null("searchVector", input.search_vector.as_ref());
        if let Some(SearchVector::List(elements)) = &input.search_vector {
            c.length(
                "searchVector",
                "[...]",
                elements.len(),
                1,
                MAX_SEARCH_VECTOR,
            );
        }
        c.not_null("topK", input.top_k.as_ref());
        c.one_of(
            "returnConsumedCapacity",
            input.return_consumed_capacity.as_deref(),
            &ReturnConsumedCapacity::VALUES,
        );
        c.finish()?;
        let top_k = input.top_k.unwrap_or(0);
        if !(1..=MAX_TOP_K).contains(&top_k) {
            return Err(EngineError::validation(msg::top_k_out_of_range(top_k)));
        }
        let query = search_vector(input.search_vector.as_ref())?;
        let (condition, projection) = compile_search(input.expressions)?;
        let table = self.table_for_items(input.table_name.as_deref().unwrap_or_default())?;
        let index_name = input.index_name.unwrap_or_default();
        let index = table
            .vector_index(&index_name)
            .ok_or_else(|| EngineError::validation(messages::no_such_index(&index_name)))?;
        if index.backfilling {
            return Err(EngineError::validation(msg::backfilling(&index_name)));
        }
        if query.len() != index.dimensions as usize {
            return Err(EngineError::validation(msg::search_dimension_mismatch(
                query.len(),
                index.dimensions,
            )));
        }
        let wanted = Wanted::read(index, condition.as_ref())?;
        let live = self.vectors.get(table.id, &index_name);
        if let Some(live) = &live {
            // Right after a restart the index is being filled from the items: the search
            // waits for it (without holding a thread) rather than answer from half of it.
            while live.filling() {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
            if let Some(e) = live.failure() {
                return Err(EngineError::Internal(format!(
                    "vector index {index_name} could not be filled from the table: {e}"
                )));
            }
        }
        let (partition, filters) = match &wanted {
            Wanted::Nothing => (None, Vec::new()),
            Wanted::Matching { partition, filters } => (partition.clone(), filters.clone()),
        };
        let keep = |values: &[Option<AttributeValue>]| {
            filters
                .iter()
                .all(|(at, value)| values.get(*at).and_then(Option::as_ref) == Some(value))
        };
        let hits = match (&wanted, live) {
            (Wanted::Nothing, _) | (_, None) => Vec::new(),
            (Wanted::Matching { .. }, Some(live)) => {
                let slots = live.slots.read();
                let filtered: super::index::Keep<'_> = &keep;
                let keep = (!filters.is_empty()).then_some(filtered);
                slots.search(&query, top_k as usize, partition.as_deref(), keep)
            }
        };
        // The answers are read back from one snapshot, taken after the search. An item
        // written in between is checked again as it is now: gone, without a vector of the
        // index's length, or out of the partition or filters searched, it is no answer (a
        // tenant's search never returns an item that moved to another tenant). Its score
        // is the search's (reading every element again would cost more than the search).
        // Only what the answer shows (and the search schema, which an index always
        // projects) is decoded: a vector the answer leaves out is walked past, its length
        // read from the stored bytes.
        let asked: Option<Vec<String>> = projection
            .as_ref()
            .map(|paths| paths.iter().map(|p| p.top().to_owned()).collect());
        let asked_vector = asked
            .as_deref()
            .is_some_and(|names| names.contains(&index.attribute));
        let snapshot = self.store.snapshot()?;
        let mut answers = Vec::with_capacity(hits.len());
        for hit in hits {
            let Some(bytes) = snapshot.get(Space::Items, &hit.storage_key)? else {
                continue;
            };
            let item =
                decode_stored_where(&bytes, |name| index.projects(&table, name, asked_vector))?;
            let vector_len = if asked_vector {
                match item.get(&index.attribute) {
                    Some(AttributeValue::L(elements)) => Some(elements.len()),
                    _ => None,
                }
            } else {
                top_level_list_len(&bytes, &index.attribute).map_err(corrupt)?
            };
            let has_vector = vector_len == Some(index.dimensions as usize);
            let Ok(Some((now_in, now_filters))) = placement(index, &item) else {
                continue;
            };
            if !has_vector || (partition.is_some() && now_in != partition) || !keep(&now_filters) {
                continue;
            }
            answers.push((item, hit.score));
        }
        let mut results = Vec::with_capacity(answers.len());
        let mut bytes = 0usize;
        for (item, score) in answers {
            let item = projected(index, item, projection.as_deref());
            bytes += item_size(&item);
            if bytes > MAX_RESPONSE_BYTES {
                break;
            }
            results.push(SearchResultItem { item, score });
        }
        let consumed = (ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref())
            != ReturnConsumedCapacity::None)
            .then(|| {
                let count = self.vectors.stats(table.id, &index_name).item_count;
                VectorCapacity {
                    vector_search_request_bytes: Some(search_bytes(index, top_k, count, bytes)),
                    vector_write_request_bytes: None,
                }
            });
        Ok(SearchVectorsOutput {
            search_results: results,
            consumed_capacity: consumed,
        })
    }
}

/// The SearchVector member: numbers (`{"N": ...}`) that fit in an f32.
fn search_vector(value: Option<&SearchVector>) -> Result<Vec<f32>> {
    match value {
        Some(SearchVector::List(elements)) => elements
            .iter()
            .map(|x| x.ok_or_else(|| EngineError::validation(msg::SEARCH_VECTOR_INVALID)))
            .collect(),
        _ => Err(EngineError::validation(msg::SEARCH_VECTOR_INVALID)),
    }
}

/// Which items a search condition admits.
enum Wanted {
    /// No item can match (an equality two values for one attribute, or a partition
    /// value of another type than the schema's).
    Nothing,
    Matching {
        partition: Option<Vec<u8>>,
        /// (position among the inline filters, value)
        filters: Vec<(usize, AttributeValue)>,
    },
}

impl Wanted {
    fn read(index: &VectorIndexRecord, condition: Option<&Condition>) -> Result<Wanted> {
        let mut equalities = Vec::new();
        if let Some(condition) = condition {
            equalities_of(condition, &mut equalities)?;
        }
        // Operators are judged before names, as DynamoDB does.
        for (name, _) in &equalities {
            if !index.search_schema.iter().any(|(n, _, _)| n == name) {
                return Err(EngineError::validation(
                    msg::condition_attribute_not_in_schema(name),
                ));
            }
        }
        let mut partition = None;
        if let Some((hash, ty)) = index.partition_key() {
            let values: Vec<&AttributeValue> = equalities
                .iter()
                .filter(|(n, _)| n == hash)
                .map(|(_, v)| v)
                .collect();
            let Some(first) = values.first() else {
                return Err(EngineError::validation(msg::HASH_CONDITION_MISSING));
            };
            if values.iter().any(|v| v != first) {
                return Ok(Wanted::Nothing);
            }
            match partition_bytes(index, hash, ty, first) {
                Ok(bytes) => partition = Some(bytes),
                Err(_) => return Ok(Wanted::Nothing),
            }
        }
        let mut filters: Vec<(usize, AttributeValue)> = Vec::new();
        let positions = index
            .search_schema
            .iter()
            .filter(|(_, role, _)| *role == SearchRole::InlineFilter);
        for (at, (name, _, _)) in positions.enumerate() {
            for (n, value) in &equalities {
                if n != name {
                    continue;
                }
                if filters.iter().any(|(p, v)| *p == at && v != value) {
                    return Ok(Wanted::Nothing);
                }
                filters.push((at, value.clone()));
            }
        }
        Ok(Wanted::Matching { partition, filters })
    }
}

/// The `attribute = value` terms of a condition made only of them and AND.
fn equalities_of(condition: &Condition, out: &mut Vec<(String, AttributeValue)>) -> Result<()> {
    match condition {
        Condition::And(a, b) => {
            equalities_of(a, out)?;
            equalities_of(b, out)
        }
        Condition::Compare(Comparator::Eq, left, right) => match (left, right) {
            (Operand::Path(p), Operand::Value(v)) | (Operand::Value(v), Operand::Path(p)) => {
                let name =
                    p.0.iter()
                        .map(|e| match e {
                            kura_expr::PathElement::Attribute(a) => a.clone(),
                            kura_expr::PathElement::Index(i) => format!("[{i}]"),
                        })
                        .collect::<Vec<_>>()
                        .join(".");
                out.push((name, v.clone()));
                Ok(())
            }
            _ => Err(EngineError::validation(msg::INVALID_OPERATOR)),
        },
        Condition::Compare(..) => Err(EngineError::validation(msg::INVALID_COMPARATOR)),
        _ => Err(EngineError::validation(msg::INVALID_OPERATOR)),
    }
}

/// An answer's attributes (`item` holds only what the index projects), narrowed by the
/// request's ProjectionExpression; attributes it does not project are left out without an
/// error. The vector comes back only when asked for, as the index's f32 copy.
fn projected(
    index: &VectorIndexRecord,
    mut item: Item,
    projection: Option<&[kura_expr::Path]>,
) -> Item {
    if let Some(AttributeValue::L(elements)) = item.get_mut(&index.attribute) {
        for element in elements.iter_mut() {
            if let Some(x) = as_f32(element)
                && let Ok(n) = Number::parse(&f32_text(x))
            {
                *element = AttributeValue::N(n);
            }
        }
    }
    match projection {
        Some(paths) => kura_expr::eval::projection::project(&item, paths),
        None => item,
    }
}

/// An f32 as DynamoDB writes the index's copy: shortest round-trip text, with ".0" on
/// whole numbers.
fn f32_text(x: f32) -> String {
    let text = x.to_string();
    if text.contains(['.', 'e', 'E']) {
        text
    } else {
        format!("{text}.0")
    }
}

/// `VectorSearchRequestBytes`, by Kura's model (DynamoDB's figure is undocumented and
/// varies between identical searches): the vector data an HNSW search of this index would
/// examine, `dimensions × 4` bytes for `top_k` plus `log2(items)` neighbourhoods of 16,
/// plus the answer's bytes, at least 1 KB.
fn search_bytes(index: &VectorIndexRecord, top_k: i64, items: u64, answer: usize) -> f64 {
    let levels = (items as f64 + 1.0).log2().ceil();
    let examined = f64::from(index.dimensions) * 4.0 * (top_k as f64 + 16.0 * levels);
    (examined + answer as f64).max(MIN_CAPACITY_BYTES)
}
