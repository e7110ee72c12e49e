//! Reading the data table (the latest state of every entity) and the history table.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::command::CommandModel;
use crate::error::{CqrsError, Result};
use crate::keys::{VER_SEPARATOR, add_sort_key_version};
use crate::names::{IS_DELETED, PK, SK};
use crate::rows::{Item, read_row, s};
use crate::tables::TableNames;

/// A condition on the sort key of `list_items_by_pk`.
#[derive(Debug, Clone, PartialEq)]
pub enum SkCondition {
    BeginsWith(String),
    Between(String, String),
    Eq(String),
    Lt(String),
    Le(String),
    Gt(String),
    Ge(String),
}

impl SkCondition {
    fn expression(&self) -> (String, Vec<String>) {
        match self {
            SkCondition::BeginsWith(p) => (format!("begins_with({SK}, :a)"), vec![p.clone()]),
            SkCondition::Between(a, b) => (
                format!("{SK} BETWEEN :a AND :b"),
                vec![a.clone(), b.clone()],
            ),
            SkCondition::Eq(v) => (format!("{SK} = :a"), vec![v.clone()]),
            SkCondition::Lt(v) => (format!("{SK} < :a"), vec![v.clone()]),
            SkCondition::Le(v) => (format!("{SK} <= :a"), vec![v.clone()]),
            SkCondition::Gt(v) => (format!("{SK} > :a"), vec![v.clone()]),
            SkCondition::Ge(v) => (format!("{SK} >= :a"), vec![v.clone()]),
        }
    }
}

/// Options of `list_items_by_pk`.
#[derive(Debug, Clone, Default)]
pub struct ListOptions {
    pub sk: Option<SkCondition>,
    /// Items per page (DynamoDB's Limit: counted before the soft-delete filter).
    pub limit: Option<i32>,
    /// Continue after this sort key (the cursor of the previous page).
    pub start_from_sk: Option<String>,
    /// Newest (highest sort key) first.
    pub descending: bool,
    /// Leave out rows with `isDeleted = true`.
    pub exclude_deleted: bool,
}

/// One page and the cursor to continue after it.
#[derive(Debug, Clone, Default)]
pub struct Page {
    pub items: Vec<CommandModel>,
    /// The sort key to pass as `start_from_sk` for the next page; `None` at the end.
    pub cursor: Option<String>,
}

#[derive(Debug, Clone)]
pub struct DataService {
    client: Client,
    tables: TableNames,
}

impl DataService {
    pub fn new(client: Client, tables: TableNames) -> DataService {
        DataService { client, tables }
    }

    /// The latest state of one entity.
    pub async fn get_item(&self, pk: &str, sk: &str) -> Result<Option<CommandModel>> {
        read_row(&self.client, &self.tables.data, pk, sk).await
    }

    /// One page of the entities of a partition, in sort-key order.
    pub async fn list_items_by_pk(&self, pk: &str, options: &ListOptions) -> Result<Page> {
        let mut expression = format!("{PK} = :pk");
        let mut values = Item::from([(":pk".into(), s(pk))]);
        if let Some(condition) = &options.sk {
            let (text, operands) = condition.expression();
            expression.push_str(" AND ");
            expression.push_str(&text);
            for (name, value) in [":a", ":b"].iter().zip(operands) {
                values.insert((*name).into(), s(&value));
            }
        }
        let mut query = self
            .client
            .query()
            .table_name(&self.tables.data)
            .key_condition_expression(expression)
            .scan_index_forward(!options.descending)
            .set_limit(options.limit);
        if options.exclude_deleted {
            query = query
                .filter_expression("attribute_not_exists(#deleted) OR #deleted = :no")
                .expression_attribute_names("#deleted", IS_DELETED);
            values.insert(":no".into(), AttributeValue::Bool(false));
        }
        if let Some(start) = &options.start_from_sk {
            query = query.set_exclusive_start_key(Some(crate::rows::key(pk, start)));
        }
        let page = query
            .set_expression_attribute_values(Some(values))
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        let items = page
            .items()
            .iter()
            .map(CommandModel::from_item)
            .collect::<Result<Vec<_>>>()?;
        let cursor = match page.last_evaluated_key().and_then(|k| k.get(SK)) {
            Some(AttributeValue::S(sk)) => Some(sk.clone()),
            _ => None,
        };
        Ok(Page { items, cursor })
    }

    /// Every entity of a partition, following the pages.
    pub async fn list_all_by_pk(
        &self,
        pk: &str,
        options: &ListOptions,
    ) -> Result<Vec<CommandModel>> {
        let mut all = Vec::new();
        let mut options = options.clone();
        loop {
            let page = self.list_items_by_pk(pk, &options).await?;
            all.extend(page.items);
            match page.cursor {
                Some(cursor) => options.start_from_sk = Some(cursor),
                None => return Ok(all),
            }
        }
    }

    /// The history rows of an entity with versions in `from..=to`, oldest first (the
    /// latest version is the data row, not history).
    pub async fn history(
        &self,
        pk: &str,
        base_sk: &str,
        from: i64,
        to: i64,
    ) -> Result<Vec<CommandModel>> {
        let mut rows = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let page = self
                .client
                .query()
                .table_name(&self.tables.history)
                .key_condition_expression(format!("{PK} = :pk AND begins_with({SK}, :prefix)"))
                .expression_attribute_values(":pk", s(pk))
                .expression_attribute_values(":prefix", s(&format!("{base_sk}{VER_SEPARATOR}")))
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(CqrsError::dynamo)?;
            for item in page.items() {
                let row = CommandModel::from_item(item)?;
                if (from..=to).contains(&row.version) {
                    rows.push(row);
                }
            }
            match page.last_evaluated_key() {
                Some(k) => start = Some(k.clone()),
                None => break,
            }
        }
        // By number: `@10` sorts before `@9` as text.
        rows.sort_by_key(|r| r.version);
        Ok(rows)
    }

    /// One history version.
    pub async fn history_version(
        &self,
        pk: &str,
        base_sk: &str,
        version: i64,
    ) -> Result<Option<CommandModel>> {
        read_row(
            &self.client,
            &self.tables.history,
            pk,
            &add_sort_key_version(base_sk, version),
        )
        .await
    }
}
