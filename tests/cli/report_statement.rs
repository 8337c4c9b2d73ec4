//! `paydesk report statement`: a scheduler's command writes the statement of a period to
//! CSV, XLSX and PDF with its header lines (filter, time zone, rows, SHA-256), and refuses bad
//! arguments naming them, before opening a desk.

#![allow(clippy::unwrap_used)]

use paydesk_sandbox::SeedSpec;
use serde_json::Value;

use crate::common;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_statement_to_csv_and_xlsx_with_its_header() {
    let (mut env, running, _key) = setup().await;
    let today = chrono::Utc::now().date_naive();
    let first = today - chrono::Duration::days(20);
    running.sandbox.seed(&SeedSpec {
        mer_no: Some(10001),
        from: Some(format!("{first} 00:00:00")),
        ..SeedSpec::new(400)
    });
    env.ok(&["orders", "sync", "--days", "30"]);
    let dir = env.home.path().to_path_buf();
    let (from, to) = (first.to_string(), today.to_string());
    let mut made = Vec::new();
    for name in ["s.csv", "s.xlsx", "s.pdf"] {
        let out = dir.join(name);
        let json: Value = serde_json::from_str(&env.ok(&[
            "--json",
            "report",
            "statement",
            "--from",
            &from,
            "--to",
            &to,
            "--tz",
            "+08:00",
            "--out",
            out.to_str().unwrap(),
        ]))
        .unwrap();
        made.push(json);
    }
    let (csv, xlsx, pdf) = (&made[0], &made[1], &made[2]);
    let rows = csv["export"]["rows"].as_u64().unwrap();
    assert!(rows > 300, "{rows} orders behind a statement of 400 seeded");
    assert_eq!(csv["export"]["rows"], xlsx["export"]["rows"]);
    assert_eq!(csv["export"]["sha256"], xlsx["export"]["sha256"]);
    assert_eq!(csv["export"]["sha256"], pdf["export"]["sha256"]);
    assert_eq!(csv["statement"]["orders"].as_u64(), Some(rows));

    let text = std::fs::read_to_string(dir.join("s.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // In a finance team's words: the period's first and true last day, the zone, the
    // orders and their digest; no field names, no JSON filter, no epoch times.
    assert_eq!(lines[0], "Statement,PayDesk statement");
    assert_eq!(lines[1], "Merchant,ext (merNo 10001)");
    assert_eq!(lines[2], format!("First day,{from}"));
    assert_eq!(lines[3], format!("Last day,{to}"));
    assert!(lines.contains(&"Time zone,UTC+08:00"));
    assert!(lines.contains(&"Currency,All currencies"));
    assert!(lines.contains(&format!("Orders,{rows}").as_str()));
    let sha = csv["export"]["sha256"].as_str().unwrap();
    assert_eq!(sha.len(), 64);
    assert!(lines.contains(&format!("SHA-256 of the orders,{sha}").as_str()));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Trade number,Merchant order number"))
    );
    assert!(!text.contains('{'), "no JSON in the file");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("USD,Kind not given by the gateway (in no other figure),All,"))
    );
    assert_eq!(csv["lastDay"], to.as_str());
    assert_eq!(csv["timeZone"], "UTC+08:00");
    // The XLSX is a workbook (a zip) with a sheet per currency and the orders.
    let bytes = std::fs::read(dir.join("s.xlsx")).unwrap();
    assert_eq!(&bytes[..2], b"PK");
    // The PDF: printable, with the merchant and the digest.
    let pdf_bytes = std::fs::read(dir.join("s.pdf")).unwrap();
    let body = String::from_utf8_lossy(&pdf_bytes);
    assert!(body.starts_with("%PDF-"));
    assert!(body.contains("(ext (merNo 10001))"));
    assert!(body.contains(&format!("({sha})")));

    // One currency; the same run twice gives the same rows and digest.
    let again = |env: &mut Env| -> Value {
        serde_json::from_str(&env.ok(&[
            "--json",
            "report",
            "statement",
            "--from",
            &from,
            "--to",
            &to,
            "--currency",
            "usd",
            "--out",
            dir.join("usd.csv").to_str().unwrap(),
            // A scheduler that writes the same file again says so.
            "--force",
        ]))
        .unwrap()
    };
    let (a, b) = (again(&mut env), again(&mut env));
    assert_eq!(a["export"]["sha256"], b["export"]["sha256"]);
    assert_eq!(a["statement"]["currency"], "USD");

    // Bad arguments: exit 2, the argument named.
    for (flag, value, named) in [
        ("--tz", "Mars/Olympus", "tz"),
        ("--tz", "+25:00", "tz"),
        ("--out", "s.txt", "--out"),
        ("--from", "2026-13-01", "--from"),
        ("--currency", "DOLLARS", "currency"),
    ] {
        let mut all = vec!["report", "statement"];
        for (k, v) in [
            ("--from", from.as_str()),
            ("--to", to.as_str()),
            ("--out", "x.csv"),
        ] {
            if k != flag {
                all.extend([k, v]);
            }
        }
        all.extend([flag, value]);
        let out = env.run(&all, "");
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{all:?}: {err}");
        assert!(err.contains(named), "{all:?}: {err}");
    }
    let out = env.run(
        &[
            "report",
            "statement",
            "--from",
            &to,
            "--to",
            &from,
            "--out",
            "x.csv",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
}

/// `paydesk report reconcile`: the app's Balances → Reconcile from the CLI. A payout
/// this desk sent between two snapshots, with no sync in between, explains that window
/// (dated by its journal time); by default the command reads the orders again, takes a
/// snapshot now and reconciles from the latest one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconciliation_from_the_cli() {
    let (mut env, running, _key) = setup().await;
    running.sandbox.seed(&SeedSpec {
        mer_no: Some(10001),
        ..SeedSpec::new(150)
    });
    env.ok(&["orders", "sync", "--days", "100"]);
    let snapshot = |env: &mut Env| -> Value {
        serde_json::from_str(&env.ok(&["--json", "balance", "--currency", "MXN"])).unwrap()
    };
    let a = snapshot(&mut env);
    std::thread::sleep(std::time::Duration::from_millis(5));
    env.ok(&[
        "payout",
        "clabe",
        "--amount",
        "12.34",
        "--currency",
        "MXN",
        "--clabe",
        "002010077777777771",
    ]);
    std::thread::sleep(std::time::Duration::from_millis(5));
    let b = snapshot(&mut env);
    // The sync that lists the payout (and its fee) comes after b.
    env.ok(&["orders", "sync", "--days", "2"]);
    let at = |v: &Value| v[0]["snapshot"]["takenAt"].as_i64().unwrap().to_string();
    let dec = |v: &Value| {
        v.as_str()
            .unwrap()
            .parse::<rust_decimal::Decimal>()
            .unwrap()
    };
    let (from, to) = (at(&a), at(&b));
    let r: Value = serde_json::from_str(&env.ok(&[
        "--json",
        "report",
        "reconcile",
        "--currency",
        "mxn",
        "--from",
        &from,
        "--to",
        &to,
        "--offline",
    ]))
    .unwrap();
    assert_eq!(r["from"]["takenAt"].as_i64().unwrap().to_string(), from);
    assert_eq!(r["to"]["takenAt"].as_i64().unwrap().to_string(), to);
    assert!(dec(&r["observed"]) < rust_decimal::Decimal::ZERO, "{r}");
    assert_eq!(dec(&r["difference"]), rust_decimal::Decimal::ZERO, "{r}");
    // From the latest snapshot to now: nothing moved, nothing unexplained.
    let text = env.ok(&["report", "reconcile", "--currency", "MXN"]);
    assert!(
        text.contains("difference 0: every movement is explained"),
        "{text}"
    );
    assert!(text.contains("Payouts"), "{text}");
    // The profile's business zone: the default --tz of both reports.
    let set: Value = serde_json::from_str(&env.ok(&[
        "--json",
        "report",
        "settings",
        "--zone",
        "America/New_York",
        "--horizon-days",
        "90",
    ]))
    .unwrap();
    assert_eq!(set["businessZone"], "America/New_York");
    assert_eq!(set["changeHorizonDays"], 90);
    let out = env.home.path().join("ny.csv");
    let s: Value = serde_json::from_str(&env.ok(&[
        "--json",
        "report",
        "statement",
        "--from",
        "2026-11-01",
        "--to",
        "2026-11-01",
        "--offline",
        "--out",
        out.to_str().unwrap(),
    ]))
    .unwrap();
    assert_eq!(s["timeZone"], "America/New_York");
    // The day New York leaves summer time: 04:00 UTC to 05:00 UTC the next day.
    assert_eq!(
        s["statement"]["period"]["to"].as_i64().unwrap()
            - s["statement"]["period"]["from"].as_i64().unwrap(),
        25 * 3_600_000
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains("Time zone,America/New_York (UTC-04:00)"),
        "{text}"
    );
    assert!(text.contains("Last day,2026-11-01"));
    // Bad arguments name theirs, exit 2.
    for (args, named) in [
        (
            vec!["report", "settings", "--zone", "Mars/Olympus"],
            "businessZone",
        ),
        (
            vec!["report", "settings", "--horizon-days", "0"],
            "changeHorizonDays",
        ),
        (
            vec![
                "report",
                "reconcile",
                "--currency",
                "MXN",
                "--from",
                "yesterday",
            ],
            "--from",
        ),
        (
            vec!["report", "reconcile", "--currency", "DOLLARS"],
            "currency",
        ),
        (
            vec![
                "report",
                "reconcile",
                "--currency",
                "MXN",
                "--tz",
                "Mars/Olympus",
            ],
            "tz",
        ),
    ] {
        let out = env.run(&args, "");
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(named), "{args:?}: {err}");
    }
}
