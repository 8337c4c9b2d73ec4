//! The order cache's contract ([`OrderStore`]) where both backends keep a rule of their
//! own in SQL: when an order moved the balance (`moved_at`, what a balance
//! reconciliation windows on). A sync's write states when it read the orders (the
//! engine's clock); an order whose balance fields changed is seen moving at that time,
//! on every backend, and one whose other fields changed is not.

use paydesk_gateway::wire::OrderListItem;
use paydesk_store::orders::{OrderFilter, Upsert};
use paydesk_store::prelude::OrderStore;
use rust_decimal::Decimal;

use super::Facts;

/// 2020-09-13, far from today: a backend that took the time from a clock of its own
/// (the server's, the system's) instead of the write's would be found out.
const T0: i64 = 1_600_000_000_000;

fn item(n: usize) -> OrderListItem {
    OrderListItem {
        state: 2,
        mer_order_no: format!("MV-{n:04}"),
        trade_no: format!("TMV{n:08}"),
        source_amount: Decimal::new(10_000, 2),
        source_currency: "MXN".into(),
        settlement_currency: "MXN".into(),
        handling_fee: Some(Decimal::new(150, 2)),
        transaction_fixed_fee: Some(Decimal::new(50, 2)),
        ..OrderListItem::default()
    }
}

fn write(o: &dyn OrderStore, mer: u64, it: &OrderListItem, at: i64) {
    let row = Upsert {
        item: it,
        created_at: T0,
        verified: true,
        window_end: None,
    };
    o.upsert_at(mer, &[row], at).unwrap();
}

/// Orders seen moving the balance at exactly `at`.
fn moved_at(o: &dyn OrderStore, at: i64) -> i64 {
    o.count(&OrderFilter {
        moved_from: Some(at),
        moved_to: Some(at + 1),
        ..OrderFilter::default()
    })
    .unwrap()
}

/// Each field that moves the balance, changed alone on a re-read, moves its order at
/// that read's time; a change of another field, or none, leaves it where it was.
pub fn balance_moves_at_the_time_of_the_read_that_saw_it(
    o: &dyn OrderStore,
    mer: u64,
    facts: Facts,
) {
    // What moves a merchant's balance, from the interface's meaning: the order's state
    // (paid, refunded, failed), its currency and amount, the fees taken, the reserve
    // held and released, its settlement, a refund. Not the settled or received amount
    // (figures derived from those), nor a message or a reason.
    type Change = fn(&mut OrderListItem);
    let moving: [(&str, Change); 10] = [
        ("state", |i| i.state = 5),
        ("currency", |i| i.source_currency = "BRL".into()),
        ("source_amount", |i| {
            i.source_amount = Decimal::new(10_001, 2)
        }),
        ("handling_fee", |i| {
            i.handling_fee = Some(Decimal::new(151, 2))
        }),
        ("transaction_fixed_fee", |i| i.transaction_fixed_fee = None),
        ("exception_handling_fee", |i| {
            i.exception_handling_fee = Some(Decimal::new(1, 0))
        }),
        ("rolling_reserve", |i| {
            i.rolling_reserve = Some(Decimal::new(5, 0))
        }),
        ("rolling_reserve_status", |i| {
            i.rolling_reserve_status = Some(1)
        }),
        ("settle", |i| i.settle = Some(1)),
        ("refund_amount", |i| {
            i.refund_amount = Some(Decimal::new(2_000, 2))
        }),
    ];
    let mut names: Vec<&str> = moving.iter().map(|(n, _)| *n).collect();
    let mut model = paydesk_store::orders::BALANCE_FIELDS.to_vec();
    names.sort_unstable();
    model.sort_unstable();
    assert_eq!(names, model, "the model's list of balance fields");
    let still: [(&str, Change); 4] = [
        ("message", |i| i.message = "settled by the bank".into()),
        ("refusal_pay_reason", |i| {
            i.refusal_pay_reason = "none".into()
        }),
        ("receive_amount", |i| {
            i.receive_amount = Some(Decimal::new(9_800, 2))
        }),
        ("settle_amount", |i| {
            i.settle_amount = Some(Decimal::new(9_800, 2))
        }),
    ];

    let all: Vec<(&str, Change, bool)> = moving
        .iter()
        .map(|(n, c)| (*n, *c, true))
        .chain(still.iter().map(|(n, c)| (*n, *c, false)))
        .collect();
    // Reads within the last day: the team's database takes a writer's stated read time
    // only near its own clock (schema 0028), as a desk's sync states it.
    let base = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
        - 20 * 3_600_000;
    for (k, (name, change, moves)) in all.iter().enumerate() {
        let first = base + (k as i64 + 1) * 3_600_000;
        let mut it = item(k);
        write(o, mer, &it, first);
        assert_eq!(
            moved_at(o, first),
            1,
            "{}: first seen at its read ({name})",
            facts.name
        );
        // Read again as it was: nothing moved.
        write(o, mer, &it, first + 1_000);
        assert_eq!(
            moved_at(o, first + 1_000),
            0,
            "{}: read again unchanged ({name})",
            facts.name
        );
        // Read again with one field changed.
        change(&mut it);
        let later = first + 2_000;
        write(o, mer, &it, later);
        let (now, before) = (moved_at(o, later), moved_at(o, first));
        if *moves {
            assert_eq!(
                (now, before),
                (1, 0),
                "{}: {name} moves the balance",
                facts.name
            );
        } else {
            assert_eq!((now, before), (0, 1), "{}: {name} does not", facts.name);
        }
    }
}
