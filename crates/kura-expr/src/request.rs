//! One request's expression members, validated and compiled together.
//!
//! The order of checks is DynamoDB's (dynalite `validations/index.js`
//! `validateExpressionParams` then `validateExpressions`): legacy and expression
//! parameters mixed; names or values without any expression; the names and values
//! themselves; each expression (update, condition, filter, projection, key condition);
//! then unused names and values. Legacy parameters are translated last.

use std::collections::{BTreeMap, BTreeSet};

use kura_model::messages;
use kura_model::wire::AttributeValueJson;
use serde::Deserialize;

use crate::ast::{Condition, Path, Projection, Update};
use crate::bindings::Bindings;
use crate::error::{ExprError, Result};
use crate::legacy::{self, AttributeValueUpdateJson, ConditionJson, ExpectedJson};
use crate::parse::condition::parse_condition;
use crate::parse::projection::parse_projection;
use crate::parse::update::parse_update;

/// The expression-related members of a request, as they arrive.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct ExpressionParams {
    pub condition_expression: Option<String>,
    pub update_expression: Option<String>,
    pub projection_expression: Option<String>,
    pub filter_expression: Option<String>,
    pub key_condition_expression: Option<String>,
    pub expression_attribute_names: Option<BTreeMap<String, String>>,
    pub expression_attribute_values: Option<BTreeMap<String, AttributeValueJson>>,
    pub expected: Option<BTreeMap<String, ExpectedJson>>,
    pub conditional_operator: Option<String>,
    pub attribute_updates: Option<BTreeMap<String, AttributeValueUpdateJson>>,
    pub attributes_to_get: Option<Vec<String>>,
    pub key_conditions: Option<BTreeMap<String, ConditionJson>>,
    pub query_filter: Option<BTreeMap<String, ConditionJson>>,
    pub scan_filter: Option<BTreeMap<String, ConditionJson>>,
}

/// The operations that take expressions; each accepts its own members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    PutItem,
    DeleteItem,
    UpdateItem,
    GetItem,
    Query,
    Scan,
}

/// Expression parameters, in the order DynamoDB lists them in messages.
const EXPRESSIONS: [&str; 5] = [
    "UpdateExpression",
    "ProjectionExpression",
    "ConditionExpression",
    "FilterExpression",
    "KeyConditionExpression",
];

/// Legacy parameters, in the order DynamoDB lists them in messages.
const LEGACY: [&str; 7] = [
    "AttributeUpdates",
    "AttributesToGet",
    "Expected",
    "QueryFilter",
    "ScanFilter",
    "ConditionalOperator",
    "KeyConditions",
];

impl Operation {
    /// Whether this operation has the member `name` (DynamoDB ignores the others).
    fn accepts(self, name: &str) -> bool {
        let members: &[&str] = match self {
            Operation::PutItem | Operation::DeleteItem => {
                &["ConditionExpression", "Expected", "ConditionalOperator"]
            }
            Operation::UpdateItem => &[
                "UpdateExpression",
                "ConditionExpression",
                "AttributeUpdates",
                "Expected",
                "ConditionalOperator",
            ],
            Operation::GetItem => &["ProjectionExpression", "AttributesToGet"],
            Operation::Query => &[
                "ProjectionExpression",
                "FilterExpression",
                "KeyConditionExpression",
                "AttributesToGet",
                "QueryFilter",
                "ConditionalOperator",
                "KeyConditions",
            ],
            Operation::Scan => &[
                "ProjectionExpression",
                "FilterExpression",
                "AttributesToGet",
                "ScanFilter",
                "ConditionalOperator",
            ],
        };
        members.contains(&name)
    }

    fn expressions(self) -> impl Iterator<Item = &'static str> {
        EXPRESSIONS.into_iter().filter(move |m| self.accepts(m))
    }

    fn legacy(self) -> impl Iterator<Item = &'static str> {
        LEGACY.into_iter().filter(move |m| self.accepts(m))
    }
}

impl ExpressionParams {
    /// No expression or legacy member at all: nothing to check or compile.
    fn is_empty(&self) -> bool {
        let Self {
            condition_expression,
            update_expression,
            projection_expression,
            filter_expression,
            key_condition_expression,
            expression_attribute_names,
            expression_attribute_values,
            expected,
            conditional_operator,
            attribute_updates,
            attributes_to_get,
            key_conditions,
            query_filter,
            scan_filter,
        } = self;
        condition_expression.is_none()
            && update_expression.is_none()
            && projection_expression.is_none()
            && filter_expression.is_none()
            && key_condition_expression.is_none()
            && expression_attribute_names.is_none()
            && expression_attribute_values.is_none()
            && expected.is_none()
            && conditional_operator.is_none()
            && attribute_updates.is_none()
            && attributes_to_get.is_none()
            && key_conditions.is_none()
            && query_filter.is_none()
            && scan_filter.is_none()
    }

    fn present(&self, member: &str) -> bool {
        match member {
            "ConditionExpression" => self.condition_expression.is_some(),
            "UpdateExpression" => self.update_expression.is_some(),
            "ProjectionExpression" => self.projection_expression.is_some(),
            "FilterExpression" => self.filter_expression.is_some(),
            "KeyConditionExpression" => self.key_condition_expression.is_some(),
            "Expected" => self.expected.is_some(),
            "ConditionalOperator" => self.conditional_operator.is_some(),
            "AttributeUpdates" => self.attribute_updates.is_some(),
            "AttributesToGet" => self.attributes_to_get.is_some(),
            "KeyConditions" => self.key_conditions.is_some(),
            "QueryFilter" => self.query_filter.is_some(),
            "ScanFilter" => self.scan_filter.is_some(),
            _ => false,
        }
    }

    /// Drops the members `operation` does not have; DynamoDB ignores unknown members.
    fn only_for(mut self, operation: Operation) -> Self {
        let keep = |name: &str| operation.accepts(name);
        macro_rules! drop_unless {
            ($($field:ident => $name:literal),* $(,)?) => {
                $(if !keep($name) { self.$field = None; })*
            };
        }
        drop_unless!(
            condition_expression => "ConditionExpression",
            update_expression => "UpdateExpression",
            projection_expression => "ProjectionExpression",
            filter_expression => "FilterExpression",
            key_condition_expression => "KeyConditionExpression",
            expected => "Expected",
            conditional_operator => "ConditionalOperator",
            attribute_updates => "AttributeUpdates",
            attributes_to_get => "AttributesToGet",
            key_conditions => "KeyConditions",
            query_filter => "QueryFilter",
            scan_filter => "ScanFilter",
        );
        if operation == Operation::GetItem {
            self.expression_attribute_values = None;
        }
        self
    }
}

/// The expressions of one request, compiled. Legacy parameters arrive here translated.
#[derive(Debug, Clone, Default)]
pub struct Compiled {
    pub condition: Option<Condition>,
    pub update: Option<Update>,
    pub projection: Option<Projection>,
    pub filter: Option<Condition>,
    pub key_condition: Option<Condition>,
}

impl Compiled {
    /// The top-level attributes the request returns: its projection's (`AttributesToGet`
    /// compiles into one), each once, in name order. Empty when it projects nothing.
    pub fn returned_attributes(&self) -> BTreeSet<&str> {
        self.projection.iter().flatten().map(Path::top).collect()
    }

    /// The top-level attributes its update writes: the targets of SET, REMOVE, ADD and
    /// DELETE (`AttributeUpdates` compiles into one), each once, in name order.
    pub fn written_attributes(&self) -> BTreeSet<&str> {
        self.update
            .iter()
            .flat_map(Update::target_paths)
            .map(Path::top)
            .collect()
    }
}

/// How a request reports the errors DynamoDB's 2026 validation framework wraps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reporting {
    /// The older bare texts: GetItem, Query, Scan and the actions of a transaction.
    Bare,
    /// A PutItem, UpdateItem or DeleteItem request of its own: the errors captured inside
    /// the "1 validation error detected: " envelope are sent so (see
    /// [`compile_item_write`]).
    ItemWrite,
}

/// Validates and compiles the expression members of one `operation` request.
pub fn compile(operation: Operation, params: ExpressionParams) -> Result<Compiled> {
    compile_reported(operation, params, Reporting::Bare)
}

/// Validates and compiles the expression members of a PutItem, UpdateItem or DeleteItem
/// request sent on its own (not a transaction action). DynamoDB reports these errors inside
/// the "1 validation error detected: " envelope, and ExpressionAttributeValues without an
/// expression without the ": ConditionExpression is null" suffix: names or values without
/// an expression, an empty ExpressionAttributeNames or ExpressionAttributeValues map, an
/// empty ConditionExpression, a value the ConditionExpression uses but does not define,
/// and a malformed legacy Expected condition. Source: AWS us-east-1 and eu-west-2
/// 2026-10-09, paritysuite/dynamodb-conformance `tests/tier3/error-messages/putItem.test.ts`,
/// `deleteItem.test.ts` and `updateItem.test.ts` ("request validation envelope"). Other
/// errors keep their bare texts until a capture shows them wrapped.
pub fn compile_item_write(operation: Operation, params: ExpressionParams) -> Result<Compiled> {
    compile_reported(operation, params, Reporting::ItemWrite)
}

/// Wraps `error` in the envelope when `reporting` asks for it.
fn reported(reporting: Reporting, error: ExprError) -> ExprError {
    match reporting {
        Reporting::Bare => error,
        Reporting::ItemWrite => {
            ExprError::validation(messages::one_validation_error(error.message()))
        }
    }
}

/// Whether an ItemWrite request reports this ConditionExpression error in the envelope.
fn condition_error_enveloped(error: &ExprError) -> bool {
    let empty = messages::invalid_expression("ConditionExpression", messages::EXPRESSION_EMPTY);
    let undefined =
        messages::invalid_expression("ConditionExpression", &messages::undefined_value(""));
    error.message() == empty || error.message().starts_with(&undefined)
}

fn compile_reported(
    operation: Operation,
    params: ExpressionParams,
    reporting: Reporting,
) -> Result<Compiled> {
    let mut params = params.only_for(operation);
    if params.is_empty() {
        // Most GetItem and PutItem requests carry no expression at all.
        return Ok(Compiled::default());
    }
    check_parameter_mix(operation, &params, reporting)?;
    let mut bindings = Bindings::new(
        params.expression_attribute_names.take(),
        params.expression_attribute_values.take(),
    )
    .map_err(|e| {
        if e.message() == messages::NAMES_EMPTY || e.message() == messages::VALUES_EMPTY {
            reported(reporting, e)
        } else {
            e
        }
    })?;
    let mut compiled = Compiled::default();
    if let Some(source) = &params.update_expression {
        compiled.update = Some(parse_update(source, &mut bindings)?);
    }
    if let Some(source) = &params.condition_expression {
        compiled.condition = Some(
            parse_condition(source, &mut bindings, "ConditionExpression").map_err(|e| {
                if condition_error_enveloped(&e) {
                    reported(reporting, e)
                } else {
                    e
                }
            })?,
        );
    }
    if let Some(source) = &params.filter_expression {
        compiled.filter = Some(parse_condition(source, &mut bindings, "FilterExpression")?);
    }
    if let Some(source) = &params.projection_expression {
        compiled.projection = Some(parse_projection(source, &mut bindings)?);
    }
    if let Some(source) = &params.key_condition_expression {
        compiled.key_condition = Some(parse_condition(
            source,
            &mut bindings,
            "KeyConditionExpression",
        )?);
    }
    bindings.check_all_used()?;
    translate_legacy(operation, params, &mut compiled, reporting)?;
    Ok(compiled)
}

fn check_parameter_mix(
    operation: Operation,
    params: &ExpressionParams,
    reporting: Reporting,
) -> Result<()> {
    let expressions: Vec<&str> = operation
        .expressions()
        .filter(|m| params.present(m))
        .collect();
    if !expressions.is_empty() {
        let legacy: Vec<&str> = operation
            .legacy()
            .filter(|m| params.present(m))
            // KeyConditions may accompany expressions as long as KeyConditionExpression
            // is absent (dynalite's special case, as DynamoDB).
            .filter(|m| *m != "KeyConditions" || params.key_condition_expression.is_some())
            .collect();
        if !legacy.is_empty() {
            return Err(ExprError::validation(messages::mixed_parameters(
                &legacy,
                &expressions,
            )));
        }
    }
    if params.expression_attribute_names.is_some() && expressions.is_empty() {
        return Err(reported(
            reporting,
            ExprError::validation(messages::NAMES_WITHOUT_EXPRESSIONS),
        ));
    }
    let value_users: Vec<&str> = operation
        .expressions()
        .filter(|m| *m != "ProjectionExpression")
        .collect();
    if params.expression_attribute_values.is_some()
        && !value_users.is_empty()
        && value_users.iter().all(|m| !params.present(m))
    {
        return Err(match reporting {
            Reporting::Bare => {
                ExprError::validation(messages::values_without_expressions(&value_users))
            }
            Reporting::ItemWrite => reported(
                reporting,
                ExprError::validation(messages::VALUES_WITHOUT_EXPRESSIONS),
            ),
        });
    }
    Ok(())
}

fn translate_legacy(
    operation: Operation,
    params: ExpressionParams,
    compiled: &mut Compiled,
    reporting: Reporting,
) -> Result<()> {
    let operator = params.conditional_operator.as_deref();
    if let Some(expected) = params.expected {
        compiled.condition = legacy::expected(expected, operator).map_err(|e| {
            // The malformed-condition texts ("One or more parameter values were
            // invalid: ..."); framework constraints already carry the envelope.
            if e.message().starts_with(messages::PARAMETER_VALUES_INVALID) {
                reported(reporting, e)
            } else {
                e
            }
        })?;
    } else if let Some(filter) = params.query_filter.or(params.scan_filter) {
        compiled.filter = legacy::conditions(filter, operator, legacy::Use::Filter)?;
    } else if operator.is_some() && operation != Operation::GetItem {
        legacy::check_lone_operator(operator)?;
    }
    if let Some(updates) = params.attribute_updates {
        compiled.update = Some(legacy::attribute_updates(updates)?);
    }
    if let Some(names) = params.attributes_to_get {
        compiled.projection = Some(legacy::attributes_to_get(names)?);
    }
    if let Some(key_conditions) = params.key_conditions
        && compiled.key_condition.is_none()
    {
        compiled.key_condition =
            legacy::conditions(key_conditions, None, legacy::Use::KeyCondition)?;
    }
    Ok(())
}

/// The expression members of a SearchVectors request, as they arrive.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct SearchParams {
    pub search_condition_expression: Option<String>,
    pub projection_expression: Option<String>,
    pub expression_attribute_names: Option<BTreeMap<String, String>>,
    pub expression_attribute_values: Option<BTreeMap<String, AttributeValueJson>>,
}

/// A SearchVectors request's expressions, compiled: its search condition (what the
/// vector index's search schema allows of it is the engine's check) and projection.
pub fn compile_search(params: SearchParams) -> Result<(Option<Condition>, Option<Projection>)> {
    let has_expression =
        params.search_condition_expression.is_some() || params.projection_expression.is_some();
    if params.expression_attribute_names.is_some() && !has_expression {
        return Err(ExprError::validation(messages::NAMES_WITHOUT_EXPRESSIONS));
    }
    if params.expression_attribute_values.is_some() && params.search_condition_expression.is_none()
    {
        return Err(ExprError::validation(messages::values_without_expressions(
            &["SearchConditionExpression"],
        )));
    }
    let mut bindings = Bindings::new(
        params.expression_attribute_names,
        params.expression_attribute_values,
    )?;
    let condition = match &params.search_condition_expression {
        Some(source) => Some(parse_condition(
            source,
            &mut bindings,
            "SearchConditionExpression",
        )?),
        None => None,
    };
    let projection = match &params.projection_expression {
        Some(source) => Some(parse_projection(source, &mut bindings)?),
        None => None,
    };
    bindings.check_all_used()?;
    Ok((condition, projection))
}
