//! What a team may set about how the advisor reads the guideline.

/// What a team may set about how the guideline is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The environment identifiers table names start with (the guideline's `dev`, `stg`,
    /// `prod` by default; a team with `qa` or `uat` names its own).
    pub environments: Vec<String>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            environments: ["dev", "stg", "prod"].map(str::to_owned).to_vec(),
        }
    }
}

impl Options {
    /// `dev,stg,prod`-style text: lower-case words, at least one.
    pub fn with_environments(text: &str) -> Result<Options, String> {
        let environments: Vec<String> = text
            .split(',')
            .map(|e| e.trim().to_owned())
            .filter(|e| !e.is_empty())
            .collect();
        if environments.is_empty()
            || environments.len() > 32
            || !environments.iter().all(|e| {
                e.len() <= 32
                    && e.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            })
        {
            return Err(format!(
                "environments must be lower-case words separated by commas (at most 32), got {text:?}"
            ));
        }
        Ok(Options { environments })
    }
}
