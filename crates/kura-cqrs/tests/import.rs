//! Importing CSV and JSON lines through commands: good records published, bad ones
//! reported by line with the reason while the rest go on, progress reported, and a second
//! run of the same input writing nothing.
mod common;

use std::sync::{Arc, Mutex};

use kura_cqrs::import::{Format, Import, Mapping};
use kura_cqrs::{CommandService, DataService, Invoker, ListOptions, ensure_tables};
use serde_json::json;

const CSV: &str = "\
sku,title,price
A-1,Tea,3
A-2,\"Cup, blue\",12
,No id,1
A-3,Pot,
A@4,Versioned,2
A-5,Mug,7,extra
";

const JSON_LINES: &str = r#"{"sku": "B-1", "title": "Kettle", "price": 40, "tags": ["steel"]}

{"sku": 2, "title": "Numbered"}
not json
[1, 2]
{"title": "no id"}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn csv_and_json_lines_through_commands() {
    let client = common::client().await;
    let tables = common::unique_names("product");
    ensure_tables(&client, &tables).await.expect("tables");
    let service = CommandService::new(client.clone(), tables.clone());
    let data = DataService::new(client, tables);
    let mapping = Mapping::new("PRODUCT", "tenant001", "sku").with_name_field("title");

    let seen = Arc::new(Mutex::new(Vec::new()));
    let progress = seen.clone();
    let report = Import::new(&service, mapping.clone())
        .sync()
        .progress(2, move |r| progress.lock().expect("lock").push(r.records))
        .run(Format::Csv, CSV.as_bytes())
        .await
        .expect("import");
    assert_eq!(
        (report.records, report.published, report.unchanged),
        (6, 3, 0)
    );
    let rejected: Vec<(u64, bool)> = report
        .rejected
        .iter()
        .map(|r| (r.line, r.reason.is_empty()))
        .collect();
    assert_eq!(
        rejected,
        [(4, false), (6, false), (7, false)],
        "{:?}",
        report.rejected
    );
    assert!(report.rejected[0].reason.contains("no sku"));
    assert!(report.rejected[1].reason.contains("invalid key"));
    assert!(report.rejected[2].reason.contains("CSV"));
    assert_eq!(*seen.lock().expect("lock"), [2, 4, 6, 6]);

    let rows = data
        .list_all_by_pk("PRODUCT#tenant001", &ListOptions::default())
        .await
        .expect("list");
    let names: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r.sk.as_str(), r.name.as_str()))
        .collect();
    assert_eq!(
        names,
        [("A-1", "Tea"), ("A-2", "Cup, blue"), ("A-3", "Pot")]
    );
    assert_eq!(
        rows[2].attributes.get("price"),
        None,
        "an empty cell is absent"
    );
    assert_eq!(rows[0].audit.source, "import");

    // The same file again: every record equals its latest version.
    let again = Import::new(&service, mapping.clone())
        .sync()
        .run(Format::Csv, CSV.as_bytes())
        .await
        .expect("again");
    assert_eq!(
        (again.published, again.unchanged, again.rejected.len()),
        (0, 3, 3)
    );

    // JSON lines, published async (commands only; the projector would apply them).
    let report = Import::new(&service, mapping)
        .invoker(Invoker {
            user_id: "loader".into(),
            ..Invoker::default()
        })
        .run(Format::JsonLines, JSON_LINES.as_bytes())
        .await
        .expect("import");
    assert_eq!((report.records, report.published), (5, 2));
    let lines: Vec<u64> = report.rejected.iter().map(|r| r.line).collect();
    assert_eq!(lines, [4, 5, 6]);
    let kettle = service
        .latest_command("PRODUCT#tenant001", "B-1")
        .await
        .expect("read")
        .expect("published");
    assert_eq!(kettle.attributes["tags"], json!(["steel"]));
    assert_eq!(kettle.audit.created_by, "loader");
    assert!(
        service
            .latest_command("PRODUCT#tenant001", "2")
            .await
            .expect("read")
            .is_some(),
        "a number id is its text"
    );
}

/// The application's own type for a product.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct Product {
    sku: String,
    title: String,
    price: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    colour: Option<String>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_import_stores_what_the_type_says_and_rejects_what_does_not_fit() {
    let client = common::client().await;
    let tables = common::unique_names("product");
    ensure_tables(&client, &tables).await.expect("tables");
    let service = CommandService::new(client.clone(), tables.clone());
    let data = DataService::new(client, tables);
    let mapping = Mapping::new("PRODUCT", "tenant001", "sku").with_name_field("title");

    // CSV cells become the field types (price a number, an empty colour absent); a
    // price that is no number is that record's rejection, with serde's reason.
    let csv = "sku,title,price,colour\nC-1,Tea,3,\nC-2,Cup,twelve,blue\nC-3,Pot,25,green\n";
    let report = Import::<Product>::typed(&service, mapping.clone())
        .sync()
        .run(Format::Csv, csv.as_bytes())
        .await
        .expect("import");
    assert_eq!((report.records, report.published), (3, 2));
    assert_eq!(report.rejected.len(), 1, "{:?}", report.rejected);
    assert_eq!(report.rejected[0].line, 3);
    assert!(
        report.rejected[0].reason.contains("Product"),
        "{}",
        report.rejected[0].reason
    );
    let tea: kura_cqrs::Entity<Product> = data
        .get(&kura_cqrs::keys::Key::new("PRODUCT", "tenant001", "C-1").expect("key"))
        .await
        .expect("read")
        .expect("imported");
    assert_eq!(
        tea.value,
        Product {
            sku: "C-1".into(),
            title: "Tea".into(),
            price: 3,
            colour: None
        }
    );
    assert_eq!(tea.row.attributes["price"], json!(3), "stored as a number");

    // JSON lines: a field the type does not know is dropped (serde's default), a
    // missing one rejects the record.
    let lines = "{\"sku\": \"C-4\", \"title\": \"Mug\", \"price\": 7, \"note\": \"x\"}\n{\"sku\": \"C-5\", \"title\": \"Jug\"}\n";
    let report = Import::<Product>::typed(&service, mapping)
        .sync()
        .run(Format::JsonLines, lines.as_bytes())
        .await
        .expect("import");
    assert_eq!((report.records, report.published), (2, 1));
    assert!(
        report.rejected[0].reason.contains("price"),
        "{:?}",
        report.rejected
    );
    let mug = service
        .latest_command("PRODUCT#tenant001", "C-4")
        .await
        .expect("read")
        .expect("imported");
    assert_eq!(mug.attributes.get("note"), None);
}
