//! Template mode on fixtures (`tests/fixtures/templates`): each template gives exactly the
//! findings its `.expected` file lists (rule, resource, line; `-` for none), and a
//! compliant template of each kind (CloudFormation YAML and JSON, SAM, CDK synth,
//! Terraform plan) gives none. The cases are issue 52's: names and settings given by
//! intrinsic functions, CloudFormation's string booleans, global tables judged by their
//! weakest replica, Kinesis destinations and resource policies, a duplicate table name
//! blamed on its own resource, a TTL attribute only the deployment knows.

use std::collections::HashMap;
use std::path::Path;

#[tokio::test]
async fn every_fixture_gives_exactly_its_expected_findings() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/templates");
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e != "expected"))
        .collect();
    entries.sort();
    for template in entries {
        let text = std::fs::read_to_string(&template).expect("template");
        let expected_path = template.with_extension("expected");
        let expected = std::fs::read_to_string(&expected_path)
            .unwrap_or_else(|_| panic!("{} has no .expected file", template.display()));
        let advice = kura_advisor::template::advise(&text, &HashMap::new(), &Default::default())
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", template.display()));
        let mut found: Vec<String> = advice["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| {
                let line = f["line"].as_u64().map_or("-".to_owned(), |l| l.to_string());
                format!(
                    "{} {} {line}",
                    f["rule"].as_str().unwrap_or("?"),
                    f["resource"].as_str().unwrap_or("?")
                )
            })
            .collect();
        found.sort();
        let expected: Vec<&str> = expected.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(found, expected, "{}", template.display());
        // A finding without a line says why.
        for f in advice["findings"].as_array().into_iter().flatten() {
            assert!(
                f["line"].is_u64() || f["noLine"].is_string(),
                "{}: {f}",
                template.display()
            );
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} fixtures");
}

/// A parameter given on the command line wins over its default: the same template judged
/// for dev has the dev name (and the guideline's name rule still holds).
#[tokio::test]
async fn parameters_given_override_their_defaults() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/templates");
    let text = std::fs::read_to_string(dir.join("cfn-compliant.yaml")).expect("template");
    let dev = HashMap::from([("Env".to_owned(), "dev".to_owned())]);
    let advice = kura_advisor::template::advise(&text, &dev, &Default::default())
        .await
        .expect("advice");
    assert_eq!(advice["findings"], serde_json::json!([]));
    let declared = kura_advisor::template::declared(&text, &dev).expect("tables");
    assert_eq!(declared[0].create["TableName"], "dev-shop-orders");
    let odd = HashMap::from([("Env".to_owned(), "Test".to_owned())]);
    let advice = kura_advisor::template::advise(&text, &odd, &Default::default())
        .await
        .expect("advice");
    assert_eq!(advice["findings"][0]["rule"], "naming.table-name-pattern");
    assert_eq!(advice["findings"][0]["line"], 12);
}
