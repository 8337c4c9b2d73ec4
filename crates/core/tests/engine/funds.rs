//! Checked before it leaves (issue 35): a payout short of the balance, or over a
//! profile's limit, is refused before anything is journaled or sent; a bulk plan holds
//! the rows beyond the balance in file order, and a run never sends them (confirmed or
//! not). Against the sandbox on loopback; every expected figure summed here.

#![allow(clippy::unwrap_used)]

use crate::common;

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
    let funds = desk
        .money()
        .payout_funds("MXN", "300.00", true)
        .await
        .unwrap();
    assert_eq!(funds.balance.as_deref().map(d), Some(d("250.00")));
    assert!(funds.fresh && funds.short);
    assert_eq!(funds.fee, None, "no fee is invented");
    assert_eq!(
        funds.left.as_deref().map(d),
        Some(d("250.00") - d("300.00"))
    );

    let e = desk
        .money()
        .payout(&form("SHORT-1", "300.00"))
        .await
        .unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("balanceShort"), "{e}");
    assert!(
        e.to_string().contains("250"),
        "the rule names the balance: {e}"
    );
    let journal = desk.journal().entries(&[], 50).unwrap();
    assert!(
        journal.iter().all(|x| x.mer_order_no != "SHORT-1"),
        "nothing journaled"
    );
    assert!(!orders_at_gateway(&f).contains(&"SHORT-1".to_string()));

    // Within the balance it goes.
    let r = desk
        .money()
        .payout(&form("SHORT-2", "200.00"))
        .await
        .unwrap();
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
    let e = desk.money().payout_preview(&over).unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("limitPerPayout"), "{e}");
    let e = desk.money().payout(&over).await.unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("limitPerPayout"), "{e}");
    assert!(e.to_string().contains("100"), "{e}");

    // 90 today, then 60 would make 150.00 + 0 ... 90 + 60 = 150 is at the limit: goes;
    // one more cent is over the day's.
    let first = d("90.00");
    desk.money().payout(&form("LIM-2", "90.00")).await.unwrap();
    let room = d("150.00") - first;
    let e = desk
        .money()
        .payout(&form("LIM-3", &(room + d("0.01")).to_string()))
        .await
        .unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("limitPerDay"), "{e}");
    assert!(e.to_string().contains("150"), "{e}");
    let journal = desk.journal().entries(&[], 50).unwrap();
    assert!(
        journal
            .iter()
            .all(|x| x.mer_order_no != "LIM-1" && x.mer_order_no != "LIM-3")
    );
    desk.money()
        .payout(&form("LIM-4", &room.to_string()))
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
    let plan = desk.money().bulk_plan_fresh(&file).await.unwrap();

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
        .money()
        .bulk_payouts(&file, true, Some(&plan.digest_with_held), |_, _| {})
        .await
        .unwrap();
    assert_eq!(results.len(), amounts.len());
    let mut at_gateway = orders_at_gateway(&f);
    at_gateway.sort();
    assert_eq!(at_gateway, goes);
    // The journal holds nothing for the held rows that a later run could send.
    let journal = desk.journal().entries(&[], 50).unwrap();
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
    let plan = desk.money().bulk_plan_fresh(&file).await.unwrap();
    assert_eq!(plan.to_send, 2, "900 fits 1000");
    // Money left the account after the preview: 899.99 no longer reaches both rows.
    mxn_balance(&f, &(d("400.00") + d("500.00") - d("0.01")).to_string());
    let e = desk
        .money()
        .bulk_payouts(&file, false, Some(&plan.digest), |_, _| {})
        .await
        .unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("bulkBalanceChanged"), "{e}");
    assert!(desk.journal().entries(&[], 50).unwrap().is_empty());
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
    let plan = desk.money().bulk_plan_fresh(&file).await.unwrap();
    let sends = |p: &bulk::BulkPlan| -> Vec<String> {
        p.rows
            .iter()
            .filter(|r| r.action == RowAction::Send)
            .map(|r| r.mer_order_no.clone())
            .collect()
    };
    assert_eq!(sends(&plan), ["DR-0", "DR-1"]);
    desk.money()
        .bulk_payouts(&file, false, Some(&plan.digest), |_, _| {})
        .await
        .unwrap();

    // The same file again: 80 paid today, so 40 more would pass the limit.
    let again = desk.money().bulk_plan_fresh(&file).await.unwrap();
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

/// The per-day limit holds for payouts sent at once (a team signer's rows in flight, two
/// single payouts, app and CLI): each is summed against the day in the journal's write
/// transaction, so only as many go as the limit reaches (review-money-r5 F1).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn payouts_at_once_pass_the_day_limit_only_as_far_as_it_reaches() {
    let f = common::Fixture::new("dayrace").await;
    mxn_balance(&f, "100000.00");
    let per_day = d("100.00");
    f.home
        .set_limits(
            &f.name,
            Limits {
                currencies: vec![CurrencyLimit {
                    currency: "MXN".into(),
                    per_payout: None,
                    per_day: Some(per_day.to_string()),
                }],
            },
        )
        .unwrap();
    let desk = f.desk().await;
    // Eight amounts (distinct, so none is the same intent as another): any three fit the
    // day's 100, no four do, whichever go first.
    let amounts: Vec<Decimal> = (1..=8).map(|i| d("25.00") + Decimal::new(i, 2)).collect();
    let mut sorted = amounts.clone();
    sorted.sort();
    let k = (0..=sorted.len())
        .take_while(|n| sorted[..*n].iter().copied().sum::<Decimal>() <= per_day)
        .last()
        .unwrap();
    assert_eq!(k, 3, "the test's own figures");

    let forms: Vec<PayoutForm> = amounts
        .iter()
        .enumerate()
        .map(|(i, a)| form(&format!("RACE-{i}"), &a.to_string()))
        .collect();
    let results =
        futures_util::future::join_all(forms.iter().map(|f| desk.money().payout(f))).await;

    let mut paid = Vec::new();
    let mut paid_sum = Decimal::ZERO;
    let mut refused = Vec::new();
    for ((form, amount), r) in forms.iter().zip(&amounts).zip(&results) {
        match r {
            Ok(r) => {
                assert!(r.trade_no.is_some(), "{r:?}");
                paid.push(form.mer_order_no.clone());
                paid_sum += *amount;
            }
            Err(e) => {
                assert_eq!(rule_key(e).as_deref(), Some("limitPerDay"), "{e}");
                assert!(e.to_string().contains("100"), "names the limit: {e}");
                refused.push((form.mer_order_no.clone(), *amount));
            }
        }
    }
    assert_eq!(paid.len(), k, "paid {paid:?}");
    assert!(paid_sum <= per_day, "{paid_sum}");
    for (no, a) in &refused {
        assert!(
            paid_sum + a > per_day,
            "{no} ({a}) was refused with room left"
        );
    }
    // Nothing else journaled, nothing else at the gateway.
    let mut journaled: Vec<String> = desk
        .journal()
        .entries(&[], 50)
        .unwrap()
        .into_iter()
        .map(|e| e.mer_order_no)
        .collect();
    journaled.sort();
    let mut at_gateway = orders_at_gateway(&f);
    at_gateway.sort();
    paid.sort();
    assert_eq!(journaled, paid);
    assert_eq!(at_gateway, paid);
}

/// Payouts at once from two processes on one profile (the app and the CLI): the
/// journal's write transaction is the one place both sum the day, so together they pay
/// only as far as the limit reaches (review-money-r5 F1).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_at_once_pass_the_day_limit_only_as_far_as_it_reaches() {
    let f = common::Fixture::new("dayrace2").await;
    mxn_balance(&f, "100000.00");
    let per_day = d("100.00");
    f.home
        .set_limits(
            &f.name,
            Limits {
                currencies: vec![CurrencyLimit {
                    currency: "MXN".into(),
                    per_payout: None,
                    per_day: Some(per_day.to_string()),
                }],
            },
        )
        .unwrap();
    // Opened first: the profile's keys are all in the keyring before the other opens.
    let desk = f.desk().await;
    // Each process pays four of eight distinct amounts: any three fit, no four.
    let amounts: Vec<Decimal> = (1..=8).map(|i| d("25.00") + Decimal::new(i, 2)).collect();
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &crate::test_name(module_path!(), "second_process_pays_its_half"),
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("PAYDESK_RACE_HOME", f.dir.path())
        .env("PAYDESK_RACE_SERVICE", common::service_of(&f.secrets))
        .env("PAYDESK_RACE_PROFILE", &f.name)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .unwrap();
    // Both start together: the second says it is open, then waits for the word.
    let (ready, go) = (f.dir.path().join("ready"), f.dir.path().join("go"));
    for _ in 0..3000 {
        if ready.exists() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    assert!(ready.exists(), "the second process did not open the desk");
    std::fs::write(&go, "").unwrap();
    let forms: Vec<PayoutForm> = amounts[..4]
        .iter()
        .enumerate()
        .map(|(i, a)| form(&format!("P1-{i}"), &a.to_string()))
        .collect();
    let results =
        futures_util::future::join_all(forms.iter().map(|f| desk.money().payout(f))).await;
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    assert!(out.status.success(), "the second process failed");
    let text = String::from_utf8_lossy(&out.stdout).to_string();

    let mut paid = Vec::new();
    let mut outcomes: Vec<(String, Decimal, Option<String>)> = Vec::new();
    for ((form, a), r) in forms.iter().zip(&amounts[..4]).zip(&results) {
        outcomes.push((
            form.mer_order_no.clone(),
            *a,
            r.as_ref().err().map(|e| rule_key(e).unwrap_or_default()),
        ));
    }
    for line in text
        .lines()
        .filter_map(|l| l.find("RACE ").map(|at| &l[at + 5..]))
    {
        let mut parts = line.split(' ');
        let (no, a, r) = (
            parts.next().unwrap().to_string(),
            d(parts.next().unwrap()),
            parts.next().unwrap(),
        );
        outcomes.push((no, a, (r != "paid").then(|| r.to_string())));
    }
    assert_eq!(outcomes.len(), 8, "{text}");
    let mut paid_sum = Decimal::ZERO;
    for (no, a, refused) in &outcomes {
        match refused {
            None => {
                paid.push(no.clone());
                paid_sum += *a;
            }
            Some(key) => assert_eq!(key, "limitPerDay", "{no}"),
        }
    }
    assert_eq!(paid.len(), 3, "paid {paid:?}");
    assert!(paid_sum <= per_day);
    for (no, a, refused) in &outcomes {
        if refused.is_some() {
            assert!(paid_sum + a > per_day, "{no} refused with room left");
        }
    }
    let mut journaled: Vec<String> = desk
        .journal()
        .entries(&[], 50)
        .unwrap()
        .into_iter()
        .map(|e| e.mer_order_no)
        .collect();
    journaled.sort();
    let mut at_gateway = orders_at_gateway(&f);
    at_gateway.sort();
    paid.sort();
    assert_eq!(journaled, paid);
    assert_eq!(at_gateway, paid);
}

/// The second process of [`two_processes_at_once_pass_the_day_limit_only_as_far_as_it_reaches`]
/// (started by it, with the profile's home and keyring): pays the other four amounts at
/// once and prints each outcome.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the second process of two_processes_at_once_pass_the_day_limit_only_as_far_as_it_reaches"]
async fn second_process_pays_its_half() {
    let home = paydesk_core::Home::at(std::env::var("PAYDESK_RACE_HOME").unwrap());
    let secrets = common::secrets_for(&std::env::var("PAYDESK_RACE_SERVICE").unwrap());
    let name = std::env::var("PAYDESK_RACE_PROFILE").unwrap();
    let desk =
        paydesk_core::Desk::open(&home, secrets, &name, paydesk_core::Endpoint::Profile).unwrap();
    let amounts: Vec<Decimal> = (5..=8).map(|i| d("25.00") + Decimal::new(i, 2)).collect();
    let dir = std::path::PathBuf::from(std::env::var("PAYDESK_RACE_HOME").unwrap());
    std::fs::write(dir.join("ready"), "").unwrap();
    for _ in 0..10_000 {
        if dir.join("go").exists() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    let forms: Vec<PayoutForm> = amounts
        .iter()
        .enumerate()
        .map(|(i, a)| form(&format!("P2-{i}"), &a.to_string()))
        .collect();
    let results =
        futures_util::future::join_all(forms.iter().map(|f| desk.money().payout(f))).await;
    for ((form, a), r) in forms.iter().zip(&amounts).zip(&results) {
        let outcome = match r {
            Ok(_) => "paid".to_string(),
            Err(e) => {
                rule_key(e).unwrap_or_else(|| format!("error:{}", e.to_string().replace(' ', "_")))
            }
        };
        println!("RACE {} {a} {outcome}", form.mer_order_no);
    }
}

/// Limits changed while a desk is open (`paydesk payout limits` in a terminal, another
/// window) hold at its next payout: the desk reads them for each check (review-money-r5
/// F7).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_changed_elsewhere_hold_at_the_open_desks_next_payout() {
    let f = common::Fixture::new("limitslive").await;
    mxn_balance(&f, "100000.00");
    let desk = f.desk().await;
    desk.money().payout(&form("LL-1", "45.00")).await.unwrap();

    // Another process's handle on the same home, as the CLI's.
    let cli = paydesk_core::Home::at(f.dir.path());
    cli.set_limits(
        &f.name,
        Limits {
            currencies: vec![CurrencyLimit {
                currency: "MXN".into(),
                per_payout: Some("40.00".into()),
                per_day: None,
            }],
        },
    )
    .unwrap();
    let funds = desk
        .money()
        .payout_funds("MXN", "45.00", false)
        .await
        .unwrap();
    assert_eq!(funds.limit_per_payout.as_deref().map(d), Some(d("40")));
    let e = desk
        .money()
        .payout_preview(&form("LL-2", "45.00"))
        .unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("limitPerPayout"), "{e}");
    let e = desk
        .money()
        .payout(&form("LL-2", "45.00"))
        .await
        .unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("limitPerPayout"), "{e}");
    assert!(!orders_at_gateway(&f).contains(&"LL-2".to_string()));

    // Cleared again there: the payout goes (a confirmed second one of LL-1's intent).
    cli.set_limits(&f.name, Limits::default()).unwrap();
    desk.journal().allow_duplicate_once("LL-2");
    desk.money().payout(&form("LL-2", "45.00")).await.unwrap();
    assert!(orders_at_gateway(&f).contains(&"LL-2".to_string()));
}

/// Sending the held repeats too never takes the money of a row the plan showed going: the
/// rows that go are funded first, in file order, and only the rest goes to the repeats
/// (review-money-r5 F4). The plan's "held rows sent too" are those the run then sends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sending_the_held_repeats_too_never_takes_the_money_of_a_row_shown_going() {
    let f = common::Fixture::new("heldorder").await;
    mxn_balance(&f, "100.00");
    let desk = f.desk().await;
    // Paid by hand earlier: a file row of the same payout is held as a repeat.
    desk.money()
        .payout_clabe(common::payout("BYHAND-1", "30.00"))
        .await
        .unwrap();
    let funds = desk.money().payout_funds("MXN", "1", true).await.unwrap();
    let balance = d(funds.balance.as_deref().unwrap());
    let fee = funds.fee.as_deref().map(d).unwrap_or_default();
    // The new supplier's row takes all but 5 of what is left; the repeat (line 2, before
    // it in the file) then does not fit.
    let supplier = (balance - fee - d("5")).round_dp(2);
    assert!(supplier > Decimal::ZERO && d("30") + fee > d("5"));
    let csv = format!(
        "type,amount,currency,account,firstName,lastName,country,merOrderNo\n\
         clabe,30.00,MXN,002010077777777771,Ana,Lima,,HO-1\n\
         clabe,{supplier},MXN,012180001234567899,Casa,Azul,,HO-2\n"
    );
    let path = f.dir.path().join("payroll.csv");
    std::fs::write(&path, csv).unwrap();
    let file = bulk::read(&path, &ctx()).unwrap();
    let plan = desk.money().bulk_plan_fresh(&file).await.unwrap();
    let action = |no: &str| plan.rows.iter().find(|r| r.mer_order_no == no).unwrap();
    assert_eq!(action("HO-2").action, RowAction::Send);
    assert_eq!(action("HO-1").action, RowAction::Held);
    assert!(
        matches!(action("HO-1").why, RowReason::SameRecent { .. }),
        "{:?}",
        action("HO-1").why
    );
    // The plan says no held row goes with it: the money is not there for it.
    assert_eq!(
        plan.held_totals.iter().map(|t| t.count).sum::<u32>(),
        0,
        "{:?}",
        plan.held_totals
    );

    let results = desk
        .money()
        .bulk_payouts(&file, true, Some(&plan.digest_with_held), |_, _| {})
        .await
        .unwrap();
    assert_eq!(results.len(), 2);
    let mut at_gateway = orders_at_gateway(&f);
    at_gateway.sort();
    assert_eq!(at_gateway, ["BYHAND-1", "HO-2"], "the row shown going went");
}

/// An amount no payout can have is refused by the request's own rule, naming the amount,
/// before the gateway is asked anything: no balance asked (no snapshot kept), nothing
/// journaled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_amount_no_payout_can_have_is_refused_before_any_balance_is_asked() {
    let f = common::Fixture::new("zeroamount").await;
    let desk = f.desk().await;
    assert!(desk.money().latest_balances().unwrap().is_empty());
    for amount in ["0.00", "-5.00"] {
        let e = desk
            .money()
            .payout(&form("ZERO-1", amount))
            .await
            .unwrap_err();
        match &e {
            paydesk_core::CoreError::Validation { field, .. } => {
                assert_eq!(field, "amount", "{e}")
            }
            other => panic!("{amount}: {other:?}"),
        }
    }
    assert!(
        desk.money().latest_balances().unwrap().is_empty(),
        "a balance was asked"
    );
    assert!(desk.journal().entries(&[], 10).unwrap().is_empty());
}

/// The same form sent again after a lost request (the same number): its lookups prove it
/// never arrived, so it leaves in that call, and only within the limits and the balance
/// of now, as any payout sent again (review r6 R6-3: only the day's limit was asked). A
/// refusal names the rule and leaves it not sent, under its number.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payout_sent_again_after_a_lost_request_holds_the_limit_per_payout_and_the_balance() {
    use paydesk_core::journal::Status;
    use paydesk_core::profile::Safety;
    use paydesk_sandbox::Fault;
    use std::sync::Arc;
    let f = common::Fixture::new("resendlim").await;
    let mut p = f.home.get(&f.name).unwrap();
    p.safety = Safety {
        not_found_grace_secs: 1,
        not_found_lookups: 1,
        ..Safety::default()
    };
    f.home.put(p).unwrap();
    mxn_balance(&f, "100000.00");
    let mut desk = f.desk().await;
    let clock = Arc::new(paydesk_core::clock::ShiftedClock::default());
    desk.set_clock(clock.clone());
    // HTTP 503 before the gateway does anything: unknown to the desk.
    f.running.sandbox.set_fault(
        "/v2/payout",
        Fault {
            error_rate: 1.0,
            ..Fault::default()
        },
    );
    let payout = form("RS-1", "500.00");
    let other = form("RS-2", "400.00");
    for p in [&payout, &other] {
        let r = desk.money().payout(p).await.unwrap();
        assert_eq!(r.entry.status, Status::Unknown, "{r:?}");
    }
    f.running.sandbox.clear_faults();
    let not_sent = |desk: &paydesk_core::Desk, no: &str| {
        let e = desk.journal().entry_by_number(no).unwrap().unwrap();
        assert_eq!(e.status, Status::Pending, "{e:?}");
        assert!(!orders_at_gateway(&f).contains(&no.to_string()));
    };

    // The limit per payout lowered below it meanwhile (elsewhere: the home).
    let limit = |per_payout: Option<&str>| Limits {
        currencies: vec![CurrencyLimit {
            currency: "MXN".into(),
            per_payout: per_payout.map(str::to_string),
            per_day: None,
        }],
    };
    f.home.set_limits(&f.name, limit(Some("100.00"))).unwrap();
    clock.advance(std::time::Duration::from_millis(1_100));
    let e = desk.money().payout(&payout).await.unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("limitPerPayout"), "{e}");
    assert!(e.to_string().contains("100"), "names the limit: {e}");
    not_sent(&desk, "RS-1");

    // No limit, but the balance is short of the other one now.
    f.home.set_limits(&f.name, Limits::default()).unwrap();
    mxn_balance(&f, "50.00");
    let e = desk.money().payout(&other).await.unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("balanceShort"), "{e}");
    not_sent(&desk, "RS-2");

    // Within both, it goes, once, under its number.
    mxn_balance(&f, "100000.00");
    let r = desk.money().payout(&payout).await.unwrap();
    assert_eq!(r.entry.status, Status::Accepted);
    let at_gateway = orders_at_gateway(&f);
    assert_eq!(at_gateway.iter().filter(|n| *n == "RS-1").count(), 1);
}

/// Limits set on an open desk (the app's Settings) are kept with the profile and hold at
/// that desk's next payout and for every other handle on the home (review r6: the desk's
/// own copy alone was replaced by the home's at the next check).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_set_on_the_open_desk_hold_at_its_next_payout_and_are_kept() {
    let f = common::Fixture::new("limitsset").await;
    mxn_balance(&f, "100000.00");
    let desk = f.desk().await;
    let kept = desk
        .money()
        .set_limits(Limits {
            currencies: vec![CurrencyLimit {
                currency: "mxn".into(),
                per_payout: Some("40".into()),
                per_day: None,
            }],
        })
        .unwrap();
    assert_eq!(kept.currencies[0].currency, "MXN", "kept as checked");
    let e = desk
        .money()
        .payout(&form("LS-1", "45.00"))
        .await
        .unwrap_err();
    assert_eq!(rule_key(&e).as_deref(), Some("limitPerPayout"), "{e}");
    assert!(!orders_at_gateway(&f).contains(&"LS-1".to_string()));
    assert_eq!(
        paydesk_core::Home::at(f.dir.path())
            .limits(&f.name)
            .unwrap(),
        kept
    );
}
