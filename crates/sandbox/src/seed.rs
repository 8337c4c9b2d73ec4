//! Seeding realistic orders: a mix of methods, currencies, amounts and outcomes spread
//! over a date range, reproducible from a seed.

use std::sync::Arc;

use chrono::{DateTime, Duration, NaiveDateTime, Utc};
use rust_decimal::Decimal;
use serde::Deserialize;

use crate::Shared;
use crate::model::{Kind, Order, Refund, st};
use crate::store::Touched;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeedSpec {
    /// The merchant; the first registered one when absent.
    #[serde(default)]
    pub mer_no: Option<u64>,
    pub count: usize,
    /// `YYYY-MM-DD HH:MM:SS`, UTC; 90 days before `to` when absent.
    #[serde(default)]
    pub from: Option<String>,
    /// `YYYY-MM-DD HH:MM:SS`, UTC; now when absent.
    #[serde(default)]
    pub to: Option<String>,
    #[serde(default)]
    pub seed: u64,
    /// `notifyUrl` for the seeded orders (empty: none).
    #[serde(default)]
    pub notify_url: String,
}

impl SeedSpec {
    pub fn new(count: usize) -> Self {
        Self {
            mer_no: None,
            count,
            from: None,
            to: None,
            seed: 1,
            notify_url: String::new(),
        }
    }
}

/// The most orders one `POST /__sandbox/seed` adds.
pub const MAX_SEED_COUNT: usize = 100_000;

/// Seeded dates: from the first second of 1970 to the last of 9999.
const FIRST_YEAR: i32 = 1970;
const LAST_YEAR: i32 = 9999;

impl SeedSpec {
    /// The bounds the simulation API enforces: `count` from 1 to [`MAX_SEED_COUNT`],
    /// `from` and `to` as `YYYY-MM-DD HH:MM:SS` in the years 1970 to 9999 with `from`
    /// not after `to`, and `notifyUrl` empty or an http(s) URL. The message names the
    /// field and the rule.
    pub fn check(&self) -> Result<(), String> {
        if !(1..=MAX_SEED_COUNT).contains(&self.count) {
            return Err(format!("count: must be 1 to {MAX_SEED_COUNT}"));
        }
        let time = |field: &str, text: &Option<String>| -> Result<Option<DateTime<Utc>>, String> {
            let Some(text) = text else { return Ok(None) };
            let rule = || {
                format!(
                    "{field}: must be YYYY-MM-DD HH:MM:SS in the years {FIRST_YEAR} to {LAST_YEAR}"
                )
            };
            let t = paydesk_gateway::validate::date_time(field, text).map_err(|_| rule())?;
            if !(FIRST_YEAR..=LAST_YEAR).contains(&chrono::Datelike::year(&t)) {
                return Err(rule());
            }
            Ok(Some(t.and_utc()))
        };
        let from = time("from", &self.from)?;
        let to = time("to", &self.to)?;
        let to = to.unwrap_or_else(Utc::now);
        if let Some(from) = from
            && from > to
        {
            return Err(if self.to.is_some() {
                "from: must not be after to".to_string()
            } else {
                "from: must not be in the future when to is absent (it is now)".to_string()
            });
        }
        if !self.notify_url.is_empty()
            && !url::Url::parse(&self.notify_url)
                .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
        {
            return Err("notifyUrl: must be empty or an http or https URL".into());
        }
        Ok(())
    }
}

const PAYIN_METHODS: &[(&str, &[&str])] = &[
    ("WECHAT", &["CNY"]),
    ("PIX", &["BRL"]),
    ("APPLE_PAY", &["USD", "EUR"]),
    ("CASH_APP", &["USD"]),
    ("GCASH", &["PHP"]),
    ("SEPA", &["EUR"]),
    ("VN_BANK", &["VND"]),
];

fn parse_time(text: Option<&str>) -> Option<DateTime<Utc>> {
    NaiveDateTime::parse_from_str(text?, "%Y-%m-%d %H:%M:%S")
        .ok()
        .map(|t| t.and_utc())
}

/// Adds `spec.count` orders; returns how many were added.
pub(crate) fn seed(s: &Arc<Shared>, spec: &SeedSpec) -> usize {
    let mut state = s.write();
    let Some(merchant) = spec
        .mer_no
        .and_then(|m| state.merchants.get(&m))
        .or_else(|| state.merchants.values().next())
        .cloned()
    else {
        return 0;
    };
    // Checked arithmetic throughout: a date near the ends of chrono's range (which
    // `check` refuses, but the Rust API does not) must not panic.
    let to = parse_time(spec.to.as_deref()).unwrap_or_else(Utc::now);
    let from = parse_time(spec.from.as_deref())
        .unwrap_or_else(|| to.checked_sub_signed(Duration::days(90)).unwrap_or(to));
    let span = (to - from).num_milliseconds().max(1);
    let mut rng = fastrand::Rng::with_seed(spec.seed);
    let first = state.orders.len();
    let now = Utc::now();
    let hundred = Decimal::ONE_HUNDRED;
    for i in 0..spec.count {
        let offset = (span as i128 * i as i128 / spec.count.max(1) as i128) as i64;
        let created = from
            .checked_add_signed(Duration::milliseconds(
                offset + rng.i64(0..1000).min(span - offset).max(0),
            ))
            .unwrap_or(from);
        let payout = rng.u8(0..100) < 12;
        let (method, currency) = if payout {
            if rng.bool() {
                ("CLABE", "MXN")
            } else {
                ("CARD", "USD")
            }
        } else {
            let (m, curs) = PAYIN_METHODS[rng.usize(0..PAYIN_METHODS.len())];
            (m, curs[rng.usize(0..curs.len())])
        };
        let units = paydesk_gateway::Currency::parse(currency)
            .map_or(2, paydesk_gateway::Currency::minor_units);
        let whole = match currency {
            "VND" => rng.i64(50_000..5_000_000),
            "MXN" | "PHP" => rng.i64(100..20_000),
            _ => rng.i64(5..2_000),
        };
        let mut amount = Decimal::from(whole);
        if units > 0 {
            amount += Decimal::from(rng.i64(0..100)) / hundred;
            amount.rescale(units.min(2));
        }
        let roll = rng.u8(0..100);
        let state_value = if payout {
            match roll {
                0..=84 => st::SUCCESS,
                85..=92 => st::FAILED,
                _ => st::PENDING,
            }
        } else {
            match roll {
                0..=69 => st::SUCCESS,
                70..=77 => st::PENDING,
                78..=84 => st::FAILED,
                85..=89 => st::CLOSED,
                90..=93 => st::REFUNDED,
                94..=97 => st::PARTLY_REFUNDED,
                _ => st::CHARGED_BACK,
            }
        };
        let trade_no = state.new_trade_no(created);
        // The demo merchant numbers its payins PI… and its payouts PO…, as PayDesk does:
        // the built-in profile's conventions tell the kinds apart by these prefixes.
        let mer_order_no = format!("{}{}", if payout { "PO" } else { "PI" }, &trade_no[1..]);
        let kind = if payout { Kind::Payout } else { Kind::Payin };
        let mut o = Order::new(
            trade_no,
            merchant.mer_no,
            mer_order_no,
            kind,
            method,
            currency,
            amount,
            created,
        );
        o.notify_url = spec.notify_url.clone();
        if payout {
            o.fee = merchant.payout_fee.round_dp(units);
            o.account = if method == "CLABE" {
                "CLABE 002…7771".into()
            } else {
                "411111******1111".into()
            };
        } else {
            o.fee = (amount * merchant.fee_rate).round_dp(units);
            o.fixed_fee = merchant.fixed_fee.round_dp(units);
            o.reserve = (amount * merchant.reserve_rate).round_dp(units);
        }
        o.state = state_value;
        let old = now - created > Duration::days(3);
        if o.is_paid() && !payout {
            o.settled = old;
            o.reserve_released = now - created > Duration::days(60);
            let refund = |part: Decimal| Refund {
                refund_no: format!("R{}-1", o.trade_no),
                amount: part,
                state: 3,
                created: created
                    .checked_add_signed(Duration::hours(6))
                    .unwrap_or(created),
            };
            match state_value {
                st::REFUNDED => o.refunds.push(refund(amount)),
                st::PARTLY_REFUNDED => o
                    .refunds
                    .push(refund((amount / Decimal::TWO).round_dp(units))),
                st::CHARGED_BACK => o.chargeback = Some(amount),
                _ => {}
            }
        }
        match state_value {
            st::FAILED => o.refusal_reason = "insufficient funds".into(),
            st::CLOSED => o.message = "closed: not paid in time".into(),
            st::PENDING => o.message = "pending".into(),
            _ => o.message = "success".into(),
        }
        if payout && o.state != st::FAILED {
            // A payout the balance cannot carry fails, as it would at a real gateway.
            let available = state.balance(o.mer_no, &o.currency).available;
            if available < o.amount + o.fee {
                o.state = st::FAILED;
                o.refusal_reason = "insufficient balance".into();
            }
        }
        state.insert_order(o);
    }
    let added = state.orders.len() - first;
    s.persist(
        &state,
        &Touched {
            orders: (first..state.orders.len()).collect(),
            ..Touched::default()
        },
    );
    added
}
