//! The projection step, pure: what applying a command version writes to the data and
//! history tables. `publish_sync` and the projector both call [`project`], so the rows
//! they write cannot drift apart; they differ only in the conditions they put on the
//! writes (see each).

use aws_sdk_dynamodb::types::AttributeValue;

use crate::command::CommandModel;
use crate::names::{CPK, CREATED_AT, CREATED_BY, CREATED_IP, CSK, SK, STATUS, TTL, TTL_POLICY};
use crate::rows::{Item, s};
use crate::tables::TableKind;
use crate::ttl::RowTtl;

/// The rows applying one command version writes.
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    /// The previous data row, at `base@previousVersion`, for the history table (`None`
    /// for the entity's first version).
    pub history_row: Option<Item>,
    /// The new data row, at `base`.
    pub data_row: Item,
}

/// Applies `command` on top of `previous` (the entity's current data row, if any): the
/// new data row keeps `created*` of the previous one and names the command applied
/// (`cpk`/`csk`); the previous row goes to history. TTL policies (`ttl`) are applied to
/// both.
pub fn project(
    previous: Option<&CommandModel>,
    command: &CommandModel,
    ttl: &RowTtl,
) -> Projection {
    let mut data_row = data_row(command);
    if let Some(old) = previous {
        for (name, value) in [
            (CREATED_AT, &old.audit.created_at),
            (CREATED_BY, &old.audit.created_by),
            (CREATED_IP, &old.audit.created_ip),
        ] {
            // As `CommandModel::to_item`: an empty text is left out.
            match value.is_empty() {
                true => data_row.remove(name),
                false => data_row.insert(name.into(), s(value)),
            };
        }
    }
    ttl.apply(&mut data_row, TableKind::Data);
    let history_row = previous.map(|old| {
        let mut row = history_row(old);
        ttl.apply(&mut row, TableKind::History);
        row
    });
    Projection {
        history_row,
        data_row,
    }
}

/// The table types whose TTL policies [`project`] and [`command_row`] need: data unless
/// the command carries its own ttl, history when there is a previous row.
pub fn ttl_kinds(previous: Option<&CommandModel>, command: &CommandModel) -> Vec<TableKind> {
    let own = command.ttl.is_some();
    [
        (TableKind::Data, !own),
        (TableKind::History, previous.is_some()),
    ]
    .into_iter()
    .filter_map(|(kind, needed)| needed.then_some(kind))
    .collect()
}

/// The command row of `command` with its `status`. Written as the entity's latest
/// version, it takes the data table's retention: the latest version lives as long as the
/// data row, and only once superseded does it get the command table's
/// ([`crate::CommandService`] retires it when it writes the next).
pub fn command_row(command: &CommandModel, status: &str, ttl: &RowTtl) -> Item {
    let mut row = command.to_item();
    row.insert(STATUS.into(), s(status));
    ttl.apply(&mut row, TableKind::Data);
    row
}

/// The data row of an applied command as the command has it: the key without version,
/// the command's fields, and `cpk`/`csk` naming the command applied.
pub fn data_row(command: &CommandModel) -> Item {
    let mut row = command.to_item();
    row.insert(SK.into(), s(command.base_sk()));
    row.insert(CPK.into(), s(&command.pk));
    row.insert(CSK.into(), s(&command.sk));
    row
}

/// A data row (read back as a model, `sk` = base) as its history row, at `base@version`.
/// A copy keeps the data row's expiry, a policy's included (the history policy, when
/// there is one, replaces it in [`project`]).
pub fn history_row(data: &CommandModel) -> Item {
    let versioned = crate::keys::add_sort_key_version(data.base_sk(), data.version);
    let mut row = data.to_item();
    if let (None, Some(ttl)) = (data.ttl, data.policy_ttl) {
        row.insert(TTL.into(), AttributeValue::N(ttl.to_string()));
        row.insert(TTL_POLICY.into(), AttributeValue::Bool(true));
    }
    row.insert(SK.into(), s(&versioned));
    row.insert(CPK.into(), s(&data.pk));
    row.insert(CSK.into(), s(&versioned));
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::{CommandInput, Invoker};
    use crate::names::{TTL, VERSION};
    use crate::rows::n;
    use serde_json::json;

    fn version(v: i64, user: &str, at: &str, ttl: Option<i64>) -> CommandModel {
        let input = CommandInput::new("ORDER#t1", "ORDER#1", v)
            .with_attribute("total", json!(v))
            .with_ttl(ttl);
        let invoker = Invoker {
            user_id: user.into(),
            ..Invoker::default()
        };
        CommandModel::from_input(&input, v, &invoker, None, at)
    }

    /// The data row as it reads back: `sk` without version.
    fn as_data(command: &CommandModel) -> CommandModel {
        CommandModel::from_item(&data_row(command)).expect("row")
    }

    const POLICY: RowTtl = RowTtl {
        command: Some(100),
        data: Some(200),
        history: Some(300),
    };

    // Given no data row, when version 1 is applied, then only a data row is written, at
    // the base key, naming the command.
    #[test]
    fn first_version() {
        let v1 = version(1, "alice", "t1", None);
        let p = project(None, &v1, &RowTtl::NONE);
        assert_eq!(p.history_row, None);
        assert_eq!(p.data_row[SK], s("ORDER#1"));
        assert_eq!(p.data_row[CPK], s("ORDER#t1"));
        assert_eq!(p.data_row[CSK], s("ORDER#1@1"));
        assert_eq!(p.data_row[VERSION], n(1));
        assert!(!p.data_row.contains_key(TTL));
        assert!(!p.data_row.contains_key(STATUS));
        let back = CommandModel::from_item(&p.data_row).expect("row");
        assert_eq!(back.attributes["total"], json!(1));
    }

    // Given version 1 applied, when version 2 is, then history holds version 1 at @1 and
    // the data row keeps the first version's created* fields.
    #[test]
    fn next_version_moves_the_previous_to_history() {
        let v1 = as_data(&version(1, "alice", "t1", None));
        let v2 = version(2, "bob", "t2", None);
        let p = project(Some(&v1), &v2, &RowTtl::NONE);
        let history = p.history_row.expect("history");
        assert_eq!(history[SK], s("ORDER#1@1"));
        assert_eq!(history[CSK], s("ORDER#1@1"));
        assert_eq!(history[VERSION], n(1));
        let data = CommandModel::from_item(&p.data_row).expect("row");
        assert_eq!(data.version, 2);
        assert_eq!(data.audit.created_by, "alice");
        assert_eq!(data.audit.created_at, "t1");
        assert_eq!(data.audit.updated_by, "bob");
        assert_eq!(data.audit.updated_at, "t2");
        assert_eq!(data.attributes["total"], json!(2));
    }

    // TTL: policies fill in a missing ttl; a command's own ttl wins on the data row; the
    // history row always takes the history policy.
    #[test]
    fn ttl_policies() {
        let v1 = as_data(&version(1, "a", "t1", Some(42)));
        let p = project(Some(&v1), &version(2, "a", "t2", None), &POLICY);
        assert_eq!(p.data_row[TTL], n(200));
        assert_eq!(p.history_row.expect("history")[TTL], n(300));
        let own = project(None, &version(1, "a", "t1", Some(42)), &POLICY);
        assert_eq!(own.data_row[TTL], n(42));
        let kept = project(Some(&v1), &version(2, "a", "t2", None), &RowTtl::NONE);
        assert_eq!(kept.history_row.expect("history")[TTL], n(42));
        // The latest command lives as long as the data row.
        assert_eq!(
            command_row(
                &version(1, "a", "t1", None),
                crate::status::STARTED,
                &POLICY
            )[TTL],
            n(200)
        );
    }

    #[test]
    fn policies_needed() {
        let v1 = as_data(&version(1, "a", "t1", None));
        let bare = version(2, "a", "t2", None);
        assert_eq!(
            ttl_kinds(Some(&v1), &bare),
            [TableKind::Data, TableKind::History]
        );
        assert_eq!(ttl_kinds(None, &bare), [TableKind::Data]);
        let own = version(2, "a", "t2", Some(5));
        assert_eq!(ttl_kinds(Some(&v1), &own), [TableKind::History]);
    }
}
