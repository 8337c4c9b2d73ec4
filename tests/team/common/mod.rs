//! The team tests' set-up: the core's test support (the keyring, the sandbox, a profile),
//! and a team's database set up through `paydesk-team`'s workflow ([`team`]), which the
//! core's own tests cannot name (the engine never depends on the team crate).

#![allow(dead_code)]

#[path = "../../../crates/core/tests/common/mod.rs"]
mod core_common;
pub use core_common::*;

pub mod team;
