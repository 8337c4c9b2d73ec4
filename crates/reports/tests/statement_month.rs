//! A month at the sandbox, checked as an accountant would: every statement figure
//! against sums this test makes itself of the sandbox's own orders (its records, not
//! the desk's cache), in UTC, east and west of it, and in zones whose clocks change in
//! the period (Europe/Berlin on 2025-10-26, America/New_York on 2025-11-02). The month
//! holds paid, failed, pending, settled and unsettled orders, refunds, partial
//! chargebacks, a refund later charged back, reserve held and released, pending
//! payouts, an amount near the 10^15 the desk accepts, and changes to old orders made
//! after the sync that first read them.

#![allow(clippy::unwrap_used)]

#[path = "../../core/tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use chrono::{DateTime, NaiveDate, Utc};
use paydesk_gateway::conventions::KindRule;
use paydesk_gateway::{Conventions, OrderKind};
use paydesk_reports::DeskReports;
use paydesk_reports::statement::{Period, Statement, parse_zone};
use paydesk_sandbox::model::{Kind, Order, Refund, st};
use rust_decimal::Decimal;

/// One currency's figures as the test sums them from the sandbox's orders.
#[derive(Debug, Default, PartialEq)]
struct Sums {
    orders: i64,
    paid_payins: (i64, Decimal),
    failed_payins: (i64, Decimal),
    pending_payins: (i64, Decimal),
    payin_fees: Decimal,
    reserve_held: (i64, Decimal),
    reserve_released: (i64, Decimal),
    refunds: (i64, Decimal),
    chargebacks: (i64, Decimal),
    paid_payouts: (i64, Decimal),
    payout_fees: Decimal,
    pending_payouts: (i64, Decimal),
    pending_payout_fees: Decimal,
    /// What the orders moved on the balance, by the sandbox's own balance rules.
    net: Decimal,
}

fn add(p: &mut (i64, Decimal), v: Decimal) {
    p.0 += 1;
    p.1 += v;
}

fn sums(orders: &[Order], period: Period) -> BTreeMap<String, Sums> {
    let mut out: BTreeMap<String, Sums> = BTreeMap::new();
    for o in orders {
        let at = o.created.timestamp_millis();
        if o.mer_no != common::MER || at < period.from || at >= period.to {
            continue;
        }
        let s = out.entry(o.currency.clone()).or_default();
        s.orders += 1;
        let e = o.effect();
        s.net += e.available + e.unchecked;
        let open = matches!(o.state, st::CREATED | st::PENDING);
        let failed = matches!(o.state, st::FAILED | st::CLOSED);
        match o.kind {
            Kind::Payin => {
                if o.is_paid() {
                    add(&mut s.paid_payins, o.amount);
                    s.payin_fees += o.fee + o.fixed_fee;
                    if o.reserve_released {
                        add(&mut s.reserve_released, o.reserve);
                    } else {
                        add(&mut s.reserve_held, o.reserve);
                    }
                    if o.refunded() > Decimal::ZERO {
                        add(&mut s.refunds, o.refunded());
                    }
                    if o.state == st::CHARGED_BACK {
                        add(&mut s.chargebacks, o.chargeback.unwrap());
                    }
                } else if failed {
                    add(&mut s.failed_payins, o.amount);
                } else if open {
                    add(&mut s.pending_payins, o.amount);
                }
            }
            Kind::Payout => {
                if o.state == st::SUCCESS {
                    add(&mut s.paid_payouts, o.amount);
                    s.payout_fees += o.fee;
                } else if open {
                    add(&mut s.pending_payouts, o.amount);
                    s.pending_payout_fees += o.fee;
                }
            }
            Kind::TopUp | Kind::Withdraw => {}
        }
    }
    out
}

/// `amount` divided by `n`, in its currency's digits (as the gateway would give it).
fn part(o: &Order, n: i64) -> Decimal {
    let units = paydesk_gateway::money::Currency::parse(&o.currency)
        .map(|c| c.minor_units())
        .unwrap_or(2);
    (o.amount / Decimal::from(n)).round_dp(units)
}

fn dec(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn fig(f: &paydesk_reports::statement::Figure) -> (i64, Decimal) {
    (f.count, dec(&f.amount))
}

/// The statement's figures in the test's terms.
fn figures(s: &Statement) -> BTreeMap<String, Sums> {
    s.currencies
        .iter()
        .map(|c| {
            let sums = Sums {
                orders: c.payins.all.count + c.payouts.all.count + c.unknown_kind.all.count,
                paid_payins: fig(&c.payins.succeeded),
                failed_payins: fig(&c.payins.failed),
                pending_payins: fig(&c.payins.pending),
                payin_fees: dec(&c.payin_fees.total),
                reserve_held: fig(&c.reserve_held),
                reserve_released: fig(&c.reserve_released),
                refunds: fig(&c.refunds),
                chargebacks: fig(&c.chargebacks),
                paid_payouts: fig(&c.payouts.succeeded),
                payout_fees: dec(&c.payout_fees.total),
                pending_payouts: fig(&c.pending_payouts),
                pending_payout_fees: dec(&c.pending_payout_fees.total),
                net: dec(&c.net),
            };
            (c.currency.clone(), sums)
        })
        .collect()
}

fn utc(s: &str) -> DateTime<Utc> {
    format!("{s}T00:00:00Z").parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_month_adds_up_to_the_sandboxs_own_orders_in_every_zone() {
    let f = common::Fixture::new("statement-month").await;
    // The demo merchant numbers payins PI… and payouts PO…: the conventions say so.
    let conventions = Conventions {
        kind_rules: vec![
            KindRule {
                prefix: "PI".into(),
                kind: OrderKind::Payin,
            },
            KindRule {
                prefix: "PO".into(),
                kind: OrderKind::Payout,
            },
        ],
        ..Conventions::default()
    };
    f.home.set_conventions(&f.name, conventions).unwrap();
    let sb = &f.running.sandbox;
    sb.seed(&paydesk_sandbox::SeedSpec {
        mer_no: Some(common::MER),
        seed: 31,
        from: Some("2025-10-18 00:00:00".into()),
        to: Some("2025-11-12 00:00:00".into()),
        ..paydesk_sandbox::SeedSpec::new(1_200)
    });
    let numbers = |pick: &dyn Fn(&Order) -> bool, n: usize| -> Vec<String> {
        sb.with_state(|s| {
            s.orders
                .iter()
                .filter(|o| o.mer_no == common::MER && pick(o))
                .map(|o| o.mer_order_no.clone())
                .take(n)
                .collect()
        })
    };
    let paid_payin = |o: &Order| o.kind == Kind::Payin && o.state == st::SUCCESS;
    // Before the first sync: reserve held on some paid payins (the seed's month is old
    // enough for all to be released), and one amount near the desk's limit.
    let held = numbers(
        &|o| paid_payin(o) && o.trade_no.ends_with(['1', '2', '3']),
        200,
    );
    for n in &held {
        sb.alter_order(common::MER, n, |o| o.reserve_released = false);
    }
    let big = numbers(&|o| paid_payin(o) && o.currency == "USD", 1);
    sb.alter_order(common::MER, &big[0], |o| {
        o.amount = dec("999999999999999.99");
    });

    let desk = f.desk().await;
    let cancel = || Arc::new(AtomicBool::new(false));
    let mut first = desk.orders().sync_options(1);
    first.from = utc("2025-10-10");
    first.to = utc("2025-11-20");
    desk.orders().sync(&first, cancel(), |_| {}).await.unwrap();

    // After it, changes to old orders: partial chargebacks, later refunds, a refund
    // charged back later, reserve released, a pending payout paid.
    let later = numbers(&|o| paid_payin(o) && !held.contains(&o.mer_order_no), 40);
    for n in &later[..8] {
        sb.alter_order(common::MER, n, |o| {
            o.chargeback = Some(part(o, 3));
            o.state = st::CHARGED_BACK;
        });
    }
    for (i, n) in later[8..20].iter().enumerate() {
        sb.alter_order(common::MER, n, |o| {
            o.refunds.push(Refund {
                refund_no: format!("R-LATER-{i}"),
                amount: part(o, 4),
                state: 3,
                created: o.created,
            });
            o.state = st::PARTLY_REFUNDED;
            if i % 3 == 0 {
                // Charged back later still, for part of what was left.
                o.chargeback = Some(part(o, 5));
                o.state = st::CHARGED_BACK;
            }
        });
    }
    for n in held.iter().take(30) {
        sb.alter_order(common::MER, n, |o| o.reserve_released = true);
    }
    let pending_payout = numbers(&|o| o.kind == Kind::Payout && o.state == st::PENDING, 3);
    for n in &pending_payout {
        sb.alter_order(common::MER, n, |o| o.state = st::SUCCESS);
    }

    let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
    let mut checked = 0;
    for zone in [
        "UTC",
        "+08:00",
        "-05:00",
        "America/New_York",
        "Europe/Berlin",
    ] {
        let tz = parse_zone("tz", zone).unwrap();
        for (first, last) in [("2025-10-01", "2025-10-31"), ("2025-11-01", "2025-11-30")] {
            let period = Period::days(day(first), day(last), tz).unwrap();
            desk.orders()
                .refresh_period(period, cancel(), |_| {})
                .await
                .unwrap();
            let s = desk.statement(period, None).unwrap();
            assert_eq!(s.uncertain, 0, "{zone} {first}: every order placed");
            let orders = sb.with_state(|st| st.orders.clone());
            let expected = sums(&orders, period);
            let total: i64 = expected.values().map(|s| s.orders).sum();
            assert_eq!(s.orders, total, "{zone} {first}: orders");
            let got = figures(&s);
            for (currency, want) in &expected {
                assert_eq!(got.get(currency), Some(want), "{zone} {first} {currency}");
                let c = s
                    .currencies
                    .iter()
                    .find(|c| &c.currency == currency)
                    .unwrap();
                assert_eq!(c.unknown_kind.all.count, 0);
                assert_eq!(c.chargebacks_not_looked_up, 0, "{zone} {first} {currency}");
                checked += 1;
            }
            assert_eq!(got.len(), expected.len(), "{zone} {first}: currencies");
        }
    }
    assert!(checked >= 10, "{checked}");

    // A zone half an hour off the hour (Asia/Kolkata, +05:30), not read for it: the
    // cache placed orders by the hour, so those of the hour its November starts in
    // (2025-10-31 18:00 to 19:00 UTC) cannot be placed on a side of 18:30. They are
    // counted as uncertain, not guessed.
    let kolkata = parse_zone("tz", "Asia/Kolkata").unwrap();
    let period = Period::days(day("2025-11-01"), day("2025-11-30"), kolkata).unwrap();
    let s = desk.statement(period, None).unwrap();
    let hour = (utc("2025-10-31") + chrono::Duration::hours(18)).timestamp_millis();
    let in_that_hour = sb.with_state(|st| {
        st.orders
            .iter()
            .filter(|o| o.mer_no == common::MER)
            .filter(|o| (hour..hour + 3_600_000).contains(&o.created.timestamp_millis()))
            .count() as i64
    });
    assert!(in_that_hour > 0);
    assert_eq!(s.uncertain, in_that_hour);
}
