//! Statements on real data: on the sandbox, every figure of a synced statement equals
//! the sum of its field over the orders export of its filter (the file a finance team
//! would check it against); and the same orders give the same statement on the team's
//! PostgreSQL read model as on a desk's SQLite cache.

#![allow(clippy::unwrap_used)]

#[path = "../../core/tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use paydesk_core::store::prelude::*;
use paydesk_gateway::StateDictionary;
use paydesk_gateway::wire::OrderListItem;
use paydesk_reports::DeskReports;
use paydesk_reports::statement::{CurrencyStatement, Figure, Period, Statement};
use paydesk_store_pg::orders::PgOrders;
use paydesk_store_pg::{PgConfig, PgLink, init_team};
use paydesk_store_sqlite::orders::{MadeOrder, OrderKind, Orders};
use paydesk_store_sqlite::{self as db, Durability};
use paydesk_testpg::TestPg;
use rust_decimal::Decimal;

const DAY: i64 = 86_400_000;

/// Every figure of a currency, with a name.
fn figures(c: &CurrencyStatement) -> Vec<(String, &Figure)> {
    let mut v: Vec<(String, &Figure)> = Vec::new();
    for (name, flow) in [("payins", &c.payins), ("payouts", &c.payouts)] {
        v.push((format!("{name}.all"), &flow.all));
        v.push((format!("{name}.succeeded"), &flow.succeeded));
        v.push((format!("{name}.failed"), &flow.failed));
        v.push((format!("{name}.pending"), &flow.pending));
        for l in &flow.by_state {
            v.push((format!("{name}.state{}", l.state), &l.figure));
        }
    }
    for (name, fees) in [("payinFees", &c.payin_fees), ("payoutFees", &c.payout_fees)] {
        v.push((format!("{name}.handling"), &fees.handling));
        v.push((format!("{name}.fixed"), &fees.fixed));
        v.push((format!("{name}.exception"), &fees.exception));
    }
    for (name, s) in [("settled", &c.settled), ("notSettled", &c.not_settled)] {
        v.push((format!("{name}.amount"), &s.amount));
        v.push((format!("{name}.settleAmount"), &s.settle_amount));
        v.push((format!("{name}.receiveAmount"), &s.receive_amount));
    }
    v.push(("reserveHeld".into(), &c.reserve_held));
    v.push(("reserveReleased".into(), &c.reserve_released));
    v.push(("refunds".into(), &c.refunds));
    v.push(("chargebacks".into(), &c.chargebacks));
    v
}

/// Rows of a CSV orders export and the sum of one of its columns.
fn csv_sum(path: &std::path::Path, column: &str) -> (i64, Decimal) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let at = r
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == column)
        .unwrap();
    let (mut n, mut sum) = (0, Decimal::ZERO);
    for row in r.records() {
        let row = row.unwrap();
        n += 1;
        let cell = &row[at];
        if !cell.is_empty() {
            sum += cell.parse::<Decimal>().unwrap();
        }
    }
    (n, sum)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_statement_adds_up_to_the_orders_export_of_each_figure() {
    let f = common::Fixture::new("statement").await;
    f.running.sandbox.seed(&paydesk_sandbox::SeedSpec {
        mer_no: Some(common::MER),
        seed: 11,
        ..paydesk_sandbox::SeedSpec::new(1_500)
    });
    let desk = f.desk().await;
    // Payouts this desk made are known as payouts (the list does not say).
    for (i, amount) in ["120", "35.50", "8"].iter().enumerate() {
        let mut form = paydesk_core::forms::PayoutForm::new(
            paydesk_core::forms::PayoutKind::Clabe,
            &format!("ST-PAYOUT-{i}"),
            amount,
            "MXN",
        );
        form.clabe = "002010077777777771".into();
        desk.money().payout(&form).await.unwrap();
    }
    desk.orders()
        .sync(
            &desk.orders().sync_options(100),
            Arc::new(AtomicBool::new(false)),
            |_| {},
        )
        .await
        .unwrap();
    let now = chrono::Utc::now().timestamp_millis();
    let period = Period::new(now - 60 * DAY, now + DAY).unwrap();
    let s = desk.statement(period, None).unwrap();
    assert!(s.orders > 900, "{} orders in 60 of 90 days", s.orders);
    assert!(s.currencies.len() > 2);
    let mxn = s.currencies.iter().find(|c| c.currency == "MXN").unwrap();
    assert_eq!(mxn.payouts.all.count, 3);
    assert_eq!(
        mxn.payouts.all.amount, "163.50",
        "in the currency's two digits"
    );

    let dir = tempfile::tempdir().unwrap();
    let utc = chrono::FixedOffset::east_opt(0).unwrap();
    let mut checked = 0;
    for c in &s.currencies {
        for (name, fig) in figures(c) {
            let path = dir.path().join(format!("{}-{name}.csv", c.currency));
            desk.export(
                &fig.filter,
                &path,
                paydesk_core::output::Existing::Replace,
                utc,
                |_, _| {},
            )
            .unwrap();
            // No chargeback looked up here: charged back at the order's amount.
            let column = match fig.field {
                paydesk_reports::statement::Field::ChargebackAmount => {
                    assert_eq!(c.chargebacks_not_looked_up, c.chargebacks.count);
                    "sourceAmount"
                }
                other => other.wire_name(),
            };
            let (n, sum) = csv_sum(&path, column);
            assert_eq!(
                (n, sum),
                (fig.count, fig.amount.parse::<Decimal>().unwrap()),
                "{} {name}",
                c.currency
            );
            checked += 1;
        }
        // The net is its figures' arithmetic.
        let amt = |f: &Figure| f.amount.parse::<Decimal>().unwrap();
        let fees = |t: &str| t.parse::<Decimal>().unwrap();
        assert_eq!(
            c.net.parse::<Decimal>().unwrap(),
            amt(&c.payins.succeeded)
                - fees(&c.payin_fees.total)
                - amt(&c.reserve_held)
                - amt(&c.refunds)
                - amt(&c.chargebacks)
                - amt(&c.payouts.succeeded)
                - fees(&c.payout_fees.total)
                - amt(&c.pending_payouts)
                - fees(&c.pending_payout_fees.total)
                - amt(&c.card_top_ups)
                + amt(&c.card_withdrawals)
                - fees(&c.card_withdrawal_fees.total),
            "{}",
            c.currency
        );
    }
    assert!(checked > 100);
    // Every order behind the statement, and its export.
    let all = dir.path().join("all.csv");
    let rows = desk
        .export(
            &s.filter,
            &all,
            paydesk_core::output::Existing::Replace,
            utc,
            |_, _| {},
        )
        .unwrap();
    assert_eq!(rows as i64, s.orders);
    let (statement, made) = desk
        .export_statement(
            period,
            None,
            &dir.path().join("s.xlsx"),
            paydesk_core::output::Existing::Replace,
            utc,
        )
        .unwrap();
    assert_eq!(statement, s);
    assert_eq!(made.rows as i64, s.orders);
}

fn item(n: usize, rng: &mut fastrand::Rng) -> OrderListItem {
    let currency = ["USD", "EUR", "JPY", "MXN"][n % 4];
    let state = [5, 5, 5, 2, 3, 4, 6, 7, 8, 1][rng.usize(0..10)];
    let amount = Decimal::new(rng.i64(100..1_000_000), 2);
    let mut dec = |lo: i64, hi: i64, scale: u32| Some(Decimal::new(rng.i64(lo..hi), scale));
    OrderListItem {
        state,
        mer_order_no: format!("M-{n:06}"),
        trade_no: format!("T2026{n:08}"),
        source_amount: amount,
        source_currency: currency.into(),
        settlement_currency: currency.into(),
        handling_fee: dec(0, 5_000, 4),
        transaction_fixed_fee: dec(0, 100, 2),
        exception_handling_fee: if n.is_multiple_of(7) {
            dec(1, 99, 2)
        } else {
            None
        },
        rolling_reserve: dec(0, 20_000, 3),
        rolling_reserve_status: [Some(0), Some(1), None][n % 3],
        settle: [Some(1), Some(0), None, Some(1)][n % 4],
        settle_amount: dec(0, 900_000, 2),
        receive_amount: dec(0, 900_000, 4),
        refund_amount: if matches!(state, 6 | 7) {
            dec(1, 50_000, 2)
        } else {
            None
        },
        ..OrderListItem::default()
    }
}

#[test]
fn the_same_orders_give_the_same_statement_on_postgres_and_on_sqlite() {
    let pg = TestPg::start().unwrap();
    pg.create_database("team").unwrap();
    let cfg = PgConfig {
        host: pg.host().into(),
        port: pg.port(),
        database: "team".into(),
        user: pg.owner().into(),
        ca_file: String::new(),
        cert_file: String::new(),
        key_file: String::new(),
    };
    let owner = PgLink::connect(&cfg, pg.owner_password()).unwrap();
    let mer = common::MER as i64;
    init_team(&owner, mer).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let conn = db::open(&dir.path().join("cache.sqlite"), Durability::Cache).unwrap();
    let sqlite = Orders::on(&conn);
    let team = PgOrders::on(&owner, mer);
    let mut rng = fastrand::Rng::with_seed(3);
    let items: Vec<OrderListItem> = (0..3_000).map(|n| item(n, &mut rng)).collect();
    for (day, chunk) in items.chunks(100).enumerate() {
        for o in [&sqlite as &dyn OrderStore, &team] {
            o.upsert_items(common::MER, chunk, day as i64 * DAY, true)
                .unwrap();
        }
    }
    for n in (0..3_000usize).step_by(13) {
        let made = MadeOrder {
            trade_no: format!("T2026{n:08}"),
            mer_order_no: format!("M-{n:06}"),
            kind: if n.is_multiple_of(2) {
                OrderKind::Payout
            } else {
                OrderKind::Payin
            },
            method: String::new(),
            currency: String::new(),
            amount: Decimal::ZERO,
            state: None,
            made_at: (n as i64 / 100) * DAY + 1,
        };
        for o in [&sqlite as &dyn OrderStore, &team] {
            assert!(o.record_made(common::MER, &made).unwrap());
        }
    }
    let dict = StateDictionary::default();
    for (period, currency) in [
        (Period::new(0, 30 * DAY).unwrap(), None),
        (Period::new(3 * DAY, 17 * DAY).unwrap(), None),
        (Period::new(3 * DAY, 17 * DAY).unwrap(), Some("JPY")),
        (Period::new(100 * DAY, 101 * DAY).unwrap(), None),
    ] {
        let a = Statement::build(&sqlite, &dict, period, currency).unwrap();
        let b = Statement::build(&team, &dict, period, currency).unwrap();
        // Only the team's read model says which orders no journal of the team made.
        assert_eq!(a.outside_team, 0);
        let b_outside = b.outside_team;
        let b = Statement {
            outside_team: 0,
            ..b
        };
        assert_eq!(a, b, "{period:?} {currency:?}");
        if period.from == 0 {
            assert_eq!(a.orders, 3_000);
            assert_eq!(a.currencies.len(), 4);
            // Every 13th order was recorded as made: 231 of 3,000.
            assert_eq!(b_outside, 3_000 - 231);
        }
    }
}

/// From an hour 30 days ago to a day to come.
fn period_to_come(now: chrono::DateTime<chrono::Utc>) -> Period {
    const HOUR: i64 = 3_600_000;
    let from = (now - chrono::Duration::days(30)).timestamp_millis();
    Period::new(
        from - from.rem_euclid(HOUR),
        (now + chrono::Duration::days(1)).timestamp_millis(),
    )
    .unwrap()
}

/// A chargeback of part of an old order, after the sync that completed its day: a plain
/// sync skips that day, so the cache still reads it paid; reading the period again
/// before a statement finds it charged back and looks up the amount charged back (a
/// third of the order, not all of it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_later_partial_chargeback_reaches_the_statement_once_the_period_is_read_again() {
    use paydesk_sandbox::model::st;
    let f = common::Fixture::new("statement-fresh").await;
    f.running.sandbox.seed(&paydesk_sandbox::SeedSpec {
        mer_no: Some(common::MER),
        seed: 5,
        ..paydesk_sandbox::SeedSpec::new(200)
    });
    // And a few in the last half hour: the hour now is never complete.
    let recent = |m: i64| {
        (chrono::Utc::now() - chrono::Duration::minutes(m))
            .format("%Y-%m-%d %H:%M:%S")
            .to_string()
    };
    f.running.sandbox.seed(&paydesk_sandbox::SeedSpec {
        mer_no: Some(common::MER),
        seed: 6,
        from: Some(recent(30)),
        to: Some(recent(1)),
        ..paydesk_sandbox::SeedSpec::new(5)
    });
    let desk = f.desk().await;
    let cancel = || Arc::new(AtomicBool::new(false));
    desk.orders()
        .sync(&desk.orders().sync_options(100), cancel(), |_| {})
        .await
        .unwrap();
    // A paid payin of ten days ago or more, not refunded.
    let now = chrono::Utc::now();
    let (mer_order_no, trade_no, amount) = f.running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .find(|o| {
                o.mer_no == common::MER
                    && o.kind == paydesk_sandbox::model::Kind::Payin
                    && o.state == st::SUCCESS
                    && o.refunds.is_empty()
                    && now - o.created > chrono::Duration::days(10)
                    && now - o.created < chrono::Duration::days(20)
                    && o.amount > Decimal::ONE
            })
            .map(|o| (o.mer_order_no.clone(), o.trade_no.clone(), o.amount))
            .unwrap()
    });
    let part = (amount / Decimal::from(3)).round_dp(2);
    assert!(
        f.running
            .sandbox
            .alter_order(common::MER, &mer_order_no, |o| {
                o.chargeback = Some(part);
                o.state = st::CHARGED_BACK;
            })
    );
    desk.orders()
        .sync(&desk.orders().sync_options(100), cancel(), |_| {})
        .await
        .unwrap();
    let cached =
        |desk: &paydesk_core::desk::Desk| desk.orders().cached_order(&trade_no).unwrap().unwrap();
    assert_eq!(
        cached(&desk).state,
        st::SUCCESS,
        "a plain sync skips the completed day"
    );
    let r = desk
        .orders()
        .refresh_period(period_to_come(now), cancel(), |_| {})
        .await
        .unwrap();
    assert_eq!(
        cached(&desk).state,
        st::CHARGED_BACK,
        "read again: charged back"
    );
    assert!(r.changed >= 1);
    assert!(r.chargebacks_looked_up >= 1);
    // This month to a day to come: every order cached is from before now, so none is
    // uncertain at the end; the start was read by the hour.
    let s = desk.statement(period_to_come(now), None).unwrap();
    assert_eq!(s.uncertain, 0);
    let cb = desk.orders().reversals(Some(&trade_no)).unwrap();
    assert_eq!(
        cb.iter()
            .find(|r| r.kind == "chargeback")
            .and_then(|r| r.amount.clone())
            .map(|a| a.parse::<Decimal>().unwrap()),
        Some(part),
        "the amount charged back, not the order's"
    );
}

/// The change horizon (a profile setting): reading it again brings a later refund of a
/// finished order into the cache, which a plain sync does not; an order older than the
/// horizon is left as it was cached.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reading_the_change_horizon_again_brings_later_refunds() {
    use paydesk_sandbox::model::st;
    let f = common::Fixture::new("statement-horizon").await;
    f.home
        .set_reporting(
            &f.name,
            paydesk_core::profile::Reporting {
                business_zone: "Europe/Berlin".into(),
                change_horizon_days: 30,
            },
        )
        .unwrap();
    f.running.sandbox.seed(&paydesk_sandbox::SeedSpec {
        mer_no: Some(common::MER),
        seed: 9,
        ..paydesk_sandbox::SeedSpec::new(200)
    });
    let desk = f.desk().await;
    assert_eq!(desk.orders().reporting().change_horizon_days, 30);
    let cancel = || Arc::new(AtomicBool::new(false));
    desk.orders()
        .sync(&desk.orders().sync_options(90), cancel(), |_| {})
        .await
        .unwrap();
    let now = chrono::Utc::now();
    let pick = |from: i64, to: i64| {
        f.running.sandbox.with_state(|s| {
            s.orders
                .iter()
                .find(|o| {
                    let age = now - o.created;
                    o.mer_no == common::MER
                        && o.kind == paydesk_sandbox::model::Kind::Payin
                        && o.state == st::SUCCESS
                        && age > chrono::Duration::days(from)
                        && age < chrono::Duration::days(to)
                })
                .map(|o| (o.mer_order_no.clone(), o.trade_no.clone()))
                .unwrap()
        })
    };
    let (inside, inside_trade) = pick(10, 20);
    let (outside, outside_trade) = pick(45, 80);
    for n in [&inside, &outside] {
        assert!(f.running.sandbox.alter_order(common::MER, n, |o| {
            o.refunds.push(paydesk_sandbox::model::Refund {
                refund_no: format!("R-{n}"),
                amount: Decimal::ONE,
                state: 3,
                created: now,
            });
            o.state = st::PARTLY_REFUNDED;
        }));
    }
    desk.orders()
        .sync(&desk.orders().sync_options(90), cancel(), |_| {})
        .await
        .unwrap();
    let state = |t: &str| desk.orders().cached_order(t).unwrap().unwrap().state;
    assert_eq!(state(&inside_trade), st::SUCCESS, "a plain sync skips it");
    desk.orders()
        .refresh_horizon(cancel(), |_| {})
        .await
        .unwrap();
    assert_eq!(state(&inside_trade), st::PARTLY_REFUNDED);
    assert_eq!(
        desk.orders()
            .cached_order(&inside_trade)
            .unwrap()
            .unwrap()
            .refund_amount
            .as_deref(),
        Some("1")
    );
    assert_eq!(state(&outside_trade), st::SUCCESS, "beyond the 30 days");
}

/// Card top-ups and withdrawals this desk made move the balance: they are lines of the
/// statement and of its net, which equals what the sandbox's own balance rules say the
/// period's orders moved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn card_moves_are_lines_of_the_net() {
    use paydesk_core::new_mer_order_no;
    use paydesk_gateway::wire::{MerNo, V1CardWithdraw, V2CardTopUp};
    let f = common::Fixture::new("statement-cards").await;
    let desk = f.desk().await;
    desk.money()
        .card_top_up(V2CardTopUp::new(
            MerNo(common::MER),
            "SUB-1".into(),
            new_mer_order_no("TU"),
            "CARD-1".into(),
            "20.00".parse().unwrap(),
            "USD".into(),
            String::new(),
        ))
        .await
        .unwrap();
    desk.money()
        .card_withdraw(
            V1CardWithdraw {
                mer_no: MerNo(common::MER),
                apply_order_no: "CARD-1".into(),
                amount: "7.00".parse().unwrap(),
                currency: "USD".into(),
            },
            &new_mer_order_no("WD"),
        )
        .await
        .unwrap();
    let now = chrono::Utc::now();
    let period = Period::new(
        (now - chrono::Duration::days(1)).timestamp_millis(),
        (now + chrono::Duration::days(1)).timestamp_millis(),
    )
    .unwrap();
    desk.orders()
        .refresh_period(period, Arc::new(AtomicBool::new(false)), |_| {})
        .await
        .unwrap();
    let s = desk.statement(period, Some("USD")).unwrap();
    let usd = &s.currencies[0];
    let (top_ups, withdrawals, fees, net) = f.running.sandbox.with_state(|st| {
        let mine: Vec<&paydesk_sandbox::Order> = st
            .orders
            .iter()
            .filter(|o| o.mer_no == common::MER && o.currency == "USD")
            .collect();
        let sum = |k: paydesk_sandbox::model::Kind| -> Decimal {
            mine.iter().filter(|o| o.kind == k).map(|o| o.amount).sum()
        };
        let fees: Decimal = mine
            .iter()
            .filter(|o| o.kind == paydesk_sandbox::model::Kind::Withdraw)
            .map(|o| o.fee)
            .sum();
        let net: Decimal = mine
            .iter()
            .map(|o| {
                let e = o.effect();
                e.available + e.unchecked
            })
            .sum();
        (
            sum(paydesk_sandbox::model::Kind::TopUp),
            sum(paydesk_sandbox::model::Kind::Withdraw),
            fees,
            net,
        )
    });
    let d = |s: &str| s.parse::<Decimal>().unwrap();
    assert_eq!(top_ups, d("20"));
    assert_eq!(
        (usd.card_top_ups.count, d(&usd.card_top_ups.amount)),
        (1, top_ups)
    );
    assert_eq!(
        (usd.card_withdrawals.count, d(&usd.card_withdrawals.amount)),
        (1, withdrawals)
    );
    assert_eq!(d(&usd.card_withdrawal_fees.total), fees);
    assert_eq!(d(&usd.net), net, "{usd:#?}");
}
