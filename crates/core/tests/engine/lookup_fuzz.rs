//! Reconciliation against hostile look-ups, bounded: random answers of the order list
//! asked for one merchant order number (items under that number and others, other
//! currencies and amounts, blank or repeated trade numbers, totals and page counts that
//! lie) judged by `lookup::prove`, against an oracle written from the rules a payment
//! engineer holds, not from the code: an order is ours only when the answer is complete
//! for the number asked and its one order there has the journal's currency and amount;
//! it is absent only when that complete answer holds nothing; anything else proves
//! nothing. Printed: the cases and how many of each verdict.

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use paydesk_core::lookup::{Intended, Proof, prove};
use paydesk_core::store::orders::OrderKind;
use paydesk_gateway::wire::{OrderListItem, OrderListPage};
use rust_decimal::Decimal;

const BUDGET: Duration = Duration::from_secs(5);
const ASKED: &str = "PO-7";

fn item(rng: &mut fastrand::Rng) -> OrderListItem {
    let number = match rng.u8(0..10) {
        0..=6 => ASKED.to_string(),
        7 => "PO-8".into(),
        8 => "po-7".into(),
        _ => format!("{ASKED} "),
    };
    let trade = match rng.u8(0..10) {
        0..=5 => "T100".to_string(),
        6 | 7 => "T200".to_string(),
        8 => String::new(),
        _ => "T\u{0}1".to_string(),
    };
    let currency = ["MXN", "MXN", "MXN", "USD", "mxn"][rng.usize(0..5)].to_string();
    let amount = [
        Decimal::new(12_345, 2),
        Decimal::new(12_345, 2),
        Decimal::new(123_450, 3),
        Decimal::new(12_346, 2),
        Decimal::new(-12_345, 2),
    ][rng.usize(0..5)];
    OrderListItem {
        state: 5,
        mer_order_no: number,
        trade_no: trade,
        source_amount: amount,
        source_currency: currency,
        ..OrderListItem::default()
    }
}

fn page(rng: &mut fastrand::Rng) -> OrderListPage {
    let n = rng.usize(0..4);
    let list: Vec<OrderListItem> = (0..n).map(|_| item(rng)).collect();
    let shown = list.len() as i64;
    let total = match rng.u8(0..6) {
        0..=3 => shown,
        4 => shown + 1,
        _ => [0, 10_000_000, -1][rng.usize(0..3)],
    };
    OrderListPage {
        page_num: if rng.u8(0..8) == 0 { 2 } else { 1 },
        page_size: 50,
        total_page: match rng.u8(0..6) {
            0 => 3,
            _ => i64::from(total > 0),
        },
        total,
        list,
    }
}

fn trade_ok(t: &str) -> bool {
    !t.is_empty() && t.len() <= 64 && t.chars().all(|c| c.is_ascii_graphic())
}

/// The oracle: what the answer proves, by the rules alone.
#[derive(Debug, PartialEq, Eq)]
enum Truth {
    Ours,
    Absent,
    /// Anything but ours or absent is acceptable (unknown stays unknown).
    NeitherProven,
}

fn truth(p: &OrderListPage) -> Truth {
    let shown = p.list.len() as i64;
    let complete = p.total == shown && p.page_num <= 1 && p.total_page <= 1;
    let all_asked = p.list.iter().all(|i| i.mer_order_no == ASKED);
    if !complete || !all_asked {
        return Truth::NeitherProven;
    }
    if p.list.is_empty() {
        return Truth::Absent;
    }
    let trades: std::collections::BTreeSet<&str> =
        p.list.iter().map(|i| i.trade_no.as_str()).collect();
    if trades.len() != 1 || !trade_ok(trades.iter().next().unwrap()) {
        return Truth::NeitherProven;
    }
    // Every listing of the one order carries the journal's money.
    let same = p
        .list
        .iter()
        .all(|i| i.source_currency == "MXN" && i.source_amount == Decimal::new(12_345, 2));
    if same {
        Truth::Ours
    } else {
        Truth::NeitherProven
    }
}

#[test]
fn hostile_lookups_never_prove_another_order_ours_nor_a_made_order_absent() {
    let intended = Intended {
        mer_order_no: ASKED,
        money: Some((Decimal::new(12_345, 2), "MXN".into())),
        kind: Some(OrderKind::Payout),
    };
    let mut rng = fastrand::Rng::with_seed(37);
    let started = Instant::now();
    let (mut cases, mut ours, mut absent, mut conflicts, mut unproven) = (0u64, 0, 0, 0, 0);
    while started.elapsed() < BUDGET && cases < 2_000_000 {
        cases += 1;
        let p = page(&mut rng);
        let t = truth(&p);
        match prove(&p, &intended, |_| None) {
            Proof::Ours(item) => {
                ours += 1;
                assert_eq!(t, Truth::Ours, "taken as ours: {p:?}");
                assert_eq!(item.trade_no, p.list[0].trade_no);
            }
            Proof::Absent => {
                absent += 1;
                assert_eq!(t, Truth::Absent, "taken as absent: {p:?}");
            }
            Proof::Conflict(why) => {
                conflicts += 1;
                assert!(!why.chars().any(char::is_control), "{why:?}");
                assert_ne!(t, Truth::Ours, "ours called a conflict: {p:?}");
            }
            Proof::WithoutTradeNo | Proof::Unproven(_) => {
                unproven += 1;
                assert_ne!(t, Truth::Ours, "ours left unproven: {p:?}");
                assert_ne!(t, Truth::Absent, "absence left unproven: {p:?}");
            }
        }
    }
    println!(
        "lookup fuzz: {cases} answers in {:.1} s: {ours} ours, {absent} absent, {conflicts} conflicts, {unproven} proving nothing",
        started.elapsed().as_secs_f64()
    );
    assert!(ours > 0 && absent > 0 && conflicts > 0 && unproven > 0);
}
