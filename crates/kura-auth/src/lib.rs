//! Kura's authentication: "who is this?" for a DynamoDB request signed with AWS
//! Signature Version 4, answered against a credentials file.
//!
//! The crate knows no HTTP framework: the server hands it the method, the path, the query
//! string, the headers and the body as plain data ([`HttpRequest`]) and gets back the
//! [`Principal`] or an [`AuthError`] whose variants are DynamoDB's error types.
//!
//! Authorization is [`policy`]: the IAM identity policies a principal carries in the
//! credentials file, evaluated as IAM evaluates them ([`evaluate`]) against the condition
//! keys the server computes for a request ([`RequestContext`]).
//!
//! ```
//! use kura_auth::{Authenticator, Credentials, HttpRequest};
//!
//! let file = r#"{"Credentials": [{"AccessKeyId": "AKIDEXAMPLE",
//!     "SecretAccessKey": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
//!     "User": "alice", "Account": "123456789012"}]}"#;
//! let auth = Authenticator::new(Credentials::from_json(file).unwrap());
//! let request = HttpRequest {
//!     method: "POST",
//!     path: "/",
//!     query: "",
//!     headers: vec![("host", "localhost:8000")],
//!     body: b"{}",
//! };
//! // Unsigned: DynamoDB's MissingAuthenticationTokenException.
//! assert_eq!(auth.verify(&request).unwrap_err().type_name(), "MissingAuthenticationTokenException");
//! ```

mod credentials;
mod error;
pub mod policy;
mod service;
pub mod sign;
pub mod sigv4;
mod verify;

pub use credentials::{Credential, Credentials, Principal, PrincipalKind};
pub use error::AuthError;
pub use policy::{Decision, Policy, RequestContext, Resource, evaluate, evaluate_on};
pub use service::{DEFAULT_REGION, SERVICE};
pub use verify::{Authenticator, HttpRequest, Verified, fingerprint};
