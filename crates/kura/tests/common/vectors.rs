//! Vector indexes through aws-sdk-dynamodb: CreateTable with a vector index per distance
//! function, SearchVectors against a brute-force reference (exact: the same answers in the
//! same order), a partitioned and filtered search, and DynamoDB's errors.

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue as V, BillingMode, KeyType, Projection, ProjectionType, ScalarAttributeType,
    SearchSchemaElement, SearchSchemaElementType, VectorAttributeDefinition,
    VectorDistanceFunction, VectorIndex,
};

use super::{code, def, key, message};

const DIMS: usize = 16;

fn index(name: &str, distance: VectorDistanceFunction) -> VectorIndex {
    VectorIndex::builder()
        .index_name(name)
        .vector_attribute(
            VectorAttributeDefinition::builder()
                .attribute_name("emb")
                .build()
                .expect("attribute"),
        )
        .dimensions(DIMS as i64)
        .distance_function(distance)
        .projection(
            Projection::builder()
                .projection_type(ProjectionType::All)
                .build(),
        )
        .build()
        .expect("a vector index")
}

/// A small deterministic generator (xorshift), so the data is the same in every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % 2_000_001) as f32 / 1_000_000.0 - 1.0
    }

    fn vector(&mut self) -> Vec<f32> {
        (0..DIMS).map(|_| self.next()).collect()
    }
}

fn numbers(v: &[f32]) -> Vec<V> {
    v.iter().map(|x| V::N(x.to_string())).collect()
}

fn score(distance: &VectorDistanceFunction, q: &[f32], v: &[f32]) -> f64 {
    let dot: f32 = q.iter().zip(v).map(|(a, b)| a * b).sum();
    let norm = |x: &[f32]| x.iter().map(|a| a * a).sum::<f32>().sqrt();
    f64::from(match distance {
        VectorDistanceFunction::DotProduct => dot,
        VectorDistanceFunction::Euclidean => q
            .iter()
            .zip(v)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f32>()
            .sqrt(),
        _ => 1.0 - dot / (norm(q) * norm(v)),
    })
}

/// The reference answer: every vector scored, best first.
fn brute_force(
    distance: &VectorDistanceFunction,
    q: &[f32],
    stored: &HashMap<String, Vec<f32>>,
) -> Vec<(f64, String)> {
    let mut scored: Vec<(f64, String)> = stored
        .iter()
        .map(|(k, v)| (score(distance, q, v), k.clone()))
        .collect();
    scored.sort_by(|a, b| {
        let order = a.0.total_cmp(&b.0);
        match distance {
            VectorDistanceFunction::DotProduct => order.reverse(),
            _ => order,
        }
        .then_with(|| a.1.cmp(&b.1))
    });
    scored
}

pub async fn search_matches_brute_force(client: &Client, table: &str) {
    client
        .create_table()
        .table_name(table)
        .key_schema(key("pk", KeyType::Hash))
        .attribute_definitions(def("pk", ScalarAttributeType::S))
        .attribute_definitions(def("tenant", ScalarAttributeType::S))
        .billing_mode(BillingMode::PayPerRequest)
        .vector_indexes(index("cos", VectorDistanceFunction::Cosine))
        .vector_indexes(index("euclid", VectorDistanceFunction::Euclidean))
        .vector_indexes(index("dot", VectorDistanceFunction::DotProduct))
        .vector_indexes({
            let mut by_tenant = index("by_tenant", VectorDistanceFunction::Euclidean);
            by_tenant.search_schema = Some(vec![
                SearchSchemaElement::builder()
                    .attribute_name("tenant")
                    .search_schema_element_type(SearchSchemaElementType::Hash)
                    .build()
                    .expect("element"),
            ]);
            by_tenant
        })
        .send()
        .await
        .expect("create a table with vector indexes");
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    let mut stored = HashMap::new();
    let mut tenants = HashMap::new();
    for i in 0..400 {
        let pk = format!("item-{i:04}");
        let v = rng.vector();
        let tenant = format!("t{}", i % 4);
        client
            .put_item()
            .table_name(table)
            .item("pk", V::S(pk.clone()))
            .item("emb", V::L(numbers(&v)))
            .item("tenant", V::S(tenant.clone()))
            .send()
            .await
            .expect("put");
        stored.insert(pk.clone(), v);
        tenants.insert(pk, tenant);
    }
    for (name, distance) in [
        ("cos", VectorDistanceFunction::Cosine),
        ("euclid", VectorDistanceFunction::Euclidean),
        ("dot", VectorDistanceFunction::DotProduct),
    ] {
        for _ in 0..4 {
            let q = rng.vector();
            let answer = client
                .search_vectors()
                .table_name(table)
                .index_name(name)
                .set_search_vector(Some(numbers(&q)))
                .top_k(25)
                .send()
                .await
                .expect("search");
            let expected = brute_force(&distance, &q, &stored);
            let results = answer.search_results();
            assert_eq!(results.len(), 25);
            for (got, (want_score, _)) in results.iter().zip(&expected) {
                assert!(
                    (got.score() - want_score).abs() < 1e-4,
                    "{name}: {} vs {want_score}",
                    got.score()
                );
            }
            let keys: Vec<&str> = results
                .iter()
                .map(|r| match r.item().and_then(|i| i.get("pk")) {
                    Some(V::S(pk)) => pk.as_str(),
                    other => panic!("no key: {other:?}"),
                })
                .collect();
            let want: Vec<&str> = expected.iter().take(25).map(|(_, k)| k.as_str()).collect();
            assert_eq!(keys, want, "{name}: the exact top 25");
        }
    }
    let q = rng.vector();
    let answer = client
        .search_vectors()
        .table_name(table)
        .index_name("by_tenant")
        .set_search_vector(Some(numbers(&q)))
        .top_k(100)
        .search_condition_expression("tenant = :t")
        .expression_attribute_values(":t", V::S("t3".into()))
        .send()
        .await
        .expect("a partitioned search");
    let in_tenant: HashMap<String, Vec<f32>> = stored
        .iter()
        .filter(|(k, _)| tenants[*k] == "t3")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let expected = brute_force(&VectorDistanceFunction::Euclidean, &q, &in_tenant);
    assert_eq!(answer.search_results().len(), 100);
    assert!(
        answer
            .search_results()
            .iter()
            .zip(&expected)
            .all(|(got, (want, _))| (got.score() - want).abs() < 1e-4)
    );

    let err = client
        .search_vectors()
        .table_name(table)
        .index_name("by_tenant")
        .set_search_vector(Some(numbers(&q)))
        .top_k(5)
        .send()
        .await
        .expect_err("a HASH index needs its partition value");
    assert_eq!(code(&err), "ValidationException");
    assert_eq!(
        message(&err),
        "SearchConditionExpression must be provided when SearchSchema has a HASH key"
    );
    let err = client
        .search_vectors()
        .table_name(table)
        .index_name("cos")
        .set_search_vector(Some(numbers(&q[..3])))
        .top_k(5)
        .send()
        .await
        .expect_err("a vector of the wrong dimension");
    assert_eq!(
        message(&err),
        format!("Input search vector dimension 3 does not match vector index dimension {DIMS}")
    );
    let err = client
        .put_item()
        .table_name(table)
        .item("pk", V::S("short".into()))
        .item("emb", V::L(numbers(&q[..2])))
        .send()
        .await
        .expect_err("a stored vector of the wrong dimension");
    assert!(
        message(&err).starts_with(
            "One or more parameter values were invalid. Invalid size for parameter emb, Expected: 16, Actual: 2 IndexName: "
        ),
        "{}",
        message(&err)
    );
    let described = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .expect("describe");
    let vector_indexes = described
        .table()
        .map(|t| t.vector_indexes())
        .unwrap_or_default();
    assert_eq!(vector_indexes.len(), 4);
    assert!(vector_indexes.iter().all(|v| v.item_count() == Some(400)));
}
