//! Reading the data table (the latest state of every entity), its secondary indexes and
//! the history table: rows or typed entities, one page at a time or as a stream that
//! follows the pages.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use futures_util::{Stream, TryStreamExt, stream};
use serde::de::DeserializeOwned;

use crate::command::CommandModel;
pub use crate::condition::SkCondition;
use crate::entity::{Entity, entities};
use crate::error::{CqrsError, Result};
use crate::index_merge::{IndexBounds, IndexMatch, merge_index_page};
pub use crate::index_query::{Cursor, IndexPage, IndexQuery};
use crate::indexes::{Indexes, KeyCondition, key_condition};
use crate::keys::{Key, VER_SEPARATOR, add_sort_key_version};
use crate::large::{LargeAttributes, resolve_all, resolve_some};
use crate::names::{IS_DELETED, PK, SK};
use crate::rows::{Item, read_row, s};
use crate::sessions::{PageBounds, Sessions, merge_one, merge_page};
use crate::tables::TableNames;
use crate::version::Version;

/// The widest version range [`DataService::history`] reads by key.
pub const HISTORY_BY_KEY: i64 = 1_000;

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
    /// A strongly consistent read (every write acknowledged before it is seen).
    pub consistent_read: bool,
}

/// One page and the cursor to continue after it.
#[derive(Debug, Clone)]
pub struct Page<T = CommandModel> {
    pub items: Vec<T>,
    /// The sort key to pass as `start_from_sk` for the next page; `None` at the end.
    pub cursor: Option<String>,
}

impl Page {
    /// The page's rows as entities of type `T`.
    pub fn typed<T: DeserializeOwned>(self) -> Result<Page<Entity<T>>> {
        Ok(Page {
            items: entities(self.items)?,
            cursor: self.cursor,
        })
    }
}

/// The filter leaving soft-deleted rows out: its expression, one name and one value.
const NOT_DELETED: &str = "attribute_not_exists(#deleted) OR #deleted = :no";

#[derive(Debug, Clone)]
pub struct DataService {
    client: Client,
    tables: TableNames,
    sessions: Option<Sessions>,
    large: Option<LargeAttributes>,
    /// The module's declared indexes, when it was built from a [`crate::Module`]: index
    /// queries are checked against them.
    indexes: Option<Indexes>,
}

impl DataService {
    pub fn new(client: Client, tables: TableNames) -> DataService {
        DataService {
            client,
            tables,
            sessions: None,
            large: None,
            indexes: None,
        }
    }

    /// Checks every index query against the module's declared indexes: an index it does
    /// not declare, or declares otherwise, is refused before any request.
    pub fn with_indexes(mut self, indexes: Indexes) -> DataService {
        self.indexes = Some(indexes);
        self
    }

    /// Reads attributes kept in an object store back into the rows it returns (the same
    /// [`LargeAttributes`] the module's `CommandService` writes with).
    pub fn with_large_attributes(mut self, large: LargeAttributes) -> DataService {
        self.large = Some(large);
        self
    }

    /// Lets [`DataService::get_item_for`] and [`DataService::list_items_by_pk_for`] merge
    /// a user's own recent async publishes (read-your-writes).
    pub fn with_sessions(mut self, sessions: Sessions) -> DataService {
        self.sessions = Some(sessions);
        self
    }

    async fn recent(&self, user: &str) -> Result<Vec<CommandModel>> {
        match &self.sessions {
            // As recorded: offloaded attributes are read back only for the rows merged.
            Some(sessions) => sessions.recent(user).await,
            None => Ok(Vec::new()),
        }
    }

    /// Prunes the recorded versions `rows` (from the data table) show applied.
    async fn prune_applied(&self, user: &str, recent: &[CommandModel], rows: &[CommandModel]) {
        let Some(sessions) = &self.sessions else {
            return;
        };
        for mine in recent {
            if let Some(row) = rows
                .iter()
                .find(|r| r.pk == mine.pk && r.sk == mine.sk && r.version >= mine.version)
            {
                sessions.prune(user, row).await;
            }
        }
    }

    /// [`DataService::get_item`] as `user` sees it: their own newer version, published
    /// asynchronously and not applied yet, in place of the data row.
    pub async fn get_item_for(
        &self,
        user: &str,
        pk: &str,
        sk: &str,
    ) -> Result<Option<CommandModel>> {
        let row = self.get_item(pk, sk).await?;
        let Some(sessions) = &self.sessions else {
            return Ok(row);
        };
        let mine = sessions.recorded(user, pk, sk).await?;
        if let (Some(row), Some(mine)) = (&row, &mine)
            && row.version >= mine.version
        {
            sessions.prune(user, row).await;
        }
        let merged = merge_one(mine.as_slice(), pk, sk, row);
        resolve_some(self.large.as_ref(), merged).await
    }

    /// [`DataService::list_items_by_pk`] as `user` sees it: their own newer versions
    /// merged into the page's range (replaced, inserted in order, deletes left out when
    /// `exclude_deleted`). The page may then hold more or fewer rows than `limit`.
    pub async fn list_items_by_pk_for(
        &self,
        user: &str,
        pk: &str,
        options: &ListOptions,
    ) -> Result<Page> {
        // Without the soft-delete filter: a row another user deleted must stay in the
        // page for the merge (it hides the user's older version), and leave after it.
        let unfiltered = ListOptions {
            exclude_deleted: false,
            ..options.clone()
        };
        let page = self.list_items_by_pk(pk, &unfiltered).await?;
        let bounds = PageBounds {
            pk,
            sk: options.sk.as_ref(),
            after: options.start_from_sk.as_deref(),
            until: page.cursor.as_deref(),
            descending: options.descending,
            exclude_deleted: options.exclude_deleted,
        };
        let recent = match &self.sessions {
            Some(sessions) => sessions.recent_in(user, pk).await?,
            None => Vec::new(),
        };
        self.prune_applied(user, &recent, &page.items).await;
        let items = merge_page(&recent, &bounds, page.items);
        let items = resolve_all(self.large.as_ref(), items).await?;
        Ok(Page {
            items,
            cursor: page.cursor,
        })
    }

    /// [`DataService::query_index`] as `user` sees it: their own newer versions merged
    /// into the page — replacing a row when they still match the query, taking it off
    /// when they no longer do, entering in index order when the page's range covers
    /// them and the data table has not applied them yet (one consistent read of the data
    /// row each), deletes left out when `exclude_deleted`.
    pub async fn query_index_for(&self, user: &str, query: &IndexQuery) -> Result<IndexPage> {
        // Without the soft-delete filter, as `list_items_by_pk_for`.
        let unfiltered = IndexQuery {
            exclude_deleted: false,
            ..query.clone()
        };
        let page = self.query_index(&unfiltered).await?;
        let recent = self.recent(user).await?;
        self.prune_applied(user, &recent, &page.items).await;
        let condition = key_condition(
            &query.index,
            &query.partition,
            &query.sort_equal,
            query.sort.as_ref(),
        )?;
        let wanted = IndexMatch {
            equal: condition.equal,
            range: condition
                .range
                .zip(query.sort.clone())
                .map(|((name, operands), sort)| (name, sort, operands)),
            sort: query
                .index
                .sort
                .iter()
                .map(|k| k.attribute.clone())
                .collect(),
            descending: query.descending,
            exclude_deleted: query.exclude_deleted,
        };
        // The data table's versions of the recorded entities the merge could use: those
        // the page shows at an older version, and those it does not show that match.
        let mut applied = BTreeMap::new();
        for mine in &recent {
            let shown = page
                .items
                .iter()
                .find(|r| r.pk == mine.pk && r.sk == mine.sk);
            let wanted_here = match shown {
                Some(row) => row.version < mine.version,
                None => wanted.matches(&mine.to_item()),
            };
            if wanted_here {
                let row = read_row(&self.client, &self.tables.data, &mine.pk, &mine.sk).await?;
                applied.insert(
                    (mine.pk.clone(), mine.sk.clone()),
                    row.map_or(Version::FIRST, |r| r.version),
                );
            }
        }
        let bounds = IndexBounds {
            after: query.cursor.as_ref().map(|c| &c.0),
            until: page.cursor.as_ref().map(|c| &c.0),
        };
        let items = merge_index_page(&recent, &wanted, &bounds, page.items, |mine| {
            applied
                .get(&(mine.pk.clone(), mine.sk.clone()))
                .is_some_and(|version| *version < mine.version)
        });
        let items = resolve_all(self.large.as_ref(), items).await?;
        Ok(IndexPage {
            items,
            cursor: page.cursor,
        })
    }

    /// The latest state of one entity.
    pub async fn get_item(&self, pk: &str, sk: &str) -> Result<Option<CommandModel>> {
        let row = read_row(&self.client, &self.tables.data, pk, sk).await?;
        resolve_some(self.large.as_ref(), row).await
    }

    /// The latest state of one entity, as a `T`.
    pub async fn get<T: DeserializeOwned>(&self, key: &Key) -> Result<Option<Entity<T>>> {
        self.get_item(&key.pk, &key.sk)
            .await?
            .map(Entity::from_row)
            .transpose()
    }

    /// One page of the entities of a partition, in sort-key order.
    pub async fn list_items_by_pk(&self, pk: &str, options: &ListOptions) -> Result<Page> {
        let mut expression = format!("{PK} = :pk");
        let mut values = Item::from([(":pk".into(), s(pk))]);
        if let Some(condition) = &options.sk {
            let (text, operands) = condition.expression_on(SK);
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
            .consistent_read(options.consistent_read)
            .set_limit(options.limit);
        if options.exclude_deleted {
            query = query
                .filter_expression(NOT_DELETED)
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
        let items = resolve_all(self.large.as_ref(), items).await?;
        let cursor = match page.last_evaluated_key().and_then(|k| k.get(SK)) {
            Some(AttributeValue::S(sk)) => Some(sk.clone()),
            _ => None,
        };
        Ok(Page { items, cursor })
    }

    /// The entities of a partition as a stream that fetches page after page as it is
    /// read (nothing is fetched before the first poll).
    pub fn stream_by_pk<'a>(
        &'a self,
        pk: &'a str,
        options: &ListOptions,
    ) -> impl Stream<Item = Result<CommandModel>> + Send + 'a {
        let first = Some(options.clone());
        stream::try_unfold(first, move |next| async move {
            let Some(options) = next else {
                return Ok(None);
            };
            let page = self.list_items_by_pk(pk, &options).await?;
            let next = page.cursor.map(|cursor| ListOptions {
                start_from_sk: Some(cursor),
                ..options
            });
            Ok(Some((stream::iter(page.items.into_iter().map(Ok)), next)))
        })
        .try_flatten()
    }

    /// One page of a query on one of the module's indexes, in index sort-key order.
    pub async fn query_index(&self, query: &IndexQuery) -> Result<IndexPage> {
        if let Some(indexes) = &self.indexes {
            indexes.check_query(&query.index)?;
        }
        let KeyCondition {
            expression,
            names,
            mut values,
            ..
        } = key_condition(
            &query.index,
            &query.partition,
            &query.sort_equal,
            query.sort.as_ref(),
        )?;
        let mut request = self
            .client
            .query()
            .table_name(&self.tables.data)
            .index_name(&query.index.name)
            .key_condition_expression(expression)
            .set_expression_attribute_names(Some(names.into_iter().collect()))
            .scan_index_forward(!query.descending)
            .set_limit(query.limit)
            .set_exclusive_start_key(query.cursor.clone().map(|c| c.0));
        if query.exclude_deleted {
            request = request
                .filter_expression(NOT_DELETED)
                .expression_attribute_names("#deleted", IS_DELETED);
            values.insert(":no".into(), AttributeValue::Bool(false));
        }
        let page = request
            .set_expression_attribute_values(Some(values.into_iter().collect()))
            .send()
            .await
            .map_err(CqrsError::dynamo)?;
        let items = page
            .items()
            .iter()
            .map(CommandModel::from_item)
            .collect::<Result<Vec<_>>>()?;
        let items = resolve_all(self.large.as_ref(), items).await?;
        Ok(IndexPage {
            items,
            cursor: page.last_evaluated_key().cloned().map(Cursor),
        })
    }

    /// An index query as a stream that fetches page after page as it is read.
    pub fn stream_index<'a>(
        &'a self,
        query: &IndexQuery,
    ) -> impl Stream<Item = Result<CommandModel>> + Send + 'a {
        let first = Some(query.clone());
        stream::try_unfold(first, move |next| async move {
            let Some(query) = next else {
                return Ok(None);
            };
            let page = self.query_index(&query).await?;
            let next = page.cursor.map(|cursor| IndexQuery {
                cursor: Some(cursor),
                ..query
            });
            Ok(Some((stream::iter(page.items.into_iter().map(Ok)), next)))
        })
        .try_flatten()
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
    /// latest version is the data row, not history). A range of up to
    /// [`HISTORY_BY_KEY`] versions is read by key (BatchGetItem), so it costs what the
    /// range is, not what the entity's history is; a wider one is read with a Query over
    /// the entity's history (version numbers do not sort as text: `@10` before `@9`).
    pub async fn history(
        &self,
        pk: &str,
        base_sk: &str,
        from: i64,
        to: i64,
    ) -> Result<Vec<CommandModel>> {
        let from = from.max(1);
        if to < from {
            return Ok(Vec::new());
        }
        if to - from < HISTORY_BY_KEY {
            let keys = (from..=to)
                .map(|v| crate::rows::key(pk, &add_sort_key_version(base_sk, Version::new(v))))
                .collect();
            let found = crate::rows::batch_get(&self.client, &self.tables.history, keys).await?;
            let mut rows = found
                .iter()
                .map(CommandModel::from_item)
                .collect::<Result<Vec<_>>>()?;
            rows.sort_by_key(|r| r.version);
            return resolve_all(self.large.as_ref(), rows).await;
        }
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
                if (from..=to).contains(&row.version.get()) {
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
        resolve_all(self.large.as_ref(), rows).await
    }

    /// One history version.
    pub async fn history_version(
        &self,
        pk: &str,
        base_sk: &str,
        version: impl Into<Version>,
    ) -> Result<Option<CommandModel>> {
        let version = version.into();
        let row = read_row(
            &self.client,
            &self.tables.history,
            pk,
            &add_sort_key_version(base_sk, version),
        )
        .await?;
        resolve_some(self.large.as_ref(), row).await
    }
}
