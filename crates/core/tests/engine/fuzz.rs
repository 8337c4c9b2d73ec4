//! Hostile answers, bounded in time: the desk talks to the sandbox through a proxy that
//! rewrites the sandbox's answers (fields set to hostile values, pages inflated or
//! duplicated, numbers swapped, codes changed, bodies cut, statuses changed) while it
//! syncs, opens an order, asks balances, refunds and records, pays out and reconciles.
//! Asserted after every case: no panic, an error that is clear and printed safely, a
//! cache that keeps the desk's rules, no order number paid twice; and at the end,
//! with honest answers again, every payout reconciled to the gateway's real trade number.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::IntoResponse;
use paydesk_core::journal::Status;
use paydesk_core::sync::SyncOptions;
use paydesk_sandbox::SeedSpec;
use serde_json::{Value, json};

/// How long the hostile cases run (the count they reach is printed).
const BUDGET: Duration = Duration::from_secs(15);

#[derive(Clone)]
struct Proxy {
    upstream: String,
    client: reqwest::Client,
    rng: Arc<Mutex<fastrand::Rng>>,
    /// Rewrite answers (false: pass them through).
    hostile: Arc<AtomicBool>,
    rewritten: Arc<AtomicU64>,
}

fn hostile_value(rng: &mut fastrand::Rng) -> Value {
    let pick = [
        json!(""),
        json!("   "),
        json!("\u{0}"),
        json!("\u{1b}[2J\u{1b}[31mPAID"),
        json!("T\u{202e}9876"),
        json!("x".repeat(100_000)),
        json!(-1),
        json!("-1"),
        json!("0"),
        json!("1e3"),
        json!("0.000000001"),
        json!("79228162514264337593543950335"),
        json!("usd"),
        json!("XXZ"),
        json!("USDT"),
        json!("EUR"),
        Value::Null,
        json!(true),
        json!({}),
        json!([]),
        json!(1e308),
        json!("T-SOMEONE-ELSE"),
        json!(1_000_000_000i64),
    ];
    pick[rng.usize(..pick.len())].clone()
}

/// Every object member under `v`, as paths.
fn paths(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                at.push(k.clone());
                out.push(at.clone());
                paths(child, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate().take(3) {
                at.push(i.to_string());
                paths(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, k| match v {
        Value::Object(m) => m.get_mut(k),
        Value::Array(a) => k.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
        _ => None,
    })
}

/// One hostile rewrite of an answer. On a money call's answer (`money`), a success that
/// names another well-formed trade number is not made: it cannot be told from the truth
/// when it arrives (those answers are not signed), and the interface gives nothing to
/// check it against. Nor is a list item about one of our payouts given another
/// well-formed trade number (the same limit, on the lookup that settles an unknown
/// outcome).
fn rewrite(
    rng: &mut fastrand::Rng,
    money: bool,
    status: StatusCode,
    body: Bytes,
) -> (StatusCode, Vec<u8>) {
    let Ok(mut v) = serde_json::from_slice::<Value>(&body) else {
        return (status, body.to_vec());
    };
    match rng.u8(..12) {
        0..=3 => {
            let mut all = Vec::new();
            paths(&v, &mut Vec::new(), &mut all);
            for _ in 0..rng.usize(1..=3) {
                if all.is_empty() {
                    break;
                }
                let p = &all[rng.usize(..all.len())];
                let mut value = hostile_value(rng);
                let swaps_the_number = p.last().is_some_and(|k| k == "tradeNo")
                    && value
                        .as_str()
                        .is_some_and(|t| paydesk_gateway::validate::trade_no("t", t).is_ok());
                // The same holds for a list item about one of our payouts (what a lookup
                // after an unknown outcome reads): another well-formed number for our
                // merOrderNo in an unsigned answer is indistinguishable from the truth.
                let about_our_payout = p.len() >= 2 && {
                    let mut sibling = p[..p.len() - 1].to_vec();
                    sibling.push("merOrderNo".into());
                    at(&mut v, &sibling)
                        .and_then(|n| n.as_str())
                        .is_some_and(|n| n.starts_with("FZ"))
                };
                if (money || about_our_payout) && swaps_the_number {
                    value = json!("");
                }
                if let Some(slot) = at(&mut v, p) {
                    *slot = value;
                }
            }
        }
        4 => {
            // The same item twice, or a page far larger than asked.
            if let Some(Value::Array(list)) = at(&mut v, &["data".into(), "list".into()])
                && let Some(first) = list.first().cloned()
            {
                let n = if rng.bool() { 1 } else { 600 };
                for i in 0..n {
                    let mut item = first.clone();
                    if let (true, Value::Object(m)) = (n > 1, &mut item) {
                        m.insert("tradeNo".into(), json!(format!("TX{i:08}")));
                    }
                    list.push(item);
                }
            }
        }
        5 => {
            if let Some(Value::Object(data)) = at(&mut v, &["data".into()]) {
                data.insert("total".into(), json!(1_000_000_000_000i64));
                data.insert("totalPage".into(), json!(1_000_000_000i64));
            }
        }
        6 => {
            // Another order's number, or another currency.
            if let Some(Value::Object(data)) = at(&mut v, &["data".into()]) {
                if data.contains_key("tradeNo") && !money {
                    data.insert("tradeNo".into(), json!(format!("T{}", rng.u64(..))));
                }
                if data.contains_key("currency") {
                    data.insert("currency".into(), json!("EUR"));
                }
                if data.contains_key("refundNo") {
                    data.insert("refundNo".into(), json!("R-OTHER"));
                }
            }
        }
        7 => {
            let codes = ["00000", "200", "E1011", "", "\u{1b}[31m", "9999", "SUCCESS"];
            if let Value::Object(m) = &mut v {
                m.insert("code".into(), json!(codes[rng.usize(..codes.len())]));
                m.insert("message".into(), hostile_value(rng));
            }
        }
        8 => {
            if let Value::Object(m) = &mut v {
                m.remove("data");
            }
        }
        9 => {
            let text = serde_json::to_vec(&v).unwrap_or_default();
            let cut = rng.usize(..text.len().max(1));
            return (status, text[..cut].to_vec());
        }
        10 => {
            let statuses = [500, 502, 404, 400, 204, 302];
            let s = StatusCode::from_u16(statuses[rng.usize(..statuses.len())]).unwrap();
            return (s, serde_json::to_vec(&v).unwrap_or_default());
        }
        _ => {
            return (
                status,
                if rng.bool() {
                    b"<html>bad gateway</html>".to_vec()
                } else {
                    Vec::new()
                },
            );
        }
    }
    (status, serde_json::to_vec(&v).unwrap_or_default())
}

async fn forward(
    axum::extract::State(p): axum::extract::State<Proxy>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> axum::response::Response {
    let url = format!(
        "{}{}",
        p.upstream.trim_end_matches('/'),
        uri.path_and_query().map_or("/", |x| x.as_str())
    );
    let mut req = p.client.request(method, url).body(body);
    for (k, v) in &headers {
        if k != axum::http::header::HOST && k != axum::http::header::CONTENT_LENGTH {
            req = req.header(k, v);
        }
    }
    let Ok(answer) = req.send().await else {
        return StatusCode::BAD_GATEWAY.into_response();
    };
    let status = answer.status();
    let body = answer.bytes().await.unwrap_or_default();
    let (status, body) = if p.hostile.load(Ordering::Relaxed) && !uri.path().starts_with("/__") {
        p.rewritten.fetch_add(1, Ordering::Relaxed);
        let mut rng = p
            .rng
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let money = ["/v2/payout", "/payout", "/v2/payment", "/payment"].contains(&uri.path());
        rewrite(&mut rng, money, status, body)
    } else {
        (status, body.to_vec())
    };
    (
        status,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

/// Text the desk shows: no control characters but newlines, no bidi controls, bounded.
fn shown_safely(text: &str) -> Result<(), String> {
    if let Some(c) = text.chars().find(|c| {
        (c.is_control() && *c != '\n')
            || matches!(*c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
    }) {
        return Err(format!("holds {c:?}"));
    }
    if text.chars().count() > 4_000 {
        return Err(format!("is {} characters long", text.chars().count()));
    }
    Ok(())
}

/// The desk's rules over what it cached.
fn cache_keeps_the_rules(db: &std::path::Path) -> Result<(), String> {
    // Read from the file itself, as another program would.
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| e.to_string())?;
    (|| -> rusqlite::Result<Vec<String>> {
        let mut bad = Vec::new();
        let mut stmt = conn.prepare(
            "SELECT trade_no, currency, source_amount, coalesce(handling_fee, '0'), coalesce(refund_amount, '0') FROM orders",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
            ))
        })?;
        for row in rows {
            let (trade_no, currency, amount, fee, refund) = row?;
            let ok = paydesk_gateway::validate::trade_no("tradeNo", &trade_no).is_ok()
                && paydesk_gateway::money::Currency::parse(&currency)
                    .is_ok_and(|c| c.code() == currency)
                && [amount, fee, refund].iter().all(|a| {
                    a.parse::<rust_decimal::Decimal>()
                        .is_ok_and(|d| d >= rust_decimal::Decimal::ZERO && d.normalize().scale() <= 3)
                });
            if !ok {
                bad.push(trade_no);
            }
        }
        let mut stmt = conn.prepare("SELECT currency, balance FROM balance_snapshots")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        for row in rows {
            let (currency, balance) = row?;
            if !["USD", "MXN"].contains(&currency.as_str()) || balance.parse::<rust_decimal::Decimal>().is_err() {
                bad.push(format!("balance {currency} {balance}"));
            }
        }
        let mut stmt = conn.prepare("SELECT refund_no, coalesce(refund_amount, '0') FROM refunds")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        for row in rows {
            let (no, amount) = row?;
            if paydesk_gateway::validate::trade_no("refundNo", &no).is_err()
                || amount.parse::<rust_decimal::Decimal>().map_or(true, |d| d.is_sign_negative())
            {
                bad.push(format!("refund {no:?} {amount}"));
            }
        }
        Ok(bad)
    })()
    .map_err(|e| e.to_string())
    .and_then(|bad| if bad.is_empty() { Ok(()) } else { Err(format!("cached against the rules: {bad:?}")) })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_answers_never_panic_never_pollute_the_cache_never_pay_twice() {
    let f = common::Fixture::new("fuzz").await;
    f.running.sandbox.seed(&SeedSpec {
        mer_no: Some(common::MER),
        ..SeedSpec::new(40)
    });
    let proxy = Proxy {
        upstream: f.running.base_url().to_string(),
        client: reqwest::Client::builder().no_proxy().build().unwrap(),
        rng: Arc::new(Mutex::new(fastrand::Rng::with_seed(0x5eed_f022))),
        hostile: Arc::new(AtomicBool::new(false)),
        rewritten: Arc::new(AtomicU64::new(0)),
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new()
        .fallback(forward)
        .with_state(proxy.clone());
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(paydesk_core::Profile {
            base_url: Some(format!("http://{addr}/")),
            ..p
        })
        .unwrap();
    let mut desk = f.desk().await;
    desk.set_timeout(Duration::from_secs(5)).unwrap();
    // Honest first: the cache holds the seeded orders, the desk knows their numbers.
    desk.orders()
        .sync(
            &SyncOptions::last_days(100),
            Arc::new(AtomicBool::new(false)),
            |_| {},
        )
        .await
        .unwrap();
    let known: Vec<String> = desk
        .orders()
        .page(&Default::default(), 0, 10)
        .unwrap()
        .rows
        .into_iter()
        .map(|o| o.trade_no)
        .collect();
    assert!(!known.is_empty());

    proxy.hostile.store(true, Ordering::Relaxed);
    let mut rng = fastrand::Rng::with_seed(7);
    let mut payouts = Vec::new();
    let (mut cases, mut failures) = (0u64, Vec::new());
    let started = Instant::now();
    while started.elapsed() < BUDGET {
        cases += 1;
        let trade_no = &known[rng.usize(..known.len())];
        let (what, result): (&str, Result<(), paydesk_core::CoreError>) = match rng.u8(..7) {
            0 => {
                let no = paydesk_core::desk::new_mer_order_no("FZ");
                // Each its own amount: the same payout twice would be held as a repeat.
                let amount = format!("{}.{:02}", 10 + payouts.len() / 100, payouts.len() % 100);
                payouts.push((no.clone(), amount.clone()));
                (
                    "payout",
                    desk.money()
                        .payout_clabe(common::payout(&no, &amount))
                        .await
                        .map(|_| ()),
                )
            }
            1 => (
                "sync",
                desk.orders()
                    .sync(
                        &SyncOptions::last_days(100),
                        Arc::new(AtomicBool::new(false)),
                        |_| {},
                    )
                    .await
                    .map(|_| ()),
            ),
            2 => (
                "order detail",
                desk.orders().order_detail(trade_no).await.map(|_| ()),
            ),
            3 => (
                "balance",
                desk.money()
                    .balance(if rng.bool() { "USD" } else { "MXN" })
                    .await
                    .map(|_| ()),
            ),
            4 => (
                "reconcile",
                desk.journal().reconcile_all(false).await.map(|_| ()),
            ),
            5 => (
                "refund",
                desk.money().refund(trade_no, "").await.map(|_| ()),
            ),
            _ => (
                "order record",
                desk.orders()
                    .query_order(trade_no, "sales")
                    .await
                    .map(|_| ()),
            ),
        };
        if let Err(e) = &result
            && let Err(why) = shown_safely(&e.to_string())
        {
            failures.push(format!("{what}: the error {why}"));
        }
        if let Err(why) = cache_keeps_the_rules(&f.home.database(&f.name)) {
            failures.push(format!("{what}: {why}"));
        }
        for (no, _) in &payouts {
            let n = f.running.sandbox.orders_numbered(common::MER, no);
            if n > 1 {
                failures.push(format!("{what}: {no} paid {n} times"));
            }
        }
        if failures.len() > 5 {
            break;
        }
    }
    // Honest again: every payout settles to the gateway's own number, none twice.
    proxy.hostile.store(false, Ordering::Relaxed);
    desk.journal().reconcile_all(true).await.unwrap();
    let mut refused_by_word = 0;
    for (no, _) in &payouts {
        let at_gateway = |f: &common::Fixture| {
            f.running.sandbox.with_state(|s| {
                s.orders
                    .iter()
                    .filter(|o| &o.mer_order_no == no)
                    .map(|o| o.trade_no.clone())
                    .collect::<Vec<_>>()
            })
        };
        let Some(e) = desk.journal().entry_by_number(no).unwrap() else {
            // Refused before the journal (held as a repeat): nothing was sent.
            assert!(
                at_gateway(&f).is_empty(),
                "{no} sent without a journal entry"
            );
            continue;
        };
        let at_gateway = at_gateway(&f);
        assert!(
            at_gateway.len() <= 1,
            "{no} paid {} times",
            at_gateway.len()
        );
        match (e.status, at_gateway.first()) {
            (Status::Accepted, Some(t)) => {
                assert_eq!(
                    e.trade_no.as_deref(),
                    Some(t.as_str()),
                    "{no}: the gateway's own number"
                );
            }
            (Status::Accepted, None) => panic!("{no} accepted, but the gateway has no such order"),
            // A refusal is the gateway's word (the interface's reading), believed when it
            // names no trade number; its number is never used again, so it cannot pay twice.
            (Status::Rejected, _) => refused_by_word += 1,
            (status, found) => panic!(
                "{no} still {status:?} after an honest reconcile (at the gateway: {found:?})"
            ),
        }
    }
    println!(
        "fuzz hostile answers: {cases} cases ({} answers rewritten, {} payouts, {refused_by_word} taken as refused), failures: {}",
        proxy.rewritten.load(Ordering::Relaxed),
        payouts.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
    server.abort();
}
