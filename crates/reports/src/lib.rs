//! PayDesk's reports over a desk's cache, apart from the engine so that the writers
//! (XLSX, PDF and its fonts) are compiled and linked only by what reports: the statement
//! of a period and its files ([`statement`]), the balance's reconciliation
//! ([`reconcile`]), the manager's overview of every profile ([`overview`]), the orders'
//! export ([`export`]) and a bulk look-up's table ([`lookup`]); [`DeskReports`] makes
//! them a desk's methods. The engine (`paydesk-core`) never depends on this crate
//! (`crates/core/tests/layers.rs`).

pub mod desk;
pub mod export;
pub mod failures;
pub mod lookup;
pub mod overview;
pub mod purposes;
pub mod reconcile;
pub mod schedule;
pub mod statement;

pub use desk::DeskReports;

// The engine's modules these files name as `crate::...` (they moved here from it).
use paydesk_core::{error, output, profile, secrets, store};
