//! The store's contract: what each table trait promises, as scenarios over the trait
//! alone (`&dyn JournalStore`, `&dyn AuditStore`), written from the rules' meaning
//! (`paydesk_model::journal::Status`: `LIVE`, `UNSETTLED`, `may_finish_as`; the audit
//! chain's), never from one backend's SQL. Every backend runs every scenario
//! (`tests/store_contract.rs`: a SQLite file and a scratch PostgreSQL server), so a
//! rule kept by one adapter and not the other fails here. What a backend does
//! differently by design is a fact it states ([`Facts`]), not a copy of the suite.
//!
//! Three contracts have one backend, by design, and run on it alone: the book of payees
//! (`beneficiaries`: [`BeneficiaryStore`], a desk's own; a team's book is the team's
//! tables') and a desk's audit log set aside (`audit::Archive`: a team's log is the
//! team's database's, never set aside by one desk) on the SQLite file; the team's
//! tables (`team`: [`TeamDb`], [`TeamStore`]) on the PostgreSQL database (a desk's file
//! has no team).
//!
//! [`BeneficiaryStore`]: paydesk_store::beneficiaries::BeneficiaryStore
//! [`TeamDb`]: paydesk_store::team::TeamDb
//! [`TeamStore`]: paydesk_store::team::TeamStore
//!
//! This module is the store crate's contract suite (`paydesk-store`'s tests, beside the
//! traits it holds to), run on each backend crate's adapters.

#![allow(dead_code, clippy::unwrap_used)]

pub mod audit;
pub mod balances;
pub mod beneficiaries;
pub mod cards;
pub mod journal;
pub mod notifications;
pub mod orders;
pub mod reversals;
pub mod reviews;
pub mod sync_state;
pub mod team;
pub mod views;

/// What a backend does differently by design, stated by its runner.
#[derive(Debug, Clone, Copy)]
pub struct Facts {
    /// The backend's name, in failure messages.
    pub name: &'static str,
    /// Whether every desk's entries are one journal whatever the desk's profile name
    /// (a team's database), or each profile its own (a desk's SQLite file).
    pub shared_by_profiles: bool,
    /// Whether the database seals the audit log itself (a team's), so an append leaves
    /// the keyring's anchor as it was; otherwise each append returns the anchor to keep.
    pub database_seals_audit: bool,
}
