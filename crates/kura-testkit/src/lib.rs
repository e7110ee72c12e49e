//! kura-testkit
