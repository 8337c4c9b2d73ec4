//! The sums a month's statement and failure breakdown are read from are kept per day in
//! the SQLite cache (issue 34, migration 0017): these tests check them against sums the
//! test makes itself of the orders it cached, in a zone east of UTC (Asia/Shanghai, so
//! the month's first day starts at 16:00 UTC the day before), after the first sync,
//! read again from the kept days, after a re-sync that changes states, amounts and fees
//! of orders already cached, and after orders are deleted.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use chrono::{NaiveDate, TimeZone};
use paydesk_core::store::prelude::*;
use paydesk_gateway::StateDictionary;
use paydesk_gateway::wire::OrderListItem;
use paydesk_reports::failures::{FailureReport, Tally};
use paydesk_reports::statement::{Figure, Period, Statement, Zone, minor_digits, money};
use paydesk_store_sqlite::orders::{MadeOrder, OrderKind, Orders};
use paydesk_store_sqlite::{self as db, Durability};
use rust_decimal::Decimal;

const MER: u64 = 10_001;
const HOUR: i64 = 3_600_000;
/// The sandbox dictionary's states: 5 success, 6 refunded, 7 partly refunded, 8 charged
/// back, 3 failed, 4 closed, 1 created, 2 pending; 9 it does not know.
const STATES: [i64; 9] = [5, 6, 7, 8, 3, 4, 1, 2, 9];
const CURRENCIES: [&str; 3] = ["USD", "MXN", "JPY"];

/// One cached order as this test knows it.
#[derive(Clone)]
struct Known {
    trade_no: String,
    mer_order_no: String,
    /// Made here (a payin), else of a kind nobody knows.
    payin: bool,
    state: i64,
    currency: &'static str,
    amount: Decimal,
    fee: Decimal,
    reason: &'static str,
    at: i64,
}

impl Known {
    fn item(&self) -> OrderListItem {
        OrderListItem {
            state: self.state,
            mer_order_no: self.mer_order_no.clone(),
            trade_no: self.trade_no.clone(),
            source_amount: self.amount,
            handling_fee: Some(self.fee),
            source_currency: self.currency.into(),
            settlement_currency: self.currency.into(),
            refusal_pay_reason: self.reason.into(),
            ..OrderListItem::default()
        }
    }
}

fn paid(state: i64) -> bool {
    (5..=8).contains(&state)
}

fn shanghai() -> Zone {
    paydesk_reports::statement::parse_zone("timeZone", "Asia/Shanghai").unwrap()
}

/// The first moment of `y-m-d` in Shanghai (UTC+8, no daylight saving), UTC millis.
fn start(y: i32, m: u32, d: u32) -> i64 {
    chrono_tz::Asia::Shanghai
        .from_local_datetime(
            &NaiveDate::from_ymd_opt(y, m, d)
                .unwrap()
                .and_hms_opt(0, 0, 0)
                .unwrap(),
        )
        .unwrap()
        .timestamp_millis()
}

/// Caches every order of `known` (each list read dated at its own hour), then the
/// journal's word on those made here.
fn sync(orders: &Orders<&rusqlite::Connection>, known: &[Known]) {
    let mut by_hour: BTreeMap<i64, Vec<OrderListItem>> = BTreeMap::new();
    for k in known {
        by_hour.entry(k.at).or_default().push(k.item());
    }
    for (at, items) in by_hour {
        orders.upsert_items(MER, &items, at, true).unwrap();
    }
    for k in known.iter().filter(|k| k.payin) {
        let made = MadeOrder {
            trade_no: k.trade_no.clone(),
            mer_order_no: k.mer_order_no.clone(),
            kind: OrderKind::Payin,
            method: "CARD".into(),
            currency: k.currency.into(),
            amount: k.amount,
            state: None,
            made_at: k.at,
        };
        assert!(orders.record_made(MER, &made).unwrap());
    }
}

fn figure_is(f: &Figure, count: i64, amount: Decimal, currency: &str, what: &str) {
    assert_eq!(f.count, count, "{what}: count");
    assert_eq!(
        f.amount,
        money(amount, minor_digits(currency)),
        "{what}: amount"
    );
}

/// The statement of `period`, every figure this test checks, against the test's sums.
fn statement_is(s: &Statement, known: &[Known], period: Period, only: Option<&str>) {
    let of: Vec<&Known> = known
        .iter()
        .filter(|k| k.at >= period.from && k.at < period.to)
        .filter(|k| only.is_none_or(|c| c == k.currency))
        .collect();
    assert_eq!(s.orders, of.len() as i64, "orders of the statement");
    let mut currencies: Vec<&str> = of.iter().map(|k| k.currency).collect();
    currencies.sort_unstable();
    currencies.dedup();
    let got: Vec<&str> = s.currencies.iter().map(|c| c.currency.as_str()).collect();
    assert_eq!(got, currencies, "currencies of the statement");
    for cs in &s.currencies {
        let c = cs.currency.as_str();
        let sum = |f: &dyn Fn(&Known) -> bool, v: &dyn Fn(&Known) -> Decimal| {
            let m: Vec<&&Known> = of.iter().filter(|k| k.currency == c && f(k)).collect();
            (m.len() as i64, m.iter().map(|k| v(k)).sum::<Decimal>())
        };
        let (n, a) = sum(&|k| k.payin, &|k| k.amount);
        figure_is(&cs.payins.all, n, a, c, "payins");
        let (n, a) = sum(&|k| k.payin && paid(k.state), &|k| k.amount);
        figure_is(&cs.payins.succeeded, n, a, c, "paid payins");
        let (n, a) = sum(&|k| k.payin && paid(k.state), &|k| k.fee);
        figure_is(
            &cs.payin_fees.handling,
            n,
            a,
            c,
            "handling fees of paid payins",
        );
        let (n, a) = sum(&|k| k.payin && matches!(k.state, 3 | 4), &|k| k.amount);
        figure_is(&cs.payins.failed, n, a, c, "failed payins");
        let (n, a) = sum(&|k| !k.payin, &|k| k.amount);
        figure_is(&cs.unknown_kind.all, n, a, c, "orders of unknown kind");
        for line in &cs.unknown_kind.by_state {
            let (n, a) = sum(&|k| !k.payin && k.state == line.state, &|k| k.amount);
            figure_is(
                &line.figure,
                n,
                a,
                c,
                &format!("unknown kind, state {}", line.state),
            );
        }
    }
}

fn tally_is(t: &Tally, of: &[&Known], what: &str) {
    assert_eq!(t.count, of.len() as i64, "{what}: count");
    let mut by: BTreeMap<&str, (i64, Decimal)> = BTreeMap::new();
    for k in of {
        let e = by.entry(k.currency).or_default();
        e.0 += 1;
        e.1 += k.amount;
    }
    let got: Vec<(String, i64, String)> = t
        .amounts
        .iter()
        .map(|a| (a.currency.clone(), a.count, a.amount.clone()))
        .collect();
    let want: Vec<(String, i64, String)> = by
        .iter()
        .map(|(c, (n, a))| (c.to_string(), *n, money(*a, minor_digits(c))))
        .collect();
    assert_eq!(got, want, "{what}: amounts per currency");
}

/// The failure breakdown of `period` (days in Shanghai) against the test's counts.
fn failures_are(r: &FailureReport, known: &[Known], period: Period, zone: &Zone) {
    let b = &r.current;
    let of: Vec<&Known> = known
        .iter()
        .filter(|k| k.at >= period.from && k.at < period.to)
        .collect();
    let class = |f: &dyn Fn(i64) -> bool| -> Vec<&Known> {
        of.iter().copied().filter(|k| f(k.state)).collect()
    };
    tally_is(&b.all.succeeded, &class(&paid), "succeeded");
    tally_is(&b.all.failed, &class(&|s| s == 3), "failed");
    tally_is(&b.all.closed, &class(&|s| s == 4), "closed");
    tally_is(&b.all.pending, &class(&|s| s == 1 || s == 2), "pending");
    tally_is(&b.all.unknown, &class(&|s| s == 9), "unknown");
    for line in &b.by_day {
        let day = line.key.clone().unwrap();
        let that: Vec<&Known> = of
            .iter()
            .copied()
            .filter(|k| zone.day_of(k.at) == day)
            .collect();
        let n = line.succeeded.count
            + line.failed.count
            + line.closed.count
            + line.pending.count
            + line.unknown.count;
        assert_eq!(n, that.len() as i64, "orders of {day}");
        let not_paid: Vec<&Known> = that
            .iter()
            .copied()
            .filter(|k| matches!(k.state, 3 | 4))
            .collect();
        tally_is(&line.not_paid, &not_paid, &format!("not paid on {day}"));
    }
    let failed_why: i64 = b
        .reasons
        .iter()
        .filter(|l| l.reason.as_deref() == Some("do not honor"))
        .map(|l| l.orders.count)
        .sum();
    let want = of
        .iter()
        .filter(|k| matches!(k.state, 3 | 4) && k.reason == "do not honor")
        .count() as i64;
    assert_eq!(failed_why, want, "orders not paid for \"do not honor\"");
}

fn kept(conn: &rusqlite::Connection) -> i64 {
    conn.query_row("SELECT COUNT(*) FROM report_days", [], |r| r.get(0))
        .unwrap()
}

fn check_all(orders: &Orders<&rusqlite::Connection>, known: &[Known]) {
    let dict = StateDictionary::default();
    let zone = shanghai();
    let november = Period::new(start(2026, 11, 1), start(2026, 12, 1)).unwrap();
    let october = Period::new(start(2026, 10, 1), start(2026, 11, 1)).unwrap();
    for p in [november, october] {
        statement_is(
            &Statement::build(orders, &dict, p, None).unwrap(),
            known,
            p,
            None,
        );
        statement_is(
            &Statement::build(orders, &dict, p, Some("USD")).unwrap(),
            known,
            p,
            Some("USD"),
        );
    }
    let r = FailureReport::build(orders, &dict, november, &zone).unwrap();
    failures_are(&r, known, november, &zone);
    assert_eq!(
        r.previous.period,
        Period::new(start(2026, 10, 2), november.from).unwrap()
    );
}

#[test]
fn a_months_statement_and_failures_from_kept_days_add_up_to_the_orders() {
    let dir = tempfile::tempdir().unwrap();
    let conn = db::open(&dir.path().join("cache.sqlite"), Durability::Cache).unwrap();
    let orders = Orders::on(&conn);
    let mut rng = fastrand::Rng::with_seed(34);
    // Every hour from 2026-10-29 to 2026-11-05 (UTC), three orders: the 32 hours around
    // the first moment of November in Shanghai (2026-10-31 16:00 UTC) on both sides.
    let first = chrono::Utc
        .with_ymd_and_hms(2026, 10, 29, 0, 0, 0)
        .unwrap()
        .timestamp_millis();
    let mut known = Vec::new();
    for h in 0..(7 * 24) {
        for k in 0..3 {
            let n = h * 3 + k;
            let state = STATES[rng.usize(0..STATES.len())];
            known.push(Known {
                trade_no: format!("T2026{n:08}"),
                mer_order_no: format!("M-{n:06}"),
                payin: n % 3 != 2,
                state,
                currency: CURRENCIES[rng.usize(0..3)],
                amount: Decimal::new(rng.i64(1..10_000_000), 2),
                fee: Decimal::new(rng.i64(0..10_000), 2),
                reason: ["do not honor", "insufficient funds", ""][rng.usize(0..3)],
                at: first + h as i64 * HOUR,
            });
        }
    }
    assert!(
        known
            .iter()
            .any(|k| k.at < start(2026, 11, 1) && k.at >= start(2026, 11, 1) - 8 * HOUR)
    );
    sync(&orders, &known);
    assert_eq!(kept(&conn), 0);

    // The first read sums the days from their orders and keeps them; the second reads
    // them as kept: both agree with the test's sums.
    check_all(&orders, &known);
    let days = kept(&conn);
    assert!(
        days >= 60,
        "a month's days kept, twice over (statement, failures): {days}"
    );
    check_all(&orders, &known);
    assert_eq!(kept(&conn), days, "read again, nothing summed anew");

    // A re-sync: a quarter of the orders change state, amount and fee (a failed order
    // paid, a paid one refunded...), among them those of the hours at November's start.
    for (i, k) in known.iter_mut().enumerate() {
        if i % 4 == 1
            || (k.at >= start(2026, 11, 1) - 2 * HOUR && k.at < start(2026, 11, 1) + 2 * HOUR)
        {
            k.state =
                STATES[(STATES.iter().position(|s| *s == k.state).unwrap() + 1) % STATES.len()];
            k.amount += Decimal::new(101, 2);
            k.fee += Decimal::new(7, 2);
        }
    }
    sync(&orders, &known);
    assert!(
        kept(&conn) < days,
        "the days of the changed orders are forgotten"
    );
    check_all(&orders, &known);

    // Orders deleted from the cache (plain SQL, as any writer may): gone from the sums.
    let gone: Vec<String> = known
        .iter()
        .filter(|k| k.at >= start(2026, 11, 1) - HOUR && k.at < start(2026, 11, 2))
        .step_by(5)
        .map(|k| k.trade_no.clone())
        .collect();
    assert!(!gone.is_empty());
    for t in &gone {
        conn.execute("DELETE FROM orders WHERE trade_no = ?1", [t])
            .unwrap();
    }
    known.retain(|k| !gone.contains(&k.trade_no));
    check_all(&orders, &known);
}
