//! Every check a real gateway makes fails with its own documented code, and bad
//! requests of every kind get an error envelope without bringing the server down.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use serde_json::{Value, json};

fn payin_body(mer_order_no: &str) -> Value {
    json!({"merNo": MER, "merOrderNo": mer_order_no, "currencyCode": "CNY", "sourceAmount": "10.00",
           "returnUrl": "https://shop.example/r", "notifyUrl": "https://shop.example/n", "ipAddress": "203.0.113.7",
           "userId": "u", "email": "a@shop.example"})
}

fn with(mut v: Value, key: &str, val: Value) -> Value {
    v[key] = val;
    v
}

fn without(mut v: Value, key: &str) -> Value {
    v.as_object_mut().unwrap().remove(key);
    v
}

const PAYIN_HEADERS: &[(&str, &str)] = &[
    ("paymentType", "WECHAT"),
    ("referer", "https://shop.example/x"),
    ("authorization", "Bearer tok-demo"),
];

async fn code_of(
    r: &paydesk_sandbox::Running,
    path: &str,
    headers: &[(&str, &str)],
    body: Value,
) -> (String, String) {
    let (status, v) = raw(r, path, headers, body).await;
    assert_eq!(status, 200, "{v}");
    (
        v["code"].as_str().unwrap().to_string(),
        v["message"].as_str().unwrap_or_default().to_string(),
    )
}

#[tokio::test]
async fn each_check_has_its_code() {
    let r = start().await;
    let p = "/v2/payment";

    // E1001: a signature that does not verify (body changed after signing).
    let mut signed = payin_body("S-1").as_object().unwrap().clone();
    let sig = paydesk_gateway::sign_body(&signed, &Default::default(), &merchant_key())
        .unwrap()
        .sign;
    signed.insert("sign".into(), json!(sig));
    signed.insert("sourceAmount".into(), json!("99.00"));
    assert_eq!(
        code_of(&r, p, PAYIN_HEADERS, Value::Object(signed)).await.0,
        "E1001"
    );
    // ... and the `sing` variant of the V1 order query is checked too.
    let q = json!({"merNo": MER, "merOrderNo": "", "version": "V3.0.0", "tradeNo": "T1", "queryType": "refund", "refundNo": "", "sing": "AAAA"});
    assert_eq!(code_of(&r, "/order/query", &[], q).await.0, "E1001");

    assert_eq!(
        code_of(
            &r,
            p,
            PAYIN_HEADERS,
            with(payin_body("S-2"), "merNo", json!(424242))
        )
        .await
        .0,
        "E1002"
    );
    let wrong_origin = [
        ("paymentType", "WECHAT"),
        ("referer", "https://evil.example/"),
        ("authorization", "Bearer tok-demo"),
    ];
    assert_eq!(
        code_of(&r, p, &wrong_origin, payin_body("S-3")).await.0,
        "E1003"
    );
    let no_token = [
        ("paymentType", "WECHAT"),
        ("referer", "https://shop.example/"),
    ];
    assert_eq!(
        code_of(&r, p, &no_token, payin_body("S-4")).await.0,
        "E1004"
    );
    let bad_token = [
        ("paymentType", "WECHAT"),
        ("referer", "https://shop.example/"),
        ("authorization", "Bearer nope"),
    ];
    assert_eq!(
        code_of(&r, p, &bad_token, payin_body("S-4")).await.0,
        "E1004"
    );

    let (code, msg) = code_of(
        &r,
        p,
        PAYIN_HEADERS,
        without(payin_body("S-5"), "notifyUrl"),
    )
    .await;
    assert_eq!(code, "E1006");
    assert!(msg.contains("notifyUrl"), "{msg}");

    for (field, value) in [
        ("sourceAmount", json!("10.001")),
        ("sourceAmount", json!("-5.00")),
        ("currencyCode", json!("XXQ")),
        ("email", json!("not-mail")),
        ("ipAddress", json!("999.1.1.1")),
        ("notifyUrl", json!("ftp://x")),
        ("sourceAmount", json!(10.5)),
    ] {
        let (code, msg) = code_of(
            &r,
            p,
            PAYIN_HEADERS,
            with(payin_body("S-6"), field, value.clone()),
        )
        .await;
        assert_eq!(code, "E1007", "{field}={value}: {msg}");
        assert!(msg.contains(field), "{msg}");
    }
    let payout = json!({"merNo": MER, "merOrderNo": "S-7", "currencyCode": "MXN", "sourceAmount": "10.00", "withdrawType": "6",
        "returnUrl": "", "notifyUrl": "https://shop.example/n", "signType": "RSA256", "version": "V2.0.0", "ipAddress": "203.0.113.7",
        "cardNo": "", "clabe": "002010077777777772"});
    let payout_headers = [
        ("paymentType", "PAYOUT"),
        ("referer", "https://shop.example/"),
    ];
    let (code, msg) = code_of(&r, "/v2/payout", &payout_headers, payout.clone()).await;
    assert_eq!(
        (code.as_str(), msg.contains("clabe")),
        ("E1007", true),
        "{msg}"
    );
    let card_payout = json!({"merNo": MER, "merOrderNo": "S-8", "currencyCode": "USD", "sourceAmount": "10.00", "withdrawType": "1",
        "notifyUrl": "https://shop.example/n", "version": "V3.0.0", "ipAddress": "203.0.113.7", "cardNo": "4111111111111112",
        "benFirstName": "A", "benLastName": "B", "beneficiaryType": "individual"});
    let (code, msg) = code_of(&r, "/payout", &payout_headers, card_payout).await;
    assert_eq!(
        (code.as_str(), msg.contains("cardNo")),
        ("E1007", true),
        "{msg}"
    );

    let list = json!({"merNo": MER, "merOrderNos": ["A"], "tradeNos": [], "pageNum": 1, "pageSize": 50, "version": "V2.0.0"});
    assert_eq!(
        code_of(
            &r,
            "/v2/order/queryOrderList",
            &[],
            with(list.clone(), "version", json!("V4.0.0"))
        )
        .await
        .0,
        "E1008"
    );
    assert_eq!(
        code_of(
            &r,
            "/v2/order/queryOrderList",
            &[],
            with(list.clone(), "merOrderNos", json!([]))
        )
        .await
        .0,
        "E1009"
    );
    assert_eq!(
        code_of(
            &r,
            "/v2/order/queryOrderList",
            &[],
            with(list.clone(), "pageSize", json!(501))
        )
        .await
        .0,
        "E1010"
    );
    let bad_date = with(
        list.clone(),
        "dateLimit",
        json!({"from": "2026-13-01 00:00:00", "to": "2026-11-01 00:00:00"}),
    );
    let (code, msg) = code_of(&r, "/v2/order/queryOrderList", &[], bad_date).await;
    assert_eq!(
        (code.as_str(), msg.contains("dateLimit.from")),
        ("E1007", true),
        "{msg}"
    );

    assert_eq!(
        code_of(&r, p, PAYIN_HEADERS, payin_body("DUP")).await.0,
        "00000"
    );
    assert_eq!(
        code_of(&r, p, PAYIN_HEADERS, payin_body("DUP")).await.0,
        "E1011"
    );

    let rich = with(
        with(payout.clone(), "clabe", json!("002010077777777771")),
        "sourceAmount",
        json!("99999999.00"),
    );
    assert_eq!(
        code_of(&r, "/v2/payout", &payout_headers, rich).await.0,
        "E1012"
    );
    let top = json!({"merNo": MER.to_string(), "subMerNo": "SUB-1", "merOrderNo": "TU-9", "applyOrderNo": CARD, "amount": "99999999.00",
        "currency": "USD", "remark": "", "signType": "RSA256", "version": "V2.0.0"});
    let top_headers = [
        ("paymentType", "CARD"),
        ("referer", "https://shop.example/"),
        ("authorization", "Bearer tok-demo"),
    ];
    assert_eq!(
        code_of(&r, "/v2/card/topUp", &top_headers, top).await.0,
        "E1012"
    );
    let withdraw =
        json!({"merNo": MER, "applyOrderNo": CARD, "amount": "100.01", "currency": "USD"});
    assert_eq!(
        code_of(&r, "/card/withdraw", &[], withdraw).await.0,
        "E1013"
    );
    let unknown_card =
        json!({"merNo": MER, "applyOrderNo": "NOPE", "amount": "1.00", "currency": "USD"});
    assert_eq!(
        code_of(&r, "/card/withdraw", &[], unknown_card).await.0,
        "E1019"
    );

    // Review files: too large, and of a type not allowed.
    let sepa = with(payin_body("SEPA-1"), "version", json!("V3.0.0"));
    let sepa = with(
        with(
            with(sepa, "userAgent", json!("UA")),
            "billingFirstName",
            json!("A"),
        ),
        "billingLastName",
        json!("B"),
    );
    let sepa_headers = [
        ("paymentType", "SEPA"),
        ("referer", "https://shop.example/"),
    ];
    let (status, v) = raw(
        &r,
        "/payment",
        &sepa_headers,
        with(sepa, "currencyCode", json!("EUR")),
    )
    .await;
    assert_eq!(status, 200);
    let trade_no = v["data"]["tradeNo"].as_str().unwrap().to_string();
    use base64::Engine as _;
    let big = base64::engine::general_purpose::STANDARD.encode(vec![0u8; 5 * 1024 * 1024 + 1]);
    let review = |content: String, suffix: &str| {
        json!({"merNo": MER, "tradeNo": trade_no, "infoList": [],
        "fileList": [{"fileType": "21", "fileContent": content, "fileName": "f", "suffix": suffix}]})
    };
    assert_eq!(
        code_of(&r, "/submit/transferOrder", &[], review(big, ".png"))
            .await
            .0,
        "E1014"
    );
    let exe = base64::engine::general_purpose::STANDARD.encode(b"MZ\x90\x00");
    assert_eq!(
        code_of(
            &r,
            "/submit/transferOrder",
            &[],
            review(exe.clone(), ".exe")
        )
        .await
        .0,
        "E1015"
    );
    assert_eq!(
        code_of(&r, "/submit/transferOrder", &[], review(exe, ".png"))
            .await
            .0,
        "E1015",
        "content must match the suffix"
    );

    let q = json!({"version": "V4.0.0", "merNo": MER, "merOrderNo": "", "tradeNo": "NOPE", "queryType": "sales"});
    assert_eq!(code_of(&r, "/v2/order/query", &[], q).await.0, "E1016");
    let bad_method = [
        ("paymentType", "BITCOIN"),
        ("referer", "https://shop.example/"),
    ];
    assert_eq!(
        code_of(
            &r,
            "/payment",
            &bad_method,
            with(payin_body("S-9"), "version", json!("V3.0.0"))
        )
        .await
        .0,
        "E1017"
    );
}

#[tokio::test]
async fn bad_requests_get_an_error_envelope_and_the_server_lives_on() {
    let r = start().await;
    let bodies: Vec<Vec<u8>> = vec![
        b"not json at all".to_vec(),
        b"[1,2,3]".to_vec(),
        b"".to_vec(),
        b"{\"merNo\": ".to_vec(),
        json!({"merNo": "10001", "currency": "USD", "sign": "x"})
            .to_string()
            .into_bytes(),
        json!({"merNo": MER, "currency": 5, "sign": "x"})
            .to_string()
            .into_bytes(),
        json!({"merNo": MER, "currency": "x".repeat(1024 * 1024), "sign": "x"})
            .to_string()
            .into_bytes(),
        json!({"merNo": MER, "currency": "USD", "unknownField": {"deep": [1, 2]}, "sign": "x"})
            .to_string()
            .into_bytes(),
        json!({"merNo": u64::MAX, "currency": "USD"})
            .to_string()
            .into_bytes(),
    ];
    for path in [
        "/v2/balance/query",
        "/v2/payment",
        "/v2/order/queryOrderList",
        "/submit/transferOrder",
    ] {
        for body in &bodies {
            let (status, v) = post_bytes(&r, path, &[], body.clone()).await;
            assert_eq!(status, 200, "{path}: {v}");
            let code = v["code"].as_str().unwrap();
            assert!(code.starts_with('E'), "{path}: {v}");
        }
    }
    // Wrong types inside a validly signed body name the field.
    let (code, msg) = code_of(
        &r,
        "/v2/balance/query",
        &[],
        json!({"merNo": MER, "currency": 5}),
    )
    .await;
    assert_eq!(code, "E1007");
    assert!(msg.contains("currency"), "{msg}");
    let (code, _) = code_of(
        &r,
        "/v2/balance/query",
        &[],
        json!({"merNo": MER, "currency": "USD", "extra": "ignored"}),
    )
    .await;
    assert_eq!(
        code, "00000",
        "unknown fields are ignored, as a real gateway does"
    );
    let (status, _) = sim(&r, "/__sandbox/health", json!({})).await;
    assert!(status == 200 || status == 405);
}

/// An amount no arithmetic can hold (Decimal's maximum), signed and well formed
/// otherwise: answered with the E1007 envelope, and the server lives on.
#[tokio::test]
async fn an_amount_beyond_any_payment_gets_e1007_not_a_panic() {
    let r = start().await;
    let huge = "79228162514264337593543950335";
    let (code, message) = code_of(
        &r,
        "/v2/payment",
        PAYIN_HEADERS,
        with(payin_body("HUGE-1"), "sourceAmount", json!(huge)),
    )
    .await;
    assert_eq!(code, "E1007", "{message}");
    assert!(message.contains("sourceAmount"), "{message}");
    // Still answering.
    let (code, _) = code_of(&r, "/v2/payment", PAYIN_HEADERS, payin_body("HUGE-2")).await;
    assert_eq!(code, "00000");
}
