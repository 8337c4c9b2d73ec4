//! The sandbox's limits and error shapes: a body over the size limit gets the E1014
//! envelope (not axum's plain 413 or a reset), whatever is not a JSON object gets
//! E1005, amounts no arithmetic can hold get E1007 (gateway) or a 400 (simulation
//! API); every simulation API error, axum's own rejections included, is
//! `{"error": "..."}` under a 4xx; counts and durations are bounded.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::*;
use paydesk_sandbox::{Fault, MAX_BODY_BYTES, MAX_DRAIN_BYTES, MAX_SIM_BODY_BYTES, SeedSpec};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

/// Sends anything; returns (status, content type, body as JSON or as a string).
async fn send(
    r: &paydesk_sandbox::Running,
    method: &str,
    path: &str,
    content_type: Option<&str>,
    body: Vec<u8>,
) -> (u16, String, Value) {
    let url = format!("http://{}{}", r.addr, path);
    let mut req = reqwest::Client::new()
        .request(method.parse().unwrap(), url)
        .timeout(Duration::from_secs(20))
        .body(body);
    if let Some(ct) = content_type {
        req = req.header("content-type", ct);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let ct = resp
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let text = resp.text().await.unwrap();
    (
        status,
        ct,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

async fn sim_json(
    r: &paydesk_sandbox::Running,
    method: &str,
    path: &str,
    body: Value,
) -> (u16, Value) {
    let (status, _, v) = send(
        r,
        method,
        path,
        Some("application/json"),
        serde_json::to_vec(&body).unwrap(),
    )
    .await;
    (status, v)
}

/// A simulation API error: 4xx and exactly `{"error": "<non-empty text>"}`.
fn assert_api_error(status: u16, v: &Value, want_status: u16, what: &str) {
    assert_eq!(status, want_status, "{what}: {v}");
    let obj = v
        .as_object()
        .unwrap_or_else(|| panic!("{what}: not JSON: {v}"));
    assert_eq!(obj.len(), 1, "{what}: {v}");
    assert!(
        !obj["error"].as_str().unwrap_or_default().is_empty(),
        "{what}: {v}"
    );
}

fn error_text(v: &Value) -> &str {
    v["error"].as_str().unwrap_or_default()
}

const PAYIN_HEADERS: &[(&str, &str)] = &[
    ("paymentType", "WECHAT"),
    ("referer", "https://shop.example/x"),
    ("authorization", "Bearer tok-demo"),
];

fn payin_body(mer_order_no: &str, amount: &str) -> Value {
    json!({"merNo": MER, "merOrderNo": mer_order_no, "currencyCode": "USD", "sourceAmount": amount,
           "returnUrl": "https://shop.example/r", "notifyUrl": "https://shop.example/n", "ipAddress": "203.0.113.7",
           "userId": "u", "email": "a@shop.example"})
}

#[tokio::test]
async fn a_body_over_the_limit_is_answered_with_e1014_not_a_reset() {
    let r = start().await;
    // 30 MiB through reqwest (Content-Length known): the whole body is read and dropped,
    // and the answer is the envelope, under HTTP 200 as every business failure.
    let body = vec![b'x'; 30 * 1024 * 1024];
    assert!(body.len() > MAX_BODY_BYTES && body.len() < MAX_DRAIN_BYTES);
    let (status, ct, v) = send(
        &r,
        "POST",
        "/submit/transferOrder",
        Some("application/json"),
        body,
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert!(ct.starts_with("application/json"), "{ct}");
    assert_eq!(v["code"], "E1014", "{v}");
    assert!(v["message"].as_str().unwrap().contains("bytes"), "{v}");

    // A JSON object just over the limit, on another operation.
    let mut big =
        serde_json::to_vec(&json!({"merNo": MER, "pad": "y".repeat(MAX_BODY_BYTES)})).unwrap();
    big.truncate(MAX_BODY_BYTES + 1);
    let (status, _, v) = send(&r, "POST", "/v2/payment", Some("application/json"), big).await;
    assert_eq!((status, v["code"].as_str()), (200, Some("E1014")), "{v}");

    // Exactly at the limit is read (and refused for what it is, not for its size).
    let mut at = b"{\"a\":\"".to_vec();
    at.resize(MAX_BODY_BYTES - 2, b'z');
    at.extend_from_slice(b"\"}");
    assert_eq!(at.len(), MAX_BODY_BYTES);
    let (status, _, v) = send(
        &r,
        "POST",
        "/v2/balance/query",
        Some("application/json"),
        at,
    )
    .await;
    assert_eq!((status, v["code"].as_str()), (200, Some("E1006")), "{v}");

    // Streamed (chunked, no Content-Length), 30 MiB over raw TCP: answered too.
    let mut tcp = tokio::net::TcpStream::connect(r.addr).await.unwrap();
    tcp.write_all(
        b"POST /v2/payout HTTP/1.1\r\nhost: sandbox\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n",
    )
    .await
    .unwrap();
    let chunk = vec![b'['; 1024 * 1024];
    for _ in 0..30 {
        tcp.write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .await
            .unwrap();
        tcp.write_all(&chunk).await.unwrap();
        tcp.write_all(b"\r\n").await.unwrap();
    }
    tcp.write_all(b"0\r\n\r\n").await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), tcp.read_to_end(&mut answer))
        .await
        .unwrap()
        .unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"E1014\""), "{answer}");

    // Declared larger than the sandbox will ever read: answered at once, unread.
    let mut tcp = tokio::net::TcpStream::connect(r.addr).await.unwrap();
    tcp.write_all(
        format!(
            "POST /v2/payment HTTP/1.1\r\nhost: sandbox\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            MAX_DRAIN_BYTES + 1
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut answer = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(10), tcp.read(&mut answer))
        .await
        .unwrap()
        .unwrap();
    let answer = String::from_utf8_lossy(&answer[..n]);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"E1014\""), "{answer}");

    // Still serving, and the connection-level limit left no state behind.
    let (status, v) = raw(
        &r,
        "/v2/payment",
        PAYIN_HEADERS,
        payin_body("AFTER-BIG", "10.00"),
    )
    .await;
    assert_eq!((status, v["code"].as_str()), (200, Some("00000")), "{v}");
}

#[tokio::test]
async fn whatever_is_not_a_json_object_gets_e1005() {
    let r = start().await;
    let deep = "[".repeat(10_000);
    let deep_obj = format!("{}1{}", "{\"a\":".repeat(5_000), "}".repeat(5_000));
    let bodies: Vec<Vec<u8>> = vec![
        vec![],
        b"   ".to_vec(),
        b"null".to_vec(),
        b"\"text\"".to_vec(),
        b"42".to_vec(),
        b"[{}]".to_vec(),
        b"{\"merNo\": 1".to_vec(),
        b"{} {}".to_vec(),
        vec![0xff, 0xfe, 0x00, 0x7b],
        deep.into_bytes(),
        deep_obj.into_bytes(),
        b"\xef\xbb\xbf{}".to_vec(),
    ];
    for path in paydesk_sandbox::Sandbox::gateway_paths() {
        for body in &bodies {
            for ct in [Some("application/json"), None] {
                let (status, _, v) = send(&r, "POST", path, ct, body.clone()).await;
                assert_eq!(status, 200, "{path}: {v}");
                assert_eq!(
                    v["code"],
                    "E1005",
                    "{path} {:?}: {v}",
                    String::from_utf8_lossy(&body[..body.len().min(20)])
                );
            }
        }
    }
}

#[tokio::test]
async fn gateway_paths_answer_an_envelope_to_any_method_and_unknown_paths_too() {
    let r = start().await;
    for path in paydesk_sandbox::Sandbox::gateway_paths() {
        for method in ["GET", "PUT", "DELETE", "PATCH"] {
            let (status, ct, v) = send(&r, method, path, None, vec![]).await;
            assert_eq!(status, 405, "{method} {path}: {v}");
            assert!(ct.starts_with("application/json"), "{ct}");
            assert_eq!(v["code"], "E1005", "{method} {path}: {v}");
        }
    }
    for path in [
        "/",
        "/v3/payment",
        "/v2/payment/extra",
        "/%5F%5Fsandbox/reset",
    ] {
        let (status, _, v) = send(&r, "POST", path, Some("application/json"), b"{}".to_vec()).await;
        assert_eq!(status, 404, "{path}: {v}");
        assert_eq!(v["code"], "404", "{path}: {v}");
        assert!(v["message"].is_string(), "{path}: {v}");
    }
}

#[tokio::test]
async fn amounts_no_arithmetic_can_hold_get_e1007() {
    let r = start().await;
    let hostile = [
        "79228162514264337593543950335",
        "79228162514264337593543950336",
        "-79228162514264337593543950335",
        "1000000000000000.01",
        "0.0000000000000000000000000001",
        "1.00000000000000000000000000000000000001",
        "10.001",
        "1e5",
        "NaN",
        "Infinity",
        "-0",
        "0",
        " 1.00",
        "1,00",
        "",
    ];
    let payout = |no: &str, amount: &str| {
        json!({"merNo": MER, "merOrderNo": no, "currencyCode": "MXN", "sourceAmount": amount, "withdrawType": "6",
        "returnUrl": "", "notifyUrl": "https://shop.example/n", "signType": "RSA256", "version": "V2.0.0", "ipAddress": "203.0.113.7",
        "cardNo": "", "clabe": "002010077777777771"})
    };
    let payout_headers = [
        ("paymentType", "PAYOUT"),
        ("referer", "https://shop.example/"),
    ];
    let top = |no: &str, amount: &str| {
        json!({"merNo": MER.to_string(), "subMerNo": "SUB-1", "merOrderNo": no, "applyOrderNo": CARD, "amount": amount,
        "currency": "USD", "remark": "", "signType": "RSA256", "version": "V2.0.0"})
    };
    let top_headers = [
        ("paymentType", "CARD"),
        ("referer", "https://shop.example/"),
        ("authorization", "Bearer tok-demo"),
    ];
    for (i, amount) in hostile.iter().enumerate() {
        let no = format!("H-{i}");
        let cases = [
            (
                "/v2/payment",
                PAYIN_HEADERS.to_vec(),
                payin_body(&no, amount),
                "sourceAmount",
            ),
            (
                "/v2/payout",
                payout_headers.to_vec(),
                payout(&no, amount),
                "sourceAmount",
            ),
            (
                "/v2/card/topUp",
                top_headers.to_vec(),
                top(&no, amount),
                "amount",
            ),
            (
                "/card/withdraw",
                vec![],
                json!({"merNo": MER, "applyOrderNo": CARD, "amount": amount, "currency": "USD"}),
                "amount",
            ),
        ];
        for (path, headers, body, field) in cases {
            let (status, v) = raw(&r, path, &headers, body).await;
            assert_eq!(status, 200, "{path} {amount:?}: {v}");
            let code = v["code"].as_str().unwrap();
            assert!(code == "E1007" || code == "E1006", "{path} {amount:?}: {v}");
            assert!(
                v["message"].as_str().unwrap().contains(field),
                "{path} {amount:?}: {v}"
            );
        }
    }
    // Product prices of V1 wallet payins are amounts too, and named.
    let browser = json!({"screenHeight": "1080", "screenWidth": "1920", "timeZoneOffset": "0",
        "userAgent": "UA", "visitorId": "v"});
    for (i, price) in hostile.iter().enumerate() {
        let v1 = |extra: Value| {
            let mut b = payin_body(&format!("PR-{i}"), "10.00");
            b["version"] = json!("V3.0.0");
            for (k, v) in extra.as_object().unwrap() {
                b[k] = v.clone();
            }
            b
        };
        for (method, body, field) in [
            (
                "APPLE_PAY",
                v1(
                    json!({"browser": browser, "products": [{"price": price, "productName": "Tea",
                "productUrl": "", "quantity": "1", "sku": "S"}]}),
                ),
                "products[0].price",
            ),
            (
                "GCASH",
                v1(
                    json!({"currencyCode": "PHP", "osType": "IOS", "terminal": "APP",
                "productInfoList": [{"sku": "S", "productName": "Tea", "price": price, "quantity": "1"}]}),
                ),
                "productInfoList[0].price",
            ),
        ] {
            let headers = [
                ("paymentType", method),
                ("referer", "https://shop.example/"),
            ];
            let (status, v) = raw(&r, "/payment", &headers, body).await;
            assert_eq!(
                (status, v["code"].as_str()),
                (200, Some("E1007")),
                "{method} {price:?}: {v}"
            );
            assert!(
                v["message"].as_str().unwrap().starts_with(field),
                "{method} {price:?}: {v}"
            );
        }
    }
    let (status, v) = sim_json(&r, "GET", "/__sandbox/ledger", json!(null)).await;
    assert_eq!((status, &v["consistent"]), (200, &json!(true)), "{v}");
    assert_eq!(r.sandbox.with_state(|s| s.orders.len()), 0);
}

#[tokio::test]
async fn the_simulation_api_refuses_amounts_it_cannot_hold() {
    let r = start().await;
    let c = client(&r);
    let trade_no = c
        .send(&paydesk_gateway::wire::V2Payment {
            common: payin("SIM-AMT", "100.00", "USD"),
        })
        .await
        .unwrap()
        .data
        .trade_no;
    let (status, _) = sim(&r, &format!("/__sandbox/orders/{trade_no}/pay"), json!({})).await;
    assert_eq!(status, 200);
    for action in ["refund", "chargeback"] {
        for amount in [
            json!("79228162514264337593543950335"),
            json!("79228162514264337593543950336"),
            json!("0.0000000000000000000000000001"),
            json!("0.001"),
            json!("1e3"),
            json!("-1"),
            json!("0"),
            json!("NaN"),
            json!("100.01"),
            json!(10.5),
            json!(["1"]),
            json!("9".repeat(100_000)),
        ] {
            let (status, v) = sim_json(
                &r,
                "POST",
                &format!("/__sandbox/orders/{trade_no}/{action}"),
                json!({"amount": amount}),
            )
            .await;
            assert_api_error(status, &v, 400, &format!("{action} {amount}"));
            assert!(error_text(&v).starts_with("amount"), "{v}");
            assert!(error_text(&v).chars().count() <= 1001, "cut: {v}");
        }
    }
    // A valid partial refund still works; trailing zeros are not more precision.
    let (status, v) = sim_json(
        &r,
        "POST",
        &format!("/__sandbox/orders/{trade_no}/refund"),
        json!({"amount": "10.000"}),
    )
    .await;
    assert_eq!(status, 200, "{v}");

    // Merchants and cards: rates, fees and balances within bounds.
    let pk = merchant_key().public_key().to_base64();
    let merchant = |field: &str, value: Value| {
        let mut m = json!({"mer_no": 20002, "public_key": pk, "origins": ["https://m.example"], "tokens": ["t"],
            "fee_rate": "0.025", "fixed_fee": "0.30", "reserve_rate": "0.05", "payout_fee": "1.00",
            "withdraw_fee_rate": "0.01", "opening": {"USD": "1000.00"}});
        if !field.is_empty() {
            m[field] = value;
        }
        m
    };
    let (status, v) = sim_json(
        &r,
        "POST",
        "/__sandbox/merchants",
        merchant("", json!(null)),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    for (field, value, names) in [
        (
            "fee_rate",
            json!("79228162514264337593543950335"),
            "fee_rate",
        ),
        (
            "fee_rate",
            json!("79228162514264337593543950336"),
            "fee_rate",
        ),
        ("fee_rate", json!("1.5"), "fee_rate"),
        ("reserve_rate", json!("-0.1"), "reserve_rate"),
        (
            "withdraw_fee_rate",
            json!("0.0000000000000000000000000001"),
            "withdraw_fee_rate",
        ),
        ("fixed_fee", json!("1e20"), "fixed_fee"),
        ("payout_fee", json!("-1"), "payout_fee"),
        (
            "opening",
            json!({"USD": "79228162514264337593543950335"}),
            "opening",
        ),
        ("opening", json!({"USD": "0.001"}), "opening"),
        ("opening", json!({"usd": "1.00"}), "opening"),
        ("opening", json!({"USD": 5}), "opening"),
        ("mer_no", json!(0), "mer_no"),
        ("mer_no", json!(-1), "mer_no"),
        ("public_key", json!("AAAA"), "public_key"),
        ("origins", json!(["javascript:alert(1)"]), "origins"),
        ("tokens", json!([""]), "tokens"),
    ] {
        let (status, v) = sim_json(
            &r,
            "POST",
            "/__sandbox/merchants",
            merchant(field, value.clone()),
        )
        .await;
        assert_api_error(status, &v, 400, &format!("{field}={value}"));
        assert!(error_text(&v).starts_with(names), "{field}={value}: {v}");
    }
    let card = |opening: Value, currency: &str| {
        json!({"mer_no": MER, "apply_order_no": "CARD-X", "sub_mer_no": "S", "holder": "H", "currency": currency,
        "opening": opening, "balance": "0"})
    };
    for (opening, currency) in [
        (json!("79228162514264337593543950335"), "USD"),
        (json!("1000000000000000.01"), "USD"),
        (json!("1.001"), "USD"),
        (json!("1.5"), "JPY"),
        (json!("-5"), "USD"),
        (json!("1.00"), "XXQ"),
    ] {
        let (status, v) = sim_json(
            &r,
            "POST",
            "/__sandbox/cards",
            card(opening.clone(), currency),
        )
        .await;
        assert_api_error(status, &v, 400, &format!("card {opening} {currency}"));
    }
    let (status, v) = sim_json(&r, "POST", "/__sandbox/cards", card(json!("50.00"), "USD")).await;
    assert_eq!(status, 200, "{v}");
    let (status, v) = sim_json(&r, "GET", "/__sandbox/ledger", json!(null)).await;
    assert_eq!((status, &v["consistent"]), (200, &json!(true)), "{v}");
}

#[tokio::test]
async fn every_simulation_error_is_an_error_object() {
    let r = start().await;
    let j = Some("application/json");
    // (method, path, content type, body, status wanted)
    type Case<'a> = (&'a str, &'a str, Option<&'a str>, Vec<u8>, u16);
    let cases: Vec<Case> = vec![
        // Not JSON, not an object, cut short, too deep.
        ("POST", "/__sandbox/seed", j, b"not json".to_vec(), 400),
        ("POST", "/__sandbox/seed", j, b"[1]".to_vec(), 400),
        ("POST", "/__sandbox/seed", j, b"{\"count\": 1".to_vec(), 400),
        (
            "POST",
            "/__sandbox/seed",
            j,
            "[".repeat(10_000).into_bytes(),
            400,
        ),
        ("POST", "/__sandbox/faults", j, b"{} []".to_vec(), 400),
        (
            "POST",
            "/__sandbox/orders/T1/refund",
            j,
            b"\"x\"".to_vec(),
            400,
        ),
        // Wrong or missing content type on a body.
        (
            "POST",
            "/__sandbox/seed",
            Some("text/plain"),
            b"{\"count\": 1}".to_vec(),
            415,
        ),
        ("POST", "/__sandbox/merchants", None, b"{}".to_vec(), 415),
        (
            "POST",
            "/__sandbox/orders/T1/pay",
            Some("application/x-www-form-urlencoded"),
            b"amount=1".to_vec(),
            415,
        ),
        // Missing body, missing fields, wrong types.
        ("POST", "/__sandbox/seed", j, vec![], 400),
        ("POST", "/__sandbox/merchants", j, b"{}".to_vec(), 400),
        (
            "POST",
            "/__sandbox/cards",
            j,
            b"{\"mer_no\": \"x\"}".to_vec(),
            400,
        ),
        (
            "POST",
            "/__sandbox/behaviour",
            j,
            b"{\"acceptReusedOrderNo\": \"yes\"}".to_vec(),
            400,
        ),
        ("POST", "/__sandbox/faults", j, b"{}".to_vec(), 400),
        // Too large.
        (
            "POST",
            "/__sandbox/merchants",
            j,
            vec![b' '; MAX_SIM_BODY_BYTES + 1],
            413,
        ),
        // Path parameters that do not parse.
        ("GET", "/__sandbox/reviews/abc/files/0", None, vec![], 400),
        ("GET", "/__sandbox/reviews/1/files/-1", None, vec![], 400),
        (
            "POST",
            "/__sandbox/reviews/99999999999999999999999/approve",
            None,
            vec![],
            400,
        ),
        ("GET", "/__sandbox/orders/%FF%FE", None, vec![], 400),
        // Unknown paths under /__sandbox/, in any spelling.
        ("GET", "/__sandbox/", None, vec![], 404),
        ("GET", "/__sandbox", None, vec![], 404),
        ("POST", "/__sandbox/nope", j, b"{}".to_vec(), 404),
        ("GET", "/__sandbox/orders/T1/pay/extra", None, vec![], 404),
        ("GET", "/__SANDBOX/ledger", None, vec![], 404),
        ("GET", "//__sandbox/ledger", None, vec![], 404),
        // Known paths, wrong methods.
        ("GET", "/__sandbox/seed", None, vec![], 405),
        ("DELETE", "/__sandbox/ledger", None, vec![], 405),
        ("PUT", "/__sandbox/faults", j, b"{}".to_vec(), 405),
        ("GET", "/__sandbox/orders/T1/pay", None, vec![], 405),
        ("PATCH", "/__sandbox/cards", j, b"{}".to_vec(), 405),
        // Business refusals.
        ("GET", "/__sandbox/orders/NOPE", None, vec![], 404),
        ("POST", "/__sandbox/orders/NOPE/pay", None, vec![], 404),
        ("POST", "/__sandbox/orders/NOPE/explode", None, vec![], 404),
        ("POST", "/__sandbox/reviews/1/maybe", None, vec![], 404),
        ("GET", "/__sandbox/reviews/1/files/0", None, vec![], 404),
    ];
    for (method, path, ct, body, want) in cases {
        let (status, rct, v) = send(&r, method, path, ct, body).await;
        assert!(
            rct.starts_with("application/json"),
            "{method} {path}: {rct}"
        );
        assert_api_error(status, &v, want, &format!("{method} {path}"));
    }
    // The wrong-method answer says which methods the call takes.
    let (_, _, v) = send(&r, "GET", "/__sandbox/seed", None, vec![]).await;
    assert!(error_text(&v).contains("POST"), "{v}");
}

#[tokio::test]
async fn counts_and_durations_are_bounded() {
    let r = start().await;
    let max = paydesk_sandbox::MAX_SEED_COUNT;
    for count in [
        json!(0),
        json!(-1),
        json!(max + 1),
        json!(1.5),
        json!("5"),
        json!(u64::MAX),
        json!(1e300),
        json!(null),
    ] {
        let (status, v) = sim_json(&r, "POST", "/__sandbox/seed", json!({"count": count})).await;
        assert_api_error(status, &v, 400, &format!("count {count}"));
        assert_eq!(error_text(&v), format!("count: must be 1 to {max}"));
    }
    for (field, value) in [
        ("from", "0001-01-01 00:00:00"),
        ("from", "-262143-01-01 00:00:00"),
        ("to", "+262143-12-31 23:59:59"),
        ("to", "10000-01-01 00:00:00"),
        ("to", "2026-02-30 00:00:00"),
        ("from", "yesterday"),
        ("notifyUrl", "ftp://x"),
    ] {
        let (status, v) = sim_json(
            &r,
            "POST",
            "/__sandbox/seed",
            json!({"count": 1, field: value}),
        )
        .await;
        assert_api_error(status, &v, 400, &format!("{field}={value}"));
        assert!(error_text(&v).starts_with(field), "{v}");
    }
    let (status, v) = sim_json(
        &r,
        "POST",
        "/__sandbox/seed",
        json!({"count": 1, "from": "2026-01-02 00:00:00", "to": "2026-01-01 00:00:00"}),
    )
    .await;
    assert_api_error(status, &v, 400, "from after to");
    let (status, v) = sim_json(
        &r,
        "POST",
        "/__sandbox/seed",
        json!({"count": 1, "merNo": 999}),
    )
    .await;
    assert_api_error(status, &v, 404, "unknown merchant");
    let (status, v) = sim_json(
        &r,
        "POST",
        "/__sandbox/seed",
        json!({"count": 3, "from": "1970-01-01 00:00:00", "to": "9999-12-31 23:59:59"}),
    )
    .await;
    assert_eq!((status, &v["added"]), (200, &json!(3)), "{v}");
    // The bound itself is taken (100,000 orders seed in about a second).
    let (status, v) = sim_json(&r, "POST", "/__sandbox/seed", json!({"count": max})).await;
    assert_eq!((status, &v["added"]), (200, &json!(max)), "{v}");
    // The Rust API does not bound dates: the ends of chrono's range do not panic.
    for (from, to) in [
        (
            Some("-262143-01-01 00:00:00"),
            Some("-262143-01-01 00:00:00"),
        ),
        (None, Some("-262143-01-01 00:00:00")),
        (
            Some("+262142-12-31 23:59:59"),
            Some("+262142-12-31 23:59:59"),
        ),
        (Some("+262142-12-31 23:59:59"), None),
    ] {
        r.sandbox.seed(&SeedSpec {
            from: from.map(str::to_string),
            to: to.map(str::to_string),
            ..SeedSpec::new(5)
        });
    }

    let fmax = paydesk_sandbox::MAX_FAULT_MS;
    for (field, value, rule) in [
        (
            "latencyMs",
            json!(fmax + 1),
            "latencyMs: must be an integer from 0 to 120000",
        ),
        (
            "hangMs",
            json!(u64::MAX),
            "hangMs: must be an integer from 0 to 120000",
        ),
        (
            "hangMs",
            json!(-1),
            "hangMs: must be an integer from 0 to 120000",
        ),
        ("latencyMs", json!("5"), "latencyMs: must be an integer"),
        (
            "errorRate",
            json!(1.0001),
            "errorRate: must be a number from 0 to 1",
        ),
        (
            "dropRate",
            json!(-0.5),
            "dropRate: must be a number from 0 to 1",
        ),
        (
            "hangRate",
            json!("NaN"),
            "hangRate: must be a number from 0 to 1",
        ),
        (
            "malformedRate",
            json!(1e308),
            "malformedRate: must be a number from 0 to 1",
        ),
        (
            "blankTradeNoRate",
            json!(null),
            "blankTradeNoRate: must be a number from 0 to 1",
        ),
        ("latency", json!(5), "latency: not a fault setting"),
        (
            "route",
            json!("/v2/nope"),
            "route: must be * or one of the gateway paths",
        ),
        ("route", json!(5), "route: must be *"),
        ("seed", json!(-1), "seed"),
    ] {
        let mut body = json!({"route": "*"});
        body[field] = value.clone();
        let (status, v) = sim_json(&r, "POST", "/__sandbox/faults", body).await;
        assert_api_error(status, &v, 400, &format!("{field}={value}"));
        assert!(error_text(&v).starts_with(rule), "{field}={value}: {v}");
    }
    let (status, v) = sim_json(
        &r,
        "POST",
        "/__sandbox/faults",
        json!({"route": "/v2/payout", "latencyMs": fmax, "hangMs": fmax, "errorRate": 0, "hangRate": 1.0}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    let (status, v) = sim_json(&r, "DELETE", "/__sandbox/faults", json!(null)).await;
    assert_eq!(status, 200, "{v}");
    // NaN cannot travel in JSON, but the Rust API's check refuses it too.
    let nan = Fault {
        error_rate: f64::NAN,
        ..Fault::default()
    };
    assert_eq!(
        nan.check().unwrap_err(),
        "errorRate: must be a number from 0 to 1"
    );

    let lmax = paydesk_sandbox::MAX_LIST_LAG_MS;
    for (body, rule) in [
        (
            json!({"listLagMs": lmax + 1}),
            "listLagMs: must be an integer from 0 to 3600000",
        ),
        (json!({"listLagMs": -5}), "listLagMs: must be an integer"),
        (json!({"listLagMs": "1"}), "listLagMs: must be an integer"),
        (
            json!({"acceptReusedOrderNo": 1}),
            "acceptReusedOrderNo: must be true or false",
        ),
        (json!({"lag": 1}), "lag: not a behaviour setting"),
    ] {
        let (status, v) = sim_json(&r, "POST", "/__sandbox/behaviour", body.clone()).await;
        assert_api_error(status, &v, 400, &body.to_string());
        assert!(error_text(&v).starts_with(rule), "{body}: {v}");
    }
    let (status, v) = sim_json(
        &r,
        "POST",
        "/__sandbox/behaviour",
        json!({"listLagMs": lmax}),
    )
    .await;
    assert_eq!((status, &v["listLagMs"]), (200, &json!(lmax)), "{v}");
    let (status, v) = sim_json(&r, "GET", "/__sandbox/ledger", json!(null)).await;
    assert_eq!((status, &v["consistent"]), (200, &json!(true)), "{v}");
}
