//! The team's PostgreSQL database as the engine's [`TeamDb`] and [`TeamStore`]
//! (`store/team.rs`): each call the table handle's own.

use std::any::Any;
use std::time::Duration;

use paydesk_model::audit::{Anchor, ChainCheck};

use super::PgLink;
use super::audit::PgAudit;
use super::team::TeamTables;
use paydesk_store::error::CoreResult;
use paydesk_store::team::{
    Member, NewRequest, Notice, PayeeRecord, Request, RequestRow, RequestState, RowState, Rule,
    TeamDb, TeamRole, TeamStore,
};

impl TeamDb for PgLink {
    fn tables(&self) -> Box<dyn TeamStore + '_> {
        Box::new(TeamTables::on(self))
    }

    fn check_chain_from(
        &self,
        anchor: Option<&Anchor>,
    ) -> CoreResult<(ChainCheck, Option<Anchor>)> {
        PgAudit::on(self).check_from(anchor)
    }

    fn listen(&self, channel: &str) -> CoreResult<()> {
        PgLink::listen(self, channel)
    }

    fn wait_notice(&self, timeout: Duration) -> Option<Notice> {
        PgLink::wait_notice(self, timeout)
    }

    fn is_closed(&self) -> bool {
        PgLink::is_closed(self)
    }

    fn user(&self) -> &str {
        PgLink::user(self)
    }

    fn schema_version(&self) -> CoreResult<i32> {
        super::team_schema_version(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The PostgreSQL link under a team connection, for the backend's own tests and tools
/// (`team.link().pg()`).
pub trait AsPgLink {
    /// The link; panics on a connection of another backend (there is none today).
    fn pg(&self) -> &PgLink;
}

impl AsPgLink for dyn TeamDb {
    #[allow(clippy::expect_used)]
    fn pg(&self) -> &PgLink {
        self.as_any()
            .downcast_ref::<PgLink>()
            .expect("a team connection on PostgreSQL")
    }
}

impl TeamStore for TeamTables<'_> {
    fn settings(&self) -> CoreResult<(i64, i32, String)> {
        TeamTables::settings(self)
    }

    fn me(&self) -> CoreResult<Member> {
        TeamTables::me(self)
    }

    fn members(&self) -> CoreResult<Vec<Member>> {
        TeamTables::members(self)
    }

    fn add_member(&self, name: &str, role: TeamRole, verifier: &str) -> CoreResult<String> {
        TeamTables::add_member(self, name, role, verifier)
    }

    fn set_member_roles(&self, name: &str, roles: &[TeamRole]) -> CoreResult<String> {
        TeamTables::set_member_roles(self, name, roles)
    }

    fn reset_member_password(&self, name: &str, verifier: &str) -> CoreResult<()> {
        TeamTables::reset_member_password(self, name, verifier)
    }

    fn set_default_approvals(&self, approvals: i32) -> CoreResult<()> {
        TeamTables::set_default_approvals(self, approvals)
    }

    fn default_approvals(&self) -> CoreResult<i32> {
        TeamTables::default_approvals(self)
    }

    fn remove_member(&self, name: &str) -> CoreResult<()> {
        TeamTables::remove_member(self, name)
    }

    fn rules(&self) -> CoreResult<Vec<Rule>> {
        TeamTables::rules(self)
    }

    fn set_rule(
        &self,
        operation: &str,
        currency: &str,
        above: &str,
        approvals: i32,
    ) -> CoreResult<i64> {
        TeamTables::set_rule(self, operation, currency, above, approvals)
    }

    fn remove_rule(&self, id: i64) -> CoreResult<bool> {
        TeamTables::remove_rule(self, id)
    }

    fn approvals_needed(&self, operation: &str, currency: &str, total: &str) -> CoreResult<i32> {
        TeamTables::approvals_needed(self, operation, currency, total)
    }

    fn make(&self, new: &NewRequest<'_>) -> CoreResult<Request> {
        TeamTables::make(self, new)
    }

    fn requests(&self, states: &[RequestState], limit: i64) -> CoreResult<Vec<Request>> {
        TeamTables::requests(self, states, limit)
    }

    fn request(&self, id: i64) -> CoreResult<Option<Request>> {
        TeamTables::request(self, id)
    }

    fn rows(&self, id: i64) -> CoreResult<Vec<RequestRow>> {
        TeamTables::rows(self, id)
    }

    fn rows_with_forms(&self, id: i64) -> CoreResult<Vec<RequestRow>> {
        TeamTables::rows_with_forms(self, id)
    }

    fn decide(&self, id: i64, approve: bool, reason: Option<&str>) -> CoreResult<Request> {
        TeamTables::decide(self, id, approve, reason)
    }

    fn number_requested(&self, no: &str) -> CoreResult<bool> {
        TeamTables::number_requested(self, no)
    }

    fn seal_key(&self) -> CoreResult<Option<Vec<u8>>> {
        TeamTables::seal_key(self)
    }

    fn publish_seal_key(&self, spki: &[u8]) -> CoreResult<()> {
        TeamTables::publish_seal_key(self, spki)
    }

    fn end_stalls(&self) -> CoreResult<i32> {
        TeamTables::end_stalls(self)
    }

    fn claim_next(&self, retry_after_secs: i32) -> CoreResult<Option<Request>> {
        TeamTables::claim_next(self, retry_after_secs)
    }

    fn row_outcome(
        &self,
        id: i64,
        row_no: i32,
        state: RowState,
        trade_no: Option<&str>,
        message: Option<&str>,
    ) -> CoreResult<()> {
        TeamTables::row_outcome(self, id, row_no, state, trade_no, message)
    }

    fn row_outcomes(&self, id: i64, rows: &[paydesk_store::team::RowOutcome]) -> CoreResult<()> {
        TeamTables::row_outcomes(self, id, rows)
    }

    fn finish(&self, id: i64, done: bool, outcome: &str) -> CoreResult<()> {
        TeamTables::finish(self, id, done, outcome)
    }
    fn member_limits(&self) -> CoreResult<Vec<paydesk_store::team::MemberLimit>> {
        TeamTables::member_limits(self)
    }

    fn set_member_limit(
        &self,
        member: &str,
        currency: &str,
        per_payout: Option<&str>,
        per_day: Option<&str>,
        day_zone: &str,
    ) -> CoreResult<()> {
        TeamTables::set_member_limit(self, member, currency, per_payout, per_day, day_zone)
    }

    fn payees(&self, mer_no: i64) -> CoreResult<Vec<PayeeRecord>> {
        TeamTables::payees(self, mer_no)
    }

    fn add_payee(&self, mer_no: i64, payee: &PayeeRecord, sealed: &str) -> CoreResult<()> {
        TeamTables::add_payee(self, mer_no, payee, sealed)
    }

    fn approve_payee(&self, mer_no: i64, id: i64, sealed_sha256: &str) -> CoreResult<()> {
        TeamTables::approve_payee(self, mer_no, id, sealed_sha256)
    }

    fn remove_payee(&self, mer_no: i64, nickname: &str) -> CoreResult<bool> {
        TeamTables::remove_payee(self, mer_no, nickname)
    }

    fn payee_approval(&self) -> CoreResult<bool> {
        TeamTables::payee_approval(self)
    }

    fn set_payee_approval(&self, on: bool) -> CoreResult<()> {
        TeamTables::set_payee_approval(self, on)
    }

    fn payee_sealed_account(&self, mer_no: i64, nickname: &str) -> CoreResult<Option<String>> {
        TeamTables::payee_sealed_account(self, mer_no, nickname)
    }

    fn payee_to_pay(
        &self,
        mer_no: i64,
        nickname: &str,
    ) -> CoreResult<Option<paydesk_store::team::PayeeRef>> {
        TeamTables::payee_to_pay(self, mer_no, nickname)
    }

    fn payee_by_id(
        &self,
        mer_no: i64,
        id: i64,
    ) -> CoreResult<Option<(paydesk_store::team::PayeeRef, String)>> {
        TeamTables::payee_by_id(self, mer_no, id)
    }

    fn my_payout_limit(
        &self,
        currency: &str,
    ) -> CoreResult<Option<paydesk_store::team::MyPayoutLimit>> {
        TeamTables::my_payout_limit(self, currency)
    }

    fn worker_beat(&self, starting: bool, stopping: bool) -> CoreResult<()> {
        TeamTables::worker_beat(self, starting, stopping)
    }

    fn worker_beats(&self) -> CoreResult<Vec<paydesk_store::team::WorkerBeat>> {
        TeamTables::worker_beats(self)
    }
}
