//! Checked before it leaves (issue 35): a payout short of the balance, or over a
//! profile's limit, is refused before anything is journaled or sent; a bulk plan holds
//! the rows beyond the balance in file order, and a run never sends them (confirmed or
//! not). Against the sandbox on loopback; every expected figure summed here.

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_core::bulk::{self, RowAction, RowReason};
use paydesk_core::forms::{PayoutForm, PayoutKind};
use paydesk_core::limits::{CurrencyLimit, Limits};
use rust_decimal::Decimal;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

/// The demo merchant's MXN balance set to `amount`.
fn mxn_balance(f: &common::Fixture, amount: &str) {
    let mut m = f
        .running
        .sandbox
        .with_state(|s| s.merchants[&common::MER].clone());
    m.opening.insert("MXN".into(), d(amount));
    f.running.sandbox.add_merchant(m);
}

fn form(no: &str, amount: &str) -> PayoutForm {
    PayoutForm {
        clabe: "002010077777777771".into(),
        ..PayoutForm::new(PayoutKind::Clabe, no, amount, "MXN")
    }
}

fn orders_at_gateway(f: &common::Fixture) -> Vec<String> {
    f.running
        .sandbox
        .with_state(|s| s.orders.iter().map(|o| o.mer_order_no.clone()).collect())
}

fn rule_key(e: &paydesk_core::CoreError) -> Option<String> {
    serde_json::to_value(e)
        .unwrap()
        .get("ruleKey")
        .and_then(|k| k.as_str())
        .map(str::to_string)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payout_short_of_the_fresh_balance_is_refused_and_leaves_nothing_to_send() {
    let f = common::Fixture::new("short").await;
    mxn_balance(&f, "250.00");
    let desk = f.desk().await;

    // The confirmation's figures: the balance asked now, no fee known yet (nothing
    // cached), what is left.
    let funds = desk.payout_funds("MXN", "300.00", true).await.unwrap();
    assert_eq!(funds.balance.as_deref().map(d), Some(d("250.00")));
    assert!(funds.fresh && funds.short);
    assert_eq!(funds.fee, None, "no fee is invented");
    assert_eq!(
        funds.left.as_deref().map(d),
        Some(d("250.00") - d("300.00"))
    );

    let e = desk.payout(&form("SHORT-1", "300.00")).await.unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("balanceShort"), "{e}");
    assert!(
        e.to_string().contains("250"),
        "the rule names the balance: {e}"
    );
    let journal = desk.journal_entries(&[], 50).unwrap();
    assert!(
        journal.iter().all(|x| x.mer_order_no != "SHORT-1"),
        "nothing journaled"
    );
    assert!(!orders_at_gateway(&f).contains(&"SHORT-1".to_string()));

    // Within the balance it goes.
    let r = desk.payout(&form("SHORT-2", "200.00")).await.unwrap();
    assert!(r.trade_no.is_some(), "{r:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_per_payout_and_per_day_refuse_before_anything_is_journaled() {
    let f = common::Fixture::new("limits").await;
    let kept = f
        .home
        .set_limits(
            &f.name,
            Limits {
                currencies: vec![CurrencyLimit {
                    currency: "mxn".into(),
                    per_payout: Some("100.00".into()),
                    per_day: Some("150.00".into()),
                }],
            },
        )
        .unwrap();
    assert_eq!(kept.currencies[0].currency, "MXN");
    let desk = f.desk().await;

    // One cent over the per-payout limit: refused at the preview and at the send.
    let over = form("LIM-1", "100.01");
    let e = desk.payout_preview(&over).unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("limitPerPayout"), "{e}");
    let e = desk.payout(&over).await.unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("limitPerPayout"), "{e}");
    assert!(e.to_string().contains("100"), "{e}");

    // 90 today, then 60 would make 150.00 + 0 ... 90 + 60 = 150 is at the limit: goes;
    // one more cent is over the day's.
    let first = d("90.00");
    desk.payout(&form("LIM-2", "90.00")).await.unwrap();
    let room = d("150.00") - first;
    let e = desk
        .payout(&form("LIM-3", &(room + d("0.01")).to_string()))
        .await
        .unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("limitPerDay"), "{e}");
    assert!(e.to_string().contains("150"), "{e}");
    let journal = desk.journal_entries(&[], 50).unwrap();
    assert!(
        journal
            .iter()
            .all(|x| x.mer_order_no != "LIM-1" && x.mer_order_no != "LIM-3")
    );
    desk.payout(&form("LIM-4", &room.to_string()))
        .await
        .unwrap();
    let sent = orders_at_gateway(&f);
    assert!(sent.contains(&"LIM-2".into()) && sent.contains(&"LIM-4".into()));
    assert!(!sent.contains(&"LIM-1".into()) && !sent.contains(&"LIM-3".into()));
}

fn ctx() -> bulk::BulkContext {
    bulk::BulkContext {
        mer_no: common::MER,
        notify_url: "https://desk.example/n".into(),
        ip_address: "203.0.113.7".into(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_plan_holds_the_rows_beyond_the_balance_and_no_run_sends_them() {
    let f = common::Fixture::new("bulkfunds").await;
    mxn_balance(&f, "1000.00");
    let desk = f.desk().await;
    let amounts = ["300.00", "400.00", "250.00", "100.00", "20.00"];
    let mut csv =
        String::from("type,amount,currency,account,firstName,lastName,country,merOrderNo\n");
    for (i, a) in amounts.iter().enumerate() {
        csv.push_str(&format!(
            "clabe,{a},MXN,002010077777777771,Ana,Lima,,BF-{i}\n"
        ));
    }
    let path = f.dir.path().join("payroll.csv");
    std::fs::write(&path, csv).unwrap();
    let file = bulk::read(&path, &ctx()).unwrap();
    let plan = desk.bulk_plan_fresh(&file).await.unwrap();

    // No fee is known (nothing cached): the running sum in file order, cut at the first
    // row the balance does not reach; every later row held too.
    let balance = d("1000.00");
    let mut spent = Decimal::ZERO;
    let mut cut = false;
    let mut goes = Vec::new();
    for (i, a) in amounts.iter().enumerate() {
        if !cut && spent + d(a) <= balance {
            spent += d(a);
            goes.push(format!("BF-{i}"));
        } else {
            cut = true;
        }
    }
    let sent_in_plan: Vec<String> = plan
        .rows
        .iter()
        .filter(|r| r.action == RowAction::Send)
        .map(|r| r.mer_order_no.clone())
        .collect();
    assert_eq!(sent_in_plan, goes);
    assert_eq!(plan.held as usize, amounts.len() - goes.len());
    for r in plan.rows.iter().filter(|r| r.action == RowAction::Held) {
        assert!(
            matches!(&r.why, RowReason::BeyondBalance { currency, balance: b, .. } if currency == "MXN" && d(b) == balance),
            "{:?}",
            r.why
        );
    }
    let funds = &plan.funds[0];
    assert_eq!(
        (
            funds.currency.as_str(),
            d(&funds.total),
            funds.left.as_deref().map(d)
        ),
        ("MXN", spent, Some(balance - spent))
    );
    assert!(!funds.fee_known && funds.fresh);

    // Confirmed with the held rows: the balance holds stand.
    let results = desk
        .bulk_payouts(&file, true, Some(&plan.digest_with_held), |_, _| {})
        .await
        .unwrap();
    assert_eq!(results.len(), amounts.len());
    let mut at_gateway = orders_at_gateway(&f);
    at_gateway.sort();
    assert_eq!(at_gateway, goes);
    // The journal holds nothing for the held rows that a later run could send.
    let journal = desk.journal_entries(&[], 50).unwrap();
    for r in plan.rows.iter().filter(|r| r.action == RowAction::Held) {
        assert!(journal.iter().all(|x| x.mer_order_no != r.mer_order_no));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_balance_that_fell_after_the_preview_refuses_the_whole_run_before_anything_is_journaled()
{
    let f = common::Fixture::new("bulkfell").await;
    mxn_balance(&f, "1000.00");
    let desk = f.desk().await;
    let csv = "type,amount,currency,account,firstName,lastName,country,merOrderNo\n\
               clabe,400.00,MXN,002010077777777771,Ana,Lima,,FELL-1\n\
               clabe,500.00,MXN,002010077777777771,Bo,Lima,,FELL-2\n";
    let path = f.dir.path().join("fell.csv");
    std::fs::write(&path, csv).unwrap();
    let file = bulk::read(&path, &ctx()).unwrap();
    let plan = desk.bulk_plan_fresh(&file).await.unwrap();
    assert_eq!(plan.to_send, 2, "900 fits 1000");
    // Money left the account after the preview: 899.99 no longer reaches both rows.
    mxn_balance(&f, &(d("400.00") + d("500.00") - d("0.01")).to_string());
    let e = desk
        .bulk_payouts(&file, false, Some(&plan.digest), |_, _| {})
        .await
        .unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("bulkBalanceChanged"), "{e}");
    assert!(desk.journal_entries(&[], 50).unwrap().is_empty());
    assert!(orders_at_gateway(&f).is_empty());
}

/// A payroll file run again after a first run held rows over the day's limit: the rows the
/// first run paid count against the day, so the second run sends none of the held rows
/// (review-money-r5 F2: the file's own rows were left out of "paid today").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_run_again_counts_what_its_first_run_paid_against_the_day() {
    let f = common::Fixture::new("dayrerun").await;
    mxn_balance(&f, "100000.00");
    f.home
        .set_limits(
            &f.name,
            Limits {
                currencies: vec![CurrencyLimit {
                    currency: "MXN".into(),
                    per_payout: None,
                    per_day: Some("100.00".into()),
                }],
            },
        )
        .unwrap();
    let desk = f.desk().await;
    let mut csv =
        String::from("type,amount,currency,account,firstName,lastName,country,merOrderNo\n");
    for i in 0..4 {
        csv.push_str(&format!(
            "clabe,40.00,MXN,002010077777777771,Ana,Lima,,DR-{i}\n"
        ));
    }
    let path = f.dir.path().join("payroll.csv");
    std::fs::write(&path, csv).unwrap();
    let file = bulk::read(&path, &ctx()).unwrap();

    // 40 + 40 fit the day's 100; the third would make 120.
    let plan = desk.bulk_plan_fresh(&file).await.unwrap();
    let sends = |p: &bulk::BulkPlan| -> Vec<String> {
        p.rows
            .iter()
            .filter(|r| r.action == RowAction::Send)
            .map(|r| r.mer_order_no.clone())
            .collect()
    };
    assert_eq!(sends(&plan), ["DR-0", "DR-1"]);
    desk.bulk_payouts(&file, false, Some(&plan.digest), |_, _| {})
        .await
        .unwrap();

    // The same file again: 80 paid today, so 40 more would pass the limit.
    let again = desk.bulk_plan_fresh(&file).await.unwrap();
    assert!(sends(&again).is_empty(), "{:?}", again.rows);
    for r in again
        .rows
        .iter()
        .filter(|r| r.mer_order_no == "DR-2" || r.mer_order_no == "DR-3")
    {
        assert!(
            matches!(r.why, RowReason::OverLimit { .. }),
            "{}: {:?}",
            r.mer_order_no,
            r.why
        );
    }
    let mut at_gateway = orders_at_gateway(&f);
    at_gateway.sort();
    assert_eq!(at_gateway, ["DR-0", "DR-1"]);
}
