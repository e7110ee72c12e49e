//! The tools an assistant is given: read tools always, write tools only when the server
//! was started with `--allow-writes`. Each answers with DynamoDB's own JSON, or with
//! DynamoDB's error type and message as a tool error the assistant can read and act on.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};

use crate::params::{
    DeleteItem, GetItem, ListTables, OptionalTable, PutItem, Query, Scan, Statement, TableName,
    UpdateItem,
};
use crate::{McpError, access, advice, pages, requests};
use kura_client::Endpoint;

/// A tool's answer: DynamoDB's JSON as text, or the error's text.
type Answer = Result<String, String>;

fn answer<E: std::fmt::Display>(result: Result<Value, E>) -> Answer {
    result
        .map(|v| serde_json::to_string_pretty(&v).unwrap_or_default())
        .map_err(|e| e.to_string())
}

/// The MCP server: one endpoint, its tools.
#[derive(Clone)]
pub struct KuraTools {
    endpoint: Endpoint,
    allow_writes: bool,
    advisor: Option<advice::Advisor>,
    tool_router: ToolRouter<Self>,
}

impl KuraTools {
    pub fn new(
        endpoint: Endpoint,
        allow_writes: bool,
        advisor: Option<advice::Advisor>,
    ) -> KuraTools {
        let mut tool_router = Self::read_tools();
        if allow_writes {
            tool_router += Self::write_tools();
        }
        KuraTools {
            endpoint,
            allow_writes,
            advisor,
            tool_router,
        }
    }

    /// The names of the tools this server offers.
    pub fn tool_names(&self) -> Vec<String> {
        self.tool_router
            .list_all()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect()
    }
}

#[tool_router(router = read_tools)]
impl KuraTools {
    #[tool(
        description = "List the endpoint's tables, a page of names at a time.",
        annotations(read_only_hint = true)
    )]
    async fn list_tables(&self, Parameters(p): Parameters<ListTables>) -> Answer {
        answer(
            self.endpoint
                .call("ListTables", &requests::list_tables(p))
                .await,
        )
    }

    #[tool(
        description = "Describe a table: its keys, indexes and projections, billing mode, stream, item count and size (DynamoDB's DescribeTable).",
        annotations(read_only_hint = true)
    )]
    async fn describe_table(&self, Parameters(p): Parameters<TableName>) -> Answer {
        let body = requests::describe_table(p);
        answer(self.endpoint.call("DescribeTable", &body).await)
    }

    #[tool(
        description = "Read one item by its whole primary key (DynamoDB JSON).",
        annotations(read_only_hint = true)
    )]
    async fn get_item(&self, Parameters(p): Parameters<GetItem>) -> Answer {
        answer(self.endpoint.call("GetItem", &requests::get_item(p)).await)
    }

    #[tool(
        description = "Query a table or index by partition key (and a sort-key condition), a bounded page at a time (at most 100 items and 256 KB); pass LastEvaluatedKey back as start_key for the next page. explain_access_patterns shows a table's ready-made queries.",
        annotations(read_only_hint = true)
    )]
    async fn query(&self, Parameters(p): Parameters<Query>) -> Answer {
        let (body, limit) = requests::query(p);
        answer(pages::bounded(&self.endpoint, "Query", body, limit).await)
    }

    #[tool(
        description = "Scan a table or index, a bounded page at a time (at most 100 items read and 256 KB); pass LastEvaluatedKey back as start_key for the next page. Prefer query where a key is known.",
        annotations(read_only_hint = true)
    )]
    async fn scan(&self, Parameters(p): Parameters<Scan>) -> Answer {
        let (body, limit) = requests::scan(p);
        answer(pages::bounded(&self.endpoint, "Scan", body, limit).await)
    }

    #[tool(
        description = "Run one PartiQL statement (ExecuteStatement), a bounded page at a time. SELECT only, unless the server was started with --allow-writes.",
        annotations(read_only_hint = true)
    )]
    async fn execute_statement(&self, Parameters(p): Parameters<Statement>) -> Answer {
        let (body, limit) =
            requests::execute_statement(p, self.allow_writes).map_err(|e| e.to_string())?;
        answer(pages::bounded(&self.endpoint, "ExecuteStatement", body, limit).await)
    }

    #[tool(
        description = "The design advisor's findings (key design, hot partitions, indexes, TTL, backups, capacity) on one table or on all, each with its evidence and fix.",
        annotations(read_only_hint = true)
    )]
    async fn advise(&self, Parameters(p): Parameters<OptionalTable>) -> Answer {
        answer(advice::advise(&self.endpoint, p.table.as_deref(), self.advisor).await)
    }

    #[tool(
        description = "Explain how a table can be read: each access pattern its keys and indexes serve (with a request the query tool takes as it is), consistency and projections, and the entity types a sample of its items shows.",
        annotations(read_only_hint = true)
    )]
    async fn explain_access_patterns(&self, Parameters(p): Parameters<TableName>) -> Answer {
        answer(self.explain(&p.table).await)
    }
}

impl KuraTools {
    async fn explain(&self, table: &str) -> Result<Value, McpError> {
        let described = self
            .endpoint
            .call("DescribeTable", &json!({"TableName": table}))
            .await?;
        let ttl = self
            .endpoint
            .call("DescribeTimeToLive", &json!({"TableName": table}))
            .await
            .unwrap_or_default();
        let sample = self
            .endpoint
            .call("Scan", &json!({"TableName": table, "Limit": 50}))
            .await?;
        let items = sample["Items"].as_array().cloned().unwrap_or_default();
        Ok(access::explain(
            &described["Table"],
            &ttl["TimeToLiveDescription"],
            &items,
        ))
    }
}

#[tool_router(router = write_tools)]
impl KuraTools {
    #[tool(
        description = "Write a whole item (PutItem), replacing any item with its key; a condition makes it conditional.",
        annotations(destructive_hint = true)
    )]
    async fn put_item(&self, Parameters(p): Parameters<PutItem>) -> Answer {
        answer(self.endpoint.call("PutItem", &requests::put_item(p)).await)
    }

    #[tool(
        description = "Change attributes of one item (UpdateItem); answers the item as it is after the change.",
        annotations(destructive_hint = true)
    )]
    async fn update_item(&self, Parameters(p): Parameters<UpdateItem>) -> Answer {
        answer(
            self.endpoint
                .call("UpdateItem", &requests::update_item(p))
                .await,
        )
    }

    #[tool(
        description = "Delete one item by its whole primary key (DeleteItem); answers the deleted item.",
        annotations(destructive_hint = true)
    )]
    async fn delete_item(&self, Parameters(p): Parameters<DeleteItem>) -> Answer {
        answer(
            self.endpoint
                .call("DeleteItem", &requests::delete_item(p))
                .await,
        )
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for KuraTools {
    fn get_info(&self) -> ServerConfig {
        let writes = if self.allow_writes {
            "Writes are allowed (put_item, update_item, delete_item, and PartiQL writes)."
        } else {
            "Read-only: the server was started without --allow-writes."
        };
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(rmcp::model::Implementation::new(
                "kura",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(format!(
                "Tools for the DynamoDB endpoint {}. Keys, items and values are DynamoDB JSON \
                 ({{\"S\": \"text\"}}, {{\"N\": \"42\"}}). Start with list_tables and \
                 explain_access_patterns; query rather than scan. {writes}",
                self.endpoint.url()
            ))
    }
}
