//! A trigger's definition: the members of Lambda's CreateEventSourceMapping that apply to a
//! DynamoDB stream, with Lambda's ranges and defaults, plus where Kura delivers (an HTTP
//! endpoint that speaks Lambda's invoke shape, or a local command).
//!
//! The triggers file `kura serve --triggers FILE` reads is `{"Triggers": [ … ]}`:
//!
//! ```json
//! {"Triggers": [{
//!   "Name": "orders-to-search",
//!   "Table": "prod-shop-order",
//!   "Function": {"Url": "http://127.0.0.1:9000/2015-03-31/functions/function/invocations"},
//!   "BatchSize": 100,
//!   "MaximumBatchingWindowInSeconds": 1,
//!   "StartingPosition": "TRIM_HORIZON",
//!   "BisectBatchOnFunctionError": true,
//!   "MaximumRetryAttempts": 3,
//!   "FunctionResponseTypes": ["ReportBatchItemFailures"],
//!   "DestinationConfig": {"OnFailure": {"Destination": "table/prod-shop-order-dlq"}},
//!   "FilterCriteria": {"Filters": [{"Pattern": "{\"eventName\": [\"INSERT\"]}"}]}
//! }]}
//! ```

use serde::Deserialize;

use crate::error::TriggerError;
use crate::filter::FilterCriteria;

/// The file `--triggers` names.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct TriggersFile {
    pub triggers: Vec<TriggerInput>,
}

/// One trigger as written, before validation.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct TriggerInput {
    pub name: Option<String>,
    pub table: Option<String>,
    /// A Kinesis stream (name or ARN) to read instead of a table's stream.
    pub kinesis_stream: Option<String>,
    pub function: Option<FunctionInput>,
    pub enabled: Option<bool>,
    pub batch_size: Option<i64>,
    pub maximum_batching_window_in_seconds: Option<i64>,
    pub starting_position: Option<String>,
    pub starting_position_timestamp: Option<f64>,
    pub parallelization_factor: Option<i64>,
    pub maximum_retry_attempts: Option<i64>,
    pub maximum_record_age_in_seconds: Option<i64>,
    pub bisect_batch_on_function_error: Option<bool>,
    pub function_response_types: Option<Vec<String>>,
    pub destination_config: Option<DestinationInput>,
    pub filter_criteria: Option<FilterCriteriaInput>,
}

/// Where batches go: exactly one of the two.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct FunctionInput {
    /// An HTTP endpoint taking Lambda's invoke POST (the Runtime Interface Emulator's
    /// `/2015-03-31/functions/function/invocations`, SAM local's, or any).
    pub url: Option<String>,
    /// A command (program and arguments) that reads the event on standard input.
    pub command: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct DestinationInput {
    pub on_failure: Option<OnFailureInput>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct OnFailureInput {
    /// `table/NAME` (a Kura table) or `file:PATH` (JSON lines).
    pub destination: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct FilterCriteriaInput {
    pub filters: Option<Vec<FilterInput>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
pub struct FilterInput {
    pub pattern: Option<String>,
}

/// What a trigger reads: a table's DynamoDB stream, or a Kinesis stream (Lambda's Kinesis
/// event source mapping).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventSource {
    Table(String),
    KinesisStream(String),
}

impl EventSource {
    /// The table's or the Kinesis stream's name.
    pub fn name(&self) -> &str {
        match self {
            EventSource::Table(name) | EventSource::KinesisStream(name) => name,
        }
    }

    pub fn is_kinesis(&self) -> bool {
        matches!(self, EventSource::KinesisStream(_))
    }
}

/// Where a trigger delivers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Function {
    Url(String),
    Command(Vec<String>),
}

/// Where records go once retries are spent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureDestination {
    Table(String),
    File(std::path::PathBuf),
}

/// Where a new trigger starts reading its stream.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StartingPosition {
    TrimHorizon,
    Latest,
    /// Seconds since the epoch.
    AtTimestamp(f64),
}

/// A validated trigger, with Lambda's defaults filled in.
#[derive(Debug, Clone)]
pub struct Trigger {
    pub name: String,
    pub source: EventSource,
    pub function: Function,
    pub enabled: bool,
    pub batch_size: usize,
    pub batching_window_seconds: u64,
    pub starting_position: StartingPosition,
    pub parallelization_factor: usize,
    /// None: retry until the record expires (Lambda's -1).
    pub maximum_retry_attempts: Option<u64>,
    /// None: no age limit (Lambda's -1).
    pub maximum_record_age_seconds: Option<u64>,
    pub bisect_batch_on_function_error: bool,
    pub report_batch_item_failures: bool,
    pub on_failure: Option<FailureDestination>,
    pub filter: FilterCriteria,
}

/// Lambda's validation messages: the failed constraints, one sentence each, counted.
#[derive(Default)]
struct Failures(Vec<String>);

impl Failures {
    fn range(&mut self, member: &str, value: Option<i64>, min: i64, max: i64) {
        match value {
            Some(v) if v < min => self.0.push(format!(
                "Value '{v}' at '{member}' failed to satisfy constraint: Member must have value greater than or equal to {min}"
            )),
            Some(v) if v > max => self.0.push(format!(
                "Value '{v}' at '{member}' failed to satisfy constraint: Member must have value less than or equal to {max}"
            )),
            _ => {}
        }
    }

    fn required<T>(&mut self, member: &str, value: Option<&T>) {
        if value.is_none() {
            self.0.push(format!(
                "Value null at '{member}' failed to satisfy constraint: Member must not be null"
            ));
        }
    }

    fn finish(self) -> Result<(), TriggerError> {
        if self.0.is_empty() {
            return Ok(());
        }
        let count = self.0.len();
        let noun = if count == 1 { "error" } else { "errors" };
        Err(TriggerError::InvalidConfig(format!(
            "{count} validation {noun} detected: {}",
            self.0.join("; ")
        )))
    }
}

fn invalid(message: impl Into<String>) -> TriggerError {
    TriggerError::InvalidConfig(message.into())
}

impl TriggerInput {
    /// Lambda's CreateEventSourceMapping member checks, in its order, one per field, with
    /// its messages.
    fn check_members(&self) -> Result<(), TriggerError> {
        let mut f = Failures::default();
        f.required("name", self.name.as_ref());
        if self.kinesis_stream.is_none() {
            f.required("table", self.table.as_ref());
        }
        f.required("function", self.function.as_ref());
        f.range("batchSize", self.batch_size, 1, 10_000);
        f.range(
            "maximumBatchingWindowInSeconds",
            self.maximum_batching_window_in_seconds,
            0,
            300,
        );
        f.range("parallelizationFactor", self.parallelization_factor, 1, 10);
        f.range(
            "maximumRetryAttempts",
            self.maximum_retry_attempts,
            -1,
            10_000,
        );
        f.range(
            "maximumRecordAgeInSeconds",
            self.maximum_record_age_in_seconds,
            -1,
            604_800,
        );
        if let Some(position) = &self.starting_position
            && !["TRIM_HORIZON", "LATEST", "AT_TIMESTAMP"].contains(&position.as_str())
        {
            f.0.push(format!(
                "Value '{position}' at 'startingPosition' failed to satisfy constraint: Member must satisfy enum value set: [TRIM_HORIZON, LATEST, AT_TIMESTAMP]"
            ));
        }
        for kind in self.function_response_types.iter().flatten() {
            if kind != "ReportBatchItemFailures" {
                f.0.push(format!(
                    "Value '[{kind}]' at 'functionResponseTypes' failed to satisfy constraint: Member must satisfy constraint: [Member must satisfy enum value set: [ReportBatchItemFailures]]"
                ));
            }
        }
        f.finish()
    }

    /// Checks the definition as Lambda checks CreateEventSourceMapping, and fills in its
    /// defaults.
    pub fn validate(self) -> Result<Trigger, TriggerError> {
        self.check_members()?;
        let name = self.name.unwrap_or_default();
        let source = match (self.table, self.kinesis_stream) {
            (Some(_), Some(_)) => {
                return Err(invalid("Give Table or KinesisStream, not both"));
            }
            (_, Some(stream)) => {
                // An ARN names the stream by its last part.
                let name = stream
                    .rsplit_once(":stream/")
                    .map_or(stream.as_str(), |(_, n)| n);
                EventSource::KinesisStream(name.to_owned())
            }
            (table, None) => EventSource::Table(table.unwrap_or_default()),
        };
        if name.is_empty() || source.name().is_empty() {
            return Err(invalid(
                "Name and Table (or KinesisStream) must not be empty",
            ));
        }
        // Lambda's function name pattern; the name also names the trigger's state file.
        if name.len() > 64
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(invalid(format!(
                "Name {name:?} must be 1 to 64 letters, digits, hyphens and underscores"
            )));
        }
        // Between 0 and 60 seconds means "no limit" only as -1; Lambda's floor is 60.
        if let Some(age) = self.maximum_record_age_in_seconds
            && (0..60).contains(&age)
        {
            return Err(invalid(format!(
                "MaximumRecordAgeInSeconds must be -1 or between 60 and 604800, not {age}"
            )));
        }
        let function = match self.function.unwrap_or_default() {
            FunctionInput {
                url: Some(url),
                command: None,
            } if url.starts_with("http://") || url.starts_with("https://") => Function::Url(url),
            FunctionInput {
                url: None,
                command: Some(command),
            } if !command.is_empty() && !command[0].is_empty() => Function::Command(command),
            _ => {
                return Err(invalid(
                    "Function needs exactly one of Url (http:// or https://) and Command (a non-empty list)",
                ));
            }
        };
        let starting_position = match self.starting_position.as_deref() {
            None | Some("TRIM_HORIZON") => StartingPosition::TrimHorizon,
            Some("LATEST") => StartingPosition::Latest,
            _ => match self.starting_position_timestamp {
                Some(t) if t.is_finite() && t >= 0.0 => StartingPosition::AtTimestamp(t),
                _ => {
                    return Err(invalid(
                        "StartingPositionTimestamp must be given with AT_TIMESTAMP",
                    ));
                }
            },
        };
        let on_failure = match self
            .destination_config
            .and_then(|d| d.on_failure)
            .and_then(|o| o.destination)
        {
            None => None,
            Some(text) => Some(destination(&text)?),
        };
        let patterns: Vec<String> = self
            .filter_criteria
            .and_then(|c| c.filters)
            .unwrap_or_default()
            .into_iter()
            .map(|f| f.pattern.unwrap_or_default())
            .collect();
        let filter = FilterCriteria::parse(patterns.iter().map(String::as_str))?;
        let optional = |v: Option<i64>| v.filter(|v| *v >= 0).map(|v| v as u64);
        Ok(Trigger {
            name,
            source,
            function,
            enabled: self.enabled.unwrap_or(true),
            batch_size: self.batch_size.unwrap_or(100) as usize,
            batching_window_seconds: self.maximum_batching_window_in_seconds.unwrap_or(0) as u64,
            starting_position,
            parallelization_factor: self.parallelization_factor.unwrap_or(1) as usize,
            maximum_retry_attempts: optional(self.maximum_retry_attempts),
            maximum_record_age_seconds: optional(self.maximum_record_age_in_seconds),
            bisect_batch_on_function_error: self.bisect_batch_on_function_error.unwrap_or(false),
            report_batch_item_failures: self.function_response_types.is_some_and(|t| !t.is_empty()),
            on_failure,
            filter,
        })
    }
}

/// `table/NAME` or `file:PATH`.
fn destination(text: &str) -> Result<FailureDestination, TriggerError> {
    if let Some(table) = text.strip_prefix("table/").filter(|t| !t.is_empty()) {
        return Ok(FailureDestination::Table(table.to_owned()));
    }
    if let Some(path) = text.strip_prefix("file:").filter(|p| !p.is_empty()) {
        return Ok(FailureDestination::File(path.into()));
    }
    Err(invalid(format!(
        "OnFailure Destination {text:?} is neither table/NAME nor file:PATH"
    )))
}

/// Reads and validates a triggers file; names must be unique.
pub fn parse_file(text: &str) -> Result<Vec<Trigger>, TriggerError> {
    let file: TriggersFile = serde_json::from_str(text)
        .map_err(|e| invalid(format!("the triggers file is not valid: {e}")))?;
    let mut triggers = Vec::with_capacity(file.triggers.len());
    for input in file.triggers {
        let trigger = input.validate()?;
        if triggers.iter().any(|t: &Trigger| t.name == trigger.name) {
            return Err(invalid(format!(
                "two triggers are named {:?}",
                trigger.name
            )));
        }
        triggers.push(trigger);
    }
    Ok(triggers)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = r#"{"Triggers": [{
        "Name": "orders-to-search",
        "Table": "prod-shop-order",
        "Function": {"Url": "http://127.0.0.1:9000/2015-03-31/functions/function/invocations"},
        "BatchSize": 10,
        "MaximumBatchingWindowInSeconds": 1,
        "StartingPosition": "LATEST",
        "BisectBatchOnFunctionError": true,
        "MaximumRetryAttempts": 3,
        "FunctionResponseTypes": ["ReportBatchItemFailures"],
        "DestinationConfig": {"OnFailure": {"Destination": "table/prod-shop-order-dlq"}},
        "FilterCriteria": {"Filters": [{"Pattern": "{\"eventName\": [\"INSERT\"]}"}]}
    }, {
        "Name": "audit",
        "Table": "prod-shop-order",
        "Function": {"Command": ["./audit.sh", "--quiet"]}
    }]}"#;

    #[test]
    fn the_documented_example_parses_with_lambdas_defaults() {
        let triggers = parse_file(EXAMPLE).expect("example");
        let search = &triggers[0];
        assert_eq!(search.batch_size, 10);
        assert_eq!(search.starting_position, StartingPosition::Latest);
        assert_eq!(search.maximum_retry_attempts, Some(3));
        assert!(search.report_batch_item_failures && search.bisect_batch_on_function_error);
        assert_eq!(
            search.on_failure,
            Some(FailureDestination::Table("prod-shop-order-dlq".into()))
        );
        let audit = &triggers[1];
        assert_eq!(
            audit.function,
            Function::Command(vec!["./audit.sh".into(), "--quiet".into()])
        );
        assert_eq!(audit.batch_size, 100);
        assert_eq!(audit.batching_window_seconds, 0);
        assert_eq!(audit.starting_position, StartingPosition::TrimHorizon);
        assert_eq!(audit.parallelization_factor, 1);
        assert_eq!(audit.maximum_retry_attempts, None);
        assert_eq!(audit.maximum_record_age_seconds, None);
        assert!(audit.enabled && !audit.report_batch_item_failures);
    }

    fn refused(json: &str) -> String {
        let input: TriggerInput = serde_json::from_str(json).expect("shape");
        input.validate().expect_err(json).to_string()
    }

    #[test]
    fn out_of_range_members_get_lambdas_messages() {
        let base = r#""Name": "t", "Table": "x", "Function": {"Url": "http://h/"}"#;
        assert_eq!(
            refused(&format!(r#"{{{base}, "BatchSize": 0}}"#)),
            "invalid trigger: 1 validation error detected: Value '0' at 'batchSize' failed to satisfy constraint: Member must have value greater than or equal to 1"
        );
        let both = refused(&format!(
            r#"{{{base}, "BatchSize": 10001, "ParallelizationFactor": 11}}"#
        ));
        assert!(both.contains("2 validation errors detected"), "{both}");
        assert!(
            refused(&format!(r#"{{{base}, "MaximumRecordAgeInSeconds": 30}}"#))
                .contains("-1 or between 60")
        );
        assert!(
            refused(&format!(r#"{{{base}, "StartingPosition": "EARLIEST"}}"#))
                .contains("enum value set")
        );
        assert!(
            refused(&format!(
                r#"{{{base}, "StartingPosition": "AT_TIMESTAMP"}}"#
            ))
            .contains("StartingPositionTimestamp")
        );
        assert!(
            refused(&format!(
                r#"{{{base}, "FunctionResponseTypes": ["Other"]}}"#
            ))
            .contains("ReportBatchItemFailures")
        );
        assert!(
            refused(&format!(
                r#"{{{base}, "DestinationConfig": {{"OnFailure": {{"Destination": "sqs://q"}}}}}}"#
            ))
            .contains("neither table/NAME nor file:PATH")
        );
        assert!(
            refused(&format!(
                r#"{{{base}, "FilterCriteria": {{"Filters": [{{"Pattern": "{{}}"}}]}}}}"#
            ))
            .contains("empty pattern")
        );
        assert!(refused(r#"{"Name": "t", "Table": "x"}"#).contains("'function'"));
        assert!(
            refused(r#"{"Name": "t", "Table": "x", "Function": {"Url": "ftp://h"}}"#)
                .contains("exactly one of Url")
        );
        assert!(
            refused(
                r#"{"Name": "t", "Table": "x", "Function": {"Url": "http://h", "Command": ["a"]}}"#
            )
            .contains("exactly one of Url")
        );
    }

    #[test]
    fn files_refuse_unknown_members_and_duplicate_names() {
        assert!(parse_file(r#"{"Triggers": [{"Name": "t", "Tabel": "x"}]}"#).is_err());
        let twice = r#"{"Triggers": [
            {"Name": "t", "Table": "x", "Function": {"Command": ["a"]}},
            {"Name": "t", "Table": "y", "Function": {"Command": ["b"]}}]}"#;
        assert!(
            parse_file(twice)
                .expect_err("duplicate")
                .to_string()
                .contains("two triggers")
        );
    }
}
