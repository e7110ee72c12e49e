//! What `kura advise` reads from files, from arbitrary text: a suppressions file, a
//! template (CloudFormation, SAM, CDK, Terraform plan or schema JSON, or YAML) turned into
//! CreateTable inputs, and a credentials file whose identity policies are checked. Each
//! answers or refuses with an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(suppressions) = kura_advisor::suppressions::read_suppressions(text) {
        let findings = [serde_json::json!({"rule": "api.scan", "table": "dev-a", "severity": "warning"})];
        let _ = kura_advisor::suppressions::report(&findings, &suppressions, 20_000);
    }
    if let Ok(tables) = kura_advisor::template::declared(text, &Default::default()) {
        for table in tables {
            serde_json::to_string(&table.create).expect("a CreateTable input serializes");
        }
    }
    if let Ok(credentials) = kura_auth::Credentials::from_json(text) {
        for finding in kura_advisor::identities(&credentials.principals()) {
            serde_json::to_string(&finding).expect("a finding serializes");
        }
    }
});
