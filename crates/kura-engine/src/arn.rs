//! Amazon Resource Names of tables, indexes and streams: built and parsed here only.
//!
//! `arn:aws:dynamodb:<region>:<account>:table/<table>[/index/<index> | /stream/<label>]`.
//! Parsing ignores region and account: every region and account share one namespace in
//! Kura.

/// Account id in ARNs. Kura has one namespace, so one account.
pub const ACCOUNT_ID: &str = "000000000000";

pub fn table(region: &str, table: &str) -> String {
    format!("arn:aws:dynamodb:{region}:{ACCOUNT_ID}:table/{table}")
}

pub fn index(region: &str, table_name: &str, index: &str) -> String {
    format!("{}/index/{index}", table(region, table_name))
}

pub fn stream(region: &str, table_name: &str, label: &str) -> String {
    format!("{}/stream/{label}", table(region, table_name))
}

/// A backup's ARN: `<table ARN>/backup/<id>`, the id being the creation time in
/// milliseconds (14 digits) and 8 hex digits, as DynamoDB makes them.
pub fn backup(region: &str, table_name: &str, id: &str) -> String {
    format!("{}/backup/{id}", table(region, table_name))
}

/// The table name and backup id of a backup ARN.
pub fn parse_backup(arn: &str) -> Option<(&str, &str)> {
    let (table, id) = resource(arn)?.split_once("/backup/")?;
    (!table.is_empty() && !id.is_empty() && !id.contains('/')).then_some((table, id))
}

/// An export's ARN: `<table ARN>/export/<id>`, ids as backups have them.
pub fn export(region: &str, table_name: &str, id: &str) -> String {
    format!("{}/export/{id}", table(region, table_name))
}

/// The table name and export id of an export ARN.
pub fn parse_export(arn: &str) -> Option<(&str, &str)> {
    let (table, id) = resource(arn)?.split_once("/export/")?;
    (!table.is_empty() && !id.is_empty() && !id.contains('/')).then_some((table, id))
}

/// An import's ARN: `<table ARN>/import/<id>`.
pub fn import(region: &str, table_name: &str, id: &str) -> String {
    format!("{}/import/{id}", table(region, table_name))
}

/// The table name and import id of an import ARN.
pub fn parse_import(arn: &str) -> Option<(&str, &str)> {
    let (table, id) = resource(arn)?.split_once("/import/")?;
    (!table.is_empty() && !id.is_empty() && !id.contains('/')).then_some((table, id))
}

/// The `table/...` resource part of a DynamoDB ARN.
fn resource(arn: &str) -> Option<&str> {
    let mut parts = arn.splitn(6, ':');
    let (Some("arn"), Some(_partition), Some("dynamodb"), Some(_region), Some(_account)) = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) else {
        return None;
    };
    parts.next()?.strip_prefix("table/")
}

/// The table name of a table ARN (not of an index or stream ARN).
pub fn parse_table(arn: &str) -> Option<&str> {
    let name = resource(arn)?;
    (!name.is_empty() && !name.contains('/')).then_some(name)
}

/// The table name and label of a stream ARN.
pub fn parse_stream(arn: &str) -> Option<(&str, &str)> {
    let (table, label) = resource(arn)?.split_once("/stream/")?;
    (!table.is_empty() && !label.is_empty()).then_some((table, label))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backup_arns_round_trip() {
        let arn = backup("eu-west-1", "Music", "01489173575360-b308cd7d");
        assert_eq!(
            arn,
            "arn:aws:dynamodb:eu-west-1:000000000000:table/Music/backup/01489173575360-b308cd7d"
        );
        assert_eq!(
            parse_backup(&arn),
            Some(("Music", "01489173575360-b308cd7d"))
        );
        assert_eq!(parse_backup("arn:aws:dynamodb:r:1:table/Music"), None);
        assert_eq!(parse_table(&arn), None);
    }

    #[test]
    fn tables() {
        let arn = table("us-east-1", "Users");
        assert_eq!(arn, "arn:aws:dynamodb:us-east-1:000000000000:table/Users");
        assert_eq!(parse_table(&arn), Some("Users"));
        assert_eq!(parse_table("arn:aws:s3:::bucket"), None);
        assert_eq!(parse_table("Users"), None);
        assert_eq!(parse_table("arn:aws:dynamodb:r:a:table/"), None);
        assert_eq!(parse_table("arn:aws:dynamodb:r:a:table/T/index/I"), None);
    }

    #[test]
    fn indexes_and_streams() {
        assert_eq!(
            index("eu-west-1", "T", "byX"),
            "arn:aws:dynamodb:eu-west-1:000000000000:table/T/index/byX"
        );
        let arn = stream("us-east-1", "T", "2026-01-01T00:00:00.000");
        assert_eq!(
            arn,
            "arn:aws:dynamodb:us-east-1:000000000000:table/T/stream/2026-01-01T00:00:00.000"
        );
        assert_eq!(parse_stream(&arn), Some(("T", "2026-01-01T00:00:00.000")));
        assert_eq!(parse_stream("arn:aws:dynamodb:r:a:table/T"), None);
        assert_eq!(parse_stream("arn:aws:dynamodb:r:a:table//stream/x"), None);
        assert_eq!(parse_table(&arn), None);
    }
}
