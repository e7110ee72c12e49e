//! The `--endpoint` of the client commands: checked when the command line is parsed, and
//! the one plain line a failure to reach it prints (what failed, where, what to try), never
//! a client library's debug dump.

use std::error::Error;

/// Parses `--endpoint` (and `KURA_ENDPOINT`): an http:// or https:// URL with a host,
/// kept without a trailing slash. clap prints the refusal with the value and the flag.
pub fn parse(text: &str) -> Result<String, String> {
    let uri = text.parse::<hyper::Uri>().ok();
    match uri
        .as_ref()
        .map(|u| (u.scheme_str(), u.authority().is_some()))
    {
        Some((Some("http" | "https"), true)) => Ok(text.trim_end_matches('/').to_owned()),
        _ => Err("not an http:// or https:// URL with a host (e.g. http://127.0.0.1:8000)".into()),
    }
}

/// The innermost error of a chain: Kura's client says it, not the library's layers.
pub use kura_client::root_cause;

/// The line for a request that never reached `endpoint`: the one `kura-client` says.
pub fn unreachable(endpoint: &str, error: &(dyn Error + 'static)) -> String {
    kura_client::ClientError::Unreachable {
        endpoint: endpoint.to_owned(),
        cause: root_cause(error),
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_http_urls_with_a_host() {
        assert_eq!(
            parse("http://127.0.0.1:8000/").as_deref(),
            Ok("http://127.0.0.1:8000")
        );
        assert_eq!(
            parse("https://dynamodb.eu-west-1.amazonaws.com").as_deref(),
            Ok("https://dynamodb.eu-west-1.amazonaws.com")
        );
        for bad in ["notaurl", "127.0.0.1:8000", "ftp://host", "http://", ""] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_root_cause_is_the_innermost_error() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let wrapped = std::io::Error::other(Wrapper(io));
        assert_eq!(root_cause(&wrapped), "refused");
    }

    #[derive(Debug)]
    struct Wrapper(std::io::Error);
    impl std::fmt::Display for Wrapper {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("client error (Connect)")
        }
    }
    impl Error for Wrapper {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.0)
        }
    }
}
