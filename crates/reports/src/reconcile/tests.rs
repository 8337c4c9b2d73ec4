//! Reconciliation arithmetic on hand-built orders in an in-memory cache.

use paydesk_gateway::StateDictionary;
use paydesk_gateway::wire::OrderListItem;
use rusqlite::Connection;
use rust_decimal::Decimal;

use super::{LineKind, reconcile, upcoming};
use crate::store::balances::BalanceSnapshot;
use crate::store::orders::{MadeOrder, OrderKind, OrderStore};
use paydesk_store_sqlite::orders::Orders;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

/// A listed order: state, amount, handling fee, fixed fee, reserve, settle, reserve
/// status, refunded amount.
#[allow(clippy::too_many_arguments)]
fn item(
    n: u32,
    state: i64,
    amount: &str,
    fee: &str,
    reserve: &str,
    settle: i64,
    released: i64,
    refund: Option<&str>,
) -> OrderListItem {
    OrderListItem {
        state,
        trade_no: format!("T{n:06}"),
        mer_order_no: format!("M{n:06}"),
        source_amount: d(amount),
        source_currency: "USD".into(),
        handling_fee: Some(d(fee)),
        transaction_fixed_fee: Some(d("0.30")),
        rolling_reserve: Some(d(reserve)),
        rolling_reserve_status: Some(released),
        settle: Some(settle),
        refund_amount: refund.map(d),
        ..OrderListItem::default()
    }
}

fn snap(balance: &str, at: i64) -> BalanceSnapshot {
    BalanceSnapshot {
        currency: "USD".into(),
        balance: balance.into(),
        un_checked_balance: "0".into(),
        total_balance: balance.into(),
        taken_at: at,
    }
}

fn made(orders: &Orders<&Connection>, n: u32, kind: OrderKind, amount: &str, state: i64) {
    orders
        .record_made(
            1,
            &MadeOrder {
                trade_no: format!("T{n:06}"),
                mer_order_no: format!("M{n:06}"),
                kind,
                method: String::new(),
                currency: "USD".into(),
                amount: d(amount),
                state: Some(state),
                made_at: crate::store::now_ms(),
            },
        )
        .unwrap();
}

/// Every kind of line from orders with known figures: each line's amount, count and
/// sign, their sum, and the difference against an observed movement; an order outside
/// the window counts nowhere; what is still to come.
#[test]
fn lines_add_up_from_hand_built_orders() {
    let mut conn = Connection::open_in_memory().unwrap();
    paydesk_store_sqlite::migrate(&mut conn).unwrap();
    let orders = Orders::on(&conn);
    let dict = StateDictionary::default();
    let before = crate::store::now_ms() - 1;
    let items = vec![
        // Settled, reserve held: +100 - 2.5 - 0.3 - 10.
        item(1, 5, "100", "2.5", "10", 1, 0, None),
        // Settled, reserve released, refunded 20: +50 - 1.25 - 0.3 - 5 + 5 - 20.
        item(2, 7, "50", "1.25", "5", 1, 1, Some("20")),
        // Paid, not settled: only its future counts.
        item(3, 5, "40", "1", "4", 0, 0, None),
        // Charged back, not settled: -30.
        item(4, 8, "30", "0.75", "3", 0, 0, None),
        // Failed: nothing.
        item(5, 3, "70", "0", "0", 0, 0, None),
    ];
    orders.upsert_items(1, &items, 1_000, true).unwrap();
    made(&orders, 10, OrderKind::Payout, "25", 2);
    made(&orders, 11, OrderKind::TopUp, "15", 5);
    made(&orders, 12, OrderKind::Withdraw, "12", 5);
    let after = crate::store::now_ms() + 1;
    let want: Decimal = d("100") - d("2.8") - d("10") + d("50") - d("1.55") - d("5") + d("5")
        - d("20")
        - d("30")
        - d("25")
        - d("15")
        + d("12");
    let r = reconcile(&orders, &dict, snap("1000", before), snap("1057.65", after)).unwrap();
    assert_eq!(d(&r.explained), want);
    assert_eq!(want, d("57.65"));
    assert_eq!(d(&r.difference), Decimal::ZERO);
    let line = |k: LineKind| r.lines.iter().find(|l| l.kind == k).unwrap();
    assert_eq!(
        (
            line(LineKind::SettledPayins).count,
            d(&line(LineKind::SettledPayins).amount)
        ),
        (2, d("150"))
    );
    assert_eq!(d(&line(LineKind::PayinFixedFees).effect), d("-0.6"));
    assert_eq!(d(&line(LineKind::ReserveHeld).effect), d("-15"));
    assert_eq!(d(&line(LineKind::ReserveReleased).effect), d("5"));
    assert_eq!(d(&line(LineKind::Refunds).effect), d("-20"));
    assert_eq!(
        (
            line(LineKind::Chargebacks).count,
            d(&line(LineKind::Chargebacks).effect)
        ),
        (1, d("-30"))
    );
    assert_eq!(d(&line(LineKind::Payouts).effect), d("-25"));
    assert_eq!(d(&line(LineKind::TopUps).effect), d("-15"));
    assert_eq!(d(&line(LineKind::Withdrawals).effect), d("12"));
    // Each line's filter lists exactly its orders.
    for l in &r.lines {
        assert_eq!(orders.count(&l.filter).unwrap(), l.count, "{:?}", l.kind);
    }
    // An observed movement 1 short: the difference says so.
    let r = reconcile(&orders, &dict, snap("1000", before), snap("1056.65", after)).unwrap();
    assert_eq!(d(&r.difference), d("-1"));
    // A window after every order moved: nothing explained.
    let r = reconcile(
        &orders,
        &dict,
        snap("1000", after),
        snap("1000", after + 10),
    )
    .unwrap();
    assert_eq!(d(&r.explained), Decimal::ZERO);
    assert!(r.lines.iter().all(|l| l.count == 0));
    assert!(reconcile(&orders, &dict, snap("1", after), snap("1", before)).is_err());

    // Still to come: order 3 (and the charged-back one, not settled), and the reserve of
    // 1, 3 and 4.
    let up = upcoming(&orders, &dict, Some("USD")).unwrap();
    assert_eq!(up.len(), 1);
    assert_eq!(
        (up[0].unsettled_count, d(&up[0].unsettled_amount)),
        (2, d("70"))
    );
    assert_eq!(
        d(&up[0].unsettled_net),
        d("70") - d("1.75") - d("0.6") - d("7")
    );
    assert_eq!(
        (up[0].reserve_count, d(&up[0].reserve_amount)),
        (3, d("17"))
    );
    assert_eq!(orders.count(&up[0].reserve_filter).unwrap(), 3);
    assert_eq!(up[0].settles_at, None);
}
