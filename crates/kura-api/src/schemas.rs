//! The tables one request names, read from the engine's catalog once per table and
//! request, by whichever step asks first: fault injection, authorization (key names for
//! `dynamodb:LeadingKeys`, the resource-based policy), admission and the audit record ask
//! the same [`Schemas`]. The engine's own call reads the table once more, for itself.

use kura_engine::Engine;
use kura_engine::design::PublishedTable;
use parking_lot::Mutex;

/// One request's copies of the tables it names.
pub struct Schemas<'a> {
    engine: &'a Engine,
    /// table → the table as first seen (None: no such table), in the order first asked.
    tables: Mutex<Vec<(String, Option<PublishedTable>)>>,
}

impl<'a> Schemas<'a> {
    pub fn new(engine: &'a Engine) -> Schemas<'a> {
        Schemas {
            engine,
            tables: Mutex::new(Vec::new()),
        }
    }

    /// The engine the request runs on.
    pub fn engine(&self) -> &'a Engine {
        self.engine
    }

    /// `table` as this request first saw it (None: no such table).
    pub fn table(&self, table: &str) -> Option<PublishedTable> {
        let mut seen = self.tables.lock();
        if let Some((_, record)) = seen.iter().find(|(name, _)| name == table) {
            return record.clone();
        }
        let record = self.engine.design().table(table);
        seen.push((table.to_owned(), record.clone()));
        record
    }

    /// The partition key attribute names of `table`, or of its `index`.
    pub fn partition_keys(&self, table: &str, index: Option<&str>) -> Option<Vec<String>> {
        self.table(table)?.partition_key_names(index)
    }

    /// The primary key attribute names of `table`: partition key, then sort key.
    pub fn primary_keys(&self, table: &str) -> Option<Vec<String>> {
        Some(self.table(table)?.primary_key_names())
    }
}

#[cfg(test)]
mod tests {
    use kura_engine::catalog::reads;
    use kura_engine::{Engine, RequestContext};

    use super::Schemas;

    /// Key names, the partition key of an index and the resource policy of one table, asked
    /// over and over by a request's steps, read the catalog once (debug builds count reads).
    #[tokio::test]
    async fn every_step_of_a_request_shares_one_read_of_each_table() {
        let engine = Engine::in_memory();
        let create = serde_json::json!({
            "TableName": "orders",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "sk", "AttributeType": "S"}],
            "BillingMode": "PAY_PER_REQUEST"
        });
        engine
            .create_table(
                &RequestContext::default(),
                serde_json::from_value(create).expect("input"),
            )
            .await
            .expect("create");
        let schemas = Schemas::new(&engine);
        let before = reads::on_this_thread();
        for _ in 0..3 {
            assert_eq!(
                schemas.primary_keys("orders"),
                Some(vec!["pk".into(), "sk".into()])
            );
            assert_eq!(
                schemas.partition_keys("orders", None),
                Some(vec!["pk".into()])
            );
            assert_eq!(schemas.partition_keys("orders", Some("nope")), None);
            assert!(schemas.table("orders").is_some());
        }
        assert_eq!(schemas.primary_keys("absent"), None);
        assert!(schemas.table("absent").is_none());
        if cfg!(debug_assertions) {
            assert_eq!(reads::on_this_thread() - before, 2, "one read per table");
        }
        // What a request read stays its answer, even if the table goes meanwhile.
        let input = serde_json::from_value(serde_json::json!({"TableName": "orders"}));
        engine
            .delete_table(&RequestContext::default(), input.expect("input"))
            .await
            .expect("delete");
        assert_eq!(
            schemas.partition_keys("orders", None),
            Some(vec!["pk".into()])
        );
        assert_eq!(Schemas::new(&engine).partition_keys("orders", None), None);
    }
}
