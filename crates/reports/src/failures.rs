//! Why money did not come in (issue 36): the success rate of a period's orders by
//! method, currency and day, and the orders that did not succeed grouped by the
//! gateway's reason and message, with their amounts per currency; the period before
//! (same length, immediately before) beside it.
//!
//! **Success rate** = succeeded / (succeeded + failed + closed), over the orders the
//! cache dates in the period, where each order's class is what the profile's state
//! dictionary says its `state` means:
//! - *succeeded*: success, and refunded, partly refunded or charged back (they were
//!   paid first);
//! - *failed*: failed (refused or failed at the gateway; its `refusalPayReason` says
//!   why, where the gateway gave one);
//! - *closed*: closed without being paid;
//! - *pending* (created, pending, submitted, processing) and *unknown* (a state the
//!   dictionary does not know, or a meaning that is no order outcome) are left out of
//!   the rate and counted on their own.
//!
//! No order's reason or message is made up: an order the gateway gave none for is on
//! the line "not given" (`None`). Amounts are the orders' `sourceAmount`, summed as
//! [`Decimal`] per currency and never added across currencies. Every count carries the
//! [`OrderFilter`] of exactly the orders behind it (the Orders screen opens it), `None`
//! when it counts none.
//!
//! The orders are read a day of the zone at a time as groups of the same state, kind,
//! method, currency, reason and message ([`OrderStore::failure_groups_by_day`]: the
//! SQLite cache keeps each day's groups until one of its orders changes); a backend
//! that keeps no days (a team's PostgreSQL read model) is read through
//! [`OrderStore::for_each`] over the whole period. Both are added up here, so both give
//! the same figures.

use std::collections::BTreeMap;

use paydesk_gateway::{Meaning, StateDictionary, StateField};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::error::{CoreError, CoreResult};
use crate::statement::{Period, Zone, minor_digits, money};
use crate::store::orders::{OrderFilter, OrderStore, SortKey};

/// What an order's state says of its outcome.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    Succeeded,
    Failed,
    Closed,
    Pending,
    Unknown,
}

impl Outcome {
    pub const ALL: [Outcome; 5] = [
        Self::Succeeded,
        Self::Failed,
        Self::Closed,
        Self::Pending,
        Self::Unknown,
    ];

    /// The class of a state's meaning (`None`: a state the dictionary does not know).
    pub fn of(meaning: Option<Meaning>) -> Self {
        use Meaning::*;
        match meaning {
            Some(Success | Refunded | PartlyRefunded | ChargedBack) => Self::Succeeded,
            Some(Failed) => Self::Failed,
            Some(Closed) => Self::Closed,
            Some(Created | Pending | Submitted | Processing) => Self::Pending,
            _ => Self::Unknown,
        }
    }

    /// Whether the order ended without the money (failed or closed).
    pub fn not_paid(self) -> bool {
        matches!(self, Self::Failed | Self::Closed)
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Closed => "closed",
            Self::Pending => "pending",
            Self::Unknown => "unknown state",
        }
    }
}

/// What the success rate is, in words (the README and the screens say the same).
pub const RATE_DEFINITION: &str = "success rate = succeeded / (succeeded + failed + closed); \
succeeded: success, refunded, partly refunded, charged back; pending and unknown states are \
left out and counted apart";

/// An amount of one currency (a decimal string with the currency's digits).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CurrencyAmount {
    pub currency: String,
    pub count: i64,
    pub amount: String,
}

/// Orders counted, their `sourceAmount` per currency, and the filter that lists exactly
/// them (`None` when there are none).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tally {
    pub count: i64,
    /// One line per currency, by currency code.
    pub amounts: Vec<CurrencyAmount>,
    pub filter: Option<OrderFilter>,
}

/// One line of a success-rate table (a method, a currency, a day, or every order).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RateLine {
    /// The method (`None`: not given), the currency, or the day (YYYY-MM-DD in the
    /// report's zone); `None` on the line of every order.
    pub key: Option<String>,
    pub succeeded: Tally,
    pub failed: Tally,
    pub closed: Tally,
    /// Failed and closed together: what did not come in.
    pub not_paid: Tally,
    pub pending: Tally,
    pub unknown: Tally,
    /// succeeded / (succeeded + failed + closed) in percent with one decimal (rounded
    /// half away from zero); `None` when no order ended.
    pub rate: Option<String>,
}

/// Orders that did not come in (failed or closed) with one reason and one message.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReasonLine {
    /// `refusalPayReason`; `None`: not given by the gateway.
    pub reason: Option<String>,
    /// The order's `message` (the gateway's text or code for it); `None`: not given.
    pub message: Option<String>,
    pub orders: Tally,
    /// Of them, failed.
    pub failed: i64,
    /// Of them, closed.
    pub closed: i64,
}

/// The figures of one period.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Breakdown {
    pub period: Period,
    /// First and last day (both included) in the report's zone.
    pub first_day: String,
    pub last_day: String,
    /// Every order of the period.
    pub all: RateLine,
    /// By kind (`payin`, `payout`, `topUp`, `withdraw`; `None`: the journal does not
    /// know it, as for an order this desk did not make), so payins are seen apart.
    pub by_kind: Vec<RateLine>,
    pub by_method: Vec<RateLine>,
    pub by_currency: Vec<RateLine>,
    /// Every day of the period, in order (a day without orders too).
    pub by_day: Vec<RateLine>,
    /// Most orders first.
    pub reasons: Vec<ReasonLine>,
}

/// A period's failure breakdown and the period before it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FailureReport {
    /// The zone the days are in.
    pub time_zone: String,
    pub definition: String,
    pub current: Breakdown,
    /// The same length, immediately before.
    pub previous: Breakdown,
    /// When the cache last synced (UTC millis).
    pub as_of: Option<i64>,
}

/// One order as the breakdown reads it.
struct Row {
    outcome: Outcome,
    state: i64,
    kind: Option<crate::store::orders::OrderKind>,
    method: String,
    currency: String,
    day: String,
    reason: String,
    message: String,
    /// How many orders (a day's group of them) the row stands for.
    count: i64,
    /// Their `sourceAmount`, summed.
    amount: Decimal,
}

/// Running count and per-currency sums.
#[derive(Default)]
struct Acc {
    count: i64,
    by_currency: BTreeMap<String, (i64, Decimal)>,
}

impl Acc {
    fn add(&mut self, r: &Row) -> CoreResult<()> {
        self.count += r.count;
        let e = self.by_currency.entry(r.currency.clone()).or_default();
        e.0 += r.count;
        e.1 =
            e.1.checked_add(r.amount)
                .ok_or_else(|| CoreError::internal("a failure sum beyond 7.9 x 10^28"))?;
        Ok(())
    }

    fn tally(&self, filter: impl FnOnce() -> OrderFilter) -> Tally {
        Tally {
            count: self.count,
            amounts: self
                .by_currency
                .iter()
                .map(|(c, (n, a))| CurrencyAmount {
                    currency: c.clone(),
                    count: *n,
                    amount: money(*a, minor_digits(c)),
                })
                .collect(),
            filter: (self.count > 0).then(filter),
        }
    }
}

/// The raw states of each outcome: the dictionary's, and any other value seen.
struct States {
    of: BTreeMap<Outcome, Vec<i64>>,
}

impl States {
    fn new(dict: &StateDictionary, seen: impl Iterator<Item = (i64, Outcome)>) -> Self {
        let mut of: BTreeMap<Outcome, Vec<i64>> = BTreeMap::new();
        for (raw, m) in dict.entries(StateField::OrderState) {
            if let Ok(v) = raw.parse::<i64>() {
                of.entry(Outcome::of(Some(m))).or_default().push(v);
            }
        }
        for (v, o) in seen {
            of.entry(o).or_default().push(v);
        }
        for v in of.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        States { of }
    }

    fn list(&self, outcomes: &[Outcome]) -> Vec<i64> {
        let mut v: Vec<i64> = outcomes
            .iter()
            .flat_map(|o| self.of.get(o).cloned().unwrap_or_default())
            .collect();
        v.sort_unstable();
        v
    }
}

/// The per-outcome accumulators of one line.
#[derive(Default)]
struct LineAcc {
    outcomes: BTreeMap<Outcome, Acc>,
    not_paid: Acc,
}

impl LineAcc {
    fn add(&mut self, r: &Row) -> CoreResult<()> {
        self.outcomes.entry(r.outcome).or_default().add(r)?;
        if r.outcome.not_paid() {
            self.not_paid.add(r)?;
        }
        Ok(())
    }

    fn line(&self, key: Option<String>, base: &OrderFilter, states: &States) -> RateLine {
        let empty = Acc::default();
        let acc = |o: Outcome| self.outcomes.get(&o).unwrap_or(&empty);
        let tally = |a: &Acc, outcomes: &[Outcome]| {
            a.tally(|| OrderFilter {
                states: states.list(outcomes),
                ..base.clone()
            })
        };
        let succeeded = acc(Outcome::Succeeded).count;
        let ended = succeeded + self.not_paid.count;
        RateLine {
            key,
            succeeded: tally(acc(Outcome::Succeeded), &[Outcome::Succeeded]),
            failed: tally(acc(Outcome::Failed), &[Outcome::Failed]),
            closed: tally(acc(Outcome::Closed), &[Outcome::Closed]),
            not_paid: tally(&self.not_paid, &[Outcome::Failed, Outcome::Closed]),
            pending: tally(acc(Outcome::Pending), &[Outcome::Pending]),
            unknown: tally(acc(Outcome::Unknown), &[Outcome::Unknown]),
            rate: percent(succeeded, ended),
        }
    }
}

/// `part` of `whole` in percent, one decimal, rounded half away from zero.
pub fn percent(part: i64, whole: i64) -> Option<String> {
    if whole <= 0 {
        return None;
    }
    let r = Decimal::from(part) * Decimal::ONE_HUNDRED / Decimal::from(whole);
    let mut r = r.round_dp_with_strategy(1, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
    r.rescale(1);
    Some(r.to_string())
}

/// The days of `period` in `zone`: (YYYY-MM-DD, start, end), the first and last cut
/// to the period.
fn days(period: Period, zone: &Zone) -> Vec<(String, i64, i64)> {
    let mut out = Vec::new();
    let Ok(mut day) = chrono::NaiveDate::parse_from_str(&zone.day_of(period.from), "%Y-%m-%d")
    else {
        return out;
    };
    // A period of years is not cut in more than ten years of days.
    for _ in 0..3_700 {
        let Some(start) = zone.start_of(day) else {
            break;
        };
        if start >= period.to {
            break;
        }
        let Some(next) = day.succ_opt() else { break };
        let end = zone.start_of(next).unwrap_or(period.to).min(period.to);
        out.push((
            day.format("%Y-%m-%d").to_string(),
            start.max(period.from),
            end,
        ));
        day = next;
    }
    out
}

fn given(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

impl Breakdown {
    /// The breakdown of `period`'s cached orders, its days in `zone`.
    pub fn build(
        orders: &dyn OrderStore,
        dict: &StateDictionary,
        period: Period,
        zone: &Zone,
    ) -> CoreResult<Self> {
        let base = OrderFilter {
            from: Some(period.from),
            to: Some(period.to),
            sort: SortKey::Created,
            descending: false,
            ..OrderFilter::default()
        };
        // Read a day at a time (the zone's days, the first and last cut to the period),
        // which the cache keeps: a month is read from its days' groups, not its orders.
        let zone_days = days(period, zone);
        let ranges: Vec<(i64, i64)> = zone_days.iter().map(|(_, f, t)| (*f, *t)).collect();
        let mut rows: Vec<Row> = Vec::new();
        let covered = orders.keeps_report_days()
            && ranges.first().map(|r| r.0) == Some(period.from)
            && ranges.last().map(|r| r.1) == Some(period.to)
            && ranges.windows(2).all(|w| w[0].1 == w[1].0);
        if covered {
            for ((day, _, _), groups) in
                zone_days.iter().zip(orders.failure_groups_by_day(&ranges)?)
            {
                for g in groups {
                    let meaning = dict.meaning(StateField::OrderState, &g.state.to_string());
                    rows.push(Row {
                        outcome: Outcome::of(meaning),
                        state: g.state,
                        kind: g.kind,
                        method: g.method,
                        currency: g.currency,
                        day: day.clone(),
                        reason: g.reason,
                        message: g.message,
                        count: g.count,
                        amount: g.amount,
                    });
                }
            }
        } else {
            orders.for_each(&base, &mut |o| {
                let meaning = dict.meaning(StateField::OrderState, &o.state.to_string());
                let amount = o
                    .source_amount
                    .trim()
                    .parse::<Decimal>()
                    .map_err(|e| CoreError::storage(format!("orders.source_amount: {e}")))?;
                rows.push(Row {
                    outcome: Outcome::of(meaning),
                    state: o.state,
                    kind: o.kind,
                    method: o.method.clone(),
                    currency: o.currency.clone(),
                    day: zone.day_of(o.created_at),
                    reason: o.refusal_pay_reason.clone(),
                    message: o.message.clone(),
                    count: 1,
                    amount,
                });
                Ok(())
            })?;
        }
        let states = States::new(dict, rows.iter().map(|r| (r.state, r.outcome)));
        let mut all = LineAcc::default();
        let mut kinds: BTreeMap<Option<&'static str>, LineAcc> = BTreeMap::new();
        let mut methods: BTreeMap<String, LineAcc> = BTreeMap::new();
        let mut currencies: BTreeMap<String, LineAcc> = BTreeMap::new();
        let mut by_day: BTreeMap<String, LineAcc> = BTreeMap::new();
        let mut reasons: BTreeMap<(String, String), (Acc, i64, i64)> = BTreeMap::new();
        for r in &rows {
            all.add(r)?;
            kinds
                .entry(r.kind.map(|k| k.as_str()))
                .or_default()
                .add(r)?;
            methods.entry(r.method.clone()).or_default().add(r)?;
            currencies.entry(r.currency.clone()).or_default().add(r)?;
            by_day.entry(r.day.clone()).or_default().add(r)?;
            if r.outcome.not_paid() {
                let e = reasons
                    .entry((r.reason.clone(), r.message.clone()))
                    .or_default();
                e.0.add(r)?;
                if r.outcome == Outcome::Failed {
                    e.1 += r.count;
                } else {
                    e.2 += r.count;
                }
            }
        }
        let by_kind = kinds
            .iter()
            .map(|(k, acc)| {
                let f = match k.and_then(crate::store::orders::OrderKind::parse) {
                    Some(kind) => OrderFilter {
                        kinds: vec![kind],
                        ..base.clone()
                    },
                    None => OrderFilter {
                        unknown_kind: true,
                        ..base.clone()
                    },
                };
                acc.line(k.map(str::to_string), &f, &states)
            })
            .collect();
        let by_method = methods
            .iter()
            .map(|(m, acc)| {
                let f = OrderFilter {
                    methods: vec![m.clone()],
                    ..base.clone()
                };
                acc.line(given(m), &f, &states)
            })
            .collect();
        let by_currency = currencies
            .iter()
            .map(|(c, acc)| {
                let f = OrderFilter {
                    currencies: vec![c.clone()],
                    ..base.clone()
                };
                acc.line(Some(c.clone()), &f, &states)
            })
            .collect();
        let empty = LineAcc::default();
        let by_day = days(period, zone)
            .into_iter()
            .map(|(day, from, to)| {
                let f = OrderFilter {
                    from: Some(from),
                    to: Some(to),
                    ..base.clone()
                };
                by_day
                    .get(&day)
                    .unwrap_or(&empty)
                    .line(Some(day), &f, &states)
            })
            .collect();
        let not_paid = states.list(&[Outcome::Failed, Outcome::Closed]);
        let mut reasons: Vec<ReasonLine> = reasons
            .into_iter()
            .map(|((reason, message), (acc, failed, closed))| ReasonLine {
                orders: acc.tally(|| OrderFilter {
                    states: not_paid.clone(),
                    reasons: Some(vec![reason.clone()]),
                    messages: Some(vec![message.clone()]),
                    ..base.clone()
                }),
                reason: given(&reason),
                message: given(&message),
                failed,
                closed,
            })
            .collect();
        reasons.sort_by(|a, b| {
            b.orders
                .count
                .cmp(&a.orders.count)
                .then_with(|| a.reason.cmp(&b.reason))
                .then_with(|| a.message.cmp(&b.message))
        });
        Ok(Breakdown {
            period,
            first_day: zone.day_of(period.from),
            last_day: period.last_day(zone),
            all: all.line(None, &base, &states),
            by_kind,
            by_method,
            by_currency,
            by_day,
            reasons,
        })
    }
}

impl FailureReport {
    /// `period`'s breakdown and the one of the period of the same length just before.
    pub fn build(
        orders: &dyn OrderStore,
        dict: &StateDictionary,
        period: Period,
        zone: &Zone,
    ) -> CoreResult<Self> {
        Ok(FailureReport {
            time_zone: zone.name(),
            definition: RATE_DEFINITION.to_string(),
            current: Breakdown::build(orders, dict, period, zone)?,
            previous: Breakdown::build(orders, dict, period.previous(), zone)?,
            as_of: None,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn percent_has_one_decimal_and_none_without_ended_orders() {
        assert_eq!(percent(2, 3).as_deref(), Some("66.7"));
        assert_eq!(percent(1, 8).as_deref(), Some("12.5"));
        assert_eq!(percent(3, 3).as_deref(), Some("100.0"));
        assert_eq!(percent(0, 0), None);
    }

    #[test]
    fn days_follow_the_zone_and_are_cut_to_the_period() {
        let z = Zone::Fixed(chrono::FixedOffset::east_opt(8 * 3600).unwrap());
        let p = Period::days(
            chrono::NaiveDate::from_ymd_opt(2026, 11, 1).unwrap(),
            chrono::NaiveDate::from_ymd_opt(2026, 11, 3).unwrap(),
            z,
        )
        .unwrap();
        let d = days(p, &z);
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].0, "2026-11-01");
        assert_eq!(d[0].1, p.from);
        assert_eq!(d[2].2, p.to);
        assert_eq!(d[1].1, d[0].2);
    }
}
