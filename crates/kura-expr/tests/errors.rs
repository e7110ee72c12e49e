//! Every validation error a user can provoke with expressions, table-driven: the request's
//! expression members as DynamoDB JSON, and the exact message DynamoDB answers with.

use kura_expr::request::{ExpressionParams, Operation, compile};

fn error(operation: Operation, params: &str) -> String {
    let parsed: ExpressionParams = serde_json::from_str(params).expect("test params are JSON");
    match compile(operation, parsed) {
        Ok(compiled) => panic!("accepted {params}: {compiled:?}"),
        Err(e) => e.message().to_owned(),
    }
}

fn accepted(operation: Operation, params: &str) {
    let params: ExpressionParams = serde_json::from_str(params).expect("test params are JSON");
    if let Err(e) = compile(operation, params) {
        panic!("refused: {}", e.message());
    }
}

/// (condition expression, names, values, expected message)
const CONDITION_CASES: &[(&str, &str, &str, &str)] = &[
    (
        "",
        "",
        "",
        "Invalid ConditionExpression: The expression can not be empty;",
    ),
    (
        "a =",
        "",
        "",
        "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"=\"",
    ),
    (
        "a = = :v",
        "",
        r#"{":v":{"S":"x"}}"#,
        "Invalid ConditionExpression: Syntax error; token: \"=\", near: \"= = :v\"",
    ),
    (
        "a",
        "",
        "",
        "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"a\"",
    ),
    (
        "a = :v AND",
        "",
        r#"{":v":{"S":"x"}}"#,
        "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"AND\"",
    ),
    (
        "a = :v !",
        "",
        r#"{":v":{"S":"x"}}"#,
        "Invalid ConditionExpression: Syntax error; token: \"!\", near: \":v !\"",
    ),
    (
        "status = :v",
        "",
        r#"{":v":{"S":"x"}}"#,
        "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status",
    ),
    (
        "#s = :v",
        "",
        r#"{":v":{"S":"x"}}"#,
        "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #s",
    ),
    (
        "a = :nope",
        "",
        r#"{":v":{"S":"x"}}"#,
        "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :nope",
    ),
    (
        "a = a",
        "",
        "",
        "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [a]",
    ),
    (
        "((a = :v))",
        "",
        r#"{":v":{"S":"x"}}"#,
        "Invalid ConditionExpression: The expression has redundant parentheses;",
    ),
    (
        "nope(a)",
        "",
        "",
        "Invalid ConditionExpression: Invalid function name; function: nope",
    ),
    (
        "size(a)",
        "",
        "",
        "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size",
    ),
    (
        "attribute_exists(a) = :v",
        "",
        r#"{":v":{"BOOL":true}}"#,
        "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_exists",
    ),
    (
        "begins_with(a, :v, :v)",
        "",
        r#"{":v":{"S":"x"}}"#,
        "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 3",
    ),
    (
        "attribute_exists(:v)",
        "",
        r#"{":v":{"S":"x"}}"#,
        "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists",
    ),
    (
        "begins_with(a, :v)",
        "",
        r#"{":v":{"N":"1"}}"#,
        "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N",
    ),
    (
        "attribute_type(a, :v)",
        "",
        r#"{":v":{"S":"STRING"}}"#,
        "Invalid ConditionExpression: Invalid attribute type name found; type: STRING, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}",
    ),
    (
        "attribute_type(a, :v)",
        "",
        r#"{":v":{"N":"1"}}"#,
        "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N",
    ),
    (
        "size(:v) > :v",
        "",
        r#"{":v":{"N":"1"}}"#,
        "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: N",
    ),
    (
        "a BETWEEN :lo AND :hi",
        "",
        r#"{":lo":{"N":"5"},":hi":{"N":"1"}}"#,
        "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:1}",
    ),
    (
        "a BETWEEN :lo AND :hi",
        "",
        r#"{":lo":{"N":"5"},":hi":{"S":"x"}}"#,
        "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {S:x}",
    ),
    (
        "a = :v",
        r##"{"#unused":"b"}"##,
        r#"{":v":{"S":"x"}}"#,
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}",
    ),
    (
        "a = :v",
        "",
        r#"{":v":{"S":"x"},":w":{"S":"y"}}"#,
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}",
    ),
    (
        "a = :v",
        "{}",
        r#"{":v":{"S":"x"}}"#,
        "ExpressionAttributeNames must not be empty",
    ),
    (
        "a = :v",
        "",
        "{}",
        "ExpressionAttributeValues must not be empty",
    ),
    (
        "a = :v",
        r#"{"n":"b"}"#,
        r#"{":v":{"S":"x"}}"#,
        "ExpressionAttributeNames contains invalid key: Syntax error; key: \"n\"",
    ),
    (
        "a = :v",
        "",
        r#"{"v":{"S":"x"}}"#,
        "ExpressionAttributeValues contains invalid key: Syntax error; key: \"v\"",
    ),
    (
        "a = :v",
        "",
        r#"{":v":{"SS":[]}}"#,
        "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  may not be empty for key :v",
    ),
];

fn condition_params(expression: &str, names: &str, values: &str) -> String {
    let mut members = vec![format!(
        "\"ConditionExpression\": {}",
        serde_json::to_string(expression).expect("a string")
    )];
    if !names.is_empty() {
        members.push(format!("\"ExpressionAttributeNames\": {names}"));
    }
    if !values.is_empty() {
        members.push(format!("\"ExpressionAttributeValues\": {values}"));
    }
    format!("{{{}}}", members.join(", "))
}

#[test]
fn condition_expression_errors() {
    for (expression, names, values, expected) in CONDITION_CASES {
        let got = error(
            Operation::PutItem,
            &condition_params(expression, names, values),
        );
        assert_eq!(&got, expected, "for {expression:?}");
    }
}

#[test]
fn in_takes_at_most_100_operands() {
    let list = |n: usize| vec![":v"; n].join(", ");
    accepted(
        Operation::PutItem,
        &condition_params(&format!("a IN ({})", list(100)), "", r#"{":v":{"S":"x"}}"#),
    );
    let got = error(
        Operation::PutItem,
        &condition_params(&format!("a IN ({})", list(101)), "", r#"{":v":{"S":"x"}}"#),
    );
    assert!(got.contains("101"), "{got}");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("{}a = :v{}", "(".repeat(5000), ")".repeat(5000));
    let got = error(
        Operation::PutItem,
        &condition_params(&deep, "", r#"{":v":{"S":"x"}}"#),
    );
    assert!(got.starts_with("Invalid ConditionExpression: "), "{got}");
    let nots = format!("{}a = :v", "NOT ".repeat(1000));
    let got = error(
        Operation::PutItem,
        &condition_params(&nots, "", r#"{":v":{"S":"x"}}"#),
    );
    assert!(got.starts_with("Invalid ConditionExpression: "), "{got}");
}

#[test]
fn precedence_and_parentheses_parse() {
    for expression in [
        "a = :v OR b = :v AND NOT c = :v",
        "(a = :v OR b = :v) AND c = :v",
        "NOT (a = :v)",
        "(a) = :v",
        "size(a) > :n",
        "a.b[1].c <> :v",
        "a IN (:v, :w)",
        "a between :v and :w",
        "attribute_exists(a) and not attribute_type(b, :t)",
    ] {
        accepted(
            Operation::PutItem,
            &condition_params(
                expression,
                "",
                &format!(
                    "{{{}}}",
                    [":v", ":w", ":n", ":t"]
                        .iter()
                        .filter(|k| expression.contains(*k))
                        .map(|k| match *k {
                            ":t" => r#"":t":{"S":"SS"}"#.to_owned(),
                            ":n" => r#"":n":{"N":"2"}"#.to_owned(),
                            ":w" => r#"":w":{"S":"y"}"#.to_owned(),
                            _ => format!(r#""{k}":{{"S":"x"}}"#),
                        })
                        .collect::<Vec<_>>()
                        .join(",")
                ),
            ),
        );
    }
}

/// (update expression, values, expected message)
const UPDATE_CASES: &[(&str, &str, &str)] = &[
    (
        "SET a = :v SET b = :v",
        r#"{":v":{"S":"x"}}"#,
        "Invalid UpdateExpression: The \"SET\" section can only be used once in an update expression;",
    ),
    (
        "SET a = :v, a = :v",
        r#"{":v":{"S":"x"}}"#,
        "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]",
    ),
    (
        "SET a.b = :v REMOVE a",
        r#"{":v":{"S":"x"}}"#,
        "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a]",
    ),
    (
        "SET a.b = :v REMOVE a[1]",
        r#"{":v":{"S":"x"}}"#,
        "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [1]]",
    ),
    (
        "ADD a :v",
        r#"{":v":{"S":"x"}}"#,
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING",
    ),
    (
        "DELETE a :v",
        r#"{":v":{"N":"1"}}"#,
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER",
    ),
    (
        "SET a = b + :v",
        r#"{":v":{"S":"x"}}"#,
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S",
    ),
    (
        "SET a = list_append(b, :v)",
        r#"{":v":{"S":"x"}}"#,
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: S",
    ),
    (
        "SET a = if_not_exists(:v, :v)",
        r#"{":v":{"S":"x"}}"#,
        "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists",
    ),
    (
        "SET a = nope(b)",
        "",
        "Invalid UpdateExpression: Invalid function name; function: nope",
    ),
    (
        "SET a = if_not_exists(b)",
        "",
        "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: if_not_exists, number of operands: 1",
    ),
    (
        "SET name = :v",
        r#"{":v":{"S":"x"}}"#,
        "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: name",
    ),
    (
        "SET a = b + c + d",
        "",
        "Invalid UpdateExpression: Syntax error; token: \"+\", near: \"c + d\"",
    ),
    (
        "REMOVE",
        "",
        "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \"REMOVE\"",
    ),
    (
        "a = :v",
        r#"{":v":{"S":"x"}}"#,
        "Invalid UpdateExpression: Syntax error; token: \"a\", near: \"a =\"",
    ),
];

#[test]
fn update_expression_errors() {
    for (expression, values, expected) in UPDATE_CASES {
        let mut members = vec![format!(
            "\"UpdateExpression\": {}",
            serde_json::to_string(expression).unwrap()
        )];
        if !values.is_empty() {
            members.push(format!("\"ExpressionAttributeValues\": {values}"));
        }
        let got = error(
            Operation::UpdateItem,
            &format!("{{{}}}", members.join(", ")),
        );
        assert_eq!(&got, expected, "for {expression:?}");
    }
}

#[test]
fn projection_expression_errors() {
    let cases = [
        (
            "a, a.b",
            "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]",
        ),
        (
            "a.b, a[0]",
            "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [0]]",
        ),
        (
            "a, comment",
            "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: comment",
        ),
        (
            "a,",
            "Invalid ProjectionExpression: Syntax error; token: \"<EOF>\", near: \",\"",
        ),
        (
            "a[x]",
            "Invalid ProjectionExpression: Syntax error; token: \"x\", near: \"[x]\"",
        ),
    ];
    for (expression, expected) in cases {
        let got = error(
            Operation::GetItem,
            &format!(
                "{{\"ProjectionExpression\": {}}}",
                serde_json::to_string(expression).unwrap()
            ),
        );
        assert_eq!(got, expected, "for {expression:?}");
    }
}

#[test]
fn parameter_mixing_errors() {
    let cases = [
        (
            Operation::PutItem,
            r#"{"ConditionExpression": "attribute_not_exists(a)", "Expected": {"a": {"Exists": false}}}"#,
            "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}",
        ),
        (
            Operation::UpdateItem,
            r#"{"UpdateExpression": "REMOVE a", "AttributeUpdates": {"b": {"Action": "DELETE"}}}"#,
            "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}",
        ),
        (
            Operation::GetItem,
            r#"{"ProjectionExpression": "a", "AttributesToGet": ["a"]}"#,
            "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}",
        ),
        (
            Operation::PutItem,
            r##"{"ExpressionAttributeNames": {"#a": "a"}}"##,
            "ExpressionAttributeNames can only be specified when using expressions",
        ),
        (
            Operation::PutItem,
            r#"{"ExpressionAttributeValues": {":a": {"S": "a"}}}"#,
            "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null",
        ),
        (
            Operation::UpdateItem,
            r#"{"ExpressionAttributeValues": {":a": {"S": "a"}}}"#,
            "ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression are null",
        ),
    ];
    for (operation, params, expected) in cases {
        assert_eq!(error(operation, params), expected, "for {params}");
    }
}

#[test]
fn legacy_parameter_errors() {
    let cases = [
        (
            Operation::PutItem,
            r#"{"Expected": {"a": {"Exists": true}}}"#,
            "One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: a",
        ),
        (
            Operation::PutItem,
            r#"{"Expected": {"a": {}}}"#,
            "One or more parameter values were invalid: Value must be provided when Exists is null for Attribute: a",
        ),
        (
            Operation::PutItem,
            r#"{"Expected": {"a": {"Exists": false, "Value": {"S": "x"}}}}"#,
            "One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: a",
        ),
        (
            Operation::PutItem,
            r#"{"Expected": {"a": {"ComparisonOperator": "EQ", "Exists": true}}}"#,
            "One or more parameter values were invalid: Exists and ComparisonOperator cannot be used together for Attribute: a",
        ),
        (
            Operation::PutItem,
            r#"{"Expected": {"a": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "1"}]}}}"#,
            "One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator",
        ),
        (
            Operation::PutItem,
            r#"{"Expected": {"a": {"ComparisonOperator": "LT", "AttributeValueList": [{"SS": ["x"]}]}}}"#,
            "One or more parameter values were invalid: ComparisonOperator LT is not valid for SS AttributeValue type",
        ),
        (
            Operation::PutItem,
            r#"{"Expected": {"a": {"ComparisonOperator": "IN", "AttributeValueList": [{"N": "1"}, {"S": "x"}]}}}"#,
            "One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type",
        ),
        (
            Operation::GetItem,
            r#"{"AttributesToGet": ["a", "a"]}"#,
            "One or more parameter values were invalid: Duplicate value in attribute name: a",
        ),
        (
            Operation::UpdateItem,
            r#"{"AttributeUpdates": {"a": {"Action": "PUT"}}}"#,
            "One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified",
        ),
    ];
    for (operation, params, expected) in cases {
        assert_eq!(error(operation, params), expected, "for {params}");
    }
}

#[test]
fn at_most_300_operators() {
    let conditions = |n: usize| vec!["a = :v"; n].join(" OR ");
    // n comparisons joined by n - 1 ORs: 2n - 1 operators.
    accepted(
        Operation::PutItem,
        &condition_params(&conditions(150), "", r#"{":v":{"S":"x"}}"#),
    );
    let got = error(
        Operation::PutItem,
        &condition_params(&conditions(151), "", r#"{":v":{"S":"x"}}"#),
    );
    assert_eq!(
        got,
        "Invalid ConditionExpression: The expression contains too many operators; operator count: 301"
    );
    // SET actions are not operators.
    let sets: Vec<String> = (0..400).map(|i| format!("a{i} = :v")).collect();
    let params = format!(
        r#"{{"UpdateExpression": "SET {}", "ExpressionAttributeValues": {{":v": {{"S": "x"}}}}}}"#,
        sets.join(", ")
    );
    let too_long = error(Operation::UpdateItem, &params);
    assert_eq!(
        too_long,
        "Invalid UpdateExpression: Expression size has exceeded the maximum allowed size;"
    );
    let sets: Vec<String> = (0..350).map(|i| format!("a{i}=:v")).collect();
    accepted(
        Operation::UpdateItem,
        &format!(
            r#"{{"UpdateExpression": "SET {}", "ExpressionAttributeValues": {{":v": {{"S": "x"}}}}}}"#,
            sets.join(",")
        ),
    );
}

#[test]
fn expressions_longer_than_4096_are_refused() {
    let padding = " ".repeat(4096 - "a = :v".len());
    accepted(
        Operation::PutItem,
        &condition_params(&format!("a = :v{padding}"), "", r#"{":v":{"S":"x"}}"#),
    );
    let got = error(
        Operation::PutItem,
        &condition_params(&format!("a = :v {padding}"), "", r#"{":v":{"S":"x"}}"#),
    );
    assert_eq!(
        got,
        "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4097"
    );
}

#[test]
fn nesting_within_the_operator_limit_parses() {
    // 299 NOTs each around a parenthesised condition, plus the comparison: 300 operators.
    let nested = format!("{}a = :v{}", "NOT (".repeat(299), ")".repeat(299));
    let params: ExpressionParams =
        serde_json::from_str(&condition_params(&nested, "", r#"{":v":{"S":"x"}}"#)).unwrap();
    let compiled = compile(Operation::PutItem, params).expect("accepted");
    // An odd number of NOTs around a false comparison.
    let condition = compiled.condition.expect("condition");
    assert!(kura_expr::eval::condition::evaluate(
        &condition,
        &kura_model::Item::new()
    ));
}

#[test]
fn path_and_placeholder_limits() {
    let path = |levels: usize| {
        let mut p = "a".to_owned();
        for _ in 1..levels {
            p.push_str(".b");
        }
        p
    };
    accepted(
        Operation::GetItem,
        &format!(r#"{{"ProjectionExpression": "{}"}}"#, path(32)),
    );
    assert_eq!(
        error(
            Operation::GetItem,
            &format!(r#"{{"ProjectionExpression": "{}"}}"#, path(33))
        ),
        "Invalid ProjectionExpression: The document path has too many nesting levels; nesting levels: 33"
    );
    accepted(
        Operation::GetItem,
        r#"{"ProjectionExpression": "a[2147483647]"}"#,
    );
    assert_eq!(
        error(
            Operation::GetItem,
            r#"{"ProjectionExpression": "a[2147483648]"}"#
        ),
        "Invalid ProjectionExpression: List index is not within the allowable range; index: [2147483648]"
    );
    let long_name = format!("#{}", "n".repeat(255));
    assert_eq!(
        error(
            Operation::GetItem,
            &format!(
                r#"{{"ProjectionExpression": "{long_name}", "ExpressionAttributeNames": {{"{long_name}": "a"}}}}"#
            )
        ),
        "ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: 256"
    );
    assert_eq!(
        error(
            Operation::GetItem,
            r##"{"ProjectionExpression": "#a", "ExpressionAttributeNames": {"#a": ""}}"##
        ),
        "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a"
    );
}

#[test]
fn update_functions_are_not_conditions() {
    let got = error(
        Operation::PutItem,
        &condition_params("if_not_exists(a, :v) = :v", "", r#"{":v":{"S":"x"}}"#),
    );
    assert_eq!(
        got,
        "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: if_not_exists"
    );
    let got = error(
        Operation::UpdateItem,
        r#"{"UpdateExpression": "SET a = ((b))"}"#,
    );
    assert_eq!(
        got,
        "Invalid UpdateExpression: The expression has redundant parentheses;"
    );
}

#[test]
fn conditional_operator_needs_two_conditions() {
    assert_eq!(
        error(Operation::PutItem, r#"{"ConditionalOperator": "OR"}"#),
        "ConditionalOperator cannot be used without Filter or Expected"
    );
    assert_eq!(
        error(
            Operation::PutItem,
            r#"{"ConditionalOperator": "OR", "Expected": {"a": {"Exists": false}}}"#
        ),
        "ConditionalOperator can only be used when Filter or Expected has two or more elements"
    );
}

#[test]
fn orderable_comparisons_refuse_unorderable_constants() {
    let got = error(
        Operation::PutItem,
        &condition_params("a < :v", "", r#"{":v":{"BOOL":true}}"#),
    );
    assert_eq!(
        got,
        "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: <, operand type: BOOL"
    );
    accepted(
        Operation::PutItem,
        &condition_params("a = :v", "", r#"{":v":{"BOOL":true}}"#),
    );
}
