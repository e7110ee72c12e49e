//! The key attribute names of the tables one request names, read from the engine's
//! catalog once per table and request, by whichever step asks first: fault injection,
//! authorization (`dynamodb:LeadingKeys`) and the audit record ask the same [`Schemas`].

use kura_engine::Engine;
use parking_lot::Mutex;

/// A table, and one of its indexes or none.
type Target = (String, Option<String>);

/// One request's view of the key schemas it needs.
pub struct Schemas<'a> {
    engine: &'a Engine,
    /// (table, index) → the partition key attribute names (None: no such table or index).
    partition: Mutex<Vec<(Target, Option<Vec<String>>)>>,
    /// table → the primary key attribute names, partition key first.
    primary: Mutex<Vec<(String, Option<Vec<String>>)>>,
}

impl<'a> Schemas<'a> {
    pub fn new(engine: &'a Engine) -> Schemas<'a> {
        Schemas {
            engine,
            partition: Mutex::new(Vec::new()),
            primary: Mutex::new(Vec::new()),
        }
    }

    /// The engine the request runs on.
    pub fn engine(&self) -> &'a Engine {
        self.engine
    }

    /// The partition key attribute names of `table`, or of its `index`.
    pub fn partition_keys(&self, table: &str, index: Option<&str>) -> Option<Vec<String>> {
        let mut seen = self.partition.lock();
        let found = seen
            .iter()
            .find(|((t, i), _)| t == table && i.as_deref() == index);
        if let Some((_, names)) = found {
            return names.clone();
        }
        let names = self.engine.design().partition_key_names(table, index);
        let key = (table.to_owned(), index.map(str::to_owned));
        seen.push((key, names.clone()));
        names
    }

    /// The primary key attribute names of `table`: partition key, then sort key.
    pub fn primary_keys(&self, table: &str) -> Option<Vec<String>> {
        let mut seen = self.primary.lock();
        if let Some((_, names)) = seen.iter().find(|(t, _)| t == table) {
            return names.clone();
        }
        let names = self.engine.design().key_names(table);
        seen.push((table.to_owned(), names.clone()));
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request reads each schema once: what it read stays its answer for the rest of
    /// the request, even if the table goes meanwhile.
    #[tokio::test]
    async fn a_schema_is_read_once_per_request() {
        let engine = Engine::in_memory();
        let create = br#"{"TableName":"tab","BillingMode":"PAY_PER_REQUEST",
            "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},
                                    {"AttributeName":"sk","AttributeType":"S"}],
            "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},
                         {"AttributeName":"sk","KeyType":"RANGE"}]}"#;
        // The engine directly: these tests are about the schemas, not the pipeline.
        let ctx = kura_engine::RequestContext::default();
        let input = serde_json::from_slice(create).expect("input");
        engine.create_table(&ctx, input).await.expect("create");
        let schemas = Schemas::new(&engine);
        assert_eq!(
            schemas.partition_keys("tab", None),
            Some(vec!["pk".to_owned()])
        );
        assert_eq!(
            schemas.primary_keys("tab"),
            Some(vec!["pk".to_owned(), "sk".to_owned()])
        );
        assert_eq!(schemas.partition_keys("tab", Some("nope")), None);
        let input = serde_json::from_slice(br#"{"TableName":"tab"}"#).expect("input");
        engine.delete_table(&ctx, input).await.expect("delete");
        assert_eq!(
            schemas.partition_keys("tab", None),
            Some(vec!["pk".to_owned()])
        );
        assert_eq!(Schemas::new(&engine).partition_keys("tab", None), None);
    }
}
