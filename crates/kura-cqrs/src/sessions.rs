//! Read-your-writes: a user who publishes asynchronously and then reads sees their own
//! change before the projector has applied it. Each async publish is recorded in the
//! module's session table under its user (one row per entity, the latest version, kept
//! for a window); reads for that user merge the recorded versions that are newer than
//! what the data table returned. Other users read the data table as it is, as the
//! original framework's session table does.
//!
//! A read looks up only what it can merge: a get reads the one entity's row, a list the
//! rows of its partition (the session's sort key is the entity's id, `pk#sk`); only an
//! index query reads the whole session. A row whose version a read finds applied is
//! deleted (pruned), so a user's reads cost what is still pending, not everything they
//! published in the window. Session rows are keyed by user; the entity ids in them carry
//! the tenant, and a row is merged only into a read of its own entity, partition or
//! index query.

use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::command::CommandModel;
use crate::condition::SkCondition;
use crate::error::{CqrsError, Result};
use crate::keys::{KEY_SEPARATOR, generate_id, remove_sort_key_version};
use crate::names::{PK, SK, TTL};
use crate::rows::{Item, n, s};
use crate::tables::TableNames;

/// Attribute of a session row holding the recorded command (a map, the row's shape).
const COMMAND: &str = "command";

/// How long a recorded version is merged into its user's reads by default: long enough
/// for any projector that is not stuck.
pub const DEFAULT_WINDOW: Duration = Duration::from_secs(300);

/// The session table of one module.
#[derive(Debug, Clone)]
pub struct Sessions {
    client: Client,
    table: String,
    window: Duration,
}

impl Sessions {
    pub fn new(client: Client, tables: &TableNames) -> Sessions {
        Sessions {
            client,
            table: tables.session.clone(),
            window: DEFAULT_WINDOW,
        }
    }

    /// How long a recorded version is merged (the row expires by TTL after it).
    pub fn with_window(mut self, window: Duration) -> Sessions {
        self.window = window;
        self
    }

    /// Records `command`, published by `user`. Nothing is recorded for an anonymous
    /// invoker (empty user id): nobody could read it back.
    pub async fn record(&self, user: &str, command: &CommandModel) -> Result<()> {
        if user.is_empty() {
            return Ok(());
        }
        let expires = now_secs() + self.window.as_secs() as i64;
        let mut row = Item::new();
        row.insert(PK.into(), s(&session_pk(user)));
        row.insert(SK.into(), s(&command.id));
        row.insert(COMMAND.into(), AttributeValue::M(command.to_item()));
        row.insert(TTL.into(), n(expires));
        // A later version replaces an earlier one; an earlier one never replaces a later.
        let put = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(row))
            .condition_expression("attribute_not_exists(#c) OR #c.#v < :v")
            .expression_attribute_names("#c", COMMAND)
            .expression_attribute_names("#v", crate::names::VERSION)
            .expression_attribute_values(":v", n(command.version))
            .send()
            .await;
        match put {
            Ok(_) => Ok(()),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_conditional_check_failed_exception()) =>
            {
                Ok(())
            }
            Err(e) => Err(CqrsError::dynamo(e)),
        }
    }

    /// The versions `user` published within the window, as data rows (sort key without
    /// version), one per entity.
    pub async fn recent(&self, user: &str) -> Result<Vec<CommandModel>> {
        self.query(user, None).await
    }

    /// [`Sessions::recent`] within one partition of the data table (`pk`): a list reads
    /// only the rows recorded for it.
    pub async fn recent_in(&self, user: &str, pk: &str) -> Result<Vec<CommandModel>> {
        self.query(user, Some(&format!("{pk}{KEY_SEPARATOR}")))
            .await
    }

    /// The version `user` published of one entity within the window, if any: one read.
    pub async fn recorded(&self, user: &str, pk: &str, sk: &str) -> Result<Option<CommandModel>> {
        if user.is_empty() {
            return Ok(None);
        }
        let got = self
            .client
            .get_item()
            .table_name(&self.table)
            .key(PK, s(&session_pk(user)))
            .key(SK, s(&generate_id(pk, sk)))
            .consistent_read(true)
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        got.item()
            .map(live_version)
            .transpose()
            .map(Option::flatten)
    }

    /// Forgets the recorded version of `applied`'s entity once the data table holds it
    /// (`applied` is the data row, at that version or a later one): the user's later
    /// reads no longer pay for it. Best effort: a failure is logged, and the row expires
    /// with its window anyway.
    pub async fn prune(&self, user: &str, applied: &CommandModel) {
        if user.is_empty() {
            return;
        }
        let deleted = self
            .client
            .delete_item()
            .table_name(&self.table)
            .key(PK, s(&session_pk(user)))
            .key(SK, s(&generate_id(&applied.pk, &applied.sk)))
            .condition_expression("#c.#v <= :v")
            .expression_attribute_names("#c", COMMAND)
            .expression_attribute_names("#v", crate::names::VERSION)
            .expression_attribute_values(":v", n(applied.version))
            .send()
            .await;
        match deleted {
            Ok(_) => {}
            // Gone already, or the user has published a newer version since.
            Err(e)
                if e.as_service_error()
                    .is_some_and(|e| e.is_conditional_check_failed_exception()) => {}
            Err(e) => {
                tracing::warn!(user, pk = %applied.pk, sk = %applied.sk, error = %CqrsError::dynamo(e), "read-your-writes: an applied version was not pruned");
            }
        }
    }

    /// The live rows of `user`'s session, those whose entity id starts with `prefix`.
    async fn query(&self, user: &str, prefix: Option<&str>) -> Result<Vec<CommandModel>> {
        if user.is_empty() {
            return Ok(Vec::new());
        }
        let mut rows = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let mut query = self
                .client
                .query()
                .table_name(&self.table)
                .key_condition_expression(format!("{PK} = :pk"))
                .expression_attribute_values(":pk", s(&session_pk(user)))
                .consistent_read(true)
                .set_exclusive_start_key(start.take());
            if let Some(prefix) = prefix {
                query = query
                    .key_condition_expression(format!("{PK} = :pk AND begins_with({SK}, :id)"))
                    .expression_attribute_values(":id", s(prefix));
            }
            let page = query.send().await.map_err(CqrsError::dynamo)?;
            for item in page.items() {
                rows.extend(live_version(item)?);
            }
            match page.last_evaluated_key() {
                Some(k) => start = Some(k.clone()),
                None => return Ok(rows),
            }
        }
    }
}

/// The recorded version of a session row, as a data row; `None` once its window is over
/// (TTL deletes late).
fn live_version(item: &Item) -> Result<Option<CommandModel>> {
    let now = now_secs();
    let live = matches!(item.get(TTL), Some(AttributeValue::N(t)) if t.parse::<i64>().is_ok_and(|t| t > now));
    match (live, item.get(COMMAND)) {
        (true, Some(AttributeValue::M(command))) => {
            let mut row = CommandModel::from_item(command)?;
            row.sk = remove_sort_key_version(&row.sk).to_owned();
            Ok(Some(row))
        }
        _ => Ok(None),
    }
}

fn session_pk(user: &str) -> String {
    format!("SESSION{KEY_SEPARATOR}{user}")
}

fn now_secs() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

/// `row` (the data table's, if any) with the user's newer recorded version of the same
/// entity in its place.
pub fn merge_one(
    recent: &[CommandModel],
    pk: &str,
    sk: &str,
    row: Option<CommandModel>,
) -> Option<CommandModel> {
    let mine = recent.iter().find(|r| r.pk == pk && r.sk == sk);
    match (row, mine) {
        (Some(row), Some(mine)) if mine.version > row.version => Some(mine.clone()),
        (None, Some(mine)) => Some(mine.clone()),
        (row, _) => row,
    }
}

/// Which rows of a partition a page covers, for [`merge_page`].
#[derive(Debug, Clone, Copy)]
pub struct PageBounds<'a> {
    pub pk: &'a str,
    pub sk: Option<&'a SkCondition>,
    /// The page starts after this sort key (the previous page's cursor).
    pub after: Option<&'a str>,
    /// The page ends at this sort key (its own cursor); `None`: the partition's end.
    pub until: Option<&'a str>,
    pub descending: bool,
    pub exclude_deleted: bool,
}

/// A page of the data table with the user's newer recorded versions merged in: a newer
/// version replaces its row, an entity the page's range covers but the data table does
/// not have yet is inserted in sort-key order, and with `exclude_deleted` a version that
/// deletes leaves the page.
pub fn merge_page(
    recent: &[CommandModel],
    bounds: &PageBounds<'_>,
    page: Vec<CommandModel>,
) -> Vec<CommandModel> {
    let mut rows = page;
    for mine in recent.iter().filter(|r| covers(bounds, r)) {
        match rows.iter().position(|r| r.sk == mine.sk) {
            Some(at) if rows[at].version < mine.version => rows[at] = mine.clone(),
            Some(_) => {}
            None => rows.push(mine.clone()),
        }
    }
    if bounds.exclude_deleted {
        rows.retain(|r| !r.is_deleted);
    }
    rows.sort_by(|a, b| a.sk.cmp(&b.sk));
    if bounds.descending {
        rows.reverse();
    }
    rows
}

/// Whether a recorded version belongs on the page.
fn covers(bounds: &PageBounds<'_>, row: &CommandModel) -> bool {
    if row.pk != bounds.pk || !bounds.sk.is_none_or(|c| c.matches(&row.sk)) {
        return false;
    }
    let sk = row.sk.as_str();
    let (after, until) = (bounds.after, bounds.until);
    if bounds.descending {
        after.is_none_or(|a| sk < a) && until.is_none_or(|u| sk >= u)
    } else {
        after.is_none_or(|a| sk > a) && until.is_none_or(|u| sk <= u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::{CommandInput, Invoker};

    fn row(sk: &str, version: i64, deleted: bool) -> CommandModel {
        let input = CommandInput::new("ORDER#t1", sk, version).with_deleted(deleted);
        let mut row = CommandModel::from_input(&input, version, &Invoker::default(), None, "t");
        row.sk = sk.to_owned();
        row
    }

    fn sks(rows: &[CommandModel]) -> Vec<(String, i64)> {
        rows.iter()
            .map(|r| (r.sk.clone(), r.version.get()))
            .collect()
    }

    fn bounds<'a>() -> PageBounds<'a> {
        PageBounds {
            pk: "ORDER#t1",
            sk: None,
            after: None,
            until: None,
            descending: false,
            exclude_deleted: true,
        }
    }

    #[test]
    fn newer_versions_replace_new_entities_enter_deletes_leave() {
        let page = vec![row("a", 1, false), row("c", 2, false), row("e", 1, false)];
        let recent = [
            row("a", 2, false), // newer: replaces
            row("b", 1, false), // new: inserted in order
            row("c", 1, false), // older than the table's: ignored
            row("e", 2, true),  // deleted: leaves
        ];
        assert_eq!(
            sks(&merge_page(&recent, &bounds(), page)),
            [("a".into(), 2), ("b".into(), 1), ("c".into(), 2)]
        );
    }

    #[test]
    fn only_the_pages_range_and_condition_take_recorded_versions() {
        let page = vec![row("b", 1, false), row("c", 1, false)];
        let recent = [row("a", 1, false), row("bb", 1, false), row("z", 1, false)];
        let condition = SkCondition::BeginsWith("b".into());
        let paged = PageBounds {
            after: Some("a"),
            until: Some("c"),
            ..bounds()
        };
        assert_eq!(
            sks(&merge_page(&recent, &paged, page.clone())),
            [("b".into(), 1), ("bb".into(), 1), ("c".into(), 1)]
        );
        let filtered = PageBounds {
            sk: Some(&condition),
            ..bounds()
        };
        assert_eq!(
            sks(&merge_page(&recent, &filtered, page)),
            [("b".into(), 1), ("bb".into(), 1), ("c".into(), 1)]
        );
    }

    // Another user deleted the entity after this user's recorded update: the page (read
    // without the soft-delete filter) has the newer deleted row, which wins and leaves.
    #[test]
    fn a_newer_delete_by_someone_else_is_not_undone() {
        let page = vec![row("a", 3, true)];
        let recent = [row("a", 2, false)];
        assert!(merge_page(&recent, &bounds(), page).is_empty());
    }

    #[test]
    fn a_get_takes_the_newer_of_the_two() {
        let recent = [row("a", 3, false)];
        let merged = merge_one(&recent, "ORDER#t1", "a", Some(row("a", 2, false)));
        assert_eq!(merged.map(|r| r.version.get()), Some(3));
        let missing = merge_one(&recent, "ORDER#t1", "a", None);
        assert_eq!(missing.map(|r| r.version.get()), Some(3));
        let newer = merge_one(&recent, "ORDER#t1", "a", Some(row("a", 4, false)));
        assert_eq!(newer.map(|r| r.version.get()), Some(4));
        assert!(merge_one(&recent, "ORDER#t1", "b", None).is_none());
    }
}
