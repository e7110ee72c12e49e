//! The prefix of DynamoDB's "invalid parameter value" texts, shared by the message files
//! (its own file, so they need not import the parent that includes them).

pub const PARAMETER_VALUES_INVALID: &str = "One or more parameter values were invalid: ";
