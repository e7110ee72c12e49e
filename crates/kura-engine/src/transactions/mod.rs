//! TransactWriteItems and TransactGetItems.
//!
//! A write transaction is one writer job: it reads every item it touches, checks every
//! condition, and writes only when all of them hold, so it is all-or-nothing and
//! serializable against every other write (the writer orders all writes). Because no two
//! writes ever interleave, Kura never answers TransactionConflict (docs/compat.md).
//! `ClientRequestToken`s are remembered durably for 10 minutes ([`tokens`]).

pub(crate) mod tokens;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use kura_expr::eval::condition::evaluate;
use kura_expr::eval::projection::project;
use kura_expr::eval::update::apply;
use kura_expr::request::{Compiled, Operation, compile};
use kura_expr::{Condition, Projection, Update};
use kura_model::constraint::Constraints;
use kura_model::size::item_size;
use kura_model::wire::item_from_json;
use kura_model::{Item, PrimaryKey, ScalarType, limits, messages};

use crate::Engine;
use crate::api::*;
use crate::catalog::{Catalog, TableRecord};
use crate::error::{EngineError, Result};
use crate::indexes::entries::{check_index_keys, check_updated_index_keys};
use crate::items::{
    Written, asks_metrics, current_table, read_current, read_snapshot, refuse_key_updates,
    write_item,
};
use crate::keys;
use crate::writer::WriteContext;
use tokens::{Earlier, Fingerprint};

const MAX_ACTIONS: usize = 100;
const MAX_TRANSACTION_BYTES: usize = 4 * 1024 * 1024;

enum Kind {
    Check,
    Put(Item),
    Delete,
    Update(Update),
}

/// A validated TransactWriteItems, ready for the writer.
struct TransactionPlan {
    actions: Vec<Action>,
    token: Option<(String, Fingerprint)>,
    mode: ReturnConsumedCapacity,
    asked_metrics: bool,
}

/// One validated action.
struct Action {
    table: Arc<TableRecord>,
    key_item: Item,
    storage_key: Vec<u8>,
    condition: Option<Condition>,
    return_item: bool,
    kind: Kind,
}

fn one_action(entry: TransactWriteItem) -> Result<(&'static str, TransactAction)> {
    let mut present = [
        ("ConditionCheck", entry.condition_check),
        ("Put", entry.put),
        ("Delete", entry.delete),
        ("Update", entry.update),
    ]
    .into_iter()
    .filter_map(|(name, action)| action.map(|a| (name, a)));
    match (present.next(), present.next()) {
        (Some(only), None) => Ok(only),
        _ => Err(EngineError::validation(messages::TRANSACT_ONE_ACTION)),
    }
}

/// How the framework quotes a list of `n` actions: `[]` when empty; DynamoDB quotes the
/// members as object references, which no client can use.
fn render_items(n: usize) -> String {
    if n == 0 {
        "[]".to_owned()
    } else {
        format!("[{}]", vec!["TransactItem"; n].join(", "))
    }
}

/// TransactItems' length: 1 to [`MAX_ACTIONS`] actions.
fn transact_items_length(c: &mut Constraints, count: usize) {
    c.length("transactItems", &render_items(count), count, 1, MAX_ACTIONS);
}

/// One action's framework constraints under `at` (e.g. `transactItems.1.member.put`), in
/// the order of dynalite's `validations/transactWriteItems.js`: TableName,
/// ReturnValuesOnConditionCheckFailure, ConditionExpression (required in a
/// ConditionCheck), Key or Item, UpdateExpression (required in an Update).
/// DynamoDB reports a missing Key or Item first, alone (dynalite `test/transactWriteItem.js`:
/// `{"Update": {}}` gets one error, at `...update.key`); a missing TableName,
/// UpdateExpression or ConditionExpression comes in a second pass, [`required_members`].
fn action_constraints(c: &mut Constraints, at: &str, member: &str, action: &TransactAction) {
    if action.table_name.is_some() {
        c.name(&format!("{at}.tableName"), action.table_name.as_deref());
    }
    c.one_of(
        &format!("{at}.returnValuesOnConditionCheckFailure"),
        action.return_values_on_condition_check_failure.as_deref(),
        &["ALL_OLD", "NONE"],
    );
    if member == "put" {
        c.not_null(&format!("{at}.item"), action.item.as_ref());
    } else {
        c.not_null(&format!("{at}.key"), action.key.as_ref());
    }
}

/// The members an action needs that DynamoDB checks after the framework constraints.
fn required_members(c: &mut Constraints, at: &str, member: &str, action: &TransactAction) {
    c.not_null(&format!("{at}.tableName"), action.table_name.as_ref());
    match member {
        "conditionCheck" => c.not_null(
            &format!("{at}.conditionExpression"),
            action.expressions.condition_expression.as_ref(),
        ),
        "update" => c.not_null(
            &format!("{at}.updateExpression"),
            action.expressions.update_expression.as_ref(),
        ),
        _ => {}
    }
}

/// Each action of each entry, with the entry's place and the action's member name, in the
/// order DynamoDB checks them (an entry's put, update, delete, then condition check).
fn members(
    items: &[TransactWriteItem],
) -> impl Iterator<Item = (usize, &'static str, &TransactAction)> {
    items.iter().enumerate().flat_map(|(i, entry)| {
        [
            ("put", &entry.put),
            ("update", &entry.update),
            ("delete", &entry.delete),
            ("conditionCheck", &entry.condition_check),
        ]
        .into_iter()
        .filter_map(move |(member, action)| Some((i, member, action.as_ref()?)))
    })
}

/// TransactWriteItems' request checks, in DynamoDB's order (dynalite
/// `validations/transactWriteItems.js`, `types`): ReturnConsumedCapacity,
/// ReturnItemCollectionMetrics, ClientRequestToken, TransactItems, then each entry's
/// actions; then the members each action requires.
fn validate_transact_write(input: &TransactWriteItemsInput) -> Result<()> {
    let mut c = Constraints::new();
    c.one_of(
        "returnConsumedCapacity",
        input.return_consumed_capacity.as_deref(),
        &ReturnConsumedCapacity::VALUES,
    );
    c.one_of(
        "returnItemCollectionMetrics",
        input.return_item_collection_metrics.as_deref(),
        &["SIZE", "NONE"],
    );
    if let Some(token) = &input.client_request_token {
        c.length("clientRequestToken", token, token.len(), 1, 36);
    }
    match &input.transact_items {
        None => c.not_null::<()>("transactItems", None),
        Some(items) => {
            transact_items_length(&mut c, items.len());
            for (i, member, action) in members(items) {
                let at = format!("transactItems.{}.member.{member}", i + 1);
                action_constraints(&mut c, &at, member, action);
            }
        }
    }
    c.finish()?;
    let mut c = Constraints::new();
    for (i, member, action) in members(input.transact_items.as_deref().unwrap_or_default()) {
        let at = format!("transactItems.{}.member.{member}", i + 1);
        required_members(&mut c, &at, member, action);
    }
    c.finish()?;
    Ok(())
}

impl Engine {
    /// One action, checked as DynamoDB checks it before the transaction runs. A key that
    /// does not match the table's schema (a key attribute missing or of another type)
    /// cancels the transaction with a `ValidationError` reason at the action's place,
    /// rather than failing the request (AWS us-east-1, eu-west-2, ap-southeast-2,
    /// eu-central-1 2026-06-23, paritysuite/dynamodb-conformance
    /// `tests/tier3/error-messages/transactWriteItems.test.ts`): a Put with PutItem's
    /// message, the other actions with "The provided key element does not match the
    /// schema". Empty or oversized key values, a missing table, an item over 400 KB and the
    /// same item twice stay request errors, as there.
    fn transaction_action(
        &self,
        name: &'static str,
        action: TransactAction,
    ) -> Result<std::result::Result<Action, CancellationReason>> {
        // The action's framework constraints were checked with the request's.
        let operation = match name {
            "Update" => Operation::UpdateItem,
            "Put" => Operation::PutItem,
            _ => Operation::DeleteItem,
        };
        // Transaction actions have no legacy members; DynamoDB ignores unknown members.
        let expressions = ExpressionParams {
            expected: None,
            conditional_operator: None,
            attribute_updates: None,
            attributes_to_get: None,
            ..action.expressions
        };
        let Compiled {
            condition, update, ..
        } = compile(operation, expressions)?;
        let table = self.table_for_items(action.table_name.as_deref().unwrap_or_default())?;
        let (key, kind): (PrimaryKey, Kind) = match name {
            "Put" => {
                let item = item_from_json(action.item.unwrap_or_default())?;
                if item_size(&item) > limits::MAX_ITEM_SIZE {
                    return Err(EngineError::validation(messages::ITEM_TOO_LARGE));
                }
                if mismatches_schema(&table, &item, false)
                    && let Err(e) = table.key_schema.key_of_item(&item)
                {
                    return Ok(Err(validation_reason(&e.to_string())));
                }
                let key = table.key_schema.key_of_item(&item)?;
                if let Err(refused) = check_index_keys(&table, &item) {
                    self.count_index_key_refusal(&table.name, &refused);
                    return Err(refused);
                }
                (key, Kind::Put(item))
            }
            _ => {
                let key = item_from_json(action.key.unwrap_or_default())?;
                if mismatches_schema(&table, &key, true) {
                    return Ok(Err(validation_reason(messages::KEY_SCHEMA_MISMATCH)));
                }
                let key = table.key_schema.key_of_key_map(&key)?;
                let kind = match (name, update) {
                    ("Update", Some(update)) => {
                        refuse_key_updates(&update, &table)?;
                        Kind::Update(update)
                    }
                    ("Delete", _) => Kind::Delete,
                    _ => Kind::Check,
                };
                (key, kind)
            }
        };
        Ok(Ok(Action {
            key_item: table.key_schema.key_item(&key),
            storage_key: keys::item_key(table.id, &key)?,
            table,
            condition,
            return_item: action.return_values_on_condition_check_failure.as_deref()
                == Some("ALL_OLD"),
            kind,
        }))
    }

    pub async fn transact_write_items(
        &self,
        input: TransactWriteItemsInput,
    ) -> Result<TransactWriteItemsOutput> {
        validate_transact_write(&input)?;
        // Only a request with a token is ever compared with another (formatting the whole
        // request was a twentieth of a 4-put transaction's server CPU).
        let fingerprint = input.client_request_token.as_ref().map(|_| {
            Fingerprint::of(&format!(
                "{:?}|{:?}",
                input.transact_items, input.return_consumed_capacity
            ))
        });
        let mut actions = Vec::new();
        let mut seen = BTreeSet::new();
        let mut bytes = 0usize;
        let mut reasons = Vec::new();
        let mut cancelled = false;
        for entry in input.transact_items.unwrap_or_default() {
            let (name, action) = one_action(entry)?;
            let action = match self.transaction_action(name, action)? {
                Ok(action) => action,
                // Validation stops at the first invalid action: the actions after it
                // get None, as those before it (docs/compat.md, "Reads, batches and
                // transactions").
                Err(_) if cancelled => {
                    reasons.push(CancellationReason::none());
                    continue;
                }
                Err(reason) => {
                    cancelled = true;
                    reasons.push(reason);
                    continue;
                }
            };
            if let Kind::Put(item) = &action.kind {
                bytes += item_size(item);
            }
            if !seen.insert((action.table.id, action.storage_key.clone())) {
                return Err(EngineError::validation(messages::TRANSACTION_SAME_ITEM));
            }
            actions.push(action);
            reasons.push(CancellationReason::none());
        }
        if bytes > MAX_TRANSACTION_BYTES {
            return Err(EngineError::validation(messages::TRANSACTION_TOO_LARGE));
        }
        if cancelled {
            return Err(EngineError::TransactionCanceled { reasons });
        }
        let _running = match &input.client_request_token {
            Some(token) => Some(self.tokens.claim(token)?),
            None => None,
        };
        let plan = TransactionPlan {
            actions,
            token: input.client_request_token.zip(fingerprint),
            mode: ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref()),
            asked_metrics: asks_metrics(&input.return_item_collection_metrics),
        };
        self.run_transaction(plan).await
    }

    /// Runs a transaction as one writer job: an answer kept for its token ends it early;
    /// otherwise [`check_actions`] decides every action against the items as they are now,
    /// and only when all succeed does [`apply_actions`] write them, in the same batch as
    /// the token's record.
    async fn run_transaction(&self, plan: TransactionPlan) -> Result<TransactWriteItemsOutput> {
        let catalog = self.catalog.clone();
        let counters = self.counters.clone();
        // Keys for Contributor Insights, on tables that have it on.
        let noted: Vec<_> = plan
            .actions
            .iter()
            .filter_map(|a| {
                let table = self.counters.existing(&a.table.name)?;
                let schema = &a.table.key_schema;
                let names = (
                    schema.hash.name.clone(),
                    schema.range.as_ref().map(|r| r.name.clone()),
                );
                table
                    .insights
                    .active()
                    .then(|| (table, names, a.key_item.clone()))
            })
            .collect();
        let answer = self
            .writer
            .submit(false, move |w| {
                if let Some((token, fingerprint)) = &plan.token
                    && let Earlier::Answered(answer) = tokens::earlier(w, token, *fingerprint)?
                {
                    return Ok(answer);
                }
                let planned = check_actions(w, &catalog, &plan.actions)?;
                let (units, metrics) = apply_actions(w, planned, plan.asked_metrics)?;
                // Counted once the transaction is durable.
                let counted = units.clone();
                w.after_commit(move || counters.consume_all(&counted, true));
                let answer = TransactWriteItemsOutput {
                    consumed_capacity: ConsumedCapacity::per_table(plan.mode, units, true),
                    item_collection_metrics: plan.asked_metrics.then_some(metrics),
                };
                if let Some((token, fingerprint)) = &plan.token {
                    tokens::remember(w, token, *fingerprint, &answer)?;
                }
                Ok(answer)
            })
            .await?;
        let now = self.clock.now_ms();
        for (table, (hash, range), key) in noted {
            crate::counters::note_item(&table, None, (&hash, range.as_deref()), &key, now);
        }
        Ok(answer)
    }

    pub fn transact_get_items(
        &self,
        input: TransactGetItemsInput,
    ) -> Result<TransactGetItemsOutput> {
        transact_get_constraints(&input)?;
        let mut gets: Vec<(Arc<TableRecord>, Vec<u8>, Option<Projection>)> = Vec::new();
        let mut noted = Vec::new();
        // A Key that does not match the schema cancels the transaction (AWS 2026,
        // paritysuite/dynamodb-conformance `transactGetItems.test.ts`: `Key: {}` answers
        // TransactionCanceledException [ValidationError]), as in TransactWriteItems.
        let mut reasons = Vec::new();
        let mut cancelled = false;
        for entry in input.transact_items.unwrap_or_default() {
            let Some(get) = entry.get else {
                continue; // refused above
            };
            let expressions = ExpressionParams {
                attributes_to_get: None,
                ..get.expressions
            };
            let Compiled { projection, .. } = compile(Operation::GetItem, expressions)?;
            let table = self.table_for_items(get.table_name.as_deref().unwrap_or_default())?;
            let key = item_from_json(get.key.unwrap_or_default())?;
            if mismatches_schema(&table, &key, true) {
                cancelled = true;
                reasons.push(validation_reason(messages::KEY_SCHEMA_MISMATCH));
                continue;
            }
            let key = table.key_schema.key_of_key_map(&key)?;
            let storage_key = keys::item_key(table.id, &key)?;
            if gets
                .iter()
                .any(|(t, k, _)| t.id == table.id && *k == storage_key)
            {
                return Err(EngineError::validation(messages::TRANSACTION_SAME_ITEM));
            }
            if let Some(counters) = self.counters.existing(&table.name)
                && counters.insights.active()
            {
                noted.push((counters, key));
            }
            gets.push((table, storage_key, projection));
            reasons.push(CancellationReason::none());
        }
        if cancelled {
            return Err(EngineError::TransactionCanceled { reasons });
        }
        let now = self.clock.now_ms();
        for (counters, key) in noted {
            crate::counters::note_key(&counters, None, &key, now);
        }
        let snapshot = self.store.snapshot()?;
        let mut units: BTreeMap<String, Consumed> = BTreeMap::new();
        let mut responses = Vec::with_capacity(gets.len());
        for (table, storage_key, projection) in gets {
            let item = read_snapshot(snapshot.as_ref(), &storage_key)?;
            units.entry(table.name.clone()).or_default().table +=
                2.0 * read_units(item.as_ref().map_or(0, item_size), true);
            let item = match (item, &projection) {
                (Some(item), Some(paths)) => Some(project(&item, paths)),
                (item, _) => item,
            };
            responses.push(ItemResponse { item });
        }
        self.counters.consume_all(&units, false);
        let mode = ReturnConsumedCapacity::parse(input.return_consumed_capacity.as_deref());
        Ok(TransactGetItemsOutput {
            responses,
            consumed_capacity: ConsumedCapacity::per_table(mode, units, false),
        })
    }
}

/// TransactGetItems' checks in DynamoDB's order, as TransactWriteItems':
/// ReturnConsumedCapacity, TransactItems, then each entry; then each entry's required
/// members.
fn transact_get_constraints(input: &TransactGetItemsInput) -> Result<()> {
    let mut c = Constraints::new();
    c.one_of(
        "returnConsumedCapacity",
        input.return_consumed_capacity.as_deref(),
        &ReturnConsumedCapacity::VALUES,
    );
    match &input.transact_items {
        None => c.not_null::<()>("transactItems", None),
        Some(items) => {
            transact_items_length(&mut c, items.len());
            for (i, entry) in items.iter().enumerate() {
                let at = format!("transactItems.{}.member.get", i + 1);
                match &entry.get {
                    None => c.not_null::<()>(&at, None),
                    Some(get) => action_constraints(&mut c, &at, "get", get),
                }
            }
        }
    }
    c.finish()?;
    let mut c = Constraints::new();
    for (i, entry) in input.transact_items.iter().flatten().enumerate() {
        if let Some(get) = &entry.get {
            let at = format!("transactItems.{}.member.get", i + 1);
            required_members(&mut c, &at, "get", get);
        }
    }
    c.finish()?;
    Ok(())
}

/// A written transaction's capacity and item collection metrics, by table.
type Outcome = (
    BTreeMap<String, Consumed>,
    BTreeMap<String, Vec<ItemCollectionMetrics>>,
);

/// One action that passed its check: its table, what it changes, and the item before.
struct Planned<'a> {
    action: &'a Action,
    table: Arc<TableRecord>,
    change: Change,
    current: Option<Item>,
}

/// What an action does to its item.
enum Change {
    /// Nothing to write: a ConditionCheck, or an update that only removes from no item.
    Nothing,
    /// The new item, or `None` to delete it.
    Write(Option<Item>),
}

/// Phase one: every action checked against the item as it is now. Any failure cancels
/// the transaction, with one reason per action in request order.
fn check_actions<'a>(
    w: &mut WriteContext<'_>,
    catalog: &Catalog,
    actions: &'a [Action],
) -> Result<Vec<Planned<'a>>> {
    let mut reasons = Vec::with_capacity(actions.len());
    let mut planned = Vec::with_capacity(actions.len());
    for action in actions {
        let table = current_table(catalog, &action.table)?;
        let current = read_current(w, &action.storage_key)?;
        match change_of(&table, action, current.as_ref()) {
            Ok(change) => {
                reasons.push(CancellationReason::none());
                planned.push(Planned {
                    action,
                    table,
                    change,
                    current,
                });
            }
            Err(reason) => reasons.push(reason),
        }
    }
    if planned.len() < actions.len() {
        return Err(EngineError::TransactionCanceled { reasons });
    }
    Ok(planned)
}

/// What one action would change, or why it cancels the transaction.
fn change_of(
    table: &TableRecord,
    action: &Action,
    current: Option<&Item>,
) -> std::result::Result<Change, CancellationReason> {
    let empty = Item::new();
    let holds = action
        .condition
        .as_ref()
        .is_none_or(|c| evaluate(c, current.unwrap_or(&empty)));
    if !holds {
        return Err(CancellationReason {
            code: "ConditionalCheckFailed".into(),
            message: Some(messages::CONDITIONAL_REQUEST_FAILED.into()),
            item: action.return_item.then(|| current.cloned()).flatten(),
        });
    }
    match &action.kind {
        Kind::Check => Ok(Change::Nothing),
        Kind::Put(item) => Ok(Change::Write(Some(item.clone()))),
        Kind::Delete => Ok(Change::Write(None)),
        Kind::Update(update) if current.is_none() && update.only_removes() => Ok(Change::Nothing),
        Kind::Update(update) => {
            let item = apply(update, current.unwrap_or(&action.key_item))
                .map_err(|e| validation_reason(e.message()))?;
            if item_size(&item) > limits::MAX_ITEM_SIZE {
                return Err(validation_reason(messages::UPDATED_ITEM_TOO_LARGE));
            }
            check_updated_index_keys(table, &item)
                .map_err(|e| validation_reason(&e.to_string()))?;
            Ok(Change::Write(Some(item)))
        }
    }
}

/// Phase two: the checked actions written in the job's batch, with the capacity they
/// consume (twice a standard write) and the item collection metrics asked for.
fn apply_actions(
    w: &mut WriteContext<'_>,
    planned: Vec<Planned<'_>>,
    asked_metrics: bool,
) -> Result<Outcome> {
    let mut units: BTreeMap<String, Consumed> = BTreeMap::new();
    let mut metrics: BTreeMap<String, Vec<ItemCollectionMetrics>> = BTreeMap::new();
    let count = planned.len();
    for (position, p) in planned.into_iter().enumerate() {
        let old_size = p.current.as_ref().map_or(0, item_size);
        let (new_size, written) = match p.change {
            Change::Nothing => (0, Written::default()),
            Change::Write(new) => {
                let new_size = new.as_ref().map_or(0, item_size);
                let key = p.action.storage_key.clone();
                let written = write_item(w, &p.table, key, p.current.as_ref(), new)
                    .map_err(|e| collection_cancel(e, position, count))?;
                (new_size, written)
            }
        };
        if let Some(m) = written.metrics(&p.table, asked_metrics) {
            metrics.entry(p.table.name.clone()).or_default().push(m);
        }
        let mut consumed = written.indexes;
        consumed.table = write_units(old_size.max(new_size));
        units
            .entry(p.table.name.clone())
            .or_default()
            .add(&consumed.scaled(2.0));
    }
    Ok((units, metrics))
}

/// A write that would outgrow its item collection cancels the transaction, with the
/// reason at its action's place.
fn collection_cancel(error: EngineError, position: usize, count: usize) -> EngineError {
    let EngineError::ItemCollectionSizeLimitExceeded(_) = error else {
        return error;
    };
    let reasons = (0..count)
        .map(|i| CancellationReason {
            code: if i == position {
                "ItemCollectionSizeLimitExceeded".into()
            } else {
                "None".into()
            },
            message: (i == position).then(|| messages::COLLECTION_SIZE_EXCEEDED.into()),
            item: None,
        })
        .collect();
    EngineError::TransactionCanceled { reasons }
}

/// Whether `item` lacks a key attribute of `table` or has one of another type; with
/// `exact`, also whether it has attributes besides the key (a Key map).
fn mismatches_schema(table: &TableRecord, item: &Item, exact: bool) -> bool {
    let schema = &table.key_schema;
    schema
        .attributes()
        .any(|a| item.get(&a.name).and_then(ScalarType::of) != Some(a.ty))
        || (exact && item.len() != schema.attributes().count())
}

fn validation_reason(message: &str) -> CancellationReason {
    CancellationReason {
        code: "ValidationError".into(),
        message: Some(message.to_owned()),
        item: None,
    }
}
