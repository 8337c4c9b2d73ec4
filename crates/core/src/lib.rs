//! PayDesk's engine, with no Tauri in it: profiles, secrets in the OS keyring, the
//! SQLite cache and journal, the sync engine, the journal's reconcile, the chained audit
//! log, and the services the desktop app and the `paydesk` CLI are thin layers over
//! (statements, balance reconciliation, the overview and exports are `paydesk-reports`';
//! the team's workflow and the signer's worker are `paydesk-team`'s, over
//! [`team_member`], and the engine never depends on either). It
//! ships without its test double: which gateway a desk talks to (a profile's base URL,
//! or the built-in sandbox that `paydesk-session` runs) is the caller's [`Endpoint`].

pub mod alerts;
pub mod answers;
pub mod beneficiaries;
pub mod bulk;
pub mod clock;
pub mod desk;
pub mod endpoint;
/// The engine's error is the store's (`paydesk-store`, below every backend); kept at this path.
pub use paydesk_store::error;
pub mod events;
pub mod forms;
pub mod held;
pub mod input;
pub mod limits;
pub mod lookup;
pub mod output;
pub mod period;
pub use paydesk_store::private_fs;
pub mod profile;
pub mod purpose;
pub mod review;
pub mod review_match;
pub mod schedule;
pub mod secrets;
pub mod store;
pub mod sync;
pub mod team_member;
pub mod views;

pub use desk::{
    Attention, AttentionAction, CardOperation, CardSummary, Desk, ReviewRequest, ReviewSubmission,
    Submitted, new_mer_order_no,
};
pub use endpoint::{CardBalance, Delivery, Endpoint, SandboxControl};
pub use error::{CoreError, CoreResult};
pub use profile::{Home, Profile};
pub use secrets::{KeyringStore, MemoryStore, SecretStore, Secrets};
/// The journal and the audit log are tables of the store; their types keep these paths.
pub use store::{audit, journal};

/// The keyring service name every PayDesk secret is stored under.
pub const KEYRING_SERVICE: &str = "PayDesk";

#[cfg(test)]
mod tests {
    /// The desktop app keeps one `Desk` in its managed state, shared across threads.
    #[test]
    fn the_desk_can_be_shared_across_threads() {
        fn shared<T: Send + Sync + 'static>() {}
        shared::<crate::Desk>();
        shared::<crate::Secrets>();
    }
}
