//! kura-server
