//! The same money to the same account, whatever else the request says (review-money-r5
//! F2b): a card payout by account without a country and the same payee by nickname (the
//! book fills the country and names) are two requests with two fingerprints, so the
//! journal's guard alone does not see a retry after a lost answer. Before a payout with a
//! new number is journaled, the journal's live and recent payouts of the same kind are
//! matched on the account, the amount and the currency; a match is held as a possible
//! duplicate (the operator confirms a second one, as for the journal's own guard).

use rust_decimal::Decimal;
use serde_json::Value;

use crate::desk::{Desk, lock};
use crate::error::{CoreError, CoreResult};
use crate::forms::PayoutOp;
use crate::journal::{Entry, JournalStore, Status, mask_request};
use paydesk_gateway::wire;

/// The members the journal keeps masked (`paydesk_gateway::redact::masked_json`).
const MASKED: &[&str] = &["cardNo", "clabe", "account", "socialSecurityNumber"];

fn amount_of(v: &Value) -> Option<Decimal> {
    match v.get("sourceAmount")? {
        Value::String(s) => s.trim().parse().ok(),
        Value::Number(n) => n.to_string().parse().ok(),
        _ => None,
    }
}

/// The account of `op` as the journal keeps it (masked), written as in the kept request's
/// text (a JSON string); none when it has none.
fn masked_account(op: &PayoutOp) -> CoreResult<Option<String>> {
    let (body, field) = match op {
        PayoutOp::Clabe(p) => (serde_json::to_value(p), "clabe"),
        PayoutOp::Card(p) => (serde_json::to_value(p), "cardNo"),
    };
    let body = body.map_err(|e| CoreError::internal(e.to_string()))?;
    Ok(mask_request(&body)
        .get(field)
        .filter(|v| v.as_str().is_some_and(|s| !s.trim().is_empty()))
        .map(Value::to_string))
}

impl Desk {
    /// Refuses ([`CoreError::Duplicate`]) a payout under a number new to the journal when
    /// a live payout, or one accepted within the duplicate window, of the same kind pays
    /// the same amount in the same currency to the same account, unless the operator
    /// confirmed a second one ([`Journal::allow_duplicate_once`]).
    pub(in crate::desk) fn same_payout_elsewhere(&self, op: &PayoutOp) -> CoreResult<()> {
        let no = op.mer_order_no();
        if lock(&self.allowed_duplicates).contains(no.trim()) {
            return Ok(());
        }
        let candidates = {
            let journal = self.store.journal();
            if journal.get_by_number(&self.profile.name, no)?.is_some() {
                // A retry of its own number: the journal replays it or refuses a mismatch.
                return Ok(());
            }
            self.money_candidates(&*journal, Some(op))?
        };
        let Some(earlier) = self.same_money(op, &candidates, |n| n == no)? else {
            return Ok(());
        };
        Err(CoreError::Duplicate {
            earlier_id: earlier.id,
            age_secs: (self.clock.now_ms() - earlier.created_at).max(0) / 1000,
            earlier_status: earlier.status.as_str().into(),
            earlier_mer_order_no: earlier.mer_order_no.clone(),
            summary: earlier.summary.clone(),
        })
    }

    /// The payouts a new one may repeat: every live one (however many and however old),
    /// and those accepted within the duplicate window, by the desk's clock, read in the
    /// query (review r6 R6-2: not the newest thousand, filtered after); with `op`, only
    /// those whose kept request holds its masked account.
    pub(in crate::desk) fn money_candidates(
        &self,
        journal: &dyn JournalStore,
        op: Option<&PayoutOp>,
    ) -> CoreResult<Vec<Entry>> {
        let account = op.map(masked_account).transpose()?.flatten();
        journal.live_or_recent(
            &self.profile.name,
            &crate::desk::money::funds::PAYOUTS,
            self.guard(false).window_ms,
            account.as_deref(),
        )
    }

    /// A confirmed second payout of the same money goes only beside earlier ones whose
    /// outcome is known (review r6 R6-5: a "send anyway" beside an unknown one is a blind
    /// resend). Each earlier one still unknown (or left sending) is looked up first: one
    /// that stays unknown refuses the confirmation, naming it (the person looks it up or
    /// resolves it, then confirms again); one found paid meanwhile is asked about again,
    /// as paid. Nothing to do without a confirmation.
    pub(in crate::desk) async fn earlier_known_before_a_second(
        &self,
        op: &PayoutOp,
    ) -> CoreResult<()> {
        let no = op.mer_order_no().trim();
        if !lock(&self.allowed_duplicates).contains(no) {
            return Ok(());
        }
        let unsettled: Vec<Entry> = {
            let journal = self.store.journal();
            if journal.get_by_number(&self.profile.name, no)?.is_some() {
                return Ok(());
            }
            let candidates = self.money_candidates(&*journal, Some(op))?;
            self.all_same_money(op, &candidates, |n| n == no)?
                .into_iter()
                .filter(|e| Status::UNSETTLED.contains(&e.status))
                .cloned()
                .collect()
        };
        self.earlier_known(unsettled).await
    }

    /// [`Desk::earlier_known_before_a_second`] for any confirmed second request under
    /// `mer_order_no` (a card move, a payin, a payout): the journal's unresolved entries
    /// of the same intent (`fingerprint`) under other numbers are looked up first.
    pub(in crate::desk) async fn earlier_intents_known(
        &self,
        fingerprint: &str,
        mer_order_no: &str,
    ) -> CoreResult<()> {
        let unsettled: Vec<Entry> = self
            .store
            .journal()
            .same_intents(&self.profile.name, fingerprint, self.guard(false).window_ms)?
            .into_iter()
            .filter(|e| e.mer_order_no != mer_order_no && Status::UNSETTLED.contains(&e.status))
            .collect();
        self.earlier_known(unsettled).await
    }

    /// Each of `unsettled` looked up: one still unknown refuses, naming it; one found
    /// accepted asks again ([`CoreError::Duplicate`], as accepted).
    async fn earlier_known(&self, unsettled: Vec<Entry>) -> CoreResult<()> {
        for earlier in unsettled {
            let now = self.journal().reconcile_entry(&earlier, true).await?;
            match now.status {
                Status::Unknown | Status::Sending => {
                    let earlier_no = now.mer_order_no;
                    return Err(CoreError::keyed(
                        "merOrderNo",
                        format!(
                            "a second request of the same money is not sent while the earlier one, {earlier_no}, is unknown: the gateway could not yet say whether it went through. Look it up or resolve it first (Attention), then confirm again; nothing was sent"
                        ),
                        "duplicateEarlierUnknown",
                        &[("orderNo", earlier_no)],
                    ));
                }
                Status::Accepted => {
                    return Err(CoreError::Duplicate {
                        earlier_id: now.id,
                        age_secs: (self.clock.now_ms() - now.created_at).max(0) / 1000,
                        earlier_status: now.status.as_str().into(),
                        earlier_mer_order_no: now.mer_order_no.clone(),
                        summary: now.summary.clone(),
                    });
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The first of `candidates` (numbers for which `skip` holds left out) that pays the
    /// same amount in the same currency to the same account as `op`, by the same kind
    /// of payout.
    pub(in crate::desk) fn same_money<'e>(
        &self,
        op: &PayoutOp,
        candidates: &'e [Entry],
        skip: impl Fn(&str) -> bool,
    ) -> CoreResult<Option<&'e Entry>> {
        Ok(self
            .all_same_money(op, candidates, skip)?
            .into_iter()
            .next())
    }

    /// Every one of `candidates` that [`Desk::same_money`] would answer, in their order.
    fn all_same_money<'e>(
        &self,
        op: &PayoutOp,
        candidates: &'e [Entry],
        skip: impl Fn(&str) -> bool,
    ) -> CoreResult<Vec<&'e Entry>> {
        let (operation, body, account_field) = match op {
            PayoutOp::Clabe(p) => ("v2.payout", serde_json::to_value(p), "clabe"),
            PayoutOp::Card(p) => ("v1.payout", serde_json::to_value(p), "cardNo"),
        };
        let body = body.map_err(|e| CoreError::internal(e.to_string()))?;
        let masked = mask_request(&body);
        let (currency, amount) = op.money();
        Ok(candidates
            .iter()
            .filter(|e| {
                e.operation.name() == operation
                    && !skip(&e.mer_order_no)
                    && e.request
                        .get("currencyCode")
                        .and_then(Value::as_str)
                        .is_some_and(|c| c.trim().eq_ignore_ascii_case(currency))
                    && amount_of(&e.request) == Some(amount)
                    && e.request.get(account_field) == masked.get(account_field)
                    && self.same_account(e, op, &body, &masked)
            })
            .collect())
    }

    /// Whether `e` (whose masked account matches) was made to this very account: its
    /// request, each masked member restored from this one's, has `e`'s own fingerprint.
    /// A member masked in `e` that this request cannot restore (it carries another, or
    /// none) leaves it unproven: a possible duplicate is asked about, not let through.
    fn same_account(&self, e: &Entry, op: &PayoutOp, body: &Value, masked: &Value) -> bool {
        let (Some(kept), Some(full), Some(masked)) =
            (e.request.as_object(), body.as_object(), masked.as_object())
        else {
            return true;
        };
        let mut restored = kept.clone();
        for (k, shown) in kept {
            match full.get(k) {
                Some(v) if masked.get(k) == Some(shown) => {
                    restored.insert(k.clone(), v.clone());
                }
                // Masked in `e`, and this request carries another or none: unproven.
                _ if MASKED.contains(&k.as_str())
                    && shown.as_str().is_some_and(|s| !s.is_empty()) =>
                {
                    return true;
                }
                _ => {}
            }
        }
        let restored = Value::Object(restored);
        let fp = match op {
            PayoutOp::Clabe(_) => serde_json::from_value::<wire::V2Payout>(restored)
                .ok()
                .and_then(|p| self.fingerprint_of(&p).ok()),
            PayoutOp::Card(_) => serde_json::from_value::<wire::V1CardPayout>(restored)
                .ok()
                .and_then(|p| self.fingerprint_of(&p).ok()),
        };
        match fp {
            Some(fp) => e.fingerprint.is_empty() || fp == e.fingerprint,
            None => true,
        }
    }
}
