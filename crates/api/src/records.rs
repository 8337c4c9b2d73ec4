//! The desk's records as a front end prints them.

/// An audit row's text with every character the team's log refuses escaped as Rust
/// writes it (`\n`, `\u{1b}`, `\u{202e}`): one row prints as one line, whatever a
/// member wrote in it.
pub use paydesk_store_pg::audit::escaped;
