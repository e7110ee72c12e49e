//! The PartiQL parser and its lowering: statements by example, errors with DynamoDB's
//! messages, a round trip (a random condition printed as a WHERE clause, with some values
//! as literals and some as `?` parameters, parses and lowers back to the same tree), and
//! arbitrary text never panics.

use kura_expr::ast::{Comparator, Condition, Operand, Path, PathElement, SetOperand, SetValue};
use kura_expr::partiql::ast::{Returning, Statement};
use kura_expr::partiql::lower::{Lowered, lower, split_key};
use kura_expr::partiql::{parameter_count, parse};
use kura_model::{AttributeValue, Number, ValueType};
use proptest::prelude::*;

fn s(v: &str) -> AttributeValue {
    AttributeValue::s(v)
}

fn n(v: i64) -> AttributeValue {
    AttributeValue::N(Number::from_i64(v))
}

fn path(p: &str) -> Path {
    Path(
        p.split('.')
            .map(|e| PathElement::Attribute(e.to_owned()))
            .collect(),
    )
}

fn lowered(text: &str, params: &[AttributeValue]) -> Lowered {
    lower(
        &parse(text).unwrap_or_else(|e| panic!("{text}: {e}")),
        params,
    )
    .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn error(text: &str, params: &[AttributeValue]) -> String {
    match parse(text).and_then(|st| lower(&st, params)) {
        Ok(l) => panic!("{text} parsed: {l:?}"),
        Err(e) => e.message().to_owned(),
    }
}

#[test]
fn select_forms() {
    let Lowered::Select(s1) = lowered(
        r#"select a, "b c".d[2] FROM "T"."I" where pk = 'x' order by sk desc, pk;"#,
        &[],
    ) else {
        panic!()
    };
    assert_eq!(s1.source.table, "T");
    assert_eq!(s1.source.index.as_deref(), Some("I"));
    assert_eq!(
        s1.projection,
        Some(vec![
            path("a"),
            Path(vec![
                PathElement::Attribute("b c".into()),
                PathElement::Attribute("d".into()),
                PathElement::Index(2)
            ])
        ])
    );
    assert_eq!(
        s1.order_by,
        vec![("sk".to_owned(), true), ("pk".to_owned(), false)]
    );
    let Lowered::Select(s2) = lowered("SELECT * FROM t -- comment\n /* c */", &[]) else {
        panic!()
    };
    assert_eq!(s2.projection, None);
    assert_eq!(s2.filter, None);
}

#[test]
fn insert_literals() {
    let Lowered::Insert { item, .. } = lowered(
        "INSERT INTO t VALUE {'a': 'it''s', 'b': -1.5e2, 'c': true, 'd': null, 'e': [1, 'x'], \
         'f': {'g': <<'p', 'q'>>}, 'h': <<3, 1>>, 'i': ?}",
        &[AttributeValue::B(vec![7])],
    ) else {
        panic!()
    };
    assert_eq!(item["a"], s("it's"));
    assert_eq!(item["b"], n(-150));
    assert_eq!(item["c"], AttributeValue::Bool(true));
    assert_eq!(item["d"], AttributeValue::Null);
    assert_eq!(item["e"], AttributeValue::L(vec![n(1), s("x")]));
    assert_eq!(
        item["h"],
        AttributeValue::Ns(vec![Number::from_i64(3), Number::from_i64(1)])
    );
    assert_eq!(item["i"], AttributeValue::B(vec![7]));
}

#[test]
fn update_actions() {
    let Lowered::Update {
        update,
        filter,
        returning,
        ..
    } = lowered(
        "UPDATE t SET a = a + 1, b = list_append(b, [2]) REMOVE c[0] \
         SET s = set_add(s, <<'x'>>) SET r = set_delete(r, <<1>>) SET m.k = 'v' \
         WHERE pk = 'p' AND sk = 2 RETURNING MODIFIED NEW *",
        &[],
    )
    else {
        panic!()
    };
    assert_eq!(returning, Some(Returning::ModifiedNew));
    assert_eq!(update.set.len(), 3);
    assert_eq!(
        update.set[0],
        (
            path("a"),
            SetValue::Plus(SetOperand::Path(path("a")), SetOperand::Value(n(1)))
        )
    );
    assert_eq!(
        update.add,
        vec![(path("s"), AttributeValue::Ss(vec!["x".into()]))]
    );
    assert_eq!(update.delete.len(), 1);
    assert_eq!(update.remove.len(), 1);
    let (key, rest) = split_key(&filter, &["pk", "sk"]).expect("full key");
    assert_eq!(key, vec![s("p"), n(2)]);
    assert_eq!(rest, None);
    assert!(split_key(&filter, &["pk", "other"]).is_none());
}

#[test]
fn where_functions() {
    let Lowered::Delete { filter, .. } = lowered(
        "DELETE FROM t WHERE pk = 'a' AND begins_with(x, 'p') AND x IS NOT MISSING \
         AND y IS NULL AND size(z) > 2 AND attribute_type(w, 'SS') AND missing(v) \
         AND NOT exists(u) AND k NOT IN ['a', 'b'] AND j BETWEEN 1 AND 2 AND contains(l, 3)",
        &[],
    ) else {
        panic!()
    };
    let (_, rest) = split_key(&filter, &["pk"]).expect("key");
    let rest = rest.expect("conditions");
    let parts = kura_expr::partiql::lower::conjuncts(&rest);
    assert_eq!(parts.len(), 10);
    assert_eq!(
        *parts[1],
        Condition::Not(Box::new(Condition::AttributeNotExists(path("x"))))
    );
    assert_eq!(
        *parts[2],
        Condition::AttributeType(Operand::Path(path("y")), ValueType::Null)
    );
    assert_eq!(
        *parts[3],
        Condition::Compare(
            Comparator::Gt,
            Operand::Size(Box::new(Operand::Path(path("z")))),
            Operand::Value(n(2))
        )
    );
}

#[test]
fn errors_have_dynamodb_messages() {
    let cases: &[(&str, &str)] = &[
        (
            "SELEC * FROM t",
            "Statement wasn't well formed, can't be processed: Expected data manipulation",
        ),
        (
            "",
            "Statement wasn't well formed, can't be processed: Expected data manipulation",
        ),
        (
            "SELECT * FROM t WHERE",
            "Statement wasn't well formed, can't be processed: Unexpected end of statement",
        ),
        (
            "SELECT * FROM t; SELECT * FROM t",
            "Statement wasn't well formed, can't be processed: Unexpected token after expression",
        ),
        ("SELECT a AS b FROM t", "Aliasing is not supported"),
        (
            "SELECT *, a FROM t",
            "Other attributes should not be present in the projection when '*' is used.",
        ),
        (
            "INSERT INTO t VALUES ({'a': 1})",
            "Unsupported operation: Inserting multiple items in a single statement is not supported, use \"INSERT INTO tableName VALUE item\" instead",
        ),
        (
            "INSERT INTO t VALUE [1]",
            "Unsupported format in item expression. Please use struct format {...} to express item values for insert statement.",
        ),
        (
            "INSERT INTO t VALUE {'a': 1} RETURNING ALL OLD *",
            "RETURNING is not supported in INSERT",
        ),
        (
            "INSERT INTO t VALUE {'a': <<>>}",
            "Empty bags are not supported",
        ),
        (
            "INSERT INTO t VALUE {'a': <<1, 'x'>>}",
            "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags",
        ),
        (
            "INSERT INTO t VALUE {'a': 1, 'a': 2}",
            "Duplicate keys in tuple. Key: a under item",
        ),
        (
            "UPDATE t SET a = 1",
            "Where clause does not contain a mandatory equality on all key attributes",
        ),
        (
            "DELETE FROM t",
            "Where clause does not contain a mandatory equality on all key attributes",
        ),
        (
            "SELECT * FROM t WHERE a = MISSING",
            "MISSING must be compared using IS operator",
        ),
        (
            "SELECT * FROM t WHERE a",
            "WHERE clause must contain an expression that resolves to a boolean",
        ),
        (
            "SELECT * FROM t WHERE nope(a)",
            "Unrecognized function: nope",
        ),
        (
            "SELECT * FROM t WHERE a IS DATE",
            "Unsupported data type for IS operator: DATE. Supported data types are [MISSING, NULL, BOOLEAN, BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST]",
        ),
        (
            "SELECT * FROM t WHERE 'x' IS NULL",
            "The left hand side argument to IS must be a Variable Reference, Literal, or Path",
        ),
        (
            "UPDATE t SET a = set_add(b, <<1>>) WHERE k = 1",
            "The first argument to SET_ADD must equal the assignment value",
        ),
        (
            "UPDATE t SET a = set_add(a, 1) WHERE k = 1",
            "The second argument to SET_ADD must be a value with type SET",
        ),
        (
            "UPDATE t SET a = set_delete(a) WHERE k = 1",
            "SET_DELETE must have exactly two arguments",
        ),
        (
            "SELECT * FROM t WHERE a = ?",
            "Number of parameters in request and statement don't match.",
        ),
        (
            "SELECT * FROM t WHERE a = 'x",
            "Statement wasn't well formed, can't be processed: Unterminated quoted text",
        ),
        (
            "UPDATE t SET a = 1 WHERE k = 1 RETURNING ALL OLD",
            "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(error(text, &[]), *message, "{text}");
    }
    assert_eq!(
        error(
            &format!("SELECT * FROM t WHERE a = '{}'", "x".repeat(8200)),
            &[]
        ),
        "Member must have length less than or equal to 8192"
    );
}

#[test]
fn parameters_are_counted_and_extra_ones_ignored() {
    let st = parse("SELECT * FROM t WHERE a = ? AND b IN [?, ?]").unwrap();
    assert_eq!(parameter_count(&st), 3);
    assert!(lower(&st, &[n(1), n(2), n(3), n(4)]).is_ok());
    assert!(matches!(
        parse("EXISTS(SELECT * FROM t WHERE a = 1)"),
        Ok(Statement::Exists(_))
    ));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!(
        "SELECT * FROM t WHERE {}a = 1{}",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert!(parse(&deep).is_err());
    let nots = format!("SELECT * FROM t WHERE {} a = 1", "NOT ".repeat(1_500));
    assert!(parse(&nots).is_err());
    let lists = format!(
        "INSERT INTO t VALUE {{'a': {}1{}}}",
        "[".repeat(2_000),
        "]".repeat(2_000)
    );
    assert!(parse(&lists).is_err());
    // Within the bound, nesting parses and lowers.
    let ok = format!(
        "SELECT * FROM t WHERE {}a = 1{}",
        "(".repeat(300),
        ")".repeat(300)
    );
    assert!(parse(&ok).and_then(|s| lower(&s, &[])).is_ok());
}

// ---- round trip ----

const NAMES: &[&str] = &["a", "b", "weird name", "q\"uote", "select"];

fn literal(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(x) => format!("'{}'", x.replace('\'', "''")),
        AttributeValue::N(x) => x.to_string(),
        AttributeValue::Bool(b) => if *b { "TRUE" } else { "false" }.into(),
        AttributeValue::Null => "NULL".into(),
        AttributeValue::L(l) => {
            format!("[{}]", l.iter().map(literal).collect::<Vec<_>>().join(", "))
        }
        AttributeValue::M(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("'{}': {}", k.replace('\'', "''"), literal(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        AttributeValue::Ss(x) => format!(
            "<<{}>>",
            x.iter()
                .map(|e| format!("'{}'", e.replace('\'', "''")))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        AttributeValue::Ns(x) => format!(
            "<<{}>>",
            x.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        AttributeValue::B(_) | AttributeValue::Bs(_) => unreachable!("no binary literal"),
    }
}

fn has_binary(v: &AttributeValue) -> bool {
    match v {
        AttributeValue::B(_) | AttributeValue::Bs(_) => true,
        AttributeValue::L(l) => l.iter().any(has_binary),
        AttributeValue::M(m) => m.values().any(has_binary),
        _ => false,
    }
}

struct Printer {
    params: Vec<AttributeValue>,
    use_params: bool,
}

impl Printer {
    fn path(&self, p: &Path) -> String {
        let mut out = String::new();
        for (i, e) in p.0.iter().enumerate() {
            match e {
                PathElement::Attribute(a) => {
                    if i > 0 {
                        out.push('.');
                    }
                    out.push_str(&format!("\"{}\"", a.replace('"', "\"\"")));
                }
                PathElement::Index(ix) => out.push_str(&format!("[{ix}]")),
            }
        }
        out
    }

    fn value(&mut self, v: &AttributeValue) -> String {
        self.use_params = !self.use_params;
        if self.use_params || has_binary(v) {
            self.params.push(v.clone());
            "?".into()
        } else {
            literal(v)
        }
    }

    fn operand(&mut self, o: &Operand) -> String {
        match o {
            Operand::Path(p) => self.path(p),
            Operand::Value(v) => self.value(v),
            Operand::Size(inner) => format!("size({})", self.operand(inner)),
        }
    }

    fn condition(&mut self, c: &Condition) -> String {
        match c {
            Condition::Compare(op, a, b) => {
                format!("{} {} {}", self.operand(a), op.symbol(), self.operand(b))
            }
            Condition::Between(a, b, c) => format!(
                "{} BETWEEN {} AND {}",
                self.operand(a),
                self.operand(b),
                self.operand(c)
            ),
            Condition::In(a, list) => {
                let a = self.operand(a);
                let list: Vec<String> = list.iter().map(|o| self.operand(o)).collect();
                format!("{a} IN [{}]", list.join(", "))
            }
            Condition::AttributeExists(p) => format!("exists({})", self.path(p)),
            Condition::AttributeNotExists(p) => format!("{} IS MISSING", self.path(p)),
            Condition::AttributeType(a, t) => {
                format!("attribute_type({}, '{}')", self.operand(a), t.descriptor())
            }
            Condition::BeginsWith(a, b) => {
                format!("begins_with({}, {})", self.operand(a), self.operand(b))
            }
            Condition::Contains(a, b) => {
                format!("CONTAINS({}, {})", self.operand(a), self.operand(b))
            }
            Condition::Not(inner) => format!("NOT ({})", self.condition(inner)),
            Condition::And(a, b) => format!("({}) AND ({})", self.condition(a), self.condition(b)),
            Condition::Or(a, b) => format!("({}) or ({})", self.condition(a), self.condition(b)),
        }
    }
}

fn value() -> BoxedStrategy<AttributeValue> {
    let leaf = prop_oneof![
        "[a-z' ]{0,4}".prop_map(AttributeValue::S),
        (-1000i64..1000).prop_map(n),
        any::<bool>().prop_map(AttributeValue::Bool),
        Just(AttributeValue::Null),
        Just(AttributeValue::B(vec![1, 2])),
        Just(AttributeValue::Ss(vec!["x".into(), "y'".into()])),
        Just(AttributeValue::Ns(vec![Number::from_i64(5)])),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(AttributeValue::L),
            prop::collection::btree_map("[a-z]{1,3}", inner, 0..3).prop_map(AttributeValue::M),
        ]
    })
    .boxed()
}

fn path_strategy() -> BoxedStrategy<Path> {
    (
        prop::sample::select(NAMES),
        prop::collection::vec(
            prop_oneof![
                prop::sample::select(NAMES).prop_map(|n| PathElement::Attribute(n.to_owned())),
                (0usize..5).prop_map(PathElement::Index),
            ],
            0..3,
        ),
    )
        .prop_map(|(top, rest)| {
            let mut p = vec![PathElement::Attribute(top.to_owned())];
            p.extend(rest);
            Path(p)
        })
        .boxed()
}

fn operand() -> BoxedStrategy<Operand> {
    prop_oneof![
        path_strategy().prop_map(Operand::Path),
        value().prop_map(Operand::Value),
        path_strategy().prop_map(|p| Operand::Size(Box::new(Operand::Path(p)))),
    ]
    .boxed()
}

fn condition() -> BoxedStrategy<Condition> {
    let comparators = prop::sample::select(vec![
        Comparator::Eq,
        Comparator::Ne,
        Comparator::Lt,
        Comparator::Le,
        Comparator::Gt,
        Comparator::Ge,
    ]);
    let leaf = prop_oneof![
        (comparators, operand(), operand()).prop_map(|(c, a, b)| Condition::Compare(c, a, b)),
        (operand(), operand(), operand()).prop_map(|(a, b, c)| Condition::Between(a, b, c)),
        (path_strategy(), prop::collection::vec(value(), 1..4)).prop_map(|(p, v)| {
            Condition::In(
                Operand::Path(p),
                v.into_iter().map(Operand::Value).collect(),
            )
        }),
        path_strategy().prop_map(Condition::AttributeExists),
        path_strategy().prop_map(Condition::AttributeNotExists),
        (
            path_strategy(),
            prop::sample::select(vec![ValueType::S, ValueType::Ss, ValueType::Null])
        )
            .prop_map(|(p, t)| Condition::AttributeType(Operand::Path(p), t)),
        (operand(), operand()).prop_map(|(a, b)| Condition::BeginsWith(a, b)),
        (operand(), operand()).prop_map(|(a, b)| Condition::Contains(a, b)),
    ];
    leaf.prop_recursive(4, 16, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|c| Condition::Not(Box::new(c))),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| Condition::And(Box::new(a), Box::new(b))),
            (inner.clone(), inner).prop_map(|(a, b)| Condition::Or(Box::new(a), Box::new(b))),
        ]
    })
    .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn where_clause_round_trips(c in condition()) {
        let mut printer = Printer { params: Vec::new(), use_params: false };
        let text = format!("SELECT * FROM \"T\" WHERE {}", printer.condition(&c));
        let statement = parse(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        let Lowered::Select(select) = lower(&statement, &printer.params)
            .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))? else {
            return Err(TestCaseError::fail("not a select"));
        };
        prop_assert_eq!(select.filter, Some(c), "{}", text);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        if let Ok(statement) = parse(&text) {
            let _ = lower(&statement, &[n(1), s("x")]);
        }
    }

    #[test]
    fn statement_shaped_noise_never_panics(
        words in prop::collection::vec(prop::sample::select(vec![
            "SELECT", "*", "FROM", "t", "WHERE", "a", "=", "1", "'x'", "AND", "OR", "NOT", "(",
            ")", "[", "]", "{", "}", "<<", ">>", ",", ".", "?", "IN", "IS", "MISSING", "SET",
            "UPDATE", "INSERT", "INTO", "VALUE", "DELETE", "RETURNING", "ALL", "OLD", "*",
            "size(", "EXISTS", ":", "-", "+", "ORDER", "BY", "BETWEEN",
        ]), 0..40)
    ) {
        let text = words.join(" ");
        if let Ok(statement) = parse(&text) {
            let _ = lower(&statement, &[n(1), s("x")]);
        }
    }
}
