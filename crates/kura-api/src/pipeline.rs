//! The one way an API request runs, whoever sends it: the HTTP protocol, the console, or a
//! program embedding Kura ([`crate::invoke`]). Each builds a [`Request`] and calls
//! [`Pipeline::run`], which takes it through
//!
//! 1. the operation table (unknown names are UnknownOperationException),
//! 2. the account check of ARNs,
//! 3. the operation's handler: the steps every operation takes before the engine, written
//!    once (`ops::input::begin`: parse, label the metrics, the interceptor if the server
//!    has one, authorize, admit), then its engine call,
//! 4. the record: metrics, then the audit line, whose failure fails the request.
//!
//! What comes before (reading the body, SigV4) belongs to the HTTP edge (kura-server); a
//! request it refuses is still recorded here ([`Pipeline::record`]), as every answered
//! request is.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use kura_auth::Verified;
use kura_engine::{Engine, RequestContext};
use kura_model::messages;
use tracing::Instrument;

use crate::audit::AuditLog;
use crate::call::Call;
use crate::error::ApiError;
use crate::intercept::Interceptor;
use crate::metrics::{Metrics, Observation};
use crate::operation::{Api, LATER, Op};
use crate::schemas::Schemas;

/// What a server turns on around the handlers; [`Pipeline::bare`] for none of it.
#[derive(Clone, Default)]
pub struct Pipeline {
    pub metrics: Option<Arc<Metrics>>,
    pub audit: Option<Arc<AuditLog>>,
    pub interceptor: Option<Arc<dyn Interceptor>>,
    /// Every region's engine, when regions are kept apart (`--regions separate`).
    pub regions: Option<Arc<kura_engine::replication::Regions>>,
}

/// Who sent a request, which decides the steps that apply to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A client of the API (`POST /`).
    Api,
    /// The web console, on behalf of its signed-in user.
    Console,
    /// A program calling [`crate::invoke`] in process.
    Embedded,
}

/// One request, as the pipeline takes it.
pub struct Request<'a> {
    pub api: Api,
    /// The operation's name as sent (after the dot of `X-Amz-Target`).
    pub operation: &'a str,
    pub body: Bytes,
    /// Who signed it (`--auth`), or who is signed in to the console.
    pub verified: Option<Verified>,
    /// The region it acts in: the signer's, or the one its `Authorization` names.
    pub region: String,
    pub source_ip: Option<IpAddr>,
    /// The `Host` the client used (DescribeEndpoints answers with it).
    pub host: &'a str,
    pub user_agent: Option<&'a str>,
    pub request_id: &'a str,
    pub origin: Origin,
    /// When the edge received it, if [`Pipeline::timing`] asked for the time.
    pub received: Option<Instant>,
}

impl Pipeline {
    /// No metrics, no audit, no interceptor: the embedded connector's.
    pub fn bare() -> Pipeline {
        Pipeline::default()
    }

    /// The time now when requests are timed (metrics on), for [`Request::received`]: a
    /// clock read is a fifth of what recording costs, so it is skipped otherwise.
    pub fn timing(&self) -> Option<Instant> {
        self.metrics().map(|_| Instant::now())
    }

    /// Runs `request` on `engine` (the one engine of the whole request, even if a test
    /// control swaps the server's meanwhile) and records it.
    pub async fn run(&self, engine: &Engine, request: Request<'_>) -> Result<Vec<u8>, ApiError> {
        let started = request.received.or_else(|| self.timing());
        let observation = Observation::default();
        let schemas = Schemas::new(engine);
        let op = Op::parse(request.api, request.operation);
        let result = match op {
            Some(op) => {
                let span = match request.api {
                    Api::DynamoDb => {
                        tracing::debug_span!("request", op = op.name(), id = request.request_id)
                    }
                    Api::Streams => {
                        tracing::debug_span!("streams", op = op.name(), id = request.request_id)
                    }
                    Api::Kinesis => {
                        tracing::debug_span!("kinesis", op = op.name(), id = request.request_id)
                    }
                };
                self.execute(&schemas, op, &request, &observation)
                    .instrument(span)
                    .await
            }
            None if request.api == Api::DynamoDb && LATER.contains(&request.operation) => {
                Err(ApiError::validation(messages::not_supported_yet(&format!(
                    "The {} operation",
                    request.operation
                ))))
            }
            None => Err(ApiError::unknown_operation()),
        };
        self.finish(&schemas, &request, op, &observation, started, result)
    }

    /// Records a request the HTTP edge answered itself (a body it could not read, a
    /// signature it refused): metrics and audit, as for any other.
    pub fn record(
        &self,
        engine: &Engine,
        request: &Request<'_>,
        result: Result<Vec<u8>, ApiError>,
    ) -> Result<Vec<u8>, ApiError> {
        let op = Op::parse(request.api, request.operation);
        let observation = Observation::default();
        let started = request.received;
        self.finish(
            &Schemas::new(engine),
            request,
            op,
            &observation,
            started,
            result,
        )
    }

    async fn execute(
        &self,
        schemas: &Schemas<'_>,
        op: Op,
        request: &Request<'_>,
        observation: &Observation,
    ) -> Result<Vec<u8>, ApiError> {
        let principal = request.verified.as_ref().map(|v| &v.principal);
        if op.api() == Api::DynamoDb {
            crate::authz::accounts::own_account(&request.body, principal, op)?;
        }
        // The interceptor sees the API's own traffic only, and only while a rule is set.
        let interceptor = self
            .interceptor
            .as_deref()
            .filter(|i| request.origin == Origin::Api && i.armed());
        let call = Call {
            op,
            engine: schemas.engine(),
            ctx: RequestContext {
                region: request.region.clone(),
            },
            host: request.host.to_owned(),
            body: request.body.clone(),
            principal: principal.cloned(),
            source_ip: request.source_ip,
            observation,
            schemas,
            regions: self.regions.as_ref(),
            interceptor,
        };
        // The console's browsing is the user's, not the application's traffic: the engine
        // counts it apart (advisor, Contributor Insights, consumed capacity; issue 36).
        if request.origin == Origin::Console {
            kura_engine::counters::counted_apart(crate::ops::dispatch(op, call)).await
        } else {
            crate::ops::dispatch(op, call).await
        }
    }

    fn metrics(&self) -> Option<&Metrics> {
        self.metrics.as_deref().filter(|m| m.enabled())
    }

    /// Metrics, then the audit line; a line that cannot be written fails the request
    /// (InternalServerError), so nothing acknowledged goes unrecorded.
    fn finish(
        &self,
        schemas: &Schemas<'_>,
        request: &Request<'_>,
        op: Option<Op>,
        observation: &Observation,
        started: Option<Instant>,
        result: Result<Vec<u8>, ApiError>,
    ) -> Result<Vec<u8>, ApiError> {
        // CloudWatch's request figures are the application's: the console's are left out.
        if let (Some(metrics), Some(started), Some(op)) = (self.metrics(), started, op)
            && request.origin != Origin::Console
        {
            metrics.record(op, observation, started.elapsed(), result.as_ref().err());
        }
        let Some(log) = &self.audit else {
            return result;
        };
        let verified = request.verified.as_ref();
        let event = crate::audit::Event {
            operation: request.operation,
            api: request.api,
            region: &request.region,
            source_ip: request
                .source_ip
                .map_or_else(|| "127.0.0.1".to_owned(), |ip| ip.to_string()),
            user_agent: request.user_agent,
            identity: crate::audit::Identity {
                principal: verified.map(|v| &v.principal),
                access_key_id: verified.map(|v| v.access_key_id.as_str()),
            },
            body: &request.body,
            request_id: request.request_id,
            error: result
                .as_ref()
                .err()
                .map(|e| (e.name(), e.message.as_deref())),
            keys: Some(schemas),
        };
        log.record(&event).and(result)
    }
}

/// A new request id, as DynamoDB writes them (32 upper-case hex digits). From a
/// thread-local generator seeded once: an id names a request in logs, it guards nothing,
/// and a `getrandom` system call per request was a measurable part of a small request.
pub fn request_id() -> String {
    format!("{:032X}", fastrand::u128(..))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    use kura_auth::{Principal, PrincipalKind};

    use super::*;
    use crate::intercept::{Interception, Named};

    /// A body for `op` that names table `tbl` wherever the operation names tables.
    fn body_for(op: Op) -> &'static str {
        match op {
            Op::BatchGetItem => r#"{"RequestItems":{"tbl":{"Keys":[{"pk":{"S":"a"}}]}}}"#,
            Op::BatchWriteItem => {
                r#"{"RequestItems":{"tbl":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}}]}}"#
            }
            Op::TransactWriteItems => {
                r#"{"TransactItems":[{"Put":{"TableName":"tbl","Item":{"pk":{"S":"a"}}}}]}"#
            }
            Op::TransactGetItems => {
                r#"{"TransactItems":[{"Get":{"TableName":"tbl","Key":{"pk":{"S":"a"}}}}]}"#
            }
            Op::ExecuteStatement => r#"{"Statement":"SELECT * FROM tbl"}"#,
            Op::BatchExecuteStatement => r#"{"Statements":[{"Statement":"SELECT * FROM tbl"}]}"#,
            Op::ExecuteTransaction => {
                r#"{"TransactStatements":[{"Statement":"SELECT * FROM tbl WHERE pk = 'a'"}]}"#
            }
            _ => r#"{"TableName":"tbl","Key":{"pk":{"S":"a"}},"Item":{"pk":{"S":"a"}}}"#,
        }
    }

    fn request(op: Op, verified: Option<Verified>) -> Request<'static> {
        request_with(op, body_for(op), verified)
    }

    fn request_with(op: Op, body: &'static str, verified: Option<Verified>) -> Request<'static> {
        Request {
            api: op.api(),
            operation: op.name(),
            body: Bytes::from_static(body.as_bytes()),
            verified,
            region: "us-east-1".into(),
            source_ip: None,
            host: "localhost",
            user_agent: None,
            request_id: "test",
            origin: Origin::Api,
            received: None,
        }
    }

    async fn engine_with_table() -> Arc<Engine> {
        let engine = Engine::in_memory();
        let create = r#"{"TableName":"tbl","BillingMode":"PAY_PER_REQUEST",
            "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
            "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}"#;
        Pipeline::bare()
            .run(&engine, request_with(Op::CreateTable, create, None))
            .await
            .expect("table");
        engine
    }

    /// Every operation of the table passes its authorization step: a principal whose
    /// policies allow nothing is refused each one, so no handler can skip `begin`. Each
    /// is refused as its own IAM action; the PartiQL operations and the transactions as
    /// their statements' and actions' (`PartiQLSelect`, `GetItem`), as IAM authorizes them.
    #[tokio::test]
    async fn every_operation_is_authorized() {
        let engine = engine_with_table().await;
        let denied = Verified {
            principal: Principal {
                kind: PrincipalKind::User,
                name: "nobody".into(),
                account: kura_engine::ACCOUNT_ID.into(),
                tags: BTreeMap::new(),
                policies: Some(Arc::from(Vec::new())),
            },
            access_key_id: "AKIDNOBODY".into(),
            region: "us-east-1".into(),
        };
        for op in Op::ALL {
            let answer = Pipeline::bare()
                .run(&engine, request(*op, Some(denied.clone())))
                .await;
            let error = answer.expect_err(op.name());
            assert_eq!(error.name(), "AccessDeniedException", "{op:?}: {error:?}");
            let action = match op {
                Op::ExecuteStatement | Op::BatchExecuteStatement | Op::ExecuteTransaction => {
                    "dynamodb:PartiQLSelect".to_owned()
                }
                // A transaction is authorized action by action.
                Op::TransactGetItems => "dynamodb:GetItem".to_owned(),
                Op::TransactWriteItems => "dynamodb:PutItem".to_owned(),
                _ => op.iam_action(),
            };
            let perform = format!("perform: {action} on");
            assert!(
                error
                    .message
                    .as_deref()
                    .is_some_and(|m| m.contains(&perform)),
                "{op:?} is refused as {action}: {error:?}"
            );
        }
    }

    /// What one request named: its operation, tables and partition key value.
    type Seen = (String, Vec<String>, Option<String>);

    /// Records what each request named and refuses it.
    #[derive(Default)]
    struct Recorder {
        seen: Mutex<Vec<Seen>>,
    }

    impl Interceptor for Recorder {
        fn armed(&self) -> bool {
            true
        }

        fn intercept(&self, operation: &str, named: &Named<'_>) -> Option<Interception> {
            let tables = named.tables.iter().map(|t| t.to_string()).collect();
            let partition = named.partition.map(str::to_owned);
            let mut seen = self.seen.lock().expect("recorder");
            seen.push((operation.to_owned(), tables, partition));
            Some(Interception {
                latency: std::time::Duration::ZERO,
                error: Some(ApiError::internal("intercepted")),
            })
        }
    }

    /// Every operation is offered to the interceptor once its input is read, with the
    /// tables it names: what fault rules match on is what authorization and the metrics
    /// read, not a second reading of the body.
    #[tokio::test]
    async fn every_operation_meets_the_interceptor_with_what_it_names() {
        let engine = engine_with_table().await;
        let recorder = Arc::new(Recorder::default());
        let pipeline = Pipeline {
            interceptor: Some(recorder.clone()),
            ..Pipeline::bare()
        };
        for op in Op::ALL {
            let error = pipeline
                .run(&engine, request(*op, None))
                .await
                .expect_err(op.name());
            assert_eq!(error.message.as_deref(), Some("intercepted"), "{op:?}");
        }
        let seen = recorder.seen.lock().expect("recorder");
        assert_eq!(seen.len(), Op::ALL.len());
        let named = |name: &str| {
            let (_, tables, partition) = seen.iter().find(|(o, ..)| o == name).expect(name);
            (tables.clone(), partition.clone())
        };
        let tbl = vec!["tbl".to_owned()];
        for op in ["PutItem", "GetItem", "DeleteItem", "UpdateItem"] {
            assert_eq!(named(op), (tbl.clone(), Some("a".into())), "{op}");
        }
        for op in [
            "Query",
            "Scan",
            "BatchGetItem",
            "BatchWriteItem",
            "TransactWriteItems",
            "TransactGetItems",
            "ExecuteStatement",
            "BatchExecuteStatement",
            "ExecuteTransaction",
            "CreateTable",
            "DescribeTable",
            "UpdateTimeToLive",
        ] {
            assert_eq!(named(op), (tbl.clone(), None), "{op}");
        }
        assert_eq!(named("ListTables"), (Vec::new(), None));
    }
}
