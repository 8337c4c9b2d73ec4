//! The review desk from a terminal (issue 36): `review queue` lists a SEPA payin made
//! here as needing documents, `review match` matches files by the order number in their
//! names, and `review submit` prints each file sent with its size and SHA-256, computed
//! here from the bytes written.

#![allow(clippy::unwrap_used)]

use serde_json::Value;
use sha2::Digest as _;

use crate::common;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_queue_the_match_and_the_evidence_of_a_review_from_the_cli() {
    let (mut env, running, _) = setup().await;
    let made: Value = serde_json::from_str(&env.ok(&[
        "--json",
        "payin",
        "create",
        "--method",
        "SEPA",
        "--amount",
        "30.00",
        "--currency",
        "EUR",
        "--name",
        "Ana Lima",
        "--email",
        "ana.lima@example.com",
        "--mer-order-no",
        "CLI-RV-1",
    ]))
    .unwrap();
    let trade_no = made["entry"]["tradeNo"].as_str().unwrap().to_string();

    let queue: Value = serde_json::from_str(&env.ok(&["--json", "review", "queue"])).unwrap();
    let row = queue
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["tradeNo"] == trade_no.as_str())
        .unwrap();
    assert_eq!(row["status"], "needsDocuments");
    assert_eq!(row["merOrderNo"], "CLI-RV-1");

    let dir = tempfile::tempdir().unwrap();
    let by_number = dir.path().join("cli-rv-1 passport.png");
    let bytes = [b"\x89PNG\r\n\x1a\n".as_slice(), &[3u8; 100]].concat();
    std::fs::write(&by_number, &bytes).unwrap();
    let stray = dir.path().join("scan.png");
    std::fs::write(&stray, &bytes).unwrap();
    let paths = [by_number.display().to_string(), stray.display().to_string()];
    let out = env.run(&["review", "match", &paths[0], &paths[1]], "");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "one file is unmatched: {text}");
    assert!(text.contains(&format!("{trade_no} ")), "{text}");
    assert!(
        text.contains(&format!("unmatched              {}", paths[1])),
        "{text}"
    );

    let sent = env.ok(&[
        "review",
        "submit",
        "--trade-no",
        &trade_no,
        "--info",
        "1=Invoice 9",
        "--file",
        &format!("21={}", paths[0]),
    ]);
    let sha = hex::encode(sha2::Sha256::digest(&bytes));
    assert!(
        sent.contains(&format!(
            "sent cli-rv-1 passport.png (image/png, code 21): {} bytes, sha256 {sha}",
            bytes.len()
        )),
        "{sent}"
    );
    let at_gateway = running
        .sandbox
        .with_state(|s| s.reviews[0].files[0].sha256.clone());
    assert_eq!(at_gateway, sha);
    let queue: Value = serde_json::from_str(&env.ok(&["--json", "review", "queue"])).unwrap();
    let row = queue
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["tradeNo"] == trade_no.as_str())
        .unwrap();
    assert_eq!(row["status"], "submitted");
}
