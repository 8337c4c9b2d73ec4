//! The desk: one open profile with its gateway client, cache, journal and audit log,
//! and the services every screen and CLI command uses: here opening, the journal's
//! submit and reconcile, and the audit trail; orders, money and queries in the
//! submodules.

mod extension;
mod journal;
mod money;
mod orders;
mod records;

pub use journal::Journal;
pub use journal::entries::Rechecked;
pub use money::Money;
pub use orders::Orders;
pub use records::Records;

pub use journal::attention::{Attention, AttentionAction};
pub use journal::lost_audit::{
    LostAuditKey, NEW_LOG_OPERATION, NewAuditLog, audit_key_lost, start_new_audit_log,
};
pub use journal::resend_payin::PAYIN_TAX_ID;
pub use money::check::{CheckItem, CheckOutcome, ConnectionCheck};
pub use money::funds::Funds;
pub use money::payments::{CardOperation, CardSummary, ReviewRequest, ReviewSubmission};
pub use orders::bulk_lookup::{
    Found, GatewayAsked, LookupOptions, LookupProgress, LookupReport, LookupRow, RejectReason,
    RejectedLine, parse_numbers,
};
pub use orders::customer::{Customer, customer_of};
pub use orders::follow_up::Synced;
pub use orders::queries::{
    BalanceResult, BalanceSnapshot, Dashboard, DayFigures, Event, QueryType, Reversal,
};
pub use orders::refresh::Refreshed;
pub use orders::timeline::TimelineEvent;
pub use orders::views::SavedView;
pub use records::notified::OrderReversals;

use std::sync::{Arc, Mutex};
use std::time::Instant;

use paydesk_gateway::wire::{self, MerNo, Operation};
use paydesk_gateway::{
    ClientConfig, Credentials, GatewayClient, GatewayError, NextStep, SignatureStatus,
    StateDictionary,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::audit::{self, Record};
use crate::endpoint::{Endpoint, SandboxControl};
use crate::error::{CoreError, CoreResult};
use crate::journal::{Begin, Claim, Entry, Guard, Intent, Outcome, Status};
use crate::profile::{Home, Profile};
use crate::secrets::Secrets;
use crate::store::Store;
use crate::store::orders::CachedOrder;
use crate::store::team::TeamDb;
use paydesk_gateway::dictionary::{Meaning, StateField};

/// An operation that went through the journal: its entry, and the gateway's data when
/// this call got an answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Submitted<T> {
    pub entry: Entry,
    pub data: Option<T>,
    /// True when nothing was sent because the entry already existed.
    pub replayed: bool,
}

/// An order's detail: the cached row, its timeline, and a live query when reachable.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderDetail {
    pub order: Option<CachedOrder>,
    pub live: Option<wire::OrderRecord>,
    pub signature: Option<SignatureStatus>,
    /// Why the live query failed, if it did.
    pub live_error: Option<String>,
    /// What the desk knows happened to the order, oldest first.
    pub timeline: Vec<TimelineEvent>,
}

impl OrderDetail {
    /// The states the order was seen in, in the order they were seen.
    pub fn states(&self) -> Vec<i64> {
        self.timeline
            .iter()
            .filter_map(|e| match e {
                TimelineEvent::State { state, .. } => Some(*state),
                _ => None,
            })
            .collect()
    }
}

/// The gateway's transaction number in an answer, where it has one.
pub trait TradeNo {
    fn trade_no(&self) -> Option<String>;
    /// The answer's `payCode`, where it has one (payins and payouts).
    fn pay_code(&self) -> Option<i64> {
        None
    }
    /// The order number the answer says it is about, where it echoes one.
    fn echoed_mer_order_no(&self) -> Option<&str> {
        None
    }
}

macro_rules! trade_no_field {
    ($($t:ty),*) => {$(
        impl TradeNo for $t {
            fn trade_no(&self) -> Option<String> {
                Some(self.trade_no.clone())
            }
            fn pay_code(&self) -> Option<i64> {
                Some(self.pay_code)
            }
            fn echoed_mer_order_no(&self) -> Option<&str> {
                Some(self.mer_order_no.as_str()).filter(|n| !n.is_empty())
            }
        }
    )*};
}
trade_no_field!(
    wire::V2PayinResult,
    wire::V1PayinResult,
    wire::VnBankPayinResult,
    wire::PayoutResult
);

impl TradeNo for wire::WithdrawResult {
    fn trade_no(&self) -> Option<String> {
        Some(self.trade_no.clone())
    }
}

impl TradeNo for wire::NoData {
    fn trade_no(&self) -> Option<String> {
        None
    }
}

/// One open profile.
#[derive(Debug)]
pub struct Desk {
    pub profile: Profile,
    /// What the interface leaves open about this profile's gateway (read when the desk
    /// opens: a change takes effect at the next opening).
    conventions: paydesk_gateway::Conventions,
    /// The profile's reporting settings (business zone, change horizon), read at opening
    /// and replaced when the running desk's settings are set ([`Orders::use_reporting`]).
    reporting: Mutex<crate::profile::Reporting>,
    /// The profile's payout limits (issue 35) as last read from the home (they are read
    /// again for each check, [`Money::limits`]), or as set by [`Money::set_limits`].
    limits: Mutex<crate::limits::Limits>,
    /// The home the profile was opened from: its limits are read again for each check.
    home: crate::profile::Home,
    secrets: Secrets,
    /// The signed client of the gateway: `None` on a team desk that holds no merchant
    /// key (a maker's, an approver's, a viewer's): it works on the team's data and makes
    /// requests; a signer executes them.
    client: Option<GatewayClient>,
    /// The gateway's address and public key, kept apart from the client so that a desk
    /// without the key still says where its team's gateway is and checks notifications.
    base_url: url::Url,
    gateway_key: Option<paydesk_gateway::PublicKey>,
    /// The cache, the journal and the audit log.
    store: Arc<Store>,
    dictionary: StateDictionary,
    /// The records of a gateway the caller runs for this desk (the built-in sandbox).
    control: Option<Arc<dyn SandboxControl>>,
    /// Order numbers the operator confirmed as a second, deliberate request for an
    /// intent already in the journal (taken by the next [`Desk::submit`] of that number).
    allowed_duplicates: Mutex<std::collections::HashSet<String>>,
    /// The key of intent fingerprints and bulk row numbers (from the keyring).
    intent_key: paydesk_gateway::Sensitive<Vec<u8>>,
    /// The key that seals the audit chain (from the keyring), and the keyring's anchor
    /// as this desk last read or wrote it (used if the keyring cannot be read once).
    audit_key: paydesk_gateway::Sensitive<Vec<u8>>,
    audit_anchor: Mutex<Option<audit::Anchor>>,
    /// Where notifications for orders made here go: the desk's own endpoint when it
    /// runs (the session layer's receiver), else the profile's `notifyUrl`.
    notify_url: Mutex<Option<String>>,
    /// The running sync's cancel flag: one sync at a time on a desk.
    sync_running: Mutex<Option<Arc<std::sync::atomic::AtomicBool>>>,
    /// Where "now" comes from for the journal's timing rules (grace, backoff, windows).
    clock: Arc<dyn crate::clock::Clock>,
    /// Anchors for deep pages, per filter; dropped whenever this desk writes orders.
    anchors: Mutex<std::collections::HashMap<String, Arc<crate::store::orders::Anchors>>>,
    /// On a team desk, what the check of the team's audit chain found when this desk
    /// connected, if the chain no longer holds the head this desk last verified (history
    /// rewritten or cut): such a desk never acts as a signer.
    /// Why the team's audit chain failed this desk's check (at connect, after its own
    /// appends, at each worker round); once found it stays for the desk's life.
    team_chain_problem: std::sync::OnceLock<String>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A merchant order number that is new: the prefix, the UTC time to the millisecond,
/// and four digits from the process and a counter. The journal's unique key guards the
/// rest.
pub fn new_mer_order_no(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let now = chrono::Utc::now();
    let salt = (u64::from(std::process::id()).wrapping_mul(7919) + n) % 10_000;
    format!(
        "{prefix}{}{:03}{salt:04}",
        now.format("%y%m%d%H%M%S"),
        now.timestamp_subsec_millis()
    )
}

/// Sends a query: an operation that moves nothing. One that moves money does not
/// compile here; it goes through [`Desk::submit`] and the journal.
pub(crate) async fn ask<O: Operation>(
    client: &GatewayClient,
    op: &O,
) -> Result<paydesk_gateway::Answer<O::Output>, GatewayError> {
    const {
        assert!(
            !O::MOVES_MONEY,
            "an operation that moves money goes through Desk::submit and the journal"
        )
    };
    client.send(op).await
}

/// What it means, at `now`, that the gateway's list does not show an entry's order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum NotListed {
    /// Not there after the grace period and enough lookups: safe to send again, with
    /// the same `merOrderNo`.
    SafeToSend { note: String },
    /// Not there yet: looked up again at `at` (UTC millis).
    LookAgain { at: i64, note: String },
}

/// The grace and backoff rule of a lookup that did not find the order, as a function of
/// time: `now` is passed in, so the rule is tested at any moment without waiting.
/// `answered`: the gateway said success (without a usable trade number), so "not
/// listed" is never "not there".
fn not_listed(e: &Entry, answered: bool, safety: &crate::profile::Safety, now: i64) -> NotListed {
    let left = e.sent_at.unwrap_or(e.created_at);
    let grace_ends = left + i64::from(safety.not_found_grace_secs) * 1000;
    let lookups = e.lookups + 1;
    let backoff = 2000 * 2i64.pow(lookups.clamp(0, 8) as u32);
    if answered {
        let at = now + backoff.min(300_000);
        return NotListed::LookAgain {
            at,
            note: format!(
                "the gateway answered success without a usable trade number and does not list the order yet (lookup {lookups}); never sent again, looked up again from {}",
                utc_time(at)
            ),
        };
    }
    if now >= grace_ends && lookups >= i64::from(safety.not_found_lookups) {
        return NotListed::SafeToSend {
            note: format!(
                "not at the gateway after {lookups} lookups over {} s: safe to send again with the same merOrderNo",
                (now - left) / 1000
            ),
        };
    }
    // Backoff from 2 s, never past the end of the grace period by much.
    let at = (now + backoff.min(60_000)).min(grace_ends.max(now + 1000));
    NotListed::LookAgain {
        at,
        note: format!(
            "not found yet (lookup {lookups}); the gateway's list may show a new order late. Looked up again from {}; sent again (same merOrderNo) only if still not found after {}",
            utc_time(at),
            utc_time(grace_ends)
        ),
    }
}

/// Why a "success" is not believed as the entry's answer, if it is not: without a trade
/// number the desk can keep (the outcome is unknown, found out by looking the order up),
/// or about another order number.
fn unusable_success<T: TradeNo>(
    entry: &Entry,
    data: &T,
) -> Option<paydesk_gateway::validate::FieldError> {
    let mut unusable = data
        .trade_no()
        .as_deref()
        .and_then(|t| paydesk_gateway::validate::trade_no("tradeNo", t).err());
    if let Some(echo) = data.echoed_mer_order_no()
        && echo != entry.mer_order_no
    {
        unusable.get_or_insert(paydesk_gateway::validate::FieldError::new(
            "merOrderNo",
            format!(
                "names {}, not {}",
                paydesk_gateway::redact::terminal_safe(echo, 64),
                entry.mer_order_no
            ),
        ));
    }
    unusable
}

/// What a failed call's entry becomes when nothing needs looking up first: refused
/// (with the gateway's code), safe to send again (it never left), or unknown.
fn plain_failure(e: &GatewayError) -> (Status, Option<String>) {
    match e {
        GatewayError::Rejected { code, .. } => (Status::Rejected, Some(code.clone())),
        GatewayError::Http { status, .. } if e.next_step() == NextStep::Stop => {
            (Status::Rejected, Some(format!("HTTP {status}")))
        }
        _ if e.next_step() == NextStep::Retry => (Status::Pending, None),
        _ => (Status::Unknown, None),
    }
}

/// What the order list says of a journal entry's order ([`crate::lookup::prove`]).
#[derive(Debug)]
enum Listed {
    /// Listed with a trade number and it is the journal's order: the list's item, and
    /// whether the list's signature was verified.
    Found(Box<wire::OrderListItem>, bool),
    /// Listed under the entry's number, but another order (amount, currency or kind):
    /// never taken as the entry's, and never a reason to send again.
    Conflict(String),
    /// Listed, but with no trade number: there, not proven.
    WithoutTradeNo,
    /// The answer is complete for the number asked and does not hold it.
    Absent,
}

/// What an audit row of a money call names, so that Activity finds it by any of them:
/// the merchant order number, the trade number once the gateway gave one, and the
/// amount and currency the request carried.
fn money_identifiers(entry: &Entry, trade_no: Option<String>) -> String {
    let mut ids = format!("merOrderNo={}", entry.mer_order_no);
    if let Some(t) = trade_no.filter(|t| !t.is_empty()) {
        ids.push_str(&format!(
            " tradeNo={}",
            paydesk_gateway::redact::terminal_safe(&t, 64)
        ));
    }
    let field = |k: &str| entry.request.get(k).and_then(Value::as_str);
    let amount = field("sourceAmount").or_else(|| field("amount"));
    let currency = field("currencyCode").or_else(|| field("currency"));
    if let (Some(a), Some(c)) = (amount, currency) {
        ids.push_str(&format!(" amount={a} {c}"));
    }
    // Why (issue 35): quoted, as checked (no controls, no direction changes).
    if let Some(p) = &entry.purpose {
        let quoted = |t: &str| serde_json::to_string(t).unwrap_or_default();
        if !p.text.is_empty() {
            ids.push_str(&format!(" purpose={}", quoted(&p.text)));
        }
        if !p.reference.is_empty() {
            ids.push_str(&format!(" ref={}", quoted(&p.reference)));
        }
    }
    ids
}

/// A time (UTC millis) as people read it in a message: `HH:MM:SS UTC`.
fn utc_time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%H:%M:%S UTC").to_string())
        .unwrap_or_else(|| "later".into())
}

/// How often an open team desk checks the team's audit chain on its own
/// ([`Desk::watch_team_chain`]) unless [`TEAM_CHAIN_CHECK_ENV`] sets another time.
pub const TEAM_CHAIN_CHECK_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// The setting of that time, in whole seconds from 1 to 3600, read when the app opens a
/// team desk (the tests set a second or two rather than wait out a minute).
pub const TEAM_CHAIN_CHECK_ENV: &str = "PAYDESK_TEAM_CHAIN_CHECK_SECONDS";

/// [`TEAM_CHAIN_CHECK_ENV`] as given (`raw`): anything but 1 to 3600 whole seconds is
/// logged and [`TEAM_CHAIN_CHECK_EVERY`] holds, so a typo never turns the check off.
pub fn team_chain_check_every(raw: Option<&str>) -> std::time::Duration {
    let Some(raw) = raw else {
        return TEAM_CHAIN_CHECK_EVERY;
    };
    match raw.trim().parse::<u64>() {
        Ok(s) if (1..=3600).contains(&s) => std::time::Duration::from_secs(s),
        _ => {
            tracing::warn!(
                "{TEAM_CHAIN_CHECK_ENV}={raw:?} is not 1 to 3600 whole seconds: the team's audit chain is checked every {} s",
                TEAM_CHAIN_CHECK_EVERY.as_secs()
            );
            TEAM_CHAIN_CHECK_EVERY
        }
    }
}

/// The row of a team request a signer's worker is executing, as the database held it
/// when the request was claimed (the worker's scope of one row, made in `team_member`).
#[derive(Debug, Clone)]
pub(crate) struct ApprovedRow {
    pub(crate) mer_order_no: String,
    /// Decimal string, as the request's row keeps it.
    pub(crate) amount: String,
    /// The request's currency.
    pub(crate) currency: String,
    /// The CLABE a typed-account payout row goes to, as its form holds it (`None` for a
    /// payee of the team's book, whose account is sealed, and for any other row).
    pub(crate) clabe: Option<String>,
    /// The request's operation (`payout`, `payin`, `top_up`, `withdraw`) and the row's
    /// form as claimed: the wire operation and the account the row pays (review r9 R9-3).
    pub(crate) operation: String,
    pub(crate) form: Value,
}

/// What a signer's worker executes (see [`Desk::approved_if_team`]): the claimed
/// request, its team's merchant, and the row being paid (`None`: the row named is not one
/// of the claim's, and nothing is paid).
#[derive(Debug, Clone)]
pub(crate) struct ApprovedScope {
    pub(crate) request: i64,
    pub(crate) mer_no: i64,
    /// Where the claim was taken (review r9 R9-4: only this desk's team opens it).
    pub(crate) opened: crate::team_member::Opened,
    pub(crate) row: Option<ApprovedRow>,
    /// The entries (id, code) this desk recorded refused on the gateway's answer within
    /// the scope (review r8 R8-8: a refusal the worker saw, not one found in the journal).
    pub(crate) refused: Arc<Mutex<Vec<(i64, String)>>>,
}

tokio::task_local! {
    /// The team request a signer's worker is executing (see [`Desk::approved_if_team`]).
    pub(crate) static APPROVED_REQUEST: ApprovedScope;
}

/// Why a signer's worker's call is refused although it runs in an approved scope: the
/// order it sends is not the claimed row's.
pub const TEAM_APPROVED_ROW_RULE: &str = "a signer's worker sends of an approved request only its rows, each as approved: the order's number, amount and currency must be the claimed row's";

/// Why a team profile's desk sends no money on its own.
pub const TEAM_MONEY_RULE: &str = "on a team profile every money movement is a request under the team's rules, the signers' own included: make a request (`paydesk team request`, or the screen's Request for approval); a signer's worker sends it once approved";

/// The intent key of a team's signers: HMAC-SHA256 under the merchant's private key
/// (PKCS#8) of a fixed label and the merchant number. Every signer holds that key, and
/// no one without it (a member reading the journal) can make or check a fingerprint.
/// A team desk's check of the team's audit chain when it connects: from the head this
/// desk last verified (its keyring's anchor) to the end. When the chain holds, the new
/// head becomes the anchor; when it does not (rows cut, the chain rebuilt), the anchor is
/// kept as it was, the problem is logged loudly and returned.
fn check_team_chain(
    secrets: &Secrets,
    profile: &str,
    team: &dyn TeamDb,
    anchor: Option<&audit::Anchor>,
) -> CoreResult<Option<String>> {
    let (check, next) = team.check_chain_from(anchor)?;
    if !check.ok {
        let why = format!(
            "the team's audit chain no longer holds what this desk verified before: {}",
            check.problem.unwrap_or_default()
        );
        tracing::error!(profile, "{why}");
        return Ok(Some(why));
    }
    // Written only when the head moved: an open desk checks every minute, and an idle
    // team's head stays where it was.
    if let Some(next) = next
        && anchor != Some(&next)
    {
        secrets.set_audit_anchor(profile, &next)?;
    }
    Ok(None)
}

fn team_intent_key(
    key: &paydesk_gateway::PrivateKey,
    mer_no: u64,
) -> paydesk_gateway::Sensitive<Vec<u8>> {
    let mac = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, key.pkcs8_der());
    let tag = aws_lc_rs::hmac::sign(
        &mac,
        format!("paydesk team intent key v1, merchant {mer_no}").as_bytes(),
    );
    paydesk_gateway::Sensitive::new(tag.as_ref().to_vec())
}

impl Desk {
    /// On a team profile, money moves only as an approved request, executed by a
    /// signer's worker: four-eyes binds the key holder too. A review submission moves no
    /// money and is sent by the signer's desk itself.
    fn approved_if_team<O: Operation>(&self) -> CoreResult<()> {
        let data_only = O::NAME == wire::V1TransferOrderSubmit::NAME;
        if self.profile.team.is_some() && !data_only && APPROVED_REQUEST.try_with(|_| ()).is_err() {
            return Err(CoreError::keyed(
                "team",
                TEAM_MONEY_RULE,
                "teamMoneyRule",
                &[],
            ));
        }
        Ok(())
    }

    /// On a team profile, the order a signer's worker sends within an approved scope is
    /// the claimed row's (review r8 R8-5): its number (`mer_order_no`), and the amount and
    /// currency of its request `body` (a card move's `amount`/`currency`, any other's
    /// `sourceAmount`/`currencyCode`) must be the row's as the database held them when the
    /// request was claimed (and a typed CLABE payout's account the row's form's), and the
    /// claim must be this desk's merchant's. Checked before
    /// anything is journaled or sent; a clear refusal naming the rule otherwise.
    fn approved_row_is<O: Operation>(&self, mer_order_no: &str, body: &Value) -> CoreResult<()> {
        if self.profile.team.is_none() || O::NAME == wire::V1TransferOrderSubmit::NAME {
            return Ok(());
        }
        let Ok(scope) = APPROVED_REQUEST.try_with(ApprovedScope::clone) else {
            return Err(CoreError::keyed(
                "team",
                TEAM_MONEY_RULE,
                "teamMoneyRule",
                &[],
            ));
        };
        let card = [wire::V2CardTopUp::NAME, wire::V1CardWithdraw::NAME].contains(&O::NAME);
        let (amount_key, currency_key) = if card {
            ("amount", "currency")
        } else {
            ("sourceAmount", "currencyCode")
        };
        let text = |key: &str| match body.get(key) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => String::new(),
        };
        let (amount, currency) = (text(amount_key), text(currency_key));
        // Review r9 R9-3: the operation and the account, for the claimed row named (of
        // this desk's merchant).
        let op_account = scope
            .row
            .as_ref()
            .filter(|r| {
                r.mer_order_no == mer_order_no
                    && scope.mer_no == self.profile.mer_no as i64
                    && crate::team_member::desk_opens(self, &scope.opened)
            })
            .and_then(|r| self.row_op_and_account::<O>(scope.request, scope.mer_no, r, body));
        let why = match &scope.row {
            _ if scope.mer_no != self.profile.mer_no as i64 => format!(
                "request {} was claimed for merchant {}, not this desk's {}",
                scope.request, scope.mer_no, self.profile.mer_no
            ),
            _ if !crate::team_member::desk_opens(self, &scope.opened) => format!(
                "request {} was claimed on {}, not on this desk's team",
                scope.request, scope.opened
            ),
            None => format!(
                "the row named is not one of request {}'s still open (waiting or unknown) when it was claimed",
                scope.request
            ),
            Some(row) if row.mer_order_no != mer_order_no => format!(
                "{mer_order_no} is not the number of the claimed row {} of request {}",
                row.mer_order_no, scope.request
            ),
            Some(_) if op_account.is_some() => op_account.clone().unwrap_or_default(),
            Some(ApprovedRow {
                clabe: Some(clabe), ..
            }) if O::NAME == wire::V2Payout::NAME && text("clabe").trim() != clabe.trim() => {
                format!(
                    "the account is not the one row {mer_order_no} of request {} was approved for",
                    scope.request
                )
            }
            Some(row)
                if !crate::team_member::same_money(
                    &amount,
                    &currency,
                    &row.amount,
                    &row.currency,
                ) =>
            {
                format!(
                    "{} {} is not what row {} of request {} was approved for ({} {})",
                    amount.trim(),
                    currency.trim(),
                    row.mer_order_no,
                    scope.request,
                    row.amount,
                    row.currency
                )
            }
            Some(_) => return Ok(()),
        };
        Err(CoreError::keyed(
            "team",
            format!("{TEAM_APPROVED_ROW_RULE}: {why}; nothing journaled or sent"),
            "teamApprovedRow",
            &[("request", scope.request.to_string()), ("why", why.clone())],
        ))
    }

    /// Review r9 R9-3: what a claimed row's scope sends is the row's operation (a CLABE
    /// payout row's `v2.payout`, a card payout row's `v1.payout`, a payin row's payment, a
    /// top-up's or a withdrawal's card move), and a payout goes to the row's account (its
    /// typed CLABE, its sealed card number, or its payee's sealed account, each resolved
    /// here from the row as claimed, not taken from the caller), with no other account
    /// field set. Why not, or `None`.
    fn row_op_and_account<O: Operation>(
        &self,
        request: i64,
        mer_no: i64,
        row: &ApprovedRow,
        body: &Value,
    ) -> Option<String> {
        use crate::forms::PayoutKind;
        let kind = row
            .form
            .get("kind")
            .and_then(|k| serde_json::from_value::<PayoutKind>(k.clone()).ok());
        let want: &[&str] = match (row.operation.as_str(), kind) {
            ("payout", Some(PayoutKind::Clabe)) => &[wire::V2Payout::NAME],
            ("payout", Some(PayoutKind::Card)) => &[wire::V1CardPayout::NAME],
            ("payin", _) => &[
                wire::V2Payment::NAME,
                wire::V1Payment::NAME,
                wire::V1VnBankPayment::NAME,
            ],
            ("top_up", _) => &[wire::V2CardTopUp::NAME],
            ("withdraw", _) => &[wire::V1CardWithdraw::NAME],
            _ => &[],
        };
        if !want.contains(&O::NAME) {
            return Some(format!(
                "{} is not how row {} of request {request} ({} {}) is sent",
                O::NAME,
                row.mer_order_no,
                row.operation,
                row.form.get("kind").and_then(Value::as_str).unwrap_or("")
            ));
        }
        let kind = kind.filter(|_| row.operation == "payout")?;
        let account = |key: &str| {
            crate::beneficiaries::normalized_account(
                body.get(key).and_then(Value::as_str).unwrap_or(""),
            )
        };
        let (key, other) = match kind {
            PayoutKind::Clabe => ("clabe", "cardNo"),
            PayoutKind::Card => ("cardNo", "clabe"),
        };
        let approved = match self.row_account(request, mer_no, row, kind) {
            Ok(a) => crate::beneficiaries::normalized_account(&a),
            Err(why) => return Some(why),
        };
        (approved.is_empty() || account(key) != approved || !account(other).is_empty()).then(|| {
            format!(
                "the account is not the one row {} of request {request} was approved for",
                row.mer_order_no
            )
        })
    }

    /// The account a claimed payout row pays, resolved from the row as claimed: its
    /// payee's sealed account (checked as the worker checks it, `payee_to_send`), its
    /// sealed card number, or its typed CLABE.
    fn row_account(
        &self,
        request: i64,
        mer_no: i64,
        row: &ApprovedRow,
        kind: crate::forms::PayoutKind,
    ) -> Result<String, String> {
        use crate::team_member::{CARD_NO, PAYEE_ID, PAYEE_SHA256, SEALED_CARD_NO};
        let form = &row.form;
        if form.get(PAYEE_ID).is_some() || form.get(PAYEE_SHA256).is_some() {
            let team = self
                .team()
                .map_err(|e| format!("the team's book could not be read ({e})"))?
                .ok_or_else(|| "this desk has no team".to_string())?;
            return crate::team_member::payee_of_row(self, &team, mer_no, request, form, kind)?
                .map(|(_, account)| account)
                .ok_or_else(|| "the row names no payee".to_string());
        }
        match kind {
            crate::forms::PayoutKind::Clabe => Ok(form
                .get("clabe")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()),
            crate::forms::PayoutKind::Card => {
                let sealed = form
                    .get(SEALED_CARD_NO)
                    .and_then(Value::as_str)
                    .ok_or_else(|| "the row carries no sealed card number".to_string())?;
                crate::team_member::unseal_for(self, mer_no, request, CARD_NO, sealed)
                    .map_err(|e| format!("the row's sealed card number does not open ({e})"))
            }
        }
    }

    /// The journal's entry under this merchant order number for an order of `kind`:
    /// once it exists, a failure is an unknown outcome, never final.
    pub(crate) fn journal_entry_numbered(
        &self,
        mer_order_no: &str,
        kind: crate::store::orders::OrderKind,
    ) -> CoreResult<Option<Entry>> {
        // Only an entry of the same kind of order is this row's: a payin that happens
        // to carry the number of a payout row says nothing of the payout.
        let ops = crate::journal::JournalOperation::ALL
            .into_iter()
            .filter(|op| {
                *op != crate::journal::JournalOperation::V1TransferOrderSubmit
                    && crate::journal::kind_of(*op) == kind
            });
        for op in ops {
            let entry =
                self.store
                    .journal()
                    .get_by_key(&self.profile.name, op.name(), mer_order_no)?;
            if entry.is_some() {
                return Ok(entry);
            }
        }
        Ok(None)
    }

    /// Opens `profile_name` on the gateway `endpoint` names. Nothing goes over the
    /// network: outcomes left unknown by an earlier run are reconciled by
    /// [`Journal::reconcile_all`], which the caller runs after opening (the app in the
    /// background, the CLI before its command).
    pub fn open(
        home: &Home,
        secrets: Secrets,
        profile_name: &str,
        endpoint: Endpoint,
    ) -> CoreResult<Desk> {
        let started = Instant::now();
        let profile = home.get(profile_name)?;
        let (base, control) = match (endpoint, &profile.base_url) {
            (Endpoint::Local { base_url, control }, _) => (base_url, Some(control)),
            (Endpoint::Profile, Some(url)) => (
                url::Url::parse(url).map_err(|e| {
                    CoreError::validation(
                        "baseUrl",
                        crate::error::Rule::keyed(
                            e.to_string(),
                            "notUrl",
                            &[("reason", e.to_string())],
                        )
                        .quoting("reason", &crate::error::Rule::url_reason(e)),
                    )
                })?,
                None,
            ),
            (Endpoint::Profile, None) => {
                return Err(CoreError::internal(
                    "a profile without a base URL is the built-in sandbox, whose gateway the \
                     session layer starts: open it there",
                ));
            }
        };
        let mut config = ClientConfig::new(base, MerNo(profile.mer_no));
        config.referer = Some(profile.origin.clone());
        config.lang = Some(profile.lang.clone());
        config.order_type = profile.order_type.clone();
        let conventions = home.conventions(profile_name)?;
        let reporting = home.reporting(profile_name)?;
        let limits = home.limits(profile_name)?;
        config.conventions = conventions.clone();
        config.rate_limit = std::num::NonZeroU32::new(profile.sync.rate_limit);
        if !profile.proxy.is_empty() {
            config.proxy = Some(url::Url::parse(&profile.proxy).map_err(|e| {
                CoreError::validation(
                    "proxy",
                    crate::error::Rule::keyed(
                        e.to_string(),
                        "notUrl",
                        &[("reason", e.to_string())],
                    )
                    .quoting("reason", &crate::error::Rule::url_reason(e)),
                )
            })?);
        }
        let gateway_key = secrets.gateway_key(&profile.name)?;
        let base_url = config.base_url.clone();
        // A team desk without the merchant key is a desk of the team's data only.
        let private_key = match secrets.merchant_key(&profile.name) {
            Ok(key) => Some(key),
            Err(CoreError::MissingSecret { .. }) if profile.team.is_some() => None,
            Err(e) => return Err(e),
        };
        let client = match private_key {
            Some(key) => Some(GatewayClient::new(
                config,
                Credentials {
                    private_key: Arc::new(key),
                    gateway_key: gateway_key.clone(),
                    bearer: secrets.bearer(&profile.name)?,
                },
            )?),
            None => None,
        };
        // A team's signers are one team: an intent's fingerprint is the same whichever
        // signer makes it, keyed by a key derived from the merchant key every signer
        // holds (a key of one signer's keyring would make every other signer's worker
        // see a dead signer's rows as another request). A single desk keeps its own.
        let intent_key = match (&profile.team, &client) {
            (Some(_), Some(c)) => team_intent_key(c.private_key(), profile.mer_no),
            _ => secrets.intent_key(&profile.name)?,
        };
        let audit_anchor = secrets.audit_anchor(&profile.name)?;
        let secrets_ms = started.elapsed().as_millis();
        let path = home.database(&profile.name);
        let store = match &profile.team {
            // A team desk: everything is the team's, on its database; the read model on a
            // second link, so a long sync batch never holds up the journal.
            Some(cfg) => {
                // A member authenticated by a client certificate may keep no password.
                let password = crate::team_member::member_password(cfg, &secrets, &profile.name)?;
                crate::team_member::open_store(
                    cfg,
                    password.expose(),
                    profile.mer_no as i64,
                    crate::team_member::Links::JournalAndCache,
                )?
            }
            None => Store::open_sqlite(&path)?,
        };
        // A signer's desk publishes the key makers seal card numbers and tax ids to (the merchant's
        // public key), or puts it back should another have been put in its place.
        if let (Some(team), Some(c)) = (store.team_db(), &client) {
            let tables = team.tables();
            let spki = c.private_key().public_key();
            if tables.seal_key().ok().flatten().as_deref() != Some(spki.spki_der())
                && let Err(e) = tables.publish_seal_key(spki.spki_der())
            {
                tracing::warn!(error = %e, "the team's seal key not published");
            }
        }
        // A desk's own log with rows sealed by a key the keyring no longer holds: a new
        // key made in silence would make them read as tampered with. Refused, naming it.
        if let Some(lost) = journal::lost_audit::lost_in(&store, &secrets, &profile.name)? {
            return Err(journal::lost_audit::lost_key_error(&lost));
        }
        let audit_key = secrets.audit_key(&profile.name)?;
        let team_chain_problem = match store.team_db() {
            Some(team) => check_team_chain(
                &secrets,
                &profile.name,
                team.as_ref(),
                audit_anchor.as_ref(),
            )?,
            None => None,
        };
        let audit_anchor = secrets.audit_anchor(&profile.name)?;
        let dictionary = conventions.dictionary();
        let desk = Desk {
            profile,
            conventions,
            reporting: Mutex::new(reporting),
            limits: Mutex::new(limits),
            home: home.clone(),
            secrets,
            client,
            base_url,
            gateway_key,
            store,
            dictionary,
            control,
            allowed_duplicates: Mutex::default(),
            clock: Arc::new(crate::clock::SystemClock),
            sync_running: Mutex::default(),
            intent_key,
            audit_key,
            audit_anchor: Mutex::new(audit_anchor),
            anchors: Mutex::default(),
            notify_url: Mutex::default(),
            team_chain_problem: match team_chain_problem {
                Some(why) => std::sync::OnceLock::from(why),
                None => std::sync::OnceLock::new(),
            },
        };
        tracing::info!(
            profile = %desk.profile.name,
            secrets_ms,
            total_ms = started.elapsed().as_millis(),
            "desk opened (cumulative times)"
        );
        Ok(desk)
    }

    /// Sets where "now" comes from for the journal's timing rules and the times its
    /// store writes (a test moves a [`crate::clock::ShiftedClock`] instead of sleeping).
    pub fn set_clock(&mut self, clock: Arc<dyn crate::clock::Clock>) {
        let store_clock = clock.clone();
        self.store
            .set_clock(crate::store::Now::of(move || store_clock.now_ms()));
        self.clock = clock;
    }

    /// Changes the time limit of every gateway call.
    pub fn set_timeout(&mut self, timeout: std::time::Duration) -> CoreResult<()> {
        if let Some(client) = &self.client {
            self.client = Some(client.with_timeout(timeout)?);
        }
        Ok(())
    }

    /// The gateway's address this desk talks to. (The client itself stays inside the
    /// engine: a front end that held it could send a payout past the journal.)
    /// The team's database, when this desk is a team profile's.
    pub fn team_link(&self) -> Option<&Arc<dyn TeamDb>> {
        self.store.team_db()
    }

    /// The desk's second connection to the team's database (its read model's).
    pub fn team_cache_link(&self) -> Option<&Arc<dyn TeamDb>> {
        self.store.team_cache_db()
    }

    /// On a team desk, whether a connection to the team's database was lost: whoever
    /// holds the desk opens it again (a link does not reconnect by itself, so that a
    /// claim never outlives the connection that took it).
    pub fn team_connection_lost(&self) -> bool {
        self.store.team_connection_lost()
    }

    /// This desk's member's connection to the team, on a team profile: who the member
    /// is and what the database lets them do (read from the database each time).
    pub fn team(&self) -> CoreResult<Option<crate::team_member::TeamMember>> {
        self.store
            .team_db()
            .map(|link| {
                // The desk's own connection: its member claims for the signer's worker.
                crate::team_member::TeamMember::opened(
                    link.clone(),
                    self.profile
                        .team
                        .as_ref()
                        .map(crate::team_member::Opened::of),
                )
                .map(|t| t.pinning_seal_key(self.secrets.clone(), &self.profile.name))
            })
            .transpose()
    }

    pub fn base_url(&self) -> &url::Url {
        &self.base_url
    }

    /// Whether this desk holds the merchant key and talks to the gateway (a single desk,
    /// or a team's signer); a team desk without it works on the team's data only.
    pub fn holds_key(&self) -> bool {
        self.client.is_some()
    }

    /// The gateway client, or why this desk has none.
    pub(crate) fn client(&self) -> CoreResult<&GatewayClient> {
        self.client.as_ref().ok_or_else(|| {
            CoreError::keyed(
                "team",
                "this desk holds no merchant key: only the team's signer (a signer desk or \
                 `paydesk team worker`) talks to the gateway; make a request for approval \
                 instead",
                "teamNoMerchantKey",
                &[],
            )
        })
    }

    pub fn dictionary(&self) -> &StateDictionary {
        &self.dictionary
    }

    /// The gateway's conventions this desk works by.
    pub fn conventions(&self) -> &paydesk_gateway::Conventions {
        &self.conventions
    }

    /// Whether the gateway's order list can prove where an entry's order stands: the
    /// operation carries a number the list is asked by, and the conventions say the list
    /// shows that operation's orders. Otherwise an unknown outcome stays unknown until a
    /// person resolves it, and is never sent again by the desk.
    pub(crate) fn listable(&self, e: &Entry) -> bool {
        e.operation.can_be_looked_up()
            && self
                .conventions
                .list_shows
                .shows(crate::store::journal::kind_of(e.operation))
    }

    /// On a team desk, checks the team's audit chain from this desk's anchor every
    /// `every` while the desk lives ([`Journal::recheck_team_chain`]), so a desk left open
    /// and idle, a viewer's too, sees history cut or rewritten without a step of its own:
    /// the problem is logged as an error and kept ([`Journal::team_chain_problem`], which the
    /// app shows), as at connect. Ends when the desk is dropped or once a problem is
    /// found (it stays for the desk's life). `None` on a single desk.
    pub fn watch_team_chain(
        self: &Arc<Self>,
        every: std::time::Duration,
    ) -> Option<tokio::task::JoinHandle<()>> {
        self.store.team_db()?;
        let desk = Arc::downgrade(self);
        Some(tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(d) = desk.upgrade() else { return };
                if d.journal().team_chain_problem().is_some() {
                    return;
                }
                let checked = tokio::task::spawn_blocking(move || {
                    let found = d.journal().recheck_team_chain().map(|p| p.is_some());
                    (d, found)
                })
                .await;
                match checked {
                    Ok((_, Ok(true))) => return,
                    Ok((_, Ok(false))) => {}
                    Ok((d, Err(e))) => tracing::warn!(
                        profile = %d.profile.name,
                        error = %e,
                        "the team's audit chain not checked this round"
                    ),
                    Err(e) => tracing::warn!(error = %e, "the team's audit chain check stopped"),
                }
            }
        }))
    }

    pub fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    /// Hands SQLite's page caches (of the cache and the journal connections) back to the
    /// allocator: what an idle desktop app does so that its resident memory is not the
    /// high-water mark of its last big query. The next query reads from the OS cache.
    pub fn release_memory(&self) -> CoreResult<()> {
        self.store.shrink_memory()
    }

    fn audit(&self, operation: &str, identifiers: String, result: &str, started: Instant) {
        let r = Record {
            profile: &self.profile.name,
            operator: &self.profile.operator,
            operation,
            identifiers,
            result: result.to_string(),
            latency_ms: i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX),
        };
        // The keyring's anchor now (another desk may have written since); the last one
        // known here if the keyring cannot be read this once. A team desk's log is
        // chained by the team's database, which takes no anchor: no keyring read.
        let anchor = if self.profile.team.is_some() {
            None
        } else {
            match self.secrets.audit_anchor(&self.profile.name) {
                Ok(a) => a,
                Err(e) => {
                    tracing::warn!(error = %e, "audit anchor unreadable; using the last one known");
                    lock(&self.audit_anchor).clone()
                }
            }
        };
        let appended = self
            .store
            .audit()
            .append(r, self.audit_key.expose(), anchor.as_ref());
        match appended {
            // Recorded after the commit: a crash in between leaves the keyring one row
            // behind (still a valid anchor), never ahead of the database.
            // A team desk anchors only a head it verified: the chain is checked from its
            // anchor to the head now, past its own row (a cut of what followed its
            // connect is seen now, not at its next connect). A signer's worker checks it
            // once a group of rows instead (`team::execute_next`), not after each of a
            // row's calls.
            Ok(_) if self.profile.team.is_some() && APPROVED_REQUEST.try_with(|_| ()).is_ok() => {}
            Ok(_) if self.profile.team.is_some() => {
                if let Err(e) = self.journal().recheck_team_chain() {
                    tracing::warn!(error = %e, operation, "the team's audit chain not checked again");
                }
            }
            Ok((_, anchor)) => {
                if let Err(e) = self.secrets.set_audit_anchor(&self.profile.name, &anchor) {
                    tracing::error!(error = %e, operation, "audit anchor not recorded in the keyring");
                }
                *lock(&self.audit_anchor) = Some(anchor);
            }
            // The log is incomplete from here: said by `audit verify` from now on.
            Err(e) => {
                tracing::error!(error = %e, operation, "audit log write failed");
                let why = format!(
                    "{} at {}: {e}",
                    operation,
                    chrono::Utc::now().format("%Y-%m-%d %H:%M:%S UTC")
                );
                if let Err(k) = self.secrets.set_audit_alert(&self.profile.name, &why) {
                    tracing::error!(error = %k, "audit alert not recorded in the keyring");
                }
            }
        }
    }

    /// The audit rows of a group of calls (a bulk run's), in one commit, chained from the
    /// anchor this desk holds. The keyring's anchor is written once a group, by
    /// [`Desk::anchor_audit`], not per row.
    fn audit_group(&self, rows: Vec<(&str, String, String, Instant)>) {
        if rows.is_empty() {
            return;
        }
        let records = self.audit_records(rows);
        let anchor = lock(&self.audit_anchor).clone();
        // Bound first: the log (and the journal's connection) is free again before the
        // keyring's anchor is written, which reads the log.
        let appended =
            self.store
                .audit()
                .append_many(records, self.audit_key.expose(), anchor.as_ref());
        match appended {
            Ok(Some(a)) if self.profile.team.is_none() => {
                *lock(&self.audit_anchor) = Some(a);
                self.anchor_audit();
            }
            Ok(_) => {}
            Err(e) => {
                tracing::error!(error = %e, "audit log write failed");
                let why = format!(
                    "a bulk run's calls at {}: {e}",
                    chrono::Utc::now().format("%Y-%m-%d %H:%M:%S UTC")
                );
                if let Err(k) = self.secrets.set_audit_alert(&self.profile.name, &why) {
                    tracing::error!(error = %k, "audit alert not recorded in the keyring");
                }
            }
        }
    }

    /// Audit rows of this desk's operator: (operation, identifiers, result, started).
    fn audit_records<'a>(
        &'a self,
        rows: Vec<(&'a str, String, String, Instant)>,
    ) -> Vec<Record<'a>> {
        rows.into_iter()
            .map(|(operation, identifiers, result, started)| Record {
                profile: &self.profile.name,
                operator: &self.profile.operator,
                operation,
                identifiers,
                result,
                latency_ms: i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX),
            })
            .collect()
    }

    /// Records the audit chain's anchor this desk holds in the keyring, unless the
    /// keyring already holds a later one (another desk's): after each bulk turn's
    /// commit, and once more at the end of a run.
    fn anchor_audit(&self) {
        if self.profile.team.is_some() {
            return;
        }
        let Some(ours) = lock(&self.audit_anchor).clone() else {
            return;
        };
        let kept = self.secrets.audit_anchor(&self.profile.name).ok().flatten();
        if self.ours_is_later(kept.as_ref(), &ours)
            && let Err(e) = self.secrets.set_audit_anchor(&self.profile.name, &ours)
        {
            tracing::error!(error = %e, "audit anchor not recorded in the keyring");
        }
    }

    /// Whether the anchor this desk holds (`ours`) stands over the keyring's (`kept`):
    /// the log still reaches it and it is further along the same chain, `kept` being
    /// reached too. Row counts alone are no guide: a log set aside and started again
    /// ([`start_new_audit_log`]) counts from one, so an anchor of the old log has more
    /// rows; and a keyring's anchor the log no longer reaches (rows cut) must stand, so
    /// that the next append is refused.
    fn ours_is_later(&self, kept: Option<&audit::Anchor>, ours: &audit::Anchor) -> bool {
        let reached = |a: &audit::Anchor| matches!(self.store.audit_reaches(a), Ok(Some(true)));
        match kept {
            None => reached(ours),
            Some(k) => k.count < ours.count && reached(ours) && reached(k),
        }
    }

    fn result_code<T>(r: &Result<T, GatewayError>) -> String {
        match r {
            Ok(_) => "ok".into(),
            Err(GatewayError::Rejected { code, .. }) => code.clone(),
            Err(GatewayError::Http { status, .. }) => format!("HTTP {status}"),
            Err(GatewayError::Invalid(f)) => format!("invalid {}", f.field),
            Err(GatewayError::NotSent { .. }) => "not_sent".into(),
            Err(GatewayError::OutcomeUnknown { .. }) => "outcome_unknown".into(),
            Err(GatewayError::BadResponse { .. }) => "bad_response".into(),
            Err(GatewayError::SignatureInvalid { .. }) => "signature_invalid".into(),
        }
    }

    /// A query (nothing moves): sent, audited, answered.
    pub(crate) async fn query<O: Operation>(
        &self,
        op: &O,
        identifiers: String,
    ) -> CoreResult<paydesk_gateway::Answer<O::Output>> {
        let started = Instant::now();
        let r = ask(self.client()?, op).await;
        self.audit(O::NAME, identifiers, &Self::result_code(&r), started);
        match r {
            // The gateway's "no such order" (its conventions' notFoundCodes) is an
            // answer about the order, not a refusal of the query.
            Err(GatewayError::Rejected { code, message })
                if self.conventions.not_found_codes.contains(&code) =>
            {
                Err(CoreError::not_found(format!(
                    "the gateway has no such order ({code} {message})"
                )))
            }
            r => Ok(r?),
        }
    }

    fn guard(&self, allow_duplicate: bool) -> Guard {
        Guard {
            window_ms: i64::from(self.profile.safety.duplicate_window_hours) * 3_600_000,
            allow_duplicate,
        }
    }

    /// The fingerprint of an operation's request ([`crate::journal::fingerprint`]), its
    /// payment method (a header, not a member) included. Made from the request's
    /// members, not its signed body: the signature is no part of the intent, and a
    /// bulk plan fingerprints every row without signing it.
    pub(crate) fn fingerprint_of<O: Operation>(&self, op: &O) -> CoreResult<String> {
        let body = serde_json::to_value(op).map_err(|e| CoreError::internal(e.to_string()))?;
        let name = match op.headers().payment_type {
            Some(t) => format!("{}/{t}", O::NAME),
            None => O::NAME.to_string(),
        };
        Ok(crate::journal::fingerprint(
            self.intent_key.expose(),
            &name,
            &body,
        ))
    }

    /// A keyed digest for this profile (bulk row numbers).
    pub(crate) fn keyed(&self, text: &str, bytes: usize) -> String {
        crate::journal::keyed_digest(self.intent_key.expose(), text, bytes)
    }

    /// Sends an operation that moves money or submits data, through the journal:
    /// the intent is committed before the request leaves, `mer_order_no` is the entry's
    /// fixed key, and an existing entry is never sent twice. A new number for an intent
    /// that is unresolved or was accepted lately is refused ([`CoreError::Duplicate`])
    /// unless [`Journal::allow_duplicate_once`] confirmed it; an existing number with
    /// another request is refused. An unknown entry is looked up, and sent again (same
    /// number) only once the lookups prove it is not at the gateway.
    pub(crate) async fn submit<O: Operation>(
        &self,
        op: &O,
        mer_order_no: &str,
        summary: &str,
    ) -> CoreResult<Submitted<O::Output>>
    where
        O::Output: TradeNo,
    {
        self.submit_order(op, mer_order_no, summary, None).await
    }

    /// [`Desk::submit`] of an order whose payment `method` the desk knows (it travels
    /// in a header the journal does not keep): the order is cached with it when made.
    pub(super) async fn submit_order<O: Operation>(
        &self,
        op: &O,
        mer_order_no: &str,
        summary: &str,
        method: Option<&str>,
    ) -> CoreResult<Submitted<O::Output>>
    where
        O::Output: TradeNo,
    {
        let mut s = self
            .submit_order_unseen(op, mer_order_no, summary, method)
            .await?;
        s.entry = self.as_seen(s.entry);
        Ok(s)
    }

    async fn submit_order_unseen<O: Operation>(
        &self,
        op: &O,
        mer_order_no: &str,
        summary: &str,
        method: Option<&str>,
    ) -> CoreResult<Submitted<O::Output>>
    where
        O::Output: TradeNo,
    {
        const {
            assert!(
                O::MOVES_MONEY,
                "Desk::submit is for operations that move money or submit data"
            )
        };
        self.approved_if_team::<O>()?;
        let prepared = self.client()?.prepare(op)?;
        let body = Value::Object(prepared.body.clone());
        self.approved_row_is::<O>(mer_order_no, &body)?;
        let fp = self.fingerprint_of(op)?;
        let allow_duplicate = lock(&self.allowed_duplicates).remove(mer_order_no);
        // Confirmed: a second one only beside earlier ones of the intent whose outcome is
        // known (review r6 R6-5): an unknown one is looked up first.
        if allow_duplicate {
            self.earlier_intents_known(&fp, mer_order_no).await?;
        }
        let why = records::purpose::current();
        let intent = Intent {
            operation: O::NAME,
            mer_order_no,
            request: &body,
            summary,
            fingerprint: &fp,
            purpose: why.as_ref(),
        };
        // A payout's per-day limit is checked again in the transaction that writes it
        // (review-money-r5 F1): payouts at once cannot pass on the same "used today".
        let day = self.day_limit_of(O::NAME, &body)?;
        // Twice at most: an unknown entry that its lookups prove absent goes again now.
        for _ in 0..2 {
            let guard = self.guard(allow_duplicate);
            let began = match &day {
                None => self
                    .store
                    .journal()
                    .begin(&self.profile.name, intent, guard)?,
                Some((currency, amount, per_day, since_ms)) => {
                    let within = crate::journal::DayLimit {
                        operations: &money::funds::PAYOUTS,
                        currency,
                        amount: *amount,
                        per_day: *per_day,
                        since_ms: *since_ms,
                    };
                    match self.store.journal().begin_within(
                        &self.profile.name,
                        intent,
                        guard,
                        within,
                    )? {
                        Ok(b) => b,
                        Err(over) => {
                            return Err(crate::limits::OverLimit {
                                kind: crate::limits::LimitKind::PerDay,
                                currency: currency.clone(),
                                limit: *per_day,
                                used_today: over.used,
                            }
                            .error());
                        }
                    }
                }
            };
            // Whether this call takes up an entry sent before (review r9 R9-10: from the
            // journal's answer to this call, never from the `attempts` column a signer
            // may write).
            let resend = matches!(began, Begin::Resend(..));
            let (entry, claim) = match began {
                Begin::Send(e, claim) => {
                    let earlier = if allow_duplicate {
                        self.store.journal().same_intent(
                            &self.profile.name,
                            &fp,
                            self.guard(false).window_ms,
                            &[mer_order_no],
                        )?
                    } else {
                        None
                    };
                    if let Some(earlier) = earlier {
                        self.audit(
                            "duplicate_override",
                            format!(
                                "merOrderNo={mer_order_no} earlier={} ({})",
                                earlier.mer_order_no,
                                earlier.status.as_str()
                            ),
                            "confirmed",
                            Instant::now(),
                        );
                    }
                    (e, claim)
                }
                Begin::Resend(e, claim) => (e, claim),
                Begin::Exists(e) => {
                    let e = match e.status {
                        Status::Unknown | Status::Sending => {
                            self.journal().reconcile_entry(&e, true).await?
                        }
                        _ => e,
                    };
                    if e.status == Status::Pending {
                        // Proven absent: it leaves now, checked as a payout sent again
                        // (the limits and the balance of now, R6-3); refused, it stays
                        // pending.
                        self.check_before_resend(O::NAME, mer_order_no, &body)
                            .await?;
                        continue;
                    }
                    if e.status == Status::Accepted && method.is_some() {
                        // Run again (or reconciled just now): the cached order gets the
                        // method the journal's request does not keep.
                        self.cache_made(&e, method, None);
                    }
                    return Ok(Submitted {
                        entry: e,
                        data: None,
                        replayed: true,
                    });
                }
                Begin::Duplicate(earlier) => {
                    return Err(CoreError::Duplicate {
                        earlier_id: earlier.id,
                        age_secs: (self.clock.now_ms() - earlier.created_at).max(0) / 1000,
                        earlier_status: earlier.status.as_str().into(),
                        earlier_mer_order_no: earlier.mer_order_no,
                        summary: earlier.summary,
                    });
                }
                Begin::Mismatch(e) => {
                    return Err(CoreError::keyed(
                        "merOrderNo",
                        format!(
                            "{mer_order_no} is already in the journal for another request ({}: {}); a number is reused only for the same request",
                            e.operation, e.summary
                        ),
                        "orderNoInJournal",
                        &[("orderNo", mer_order_no.to_string())],
                    ));
                }
            };
            return self
                .send_claimed(op, &prepared, entry, claim, method, resend)
                .await;
        }
        let entry = self
            .store
            .journal()
            .get_by_key(&self.profile.name, O::NAME, mer_order_no)?
            .ok_or_else(|| CoreError::internal("journal entry vanished"))?;
        Ok(Submitted {
            entry,
            data: None,
            replayed: true,
        })
    }

    /// Sends an entry this desk has claimed, and records the answer.
    async fn send_claimed<O: Operation>(
        &self,
        op: &O,
        prepared: &paydesk_gateway::Prepared,
        entry: Entry,
        claim: Claim,
        method: Option<&str>,
        resend: bool,
    ) -> CoreResult<Submitted<O::Output>>
    where
        O::Output: TradeNo,
    {
        let started = Instant::now();
        let r = self.client()?.send_prepared(op, prepared).await;
        self.record_answer::<O>(entry, claim, r, method, started, resend)
            .await
    }

    /// Records the gateway's answer to an entry this desk sent under `claim` (its audit
    /// row, its outcome in the journal, the order made cached): what [`Desk::submit`]
    /// does once the answer (or the lack of one) is in. `resend`: the entry was sent
    /// before (its refusal is looked up before it is believed).
    pub(super) async fn record_answer<O: Operation>(
        &self,
        entry: Entry,
        claim: Claim,
        r: Result<paydesk_gateway::Answer<O::Output>, GatewayError>,
        method: Option<&str>,
        started: Instant,
        resend: bool,
    ) -> CoreResult<Submitted<O::Output>>
    where
        O::Output: TradeNo,
    {
        self.audit(
            O::NAME,
            money_identifiers(&entry, r.as_ref().ok().and_then(|a| a.data.trade_no())),
            &Self::result_code(&r),
            started,
        );
        let e = match r {
            Ok(a) => {
                let trade_no = a.data.trade_no();
                let Some(broken) = unusable_success(&entry, &a.data) else {
                    let entry = self.accepted(
                        entry,
                        &claim,
                        trade_no.as_deref(),
                        &paydesk_gateway::redact::terminal_safe(&a.code, 40),
                        &paydesk_gateway::redact::terminal_safe(&a.message, 500),
                    )?;
                    self.cache_made(&entry, method, a.data.pay_code());
                    return Ok(Submitted {
                        entry,
                        data: Some(a.data),
                        replayed: false,
                    });
                };
                let message = format!(
                    "the gateway answered {} without a usable trade number for this order ({}: {}); never sent again, looked up until the gateway lists it",
                    paydesk_gateway::redact::terminal_safe(&a.code, 40),
                    broken.field,
                    broken.rule
                );
                {
                    let journal = self.store.journal();
                    // Marked first: whatever happens next, it is never sent again.
                    journal.mark_answered(entry.id)?;
                    journal.finish(
                        entry.id,
                        &claim,
                        Outcome {
                            status: Status::Unknown,
                            trade_no: None,
                            code: Some(&a.code),
                            message: Some(&message),
                        },
                    )?;
                }
                return Err(CoreError::OutcomeUnknown { message });
            }
            Err(e) => e,
        };
        let mut message = e.to_string();
        let (status, code) = match &e {
            // "This number is already used" (the conventions' duplicate codes), on any
            // attempt (review r9 R9-10): the number is at the gateway, so it is never a
            // refusal; looked up (found: accepted), unknown otherwise.
            GatewayError::Rejected { code, .. }
                if self.conventions.duplicate_codes.contains(code) =>
            {
                message = format!(
                    "the gateway refused the number as already used ({code}): an order under it is at the gateway; kept unknown and looked up, never sent again"
                );
                let found = if self.listable(&entry) {
                    self.look_up(&entry).await
                } else {
                    Err(GatewayError::NotSent {
                        reason: "not listable".into(),
                    })
                };
                if let Ok(Listed::Found(item, verified)) = found {
                    let note = format!(
                        "the gateway refused the number as already used ({code}), and the order is at the gateway: an attempt before arrived"
                    );
                    let entry =
                        self.accepted(entry, &claim, Some(&item.trade_no), "reconciled", &note)?;
                    self.cache_listed(&item, entry.created_at, verified);
                    self.cache_made(&entry, method, None);
                    return Ok(Submitted {
                        entry,
                        data: None,
                        replayed: false,
                    });
                }
                (Status::Unknown, Some(code.clone()))
            }
            GatewayError::Rejected { code, .. } if resend && self.listable(&entry) => {
                // A refusal of a resend may mean the first attempt arrived after all
                // (a reused number refused): look before believing it.
                match self.look_up(&entry).await {
                    Ok(Listed::Found(item, verified)) => {
                        let note = format!(
                            "the resend was refused ({code}), and the order is at the gateway: the first attempt arrived"
                        );
                        let entry = self.accepted(
                            entry,
                            &claim,
                            Some(&item.trade_no),
                            "reconciled",
                            &note,
                        )?;
                        self.cache_listed(&item, entry.created_at, verified);
                        self.cache_made(&entry, method, None);
                        return Ok(Submitted {
                            entry,
                            data: None,
                            replayed: false,
                        });
                    }
                    // Not proven absent (the lookup failed, or the list names it without
                    // a trade number), or refused as a reused number: still unknown.
                    Err(_) | Ok(Listed::WithoutTradeNo) => (Status::Unknown, Some(code.clone())),
                    Ok(Listed::Conflict(why)) => {
                        message = format!(
                            "conflict: {why}. The resend was refused ({code}); kept unknown and never sent again: check this order with the gateway"
                        );
                        (Status::Unknown, Some("conflict".to_string()))
                    }
                    _ if self.conventions.duplicate_codes.contains(code) => {
                        (Status::Unknown, Some(code.clone()))
                    }
                    Ok(Listed::Absent) => (Status::Rejected, Some(code.clone())),
                }
            }
            _ => plain_failure(&e),
        };
        let written = self.store.journal().finish(
            entry.id,
            &claim,
            Outcome {
                status,
                trade_no: None,
                code: code.as_deref(),
                message: Some(&message),
            },
        )?;
        if written && status == Status::Rejected {
            // Within a signer's worker's scope: the refusal it saw the gateway give.
            let _ = APPROVED_REQUEST.try_with(|scope| {
                lock(&scope.refused).push((entry.id, code.clone().unwrap_or_default()));
            });
        }
        Err(match (status, e) {
            (Status::Unknown, GatewayError::Rejected { code, message }) => {
                CoreError::OutcomeUnknown {
                    message: format!(
                        "the gateway refused it ({code} {message}), which does not prove it refused (a number already used, or a send again): the order is not in the gateway's list yet; looked up, never sent again"
                    ),
                }
            }
            (Status::Unknown, GatewayError::Http { status, message }) => {
                CoreError::OutcomeUnknown {
                    message: format!("HTTP {status}: {message}"),
                }
            }
            (_, e) => e.into(),
        })
    }

    /// Records an entry this desk holds the claim of as accepted; the entry as it is now.
    fn accepted(
        &self,
        entry: Entry,
        claim: &Claim,
        trade_no: Option<&str>,
        code: &str,
        message: &str,
    ) -> CoreResult<Entry> {
        let journal = self.store.journal();
        journal.finish(
            entry.id,
            claim,
            Outcome {
                status: Status::Accepted,
                trade_no,
                code: Some(code),
                message: Some(message),
            },
        )?;
        Ok(journal.get(entry.id)?.unwrap_or(entry))
    }

    /// Asks the gateway's order list for an entry's merchant order number, and what the
    /// answer proves of the entry's order ([`crate::lookup::prove`]): an answer that
    /// proves neither presence nor absence is an error (looked up again later).
    async fn look_up(&self, entry: &Entry) -> Result<Listed, GatewayError> {
        let mer_order_no = entry.mer_order_no.as_str();
        let op = wire::V2OrderList {
            mer_no: MerNo(self.profile.mer_no),
            mer_order_nos: vec![mer_order_no.to_string()],
            trade_nos: vec![],
            date_limit: None,
            page_num: 1,
            page_size: 50,
            version: wire::V2OrderList::VERSION.into(),
        };
        let started = Instant::now();
        let client = self.client().map_err(|e| GatewayError::NotSent {
            reason: e.to_string(),
        })?;
        let r = ask(client, &op).await;
        self.audit(
            "reconcile",
            format!("merOrderNo={mer_order_no}"),
            &Self::result_code(&r),
            started,
        );
        let answer = r?;
        let verified = answer.signature == paydesk_gateway::SignatureStatus::Verified;
        let intended = crate::lookup::Intended {
            mer_order_no,
            money: orders::made::intended_money(entry),
            kind: orders::made::intended_kind(entry),
        };
        let known_kind = |trade_no: &str| {
            self.store
                .orders()
                .get(trade_no)
                .ok()
                .flatten()
                .and_then(|o| o.kind)
        };
        match crate::lookup::prove(&answer.data, &intended, known_kind) {
            crate::lookup::Proof::Ours(item) => Ok(Listed::Found(item, verified)),
            crate::lookup::Proof::Conflict(why) => Ok(Listed::Conflict(why)),
            crate::lookup::Proof::WithoutTradeNo => Ok(Listed::WithoutTradeNo),
            crate::lookup::Proof::Absent => Ok(Listed::Absent),
            crate::lookup::Proof::Unproven(why) => Err(GatewayError::BadResponse {
                reason: format!("the order list for merOrderNo {mer_order_no} {why}"),
            }),
        }
    }

    /// An entry as this desk sees it: whether the gateway's list can prove where it
    /// stands takes the conventions' `listShows` into account (what the screens offer:
    /// a look-up, or a person's resolution).
    pub(crate) fn as_seen(&self, mut e: Entry) -> Entry {
        e.can_be_looked_up = self.listable(&e);
        e
    }

    /// A `rejected` entry whose refusal the caller did not see the gateway give, looked
    /// up at the gateway again ([`Journal::recheck_refused`]): the entry now, and what
    /// that proved (review r9 R9-1, R9-2, R9-6, R9-7).
    pub(crate) async fn recheck_refused_unseen(&self, e: &Entry) -> CoreResult<(Entry, Rechecked)> {
        let current = || -> CoreResult<Entry> {
            Ok(self.store.journal().get(e.id)?.unwrap_or_else(|| e.clone()))
        };
        let now_entry = current()?;
        match now_entry.status {
            Status::Accepted => return Ok((now_entry, Rechecked::Accepted)),
            Status::Rejected => {}
            other => {
                let why = format!("the journal says {} now", other.as_str());
                return Ok((now_entry, Rechecked::Unproven(why)));
            }
        }
        let facts = self.store.journal().refusal_facts(e.id)?;
        if facts.voided {
            // A person's decision (the team database's owner, `paydesk.journal_void`,
            // audited there; no member writes the mark), after checking the merchant's
            // order list: the refusal is settled.
            let why = format!(
                "refused by a person's decision: {}",
                now_entry
                    .resolution
                    .clone()
                    .unwrap_or_else(|| "voided by the team database's owner".into())
            );
            return Ok((now_entry, Rechecked::Refused(why)));
        }
        let settle = "a person settles it: the team database's owner voids the entry once the merchant's order list shows the order never went (with the database's function `paydesk.journal_void(<entry>, '<what you checked>')`, audited), and the row is refused then";
        if !self.listable(&now_entry) {
            let why = format!(
                "the gateway cannot be asked about it (a card withdrawal, or an order its list does not show: conventions listShows), so nothing proves the refusal; never sent again, never final by itself: {settle}"
            );
            return Ok((now_entry, Rechecked::Unproven(why)));
        }
        let desk_now = self.clock.now_ms();
        if let Some(at) = now_entry.next_check_at.filter(|at| *at > desk_now) {
            let why = format!(
                "not proven refused at its last lookup; looked up again from {} (backoff)",
                utc_time(at)
            );
            return Ok((now_entry, Rechecked::Unproven(why)));
        }
        let Some((e, claim)) = self.store.journal().claim(e.id)? else {
            // Another process is looking it up or sending it right now.
            let why = "another process is at work on its entry".to_string();
            return Ok((current()?, Rechecked::Unproven(why)));
        };
        if e.status != Status::Rejected {
            self.store.journal().release(e.id, &claim)?;
            let now_entry = current()?;
            if now_entry.status == Status::Accepted {
                return Ok((now_entry, Rechecked::Accepted));
            }
            let why = format!("the journal says {} now", now_entry.status.as_str());
            return Ok((now_entry, Rechecked::Unproven(why)));
        }
        let r = self.look_up(&e).await;
        let journal = self.store.journal();
        // The next lookup of a refusal that is not proven: backed off from 30 s to an
        // hour (R9-6: such a row is taken up every 30 s).
        let next = |lookups: i64| {
            desk_now + (30_000i64 * 2i64.pow(lookups.clamp(0, 7) as u32)).min(3_600_000)
        };
        let why = match r {
            Ok(Listed::Found(item, verified)) => {
                let meaning = self
                    .dictionary
                    .meaning(StateField::OrderState, &item.state.to_string());
                match meaning {
                    // The gateway lists the order as not paid (R9-7): the refusal is
                    // proven; the entry stays refused.
                    Some(Meaning::Failed | Meaning::Closed) => {
                        journal.release(e.id, &claim)?;
                        drop(journal);
                        self.audit(
                            "journal_refusal_proven",
                            format!(
                                "merOrderNo={} id={} tradeNo={} state={}",
                                e.mer_order_no, e.id, item.trade_no, item.state
                            ),
                            "rejected",
                            Instant::now(),
                        );
                        self.cache_listed(&item, e.created_at, verified);
                        let why = format!(
                            "the gateway lists the order {} in state {} ({}): refused",
                            item.trade_no,
                            item.state,
                            meaning.map_or("?", Meaning::as_str)
                        );
                        return Ok((current()?, Rechecked::Refused(why)));
                    }
                    // A state this desk's conventions do not name: neither paid nor
                    // refused is proven.
                    None => format!(
                        "the gateway lists the order {} in state {}, which this desk's conventions do not name",
                        item.trade_no, item.state
                    ),
                    // Made, in progress or paid: the money may leave or has left.
                    Some(_) => {
                        journal.finish(
                            e.id,
                            &claim,
                            Outcome {
                                status: Status::Accepted,
                                trade_no: Some(&item.trade_no),
                                code: Some("reconciled"),
                                message: Some(
                                    "found at the gateway although the journal said refused",
                                ),
                            },
                        )?;
                        let now_entry = journal.get(e.id)?.unwrap_or_else(|| e.clone());
                        drop(journal);
                        self.audit(
                            "journal_refusal_disproved",
                            format!("merOrderNo={} id={}", e.mer_order_no, e.id),
                            "accepted",
                            Instant::now(),
                        );
                        self.cache_listed(&item, now_entry.created_at, verified);
                        self.cache_made(&now_entry, None, None);
                        return Ok((now_entry, Rechecked::Accepted));
                    }
                }
            }
            Ok(Listed::Absent) => {
                // The rule every other "not at the gateway" of the desk follows
                // (`not_listed`, R9-2): never for an entry the gateway answered, the
                // lookups counted, the grace on the clock that stamped the send (the
                // team database's, L1) and at least the team's grace. Even then a
                // refusal this worker did not see is not made final here: a row refused
                // is requested again under a new number, which no gateway can tell from
                // the first, while a list that shows orders late is what the grace is for
                // (and a signer may write the lookups and answered columns).
                let answered = journal.answered(e.id)?;
                let safety =
                    crate::profile::Safety {
                        not_found_grace_secs: self.profile.safety.not_found_grace_secs.max(
                            u32::try_from(facts.grace_ms.div_euclid(1000)).unwrap_or(u32::MAX),
                        ),
                        ..self.profile.safety.clone()
                    };
                let now = facts.now.unwrap_or(desk_now);
                match not_listed(&e, answered, &safety, now) {
                    NotListed::SafeToSend { note } => format!(
                        "the gateway's list does not show it ({note}); most likely refused, but a refusal no worker's call was seen to get is not final by itself"
                    ),
                    NotListed::LookAgain { note, .. } => note,
                }
            }
            Ok(Listed::WithoutTradeNo) => {
                "the gateway lists the order without a trade number".to_string()
            }
            Ok(Listed::Conflict(why)) => format!("conflict: {why}"),
            Err(err) => {
                let why = format!("its lookup failed ({err})");
                journal.defer(e.id, next(e.lookups), &why)?;
                journal.release(e.id, &claim)?;
                drop(journal);
                return Ok((current()?, Rechecked::Unproven(why)));
            }
        };
        let at = next(e.lookups + 1);
        let message = format!(
            "refused in the journal, not seen refused by a worker's call: {why}; looked up again from {}; never sent again: {settle}",
            utc_time(at)
        );
        journal.refusal_looked_up(e.id, &claim, at, &message)?;
        drop(journal);
        Ok((current()?, Rechecked::Unproven(message)))
    }

    async fn reconcile_entry_unseen(&self, e: &Entry, force: bool) -> CoreResult<Entry> {
        let current = || -> CoreResult<Entry> {
            Ok(self.store.journal().get(e.id)?.unwrap_or_else(|| e.clone()))
        };
        if !e.operation.can_be_looked_up() {
            // These calls carry no merchant order number the gateway can be asked about.
            let msg = "the gateway cannot be asked about this call: check the card's or the order's history, then mark it done or send it again with the same reference";
            self.store.journal().note(e.id, msg)?;
            return current();
        }
        if !self.listable(e) {
            // The gateway's list does not show this operation's orders (its conventions
            // say so): not being listed proves nothing, so it is never sent again here.
            let msg = format!(
                "the gateway's order list does not show {} orders (conventions listShows), so the desk cannot prove whether it arrived: check with the gateway, then resolve it with what you found (`paydesk journal resolve`)",
                crate::store::journal::kind_of(e.operation).as_str()
            );
            self.store.journal().note(e.id, &msg)?;
            return current();
        }
        let Some((e, claim)) = self.store.journal().claim(e.id)? else {
            // Another process (or window) is sending or looking it up right now.
            return current();
        };
        let due = force || e.next_check_at.is_none_or(|t| t <= self.clock.now_ms());
        if !matches!(e.status, Status::Unknown | Status::Sending) || !due {
            self.store.journal().release(e.id, &claim)?;
            return current();
        }
        let r = self.look_up(&e).await;
        let journal = self.store.journal();
        let now = self.clock.now_ms();
        match r {
            Ok(Listed::Conflict(why)) => {
                // Kept unknown and never sent again: the operator settles it with the
                // gateway. Looked up again later, in case the list was wrong.
                let message = format!(
                    "conflict: {why}. Kept unknown and never sent again: check this order with the gateway"
                );
                journal.finish(
                    e.id,
                    &claim,
                    Outcome {
                        status: Status::Unknown,
                        trade_no: None,
                        code: Some("conflict"),
                        message: Some(&message),
                    },
                )?;
                journal.defer(e.id, now + 300_000, &message)?;
            }
            Ok(Listed::Found(item, verified)) => {
                journal.finish(
                    e.id,
                    &claim,
                    Outcome {
                        status: Status::Accepted,
                        trade_no: Some(&item.trade_no),
                        code: Some("reconciled"),
                        message: Some("found at the gateway"),
                    },
                )?;
                let now_entry = journal.get(e.id)?.unwrap_or_else(|| e.clone());
                drop(journal);
                self.cache_listed(&item, now_entry.created_at, verified);
                self.cache_made(&now_entry, None, None);
                return Ok(now_entry);
            }
            Ok(Listed::WithoutTradeNo) => {
                let note =
                    "listed by the gateway without a trade number: not sent again; looked up later";
                journal.not_found_yet(e.id, &claim, now + 60_000, note)?;
            }
            Ok(Listed::Absent) => {
                let answered = journal.answered(e.id)?;
                match not_listed(&e, answered, &self.profile.safety, now) {
                    NotListed::SafeToSend { note } => {
                        journal.finish(
                            e.id,
                            &claim,
                            Outcome {
                                status: Status::Pending,
                                trade_no: None,
                                code: Some("not_found"),
                                message: Some(&note),
                            },
                        )?;
                    }
                    NotListed::LookAgain { at, note } => {
                        journal.not_found_yet(e.id, &claim, at, &note)?;
                    }
                }
            }
            Err(err) => {
                let wait = 1000 * 2i64.pow(e.attempts.clamp(0, 8) as u32);
                journal.defer(
                    e.id,
                    now + wait.min(300_000),
                    &format!("lookup failed: {err}"),
                )?;
                journal.release(e.id, &claim)?;
            }
        }
        Ok(journal.get(e.id)?.unwrap_or(e))
    }

    /// An operation's outcome as a receipt even when the call failed after its journal
    /// entry was written (refused, outcome unknown, not sent): the entry tells how it
    /// stands and what happens next. A failure before that (a broken rule) stays an error.
    pub(crate) fn receipt_or_error(
        &self,
        operation: &str,
        key: &str,
        r: CoreResult<crate::forms::Receipt>,
    ) -> CoreResult<crate::forms::Receipt> {
        match r {
            Err(e) if !matches!(e, CoreError::Validation { .. }) => {
                match self
                    .store
                    .journal()
                    .get_by_key(&self.profile.name, operation, key.trim())?
                {
                    Some(entry) => Ok(crate::forms::Receipt::new(entry, false)),
                    None => Err(e),
                }
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::journal::JournalOperation;

    fn sent_at(t: i64, lookups: i64) -> Entry {
        Entry {
            id: 1,
            profile: "p".into(),
            operation: JournalOperation::V2Payout,
            mer_order_no: "PO-1".into(),
            request: Value::Null,
            summary: String::new(),
            status: Status::Unknown,
            trade_no: None,
            code: None,
            message: None,
            attempts: 1,
            created_at: t,
            updated_at: t,
            next_check_at: None,
            fingerprint: String::new(),
            sent_at: Some(t),
            lookups,
            resolution: None,
            can_be_looked_up: true,
            purpose: None,
        }
    }

    /// The grace and the backoff at chosen moments: no test has to wait for them.
    #[test]
    fn not_found_is_not_yet_until_the_grace_and_the_lookups_are_spent() {
        let safety = crate::profile::Safety {
            not_found_grace_secs: 300,
            not_found_lookups: 3,
            ..Default::default()
        };
        let t0 = 1_800_000_000_000;
        // Just sent: looked up again in 4 s, then 8 s, ... never sent again yet.
        let at =
            |lookups: i64, now: i64| match not_listed(&sent_at(t0, lookups), false, &safety, now) {
                NotListed::LookAgain { at, .. } => at,
                other => panic!("{other:?}"),
            };
        assert_eq!(at(0, t0 + 1_000), t0 + 1_000 + 4_000);
        assert_eq!(at(1, t0 + 5_000), t0 + 5_000 + 8_000);
        // The backoff stops at a minute, and never runs far past the grace period.
        assert_eq!(at(7, t0 + 10_000), t0 + 10_000 + 60_000);
        assert_eq!(at(7, t0 + 290_000), t0 + 300_000);
        // Grace over but too few lookups: still not yet, looked up again within a second.
        assert_eq!(at(1, t0 + 400_000), t0 + 400_000 + 1_000);
        // Grace over and enough lookups: safe to send again, with the same number.
        assert!(matches!(
            not_listed(&sent_at(t0, 2), false, &safety, t0 + 300_000),
            NotListed::SafeToSend { .. }
        ));
        // One lookup short at the very end of the grace: not yet.
        assert!(matches!(
            not_listed(&sent_at(t0, 1), false, &safety, t0 + 300_000),
            NotListed::LookAgain { .. }
        ));
        // The gateway said success: never safe to send again, however long it takes.
        match not_listed(&sent_at(t0, 50), true, &safety, t0 + 86_400_000) {
            NotListed::LookAgain { at, note } => {
                assert_eq!(at, t0 + 86_400_000 + 300_000);
                assert!(note.contains("never sent again"));
            }
            other => panic!("{other:?}"),
        }
    }
}
