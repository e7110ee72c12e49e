//! Expression messages (condition, filter, key condition, update and projection expressions,
//! and their parameters).

//
// Unless noted, source: dynalite's expression grammars (`db/conditionParser.pegjs`,
// `db/updateParser.pegjs`, `db/projectionParser.pegjs`) and `validations/index.js`
// (`validateExpressionParams`, `validateExpressions`), which reproduce DynamoDB's texts,
// cross-checked with ScyllaDB's DynamoDB-verified `test/alternator/test_*expression*.py`.

/// Every parse-time expression error is prefixed with the parameter it is about.
pub fn invalid_expression(parameter: &str, detail: &str) -> String {
    format!("Invalid {parameter}: {detail}")
}
pub const EXPRESSION_EMPTY: &str = "The expression can not be empty;";
pub const NAMES_EMPTY: &str = "ExpressionAttributeNames must not be empty";
pub const VALUES_EMPTY: &str = "ExpressionAttributeValues must not be empty";
pub fn invalid_names_key(key: &str) -> String {
    format!("ExpressionAttributeNames contains invalid key: Syntax error; key: \"{key}\"")
}
pub fn invalid_values_key(key: &str) -> String {
    format!("ExpressionAttributeValues contains invalid key: Syntax error; key: \"{key}\"")
}
pub fn invalid_value(detail: &str, key: &str) -> String {
    format!("ExpressionAttributeValues contains invalid value: {detail} for key {key}")
}
pub fn unused_names(keys: &[String]) -> String {
    format!(
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {{{}}}",
        keys.join(", ")
    )
}
pub fn unused_values(keys: &[String]) -> String {
    format!(
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {{{}}}",
        keys.join(", ")
    )
}
pub fn undefined_name(name: &str) -> String {
    format!(
        "An expression attribute name used in the document path is not defined; attribute name: {name}"
    )
}
pub fn undefined_value(value: &str) -> String {
    format!(
        "An expression attribute value used in expression is not defined; attribute value: {value}"
    )
}
pub fn reserved_keyword(word: &str) -> String {
    format!("Attribute name is a reserved keyword; reserved keyword: {word}")
}
pub fn mixed_parameters(legacy: &[&str], expression: &[&str]) -> String {
    format!(
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {{{}}} Expression parameters: {{{}}}",
        legacy.join(", "),
        expression.join(", ")
    )
}
pub const NAMES_WITHOUT_EXPRESSIONS: &str =
    "ExpressionAttributeNames can only be specified when using expressions";
/// ExpressionAttributeValues without an expression, as a PutItem, UpdateItem or DeleteItem
/// request of its own reports it: no "...: ConditionExpression is null" suffix, inside the
/// envelope ([`one_validation_error`]). Source: AWS us-east-1 and eu-west-2 2026-10-09,
/// paritysuite/dynamodb-conformance `tests/tier3/error-messages/putItem.test.ts` and
/// `deleteItem.test.ts`. Kura used to send [`values_without_expressions`] there.
pub const VALUES_WITHOUT_EXPRESSIONS: &str =
    "ExpressionAttributeValues can only be specified when using expressions";
/// The older text with the suffix, kept for Query, Scan and transaction actions (dynalite
/// `validations/index.js`; not yet captured in the 2026 wording there).
/// `expressions` are the parameters that could have used values, e.g. ["UpdateExpression",
/// "ConditionExpression"].
pub fn values_without_expressions(expressions: &[&str]) -> String {
    let verb = if expressions.len() > 1 { "are" } else { "is" };
    format!(
        "ExpressionAttributeValues can only be specified when using expressions: {} {verb} null",
        expressions.join(" and ")
    )
}
pub const REDUNDANT_PARENTHESES: &str = "The expression has redundant parentheses;";
pub fn invalid_function(name: &str) -> String {
    format!("Invalid function name; function: {name}")
}
/// A key condition DynamoDB cannot serve: anything but an equality on a partition key
/// attribute, or (on a GSI) an attribute outside the index's key. Source: dynalite
/// `validations/query.js`; for the GSI case, AWS as reported by users querying
/// `pk = :pk AND status = :status` on an index (docs/compat.md).
pub const KEY_CONDITION_NOT_SUPPORTED: &str = "Query key condition not supported";
pub fn misused_function(name: &str) -> String {
    format!("The function is not allowed to be used this way in an expression; function: {name}")
}
pub fn operand_count(name: &str, count: usize) -> String {
    format!(
        "Incorrect number of operands for operator or function; operator or function: {name}, number of operands: {count}"
    )
}
pub fn requires_path(name: &str) -> String {
    format!("Operator or function requires a document path; operator or function: {name}")
}
pub fn function_operand_type(name: &str, operand_type: &str) -> String {
    format!(
        "Incorrect operand type for operator or function; operator or function: {name}, operand type: {operand_type}"
    )
}
pub fn operator_operand_type(operator: &str, operand_type: &str) -> String {
    format!(
        "Incorrect operand type for operator or function; operator: {operator}, operand type: {operand_type}"
    )
}
pub fn not_distinct(operator: &str, path: &str) -> String {
    format!(
        "The first operand must be distinct from the remaining operands for this operator or function; operator: {operator}, first operand: {path}"
    )
}
pub fn invalid_type_name(name: &str) -> String {
    format!(
        "Invalid attribute type name found; type: {name}, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}"
    )
}
pub fn between_types(low: &str, high: &str) -> String {
    format!(
        "The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {low}, upper bound operand: AttributeValue: {high}"
    )
}
pub fn between_order(low: &str, high: &str) -> String {
    format!(
        "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {low}, upper bound operand: AttributeValue: {high}"
    )
}
pub fn section_twice(section: &str) -> String {
    format!("The \"{section}\" section can only be used once in an update expression;")
}
pub fn paths_overlap(one: &str, two: &str) -> String {
    format!(
        "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: {one}, path two: {two}"
    )
}
pub fn paths_conflict(one: &str, two: &str) -> String {
    format!(
        "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: {one}, path two: {two}"
    )
}
/// Source: DynamoDB UpdateItem; ScyllaDB `test_update_expression.py`.
pub const UPDATE_INVALID_PATH: &str =
    "The document path provided in the update expression is invalid for update";
/// Source: as [`UPDATE_INVALID_PATH`].
pub const UPDATE_WRONG_OPERAND_TYPE: &str =
    "An operand in the update expression has an incorrect data type";
/// Source: as [`UPDATE_INVALID_PATH`].
pub const UPDATE_MISSING_ATTRIBUTE: &str =
    "The provided expression refers to an attribute that does not exist in the item";
/// Source: DynamoDB UpdateItem on a key attribute; moto `UpdateHashRangeKeyException`.
pub fn update_key_attribute(name: &str) -> String {
    format!(
        "One or more parameter values were invalid: Cannot update attribute {name}. This attribute is part of the key"
    )
}
/// Source: DynamoDB UpdateItem whose result is over 400 KB; dynalite `db/index.js`.
pub const UPDATED_ITEM_TOO_LARGE: &str =
    "Item size to update has exceeded the maximum allowed size";
/// Source: ExtendDB's captures of DynamoDB (us-east-1, 2026): only condition and filter
/// expressions report the size.
pub fn expression_too_long(parameter: &str, size: usize) -> String {
    match parameter {
        "ConditionExpression" | "FilterExpression" => {
            format!(
                "Expression size has exceeded the maximum allowed size; expression size: {size}"
            )
        }
        _ => "Expression size has exceeded the maximum allowed size;".to_owned(),
    }
}
/// Source: DynamoDB Local (same parser as the service); index beyond a Java int.
pub fn list_index_out_of_range(index: &str) -> String {
    format!("List index is not within the allowable range; index: [{index}]")
}
/// Source: ExtendDB's captures of DynamoDB (2026).
pub fn names_key_too_long(size: usize) -> String {
    format!(
        "ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: {size}"
    )
}
/// Source: ExtendDB's captures of DynamoDB (2026); no size suffix, unlike names.
pub const VALUES_KEY_TOO_LONG: &str = "ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;";
/// Source: ExtendDB's captures of DynamoDB (2026).
pub fn empty_attribute_name(key: &str) -> String {
    format!("ExpressionAttributeNames contains invalid value: Empty attribute name for key {key}")
}
/// Source: ExtendDB's captures (`test_conditional_operator.py`).
pub const CONDITIONAL_OPERATOR_ALONE: &str =
    "ConditionalOperator cannot be used without Filter or Expected";
/// Source: as [`CONDITIONAL_OPERATOR_ALONE`].
pub const CONDITIONAL_OPERATOR_ONE_ELEMENT: &str =
    "ConditionalOperator can only be used when Filter or Expected has two or more elements";
/// Source: AWS us-east-1 and eu-central-1, October 2026, as captured by paritysuite
/// `tests/tier1/query/multiAttributeGsiKey.test.ts`: a Query on a multi-attribute GSI key
/// that skips a sort key attribute, or puts a range condition on one, before the last
/// sort key attribute it names.
pub fn sort_key_needs_equality(needing: &[&str], present_on: &str) -> String {
    format!(
        "RANGE key attributes {} must have equality conditions specified in the query because a condition is present on key attribute {present_on}",
        needing.join(", ")
    )
}
/// Source: dynalite `test/updateItem.js` (checked against DynamoDB).
pub const LEGACY_UPDATE_TYPE_MISMATCH: &str = "Type mismatch for attribute to update";
pub fn too_many_operators(count: usize) -> String {
    format!("The expression contains too many operators; operator count: {count}")
}
pub fn too_many_in_operands(count: usize) -> String {
    format!("The IN operator is provided with too many operands; number of operands: {count}")
}
pub fn path_too_deep(levels: usize) -> String {
    format!("The document path has too many nesting levels; nesting levels: {levels}")
}
