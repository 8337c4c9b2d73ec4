//! The team's tables as the engine sees them: [`TeamDb`] (a member's connection to the
//! team: its tables, its audit chain's check, the database's notifications) and
//! [`TeamStore`] (requests, decisions, rules, members, the signer's claims), opened by
//! `paydesk_core::store::team::connect`. The engine (`paydesk_core::team_member`, the
//! desk) and the team's workflow (`paydesk-team`) speak to these traits only; the team's PostgreSQL database implements them
//! (`paydesk-store-pg`, `team_db.rs`), and `crates/core/tests/layers.rs` holds that
//! nothing above the store names it.
//!
//! The types the tables take and return are the team's records, backend-neutral
//! (`team/records.rs`).

use std::any::Any;
use std::time::Duration;

use paydesk_model::audit::{Anchor, ChainCheck};

use crate::error::CoreResult;

mod records;
pub use records::PgConfig as TeamConfig;
pub use records::{
    Decision, Member, MemberLimit, NewRequest, NewRow, Notice, PgConfig, Request, RequestRow,
    RequestState, RowState, Rule, TeamRole, USER_NAME_RULE, valid_user_name,
};

/// A member's connection to the team's database. Shared (`Arc`) between the desk, its
/// team handle and the signer's loop.
pub trait TeamDb: Send + Sync + std::fmt::Debug {
    /// The team's tables on this connection.
    fn tables(&self) -> Box<dyn TeamStore + '_>;
    /// The team's audit chain checked from `anchor` (the head this desk last verified;
    /// the whole chain without one) to its end; with the anchor to keep when it holds.
    fn check_chain_from(&self, anchor: Option<&Anchor>)
    -> CoreResult<(ChainCheck, Option<Anchor>)>;
    /// Asks the database to tell this connection of events on `channel`.
    fn listen(&self, channel: &str) -> CoreResult<()>;
    /// The next event of a channel listened to, waiting up to `timeout` (blocks).
    fn wait_notice(&self, timeout: Duration) -> Option<Notice>;
    /// Whether the connection was lost (it does not reconnect by itself).
    fn is_closed(&self) -> bool;
    /// The member this connection is (the database user).
    fn user(&self) -> &str;
    /// The version of the team's schema in the database (0: no team in it).
    fn schema_version(&self) -> CoreResult<i32>;
    /// The backend's own handle, for the backend's own tests and tools.
    fn as_any(&self) -> &dyn Any;
}

/// The team's tables. Every call runs as the member: what their roles may not do, the
/// database refuses, as a validation error naming the team's rule.
pub trait TeamStore: Send + Sync {
    /// The team's merchant, idle lock (minutes) and the salt of its intent keys.
    fn settings(&self) -> CoreResult<(i64, i32, String)>;
    fn me(&self) -> CoreResult<Member>;
    fn members(&self) -> CoreResult<Vec<Member>>;
    fn add_member(&self, name: &str, role: TeamRole, verifier: &str) -> CoreResult<String>;
    fn set_member_roles(&self, name: &str, roles: &[TeamRole]) -> CoreResult<String>;
    fn reset_member_password(&self, name: &str, verifier: &str) -> CoreResult<()>;
    fn set_default_approvals(&self, approvals: i32) -> CoreResult<()>;
    fn default_approvals(&self) -> CoreResult<i32>;
    fn remove_member(&self, name: &str) -> CoreResult<()>;
    fn rules(&self) -> CoreResult<Vec<Rule>>;
    fn set_rule(
        &self,
        operation: &str,
        currency: &str,
        above: &str,
        approvals: i32,
    ) -> CoreResult<i64>;
    fn remove_rule(&self, id: i64) -> CoreResult<bool>;
    fn approvals_needed(&self, operation: &str, currency: &str, total: &str) -> CoreResult<i32>;
    fn make(&self, new: &NewRequest<'_>) -> CoreResult<Request>;
    fn requests(&self, states: &[RequestState], limit: i64) -> CoreResult<Vec<Request>>;
    fn request(&self, id: i64) -> CoreResult<Option<Request>>;
    fn rows(&self, id: i64) -> CoreResult<Vec<RequestRow>>;
    fn rows_with_forms(&self, id: i64) -> CoreResult<Vec<RequestRow>>;
    fn decide(&self, id: i64, approve: bool, reason: Option<&str>) -> CoreResult<Request>;
    fn number_requested(&self, no: &str) -> CoreResult<bool>;
    fn seal_key(&self) -> CoreResult<Option<Vec<u8>>>;
    fn publish_seal_key(&self, spki: &[u8]) -> CoreResult<()>;
    fn end_stalls(&self) -> CoreResult<i32>;
    fn claim_next(&self, retry_after_secs: i32) -> CoreResult<Option<Request>>;
    fn row_outcome(
        &self,
        id: i64,
        row_no: i32,
        state: RowState,
        trade_no: Option<&str>,
        message: Option<&str>,
    ) -> CoreResult<()>;
    /// The outcomes of several rows of request `id` (row, state, trade number, message),
    /// in one statement where the backend can (a signer's worker records a group at once).
    fn row_outcomes(&self, id: i64, rows: &[RowOutcome]) -> CoreResult<()> {
        for (row_no, state, trade_no, message) in rows {
            self.row_outcome(id, *row_no, *state, trade_no.as_deref(), message.as_deref())?;
        }
        Ok(())
    }
    fn finish(&self, id: i64, done: bool, outcome: &str) -> CoreResult<()>;
    /// Every member's payout limits (issue 35, schema 0025).
    fn member_limits(&self) -> CoreResult<Vec<MemberLimit>>;
    /// Sets (both `None`: clears) a member's limits in a currency (an admin's; audited).
    fn set_member_limit(
        &self,
        member: &str,
        currency: &str,
        per_payout: Option<&str>,
        per_day: Option<&str>,
        day_zone: &str,
    ) -> CoreResult<()>;
    /// The team's book of payees (issue 35, schema 0024), by nickname.
    fn payees(&self, mer_no: i64) -> CoreResult<Vec<PayeeRecord>>;
    /// Adds a payee through the database's function (its account sealed to the signers).
    fn add_payee(&self, mer_no: i64, payee: &PayeeRecord, sealed: &str) -> CoreResult<()>;
    /// Approves a payee another member added: its row by id and the hash of its sealed
    /// account (review sql-r6 F1), refused when the row holds another.
    fn approve_payee(&self, mer_no: i64, id: i64, sealed_sha256: &str) -> CoreResult<()>;
    /// Removes a payee; false when the book has none of that nickname.
    fn remove_payee(&self, mer_no: i64, nickname: &str) -> CoreResult<bool>;
    /// Whether a new payee needs another member's approval.
    fn payee_approval(&self) -> CoreResult<bool>;
    /// Sets whether a new payee needs another member's approval (the database lets only
    /// an admin).
    fn set_payee_approval(&self, on: bool) -> CoreResult<()>;
    /// A payee's sealed account as the book holds it.
    fn payee_sealed_account(&self, mer_no: i64, nickname: &str) -> CoreResult<Option<String>>;
    /// A payee of the book by nickname with the hash of its seal, to pay it (schema 0029).
    fn payee_to_pay(&self, mer_no: i64, nickname: &str) -> CoreResult<Option<PayeeRef>>;
    /// A payee by id with its sealed account (a signer's read), to pay it.
    fn payee_by_id(&self, mer_no: i64, id: i64) -> CoreResult<Option<(PayeeRef, String)>>;
    /// The member's own payout limit in a currency and what today already counts.
    fn my_payout_limit(&self, currency: &str) -> CoreResult<Option<MyPayoutLimit>>;
    /// The signer's worker's heartbeat.
    fn worker_beat(&self, starting: bool, stopping: bool) -> CoreResult<()>;
    /// Every signer's worker's last heartbeat, the latest first.
    fn worker_beats(&self) -> CoreResult<Vec<WorkerBeat>>;
}

/// A payee of the team's book as a payout names it (schema 0029): its id and the
/// SHA-256 (hex) of its sealed account bind the request row to this very payee.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayeeRef {
    pub id: i64,
    pub nickname: String,
    /// `clabe` or `card`.
    pub kind: String,
    pub first_name: String,
    pub last_name: String,
    pub account_masked: String,
    pub bank: Option<String>,
    pub country: String,
    pub approved_by: Option<String>,
    pub sealed_sha256: String,
}

/// A member's own payout limit in a currency (decimal strings) and what the database
/// already counts against it today.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MyPayoutLimit {
    pub per_payout: Option<String>,
    pub per_day: Option<String>,
    pub day_zone: String,
    pub used_today: String,
}

/// A signer's worker's last heartbeat (UTC ms, the database's clock).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerBeat {
    pub signer: String,
    pub started_at: i64,
    pub seen_at: i64,
    /// When it was stopped on purpose; `None` while it runs (or died).
    pub stopped_at: Option<i64>,
    /// How long ago it was seen, in milliseconds, on the database's clock (review r6 R6-7:
    /// a member's desk whose clock is off neither raises nor hides the alert).
    pub age_ms: i64,
}

/// A row's outcome as a signer's worker records it: row number, state, trade number,
/// message.
pub type RowOutcome = (i32, RowState, Option<String>, Option<String>);

/// A payee of the team's book as its table holds it (the account masked; its sealed
/// form is read apart, by [`TeamStore::payee_sealed_account`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayeeRecord {
    pub nickname: String,
    /// `clabe` or `card`.
    pub kind: String,
    pub first_name: String,
    pub last_name: String,
    pub account_masked: String,
    pub bank: Option<String>,
    pub country: String,
    /// Milliseconds since the epoch (0 when adding).
    pub added_at: i64,
    pub added_by: String,
    /// None while it waits for another member's approval.
    pub approved_by: Option<String>,
    /// The book's row (0 when adding).
    pub id: i64,
    /// Hex SHA-256 of the sealed account's text (empty when adding).
    pub sealed_sha256: String,
}
