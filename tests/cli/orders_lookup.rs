//! `paydesk orders lookup` as an operator runs it: numbers on stdin and in a file, the
//! table, `--format csv`, `--offline`; judged by the orders this test made at the sandbox.

#![allow(clippy::unwrap_used)]

use std::collections::HashMap;

use paydesk_sandbox::SeedSpec;

use crate::common;
use common::*;

fn orders_at(running: &paydesk_sandbox::Running) -> Vec<(String, String)> {
    running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .map(|o| (o.trade_no.clone(), o.mer_order_no.clone()))
            .collect()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lookup_prints_found_not_found_and_csv_from_stdin_and_a_file() {
    let (mut env, running, _key) = setup().await;
    running.sandbox.seed(&SeedSpec {
        mer_no: Some(10001),
        ..SeedSpec::new(10)
    });
    env.ok(&["orders", "sync", "--days", "400"]);
    let cached = orders_at(&running);
    running.sandbox.seed(&SeedSpec {
        mer_no: Some(10001),
        seed: 9,
        ..SeedSpec::new(10)
    });
    let later: Vec<(String, String)> = orders_at(&running)
        .into_iter()
        .filter(|o| !cached.contains(o))
        .collect();
    assert_eq!(later.len(), 10);

    // 3 cached (by trade number), 4 only at the gateway (by merchant order number),
    // 2 unknown, a repeat, a blank line and a line that is no number.
    let mut input = String::new();
    let mut expect: HashMap<String, &str> = HashMap::new();
    for (t, _) in cached.iter().take(3) {
        input.push_str(&format!("{t}\n"));
        expect.insert(t.clone(), "in cache");
    }
    input.push('\n');
    for (_, m) in later.iter().take(4) {
        input.push_str(&format!(" {m} \n"));
        expect.insert(m.clone(), "at the gateway");
    }
    for u in ["NOPE-1", "NOPE-2"] {
        input.push_str(&format!("{u}\n"));
        expect.insert(u.into(), "not found");
    }
    input.push_str(&format!("{}\nbad number\n", cached[0].0));

    let out = env.run(&["orders", "lookup", "--file", "-"], &input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for (number, found) in &expect {
        let line = text
            .lines()
            .find(|l| l.starts_with(number.as_str()))
            .unwrap_or_else(|| panic!("{number} not in:\n{text}"));
        assert!(line.contains(found), "{number}: {line}");
    }
    assert!(
        text.contains("9 numbers: 3 in cache, 4 at the gateway, 2 not found"),
        "{text}"
    );
    assert!(text.contains("line 12: \"bad number\""), "{text}");
    assert!(
        text.contains("a space or a character that is not printable ASCII"),
        "{text}"
    );

    // The same from a file, as CSV.
    let file = env.home.path().join("numbers.txt");
    std::fs::write(&file, &input).unwrap();
    let csv_out = env.ok(&[
        "orders",
        "lookup",
        "--file",
        file.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    let mut rd = csv::Reader::from_reader(csv_out.as_bytes());
    let headers = rd.headers().unwrap().clone();
    assert_eq!(&headers[0], "Number");
    assert_eq!(&headers[2], "Found");
    let rows: Vec<csv::StringRecord> = rd.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), expect.len());
    for r in &rows {
        assert_eq!(&r[2], expect[&r[0]], "{r:?}");
        if &r[2] == "not found" {
            assert!(
                r[3].is_empty() && r[7].is_empty(),
                "nothing invented: {r:?}"
            );
        } else {
            assert!(
                !r[3].is_empty() && !r[7].is_empty() && !r[8].is_empty(),
                "{r:?}"
            );
        }
    }

    // Offline: the gateway is not asked, and what the cache lacks is not called absent.
    running.sandbox.reset_traffic();
    let off = env.run(&["orders", "lookup", "--file", "-", "--offline"], &input);
    assert!(off.status.success());
    let off = String::from_utf8(off.stdout).unwrap();
    assert!(
        off.contains("3 in cache, 0 at the gateway, 0 not found, 6 not asked"),
        "{off}"
    );
    assert!(off.contains("offline: the gateway was not asked"), "{off}");
    assert_eq!(running.sandbox.traffic().requests, 0);
}
