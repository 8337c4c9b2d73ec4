//! `paydesk sandbox` as a user runs it: it prints its address and the demo merchant,
//! answers a signed request from the key it wrote, and keeps state in `--db`.

#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use paydesk_gateway::{PrivateKey, SignSettings, sign_body};
use serde_json::{Value, json};

use crate::common::paydesk_bin;

#[test]
fn serves_the_demo_merchant_on_loopback() {
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("keys");
    let mut child = Command::new(paydesk_bin())
        .args([
            "sandbox",
            "--port",
            "0",
            "--seed-orders",
            "100",
            "--keys-dir",
            keys.to_str().unwrap(),
        ])
        .arg("--db")
        .arg(dir.path().join("sb.db"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let url = first.rsplit(' ').next().unwrap().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{first}");
    let second = lines.next().unwrap().unwrap();
    assert!(second.contains("merNo 10001"), "{second}");

    let key =
        PrivateKey::from_text(&std::fs::read_to_string(keys.join("private_key.pem")).unwrap())
            .unwrap();
    let mut body = json!({"merNo": 10001, "merOrderNos": [], "tradeNos": [], "pageNum": 1, "pageSize": 10, "version": "V2.0.0",
        "dateLimit": {"from": "2000-01-01 00:00:00", "to": "2100-01-01 00:00:00"}}).as_object().unwrap().clone();
    let sign = sign_body(&body, &SignSettings::default(), &key)
        .unwrap()
        .sign;
    body.insert("sign".into(), Value::String(sign));
    let out = Command::new("curl")
        .args([
            "-s",
            "-X",
            "POST",
            "-H",
            "content-type: application/json",
            "--data",
            &Value::Object(body).to_string(),
        ])
        .arg(format!("{url}v2/order/queryOrderList"))
        .output();
    // Stop the server by its PID whatever happened.
    let _ = child.kill();
    let _ = child.wait();
    let out = out.unwrap();
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["code"], "00000", "{answer}");
    assert_eq!(answer["data"]["total"], 100);
    assert!(dir.path().join("sb.db").exists());
}
