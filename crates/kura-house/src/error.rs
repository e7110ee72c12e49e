use std::path::PathBuf;

/// What stops a crate from being read.
#[derive(Debug, thiserror::Error)]
pub enum HouseError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot parse {path}: {message} at line {line}")]
    Parse {
        path: PathBuf,
        message: String,
        line: usize,
    },
}
