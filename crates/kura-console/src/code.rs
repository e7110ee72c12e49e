//! The request a console page sent (the items builder's Query or Scan, a PartiQL
//! statement), as code to paste: the AWS CLI, boto3, the JavaScript SDK v3 and the Rust
//! SDK. Written from the request's own JSON, so what is shown is what ran, and whole:
//! each runs as shown against the server that showed it (endpoint, region and Kura's
//! local placeholder credentials included, marked as local-only). The test command runs
//! each language's code for a query and a put (tests/interop/test_console.py, and
//! crates/kura/tests/console_snippets.rs for Rust).

use std::fmt::Write as _;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use maud::{Markup, html};
use serde_json::{Map, Value};

use kura_api::operation::Op;

/// One language's code.
pub struct Snippet {
    pub language: &'static str,
    pub code: String,
}

/// `request` (a DynamoDB JSON request of `operation`) against `endpoint`, signed for
/// `region` (the console's, which matters with `--regions separate`), in each language.
/// Members only the console needs (ReturnConsumedCapacity) are left out.
pub fn snippets(operation: &str, request: &Value, endpoint: &str, region: &str) -> Vec<Snippet> {
    let mut members = request.as_object().cloned().unwrap_or_default();
    members.remove("ReturnConsumedCapacity");
    vec![
        Snippet {
            language: "AWS CLI",
            code: cli(operation, &members, endpoint, region),
        },
        Snippet {
            language: "Python (boto3)",
            code: boto3(operation, &members, endpoint, region),
        },
        Snippet {
            language: "JavaScript (SDK v3)",
            code: javascript(operation, &members, endpoint, region),
        },
        Snippet {
            language: "Rust (aws-sdk-dynamodb)",
            code: rust(operation, &members, endpoint, region),
        },
    ]
}

/// The snippets as a closed section under the page's results, each with a copy button.
pub(crate) fn section(op: Op, request: &Value, endpoint: &str, region: &str) -> Markup {
    html! {
        details.code {
            summary { "Code for this request" }
            @for snippet in snippets(op.name(), request, endpoint, region) {
                div.snippet {
                    div.row {
                        h4 { (snippet.language) }
                        button.secondary.copy type="button" { "Copy" }
                    }
                    pre { code { (snippet.code) } }
                }
            }
        }
    }
}

/// `KeyConditionExpression` as `key-condition-expression`.
fn kebab(name: &str) -> String {
    snake(name).replace('_', "-")
}

/// `KeyConditionExpression` as `key_condition_expression`.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// What the snippets sign with: a `kura serve` without `--auth` takes any key.
const PLACEHOLDER_KEY: &str = "local";
/// The line that says so, in each language's comment syntax.
const LOCAL_ONLY: &str =
    "Local placeholders: a kura serve without --auth takes any key. Not for AWS.";

/// A word for a POSIX shell, in single quotes.
fn shell(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

fn cli(operation: &str, members: &Map<String, Value>, endpoint: &str, region: &str) -> String {
    let mut code = format!(
        "# AWS CLI v2. {LOCAL_ONLY}\nAWS_ACCESS_KEY_ID={PLACEHOLDER_KEY} AWS_SECRET_ACCESS_KEY={PLACEHOLDER_KEY} \\\n\
         aws dynamodb {} \\\n  --endpoint-url {} \\\n  --region {region}",
        kebab(operation),
        shell(endpoint)
    );
    for (name, value) in members {
        let flag = kebab(name);
        let arg = match value {
            Value::Bool(true) => format!("--{flag}"),
            Value::Bool(false) => format!("--no-{flag}"),
            Value::String(s) => format!("--{flag} {}", shell(s)),
            Value::Number(n) => format!("--{flag} {n}"),
            other => format!("--{flag} {}", shell(&other.to_string())),
        };
        let _ = write!(code, " \\\n  {arg}");
    }
    code
}

/// Base64 text as the bytes it holds, in hex.
fn hex_of(base64: &Value) -> String {
    STANDARD
        .decode(base64.as_str().unwrap_or_default())
        .unwrap_or_default()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A JSON value as a Python literal; a binary value (`{"B": base64}`) as the bytes boto3
/// takes.
fn python(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(n) => n.to_string(),
        // JSON's string syntax is Python's.
        Value::String(_) => value.to_string(),
        Value::Array(list) => format!(
            "[{}]",
            list.iter().map(python).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| {
                    let literal = match (k.as_str(), v) {
                        ("B", Value::String(_)) => format!("bytes.fromhex(\"{}\")", hex_of(v)),
                        ("BS", Value::Array(list)) => format!(
                            "[{}]",
                            list.iter()
                                .map(|b| format!("bytes.fromhex(\"{}\")", hex_of(b)))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        _ => python(v),
                    };
                    format!("{}: {literal}", Value::String(k.clone()))
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn boto3(operation: &str, members: &Map<String, Value>, endpoint: &str, region: &str) -> String {
    let mut code = format!(
        "import boto3\n\n# {LOCAL_ONLY}\nclient = boto3.client(\n    \"dynamodb\",\n    \
         endpoint_url={},\n    region_name=\"{region}\",\n    \
         aws_access_key_id=\"{PLACEHOLDER_KEY}\",\n    \
         aws_secret_access_key=\"{PLACEHOLDER_KEY}\",\n)\nresponse = client.{}(\n",
        Value::String(endpoint.to_owned()),
        snake(operation)
    );
    for (name, value) in members {
        let _ = writeln!(code, "    {name}={},", python(value));
    }
    code.push_str(")\nprint(response)\n");
    code
}

/// A JSON value as a JavaScript literal; a binary value as the Uint8Array the SDK takes.
fn js(value: &Value, indent: usize) -> String {
    let pad = "  ".repeat(indent + 1);
    let close = "  ".repeat(indent);
    let bytes = |b: &Value| format!("Buffer.from({}, \"base64\")", b);
    match value {
        Value::Array(list) if !list.is_empty() => format!(
            "[\n{}\n{close}]",
            list.iter()
                .map(|v| format!("{pad}{}", js(v, indent + 1)))
                .collect::<Vec<_>>()
                .join(",\n")
        ),
        Value::Object(map) if !map.is_empty() => format!(
            "{{\n{}\n{close}}}",
            map.iter()
                .map(|(k, v)| {
                    let literal = match (k.as_str(), v) {
                        ("B", Value::String(_)) => bytes(v),
                        ("BS", Value::Array(list)) => format!(
                            "[{}]",
                            list.iter().map(bytes).collect::<Vec<_>>().join(", ")
                        ),
                        _ => js(v, indent + 1),
                    };
                    format!("{pad}{}: {literal}", Value::String(k.clone()))
                })
                .collect::<Vec<_>>()
                .join(",\n")
        ),
        other => other.to_string(),
    }
}

fn javascript(
    operation: &str,
    members: &Map<String, Value>,
    endpoint: &str,
    region: &str,
) -> String {
    let body = js(&Value::Object(members.clone()), 0);
    format!(
        "import {{ DynamoDBClient, {operation}Command }} from \"@aws-sdk/client-dynamodb\";\n\n\
         // {LOCAL_ONLY}\n\
         const client = new DynamoDBClient({{\n  endpoint: {},\n  region: \"{region}\",\n  \
         credentials: {{ accessKeyId: \"{PLACEHOLDER_KEY}\", secretAccessKey: \"{PLACEHOLDER_KEY}\" }},\n}});\n\
         const response = await client.send(new {operation}Command({body}));\n\
         console.log(JSON.stringify(response));\n",
        Value::String(endpoint.to_owned())
    )
}

/// A DynamoDB JSON value as the Rust SDK's `AttributeValue`.
fn attribute(value: &Value) -> String {
    let Some((kind, inner)) = value.as_object().and_then(|m| m.iter().next()) else {
        return "AttributeValue::Null(true)".to_owned();
    };
    let string = |v: &Value| format!("{:?}.to_owned()", v.as_str().unwrap_or_default());
    let strings = |v: &Value| {
        v.as_array()
            .into_iter()
            .flatten()
            .map(string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let blob = |v: &Value| {
        let bytes = STANDARD
            .decode(v.as_str().unwrap_or_default())
            .unwrap_or_default();
        format!("Blob::new(vec!{bytes:?})")
    };
    match kind.as_str() {
        "S" => format!("AttributeValue::S({})", string(inner)),
        "N" => format!("AttributeValue::N({})", string(inner)),
        "B" => format!("AttributeValue::B({})", blob(inner)),
        "BOOL" => format!("AttributeValue::Bool({})", inner.as_bool().unwrap_or(false)),
        "NULL" => "AttributeValue::Null(true)".to_owned(),
        "SS" => format!("AttributeValue::Ss(vec![{}])", strings(inner)),
        "NS" => format!("AttributeValue::Ns(vec![{}])", strings(inner)),
        "BS" => format!(
            "AttributeValue::Bs(vec![{}])",
            inner
                .as_array()
                .into_iter()
                .flatten()
                .map(blob)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        "L" => format!(
            "AttributeValue::L(vec![{}])",
            inner
                .as_array()
                .into_iter()
                .flatten()
                .map(attribute)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        "M" => format!(
            "AttributeValue::M(HashMap::from([{}]))",
            inner
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| format!("({k:?}.to_owned(), {})", attribute(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => "AttributeValue::Null(true)".to_owned(),
    }
}

/// A whole program: the client for `endpoint`, the request, the answer printed.
fn rust(operation: &str, members: &Map<String, Value>, endpoint: &str, region: &str) -> String {
    let mut call = format!(
        "    let response = client\n        .{}()\n",
        snake(operation)
    );
    for (name, value) in members {
        let setter = snake(name);
        match (name.as_str(), value) {
            ("ExpressionAttributeNames", Value::Object(map)) => {
                for (k, v) in map {
                    let _ = writeln!(
                        call,
                        "        .{setter}({k:?}, {:?})",
                        v.as_str().unwrap_or_default()
                    );
                }
            }
            (
                "ExpressionAttributeValues" | "ExclusiveStartKey" | "Item" | "Key",
                Value::Object(map),
            ) => {
                for (k, v) in map {
                    let _ = writeln!(call, "        .{setter}({k:?}, {})", attribute(v));
                }
            }
            ("Parameters" | "SearchVector", Value::Array(list)) => {
                for v in list {
                    let _ = writeln!(call, "        .{setter}({})", attribute(v));
                }
            }
            ("Select", Value::String(s)) => {
                let variant = match s.as_str() {
                    "COUNT" => "Count",
                    "ALL_PROJECTED_ATTRIBUTES" => "AllProjectedAttributes",
                    "SPECIFIC_ATTRIBUTES" => "SpecificAttributes",
                    _ => "AllAttributes",
                };
                let _ = writeln!(
                    call,
                    "        .select(aws_sdk_dynamodb::types::Select::{variant})"
                );
            }
            (_, Value::String(s)) => {
                let _ = writeln!(call, "        .{setter}({s:?})");
            }
            (_, Value::Bool(b)) => {
                let _ = writeln!(call, "        .{setter}({b})");
            }
            (_, Value::Number(n)) => {
                let _ = writeln!(call, "        .{setter}({n})");
            }
            _ => {}
        }
    }
    call.push_str("        .send()\n        .await?;\n");
    let mut uses = String::from(
        "// Cargo.toml: aws-sdk-dynamodb = \"1\", tokio = { version = \"1\", features = [\"full\"] }\n",
    );
    if call.contains("HashMap::") {
        uses.push_str("use std::collections::HashMap;\n\n");
    }
    uses.push_str("use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};\n");
    if call.contains("Blob::") {
        uses.push_str("use aws_sdk_dynamodb::primitives::Blob;\n");
    }
    if call.contains("AttributeValue::") {
        uses.push_str("use aws_sdk_dynamodb::types::AttributeValue;\n");
    }
    format!(
        "{uses}\n#[tokio::main]\nasync fn main() -> Result<(), aws_sdk_dynamodb::Error> {{\n    \
         // {LOCAL_ONLY}\n    \
         let config = aws_sdk_dynamodb::Config::builder()\n        \
         .behavior_version(BehaviorVersion::latest())\n        \
         .endpoint_url({endpoint:?})\n        \
         .region(Region::new({region:?}))\n        \
         .credentials_provider(Credentials::new({PLACEHOLDER_KEY:?}, {PLACEHOLDER_KEY:?}, None, None, \"kura\"))\n        \
         .build();\n    \
         let client = aws_sdk_dynamodb::Client::from_conf(config);\n\
         {call}    println!(\"{{response:?}}\");\n    Ok(())\n}}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn query() -> Value {
        json!({
            "TableName": "orders",
            "IndexName": "by_status",
            "KeyConditionExpression": "#kura_pk = :kura_pk",
            "ExpressionAttributeNames": {"#kura_pk": "status"},
            "ExpressionAttributeValues": {":kura_pk": {"S": "it's open"}, ":n": {"N": "3"},
                                          ":m": {"M": {"b": {"B": "AAE="}, "l": {"L": [{"BOOL": true}]}}}},
            "ScanIndexForward": false,
            "ConsistentRead": true,
            "Limit": 25,
            "ReturnConsumedCapacity": "TOTAL"
        })
    }

    #[test]
    fn the_cli_quotes_for_the_shell_and_spells_flags() {
        let code = cli(
            "Query",
            query().as_object().unwrap_or(&Map::new()),
            "http://h:8000",
            "us-east-1",
        );
        assert!(
            code.starts_with("# AWS CLI v2. Local placeholders"),
            "{code}"
        );
        assert!(code.contains(
            "AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local \\\naws dynamodb query \\\n  \
             --endpoint-url 'http://h:8000' \\\n  --region us-east-1"
        ));
        assert!(code.contains("--key-condition-expression '#kura_pk = :kura_pk'"));
        assert!(code.contains("--no-scan-index-forward"));
        assert!(code.contains("--consistent-read"));
        assert!(code.contains("--limit 25"));
        assert!(code.contains(r#""S":"it'\''s open""#), "{code}");
    }

    #[test]
    fn every_snippet_signs_for_the_consoles_region() {
        let codes: Vec<String> = snippets("Query", &query(), "http://h", "eu-west-1")
            .into_iter()
            .map(|s| s.code)
            .collect();
        let [cli, python, javascript, rust] = &codes[..] else {
            panic!("four languages");
        };
        assert!(cli.contains("--region eu-west-1"), "{cli}");
        assert!(python.contains("region_name=\"eu-west-1\""), "{python}");
        assert!(javascript.contains("region: \"eu-west-1\""), "{javascript}");
        assert!(rust.contains("Region::new(\"eu-west-1\")"), "{rust}");
    }

    #[test]
    fn boto3_gets_python_literals() {
        let snippets = snippets("Query", &query(), "http://h:8000", "us-east-1");
        let python = &snippets[1].code;
        assert!(python.contains("response = client.query(\n"));
        assert!(python.contains("    ScanIndexForward=False,\n"));
        assert!(python.contains("    Limit=25,\n"));
        assert!(!python.contains("ReturnConsumedCapacity"));
        assert!(python.contains(r#"{"BOOL": True}"#), "{python}");
        assert!(
            python.contains(r#"{"B": bytes.fromhex("0001")}"#),
            "{python}"
        );
        assert!(
            python.contains("    region_name=\"us-east-1\",\n"),
            "{python}"
        );
        assert!(python.ends_with(")\nprint(response)\n"), "{python}");
    }

    #[test]
    fn javascript_sends_the_command() {
        let code = &snippets("Scan", &json!({"TableName": "t"}), "http://h", "us-east-1")[2].code;
        assert!(code.contains("import { DynamoDBClient, ScanCommand }"));
        assert!(code.contains("client.send(new ScanCommand({\n  \"TableName\": \"t\"\n}))"));
        assert!(code.contains("  region: \"us-east-1\",\n"), "{code}");
        let bytes = &snippets("Query", &query(), "http://h", "us-east-1")[2].code;
        assert!(
            bytes.contains(r#""B": Buffer.from("AAE=", "base64")"#),
            "{bytes}"
        );
    }

    #[test]
    fn rust_uses_the_builders_and_attribute_values() {
        let code = &snippets("Query", &query(), "http://h", "us-east-1")[3].code;
        assert!(code.contains("        .query()\n"));
        assert!(code.contains(r##"        .expression_attribute_names("#kura_pk", "status")"##));
        assert!(code.contains(
            r#"        .expression_attribute_values(":kura_pk", AttributeValue::S("it's open".to_owned()))"#
        ));
        assert!(code.contains("Blob::new(vec![0, 1])"), "{code}");
        assert!(code.contains("AttributeValue::L(vec![AttributeValue::Bool(true)])"));
        assert!(code.contains("        .scan_index_forward(false)\n"));
        assert!(code.contains("        .limit(25)\n"));
        assert!(code.contains("        .send()\n        .await?;\n"));
        assert!(
            code.contains("use aws_sdk_dynamodb::primitives::Blob;\n"),
            "{code}"
        );
        assert!(
            code.ends_with("    println!(\"{response:?}\");\n    Ok(())\n}\n"),
            "{code}"
        );
        let search = json!({"TableName": "t", "IndexName": "v", "TopK": 2,
                            "SearchVector": [{"N": "0.5"}, {"N": "-1"}]});
        let search = &snippets("SearchVectors", &search, "h", "us-east-1")[3].code;
        assert!(search.contains("        .search_vectors()\n"), "{search}");
        assert!(search.contains(r#"        .search_vector(AttributeValue::N("0.5".to_owned()))"#));
        assert!(search.contains("        .top_k(2)\n"));
        let count = &snippets(
            "Scan",
            &json!({"TableName": "t", "Select": "COUNT"}),
            "h",
            "us-east-1",
        )[3]
        .code;
        assert!(count.contains(".select(aws_sdk_dynamodb::types::Select::Count)"));
    }
}
