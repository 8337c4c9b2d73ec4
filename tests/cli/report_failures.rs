//! `paydesk report failures` (issue 36): on a synced sandbox, the JSON's success rate,
//! counts and amounts per currency, and its failed and closed orders by reason and
//! message, equal what this test adds up itself from the cache's rows; the table says
//! the same in words; a bad day is refused naming its option.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use paydesk_sandbox::SeedSpec;
use rust_decimal::Decimal;
use serde_json::Value;

use crate::common;
use common::*;

const DAY: i64 = 86_400_000;

/// Per class of the sandbox's states (5..=8 paid, 3 failed, 4 closed, 1..=2 pending).
fn class(state: i64) -> &'static str {
    match state {
        5..=8 => "succeeded",
        3 => "failed",
        4 => "closed",
        1 | 2 => "pending",
        _ => "unknown",
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_failure_report_adds_up_to_the_cached_orders() {
    let (mut env, running, _key) = setup().await;
    let today = chrono::Utc::now().date_naive();
    let first = today - chrono::Duration::days(20);
    running.sandbox.seed(&SeedSpec {
        mer_no: Some(10001),
        from: Some(format!("{first} 00:00:00")),
        ..SeedSpec::new(300)
    });
    env.ok(&["orders", "sync", "--days", "30"]);
    let from = today - chrono::Duration::days(9);
    let (from_s, to_s) = (from.to_string(), today.to_string());
    let json: Value = serde_json::from_str(&env.ok(&[
        "--json",
        "report",
        "failures",
        "--from",
        &from_s,
        "--to",
        &to_s,
        "--tz",
        "UTC",
        "--offline",
    ]))
    .unwrap();

    // The test's own sums, from the cache's rows.
    let start = from
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_utc()
        .timestamp_millis();
    let end = start + 10 * DAY;
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT state, currency, source_amount, refusal_pay_reason, message FROM orders \
             WHERE created_at >= ?1 AND created_at < ?2",
        )
        .unwrap();
    let rows: Vec<(i64, String, String, String, String)> = stmt
        .query_map([start, end], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(rows.len() > 80, "{} orders in the period", rows.len());
    let mut classes: BTreeMap<&str, i64> = BTreeMap::new();
    let mut not_paid: BTreeMap<String, Decimal> = BTreeMap::new();
    let mut reasons: BTreeMap<(String, String), (i64, BTreeMap<String, Decimal>)> = BTreeMap::new();
    for (state, currency, amount, reason, message) in &rows {
        let c = class(*state);
        *classes.entry(c).or_default() += 1;
        if matches!(c, "failed" | "closed") {
            let a: Decimal = amount.parse().unwrap();
            *not_paid.entry(currency.clone()).or_default() += a;
            let e = reasons
                .entry((reason.clone(), message.clone()))
                .or_default();
            e.0 += 1;
            *e.1.entry(currency.clone()).or_default() += a;
        }
    }
    let n = |c: &str| classes.get(c).copied().unwrap_or(0);
    let all = &json["current"]["all"];
    for c in ["succeeded", "failed", "closed", "pending", "unknown"] {
        assert_eq!(all[c]["count"].as_i64(), Some(n(c)), "{c}");
    }
    let ended = n("succeeded") + n("failed") + n("closed");
    let rate = (Decimal::from(n("succeeded") * 100) / Decimal::from(ended))
        .round_dp_with_strategy(1, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
    let rate = format!("{rate:.1}");
    assert_eq!(all["rate"].as_str(), Some(rate.as_str()));
    let got: BTreeMap<String, Decimal> = all["notPaid"]["amounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["currency"].as_str().unwrap().to_string(),
                a["amount"].as_str().unwrap().parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, not_paid, "not paid, per currency");
    let lines = json["current"]["reasons"].as_array().unwrap();
    assert_eq!(lines.len(), reasons.len());
    for l in lines {
        // "Not given" is null, never a text made up.
        let key = (
            l["reason"].as_str().unwrap_or("").to_string(),
            l["message"].as_str().unwrap_or("").to_string(),
        );
        let (count, by) = &reasons[&key];
        assert_eq!(l["orders"]["count"].as_i64(), Some(*count), "{key:?}");
        let got: BTreeMap<String, Decimal> = l["orders"]["amounts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["currency"].as_str().unwrap().to_string(),
                    a["amount"].as_str().unwrap().parse().unwrap(),
                )
            })
            .collect();
        assert_eq!(&got, by, "{key:?}");
    }
    assert!(reasons.contains_key(&("insufficient funds".to_string(), String::new())));
    assert_eq!(json["current"]["byDay"].as_array().unwrap().len(), 10);
    assert_eq!(
        json["previous"]["lastDay"],
        (from - chrono::Duration::days(1)).to_string()
    );

    // The table says the same (read again from the gateway this time).
    let text = env.ok(&[
        "report", "failures", "--from", &from_s, "--to", &to_s, "--tz", "UTC",
    ]);
    assert!(
        text.contains(&format!("All orders: success rate {rate}%")),
        "{text}"
    );
    assert!(text.contains("success rate = succeeded / (succeeded + failed + closed)"));
    let count = reasons[&("insufficient funds".to_string(), String::new())].0;
    assert!(
        text.lines().any(|l| l.trim_start().starts_with(&format!(
            "reason: insufficient funds | message: not given  {count:>6}"
        ))),
        "{text}"
    );

    // A day that is no day is refused, naming the option, before a desk is opened.
    let out = env.run(&["report", "failures", "--from", "2026-13-01"], "");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--from"));
}
