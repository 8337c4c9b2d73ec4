//! The journal: the table's trait, which each backend implements.

/// The table's types are the model's (`paydesk-model`: no I/O); kept at this path.
pub use paydesk_model::journal::*;
pub use paydesk_model::purpose::Purpose;

use serde_json::Value;

use crate::error::CoreResult;
use crate::now_ms;

/// The purpose kept in the columns `purpose`, `purpose_ref` (none when neither is).
pub fn purpose_of(text: Option<String>, reference: Option<String>) -> Option<Purpose> {
    let p = Purpose::new(text.unwrap_or_default(), reference.unwrap_or_default());
    (!p.is_empty()).then_some(p)
}

/// An intent's purpose as the columns `purpose`, `purpose_ref` keep it (NULL: none).
pub fn purpose_columns(p: Option<&Purpose>) -> (Option<&str>, Option<&str>) {
    let p = p.filter(|p| !p.is_empty());
    (
        p.map(|p| p.text.as_str()).filter(|t| !t.is_empty()),
        p.map(|p| p.reference.as_str()).filter(|t| !t.is_empty()),
    )
}

/// Masks what must never be stored: card numbers and CLABEs (first 6, last 4), tax ids
/// (last 2), file contents replaced by their size, signatures left out.
pub fn mask_request(v: &Value) -> Value {
    paydesk_gateway::redact::masked_json(v)
}

/// Request members that say how or where a request travels, not what it does: two
/// requests that differ only in these are the same intent.
const NOT_INTENT: &[&str] = &[
    "merOrderNo",
    "sign",
    "sing",
    "signType",
    "version",
    "notifyUrl",
    "returnUrl",
    "ipAddress",
    "browser",
    "userAgent",
    "timestamp",
];

/// The fingerprint of what a request does: an HMAC-SHA-256 under the profile's intent
/// key (in the keyring) over the operation and the request's members (sorted, amounts
/// normalised, `merOrderNo` and the members of [`NOT_INTENT`] left out). Card numbers
/// and file contents take part before they are masked; only the keyed digest is stored,
/// so the masked request next to it does not let the middle digits be guessed.
pub fn fingerprint(key: &[u8], operation: &str, request: &Value) -> String {
    fn canonical(v: &Value, key: &str, out: &mut String) {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                out.push('{');
                for k in keys {
                    if NOT_INTENT.contains(&k.as_str()) {
                        continue;
                    }
                    out.push_str(k);
                    out.push('=');
                    canonical(&m[k], k, out);
                    out.push(';');
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for i in items {
                    canonical(i, key, out);
                    out.push(',');
                }
                out.push(']');
            }
            Value::String(s) if matches!(key, "sourceAmount" | "amount") => {
                match s.trim().parse::<rust_decimal::Decimal>() {
                    Ok(d) => out.push_str(&d.normalize().to_string()),
                    Err(_) => out.push_str(s),
                }
            }
            Value::String(s) => out.push_str(&serde_json::to_string(s.trim()).unwrap_or_default()),
            other => out.push_str(&other.to_string()),
        }
    }
    let mut text = format!("{operation}|");
    canonical(request, "", &mut text);
    keyed_digest(key, &text, 16)
}

/// The first `bytes` bytes of HMAC-SHA-256(`key`, `text`), in hexadecimal.
pub fn keyed_digest(key: &[u8], text: &str, bytes: usize) -> String {
    let key = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, key);
    aws_lc_rs::hmac::sign(&key, text.as_bytes())
        .as_ref()
        .iter()
        .take(bytes)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A claim of this process on an entry: `pid:nonce`, unique per claim.
pub fn new_claim() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}:{}-{}",
        std::process::id(),
        now_ms(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// A per-day payout limit checked in the journal's own write transaction, right before
/// a payout's intent is written or a `pending` one is taken up to be sent (review-money-r5
/// F1): two payouts at once (rows of a team request, two processes) cannot both pass
/// against the same "used today".
#[derive(Debug, Clone, Copy)]
pub struct DayLimit<'a> {
    /// The journal operations that are payouts (counted together).
    pub operations: &'a [&'a str],
    pub currency: &'a str,
    /// This payout's amount.
    pub amount: rust_decimal::Decimal,
    /// The most the day's payouts may add up to.
    pub per_day: rust_decimal::Decimal,
    /// When the business day began (UTC millis): a payout counts on the day it was sent
    /// (or written, never sent).
    pub since_ms: i64,
}

/// A payout [`DayLimit`] refused: what the day's other payouts already add up to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverDay {
    pub used: rust_decimal::Decimal,
}

/// The statuses whose payouts count against a day's limit: all but refused.
pub const DAY_COUNTS: [Status; 4] = [
    Status::Pending,
    Status::Sending,
    Status::Accepted,
    Status::Unknown,
];

/// What the requests (as the journal keeps them) in `currency` add up to. An amount
/// of nothing or less is left out: a send moves money out, never back in (an entry a
/// signer wrote by hand with a negative amount does not give the day room).
pub fn day_sum<'r>(
    requests: impl Iterator<Item = &'r str>,
    currency: &str,
) -> rust_decimal::Decimal {
    let currency = currency.trim().to_ascii_uppercase();
    requests
        .filter_map(|r| serde_json::from_str::<Value>(r).ok())
        .filter_map(|r| day_key(&r))
        .filter(|(a, c)| *c == currency && a.is_sign_positive() && !a.is_zero())
        .map(|(a, _)| a)
        .sum()
}

/// What a payout's request (as the journal keeps it, or as it is sent) counts in the
/// day's sum: its `sourceAmount` and its `currencyCode` (upper case), the keys both
/// payouts the desk sends name (review r8 R8-1: one reading for the sum and for the
/// check that a queued entry sends what it says). `None` when either is missing or
/// unreadable.
pub fn day_key(v: &Value) -> Option<(rust_decimal::Decimal, String)> {
    let amount = match v.get("sourceAmount")? {
        Value::String(s) => s.trim().parse::<rust_decimal::Decimal>().ok()?,
        Value::Number(n) => n.to_string().parse::<rust_decimal::Decimal>().ok()?,
        _ => return None,
    };
    let currency = v.get("currencyCode")?.as_str()?.trim().to_ascii_uppercase();
    (!currency.is_empty()).then_some((amount, currency))
}

/// Whether an entry's request (as the journal keeps it) moves the same amount in the
/// same currency as `request`: a queued entry is taken up for a send only then (the
/// day's sum reads the entry's amount, so one written by hand under a row's number with
/// a smaller amount would hide the send). A request the day's sum reads (a payout, a
/// payin: [`day_key`]) matches only an entry the sum reads the same way (an entry it
/// cannot read is a mismatch); a card's top-up or withdrawal names `amount` and
/// `currency`, which both sides must name alike.
pub fn same_amount(entry: &Value, request: &Value) -> bool {
    match day_key(request) {
        Some(k) => day_key(entry) == Some(k),
        None => {
            let card_key = |v: &Value| {
                let amount = v.get("amount").and_then(|a| match a {
                    Value::String(s) => s.trim().parse::<rust_decimal::Decimal>().ok(),
                    Value::Number(n) => n.to_string().parse::<rust_decimal::Decimal>().ok(),
                    _ => None,
                });
                let currency = v
                    .get("currency")
                    .and_then(Value::as_str)
                    .map(|c| c.trim().to_ascii_uppercase());
                (amount, currency)
            };
            day_key(entry).is_none() && card_key(entry) == card_key(request)
        }
    }
}

/// Whether `intent` begun now would write a new entry or take up a `pending` one (`Some`,
/// with the entry to leave out of the day's sum), or find one that goes nowhere new.
pub fn goes_now(existing: Option<&Entry>, intent: &Intent<'_>) -> Option<Option<i64>> {
    match existing {
        None => Some(None),
        Some(e)
            if e.status == Status::Pending
                && e.operation.name() == intent.operation
                && (e.fingerprint.is_empty() || e.fingerprint == intent.fingerprint) =>
        {
            Some(Some(e.id))
        }
        Some(_) => None,
    }
}

/// The journal: every call that moves money or submits data, written before it is sent.
pub trait JournalStore {
    /// The newest entry with this fingerprint that is unresolved (pending, sending,
    /// unknown) or was accepted within `window_ms` (counted from when it was found
    /// accepted), other than those numbered in `except`.
    fn same_intent(
        &self,
        profile: &str,
        fingerprint: &str,
        window_ms: i64,
        except: &[&str],
    ) -> CoreResult<Option<Entry>>;

    /// Every entry with this fingerprint that is unresolved or was accepted within
    /// `window_ms`, newest first (a hundred at most).
    fn same_intents(
        &self,
        profile: &str,
        fingerprint: &str,
        window_ms: i64,
    ) -> CoreResult<Vec<Entry>>;

    /// Every entry of this operation with this fingerprint, whatever its status or age,
    /// oldest first (by the fingerprint's index, never the whole journal).
    fn with_fingerprint(
        &self,
        profile: &str,
        operation: &str,
        fingerprint: &str,
    ) -> CoreResult<Vec<Entry>>;

    /// Writes the intent (or takes up the existing one) in one immediate transaction, so
    /// two clicks or two processes cannot both send. A new number is first checked against
    /// the journal for the same intent ([`Guard`]); an existing number against its request.
    fn begin(&self, profile: &str, intent: Intent<'_>, guard: Guard) -> CoreResult<Begin>;

    /// [`JournalStore::begin`] of a payout under a per-day limit, checked in the same
    /// write transaction right before the intent is written (or a `pending` one taken up):
    /// `Err` when the day's other payouts plus this one would pass it; nothing is written.
    fn begin_within(
        &self,
        profile: &str,
        intent: Intent<'_>,
        guard: Guard,
        day: DayLimit<'_>,
    ) -> CoreResult<Result<Begin, OverDay>>;

    /// Writes an intent as `pending` without sending (bulk payouts queue their rows). An
    /// entry already under this number is left as it is.
    fn queue(&self, profile: &str, intent: Intent<'_>) -> CoreResult<Entry>;

    /// Claims an entry for a lookup (or a send) unless another claim on it is live.
    /// `None`: someone else is at work on it.
    fn claim(&self, id: i64) -> CoreResult<Option<(Entry, Claim)>>;

    /// Gives a claim up without recording anything.
    fn release(&self, id: i64, claim: &Claim) -> CoreResult<()>;

    /// Records an outcome and gives the claim up. States only move forward: an accepted
    /// entry stays accepted, and a rejected one can only turn out accepted (found at the
    /// gateway after all). Returns false when the entry had moved past this outcome.
    fn finish(&self, id: i64, claim: &Claim, o: Outcome<'_>) -> CoreResult<bool>;

    /// A lookup that did not find the entry: it stays unknown, counted, looked up again
    /// from `next_check_at`.
    fn not_found_yet(
        &self,
        id: i64,
        claim: &Claim,
        next_check_at: i64,
        message: &str,
    ) -> CoreResult<()>;

    /// Marks an entry the gateway answered "success" for (without a trade number the desk
    /// could keep): never sent again, whatever its order list says.
    fn mark_answered(&self, id: i64) -> CoreResult<()>;

    /// Whether the gateway answered "success" for this entry ([`mark_answered`]).
    fn answered(&self, id: i64) -> CoreResult<bool>;

    /// Records why an entry waits for the operator (its outcome cannot be looked up): a
    /// message, and no next check.
    fn note(&self, id: i64, message: &str) -> CoreResult<()>;

    /// Puts off the next reconcile attempt of an unknown entry.
    fn defer(&self, id: i64, until: i64, message: &str) -> CoreResult<()>;

    /// An operator's own resolution of an outcome the gateway cannot be asked about: the
    /// entry becomes accepted (`done`) or pending (to be sent again with the same key),
    /// with who and why kept on it.
    fn resolve(&self, id: i64, claim: &Claim, done: bool, resolution: &str) -> CoreResult<bool>;

    fn get(&self, id: i64) -> CoreResult<Option<Entry>>;

    /// Every entry about one order: made under its merchant order number, or answered
    /// with its trade number (a card withdrawal, a review submission), oldest first.
    fn of_order(&self, profile: &str, trade_no: &str, mer_order_no: &str)
    -> CoreResult<Vec<Entry>>;

    fn get_by_key(
        &self,
        profile: &str,
        operation: &str,
        mer_order_no: &str,
    ) -> CoreResult<Option<Entry>>;

    /// The entry under a merchant order number, whatever its operation.
    fn get_by_number(&self, profile: &str, mer_order_no: &str) -> CoreResult<Option<Entry>>;

    /// Entries, newest first, optionally only of some statuses and some operations (both
    /// filtered in the query, so `limit` counts matching entries).
    fn list(
        &self,
        profile: &str,
        statuses: &[Status],
        operations: &[&str],
        limit: i64,
    ) -> CoreResult<Vec<Entry>>;

    /// Entries whose outcome is not known: `unknown`, and `sending` left by a crash.
    fn unresolved(&self, profile: &str) -> CoreResult<Vec<Entry>>;

    /// The entries of these operations a new one may repeat (review r6 R6-2): every live
    /// one (pending, sending, unknown), however many and however old, and those accepted
    /// within `window_ms` (counted from when they were found accepted, on the journal's
    /// clock); with `contains`, only those whose request's text contains it (a masked
    /// account, as the journal keeps it). Newest first, without a cap.
    fn live_or_recent(
        &self,
        profile: &str,
        operations: &[&str],
        window_ms: i64,
        contains: Option<&str>,
    ) -> CoreResult<Vec<Entry>>;

    /// Every entry's purpose (issue 35), as (merchant order number or reference, trade
    /// number, purpose), oldest first: what the exports and the statement write beside
    /// the orders this desk made.
    fn purposes(&self, profile: &str) -> CoreResult<Vec<(String, Option<String>, Purpose)>>;

    /// [`JournalStore::queue`] of several intents, in one transaction where the backend
    /// can (a bulk run's rows: one commit, not one per row).
    fn queue_many(&self, profile: &str, intents: &[Intent<'_>]) -> CoreResult<()> {
        for i in intents {
            self.queue(profile, *i)?;
        }
        Ok(())
    }

    /// [`JournalStore::begin`] of several intents, in one transaction where the backend
    /// can: each is `sending` and claimed, committed, before any of their requests
    /// leaves.
    fn begin_many(
        &self,
        profile: &str,
        intents: &[Intent<'_>],
        guard: Guard,
    ) -> CoreResult<Vec<Begin>> {
        intents
            .iter()
            .map(|i| self.begin(profile, *i, guard))
            .collect()
    }

    /// [`JournalStore::finish`] of several entries, in one transaction where the backend
    /// can.
    fn finish_many(&self, outcomes: &[(i64, &Claim, Outcome<'_>)]) -> CoreResult<Vec<bool>> {
        outcomes
            .iter()
            .map(|(id, claim, o)| self.finish(*id, claim, *o))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

    #[test]
    fn the_fingerprint_is_what_the_request_does() {
        let a = serde_json::json!({"merOrderNo": "A", "sourceAmount": "10.00", "currencyCode": "MXN", "clabe": "002010077777777771", "notifyUrl": "http://x", "sign": "s1"});
        let b = serde_json::json!({"merOrderNo": "B", "sourceAmount": "10", "currencyCode": "MXN", "clabe": "002010077777777771", "notifyUrl": "http://y", "sign": "s2"});
        let c = serde_json::json!({"merOrderNo": "A", "sourceAmount": "10.01", "currencyCode": "MXN", "clabe": "002010077777777771"});
        let f = |op: &str, v: &Value| fingerprint(KEY, op, v);
        assert_eq!(f("v2.payout", &a), f("v2.payout", &b));
        assert_ne!(f("v2.payout", &a), f("v2.payout", &c));
        assert_ne!(f("v2.payout", &a), f("v1.payout", &a));
        assert_ne!(
            f("v2.payout", &a),
            fingerprint(b"another key of 32 bytes, really!", "v2.payout", &a),
            "keyed: the digest cannot be recomputed without the keyring's key"
        );
    }

    #[test]
    fn a_days_sum_leaves_out_amounts_of_nothing_or_less() {
        let reqs = [
            r#"{"currencyCode":"MXN","sourceAmount":"700"}"#,
            r#"{"currencyCode":"MXN","sourceAmount":"-1000000000"}"#,
            r#"{"currencyCode":"MXN","sourceAmount":"0"}"#,
            r#"{"currencyCode":"mxn","sourceAmount":50.5}"#,
            r#"{"currencyCode":"MXN","sourceAmount":-3}"#,
            r#"{"currencyCode":"USD","sourceAmount":"9"}"#,
        ];
        let want = "750.5".parse::<rust_decimal::Decimal>().unwrap();
        assert_eq!(super::day_sum(reqs.into_iter(), "MXN"), want);
    }

    #[test]
    fn a_queued_entry_is_the_same_send_only_with_the_same_amount_and_currency() {
        let v = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap();
        let sent = v(r#"{"currencyCode":"MXN","sourceAmount":"100000"}"#);
        assert!(super::same_amount(
            &v(r#"{"currencyCode":"mxn","sourceAmount":"100000.00"}"#),
            &sent
        ));
        assert!(!super::same_amount(
            &v(r#"{"currencyCode":"MXN","sourceAmount":"0.01"}"#),
            &sent
        ));
        assert!(!super::same_amount(
            &v(r#"{"currencyCode":"USD","sourceAmount":"100000"}"#),
            &sent
        ));
        // Review r8 R8-1: an entry whose amount or currency is under keys the day's sum
        // does not read is another send, whatever it says there.
        for planted in [
            r#"{"currency":"MXN","amount":"100000"}"#,
            r#"{"currencyCode":"MXN","amount":"100000"}"#,
            r#"{"currency":"MXN","sourceAmount":"100000"}"#,
            r#"{}"#,
        ] {
            assert!(!super::same_amount(&v(planted), &sent), "{planted}");
            assert_eq!(
                super::day_sum([planted].into_iter(), "MXN"),
                rust_decimal::Decimal::ZERO
            );
        }
        // A card's top-up or withdrawal names `amount` and `currency`.
        let card = v(r#"{"currency":"MXN","amount":"250"}"#);
        assert!(super::same_amount(
            &v(r#"{"currency":"mxn","amount":"250.00"}"#),
            &card
        ));
        assert!(!super::same_amount(
            &v(r#"{"currency":"MXN","amount":"25"}"#),
            &card
        ));
        assert!(!super::same_amount(
            &v(r#"{"currency":"MXN","amount":"250","currencyCode":"MXN","sourceAmount":"1"}"#),
            &card
        ));
    }

    #[test]
    fn the_day_key_is_source_amount_and_currency_code_only() {
        let v = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap();
        let d = |s: &str| s.parse::<rust_decimal::Decimal>().unwrap();
        assert_eq!(
            super::day_key(&v(r#"{"currencyCode":" mxn ","sourceAmount":" 12.50 "}"#)),
            Some((d("12.5"), "MXN".to_string()))
        );
        assert_eq!(
            super::day_key(&v(r#"{"currencyCode":"MXN","sourceAmount":7}"#)),
            Some((d("7"), "MXN".to_string()))
        );
        for none in [
            r#"{"currency":"MXN","sourceAmount":"1"}"#,
            r#"{"currencyCode":"MXN","amount":"1"}"#,
            r#"{"currencyCode":" ","sourceAmount":"1"}"#,
            r#"{"currencyCode":"MXN","sourceAmount":"lots"}"#,
            r#"{"currencyCode":1,"sourceAmount":"1"}"#,
        ] {
            assert_eq!(super::day_key(&v(none)), None, "{none}");
        }
    }
}
