//! Money through the journal: payins, payouts, cards, review submissions.

use paydesk_gateway::wire::{self, MerNo, Operation};

use serde::{Deserialize, Serialize};

use crate::bulk;
use crate::desk::{Desk, Submitted, TradeNo};
use crate::error::{CoreError, CoreResult};
use crate::forms::{
    BankDetails, CardForm, CardOp, Filler, PayinForm, PayinOp, PayoutForm, PayoutOp, PayoutPreview,
    Receipt,
};
use crate::journal::{self, Status};
use crate::store::cards::NewCardOperation;

use crate::store::reviews::Outcome as ReviewOutcome;

pub use crate::store::cards::CardOperation;
pub use crate::store::reviews::ReviewSubmission;

/// A card as the Cards screen lists it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardSummary {
    pub card: String,
    pub currency: String,
    /// Known on the built-in sandbox only (the interface shows no card query).
    pub holder: Option<String>,
    /// Known on the built-in sandbox only.
    pub balance: Option<String>,
    pub operations: u32,
    pub last_at: Option<i64>,
}

/// What a review submission sends, as kept for a resend: items and file paths.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewRequest {
    pub trade_no: String,
    /// (`infoType` code, content).
    pub info: Vec<(String, String)>,
    /// (`fileType` code, full path).
    pub files: Vec<(String, String)>,
}

/// A review's evidence as audit identifiers: the order, the reference, and each file as
/// `fileN=SIZE:TYPE:SHA256`, TYPE `png`, `jpg` or `pdf` (names stay in the journal:
/// they may hold spaces; kept short, as a team's log row holds 2,000 characters).
fn evidence_identifiers(
    trade_no: &str,
    reference: &str,
    evidence: &[crate::store::reviews::FileEvidence],
) -> String {
    let mut ids = format!("tradeNo={trade_no} reference={reference}");
    for (i, f) in evidence.iter().enumerate() {
        let kind = f.suffix.trim_start_matches('.');
        ids.push_str(&format!(" file{i}={}:{kind}:{}", f.size, f.sha256));
    }
    ids
}

/// The numbers CLABE bulk rows went under before names stopped counting in a row's
/// identity, by fingerprint: each is given to one row of a plan at most, oldest first.
#[derive(Default)]
struct FormerIdentities {
    /// The bulk row numbers (bases) of the journal's CLABE payouts with a fingerprint,
    /// oldest first; read by the fingerprint's index when a row first needs them.
    by_fingerprint: std::collections::HashMap<String, Vec<String>>,
    taken: std::collections::HashSet<String>,
}

/// A bulk row's base number (`B` and 20 hex digits) out of a journal number, which may
/// carry a chain's suffix (`-R2`, `-C1a2b3c4d`).
fn bulk_base(no: &str) -> Option<&str> {
    let base = no.split_once('-').map_or(no, |(b, _)| b);
    let digits = base.strip_prefix('B')?;
    (digits.len() == 20 && digits.bytes().all(|b| b.is_ascii_hexdigit())).then_some(base)
}

impl FormerIdentities {
    /// The oldest base under which the journal holds this CLABE payout, that is no
    /// number a row of this file has now (`own`) and no other row took.
    fn take(
        &mut self,
        desk: &Desk,
        fingerprint: &str,
        own: &std::collections::HashSet<String>,
    ) -> CoreResult<Option<String>> {
        if !self.by_fingerprint.contains_key(fingerprint) {
            let entries = desk.store.journal().with_fingerprint(
                &desk.profile.name,
                journal::JournalOperation::V2Payout.name(),
                fingerprint,
            )?;
            let mut bases: Vec<String> = Vec::new();
            for e in &entries {
                if let Some(base) = bulk_base(&e.mer_order_no)
                    && !bases.iter().any(|b| b == base)
                {
                    bases.push(base.to_string());
                }
            }
            self.by_fingerprint.insert(fingerprint.to_string(), bases);
        }
        let found = self
            .by_fingerprint
            .get(fingerprint)
            .and_then(|bases| {
                bases
                    .iter()
                    .find(|b| !own.contains(*b) && !self.taken.contains(*b))
            })
            .cloned();
        if let Some(b) = &found {
            self.taken.insert(b.clone());
        }
        Ok(found)
    }
}

impl Desk {
    /// A payin or payout through the journal; the order is cached at once with its
    /// method (the order list does not carry it).
    async fn order<O: Operation>(
        &self,
        op: &O,
        mer_order_no: &str,
        method: &str,
        summary: String,
    ) -> CoreResult<Submitted<O::Output>>
    where
        O::Output: TradeNo,
    {
        self.submit_order(op, mer_order_no, &summary, Some(method))
            .await
    }

    fn card_op(&self, op: NewCardOperation<'_>) -> CoreResult<()> {
        self.store.cards().add(op)
    }

    /// Refuses, before anything is read or sent, a review of an order the desk knows is
    /// not a bank transfer: review documents are for bank-transfer (SEPA) payins only. An
    /// order whose method the desk does not know (listed, not made here) goes to the
    /// gateway, which decides.
    fn reviewable(&self, trade_no: &str) -> CoreResult<()> {
        let Some(order) = self.store.orders().get(trade_no)? else {
            return Ok(());
        };
        let kind = order
            .kind
            .filter(|k| *k != crate::store::orders::OrderKind::Payin);
        let method = Some(order.method.as_str()).filter(|m| !m.is_empty() && *m != "SEPA");
        let what = match (kind, method) {
            (Some(k), _) => format!("a {}", k.label()),
            (None, Some(m)) => format!("a {m} payin"),
            (None, None) => return Ok(()),
        };
        Err(CoreError::keyed(
            "tradeNo",
            format!(
                "order {trade_no} is {what}: review documents are only for bank-transfer (SEPA) payins"
            ),
            "reviewNotSepa",
            &[("order", trade_no.to_string()), ("what", what.clone())],
        ))
    }

    /// The fee of one payout in `currency`, as the last cached payout in that currency
    /// shows it (the gateway states no fee before a payout is made), and the merchant
    /// order number of that payout. `None` when no such payout is cached.
    pub(in crate::desk) fn payout_fee_estimate(
        &self,
        currency: &str,
    ) -> Option<(rust_decimal::Decimal, String)> {
        let row = self.store.orders().last_payout_fee(currency).ok().flatten();
        let crate::store::orders::PayoutFee {
            handling_fee: fee,
            fixed_fee: fixed,
            mer_order_no: no,
        } = row?;
        let d = |v: Option<String>| {
            v.and_then(|s| s.parse::<rust_decimal::Decimal>().ok())
                .unwrap_or_default()
        };
        Some((d(fee) + d(fixed), no))
    }

    /// [`Desk::plan_rows`] with the rows beyond the balance or a limit held (issue 35).
    fn plan_rows_funded(
        &self,
        file: &bulk::BulkFile,
        include_held: bool,
    ) -> CoreResult<(Vec<bulk::Planned>, Vec<bulk::CurrencyFunds>)> {
        let mut planned = self.plan_rows(file, include_held)?;
        let funds = self.hold_beyond_funds(&mut planned)?;
        Ok((planned, funds))
    }

    /// A digest of the rows a plan sends: what the operator confirms.
    fn plan_digest(&self, planned: &[bulk::Planned]) -> String {
        let text: String = planned
            .iter()
            .filter(|p| p.action == bulk::RowAction::Send)
            .map(|p| {
                let (currency, amount) = p.payout.money();
                format!(
                    "{}|{}|{currency}|{}|{};",
                    p.line,
                    p.payout.mer_order_no(),
                    amount.normalize(),
                    p.fingerprint
                )
            })
            .collect();
        self.keyed(&format!("plan|{text}"), 16)
    }

    /// Each valid row with the number it goes (or went) under and what is done with it.
    /// `include_held`: rows held for a confirmation are sent (the operator confirmed).
    fn plan_rows(
        &self,
        file: &bulk::BulkFile,
        include_held: bool,
    ) -> CoreResult<Vec<bulk::Planned>> {
        // A row's base number: the one given, or `B` and a keyed digest of its content.
        let derive = |content: &str| format!("B{}", self.keyed(&format!("bulk|{content}"), 10));
        let known = |no: &str| -> CoreResult<bool> {
            Ok(self
                .store
                .journal()
                .get_by_number(&self.profile.name, no)?
                .is_some())
        };
        // Every number a row of this file could be known under (what it is now, and what
        // it was while a CLABE row's name still counted): a former identity found in the
        // journal is only ever one of these, or one no row of the file has.
        let mut own: std::collections::HashSet<String> = Default::default();
        for (line, _) in &file.rows {
            if let Some(content) = file.derived.get(line) {
                own.insert(derive(content));
            }
            if let Some(c) = file.derived_before_names_left.get(line) {
                own.insert(derive(c));
            }
        }
        let mut former = FormerIdentities::default();
        let mut bases: Vec<String> = Vec::with_capacity(file.rows.len());
        for (line, r) in &file.rows {
            bases.push(match file.derived.get(line) {
                Some(content) => {
                    let current = derive(content);
                    match file.derived_before_names_left.get(line).map(|c| derive(c)) {
                        // A CLABE row sent while its name still counted keeps that number.
                        Some(older) if known(&older)? => older,
                        // Sent before names stopped counting, under a name edited since:
                        // neither number can be made from the file any more, but the
                        // journal holds the payout (its fingerprint: a CLABE payout sends
                        // no name) under a row number no row of this file has.
                        Some(_) if !known(&current)? => match r {
                            PayoutOp::Clabe(p) => former
                                .take(self, &self.fingerprint_of(p)?, &own)?
                                .unwrap_or(current),
                            PayoutOp::Card(_) => current,
                        },
                        _ => current,
                    }
                }
                None => r.mer_order_no().to_string(),
            });
        }
        let ours = |no: &str| {
            bases.iter().any(|b| {
                no == b
                    || no
                        .strip_prefix(b.as_str())
                        .is_some_and(|r| r.starts_with('-'))
            })
        };
        let journal = self.store.journal();
        // The same money to the same account, whatever optional members differ (a card
        // row by account, then by nickname: review-money-r5 F2b).
        let money = self.money_candidates(&*journal, None)?;
        let window = i64::from(self.profile.safety.duplicate_window_hours) * 3_600_000;
        let now = self.clock.now_ms();
        let days = |e: &journal::Entry| (now - e.updated_at).max(0) / 86_400_000;
        let mut out = Vec::with_capacity(file.rows.len());
        for ((line, row), base) in file.rows.iter().zip(&bases) {
            let mut payout = row.clone();
            payout.set_mer_order_no(base);
            let fp = match &payout {
                PayoutOp::Clabe(p) => self.fingerprint_of(p)?,
                PayoutOp::Card(p) => self.fingerprint_of(p)?,
            };
            let mut planned = bulk::Planned {
                line: *line,
                payout,
                action: bulk::RowAction::Send,
                why: bulk::RowReason::New,
                earlier: None,
                fingerprint: fp.clone(),
            };
            let mut number = base.clone();
            let mut changed_from: Option<journal::Entry> = None;
            let mut paid_long_ago: Option<journal::Entry> = None;
            let mut found = None;
            // A number refused before, or paid longer ago than the profile's window (the
            // same payout again, e.g. next month's payroll), goes under the next of its
            // chain (`-R1`, `-R2`, ...): the same every run, so a crash never gives a row
            // two numbers.
            for k in 1..=50 {
                match journal.get_by_number(&self.profile.name, &number)? {
                    None => break,
                    Some(e) if e.status == Status::Rejected => {
                        number = format!("{base}-R{k}");
                    }
                    Some(e) if e.fingerprint.is_empty() || e.fingerprint == fp => {
                        if e.status == Status::Accepted && e.updated_at <= now - window {
                            number = format!("{base}-R{k}");
                            paid_long_ago = Some(e);
                        } else {
                            found = Some(e);
                            break;
                        }
                    }
                    Some(e) if changed_from.is_none() && include_held => {
                        // Changed since it was sent; confirmed: a number of its own.
                        number = format!("{base}-C{}", &fp[..8]);
                        changed_from = Some(e);
                    }
                    Some(e) => {
                        planned.action = bulk::RowAction::Held;
                        planned.why = bulk::RowReason::Changed {
                            earlier: e.mer_order_no.clone(),
                            status: e.status.as_str().into(),
                            confirmed_as: None,
                        };
                        planned.earlier = Some(e.mer_order_no);
                        break;
                    }
                }
            }
            if planned.action == bulk::RowAction::Held {
                out.push(planned);
                continue;
            }
            planned.payout.set_mer_order_no(&number);
            if let Some(e) = found {
                (planned.action, planned.why) = match e.status {
                    Status::Accepted => (
                        bulk::RowAction::Paid,
                        bulk::RowReason::PaidBefore {
                            earlier: e.mer_order_no.clone(),
                            trade_no: e.trade_no.clone(),
                        },
                    ),
                    Status::Pending => (bulk::RowAction::Send, bulk::RowReason::NotSentYet),
                    _ => (
                        bulk::RowAction::LookUp,
                        bulk::RowReason::LookUp {
                            earlier: e.mer_order_no.clone(),
                            message: e.message.clone().unwrap_or_default(),
                        },
                    ),
                };
                planned.earlier = Some(e.mer_order_no);
                out.push(planned);
                continue;
            }
            // A new number: held if it repeats a payout that is not this file's.
            let confirmed_as = include_held.then(|| number.clone());
            let repeats = if let Some(e) = changed_from {
                Some(bulk::RowReason::Changed {
                    earlier: e.mer_order_no,
                    status: e.status.as_str().into(),
                    confirmed_as,
                })
            } else if let Some(e) = paid_long_ago {
                Some(bulk::RowReason::PaidDaysAgo {
                    days: days(&e),
                    earlier: e.mer_order_no,
                    confirmed_as,
                })
            } else {
                let same = journal
                    .same_intents(&self.profile.name, &fp, window)?
                    .into_iter()
                    .find(|e| !ours(&e.mer_order_no));
                let same = match same {
                    Some(e) => Some(e),
                    None => self.same_money(&planned.payout, &money, ours)?.cloned(),
                };
                same.map(|e| bulk::RowReason::SameRecent {
                    minutes: (now - e.created_at).max(0) / 60_000,
                    status: e.status.as_str().into(),
                    earlier: e.mer_order_no,
                    confirmed_as,
                })
            };
            if let Some(mut why) = repeats {
                if !include_held || why.is_firm() {
                    planned.action = bulk::RowAction::Held;
                }
                if let bulk::RowReason::SameRecent { confirmed_as, .. } = &mut why
                    && planned.action == bulk::RowAction::Held
                {
                    *confirmed_as = None;
                }
                planned.earlier = match &why {
                    bulk::RowReason::Changed { earlier, .. }
                    | bulk::RowReason::PaidDaysAgo { earlier, .. }
                    | bulk::RowReason::SameRecent { earlier, .. } => Some(earlier.clone()),
                    _ => None,
                };
                planned.why = why;
            }
            out.push(planned);
        }
        Ok(out)
    }

    /// Builds a form's wire operation with this desk's merchant and notification URL.
    /// `form_notify` is the form's own `notifyUrl` (`None` for operations that carry
    /// none, such as card moves): it wins; without one, a profile that has none is
    /// refused with the reason before anything is written (never an invented address).
    fn fill<T>(
        &self,
        form_notify: Option<&str>,
        build: impl FnOnce(&Filler<'_>) -> CoreResult<T>,
    ) -> CoreResult<T> {
        let desk_url = self.records().notify_url();
        if let Some(own) = form_notify.map(str::trim).filter(|u| !u.is_empty()) {
            paydesk_gateway::validate::notify_url("notifyUrl", own)?;
        }
        if let (Some(own), Err(why)) = (form_notify, &desk_url)
            && own.trim().is_empty()
        {
            return Err(match why {
                CoreError::Validation { field, rule } => CoreError::validation(field, rule),
                other => CoreError::validation("notifyUrl", other.to_string()),
            });
        }
        build(&Filler {
            mer_no: self.profile.mer_no,
            notify_url: desk_url.as_deref().unwrap_or(""),
            requester_ip: &self.conventions.requester_ip,
        })
    }

    // The forms' entry points, one per operation for every front end: an error names
    // the field the operator filled in (the form's vocabulary), whatever layer found it;
    // a failure after the journal entry exists comes back as that entry's receipt (how
    // it stands, what happens next).

    async fn payin_in(&self, form: &PayinForm) -> CoreResult<Receipt> {
        let why = self.records().check_purpose(&form.purpose)?;
        Self::with_purpose(why, self.payin_why(form)).await
    }

    async fn payin_why(&self, form: &PayinForm) -> CoreResult<Receipt> {
        let op = self.fill(Some(&form.notify_url), |who| form.build(who))?;
        Ok(match op {
            PayinOp::V2(op) => {
                let s = self.money().payin_v2(op.common).await?;
                let mut r = Receipt::new(s.entry, s.replayed);
                shown_link(&mut r, s.data.map(|d| d.pay_url));
                r
            }
            PayinOp::V1(op) => {
                let s = self.money().payin_v1(op).await?;
                let mut r = Receipt::new(s.entry, s.replayed);
                if let Some(d) = s.data {
                    shown_link(&mut r, d.pay_url.clone());
                    if d.iban.is_some() || d.reference.is_some() {
                        r.bank = Some(BankDetails {
                            reference: d.reference.unwrap_or_default(),
                            iban: d.iban.unwrap_or_default(),
                            beneficiary: d.beneficial_name.unwrap_or_default(),
                            bank_name: d.bank_name.unwrap_or_default(),
                            bank_address: d.bank_address.unwrap_or_default(),
                            bic: d.bic.unwrap_or_default(),
                        });
                    }
                }
                r
            }
            PayinOp::VnBank(op) => {
                let s = self.money().payin_vn_bank(op).await?;
                let mut r = Receipt::new(s.entry, s.replayed);
                r.message = s.data.map(|d| d.message).filter(|m| !m.is_empty());
                r
            }
        })
    }

    /// Checks a payout form and answers with what the confirmation step shows; nothing
    /// is written or sent.
    fn payout_preview_in(&self, form: &PayoutForm) -> CoreResult<PayoutPreview> {
        let form = &*self.with_beneficiary(form)?;
        self.records().check_purpose(&form.purpose)?;
        let op = self.fill(Some(&form.notify_url), |who| form.build(who))?;
        // The wire's own checks, where this desk holds the key to sign with (a team
        // maker's desk previews what it will request; the signer's desk checks again).
        if let Some(client) = &self.client {
            match &op {
                PayoutOp::Card(p) => client.prepare(p).map(|_| ())?,
                PayoutOp::Clabe(p) => client.prepare(p).map(|_| ())?,
            }
        }
        let mut preview = op.preview();
        preview.payee = self.payee_of_payout(form, &op);
        let (currency, amount) = op.money();
        if let Some(over) = self.money().over_limit(currency, amount)? {
            return Err(over.error());
        }
        // A team maker's own limits, said at the confirmation (team_member.rs).
        if let Some(team) = self.team()? {
            team.check_my_limit(currency, &[&amount.to_string()])?;
        }
        if let Some((fee, from)) = self.payout_fee_estimate(currency) {
            preview.estimated_fee = Some(fee.to_string());
            preview.estimated_total = Some((amount + fee).to_string());
            preview.estimated_fee_from = Some(from);
        }
        Ok(preview)
    }

    /// A payout as filled in (and confirmed), through the journal.
    async fn payout_in(&self, form: &PayoutForm) -> CoreResult<Receipt> {
        let form = &*self.with_beneficiary_to_send(form)?;
        let why = self.records().check_purpose(&form.purpose)?;
        let op = self.fill(Some(&form.notify_url), |who| form.build(who))?;
        // The request's own rules (an amount above zero, ...) before the gateway is asked
        // anything, a balance included.
        match &op {
            PayoutOp::Card(p) => paydesk_gateway::wire::Operation::validate(p)?,
            PayoutOp::Clabe(p) => paydesk_gateway::wire::Operation::validate(p)?,
        }
        let (currency, amount) = op.money();
        self.check_before_journal(op.mer_order_no(), currency, amount)
            .await?;
        // The same money to the same account under another number, whatever optional
        // members the book filled (review-money-r5 F2b); after the limits and the
        // balance, as the journal's own guard.
        self.same_payout_elsewhere(&op)?;
        // Confirmed: a second one only beside earlier ones whose outcome is known (R6-5).
        self.earlier_known_before_a_second(&op).await?;
        let s = Self::with_purpose(why, async {
            match op {
                PayoutOp::Card(op) => self.money().payout_card(op).await,
                PayoutOp::Clabe(op) => self.money().payout_clabe(op).await,
            }
        })
        .await?;
        Ok(Receipt::new(s.entry, s.replayed))
    }

    /// A card top-up or withdraw as filled in, through the journal.
    async fn card_in(&self, form: &CardForm) -> CoreResult<Receipt> {
        let why = self.records().check_purpose(&form.purpose)?;
        // The top-up's remark takes the purpose as checked (trimmed).
        let form = &CardForm {
            purpose: why.clone().unwrap_or_default(),
            ..form.clone()
        };
        Self::with_purpose(why, self.card_why(form)).await
    }

    async fn card_why(&self, form: &CardForm) -> CoreResult<Receipt> {
        Ok(match self.fill(None, |who| form.build(who))? {
            CardOp::TopUp(op) => {
                let s = self.money().card_top_up(op).await?;
                Receipt::new(s.entry, s.replayed)
            }
            CardOp::Withdraw(op, reference) => {
                let s = self.money().card_withdraw(op, &reference).await?;
                let mut r = Receipt::new(s.entry, s.replayed);
                if let Some(d) = s.data {
                    r.trade_no = Some(d.trade_no);
                    r.fee = Some(d.fee);
                }
                r
            }
        })
    }
}

/// The gateway's `payUrl` on a receipt only when it is a link the desk may show and open
/// ([`crate::answers::link`]); otherwise none, and the receipt's message says why (the
/// order itself stands: it is the gateway's, and it is in the journal).
fn shown_link(r: &mut Receipt, pay_url: Option<String>) {
    let Some(url) = pay_url.filter(|u| !u.is_empty()) else {
        return;
    };
    match crate::answers::link(&url) {
        Ok(_) => r.pay_url = Some(url.trim().to_string()),
        Err(rule) => {
            r.message = Some(format!(
                "the gateway's payUrl {rule}: {}",
                paydesk_gateway::redact::terminal_safe(&url, 80)
            ));
        }
    }
}

impl<'d> super::Money<'d> {
    pub async fn payin_v2(
        self,
        common: wire::PayinCommon,
    ) -> CoreResult<Submitted<wire::V2PayinResult>> {
        let summary = format!(
            "payin WECHAT {} {}",
            common.source_amount, common.currency_code
        );
        let no = common.mer_order_no.clone();
        self.desk
            .order(&wire::V2Payment { common }, &no, "WECHAT", summary)
            .await
    }

    pub async fn payin_v1(self, op: wire::V1Payment) -> CoreResult<Submitted<wire::V1PayinResult>> {
        let method = op.method.payment_type();
        let summary = format!(
            "payin {method} {} {}",
            op.common.source_amount, op.common.currency_code
        );
        self.desk
            .order(&op, &op.common.mer_order_no, method, summary)
            .await
    }

    pub async fn payin_vn_bank(
        self,
        op: wire::V1VnBankPayment,
    ) -> CoreResult<Submitted<wire::VnBankPayinResult>> {
        let summary = format!(
            "payin VN_BANK {} {}",
            op.common.source_amount, op.common.currency_code
        );
        self.desk
            .order(&op, &op.common.mer_order_no, "VN_BANK", summary)
            .await
    }

    pub async fn payout_clabe(
        self,
        op: wire::V2Payout,
    ) -> CoreResult<Submitted<wire::PayoutResult>> {
        let account = paydesk_gateway::validate::mask_card(&op.clabe);
        let summary = format!(
            "payout CLABE {} {} to {account}",
            op.source_amount, op.currency_code
        );
        self.desk
            .order(&op, &op.mer_order_no, "CLABE", summary)
            .await
    }

    pub async fn payout_card(
        self,
        op: wire::V1CardPayout,
    ) -> CoreResult<Submitted<wire::PayoutResult>> {
        let account = paydesk_gateway::validate::mask_card(&op.card_no);
        let summary = format!(
            "payout CARD {} {} to {} {} {account}",
            op.source_amount, op.currency_code, op.ben_first_name, op.ben_last_name
        );
        self.desk
            .order(&op, &op.mer_order_no, "CARD", summary)
            .await
    }

    pub async fn card_top_up(self, op: wire::V2CardTopUp) -> CoreResult<Submitted<wire::NoData>> {
        let summary = format!(
            "card top-up {} {} to {}",
            op.amount, op.currency, op.apply_order_no
        );
        let no = op.mer_order_no.clone();
        let r = self.desk.submit(&op, &no, &summary).await;
        if let Ok(s) = &r
            && !s.replayed
        {
            let amount = op.amount.to_string();
            self.desk.card_op(NewCardOperation {
                journal_id: s.entry.id,
                kind: "top_up",
                card: &op.apply_order_no,
                amount: &amount,
                currency: &op.currency,
                fee: None,
                trade_no: None,
                outcome: s.entry.status.as_str(),
            })?;
        }
        r
    }

    /// `reference` is this desk's own number for the withdrawal (the interface gives it
    /// none), the journal's key.
    pub async fn card_withdraw(
        self,
        op: wire::V1CardWithdraw,
        reference: &str,
    ) -> CoreResult<Submitted<wire::WithdrawResult>> {
        let summary = format!(
            "card withdraw {} {} from {}",
            op.amount, op.currency, op.apply_order_no
        );
        let r = self.desk.submit(&op, reference, &summary).await;
        if let Ok(s) = &r
            && let (false, Some(d)) = (s.replayed, &s.data)
        {
            let amount = op.amount.to_string();
            // The fee as a number in the card's currency, or not kept (not given).
            let fee = d
                .fee
                .trim()
                .parse::<rust_decimal::Decimal>()
                .ok()
                .filter(|f| {
                    !f.is_sign_negative()
                        && *f <= rust_decimal::Decimal::from(paydesk_gateway::money::MAX_AMOUNT)
                        && f.normalize().scale() <= 8
                })
                .map(|f| f.to_string());
            self.desk.card_op(NewCardOperation {
                journal_id: s.entry.id,
                kind: "withdraw",
                card: &op.apply_order_no,
                amount: &amount,
                currency: &op.currency,
                fee: fee.as_deref(),
                trade_no: Some(&d.trade_no),
                outcome: s.entry.status.as_str(),
            })?;
        }
        r
    }

    /// Card operations made from this desk, newest first.
    pub fn card_operations(&self) -> CoreResult<Vec<CardOperation>> {
        self.desk.store.cards().latest()
    }

    /// The cards known from this desk's operations (and, on the built-in sandbox, the
    /// sandbox's own cards with their balances).
    pub fn cards(&self) -> CoreResult<Vec<CardSummary>> {
        let ops = self.card_operations()?;
        let mut cards: std::collections::BTreeMap<String, CardSummary> = Default::default();
        if let Some(control) = &self.desk.control {
            for c in control.cards(self.desk.profile.mer_no) {
                cards.insert(
                    c.card.clone(),
                    CardSummary {
                        card: c.card,
                        currency: c.currency,
                        holder: Some(c.holder),
                        balance: Some(c.balance.to_string()),
                        operations: 0,
                        last_at: None,
                    },
                );
            }
        }
        for op in ops.iter().rev() {
            let c = cards.entry(op.card.clone()).or_insert_with(|| CardSummary {
                card: op.card.clone(),
                currency: op.currency.clone(),
                holder: None,
                balance: None,
                operations: 0,
                last_at: None,
            });
            c.operations += 1;
            c.last_at = Some(op.at);
        }
        Ok(cards.into_values().collect())
    }

    /// Submits review information and files for a bank-transfer order. Files are read,
    /// checked (type by content, size) and base64-encoded here. `reference` is the
    /// submission's journal key: one that failed for a network reason stays queued and
    /// is sent again by [`Money::review_resend`] (or this with the same reference).
    pub async fn submit_review(
        self,
        reference: &str,
        req: &ReviewRequest,
    ) -> CoreResult<Submitted<wire::NoData>> {
        paydesk_gateway::validate::required("tradeNo", req.trade_no.trim())?;
        paydesk_gateway::validate::required("reference", reference.trim())?;
        let trade_no = req.trade_no.trim();
        self.desk.reviewable(trade_no)?;
        if req.info.is_empty() && req.files.is_empty() {
            return Err(CoreError::keyed(
                "infoList",
                "add at least one information item or file",
                "reviewEmpty",
                &[],
            ));
        }
        for (i, (code, content)) in req.info.iter().enumerate() {
            paydesk_gateway::validate::required(&format!("infoList[{i}].infoType"), code.trim())?;
            paydesk_gateway::validate::required(
                &format!("infoList[{i}].infoContent"),
                content.trim(),
            )?;
        }
        let mut file_list = Vec::new();
        let mut names = Vec::new();
        let mut evidence = Vec::new();
        let mut total = 0u64;
        for (i, (code, path)) in req.files.iter().enumerate() {
            let item = crate::review::read_file(i, code, std::path::Path::new(path))?;
            // base64 holds 3 bytes in 4 characters.
            total += item.file_content.len() as u64 / 4 * 3;
            if total > crate::review::MAX_TOTAL_BYTES {
                return Err(CoreError::keyed(
                    "fileList",
                    format!(
                        "the files add up to more than {} bytes (20 MiB), the most one review takes; send them in two reviews",
                        crate::review::MAX_TOTAL_BYTES
                    ),
                    "reviewTooLarge",
                    &[],
                ));
            }
            names.push(format!("{}{}", item.file_name, item.suffix));
            evidence.push(crate::review::evidence(&item));
            file_list.push(item);
        }
        let op = wire::V1TransferOrderSubmit {
            mer_no: MerNo(self.desk.profile.mer_no),
            trade_no: trade_no.to_string(),
            info_list: req
                .info
                .iter()
                .map(|(t, c)| wire::InfoItem {
                    info_type: t.trim().to_string(),
                    info_content: c.trim().to_string(),
                })
                .collect(),
            file_list,
        };
        let summary = format!(
            "review for {trade_no}: {} information items, files {}",
            op.info_list.len(),
            names.join(", ")
        );
        // The evidence of what goes, before it goes: in the audit log's chain (an edit
        // of it shows as a broken chain), and in the journal's entry, whose masked
        // request keeps each file as its size and SHA-256 (`fileContent`), committed
        // before the request leaves. The submission's row keeps them too, also when the
        // answer is lost.
        self.desk.audit(
            "review.evidence",
            evidence_identifiers(trade_no, reference, &evidence),
            "recorded",
            std::time::Instant::now(),
        );
        let r = self.desk.submit(&op, reference, &summary).await;
        let outcome = match &r {
            Ok(s) => s.entry.status.as_str().to_string(),
            Err(e) => match self.desk.store.journal().get_by_key(
                &self.desk.profile.name,
                wire::V1TransferOrderSubmit::NAME,
                reference,
            ) {
                Ok(Some(entry)) => entry.status.as_str().to_string(),
                _ => format!("error: {e}"),
            },
        };
        let request = serde_json::to_string(req).unwrap_or_default();
        let files = names.join(", ");
        self.desk.store.reviews().record(ReviewOutcome {
            reference,
            journal_id: r.as_ref().ok().map(|s| s.entry.id),
            trade_no,
            info_count: op.info_list.len() as i64,
            files: &files,
            outcome: &outcome,
            request: &request,
            evidence: &serde_json::to_string(&evidence).unwrap_or_else(|_| "[]".into()),
        })?;
        r
    }

    /// Sends a queued review submission again, with the same reference.
    pub async fn review_resend(self, reference: &str) -> CoreResult<Submitted<wire::NoData>> {
        let request = self
            .desk
            .store
            .reviews()
            .request(reference)?
            .ok_or_else(|| CoreError::not_found(format!("no review submission {reference}")))?;
        let req: ReviewRequest = serde_json::from_str(&request)
            .map_err(|e| CoreError::storage(format!("review submission {reference}: {e}")))?;
        self.submit_review(reference, &req).await
    }

    /// Review submissions, newest first; `trade_no` narrows to one order.
    pub fn review_submissions(&self, trade_no: Option<&str>) -> CoreResult<Vec<ReviewSubmission>> {
        self.desk.store.reviews().latest(trade_no)
    }

    /// What a bulk run would do with each row of a checked file, as the journal stands
    /// now; nothing is written or sent. See [`bulk::BulkPlan`].
    /// What a bulk file's rows are checked and sent with: the merchant, the
    /// notification URL, and the requester's IP of the profile's conventions.
    pub fn bulk_context(&self) -> CoreResult<bulk::BulkContext> {
        Ok(bulk::BulkContext {
            mer_no: self.desk.profile.mer_no,
            notify_url: self.desk.records().notify_url()?,
            ip_address: self.desk.conventions.requester_ip.clone(),
        })
    }

    pub fn bulk_plan(&self, file: &bulk::BulkFile) -> CoreResult<bulk::BulkPlan> {
        let (planned, funds) = self.desk.plan_rows_funded(file, false)?;
        let with_held = self.desk.plan_rows_funded(file, true)?.0;
        let mut plan = bulk::BulkPlan {
            funds,
            errors: file.errors.clone(),
            digest: self.desk.plan_digest(&planned),
            digest_with_held: self.desk.plan_digest(&with_held),
            ..bulk::BulkPlan::default()
        };
        let mut totals: std::collections::BTreeMap<String, (u32, rust_decimal::Decimal)> =
            Default::default();
        let mut held: std::collections::BTreeMap<String, (u32, rust_decimal::Decimal)> =
            Default::default();
        for p in &planned {
            let (currency, amount) = p.payout.money();
            match p.action {
                bulk::RowAction::Send => {
                    plan.to_send += 1;
                    let t = totals.entry(currency.to_string()).or_default();
                    t.0 += 1;
                    t.1 += amount;
                }
                bulk::RowAction::Paid => plan.paid += 1,
                bulk::RowAction::LookUp => plan.look_up += 1,
                bulk::RowAction::Held if p.why.is_firm() => {
                    plan.held += 1;
                    plan.held_firm += 1;
                }
                bulk::RowAction::Held => plan.held += 1,
            }
            plan.rows.push(bulk::PlannedRow {
                line: p.line,
                mer_order_no: p.payout.mer_order_no().to_string(),
                payout: p.payout.preview(),
                action: p.action,
                reason: p.why.to_string(),
                why: p.why.clone(),
                earlier: p.earlier.clone(),
                name_in_file: file.names.get(&p.line).cloned(),
            });
        }
        // The held rows sent too if confirmed: those the plan with them sends (the
        // balance and the limits left after the rows that go: review-money-r5 F4).
        for (p, w) in planned.iter().zip(&with_held) {
            if p.line == w.line
                && p.action == bulk::RowAction::Held
                && !p.why.is_firm()
                && w.action == bulk::RowAction::Send
            {
                let (currency, amount) = w.payout.money();
                let t = held.entry(currency.to_string()).or_default();
                t.0 += 1;
                t.1 += amount;
            }
        }
        self.desk.note_payees(&mut plan.rows, &planned);
        let total = |m: std::collections::BTreeMap<String, (u32, rust_decimal::Decimal)>| {
            m.into_iter()
                .map(|(currency, (count, amount))| {
                    let fee = self.desk.payout_fee_estimate(&currency);
                    bulk::CurrencyTotal {
                        fee_estimate: fee
                            .as_ref()
                            .map(|(f, _)| (*f * rust_decimal::Decimal::from(count)).to_string()),
                        fee_from: fee.map(|(_, from)| from),
                        currency,
                        count,
                        amount: amount.to_string(),
                    }
                })
                .collect::<Vec<_>>()
        };
        plan.totals = total(totals);
        plan.held_totals = total(held);
        Ok(plan)
    }

    /// Sends a checked bulk payout file. The plan ([`Money::bulk_plan`]) is made again
    /// from the journal as it stands: every row to send is first written to the journal
    /// (its `merOrderNo` fixed), then sent one by one; rows paid before are not sent;
    /// rows with an unknown outcome are looked up in this run, never sent (a later run
    /// sends those the gateway proves it lacks, after a new confirmation); held rows go
    /// only with `include_held` (each such override is audited). `expected` is the
    /// plan's digest the operator confirmed ([`bulk::BulkPlan::digest`], or
    /// `digest_with_held`): if the plan made now differs (the file or the journal
    /// changed), nothing is sent. `progress(done, total)` after each row. Returns one
    /// result per row of the file, invalid ones included.
    pub async fn bulk_payouts(
        self,
        file: &bulk::BulkFile,
        include_held: bool,
        expected: Option<&str>,
        mut progress: impl FnMut(usize, usize),
    ) -> CoreResult<Vec<bulk::RowResult>> {
        // Planned on the balances the preview read (kept as snapshots), at once: the
        // digest is checked against the journal as it stands now.
        let (planned, _) = self.desk.plan_rows_funded(file, include_held)?;
        // A profile that requires a purpose sends no row without one (the front ends
        // turn such rows into errors first: `BulkFile::with_default_purpose`).
        if self.desk.profile.safety.purpose_required
            && let Some(p) = planned.iter().find(|p| {
                p.action == bulk::RowAction::Send
                    && file.purposes.get(&p.line).is_none_or(|w| w.text.is_empty())
            })
        {
            return Err(CoreError::keyed(
                "purpose",
                format!(
                    "line {}: is required: this profile asks for a purpose on every movement; nothing was sent",
                    p.line
                ),
                "purposeRequiredLine",
                &[("line", p.line.to_string())],
            ));
        }
        if let Some(confirmed) = expected
            && confirmed != self.desk.plan_digest(&planned)
        {
            return Err(CoreError::keyed(
                "file",
                "the rows to send are not the ones confirmed: the file or the journal changed since the preview; check it again",
                "bulkChangedSincePreview",
                &[],
            ));
        }
        self.desk.funds_still_there(file, &planned).await?;
        // Every row to send is in the journal before any leaves: one commit for them all.
        let sends: Vec<&bulk::Planned> = planned
            .iter()
            .filter(|p| p.action == bulk::RowAction::Send)
            .collect();
        let parts = sends
            .iter()
            .map(|p| crate::desk::money::bulk_send::intent_parts(&p.payout))
            .collect::<CoreResult<Vec<_>>>()?;
        let mut known = Vec::with_capacity(sends.len());
        for p in &sends {
            known.push(
                self.desk
                    .store
                    .journal()
                    .get_by_number(&self.desk.profile.name, p.payout.mer_order_no())?
                    .is_some(),
            );
        }
        let intents: Vec<journal::Intent<'_>> = sends
            .iter()
            .zip(&parts)
            .map(|(p, (body, summary))| journal::Intent {
                operation: bulk::operation_of(&p.payout),
                mer_order_no: p.payout.mer_order_no(),
                request: body,
                summary,
                fingerprint: &p.fingerprint,
                purpose: file.purposes.get(&p.line),
            })
            .collect();
        self.desk
            .store
            .journal()
            .queue_many(&self.desk.profile.name, &intents)?;
        for (p, known) in sends.iter().zip(known) {
            if include_held && !known && p.earlier.is_some() {
                self.desk.audit(
                    "duplicate_override",
                    format!(
                        "merOrderNo={} earlier={} (bulk line {})",
                        p.payout.mer_order_no(),
                        p.earlier.clone().unwrap_or_default(),
                        p.line
                    ),
                    "confirmed",
                    std::time::Instant::now(),
                );
            }
        }
        let mut results: Vec<bulk::RowResult> = file
            .errors
            .iter()
            .map(|e| bulk::RowResult {
                line: e.line,
                mer_order_no: String::new(),
                status: bulk::RowStatus::Invalid,
                trade_no: String::new(),
                detail: format!("{}: {}", e.field, e.rule),
                this_run: false,
                why: None,
            })
            .collect();
        let total = planned
            .iter()
            .filter(|p| matches!(p.action, bulk::RowAction::Send | bulk::RowAction::LookUp))
            .count();
        let mut done = 0;
        let result_of =
            |p: &bulk::Planned, status, trade_no: Option<String>, detail| bulk::RowResult {
                line: p.line,
                mer_order_no: p.payout.mer_order_no().to_string(),
                status,
                trade_no: trade_no.unwrap_or_default(),
                detail,
                this_run: matches!(p.action, bulk::RowAction::Send | bulk::RowAction::LookUp),
                why: Some(p.why.clone()),
            };
        // What a row sent or looked up ended as: its entry, or the error and the entry
        // as the journal holds it.
        let ended = |p: &bulk::Planned, r: CoreResult<journal::Entry>| {
            let entry = match &r {
                Ok(_) => None,
                Err(_) => self
                    .desk
                    .store
                    .journal()
                    .get_by_number(&self.desk.profile.name, p.payout.mer_order_no())
                    .ok()
                    .flatten(),
            };
            match (r, entry) {
                (Ok(e), _) => result_of(
                    p,
                    e.status.into(),
                    e.trade_no.clone(),
                    e.message.clone().unwrap_or_default(),
                ),
                (Err(e), Some(entry)) => result_of(
                    p,
                    entry.status.into(),
                    entry.trade_no.clone(),
                    entry.message.clone().unwrap_or_else(|| e.to_string()),
                ),
                (Err(e), None) => result_of(p, bulk::RowStatus::Pending, None, e.to_string()),
            }
        };
        let mut to_send = Vec::new();
        for (i, p) in planned.iter().enumerate() {
            let no = p.payout.mer_order_no().to_string();
            match p.action {
                bulk::RowAction::Held => {
                    // A row the journal holds as not sent (an earlier run wrote it and
                    // stopped) keeps its number, to be found on the Attention list.
                    let kept = self
                        .desk
                        .store
                        .journal()
                        .get_by_number(&self.desk.profile.name, &no)?
                        .is_some_and(|e| e.status == Status::Pending);
                    results.push(bulk::RowResult {
                        mer_order_no: if kept { no.clone() } else { String::new() },
                        ..result_of(p, bulk::RowStatus::Held, None, p.why.to_string())
                    });
                }
                bulk::RowAction::Paid => {
                    let e = self
                        .desk
                        .store
                        .journal()
                        .get_by_number(&self.desk.profile.name, &no)?;
                    results.push(result_of(
                        p,
                        bulk::RowStatus::Accepted,
                        e.and_then(|e| e.trade_no),
                        p.why.to_string(),
                    ));
                }
                bulk::RowAction::LookUp => {
                    let e = self
                        .desk
                        .store
                        .journal()
                        .get_by_number(&self.desk.profile.name, &no)?
                        .ok_or_else(|| CoreError::internal("journal entry vanished"))?;
                    let r = self.desk.journal().reconcile_entry(&e, true).await;
                    results.push(ended(p, r));
                    done += 1;
                    progress(done, total);
                }
                bulk::RowAction::Send => {
                    to_send.push((i, p.payout.clone(), p.fingerprint.clone()));
                }
            }
        }
        // The rows to send, a bounded number in flight, their outcomes written in groups.
        let mut sent = |i: usize, r: CoreResult<journal::Entry>| {
            results.push(ended(&planned[i], r));
            done += 1;
            progress(done, total);
        };
        self.desk.send_bulk_rows(to_send, &mut sent).await?;
        results.sort_by_key(|r| r.line);
        Ok(results)
    }

    /// A payin as filled in, through the journal.
    pub async fn payin(self, form: &PayinForm) -> CoreResult<Receipt> {
        let r = self
            .desk
            .payin_in(form)
            .await
            .map_err(|e| e.in_terms(crate::forms::payin_field));
        let r = self
            .desk
            .receipt_or_error(form.method.operation(), &form.mer_order_no, r);
        self.desk.reread_made(&r).await;
        r
    }

    /// A review submission under `reference`, through the journal.
    pub async fn review(self, reference: &str, req: &ReviewRequest) -> CoreResult<Receipt> {
        let r = self
            .submit_review(reference, req)
            .await
            .map(|s| Receipt::new(s.entry, s.replayed));
        self.desk
            .receipt_or_error(wire::V1TransferOrderSubmit::NAME, reference, r)
    }

    /// A queued review submission sent again, under its reference.
    pub async fn review_again(self, reference: &str) -> CoreResult<Receipt> {
        let r = self
            .review_resend(reference)
            .await
            .map(|s| Receipt::new(s.entry, s.replayed));
        self.desk
            .receipt_or_error(wire::V1TransferOrderSubmit::NAME, reference, r)
    }

    /// Checks a payout form and answers with what the confirmation step shows; nothing
    /// is written or sent.
    pub fn payout_preview(&self, form: &PayoutForm) -> CoreResult<PayoutPreview> {
        self.desk
            .payout_preview_in(form)
            .map_err(|e| e.in_terms(crate::forms::payout_field))
    }

    /// A payout as filled in (and confirmed), through the journal.
    pub async fn payout(self, form: &PayoutForm) -> CoreResult<Receipt> {
        let r = self
            .desk
            .payout_in(form)
            .await
            .map_err(|e| e.in_terms(crate::forms::payout_field));
        // A confirmed second one is for this attempt only: refused before it was sent (a
        // limit, the balance, the purpose), a later plain send asks again.
        crate::desk::lock(&self.desk.allowed_duplicates).remove(form.mer_order_no.trim());
        let r = self
            .desk
            .receipt_or_error(form.kind.operation(), &form.mer_order_no, r);
        self.desk.reread_made(&r).await;
        r
    }

    /// A card top-up or withdraw as filled in, through the journal.
    pub async fn card(self, form: &CardForm) -> CoreResult<Receipt> {
        let r = self
            .desk
            .card_in(form)
            .await
            .map_err(|e| e.in_terms(crate::forms::card_field));
        self.desk
            .receipt_or_error(form.kind.operation(), &form.reference, r)
    }
}

#[cfg(test)]
mod tests {
    use super::bulk_base;

    /// A bulk row's base number is `B` and 20 hex digits, with or without its chain's
    /// suffix; nothing else (a number typed by hand, a near miss) is taken for one.
    #[test]
    fn only_a_bulk_row_number_has_a_base() {
        let base = "B0123456789abcdef0123";
        assert_eq!(bulk_base(base), Some(base));
        assert_eq!(bulk_base(&format!("{base}-R2")), Some(base));
        assert_eq!(bulk_base(&format!("{base}-C1a2b3c4d")), Some(base));
        for other in [
            "PO-1",
            "B0123456789abcdef012",
            "B0123456789abcdef01234",
            "B0123456789abcdef012g",
            "b0123456789abcdef0123",
            "",
        ] {
            assert_eq!(bulk_base(other), None, "{other}");
        }
    }
}
