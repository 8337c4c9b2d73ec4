//! PayDesk's store, backend-neutral: one trait per table (`JournalStore`, `OrderStore`,
//! `AuditStore`, ...) taking and returning the model's types, the team's tables as the
//! engine sees them ([`team`]), the one rendering rule of the order filter's predicates
//! both SQL dialects share ([`dialect`]), and the engine's error ([`error`]). No database
//! driver: each backend is a crate of its own (`paydesk-store-sqlite`,
//! `paydesk-store-pg`) implementing these traits, and `crates/core/tests/layers.rs`
//! holds that this crate depends on neither.

pub mod audit;
pub mod balances;
pub mod beneficiaries;
pub mod cards;
pub mod dialect;
pub mod error;
pub mod journal;
pub mod notifications;
pub mod now;
pub mod orders;
pub mod private_fs;
pub mod reversals;
pub mod reviews;
pub mod sync_state;
pub mod team;
pub mod views;

pub use error::{CoreError, CoreResult};
pub use now::Now;

/// The table traits, for code that uses a table handle directly (tests, benchmarks).
pub mod prelude {
    pub use super::audit::AuditStore;
    pub use super::balances::BalanceStore;
    pub use super::beneficiaries::BeneficiaryStore;
    pub use super::cards::CardStore;
    pub use super::journal::JournalStore;
    pub use super::notifications::NotificationStore;
    pub use super::orders::OrderStore;
    pub use super::reversals::ReversalStore;
    pub use super::reviews::ReviewStore;
    pub use super::sync_state::SyncStateStore;
    pub use super::views::ViewStore;
}

/// The cache's tables on one transaction: what a backend's `cache_read` and
/// `cache_atomic` hand their closure.
#[allow(missing_debug_implementations)]
pub struct CacheTx<'a> {
    pub orders: &'a dyn orders::OrderStore,
    pub sync_state: &'a dyn sync_state::SyncStateStore,
    pub balances: &'a dyn balances::BalanceStore,
    pub reviews: &'a dyn reviews::ReviewStore,
}

/// The system's clock in UTC milliseconds (what a store writes when the engine's
/// clock does not say).
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}
