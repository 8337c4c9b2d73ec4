//! Bulk look-up against the loopback sandbox: 200 numbers, some cached, some only at
//! the gateway, some unknown. What is found is judged by the orders this test made at
//! the sandbox; how many list requests went out is counted at the sandbox.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use paydesk_core::desk::{Found, GatewayAsked, LookupOptions};
use paydesk_core::sync::SyncOptions;
use paydesk_sandbox::SeedSpec;

const LIST: &str = "/v2/order/queryOrderList";
const PAGE: u32 = 50;

#[derive(Debug, Clone)]
struct Made {
    trade_no: String,
    mer_order_no: String,
    state: i64,
    amount: rust_decimal::Decimal,
    currency: String,
}

fn made(f: &common::Fixture) -> HashMap<String, Made> {
    f.running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .filter(|o| o.mer_no == common::MER)
            .map(|o| {
                (
                    o.trade_no.clone(),
                    Made {
                        trade_no: o.trade_no.clone(),
                        mer_order_no: o.mer_order_no.clone(),
                        state: o.state,
                        amount: o.amount,
                        currency: o.currency.clone(),
                    },
                )
            })
            .collect()
    })
}

fn lists(f: &common::Fixture) -> u64 {
    f.running
        .sandbox
        .traffic()
        .by_path
        .get(LIST)
        .copied()
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_numbers_are_found_in_the_cache_and_at_the_gateway_in_batches() {
    let f = common::Fixture::new("lookup").await;
    // A gateway whose pages hold 50 orders, and a profile that knows it.
    let small = paydesk_gateway::Conventions {
        max_page_size: PAGE,
        ..paydesk_gateway::Conventions::sandbox()
    };
    f.running.sandbox.set_behaviour(paydesk_sandbox::Behaviour {
        speaks: Some(small.clone()),
        ..paydesk_sandbox::Behaviour::default()
    });
    f.home.set_conventions(&f.name, small).unwrap();

    f.running.sandbox.seed(&SeedSpec {
        mer_no: Some(common::MER),
        seed: 1,
        ..SeedSpec::new(80)
    });
    let desk = f.desk().await;
    let mut all = SyncOptions::last_days(400);
    all.to = chrono::Utc::now() + chrono::Duration::days(1);
    desk.orders()
        .sync(&all, Arc::new(AtomicBool::new(false)), |_| {})
        .await
        .unwrap();
    let cached = made(&f);
    // Made after the sync: only the gateway knows them.
    f.running.sandbox.seed(&SeedSpec {
        mer_no: Some(common::MER),
        seed: 2,
        ..SeedSpec::new(120)
    });
    let gateway_only: Vec<Made> = made(&f)
        .into_values()
        .filter(|m| !cached.contains_key(&m.trade_no))
        .collect();
    assert_eq!(gateway_only.len(), 120);

    // 60 cached (half by trade number, half by merchant order number), 100 only at the
    // gateway (the same mix), 40 the gateway never had.
    let mut text = String::from("\n");
    let mut expect: Vec<(String, Found, Option<Made>)> = Vec::new();
    for (n, m) in cached.values().take(60).enumerate() {
        let number = if n % 2 == 0 {
            &m.trade_no
        } else {
            &m.mer_order_no
        };
        expect.push((number.clone(), Found::Cache, Some(m.clone())));
    }
    for (n, m) in gateway_only.iter().take(100).enumerate() {
        let number = if n % 2 == 0 {
            &m.trade_no
        } else {
            &m.mer_order_no
        };
        expect.push((number.clone(), Found::Gateway, Some(m.clone())));
    }
    for n in 0..40 {
        expect.push((format!("NOPE-{n:04}"), Found::NotFound, None));
    }
    // Interleaved, with padding, blank lines, a repeat and two lines that are no number.
    for (k, (number, _, _)) in expect.iter().enumerate() {
        text.push_str(&format!("  {number}\t\n"));
        if k % 37 == 0 {
            text.push('\n');
        }
    }
    text.push_str(&format!(
        "{}\nnot a number\n{}\n",
        expect[3].0,
        "9".repeat(70)
    ));
    assert_eq!(expect.len(), 200);

    f.running.sandbox.reset_traffic();
    let mut seen_progress = Vec::new();
    let r = desk
        .orders()
        .bulk_lookup(
            &text,
            LookupOptions::default(),
            Arc::new(AtomicBool::new(false)),
            |p| seen_progress.push(*p),
        )
        .await
        .unwrap();
    assert_eq!(r.rows.len(), 200);
    assert_eq!(r.duplicates, 1);
    assert_eq!(r.rejected.len(), 2, "{:?}", r.rejected);
    assert_eq!(
        r.rejected[0].reason,
        paydesk_core::desk::RejectReason::NotPrintable
    );
    assert_eq!(
        r.rejected[1].reason,
        paydesk_core::desk::RejectReason::TooLong
    );
    assert!(r.rejected[1].rule.contains("64"));
    assert_eq!(r.gateway, GatewayAsked::Asked);
    // 140 numbers the cache lacks, at most 50 a request.
    let asked = 140u64;
    assert_eq!(lists(&f), asked.div_ceil(u64::from(PAGE)));
    assert_eq!(f.running.sandbox.traffic().requests, lists(&f));
    assert_eq!(seen_progress.last().unwrap().asked, 140);

    let rows: HashMap<&str, _> = r.rows.iter().map(|x| (x.number.as_str(), x)).collect();
    for (number, found, m) in &expect {
        let row = rows[number.as_str()];
        assert_eq!(row.found, *found, "{number}");
        match m {
            Some(m) => {
                assert_eq!(
                    row.trade_no.as_deref(),
                    Some(m.trade_no.as_str()),
                    "{number}"
                );
                assert_eq!(row.mer_order_no.as_deref(), Some(m.mer_order_no.as_str()));
                assert_eq!(row.state, Some(m.state), "{number}");
                let amount: rust_decimal::Decimal = row.amount.as_deref().unwrap().parse().unwrap();
                assert_eq!(amount, m.amount, "{number}");
                assert_eq!(row.currency.as_deref(), Some(m.currency.as_str()));
            }
            None => {
                assert!(row.trade_no.is_none() && row.state.is_none() && row.amount.is_none());
            }
        }
    }

    // Offline: the cache's answers, and the gateway not asked about the rest.
    f.running.sandbox.reset_traffic();
    let off = desk
        .orders()
        .bulk_lookup(
            &text,
            LookupOptions {
                ask_gateway: false,
                refresh: false,
            },
            Arc::default(),
            |_| {},
        )
        .await
        .unwrap();
    assert_eq!(off.gateway, GatewayAsked::Offline);
    assert_eq!(f.running.sandbox.traffic().requests, 0);
    let count = |found| off.rows.iter().filter(|x| x.found == found).count();
    assert_eq!(
        (
            count(Found::Cache),
            count(Found::NotAsked),
            count(Found::NotFound)
        ),
        (60, 140, 0)
    );

    // Stopped before the first batch: nothing asked, nothing called absent.
    let stopped = desk
        .orders()
        .bulk_lookup(
            &text,
            LookupOptions::default(),
            Arc::new(AtomicBool::new(true)),
            |_| {},
        )
        .await
        .unwrap();
    assert_eq!(stopped.gateway, GatewayAsked::Stopped);
    assert!(stopped.rows.iter().all(|x| x.found != Found::NotFound));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_reads_cached_orders_again_and_updates_the_cache() {
    let f = common::Fixture::new("relook").await;
    f.running.sandbox.seed(&SeedSpec {
        mer_no: Some(common::MER),
        ..SeedSpec::new(20)
    });
    let desk = f.desk().await;
    let mut all = SyncOptions::last_days(400);
    all.to = chrono::Utc::now() + chrono::Duration::days(1);
    desk.orders()
        .sync(&all, Arc::default(), |_| {})
        .await
        .unwrap();
    let one = made(&f).into_values().next().unwrap();
    let moved = if one.state == 4 { 3 } else { 4 };
    assert!(
        f.running
            .sandbox
            .alter_order(common::MER, &one.mer_order_no, |o| o.state = moved)
    );

    let cached_only = desk
        .orders()
        .bulk_lookup(
            &one.mer_order_no,
            LookupOptions::default(),
            Arc::default(),
            |_| {},
        )
        .await
        .unwrap();
    assert_eq!(cached_only.rows[0].found, Found::Cache);
    assert_eq!(cached_only.rows[0].state, Some(one.state));
    assert_eq!(cached_only.gateway, GatewayAsked::NotNeeded);

    let fresh = desk
        .orders()
        .bulk_lookup(
            &one.mer_order_no,
            LookupOptions {
                ask_gateway: true,
                refresh: true,
            },
            Arc::default(),
            |_| {},
        )
        .await
        .unwrap();
    assert_eq!(fresh.rows[0].found, Found::Gateway);
    assert_eq!(fresh.rows[0].state, Some(moved));
    assert_eq!(fresh.cache_updated, 1);
    assert_eq!(
        desk.orders()
            .cached_order(&one.trade_no)
            .unwrap()
            .unwrap()
            .state,
        moved
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_answer_that_cannot_be_believed_leaves_numbers_not_asked_never_absent() {
    let f = common::Fixture::new("badsig").await;
    f.running.sandbox.seed(&SeedSpec {
        mer_no: Some(common::MER),
        ..SeedSpec::new(5)
    });
    let desk = f.desk().await;
    let one = made(&f).into_values().next().unwrap();
    f.running.sandbox.set_fault(
        LIST,
        paydesk_sandbox::Fault {
            bad_signature_rate: 1.0,
            ..paydesk_sandbox::Fault::default()
        },
    );
    let r = desk
        .orders()
        .bulk_lookup(
            &format!("{}\nNOPE-1\n", one.trade_no),
            LookupOptions::default(),
            Arc::default(),
            |_| {},
        )
        .await
        .unwrap();
    assert_eq!(r.gateway, GatewayAsked::Failed);
    assert!(
        r.gateway_error
            .as_deref()
            .unwrap_or("")
            .contains("signature"),
        "{r:?}"
    );
    // The gateway has the first and not the second, but its answer proved neither.
    assert!(r.rows.iter().all(|x| x.found == Found::NotAsked), "{r:?}");
    assert!(
        r.rows
            .iter()
            .all(|x| x.state.is_none() && x.amount.is_none())
    );
}

/// Issue 36 (bulk look-up, "not listed yet"): against a sandbox whose list shows a new
/// order late, a number this desk's journal sent within the profile's not-found grace
/// is "not listed yet", never "not found"; once the grace is over, or for a number the
/// desk never sent, absence from the gateway's complete answer is "not found".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_number_sent_within_the_grace_of_a_late_listing_gateway_is_not_listed_yet() {
    let f = common::Fixture::new("latelist").await;
    let mut p = f.home.get("latelist").unwrap();
    p.safety = paydesk_core::profile::Safety {
        not_found_grace_secs: 3,
        not_found_lookups: 1,
        ..paydesk_core::profile::Safety::default()
    };
    f.home.put(p).unwrap();
    let sb = &f.running.sandbox;
    // The late-listing gateway: a new order shows in its list ten minutes after it is
    // made (longer than this test).
    sb.set_behaviour(paydesk_sandbox::Behaviour {
        list_lag_ms: 600_000,
        ..paydesk_sandbox::Behaviour::default()
    });
    let desk = f.desk().await;
    // The gateway makes the payout; its answer is lost, so only the journal knows the
    // number (the cache has no order for it).
    sb.set_fault(
        "/v2/payout",
        paydesk_sandbox::Fault {
            drop_rate: 1.0,
            ..paydesk_sandbox::Fault::default()
        },
    );
    let err = desk
        .money()
        .payout_clabe(common::payout("LATE-1", "10.00"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, paydesk_core::CoreError::OutcomeUnknown { .. }),
        "{err}"
    );
    sb.clear_faults();
    assert_eq!(
        sb.orders_numbered(common::MER, "LATE-1"),
        1,
        "the gateway made it"
    );
    let sent_at = desk
        .journal()
        .entry_by_number("LATE-1")
        .unwrap()
        .unwrap()
        .sent_at
        .unwrap();

    let look = || async {
        desk.orders()
            .bulk_lookup(
                "LATE-1\nNOPE-LATE-1\n",
                LookupOptions::default(),
                Arc::default(),
                |_| {},
            )
            .await
            .unwrap()
    };
    let r = look().await;
    assert_eq!(r.gateway, GatewayAsked::Asked);
    let late = &r.rows[0];
    assert_eq!(late.number, "LATE-1");
    assert_eq!(late.found, Found::NotListedYet, "{late:?}");
    assert_eq!(late.sent_at, Some(sent_at));
    assert_eq!(late.grace_until, Some(sent_at + 3_000));
    assert!(
        late.trade_no.is_none() && late.state.is_none(),
        "nothing invented"
    );
    assert_eq!(r.rows[1].found, Found::NotFound, "never sent by this desk");
    assert!(r.rows[1].grace_until.is_none());

    // After the grace the list still does not show it: now it is "not found".
    let wait = (sent_at + 3_100 - chrono::Utc::now().timestamp_millis()).max(0) as u64;
    tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
    let r = look().await;
    assert_eq!(r.rows[0].found, Found::NotFound, "{:?}", r.rows[0]);
    assert!(r.rows[0].grace_until.is_none());
}
