//! Which PartiQL statements read: the read-only server runs those and refuses the rest.

/// The statement's first keyword, upper-case, after whitespace and comments (`--` to the
/// end of the line, `/* ... */`).
pub fn first_keyword(statement: &str) -> String {
    let mut rest = statement;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("--") {
            rest = after.split_once('\n').map_or("", |(_, next)| next);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, next)| next);
        } else {
            break;
        }
    }
    rest.chars()
        .take_while(char::is_ascii_alphabetic)
        .collect::<String>()
        .to_ascii_uppercase()
}

/// Whether a statement only reads. Anything but SELECT (INSERT, UPDATE, DELETE, and what
/// the parser would refuse anyway) counts as a write.
pub fn reads_only(statement: &str) -> bool {
    first_keyword(statement) == "SELECT"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_reads_and_the_rest_write() {
        assert!(reads_only("SELECT * FROM \"Orders\""));
        assert!(reads_only("  select * from t"));
        assert!(reads_only("-- a note\n/* and another */ SELECT 1 FROM t"));
        assert!(!reads_only("INSERT INTO t VALUE {'pk': 'a'}"));
        assert!(!reads_only("update t SET a = 1 WHERE pk = 'x'"));
        assert!(!reads_only("DELETE FROM t WHERE pk = 'x'"));
        assert!(!reads_only("/* SELECT */ DELETE FROM t WHERE pk = 'x'"));
        assert!(!reads_only("-- SELECT\nDELETE FROM t WHERE pk = 'x'"));
        assert!(!reads_only("/* unterminated SELECT"));
        assert!(!reads_only(""));
    }
}
