//! PayDesk's backend-neutral types: what the store's tables hold and take, with no I/O
//! and no database driver in them, so that the engine, the reports and every store
//! backend (SQLite, PostgreSQL) speak the same types. The engine keeps them at their
//! old paths too (`paydesk_core::store::orders::CachedOrder` is
//! [`orders::CachedOrder`]).

pub mod audit;
pub mod balances;
pub mod beneficiaries;
pub mod cards;
pub mod filter;
pub mod journal;
pub mod notifications;
pub mod orders;
pub mod purpose;
pub mod reversals;
pub mod reviews;
pub mod sync_state;
pub mod views;
