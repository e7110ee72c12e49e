//! PartiQL messages (ExecuteStatement, BatchExecuteStatement, ExecuteTransaction).
//!
//! Source, unless noted: the texts DynamoDB's PartiQL front end sends, as DynamoDB Local
//! (AWS's own emulator, which ships the same PartiQL front end) carries them in its
//! `ValidationExceptionMessages` and `ExecuteTransactionFunction`; `Kura` marks wordings
//! Kura chose where AWS documents none.

/// A statement the parser refuses; `detail` names what was wrong.
pub fn not_well_formed(detail: &str) -> String {
    format!("Statement wasn't well formed, can't be processed: {detail}")
}
/// [`not_well_formed`] with nothing after the colon: a number literal that does not convert
/// at all (an exponent or scale beyond a 32-bit integer), a `#` comment, an unterminated
/// block comment. Source: AWS eu-west-2 2026-10 (us-east-1 not captured),
/// paritysuite/dynamodb-conformance `tests/tier3/error-messages/partiqlGrammar.test.ts`.
/// Kura used to name the problem ("Unterminated comment", "Unexpected character '#'", "The
/// parameter cannot be converted to a numeric value: 1e2147483648").
pub const NO_DETAIL: &str = "";
/// The [`not_well_formed`] detail for a token after a complete statement (a stray word or
/// `)`, ORDER BY on a DELETE or before WHERE, an alias on an INSERT). Source: as
/// [`NO_DETAIL`]. Kura used to send "Unexpected token after statement: <token>".
pub const TOKEN_AFTER_EXPRESSION: &str = "Unexpected token after expression";
/// A number literal that breaks DynamoDB's number rules (overflow, underflow, over 38
/// digits), naming where it stands inside the value: `root` for an attribute's value or a
/// WHERE operand, `root.x` in a map, `root[1]` in a list. Source: as [`NO_DETAIL`]. Kura used
/// to send the number message alone.
pub fn number_under(message: &str, path: &str) -> String {
    format!("{message} under {path}")
}
pub const WHERE_NEEDS_FULL_KEY: &str =
    "Where clause does not contain a mandatory equality on all key attributes";
pub const NOT_ON_INDEX: &str = "This operation is not supported on an index";
pub const GSI_CONSISTENT_READ: &str =
    "Strongly consistent read is not supported on Global Secondary Indexes";
pub const INVALID_NEXT_TOKEN: &str = "Invalid NextToken";
pub const NEXT_TOKEN_MISMATCH: &str = "NextToken does not match request";
pub const ALIASING: &str = "Aliasing is not supported";
pub const ITEM_NOT_A_TUPLE: &str = "Unsupported format in item expression. Please use struct format {...} to express item values for insert statement.";
pub const EMPTY_BAG: &str = "Empty bags are not supported";
pub const INSERT_MANY: &str = "Unsupported operation: Inserting multiple items in a single statement is not supported, use \"INSERT INTO tableName VALUE item\" instead";
pub const DUPLICATE_ITEM: &str = "Duplicate primary key exists in table";
pub const EXISTS_OUTSIDE_TRANSACTION: &str =
    "EXISTS can only be used in ExecuteTransaction write requests.";
pub const MISSING_NEEDS_IS: &str = "MISSING must be compared using IS operator";
pub const IS_OPERAND: &str =
    "The left hand side argument to IS must be a Variable Reference, Literal, or Path";
pub const WHERE_NOT_BOOLEAN: &str =
    "WHERE clause must contain an expression that resolves to a boolean";
pub const BAG_TYPES: &str =
    "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags";
pub fn set_function_arguments(function: &str) -> String {
    format!("SET_{function} must have exactly two arguments")
}
pub fn set_function_target(function: &str) -> String {
    format!("The first argument to SET_{function} must equal the assignment value")
}
pub fn set_function_value(function: &str) -> String {
    format!("The second argument to SET_{function} must be a value with type SET")
}
pub fn unsupported_clause(clause: &str) -> String {
    format!("Unsupported clause: {clause}")
}
pub fn unrecognized_function(name: &str) -> String {
    format!("Unrecognized function: {name}")
}
pub fn unsupported_condition_operator(operator: &str) -> String {
    format!("Unsupported operator in Condition Expression. Operator: {operator}")
}
pub fn unsupported_update_operator(operator: &str) -> String {
    format!("Unsupported operator in Update Expression. Operator: {operator}")
}
pub fn duplicate_tuple_key(key: &str) -> String {
    format!("Duplicate keys in tuple. Key: {key} under item")
}
pub fn unsupported_is_type(name: &str) -> String {
    format!(
        "Unsupported data type for IS operator: {name}. Supported data types are [MISSING, NULL, BOOLEAN, BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST]"
    )
}
pub const RETURNING_IN_INSERT: &str = "RETURNING is not supported in INSERT";
pub fn returning_in_delete(returning: &str) -> String {
    format!(
        "Invalid returning clause: RETURNING {returning}. Only RETURNING ALL OLD * is allowed in DELETE statements."
    )
}
pub const PARAMETER_COUNT: &str = "Number of parameters in request and statement don't match.";
pub const STAR_AND_ATTRIBUTES: &str =
    "Other attributes should not be present in the projection when '*' is used.";
pub const PATH_STARTS_WITH_INDEX: &str = "A path cannot start with a list index";
pub const ORDER_BY_NEEDS_WHERE: &str =
    "Must have WHERE clause in the statement when using ORDER BY clause.";
pub const ORDER_BY_NEEDS_HASH: &str = "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.";
pub fn order_by_not_key(name: &str) -> String {
    format!("Variable reference {name} in ORDER BY clause must be part of the primary key")
}
pub const ORDER_BY_NEEDS_HASH_WITH_IN: &str = "Must have hash key in ORDER BY clause when more than one hash key condition specified in WHERE clause.";
pub const TOO_MANY_READS: &str = "Too many decomposed read operations for a given query.";
pub const TRANSACTION_MIXED: &str =
    "ExecuteTransaction API does not support both read and write operations in the same request.";
pub const TRANSACTION_READ_NEEDS_KEY: &str =
    "Select statements within ExecuteTransaction must specify the primary key in the where clause.";
pub const TRANSACTION_READ_ON_INDEX: &str =
    "Reads on indices are not supported within transactions.";
pub const EXISTS_NEEDS_CONDITION: &str =
    "EXISTS() must contain a single item read with additional condition";
pub const TRANSACTION_ON_INDEX: &str = "Operations on indices are not supported in transactions";
/// Source: Kura, worded after [`TRANSACTION_MIXED`]; the API Reference says a batch is all
/// reads or all writes but quotes no message.
pub const BATCH_MIXED: &str = "BatchExecuteStatement API does not support both read and write operations in the same request.";
/// Source: Kura; the statement a batch or transaction holds twice for one item.
pub const BATCH_SAME_ITEM: &str = "Batch statements cannot include multiple operations on one item";
