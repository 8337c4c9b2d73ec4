//! The journal's entries as the service hands them out: read, reconciled with the
//! gateway, resolved by a person; a deliberate second request allowed once; the desk's
//! own audit events; on a team desk, the check of the team's audit chain.

use crate::desk::{check_team_chain, lock};
use crate::error::{CoreError, CoreResult};
use crate::journal::{self, Entry, Status};
use std::time::Instant;

impl<'d> crate::desk::Journal<'d> {
    /// On a team desk, why the team's audit chain failed this desk's check when it
    /// connected (rewritten or cut history); `None` when it held.
    pub fn team_chain_problem(&self) -> Option<&'d str> {
        self.desk.team_chain_problem.get().map(String::as_str)
    }

    /// On a team desk, checks the team's audit chain again from this desk's keyring
    /// anchor to its head, and moves the anchor to that head when it holds: so history
    /// cut or rewritten after this desk connected is seen at its next own step or worker
    /// round, not only at its next connect. Returns the problem, if any (kept for the
    /// desk's life); `Ok(None)` on a single desk.
    pub fn recheck_team_chain(&self) -> CoreResult<Option<&'d str>> {
        if let Some(link) = self.desk.store.team_db()
            && self.desk.team_chain_problem.get().is_none()
        {
            let anchor = self.desk.secrets.audit_anchor(&self.desk.profile.name)?;
            if let Some(why) = check_team_chain(
                &self.desk.secrets,
                &self.desk.profile.name,
                link.as_ref(),
                anchor.as_ref(),
            )? {
                let _ = self.desk.team_chain_problem.set(why);
            }
        }
        Ok(self.team_chain_problem())
    }

    /// Records an event of the desk itself, not a gateway call (an unlock of its idle
    /// lock, refused or accepted), in its audit log.
    pub fn audit_event(&self, operation: &str, identifiers: String, result: &str) {
        self.desk
            .audit(operation, identifiers, result, Instant::now());
    }

    /// Lets the next submit of `mer_order_no` go ahead although the same intent is in
    /// the journal under another number: the operator confirmed a second, deliberate
    /// one. The override is written to the audit log when it is used.
    pub fn allow_duplicate_once(&self, mer_order_no: &str) {
        lock(&self.desk.allowed_duplicates).insert(mer_order_no.trim().to_string());
    }

    /// A `rejected` entry whose refusal the caller did not see the gateway give (a
    /// signer's worker finding a row's entry refused when it takes the row up, or after a
    /// call that ended otherwise: a member may have marked an entry refused by hand while
    /// it was out, review r8 R8-8), looked up at the gateway. Returns the entry now
    /// (accepted when the gateway lists the order, a refused entry's one way on) and
    /// `Some(true)` when the gateway's list proves it refused (not listed, and the
    /// profile's not-found grace since it left is over), `Some(false)` when nothing
    /// proves it yet, `None` when the gateway cannot be asked about it. Nothing is sent.
    pub async fn recheck_refused(self, e: &Entry) -> CoreResult<(Entry, Option<bool>)> {
        self.desk
            .recheck_refused_unseen(e)
            .await
            .map(|(e, proven)| (self.desk.as_seen(e), proven))
    }

    /// Looks an entry up at the gateway (order list by `merOrderNos`), under a claim in
    /// the database so that two processes never look up or send one entry at once.
    /// Found means accepted. Not found means "not found yet" until the profile's grace
    /// period since the request left has passed and enough lookups were made; only
    /// then is it pending (safe to send again, with the same `merOrderNo`). A failed
    /// lookup puts the next one off with backoff. Not due yet (`force` false): as is.
    pub async fn reconcile_entry(self, e: &Entry, force: bool) -> CoreResult<Entry> {
        self.desk
            .reconcile_entry_unseen(e, force)
            .await
            .map(|e| self.desk.as_seen(e))
    }

    /// Reconciles every unknown outcome that is due (at every start), or every one
    /// now (`force`: an operator asked).
    pub async fn reconcile_all(self, force: bool) -> CoreResult<Vec<Entry>> {
        if !self.desk.holds_key() {
            // A team desk without the key: the team's signer reconciles the journal.
            return Ok(Vec::new());
        }
        let pending = self
            .desk
            .store
            .journal()
            .unresolved(&self.desk.profile.name)?;
        let mut out = Vec::new();
        for e in pending {
            out.push(self.reconcile_entry(&e, force).await?);
        }
        Ok(out)
    }

    /// An operator's resolution of an outcome the gateway cannot be asked about (a card
    /// withdrawal, a review submission): `done` marks it accepted, otherwise it becomes
    /// pending, to be sent again with the same reference. The reason is kept on the
    /// entry and in the audit log.
    pub fn resolve_entry(&self, id: i64, done: bool, reason: &str) -> CoreResult<Entry> {
        let reason = reason.trim();
        if reason.chars().count() < 3 {
            return Err(CoreError::keyed(
                "reason",
                "say why (at least 3 characters): what you checked",
                "resolveReason",
                &[],
            ));
        }
        let e = self.entry(id)?;
        if !matches!(e.status, Status::Unknown | Status::Sending) {
            return Err(CoreError::keyed(
                "id",
                format!(
                    "journal #{id} is {}, not unknown: nothing to resolve",
                    e.status.as_str()
                ),
                "resolveNotUnknown",
                &[
                    ("id", id.to_string()),
                    ("status", e.status.as_str().to_string()),
                ],
            ));
        }
        if self.desk.listable(&e) {
            return Err(CoreError::keyed(
                "id",
                format!(
                    "journal #{id} ({}) can be looked up at the gateway: reconcile it instead",
                    e.operation
                ),
                "resolveLookUp",
                &[("id", id.to_string())],
            ));
        }
        let Some((_, claim)) = self.desk.store.journal().claim(id)? else {
            return Err(CoreError::keyed(
                "id",
                format!(
                    "journal #{id} is being sent or looked up right now: try again in a moment"
                ),
                "resolveBusy",
                &[("id", id.to_string())],
            ));
        };
        let note = format!(
            "{} by {}: {reason}",
            if done { "marked done" } else { "to send again" },
            self.desk.profile.operator
        );
        self.desk.store.journal().resolve(id, &claim, done, &note)?;
        self.desk.audit(
            "journal_resolve",
            format!("id={id} merOrderNo={}", e.mer_order_no),
            if done { "done" } else { "retry" },
            Instant::now(),
        );
        self.entry(id)
    }

    pub fn entries(&self, statuses: &[Status], limit: i64) -> CoreResult<Vec<Entry>> {
        Ok(self
            .desk
            .store
            .journal()
            .list(&self.desk.profile.name, statuses, &[], limit)?
            .into_iter()
            .map(|e| self.desk.as_seen(e))
            .collect())
    }

    /// The newest entries of these operations (e.g. `v2.payout`), whatever their status.
    pub fn entries_of(
        &self,
        operations: &[journal::JournalOperation],
        limit: i64,
    ) -> CoreResult<Vec<Entry>> {
        let names: Vec<&str> = operations.iter().map(|o| o.name()).collect();
        Ok(self
            .desk
            .store
            .journal()
            .list(&self.desk.profile.name, &[], &names, limit)?
            .into_iter()
            .map(|e| self.desk.as_seen(e))
            .collect())
    }

    /// The entry of an operation under its key (order number or reference), if any.
    pub fn entry_by_key(&self, operation: &str, key: &str) -> CoreResult<Option<Entry>> {
        self.desk
            .store
            .journal()
            .get_by_key(&self.desk.profile.name, operation, key.trim())
    }

    /// The journal's entry under this merchant order number for an order of `kind`:
    /// once it exists, a failure is an unknown outcome, never final (the signer's
    /// worker asks it of each row it takes up).
    pub fn entry_numbered(
        &self,
        mer_order_no: &str,
        kind: crate::store::orders::OrderKind,
    ) -> CoreResult<Option<Entry>> {
        self.desk.journal_entry_numbered(mer_order_no, kind)
    }

    /// The entry under a merchant order number (or reference), whatever its operation.
    pub fn entry_by_number(&self, key: &str) -> CoreResult<Option<Entry>> {
        self.desk
            .store
            .journal()
            .get_by_number(&self.desk.profile.name, key.trim())
    }

    pub fn entry(&self, id: i64) -> CoreResult<Entry> {
        self.desk
            .store
            .journal()
            .get(id)?
            .map(|e| self.desk.as_seen(e))
            .ok_or_else(|| CoreError::not_found(format!("no journal entry {id}")))
    }
}
