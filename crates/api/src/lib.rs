//! PayDesk's one API for both front ends (issue 32): one function per operation that
//! the app's commands (`src-tauri/src/commands`) and the CLI (`crates/cli`) both call.
//! A policy around an operation lives here, once, never in one front end:
//!
//! - after money moved, a balance snapshot of its currency ([`money`]), the front end
//!   saying only *when* ([`money::After`]: in the background for the app, before the
//!   command ends for the CLI);
//! - a sync is followed by a balance snapshot ([`orders::sync`], the rule the team's
//!   signer keeps too: `Orders::sync_then_snapshot`);
//! - the team's database is opened by [`team`] (no front end names the store's
//!   PostgreSQL module: `crates/core/tests/layers.rs`);
//! - report periods and zones are read one way ([`reports`]): the same days, the same
//!   defaults, the same errors in the app and the CLI; a time zone travels as a name and
//!   its daylight saving is the engine's, never the UI's;
//! - balances: history, reconciliation and the manager's overview ([`balances`]);
//! - the background duties of a running desk, its scheduled balance snapshot and
//!   reports, by the desk's clock ([`duties`]): the app's timers and the CLI's worker
//!   only say when;
//! - the signing tools ([`tools`]): one reading of a body, its settings and a key.
//!
//! Layers: the front ends call this crate; it composes `paydesk-session`,
//! `paydesk-reports` and `paydesk-core`, and nothing below it calls it.

pub mod balances;
pub mod duties;
pub mod money;
pub mod orders;
pub mod records;
pub mod reports;
pub mod team;
pub mod tools;
