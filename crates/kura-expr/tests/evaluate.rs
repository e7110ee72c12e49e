//! Evaluation, table-driven: conditions over typed items, updates applied to items, and
//! projections, each through the same path a request takes (compile, then evaluate).

use kura_expr::eval::{condition::evaluate, projection::project, update::apply};
use kura_expr::request::{ExpressionParams, Operation, compile};
use kura_model::Item;
use kura_model::wire::{ItemJson, item_from_json};

fn item(json: &str) -> Item {
    let raw: ItemJson = serde_json::from_str(json).expect("item JSON");
    item_from_json(raw).expect("valid item")
}

fn params(json: &str) -> ExpressionParams {
    serde_json::from_str(json).expect("params JSON")
}

const ITEM: &str = r#"{
    "pk": {"S": "p1"},
    "version": {"N": "3"},
    "stock": {"N": "0"},
    "phase": {"S": "PENDING"},
    "title": {"S": "héllo"},
    "bin": {"B": "AQID"},
    "tags": {"SS": ["a", "b"]},
    "scores": {"NS": ["1", "2.5"]},
    "arr": {"L": [{"S": "x"}, {"N": "1"}, {"L": [{"S": "deep"}]}]},
    "doc": {"M": {"child": {"M": {"n": {"N": "7"}}}, "dotted.key": {"S": "d"}}},
    "flag": {"BOOL": true},
    "nil": {"NULL": true}
}"#;

/// (condition, values, expected result on ITEM)
const CONDITIONS: &[(&str, &str, bool)] = &[
    ("version = :v", r#"{":v":{"N":"3.0"}}"#, true),
    ("version = :v", r#"{":v":{"S":"3"}}"#, false),
    ("version <> :v", r#"{":v":{"S":"3"}}"#, true),
    ("absentee <> :v", r#"{":v":{"S":"3"}}"#, true),
    ("absentee = :v", r#"{":v":{"S":"3"}}"#, false),
    ("stock > :zero", r#"{":zero":{"N":"0"}}"#, false),
    ("stock >= :zero", r#"{":zero":{"N":"0"}}"#, true),
    ("version < :v", r#"{":v":{"N":"10"}}"#, true),
    ("title < :v", r#"{":v":{"S":"i"}}"#, true),
    ("title > :v", r#"{":v":{"S":"hz"}}"#, true), // "é" is 0xC3.. > "z"
    ("bin > :v", r#"{":v":{"B":"AQI="}}"#, true),
    ("flag > :v", r#"{":v":{"S":"a"}}"#, false),
    (
        "version BETWEEN :lo AND :hi",
        r#"{":lo":{"N":"1"},":hi":{"N":"3"}}"#,
        true,
    ),
    (
        "version BETWEEN :lo AND :hi",
        r#"{":lo":{"N":"4"},":hi":{"N":"9"}}"#,
        false,
    ),
    (
        "phase IN (:a, :b)",
        r#"{":a":{"S":"NEW"},":b":{"S":"PENDING"}}"#,
        true,
    ),
    ("phase IN (:a)", r#"{":a":{"S":"NEW"}}"#, false),
    ("attribute_exists(doc.child.n)", "", true),
    ("attribute_exists(doc.child.x)", "", false),
    ("attribute_not_exists(pk)", "", false),
    ("attribute_exists(arr[2][0])", "", true),
    ("attribute_exists(arr[3])", "", false),
    ("attribute_type(tags, :t)", r#"{":t":{"S":"SS"}}"#, true),
    ("attribute_type(nil, :t)", r#"{":t":{"S":"NULL"}}"#, true),
    ("attribute_type(version, :t)", r#"{":t":{"S":"S"}}"#, false),
    ("begins_with(phase, :p)", r#"{":p":{"S":"PEN"}}"#, true),
    ("begins_with(bin, :p)", r#"{":p":{"B":"AQ=="}}"#, true),
    ("begins_with(version, :p)", r#"{":p":{"S":"3"}}"#, false),
    ("contains(title, :s)", r#"{":s":{"S":"éll"}}"#, true),
    ("contains(tags, :s)", r#"{":s":{"S":"b"}}"#, true),
    ("contains(tags, :s)", r#"{":s":{"N":"1"}}"#, false),
    ("contains(scores, :n)", r#"{":n":{"N":"2.50"}}"#, true),
    ("contains(arr, :l)", r#"{":l":{"L":[{"S":"deep"}]}}"#, true),
    ("contains(bin, :b)", r#"{":b":{"B":"Ag=="}}"#, true),
    ("size(title) = :n", r#"{":n":{"N":"5"}}"#, true),
    ("size(bin) = :n", r#"{":n":{"N":"3"}}"#, true),
    ("size(tags) = :n", r#"{":n":{"N":"2"}}"#, true),
    ("size(doc) = :n", r#"{":n":{"N":"2"}}"#, true),
    ("size(arr[2]) = :n", r#"{":n":{"N":"1"}}"#, true),
    ("size(version) = :n", r#"{":n":{"N":"1"}}"#, false),
    ("size(version) <> :n", r#"{":n":{"N":"1"}}"#, true),
    ("size(absentee) >= :n", r#"{":n":{"N":"0"}}"#, false),
    ("tags = :s", r#"{":s":{"SS":["b","a"]}}"#, true),
    ("doc.child = :m", r#"{":m":{"M":{"n":{"N":"7"}}}}"#, true),
    ("NOT phase = :s", r#"{":s":{"S":"PENDING"}}"#, false),
    (
        "phase = :a OR phase = :b AND version = :v",
        r#"{":a":{"S":"PENDING"},":b":{"S":"X"},":v":{"N":"9"}}"#,
        true,
    ),
    (
        "(phase = :a OR phase = :b) AND version = :v",
        r#"{":a":{"S":"PENDING"},":b":{"S":"X"},":v":{"N":"9"}}"#,
        false,
    ),
    (
        "NOT (phase = :a AND version = :v)",
        r#"{":a":{"S":"PENDING"},":v":{"N":"9"}}"#,
        true,
    ),
    ("#k = :d", r#"{":d":{"S":"d"}}"#, false), // a top-level "doc.dotted.key" does not exist
    ("#m.#k = :d", r#"{":d":{"S":"d"}}"#, true),
];

#[test]
fn conditions_evaluate_as_documented() {
    let item = item(ITEM);
    for (expression, values, expected) in CONDITIONS {
        let mut json = vec![format!("\"ConditionExpression\": {expression:?}")];
        if expression.contains('#') {
            let names = if expression.contains("#m") {
                r##"{"#m":"doc","#k":"dotted.key"}"##
            } else {
                r##"{"#k":"doc.dotted.key"}"##
            };
            json.push(format!("\"ExpressionAttributeNames\": {names}"));
        }
        if !values.is_empty() {
            json.push(format!("\"ExpressionAttributeValues\": {values}"));
        }
        let compiled = compile(
            Operation::PutItem,
            params(&format!("{{{}}}", json.join(","))),
        )
        .unwrap_or_else(|e| panic!("{expression}: {}", e.message()));
        let got = evaluate(compiled.condition.as_ref().expect("condition"), &item);
        assert_eq!(got, *expected, "{expression} with {values}");
    }
}

fn update(expression: &str, values: &str, on: &str) -> Result<Item, String> {
    let mut json = vec![format!("\"UpdateExpression\": {expression:?}")];
    if !values.is_empty() {
        json.push(format!("\"ExpressionAttributeValues\": {values}"));
    }
    let compiled = compile(
        Operation::UpdateItem,
        params(&format!("{{{}}}", json.join(","))),
    )
    .map_err(|e| e.message().to_owned())?;
    apply(compiled.update.as_ref().expect("update"), &item(on)).map_err(|e| e.message().to_owned())
}

/// (update, values, item before, item after or error)
const UPDATES: &[(&str, &str, &str, Result<&str, &str>)] = &[
    (
        "SET a = :v, b = a",
        r#"{":v":{"N":"2"}}"#,
        r#"{"a":{"N":"1"}}"#,
        Ok(r#"{"a":{"N":"2"},"b":{"N":"1"}}"#),
    ),
    (
        "SET n = n + :one",
        r#"{":one":{"N":"1"}}"#,
        r#"{"n":{"N":"41"}}"#,
        Ok(r#"{"n":{"N":"42"}}"#),
    ),
    (
        "SET n = if_not_exists(n, :zero) - :one",
        r#"{":zero":{"N":"0"},":one":{"N":"1"}}"#,
        r#"{}"#,
        Ok(r#"{"n":{"N":"-1"}}"#),
    ),
    (
        "SET l = list_append(l, :more)",
        r#"{":more":{"L":[{"S":"c"}]}}"#,
        r#"{"l":{"L":[{"S":"a"},{"S":"b"}]}}"#,
        Ok(r#"{"l":{"L":[{"S":"a"},{"S":"b"},{"S":"c"}]}}"#),
    ),
    (
        "SET l = list_append(:first, l)",
        r#"{":first":{"L":[{"S":"z"}]}}"#,
        r#"{"l":{"L":[{"S":"a"}]}}"#,
        Ok(r#"{"l":{"L":[{"S":"z"},{"S":"a"}]}}"#),
    ),
    (
        "SET m.x.y = :v",
        r#"{":v":{"S":"new"}}"#,
        r#"{"m":{"M":{"x":{"M":{}}}}}"#,
        Ok(r#"{"m":{"M":{"x":{"M":{"y":{"S":"new"}}}}}}"#),
    ),
    (
        "SET m.x.y = :v",
        r#"{":v":{"S":"new"}}"#,
        r#"{"m":{"M":{}}}"#,
        Err("The document path provided in the update expression is invalid for update"),
    ),
    (
        "SET l[10] = :v, l[7] = :w",
        r#"{":v":{"S":"ten"},":w":{"S":"seven"}}"#,
        r#"{"l":{"L":[{"S":"a"}]}}"#,
        Ok(r#"{"l":{"L":[{"S":"a"},{"S":"seven"},{"S":"ten"}]}}"#),
    ),
    (
        "REMOVE l[0], l[2]",
        "",
        r#"{"l":{"L":[{"S":"a"},{"S":"b"},{"S":"c"},{"S":"d"}]}}"#,
        Ok(r#"{"l":{"L":[{"S":"b"},{"S":"d"}]}}"#),
    ),
    (
        "REMOVE l[9], m.absent, gone",
        "",
        r#"{"l":{"L":[{"S":"a"}]},"m":{"M":{}}}"#,
        Ok(r#"{"l":{"L":[{"S":"a"}]},"m":{"M":{}}}"#),
    ),
    (
        "REMOVE m.x",
        "",
        r#"{"a":{"S":"1"}}"#,
        Err("The document path provided in the update expression is invalid for update"),
    ),
    (
        "ADD n :five, s :more",
        r#"{":five":{"N":"5"},":more":{"SS":["b","c"]}}"#,
        r#"{"n":{"N":"1"},"s":{"SS":["a","b"]}}"#,
        Ok(r#"{"n":{"N":"6"},"s":{"SS":["a","b","c"]}}"#),
    ),
    (
        "ADD n :five, s :more",
        r#"{":five":{"N":"5"},":more":{"NS":["1"]}}"#,
        r#"{}"#,
        Ok(r#"{"n":{"N":"5"},"s":{"NS":["1"]}}"#),
    ),
    (
        "ADD s :more",
        r#"{":more":{"NS":["1"]}}"#,
        r#"{"s":{"SS":["a"]}}"#,
        Err("An operand in the update expression has an incorrect data type"),
    ),
    (
        "DELETE s :gone",
        r#"{":gone":{"SS":["a","x"]}}"#,
        r#"{"s":{"SS":["a","b"]}}"#,
        Ok(r#"{"s":{"SS":["b"]}}"#),
    ),
    (
        "DELETE s :gone",
        r#"{":gone":{"SS":["a","b"]}}"#,
        r#"{"s":{"SS":["a","b"]}}"#,
        Ok(r#"{}"#),
    ),
    (
        "DELETE s :gone",
        r#"{":gone":{"SS":["a"]}}"#,
        r#"{}"#,
        Ok(r#"{}"#),
    ),
    (
        "DELETE m.s :gone",
        r#"{":gone":{"SS":["a"]}}"#,
        r#"{"m":{"S":"not a map"}}"#,
        Err("The document path provided in the update expression is invalid for update"),
    ),
    (
        "DELETE m.s :gone",
        r#"{":gone":{"SS":["a"]}}"#,
        r#"{"m":{"M":{}}}"#,
        Ok(r#"{"m":{"M":{}}}"#),
    ),
    (
        "SET x = y",
        "",
        r#"{}"#,
        Err("The provided expression refers to an attribute that does not exist in the item"),
    ),
    (
        "SET x = s + :one",
        r#"{":one":{"N":"1"}}"#,
        r#"{"s":{"S":"a"}}"#,
        Err("An operand in the update expression has an incorrect data type"),
    ),
    (
        "ADD n :big",
        r#"{":big":{"N":"9.9999999999999999999999999999999999999E+125"}}"#,
        r#"{"n":{"N":"9.9999999999999999999999999999999999999E+125"}}"#,
        Err(
            "Number overflow. Attempting to store a number with magnitude larger than supported range",
        ),
    ),
];

#[test]
fn updates_apply_as_documented() {
    for (expression, values, before, expected) in UPDATES {
        let got = update(expression, values, before);
        let expected = expected.map(item).map_err(str::to_owned);
        assert_eq!(got, expected, "{expression} on {before}");
    }
}

#[test]
fn projections_keep_the_nested_shape() {
    let item = item(ITEM);
    let cases = [
        ("pk, version", r#"{"pk":{"S":"p1"},"version":{"N":"3"}}"#),
        (
            "doc.child.n",
            r#"{"doc":{"M":{"child":{"M":{"n":{"N":"7"}}}}}}"#,
        ),
        (
            "arr[2], arr[0]",
            r#"{"arr":{"L":[{"S":"x"},{"L":[{"S":"deep"}]}]}}"#,
        ),
        (
            "arr[2][0], arr[9]",
            r#"{"arr":{"L":[{"L":[{"S":"deep"}]}]}}"#,
        ),
        ("absent, doc.zip, arr[1].x", r#"{}"#),
    ];
    for (expression, expected) in cases {
        let compiled = compile(
            Operation::GetItem,
            params(&format!("{{\"ProjectionExpression\": {expression:?}}}")),
        )
        .unwrap_or_else(|e| panic!("{expression}: {}", e.message()));
        let got = project(&item, compiled.projection.as_ref().expect("projection"));
        assert_eq!(got, self::item(expected), "{expression}");
    }
}

#[test]
fn legacy_parameters_translate_to_the_same_semantics() {
    let item = item(ITEM);
    let cases = [
        (r#"{"Expected": {"version": {"Value": {"N": "3"}}}}"#, true),
        (r#"{"Expected": {"version": {"Exists": false}}}"#, false),
        (r#"{"Expected": {"absent": {"Exists": false}}}"#, true),
        (
            r#"{"Expected": {"version": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "2"}]},
                             "phase": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "NO"}]}},
                "ConditionalOperator": "OR"}"#,
            true,
        ),
        (
            r#"{"Expected": {"version": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "2"}]},
                             "phase": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "NO"}]}}}"#,
            false,
        ),
        (
            r#"{"Expected": {"tags": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"S": "a"}]}}}"#,
            true,
        ),
        (
            r#"{"Expected": {"tags": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "a"}]}}}"#,
            false,
        ),
        (
            r#"{"Expected": {"absent": {"ComparisonOperator": "NULL"}}}"#,
            true,
        ),
        (
            r#"{"Expected": {"phase": {"ComparisonOperator": "IN", "AttributeValueList": [{"S": "X"}, {"S": "PENDING"}]}}}"#,
            true,
        ),
        (
            r#"{"Expected": {"version": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "1"}, {"N": "2"}]}}}"#,
            false,
        ),
    ];
    for (json, expected) in cases {
        let compiled = compile(Operation::PutItem, params(json))
            .unwrap_or_else(|e| panic!("{json}: {}", e.message()));
        let got = evaluate(compiled.condition.as_ref().expect("condition"), &item);
        assert_eq!(got, expected, "{json}");
    }

    let compiled = compile(
        Operation::UpdateItem,
        params(
            r#"{"AttributeUpdates": {
                "n": {"Action": "ADD", "Value": {"N": "2"}},
                "l": {"Action": "ADD", "Value": {"L": [{"S": "b"}]}},
                "gone": {"Action": "DELETE"},
                "s": {"Value": {"S": "put"}}}}"#,
        ),
    )
    .expect("legacy update");
    let before = self::item(r#"{"n":{"N":"1"},"l":{"L":[{"S":"a"}]},"gone":{"S":"x"}}"#);
    let after = apply(compiled.update.as_ref().expect("update"), &before).expect("applies");
    assert_eq!(
        after,
        self::item(r#"{"n":{"N":"3"},"l":{"L":[{"S":"a"},{"S":"b"}]},"s":{"S":"put"}}"#)
    );
    let mismatch = compile(
        Operation::UpdateItem,
        params(r#"{"AttributeUpdates": {"n": {"Action": "ADD", "Value": {"SS": ["x"]}}}}"#),
    )
    .expect("legacy update");
    let err = apply(mismatch.update.as_ref().expect("update"), &before).expect_err("mismatch");
    assert_eq!(err.message(), "Type mismatch for attribute to update");
}

#[test]
fn key_conditions_become_key_ranges() {
    use kura_expr::key_condition::{SortCondition, key_condition};
    let parse = |expr: &str| {
        let compiled = compile(
            Operation::Query,
            params(&format!(
                r#"{{"KeyConditionExpression": {expr:?}, "ExpressionAttributeValues": {{":p":{{"S":"A"}},":s":{{"S":"ORDER#"}},":t":{{"S":"Z"}}}}}}"#
            )),
        );
        compiled.and_then(|c| key_condition(c.key_condition.as_ref().unwrap(), "pk", Some("sk")))
    };
    let refused = parse("pk = :p AND begins_with(sk, :s) AND :t = :t").err();
    assert!(refused.is_some(), "a condition on no key is refused");
    let kc = parse("pk = :p AND sk BETWEEN :s AND :t").map_err(|e| e.message().to_owned());
    let kc = kc.unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(kc.sort, Some(SortCondition::Between(..))));
    let errors = [
        ("sk = :s", "Query condition missed key schema element: pk"),
        (
            "pk = :p OR sk = :s",
            "Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: OR",
        ),
        (
            "pk = :p AND sk = :s AND sk = :t",
            "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key",
        ),
        (
            "pk = :p AND extra = :s",
            "Query condition missed key schema element: sk",
        ),
        ("pk > :p", "Query key condition not supported"),
        (
            "pk = :p AND contains(sk, :s)",
            "Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: contains",
        ),
        (
            "pk.x = :p",
            "Invalid KeyConditionExpression: KeyConditionExpressions cannot have conditions on nested attributes",
        ),
    ];
    for (expr, expected) in errors {
        let compiled = compile(
            Operation::Query,
            params(&format!(
                r#"{{"KeyConditionExpression": {expr:?}, "ExpressionAttributeValues": {}}}"#,
                values_for(expr)
            )),
        )
        .unwrap_or_else(|e| panic!("{expr}: {}", e.message()));
        let err = key_condition(compiled.key_condition.as_ref().unwrap(), "pk", Some("sk"))
            .expect_err(expr);
        assert_eq!(err.message(), expected, "{expr}");
    }
}

fn values_for(expr: &str) -> String {
    let all = [
        (":p", r#"{"S":"A"}"#),
        (":s", r#"{"S":"B"}"#),
        (":t", r#"{"S":"C"}"#),
    ];
    let used: Vec<String> = all
        .iter()
        .filter(|(k, _)| expr.contains(k))
        .map(|(k, v)| format!("{k:?}:{v}"))
        .collect();
    format!("{{{}}}", used.join(","))
}

/// What authorization's `dynamodb:Attributes` reads: the top-level names a request
/// returns and writes, with `#names` substituted and legacy parameters translated.
#[test]
fn returned_and_written_attributes_are_top_level_names() {
    let update = params(
        r##"{"UpdateExpression": "SET a = list_append(b, :v), #n.x = :w REMOVE c[0], d ADD e :one DELETE f :s",
             "ConditionExpression": "attribute_exists(g)",
             "ExpressionAttributeNames": {"#n": "name"},
             "ExpressionAttributeValues": {":v": {"L": []}, ":w": {"S": "x"}, ":one": {"N": "1"}, ":s": {"SS": ["q"]}}}"##,
    );
    let compiled = compile(Operation::UpdateItem, update).expect("compiles");
    let written: Vec<&str> = compiled.written_attributes().into_iter().collect();
    assert_eq!(written, ["a", "c", "d", "e", "f", "name"]);
    assert!(compiled.returned_attributes().is_empty());

    let legacy =
        params(r#"{"AttributeUpdates": {"z": {"Action": "DELETE"}, "y": {"Value": {"N": "1"}}}}"#);
    let compiled = compile(Operation::UpdateItem, legacy).expect("compiles");
    let written: Vec<&str> = compiled.written_attributes().into_iter().collect();
    assert_eq!(written, ["y", "z"]);

    let projection = params(
        r##"{"ProjectionExpression": "#p.q, r[2], s", "ExpressionAttributeNames": {"#p": "p"}}"##,
    );
    let compiled = compile(Operation::GetItem, projection).expect("compiles");
    let returned: Vec<&str> = compiled.returned_attributes().into_iter().collect();
    assert_eq!(returned, ["p", "r", "s"]);
    let legacy = params(r#"{"AttributesToGet": ["k", "j"]}"#);
    let compiled = compile(Operation::Query, legacy).expect("compiles");
    let returned: Vec<&str> = compiled.returned_attributes().into_iter().collect();
    assert_eq!(returned, ["j", "k"]);
}
