//! The desk against a sandbox on loopback, with the real keyring and real SQLite files:
//! sync, the journal under faults, and signatures. (The built-in profile, the
//! notification receiver and the simulation actions are `paydesk-session`'s tests.)

#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use common::payout;
use paydesk_core::journal::Status;
use paydesk_core::store::orders::{OrderFilter, OrderKind};
use paydesk_core::sync::SyncOptions;
use paydesk_core::{CoreError, new_mer_order_no};
use paydesk_gateway::wire::MerNo;
use paydesk_sandbox::{Fault, SeedSpec};

fn all_time() -> SyncOptions {
    let mut o = SyncOptions::last_days(400);
    o.to = chrono::Utc::now() + chrono::Duration::days(1);
    o
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_of_100000_orders_matches_the_gateway_exactly_and_resumes() {
    let f = common::Fixture::new("big").await;
    let running = &f.running;
    running.sandbox.seed(&SeedSpec {
        mer_no: Some(common::MER),
        ..SeedSpec::new(100_000)
    });
    let desk = Arc::new(f.desk().await);

    // One sync at a time: a second is refused while the first runs. Cancelled part-way
    // (as the Orders screen's Cancel does): what was written stays, and the next sync
    // skips finished windows.
    let seen = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let first = {
        let (desk, seen) = (desk.clone(), seen.clone());
        tokio::spawn(async move {
            desk.orders()
                .sync(&all_time(), Arc::new(AtomicBool::new(false)), move |p| {
                    seen.store(p.orders, std::sync::atomic::Ordering::Relaxed);
                })
                .await
        })
    };
    while seen.load(std::sync::atomic::Ordering::Relaxed) <= 20_000 && !first.is_finished() {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let second = desk
        .orders()
        .sync(&all_time(), Arc::new(AtomicBool::new(false)), |_| {})
        .await;
    assert!(
        matches!(&second, Err(CoreError::Validation { field, .. }) if field == "sync"),
        "{second:?}"
    );
    assert!(desk.orders().cancel_sync());
    let r = first.await.unwrap();
    assert!(matches!(r, Err(CoreError::Cancelled)), "{r:?}");
    assert!(!desk.orders().syncing());
    let partial = desk
        .orders()
        .page(&OrderFilter::default(), 0, 1)
        .unwrap()
        .total;
    assert!(partial > 0 && partial < 100_000, "{partial}");

    let report = desk
        .orders()
        .sync(&all_time(), Arc::new(AtomicBool::new(false)), |_| {})
        .await
        .unwrap();
    assert!(report.windows_skipped > 0);
    let want: BTreeMap<String, i64> = running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .map(|o| (o.trade_no.clone(), o.state))
            .collect()
    });
    let mut have = BTreeMap::new();
    desk.orders()
        .for_each_order(&OrderFilter::default(), |o| {
            have.insert(o.trade_no.clone(), o.state);
            Ok(())
        })
        .unwrap();
    assert_eq!(have.len(), 100_000);
    assert!(have == want, "the cache differs from the gateway");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_page_signature_stops_the_sync_and_caches_nothing_of_it() {
    let f = common::Fixture::new("sig").await;
    let running = &f.running;
    running.sandbox.seed(&SeedSpec {
        mer_no: Some(common::MER),
        ..SeedSpec::new(300)
    });
    let desk = f.desk().await;
    running.sandbox.set_fault(
        "/v2/order/queryOrderList",
        Fault {
            bad_signature_rate: 1.0,
            ..Fault::default()
        },
    );
    let err = desk
        .orders()
        .sync(&all_time(), Arc::new(AtomicBool::new(false)), |_| {})
        .await
        .unwrap_err();
    assert!(matches!(err, CoreError::SignatureInvalid { .. }), "{err}");
    assert_eq!(
        desk.orders()
            .page(&OrderFilter::default(), 0, 1)
            .unwrap()
            .total,
        0
    );
    assert!(
        desk.orders().dashboard().unwrap().sync_error.is_some(),
        "the dashboard shows the failed sync"
    );
}

/// A gateway that takes smaller pages than the profile's conventions say: the sync's
/// error, and the failure the dashboard shows, name the setting to change.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_page_size_is_named_in_the_error_and_on_the_dashboard() {
    let f = common::Fixture::new("page").await;
    let running = &f.running;
    running.sandbox.seed(&SeedSpec {
        mer_no: Some(common::MER),
        ..SeedSpec::new(50)
    });
    running.sandbox.set_behaviour(paydesk_sandbox::Behaviour {
        speaks: Some(paydesk_gateway::Conventions {
            max_page_size: 100,
            ..paydesk_gateway::Conventions::sandbox()
        }),
        ..paydesk_sandbox::Behaviour::default()
    });
    let desk = f.desk().await;
    let err = desk
        .orders()
        .sync(&all_time(), Arc::new(AtomicBool::new(false)), |_| {})
        .await
        .unwrap_err();
    assert!(matches!(err, CoreError::Rejected { .. }), "{err}");
    assert!(err.to_string().contains("maxPageSize"), "{err}");
    let (_, shown) = desk.orders().dashboard().unwrap().sync_error.unwrap();
    assert!(shown.contains("maxPageSize"), "the dashboard: {shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_double_submit_sends_once() {
    let f = common::Fixture::new("dbl").await;
    let running = &f.running;
    let desk = f.desk().await;
    let no = new_mer_order_no("PO");
    let (a, b) = tokio::join!(
        desk.money().payout_clabe(payout(&no, "10.00")),
        desk.money().payout_clabe(payout(&no, "10.00"))
    );
    let accepted = [&a, &b]
        .iter()
        .filter(|r| matches!(r, Ok(s) if s.entry.status == Status::Accepted))
        .count();
    assert!(accepted >= 1, "{a:?} {b:?}");
    let again = desk
        .money()
        .payout_clabe(payout(&no, "10.00"))
        .await
        .unwrap();
    assert!(again.replayed);
    let at_gateway = running
        .sandbox
        .with_state(|s| s.orders.iter().filter(|o| o.mer_order_no == no).count());
    assert_eq!(at_gateway, 1);
    // The journal keeps the account masked.
    let e = &desk.journal().entries(&[], 10).unwrap()[0];
    assert_eq!(e.request["clabe"], "002010********7771");
    assert!(e.summary.contains("002010********7771"));

    // The order is in the cache at once, with what the journal knows and the list does
    // not say: a payout, by CLABE, made at the time the intent was written; no list has
    // shown it yet.
    let mine = OrderFilter {
        kinds: vec![OrderKind::Payout],
        ..OrderFilter::default()
    };
    let page = desk.orders().page(&mine, 0, 10).unwrap();
    assert_eq!(page.total, 1);
    let o = &page.rows[0];
    assert_eq!(o.mer_order_no, no);
    assert_eq!(o.kind, Some(OrderKind::Payout));
    assert_eq!(o.method, "CLABE");
    let made = e.sent_at.expect("the request left");
    assert_eq!(o.made_at, Some(made));
    assert_eq!(o.created_at, made, "dated by the time it was made");
    assert_eq!(o.synced_at, None);
    assert_eq!(
        (o.currency.as_str(), o.source_amount.as_str()),
        ("MXN", "10.00")
    );
    let payins = OrderFilter {
        kinds: vec![OrderKind::Payin],
        ..OrderFilter::default()
    };
    assert_eq!(desk.orders().page(&payins, 0, 10).unwrap().total, 0);
    // A sync confirms it and keeps what the journal knew.
    desk.orders()
        .sync(&all_time(), Arc::new(AtomicBool::new(false)), |_| {})
        .await
        .unwrap();
    let o = desk.orders().page(&mine, 0, 10).unwrap().rows[0].clone();
    assert!(o.synced_at.is_some(), "confirmed by the list");
    assert_eq!(o.kind, Some(OrderKind::Payout));
    assert_eq!(o.method, "CLABE");
    assert_eq!(o.made_at, Some(made));
    assert_eq!(o.created_at, made);
    assert_eq!(
        desk.orders()
            .page(&OrderFilter::default(), 0, 10)
            .unwrap()
            .total,
        1
    );

    // Activity finds the payout by its trade number and says its amount.
    let trade_no = o.trade_no.clone();
    let found = desk
        .journal()
        .audit_list(&paydesk_core::audit::AuditFilter {
            operation: Some("v2.payout".into()),
            text: Some(trade_no.clone()),
            from: None,
            to: None,
            limit: None,
        })
        .unwrap();
    assert!(
        !found.is_empty(),
        "the accepted send is found by its trade number"
    );
    assert!(found[0].identifiers.contains(&no));
    assert!(
        found[0].identifiers.contains("amount=10.00 MXN"),
        "{}",
        found[0].identifiers
    );

    // The next payout's confirmation shows the fee the listed one cost, and the total.
    let fee = o
        .handling_fee
        .clone()
        .expect("the list gives the payout's fee");
    let fixed = o
        .transaction_fixed_fee
        .clone()
        .unwrap_or_else(|| "0".into());
    let each = fee.parse::<rust_decimal::Decimal>().unwrap()
        + fixed.parse::<rust_decimal::Decimal>().unwrap();
    let preview = desk
        .money()
        .payout_preview(&paydesk_core::forms::PayoutForm {
            clabe: "002010077777777771".into(),
            ..paydesk_core::forms::PayoutForm::new(
                paydesk_core::forms::PayoutKind::Clabe,
                &new_mer_order_no("PO"),
                "25.00",
                "MXN",
            )
        })
        .unwrap();
    assert_eq!(preview.estimated_fee, Some(each.to_string()));
    assert_eq!(preview.estimated_fee_from.as_deref(), Some(no.as_str()));
    let total = "25.00".parse::<rust_decimal::Decimal>().unwrap() + each;
    assert_eq!(preview.estimated_total, Some(total.to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_hundred_payouts_through_lost_answers_and_timeouts_land_exactly_once() {
    let f = common::Fixture::new("faults").await;
    let running = &f.running;
    running.sandbox.set_fault(
        "/v2/payout",
        Fault {
            drop_rate: 0.2,
            hang_rate: 0.1,
            hang_ms: 3_000,
            seed: 42,
            ..Fault::default()
        },
    );
    let mut desk = f.desk().await;
    desk.set_timeout(std::time::Duration::from_millis(800))
        .unwrap();
    let clock = Arc::new(paydesk_core::clock::ShiftedClock::default());
    desk.set_clock(clock.clone());
    let desk = Arc::new(desk);
    // Each its own amount: 500 payouts of one amount to one account are one intent,
    // which the journal refuses to pay under a second number.
    let amount_of = |no: &str| {
        let i: u32 = no[4..].parse().unwrap();
        if no.ends_with('7') {
            format!("{}.13", 10 + i)
        } else {
            format!("{}.00", 10 + i)
        }
    };

    let nos: Vec<String> = (0..500).map(|i| format!("FLT-{i:04}")).collect();
    let mut tasks = Vec::new();
    for chunk in nos.chunks(25) {
        let desk = desk.clone();
        let chunk = chunk.to_vec();
        tasks.push(tokio::spawn(async move {
            for no in chunk {
                // What an operator (or the bulk runner) does: try, and on an unknown
                // outcome try again; the journal reconciles before any resend.
                let amount = amount_of(&no);
                // A loaded machine times out more than the faults make: more tries.
                for _ in 0..40 {
                    match desk.money().payout_clabe(payout(&no, &amount)).await {
                        Ok(s) if matches!(s.entry.status, Status::Accepted | Status::Rejected) => {
                            break;
                        }
                        Ok(_)
                        | Err(CoreError::OutcomeUnknown { .. } | CoreError::BadResponse { .. }) => {
                            continue;
                        }
                        Err(e) => panic!("{no}: {e}"),
                    }
                }
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    // A request cut off by the client's time limit before the gateway read it (more of
    // them on a loaded machine) is not found, and goes again under its number only after
    // the grace period. Every request the faults held is answered within 3 s: past that,
    // the desk's clock is moved past the grace instead of waiting it out.
    let waiting = desk
        .journal()
        .entries(&[Status::Unknown, Status::Sending], 1000)
        .unwrap();
    if !waiting.is_empty() {
        tokio::time::sleep(std::time::Duration::from_millis(3_500)).await;
        clock.advance(std::time::Duration::from_secs(600));
        for e in waiting {
            for _ in 0..10 {
                match desk
                    .money()
                    .payout_clabe(payout(&e.mer_order_no, &amount_of(&e.mer_order_no)))
                    .await
                {
                    Ok(s) if matches!(s.entry.status, Status::Accepted | Status::Rejected) => break,
                    _ => continue,
                }
            }
        }
    }
    let entries = desk.journal().entries(&[], 1000).unwrap();
    assert_eq!(entries.len(), 500);
    assert!(
        entries.iter().all(|e| matches!(e.status, Status::Accepted)),
        "every payout accepted (.13 ones fail later, at the gateway): {:?}",
        entries
            .iter()
            .filter(|e| e.status != Status::Accepted)
            .map(|e| (&e.mer_order_no, e.status, &e.code, &e.message))
            .collect::<Vec<_>>()
    );
    let counts = running.sandbox.with_state(|s| {
        let mut seen = HashSet::new();
        let dup = s
            .orders
            .iter()
            .filter(|o| !seen.insert(o.mer_order_no.clone()))
            .count();
        (s.orders.len(), dup)
    });
    assert_eq!(counts, (500, 0), "500 orders at the gateway, none twice");
    running.sandbox.with_state(|s| s.check_ledger()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chargebacks_are_queried_and_cached_and_notifications_verified() {
    let f = common::Fixture::new("cb").await;
    let running = &f.running;
    let desk = f.desk().await;
    let common = paydesk_gateway::wire::PayinCommon {
        mer_no: MerNo(common::MER),
        mer_order_no: new_mer_order_no("PI"),
        currency_code: "CNY".into(),
        source_amount: "88.00".parse().unwrap(),
        return_url: String::new(),
        // Nobody listens there: the sandbox keeps the signed notification and its attempts.
        notify_url: "http://127.0.0.1:9/notify".into(),
        ip_address: "203.0.113.7".into(),
        user_id: String::new(),
        email: String::new(),
    };
    let trade_no = desk
        .money()
        .payin_v2(common)
        .await
        .unwrap()
        .entry
        .trade_no
        .unwrap();
    let http = reqwest::Client::new();
    for action in ["pay", "chargeback"] {
        let url = running
            .base_url()
            .join(&format!("__sandbox/orders/{trade_no}/{action}"))
            .unwrap();
        assert!(
            http.post(url)
                .json(&serde_json::json!({}))
                .send()
                .await
                .unwrap()
                .status()
                .is_success()
        );
    }
    let a = desk
        .orders()
        .query_order(&trade_no, "chargeback")
        .await
        .unwrap();
    assert_eq!(a.data.chargeback_amount, Some("88.00".parse().unwrap()));
    // As kept in the file, read as another program would.
    let cached: String = rusqlite::Connection::open_with_flags(
        f.home.database(&f.name),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap()
    .query_row(
        "SELECT chargeback_amount FROM chargebacks WHERE trade_no = ?1",
        [&trade_no],
        |r| r.get(0),
    )
    .unwrap();
    assert_eq!(cached, "88.00");
    let listed = desk.orders().reversals(Some(&trade_no)).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (listed[0].kind.as_str(), listed[0].amount.as_deref()),
        ("chargeback", Some("88.00"))
    );
    let audit_csv = f.dir.path().join("audit.csv");
    let n = desk
        .journal()
        .export_audit(
            &Default::default(),
            &audit_csv,
            paydesk_core::output::Existing::Refuse,
        )
        .unwrap();
    assert!(n >= 2);
    assert_eq!(
        csv::Reader::from_path(&audit_csv)
            .unwrap()
            .records()
            .count(),
        n
    );
    let err = desk.orders().query_order(&trade_no, "").await.unwrap_err();
    assert!(matches!(err, CoreError::Validation { ref field, .. } if field == "queryType"));

    let notes = running.sandbox.notifications();
    assert!(notes.len() >= 2);
    for n in &notes {
        let body = serde_json::Value::Object(n.body.clone()).to_string();
        let r = desk.records().record_notification(&body).unwrap();
        assert!(r.signature_ok, "{r:?}");
        let mut tampered = n.body.clone();
        tampered.insert("sourceAmount".into(), serde_json::json!("1.00"));
        let r = desk
            .records()
            .verify_notification(&serde_json::Value::Object(tampered).to_string())
            .unwrap();
        assert!(!r.signature_ok);
    }
    assert_eq!(desk.records().notifications(10).unwrap().len(), notes.len());
    assert!(desk.records().verify_notification("not json").is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_incremental_sync_rereads_open_orders_and_keeps_their_history() {
    let f = common::Fixture::new("inc").await;
    let running = &f.running;
    running.sandbox.seed(&SeedSpec {
        mer_no: Some(common::MER),
        ..SeedSpec::new(2000)
    });
    let desk = f.desk().await;
    let mut opts = all_time();
    opts.to = chrono::Utc::now() - chrono::Duration::hours(1);
    desk.orders()
        .sync(&opts, Arc::new(AtomicBool::new(false)), |_| {})
        .await
        .unwrap();
    let pending = desk
        .orders()
        .page(
            &OrderFilter {
                states: vec![2],
                ..OrderFilter::default()
            },
            0,
            1,
        )
        .unwrap()
        .rows[0]
        .clone();
    let url = running
        .base_url()
        .join(&format!("__sandbox/orders/{}/pay", pending.trade_no))
        .unwrap();
    assert!(
        reqwest::Client::new()
            .post(url)
            .json(&serde_json::json!({}))
            .send()
            .await
            .unwrap()
            .status()
            .is_success()
    );

    let report = desk
        .orders()
        .sync(&opts, Arc::new(AtomicBool::new(false)), |_| {})
        .await
        .unwrap();
    assert_eq!(report.progress.pages, 0, "every window was complete");
    assert!(report.reread >= 1);
    let detail = desk.orders().order_detail(&pending.trade_no).await.unwrap();
    assert_eq!(detail.order.as_ref().unwrap().state, 5);
    assert_eq!(detail.states(), vec![2, 5], "first seen pending, then paid");

    // A filter is saved under a name of 1 to 60 characters (trimmed), whatever the store.
    let pending_only = OrderFilter {
        states: vec![2],
        ..OrderFilter::default()
    };
    for bad in ["", "   ", &"x".repeat(61)] {
        let e = desk.orders().save_filter(bad, &pending_only).unwrap_err();
        assert!(e.to_string().contains("1 to 60 characters"), "{e}");
    }
    desk.orders()
        .save_filter("  Pending  ", &pending_only)
        .unwrap();
    let saved = desk.orders().saved_filters().unwrap();
    assert_eq!(saved.len(), 1);
    assert_eq!(saved[0].0, "Pending");
    assert_eq!(saved[0].1.states, vec![2]);
}

/// The operator previews a bulk file, then it is edited (an account changed) before
/// the confirmation is sent: what goes is what was previewed, or nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_file_edited_after_its_preview_sends_nothing() {
    use paydesk_core::bulk;
    let f = common::Fixture::new("bulkedit").await;
    let desk = f.desk().await;
    let path = f.dir.path().join("edited.csv");
    let header = "type,amount,currency,account,firstName,lastName,country,merOrderNo\n";
    std::fs::write(
        &path,
        format!("{header}clabe,10.00,MXN,002010077777777771,,,,PO-EDIT-1\n"),
    )
    .unwrap();
    let ctx = bulk::BulkContext {
        mer_no: common::MER,
        notify_url: "https://desk.example/n".into(),
        ip_address: "203.0.113.7".into(),
    };
    let previewed = desk
        .money()
        .bulk_plan(&bulk::read(&path, &ctx).unwrap())
        .unwrap();
    std::fs::write(
        &path,
        format!("{header}clabe,10.00,MXN,012180000000000008,,,,PO-EDIT-1\n"),
    )
    .unwrap();
    let err = desk
        .money()
        .bulk_payouts(
            &bulk::read(&path, &ctx).unwrap(),
            false,
            Some(&previewed.digest),
            |_, _| {},
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("not the ones confirmed"), "{err}");
    assert!(
        desk.journal()
            .entry_by_number("PO-EDIT-1")
            .unwrap()
            .is_none(),
        "nothing was written to the journal, so nothing was sent"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulk_payouts_of_100_rows_with_3_bad_ones_pay_97_once() {
    use paydesk_core::bulk;
    let f = common::Fixture::new("bulk").await;
    let desk = f.desk().await;
    let mut csv = String::from("type,amount,currency,account,firstName,lastName,country\n");
    for i in 0..100 {
        let line = match i {
            10 => "clabe,10.00,MXN,002010077777777772,,,\n".to_string(),
            50 => "card,5.00,USD,4111111111111112,Ana,Lima,MX\n".to_string(),
            90 => "clabe,1e3,MXN,002010077777777771,,,\n".to_string(),
            _ if i % 2 == 0 => format!("clabe,{}.00,MXN,002010077777777771,,,\n", 10 + i),
            _ => format!("card,{}.50,USD,4111111111111111,Ana,Lima,MX\n", 1 + i % 7),
        };
        csv.push_str(&line);
    }
    let path = f.dir.path().join("payouts.csv");
    std::fs::write(&path, &csv).unwrap();
    let ctx = bulk::BulkContext {
        mer_no: common::MER,
        notify_url: "https://desk.example/n".into(),
        ip_address: "203.0.113.7".into(),
    };
    let file = bulk::read(&path, &ctx).unwrap();
    assert_eq!(file.rows.len(), 97);
    let errors: Vec<(usize, &str)> = file
        .errors
        .iter()
        .map(|e| (e.line, e.field.as_str()))
        .collect();
    assert_eq!(
        errors,
        vec![(12, "account"), (52, "account"), (92, "amount")]
    );

    let plan = desk.money().bulk_plan(&file).unwrap();
    assert_eq!(plan.to_send, 97);
    let mut ticks = Vec::new();
    let results = desk
        .money()
        .bulk_payouts(&file, false, Some(&plan.digest), |done, total| {
            ticks.push((done, total))
        })
        .await
        .unwrap();
    assert_eq!(ticks.last(), Some(&(97, 97)));
    assert_eq!(results.len(), 100);
    assert_eq!(
        results
            .iter()
            .filter(|r| r.status == bulk::RowStatus::Accepted)
            .count(),
        97
    );
    assert_eq!(
        results
            .iter()
            .filter(|r| r.status == bulk::RowStatus::Invalid)
            .count(),
        3
    );
    let out = f.dir.path().join("payouts-result.csv");
    bulk::write_results(
        &out,
        paydesk_core::output::Existing::Replace,
        &file,
        &results,
    )
    .unwrap();
    assert_eq!(csv::Reader::from_path(&out).unwrap().records().count(), 100);

    // The same file again: nothing is paid twice.
    let again = desk
        .money()
        .bulk_payouts(&bulk::read(&path, &ctx).unwrap(), false, None, |_, _| {})
        .await
        .unwrap();
    assert_eq!(
        again
            .iter()
            .filter(|r| r.status == bulk::RowStatus::Accepted)
            .count(),
        97
    );
    let at_gateway = f.running.sandbox.with_state(|s| s.orders.len());
    assert_eq!(at_gateway, 97);
    assert_eq!(desk.journal().entries(&[], 1000).unwrap().len(), 97);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_files_are_read_checked_and_encoded_in_rust() {
    let f = common::Fixture::new("rev").await;
    let desk = f.desk().await;
    let op = paydesk_gateway::wire::V1Payment {
        common: paydesk_gateway::wire::PayinCommon {
            mer_no: MerNo(common::MER),
            mer_order_no: new_mer_order_no("PI"),
            currency_code: "EUR".into(),
            source_amount: "250.00".parse().unwrap(),
            return_url: String::new(),
            notify_url: "https://desk.example/n".into(),
            ip_address: "203.0.113.7".into(),
            user_id: String::new(),
            email: String::new(),
        },
        version: "V3.0.0".into(),
        method: paydesk_gateway::wire::V1Method::Sepa(paydesk_gateway::wire::SepaExtras {
            user_agent: "UA".into(),
            billing_first_name: "Ana".into(),
            billing_last_name: "Lima".into(),
        }),
    };
    let sepa = desk.money().payin_v1(op).await.unwrap();
    let trade_no = sepa.entry.trade_no.clone().unwrap();
    assert_eq!(
        sepa.data.unwrap().iban.as_deref(),
        Some("DE89370400440532013000")
    );

    let dir = f.dir.path();
    std::fs::write(dir.join("id.png"), b"\x89PNG\r\n\x1a\n0123456789").unwrap();
    std::fs::write(dir.join("proof.pdf"), b"%PDF-1.7\n...").unwrap();
    std::fs::write(dir.join("big.png"), vec![0u8; 5 * 1024 * 1024 + 1]).unwrap();
    std::fs::write(dir.join("tool.exe"), b"MZ\x90\x00").unwrap();

    let too_big = desk
        .money()
        .submit_review(
            "RV-1",
            &review(&trade_no, vec![], vec![("21".into(), dir.join("big.png"))]),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&too_big, CoreError::Validation { field, rule } if field == "fileList[0]" && rule.contains("5 MiB")),
        "{too_big}"
    );
    let wrong = desk
        .money()
        .submit_review(
            "RV-1",
            &review(&trade_no, vec![], vec![("21".into(), dir.join("tool.exe"))]),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&wrong, CoreError::Validation { rule, .. } if rule.contains("not a PNG, JPEG or PDF")),
        "{wrong}"
    );

    let files = vec![
        ("21".to_string(), dir.join("id.png")),
        ("22".to_string(), dir.join("proof.pdf")),
    ];
    // A submission that cannot reach the gateway (it is down) stays queued, and is
    // sent again later with its reference.
    let online = f.home.get(&f.name).unwrap();
    f.home
        .put(paydesk_core::Profile {
            base_url: Some("http://127.0.0.1:9/".into()),
            ..online.clone()
        })
        .unwrap();
    let offline = f.desk().await;
    let queued = offline
        .money()
        .submit_review(
            "RV-0",
            &review(
                &trade_no,
                vec![("1".into(), "Invoice 54".into())],
                files.clone(),
            ),
        )
        .await;
    assert!(queued.is_err());
    let listed = desk.money().review_submissions(Some(&trade_no)).unwrap();
    assert!(
        listed[0].queued && listed[0].reference == "RV-0",
        "{listed:?}"
    );
    drop(offline);
    f.home.put(online).unwrap();
    let resent = desk.money().review_resend("RV-0").await.unwrap();
    assert_eq!(resent.entry.status, Status::Accepted);
    let listed = desk.money().review_submissions(Some(&trade_no)).unwrap();
    assert_eq!(listed.len(), 1, "a resend updates its submission");
    assert!(
        !listed[0].queued && listed[0].outcome == "accepted",
        "{listed:?}"
    );
    let ok = desk
        .money()
        .submit_review(
            "RV-1",
            &review(
                &trade_no,
                vec![("1".into(), "Invoice 55".into())],
                files.clone(),
            ),
        )
        .await
        .unwrap();
    assert_eq!(ok.entry.status, Status::Accepted);
    let again = desk
        .money()
        .submit_review(
            "RV-1",
            &review(&trade_no, vec![("1".into(), "Invoice 55".into())], files),
        )
        .await
        .unwrap();
    assert!(again.replayed, "the same reference is not sent twice");
    let reviews = f.running.sandbox.with_state(|s| s.reviews.clone());
    assert_eq!(reviews.len(), 2, "RV-0 and RV-1, each once");
    let sizes: Vec<(String, usize)> = reviews[1]
        .files
        .iter()
        .map(|x| (x.suffix.clone(), x.size))
        .collect();
    assert_eq!(
        sizes,
        vec![(".png".to_string(), 18), (".pdf".to_string(), 12)]
    );
    // The journal keeps no file contents.
    let e = &desk.journal().entries(&[], 10).unwrap()[0];
    assert!(
        e.request["fileList"][0]["fileContent"]
            .as_str()
            .unwrap()
            .starts_with('<')
    );

    // The order's timeline tells it all, oldest first: the payin made here (its state
    // and its request), the submissions, and the audit entries naming the order.
    use paydesk_core::desk::TimelineEvent as T;
    let timeline = desk.orders().order_timeline(&trade_no).unwrap();
    assert!(
        timeline.windows(2).all(|w| w[0].at() <= w[1].at()),
        "{timeline:?}"
    );
    assert!(
        timeline.iter().any(
            |e| matches!(e, T::Request { operation, status: Status::Accepted, .. }
            if *operation == paydesk_core::journal::JournalOperation::V1Payment)
        ),
        "{timeline:?}"
    );
    let references: Vec<&str> = timeline
        .iter()
        .filter_map(|e| match e {
            T::Review {
                reference, outcome, ..
            } if outcome == "accepted" => Some(reference.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(references, vec!["RV-0", "RV-1"], "{timeline:?}");
    assert!(
        timeline
            .iter()
            .any(|e| matches!(e, T::Audit { operation, .. } if operation == "v1.payment")),
        "{timeline:?}"
    );

    // A payout is no bank transfer: its review is refused before anything is read or
    // sent, naming the order and the rule.
    let payout = desk
        .money()
        .payout_clabe(paydesk_gateway::wire::V2Payout::new(
            MerNo(common::MER),
            new_mer_order_no("PO"),
            "MXN".into(),
            "10.00".parse().unwrap(),
            "002010077777777771".into(),
            "https://desk.example/n".into(),
            "203.0.113.7".into(),
        ))
        .await
        .unwrap();
    let payout_no = payout.entry.trade_no.unwrap();
    let sent_before = f.running.sandbox.with_state(|s| s.reviews.len());
    let refused = desk
        .money()
        .submit_review(
            "RV-2",
            &review(&payout_no, vec![("1".into(), "x".into())], vec![]),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, CoreError::Validation { field, rule } if field == "tradeNo" && rule.contains("is a payout") && rule.contains("SEPA")),
        "{refused}"
    );
    assert_eq!(
        f.running.sandbox.with_state(|s| s.reviews.len()),
        sent_before
    );
}

fn review(
    trade_no: &str,
    info: Vec<(String, String)>,
    files: Vec<(String, std::path::PathBuf)>,
) -> paydesk_core::ReviewRequest {
    paydesk_core::ReviewRequest {
        trade_no: trade_no.to_string(),
        info,
        files: files
            .into_iter()
            .map(|(c, p)| (c, p.display().to_string()))
            .collect(),
    }
}

/// A bulk file is opened in a spreadsheet and its result file is sent again: an order
/// number a spreadsheet would run is refused on its line, and no cell of the result file
/// can become a formula (plain numbers stay numbers).
#[test]
fn bulk_files_carry_no_formula_in_or_out() {
    use paydesk_core::bulk;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.csv");
    std::fs::write(
        &path,
        "type,amount,currency,account,firstName,lastName,country,merOrderNo\n\
         clabe,10.00,MXN,002010077777777771,,,,=HYPERLINK(\"x\")\n\
         card,5.00,USD,4111111111111111,=cmd,Lima,MX,PO-FORMULA-2\n",
    )
    .unwrap();
    let ctx = bulk::BulkContext {
        mer_no: common::MER,
        notify_url: "https://desk.example/n".into(),
        ip_address: "203.0.113.7".into(),
    };
    let file = bulk::read(&path, &ctx).unwrap();
    let errors: Vec<(usize, &str)> = file
        .errors
        .iter()
        .map(|e| (e.line, e.field.as_str()))
        .collect();
    assert_eq!(errors, vec![(2, "merOrderNo")]);
    assert!(!format!("{file:?}").contains("4111111111111111"));
    let results = vec![bulk::RowResult {
        line: 3,
        mer_order_no: "PO-FORMULA-2".into(),
        status: bulk::RowStatus::Accepted,
        trade_no: "T1".into(),
        detail: "-".into(),
        this_run: true,
        why: None,
    }];
    let out = dir.path().join("out.csv");
    bulk::write_results(
        &out,
        paydesk_core::output::Existing::Replace,
        &file,
        &results,
    )
    .unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("'=cmd"), "{text}");
    assert!(text.contains(",5.00,"), "the amount stays a number: {text}");
    // Read back (the operator sends the result file again), the mark is gone: the row
    // is the one that was sent, under its number, not a "changed" row.
    let again = bulk::read(&out, &ctx).unwrap();
    // (The result file holds the rows with a result, so this one is its line 2.)
    let (_, row) = again.rows.iter().find(|(line, _)| *line == 2).unwrap();
    assert_eq!(row.mer_order_no(), "PO-FORMULA-2");
    let (_, cells) = again.records.iter().find(|(line, _)| *line == 2).unwrap();
    assert_eq!(cells[4], "=cmd", "{cells:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "it repeats full account numbers");
    }
}

/// A gateway that says "success" without a trade number the desk can keep: the payout
/// is not believed as accepted; it is unknown, and the lookup finds its real number.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_success_without_a_usable_trade_number_is_unknown_until_looked_up() {
    let f = common::Fixture::new("blank").await;
    let running = &f.running;
    // No grace at all: an order not listed would be "absent" at the first lookup.
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(paydesk_core::Profile {
            safety: paydesk_core::profile::Safety {
                not_found_grace_secs: 0,
                not_found_lookups: 1,
                ..p.safety.clone()
            },
            ..p
        })
        .unwrap();
    let desk = f.desk().await;
    running.sandbox.set_fault(
        "/v2/payout",
        Fault {
            blank_trade_no_rate: 1.0,
            ..Fault::default()
        },
    );
    let no = new_mer_order_no("PO");
    let err = desk
        .money()
        .payout_clabe(payout(&no, "12.00"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, CoreError::OutcomeUnknown { message } if message.contains("tradeNo: is empty")),
        "{err}"
    );
    let entry = desk.journal().entry_by_number(&no).unwrap().unwrap();
    assert_eq!(
        (entry.status, entry.trade_no.clone()),
        (Status::Unknown, None)
    );
    running.sandbox.clear_faults();
    // The gateway's list does not show it yet: since the gateway said yes, it is never
    // taken as absent, and never sent again, however often it is looked up.
    running.sandbox.set_behaviour(paydesk_sandbox::Behaviour {
        accept_reused_order_no: true,
        list_lag_ms: 3_600_000,
        speaks: None,
    });
    for _ in 0..3 {
        let e = desk.journal().reconcile_entry(&entry, true).await.unwrap();
        assert_eq!(e.status, Status::Unknown, "{:?}", e.message);
        // The operator runs the same payout again: still unknown, nothing sent.
        let again = desk.money().payout_clabe(payout(&no, "12.00")).await;
        assert!(
            again
                .as_ref()
                .map_or(true, |s| s.entry.status == Status::Unknown),
            "{again:?}"
        );
        let sent = running
            .sandbox
            .with_state(|s| s.orders.iter().filter(|o| o.mer_order_no == no).count());
        assert_eq!(sent, 1);
    }
    running
        .sandbox
        .set_behaviour(paydesk_sandbox::Behaviour::default());
    let real = running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .find(|o| o.mer_order_no == no)
            .map(|o| o.trade_no.clone())
            .unwrap()
    });
    let done = desk.journal().reconcile_entry(&entry, true).await.unwrap();
    assert_eq!(done.status, Status::Accepted);
    assert_eq!(done.trade_no.as_deref(), Some(real.as_str()));
    let at_gateway = running
        .sandbox
        .with_state(|s| s.orders.iter().filter(|o| o.mer_order_no == no).count());
    assert_eq!(at_gateway, 1, "looked up, never sent again");
}

/// Opening an order reads it again from the gateway's list: the cached row agrees with
/// the live answer without waiting for a sync.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_opened_shows_the_gateways_state_in_its_cached_row() {
    let f = common::Fixture::new("live").await;
    let running = &f.running;
    running.sandbox.seed(&SeedSpec {
        mer_no: Some(common::MER),
        ..SeedSpec::new(200)
    });
    let desk = f.desk().await;
    desk.orders()
        .sync(&all_time(), Arc::new(AtomicBool::new(false)), |_| {})
        .await
        .unwrap();
    let pending = OrderFilter {
        states: vec![2],
        ..OrderFilter::default()
    };
    let order = desk.orders().page(&pending, 0, 1).unwrap().rows[0].clone();
    let url = running
        .base_url()
        .join(&format!("__sandbox/orders/{}/pay", order.trade_no))
        .unwrap();
    let paid = reqwest::Client::new()
        .post(url)
        .json(&serde_json::json!({}))
        .send()
        .await
        .unwrap();
    assert!(paid.status().is_success());
    let detail = desk.orders().order_detail(&order.trade_no).await.unwrap();
    assert!(detail.live.is_some());
    let cached = detail.order.clone().unwrap();
    assert_eq!(cached.state, 5, "the cache took the list's state at once");
    assert_eq!(detail.states(), vec![2, 5]);
    let still_pending = desk.orders().page(&pending, 0, 1000).unwrap();
    assert!(
        still_pending
            .rows
            .iter()
            .all(|o| o.trade_no != order.trade_no),
        "a paid order no longer shows as pending"
    );

    // An order is found by its whole number: from the cache, else from the gateway's
    // list (an order made elsewhere since the sync); a number nobody knows is none.
    assert_eq!(
        desk.orders().find_order(&order.mer_order_no).await.unwrap(),
        Some(order.trade_no.clone())
    );
    let known: HashSet<String> = running
        .sandbox
        .with_state(|s| s.orders.iter().map(|o| o.trade_no.clone()).collect());
    running.sandbox.seed(&SeedSpec {
        mer_no: Some(common::MER),
        seed: 77,
        ..SeedSpec::new(3)
    });
    let elsewhere = running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .find(|o| !known.contains(&o.trade_no))
            .map(|o| (o.trade_no.clone(), o.mer_order_no.clone()))
            .unwrap()
    });
    assert!(desk.orders().cached_order(&elsewhere.0).unwrap().is_none());
    assert_eq!(
        desk.orders().find_order(&elsewhere.0).await.unwrap(),
        Some(elsewhere.0.clone())
    );
    assert_eq!(
        desk.orders().find_order(&elsewhere.1).await.unwrap(),
        Some(elsewhere.0.clone())
    );
    assert_eq!(desk.orders().find_order("NOPE-3002").await.unwrap(), None);
    let empty = desk
        .orders()
        .find_order("  ")
        .await
        .unwrap_err()
        .to_string();
    assert!(empty.contains("number"), "{empty}");
}

/// Balance history on a schedule: a snapshot of every currency the desk knows once the
/// last one is as old as the profile says, not before; never with the schedule off.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn balance_snapshots_are_taken_when_the_schedule_says() {
    let f = common::Fixture::new("snapshots").await;
    f.running.sandbox.seed(&SeedSpec {
        mer_no: Some(common::MER),
        ..SeedSpec::new(200)
    });
    let desk = f.desk().await;
    let now = chrono::Utc::now().timestamp_millis();
    assert_eq!(
        desk.money().snapshot_balances_if_due(now).await.unwrap(),
        None,
        "no currency known yet: nothing to ask"
    );
    let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
    desk.orders()
        .sync(&desk.orders().sync_options(90), cancel, |_| {})
        .await
        .unwrap();
    let currencies = desk.money().currencies().unwrap().len();
    assert!(currencies > 0);
    let taken = desk.money().snapshot_balances_if_due(now).await.unwrap();
    assert_eq!(taken, Some(currencies), "never taken: due at once");
    let later = chrono::Utc::now().timestamp_millis();
    assert_eq!(
        desk.money()
            .snapshot_balances_if_due(later + 59 * 60_000)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        desk.money()
            .snapshot_balances_if_due(later + 61 * 60_000)
            .await
            .unwrap(),
        Some(currencies),
        "the profile's default: every 60 minutes"
    );
    let history = desk
        .money()
        .balance_history(&desk.money().currencies().unwrap()[0])
        .unwrap();
    assert_eq!(history.len(), 2);

    // Off: only on request.
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(paydesk_core::Profile {
            sync: paydesk_core::profile::SyncSettings {
                balances_every_mins: 0,
                ..p.sync.clone()
            },
            ..p
        })
        .unwrap();
    let off = f.desk().await;
    assert_eq!(
        off.money()
            .snapshot_balances_if_due(later + 10 * 86_400_000)
            .await
            .unwrap(),
        None
    );
}

/// The connection check with no money moved: on the sandbox every signed query works;
/// with this desk's clock 10 minutes ahead of the gateway's (its answers' Date), the check
/// says so, naming the system clock.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connection_check_works_and_sees_a_clock_ahead_of_the_gateways() {
    let f = common::Fixture::new("check").await;
    let mut desk = f.desk().await;
    let report = desk.money().check_connection(Some("USD")).await.unwrap();
    assert!(report.ok, "{report:?}");
    let tried: Vec<&str> = report.items.iter().map(|i| i.what.as_str()).collect();
    assert!(
        tried.contains(&"balance") && tried.contains(&"orderList"),
        "{tried:?}"
    );
    assert!(!tried.contains(&"clock"), "{tried:?}");
    let clock = Arc::new(paydesk_core::clock::ShiftedClock::default());
    clock.advance(std::time::Duration::from_secs(600));
    desk.set_clock(clock);
    let report = desk.money().check_connection(Some("USD")).await.unwrap();
    assert!(!report.ok);
    let c = report.items.iter().find(|i| i.what == "clock").unwrap();
    assert_eq!(c.setting.as_deref(), Some("systemClock"));
    assert!(c.detail.contains("ahead of the gateway's"), "{}", c.detail);
}
