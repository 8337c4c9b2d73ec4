//! The running desk keeps finished orders fresh: on its schedule it reads the change
//! horizon's windows again (cheapest stretch first), so a refund or a chargeback that
//! comes days after an order's day was synced reaches the cache with no sync asked for;
//! an order older than the horizon is left as it was cached. Against a sandbox on
//! loopback, the schedule in milliseconds.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use paydesk_sandbox::model::{Kind, Refund, st};
use rust_decimal::Decimal;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_schedule_brings_later_refunds_and_chargebacks_inside_the_horizon_only() {
    let f = common::Fixture::new("session-fresh").await;
    f.session
        .home()
        .set_reporting(
            &f.name,
            paydesk_core::profile::Reporting {
                business_zone: "UTC".into(),
                change_horizon_days: 30,
            },
        )
        .unwrap();
    // 90 days of orders before now.
    f.running.sandbox.seed(&paydesk_sandbox::SeedSpec {
        mer_no: Some(common::MER),
        seed: 11,
        ..paydesk_sandbox::SeedSpec::new(300)
    });
    let open = f.session.open(Some(&f.name)).await.unwrap();
    open.orders()
        .sync(
            &open.orders().sync_options(90),
            Arc::new(AtomicBool::new(false)),
            |_| {},
        )
        .await
        .unwrap();
    let now = chrono::Utc::now();
    // Paid payins of the sandbox aged `from` to `to` days, other than those in `not`.
    let pick = |from: i64, to: i64, not: &[String]| {
        f.running.sandbox.with_state(|s| {
            s.orders
                .iter()
                .find(|o| {
                    let age = now - o.created;
                    o.mer_no == common::MER
                        && o.kind == Kind::Payin
                        && o.state == st::SUCCESS
                        && o.refunds.is_empty()
                        && o.amount > Decimal::from(3)
                        && age > chrono::Duration::days(from)
                        && age < chrono::Duration::days(to)
                        && !not.contains(&o.mer_order_no)
                })
                .map(|o| (o.mer_order_no.clone(), o.trade_no.clone(), o.amount))
                .unwrap()
        })
    };
    let (refunded, refunded_trade, _) = pick(3, 25, &[]);
    let (charged, charged_trade, amount) = pick(3, 25, std::slice::from_ref(&refunded));
    let (old, old_trade, _) = pick(40, 85, &[]);
    let part = (amount / Decimal::from(3)).round_dp(2);
    for n in [&refunded, &old] {
        assert!(f.running.sandbox.alter_order(common::MER, n, |o| {
            o.refunds.push(Refund {
                refund_no: format!("R-{n}"),
                amount: Decimal::ONE,
                state: 3,
                created: now,
            });
            o.state = st::PARTLY_REFUNDED;
        }));
    }
    assert!(f.running.sandbox.alter_order(common::MER, &charged, |o| {
        o.chargeback = Some(part);
        o.state = st::CHARGED_BACK;
    }));
    let state = |t: &str| open.orders().cached_order(t).unwrap().unwrap().state;
    assert_eq!(
        state(&refunded_trade),
        st::SUCCESS,
        "cached before the refund"
    );
    assert_eq!(state(&old_trade), st::SUCCESS);

    // No sync is asked for: the schedule's first round, then one every second.
    let schedule = open.keep_fresh_in_background(Duration::from_millis(50), Duration::from_secs(1));
    let started = Instant::now();
    while open.fresh_rounds() == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no round of the schedule finished in a minute"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(state(&refunded_trade), st::PARTLY_REFUNDED);
    assert_eq!(
        open.orders()
            .cached_order(&refunded_trade)
            .unwrap()
            .unwrap()
            .refund_amount
            .as_deref(),
        Some("1")
    );
    assert_eq!(state(&charged_trade), st::CHARGED_BACK);
    let chargeback = open
        .orders()
        .reversals(Some(&charged_trade))
        .unwrap()
        .into_iter()
        .find(|r| r.kind == "chargeback")
        .and_then(|r| r.amount)
        .map(|a| a.parse::<Decimal>().unwrap());
    assert_eq!(chargeback, Some(part), "the amount charged back, looked up");
    assert_eq!(
        state(&old_trade),
        st::SUCCESS,
        "older than the 30 days: not read again"
    );
    schedule.abort();
}

/// The re-read's plan covers the horizon once, stretch after stretch, and takes them
/// cheapest first: by the pages the orders the test itself counts in each stretch of the
/// sandbox take, then by those orders.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_horizon_is_read_cheapest_stretch_first() {
    let f = common::Fixture::new("session-plan").await;
    f.session
        .home()
        .set_reporting(
            &f.name,
            paydesk_core::profile::Reporting {
                business_zone: "UTC".into(),
                change_horizon_days: 60,
            },
        )
        .unwrap();
    // Sparse weeks, and a dense stretch of three days in the middle of the horizon.
    let at = |days: i64| {
        (chrono::Utc::now() - chrono::Duration::days(days))
            .format("%Y-%m-%d %H:%M:%S")
            .to_string()
    };
    f.running.sandbox.seed(&paydesk_sandbox::SeedSpec {
        mer_no: Some(common::MER),
        seed: 12,
        from: Some(at(90)),
        ..paydesk_sandbox::SeedSpec::new(60)
    });
    f.running.sandbox.seed(&paydesk_sandbox::SeedSpec {
        mer_no: Some(common::MER),
        seed: 13,
        from: Some(at(33)),
        to: Some(at(30)),
        ..paydesk_sandbox::SeedSpec::new(1100)
    });
    let open = f.session.open(Some(&f.name)).await.unwrap();
    open.orders()
        .sync(
            &open.orders().sync_options(90),
            Arc::new(AtomicBool::new(false)),
            |_| {},
        )
        .await
        .unwrap();
    let plan = open.orders().horizon_plan().unwrap();
    // The stretches cover the horizon's 60 days to now, without gap or overlap.
    let mut spans: Vec<(i64, i64)> = plan.iter().map(|s| (s.from, s.to)).collect();
    spans.sort();
    for w in spans.windows(2) {
        assert_eq!(w[0].1, w[1].0, "stretches meet");
    }
    let now = chrono::Utc::now().timestamp_millis();
    assert!(spans[0].0 <= now - 60 * 86_400_000);
    assert!(
        (now - spans.last().unwrap().1).abs() < 60_000,
        "the last reaches now"
    );
    // The test's own count of the sandbox's orders in each stretch.
    let page = u64::from(open.profile.sync.page_size);
    let cost = |from: i64, to: i64| {
        let n = f.running.sandbox.with_state(|s| {
            s.orders
                .iter()
                .filter(|o| {
                    let t = o.created.timestamp_millis();
                    o.mer_no == common::MER && t >= from && t < to
                })
                .count() as u64
        });
        (n.div_ceil(page), n)
    };
    let costs: Vec<(u64, u64)> = plan.iter().map(|s| cost(s.from, s.to)).collect();
    for (s, c) in plan.iter().zip(&costs) {
        assert_eq!((s.expected_pages, s.cached_orders), *c);
    }
    let mut sorted = costs.clone();
    sorted.sort();
    assert_eq!(costs, sorted, "cheapest first");
    // The dense stretch (1,100 orders over three days: one stretch holds two pages at least) is not read first.
    assert!(costs.last().unwrap().0 >= 2);
    assert!(costs[0].0 < costs.last().unwrap().0);
}
