//! The client against a local mock HTTP server on loopback: every operation's exact
//! path, headers, body and signature, decoding of answers shaped as the interface
//! shows them, and every kind of malformed or lost answer.

#![allow(clippy::unwrap_used)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use paydesk_gateway::wire::*;
use paydesk_gateway::{
    ClientConfig, Credentials, GatewayClient, GatewayError, NextStep, PrivateKey, PublicKey,
    Sensitive, SignSettings, SignatureStatus, sign_body, verify_body,
};
use rust_decimal::Decimal;
use serde_json::{Map, Value, json};

const VECTORS: &str = include_str!("vectors/signing.json");

fn key(name: &str, form: &str) -> String {
    let v: Value = serde_json::from_str(VECTORS).unwrap();
    v["keys"][name][form].as_str().unwrap().to_string()
}

#[derive(Clone)]
enum Reply {
    Json(Value),
    /// Sign the answer over the request (as the gateway does) with the gateway key.
    SignedJson(Value),
    Raw(u16, &'static str, Vec<u8>),
    Slow(Duration),
}

#[derive(Debug, Clone)]
struct Captured {
    path: String,
    headers: HeaderMap,
    body: Map<String, Value>,
}

#[derive(Clone, Default)]
struct MockState {
    captured: Arc<Mutex<Vec<Captured>>>,
    replies: Arc<Mutex<VecDeque<Reply>>>,
}

struct Mock {
    state: MockState,
    base: url::Url,
}

impl Mock {
    async fn start() -> Mock {
        let state = MockState::default();
        let s = state.clone();
        let app = axum::Router::new().fallback(move |uri: Uri, headers: HeaderMap, body: Bytes| {
            let s = s.clone();
            async move { handle(s, uri, headers, body).await }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Mock {
            state,
            base: format!("http://{addr}/").parse().unwrap(),
        }
    }

    fn reply(&self, r: Reply) {
        self.state.replies.lock().unwrap().push_back(r);
    }

    fn last(&self) -> Captured {
        self.state.captured.lock().unwrap().last().cloned().unwrap()
    }
}

async fn handle(s: MockState, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let body: Map<String, Value> = serde_json::from_slice(&body).unwrap();
    s.captured.lock().unwrap().push(Captured {
        path: uri.path().to_string(),
        headers,
        body: body.clone(),
    });
    let reply = s
        .replies
        .lock()
        .unwrap()
        .pop_front()
        .expect("a queued reply");
    match reply {
        Reply::Json(v) => axum::Json(v).into_response(),
        Reply::SignedJson(mut v) => {
            let gw = PrivateKey::from_text(&key("gateway", "private_pkcs8")).unwrap();
            let mut original = body.clone();
            original.remove("sign");
            original.remove("sing");
            let signed = sign_body(&original, &SignSettings::default(), &gw).unwrap();
            v["sign"] = Value::String(signed.sign);
            v["signType"] = json!("RSA256");
            axum::Json(v).into_response()
        }
        Reply::Raw(status, ctype, bytes) => (
            StatusCode::from_u16(status).unwrap(),
            [("content-type", ctype)],
            bytes,
        )
            .into_response(),
        Reply::Slow(d) => {
            tokio::time::sleep(d).await;
            axum::Json(json!({"code": "00000", "message": "late", "data": ""})).into_response()
        }
    }
}

fn client_for(base: url::Url, bearer: Option<&str>) -> GatewayClient {
    let mut cfg = ClientConfig::new(base, MerNo(10001));
    cfg.referer = Some("https://shop.example".into());
    cfg.lang = Some("en".into());
    cfg.order_type = Some("1".into());
    cfg.timeout = Duration::from_millis(1500);
    let creds = Credentials {
        private_key: Arc::new(PrivateKey::from_text(&key("merchant", "private_pkcs8")).unwrap()),
        gateway_key: Some(PublicKey::from_text(&key("gateway", "public_spki")).unwrap()),
        bearer: bearer.map(|b| Sensitive::new(b.to_string())),
    };
    GatewayClient::new(cfg, creds).unwrap()
}

fn client(mock: &Mock) -> GatewayClient {
    client_for(mock.base.clone(), Some("tok-123"))
}

fn ok(data: Value) -> Value {
    json!({"code": "00000", "message": "success", "data": data})
}

fn dec(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn header<'a>(c: &'a Captured, name: &str) -> Option<&'a str> {
    c.headers.get(name).map(|v| v.to_str().unwrap())
}

/// The request was signed over exactly its own body.
fn assert_signed(c: &Captured, field: &str) {
    let merchant = PublicKey::from_text(&key("merchant", "public_spki")).unwrap();
    let sign = c.body[field].as_str().unwrap().to_string();
    let mut body = c.body.clone();
    body.remove(field);
    verify_body(&body, &SignSettings::default(), &merchant, &sign).unwrap();
}

fn common() -> PayinCommon {
    PayinCommon {
        mer_no: MerNo(10001),
        mer_order_no: "M-1".into(),
        currency_code: "CNY".into(),
        source_amount: dec("100.00"),
        return_url: "https://shop.example/r".into(),
        notify_url: "https://shop.example/n".into(),
        ip_address: "203.0.113.7".into(),
        user_id: "u-1".into(),
        email: "a@shop.example".into(),
    }
}

fn common_json() -> Value {
    json!({"merNo": 10001, "merOrderNo": "M-1", "currencyCode": "CNY", "sourceAmount": "100.00",
        "returnUrl": "https://shop.example/r", "notifyUrl": "https://shop.example/n",
        "ipAddress": "203.0.113.7", "userId": "u-1", "email": "a@shop.example"})
}

fn merge(a: Value, b: Value) -> Map<String, Value> {
    let mut m = a.as_object().unwrap().clone();
    m.extend(b.as_object().unwrap().clone());
    m
}

fn body_without_sign(c: &Captured, field: &str) -> Map<String, Value> {
    let mut b = c.body.clone();
    assert!(b.remove(field).is_some(), "{field} present");
    b
}

#[tokio::test]
async fn v2_payment_sends_every_header_and_decodes_mer_order_no() {
    let mock = Mock::start().await;
    mock.reply(Reply::Json(ok(
        json!({"payCode": 2, "tradeNo": "T1", "merOrderNo": "M-1", "payUrl": "weixin://pay/1"}),
    )));
    let a = client(&mock)
        .send(&V2Payment { common: common() })
        .await
        .unwrap();
    assert_eq!(
        a.data,
        V2PayinResult {
            pay_code: 2,
            trade_no: "T1".into(),
            mer_order_no: "M-1".into(),
            pay_url: "weixin://pay/1".into()
        }
    );
    assert_eq!(a.signature, SignatureStatus::NotSigned);
    let c = mock.last();
    assert_eq!(c.path, "/v2/payment");
    assert_eq!(header(&c, "paymentType"), Some("WECHAT"));
    assert_eq!(header(&c, "referer"), Some("https://shop.example"));
    assert_eq!(header(&c, "authorization"), Some("Bearer tok-123"));
    assert_eq!(header(&c, "lang"), Some("en"));
    assert_eq!(header(&c, "orderType"), Some("1"));
    assert_eq!(header(&c, "content-type"), Some("application/json"));
    assert!(header(&c, "user-agent").unwrap().starts_with("PayDesk/"));
    assert_eq!(
        body_without_sign(&c, "sign"),
        merge(common_json(), json!({}))
    );
    assert_signed(&c, "sign");
}

#[tokio::test]
async fn v2_payment_without_a_token_is_not_sent() {
    let mock = Mock::start().await;
    let err = client_for(mock.base.clone(), None)
        .send(&V2Payment { common: common() })
        .await
        .unwrap_err();
    assert!(matches!(err, GatewayError::NotSent { .. }), "{err}");
    assert_eq!(err.next_step(), NextStep::Retry);
    assert!(mock.state.captured.lock().unwrap().is_empty());
}

fn clabe_payout() -> V2Payout {
    V2Payout {
        mer_no: MerNo(10001),
        mer_order_no: "P-7".into(),
        currency_code: "MXN".into(),
        source_amount: dec("2500.50"),
        withdraw_type: "6".into(),
        return_url: String::new(),
        notify_url: "https://shop.example/n".into(),
        sign_type: "RSA256".into(),
        version: "V2.0.0".into(),
        ip_address: "2001:db8::1".into(),
        card_no: String::new(),
        clabe: "002010077777777771".into(),
    }
}

#[tokio::test]
async fn v2_payout_clabe() {
    let mock = Mock::start().await;
    mock.reply(Reply::Json(ok(
        json!({"payCode": 0, "tradeNo": "T2", "merorderNo": "P-7"}),
    )));
    let op = clabe_payout();
    let a = client(&mock).send(&op).await.unwrap();
    assert_eq!(a.data.mer_order_no, "P-7");
    let c = mock.last();
    assert_eq!(c.path, "/v2/payout");
    assert_eq!(header(&c, "paymentType"), Some("PAYOUT"));
    assert_eq!(header(&c, "referer"), Some("https://shop.example"));
    assert_eq!(header(&c, "authorization"), Some("Bearer tok-123"));
    let want = json!({"merNo": 10001, "merOrderNo": "P-7", "currencyCode": "MXN", "sourceAmount": "2500.50",
        "withdrawType": "6", "returnUrl": "", "notifyUrl": "https://shop.example/n", "signType": "RSA256",
        "version": "V2.0.0", "ipAddress": "2001:db8::1", "cardNo": "", "clabe": "002010077777777771"});
    assert_eq!(Value::Object(body_without_sign(&c, "sign")), want);
    assert_signed(&c, "sign");

    // A bad CLABE never leaves the machine, and the error names the field.
    let bad = V2Payout {
        clabe: "002010077777777772".into(),
        ..op
    };
    match client(&mock).send(&bad).await.unwrap_err() {
        GatewayError::Invalid(e) => assert_eq!(e.field, "clabe"),
        other => panic!("{other}"),
    }
}

#[tokio::test]
async fn v2_card_top_up_sends_mer_no_as_a_string_and_accepts_empty_data() {
    let mock = Mock::start().await;
    mock.reply(Reply::Json(
        json!({"code": "00000", "message": "success", "data": ""}),
    ));
    let op = V2CardTopUp {
        mer_no: MerNo(10001),
        sub_mer_no: "S-3".into(),
        mer_order_no: "TU-1".into(),
        apply_order_no: "A-1".into(),
        amount: dec("50.00"),
        currency: "USD".into(),
        remark: "季度充值".into(),
        sign_type: "RSA256".into(),
        version: "V2.0.0".into(),
    };
    let a = client(&mock).send(&op).await.unwrap();
    assert_eq!(a.data, NoData);
    let c = mock.last();
    assert_eq!(c.path, "/v2/card/topUp");
    assert_eq!(header(&c, "paymentType"), Some("CARD"));
    assert_eq!(header(&c, "authorization"), Some("Bearer tok-123"));
    assert_eq!(c.body["merNo"], json!("10001"));
    assert_eq!(c.body["remark"], json!("季度充值"));
    assert_signed(&c, "sign");
}

#[tokio::test]
async fn v2_order_query_accepts_code_200_and_verifies_the_answer_signature() {
    let mock = Mock::start().await;
    mock.reply(Reply::SignedJson(json!({"code": "200", "message": "success", "data": {
        "state": "5", "status": "SUCCESS", "refundNo": "", "tradeNo": "T1", "merNo": "10001", "merOrderNo": "M-1",
        "message": "ok", "refundAmount": "", "refundCurrency": "", "chargebackAmount": "", "chargebackCurrency": "",
        "actualChargebackAmount": "", "actualChargebackCurrency": "", "transactionFixedFee": "0.30", "settle": 1,
        "gasFee": "0", "transactionHash": "", "receiveAmount": "97.20", "currencyCode": "CNY", "sourceAmount": "100.00"}})));
    let op = V2OrderQuery {
        version: "V4.0.0".into(),
        mer_no: MerNo(10001),
        mer_order_no: "M-1".into(),
        trade_no: "T1".into(),
        query_type: "sales".into(),
    };
    let a = client(&mock).send(&op).await.unwrap();
    assert_eq!(a.code, "200");
    assert_eq!(a.signature, SignatureStatus::Verified);
    assert_eq!(a.data.status, "SUCCESS");
    assert_eq!(a.data.receive_amount, Some(dec("97.20")));
    assert_eq!(a.data.refund_amount, None);
    assert_eq!(a.data.settle, Some(1));
    let c = mock.last();
    assert_eq!(c.path, "/v2/order/query");
    assert_eq!(header(&c, "paymentType"), None);
    assert_eq!(header(&c, "authorization"), None);
    assert_eq!(
        Value::Object(body_without_sign(&c, "sign")),
        json!({"version": "V4.0.0", "merNo": 10001, "merOrderNo": "M-1", "tradeNo": "T1", "queryType": "sales"})
    );
    assert_signed(&c, "sign");
}

fn list_op() -> V2OrderList {
    V2OrderList {
        mer_no: MerNo(10001),
        mer_order_nos: vec!["M1".into(), "M2".into()],
        trade_nos: vec![],
        date_limit: Some(DateLimit {
            from: "2026-11-01 00:00:00".into(),
            to: "2026-11-21 23:59:59".into(),
        }),
        page_num: 1,
        page_size: 50,
        version: "V2.0.0".into(),
    }
}

fn list_page() -> Value {
    ok(
        json!({"pageNum": 1, "pageSize": 50, "totalPage": 1, "total": 1, "list": [{
        "state": 5, "merOrderNo": "M1", "tradeNo": "T1", "handlingFee": "2.50", "receiveAmount": "97.50",
        "settleAmount": "97.50", "rollingReserve": "0.00", "transactionFixedFee": "0.30", "exceptionHandlingFee": "0",
        "refundAmount": "", "sourceAmount": "100.00", "settlementCurrency": "CNY", "refundCurrency": "",
        "sourceCurrency": "CNY", "rollingReserveStatus": 0, "settle": 0, "refusalPayReason": "", "message": ""}]}),
    )
}

#[tokio::test]
async fn v2_order_list_body_matches_the_vector_and_the_page_decodes() {
    let mock = Mock::start().await;
    mock.reply(Reply::SignedJson(list_page()));
    let a = client(&mock).send(&list_op()).await.unwrap();
    assert_eq!(a.signature, SignatureStatus::Verified);
    assert_eq!(a.data.total, 1);
    assert_eq!(a.data.list[0].state, 5);
    assert_eq!(a.data.list[0].handling_fee, Some(dec("2.50")));
    let c = mock.last();
    assert_eq!(c.path, "/v2/order/queryOrderList");
    // The vector `v2-order-list` has this body and this signature.
    let v: Value = serde_json::from_str(VECTORS).unwrap();
    let case = v["sign_cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "v2-order-list")
        .unwrap();
    assert_eq!(c.body["sign"], case["signature"]);
}

#[tokio::test]
async fn a_tampered_or_missing_answer_signature_is_an_error() {
    let mock = Mock::start().await;
    let mut page = list_page();
    page["sign"] = json!("zVaFfokOlXK+yAW1kfrDAAAA");
    mock.reply(Reply::Json(page));
    let err = client(&mock).send(&list_op()).await.unwrap_err();
    assert!(
        matches!(err, GatewayError::SignatureInvalid { .. }),
        "{err}"
    );
    mock.reply(Reply::Json(list_page()));
    let err = client(&mock).send(&list_op()).await.unwrap_err();
    assert!(
        matches!(err, GatewayError::SignatureInvalid { .. }),
        "{err}"
    );
}

#[tokio::test]
async fn v2_balance_query() {
    let mock = Mock::start().await;
    mock.reply(Reply::Json(ok(json!({"currency": "USD", "balance": "1200.50", "unCheckedBalance": "30.00", "totalBalance": "1230.50"}))));
    let a = client(&mock)
        .send(&V2BalanceQuery {
            mer_no: MerNo(10001),
            currency: "USD".into(),
        })
        .await
        .unwrap();
    assert_eq!(a.data.total_balance, dec("1230.50"));
    let c = mock.last();
    assert_eq!(c.path, "/v2/balance/query");
    assert_eq!(
        Value::Object(body_without_sign(&c, "sign")),
        json!({"merNo": 10001, "currency": "USD"})
    );
    assert_signed(&c, "sign");
}

fn v1(method: V1Method) -> V1Payment {
    V1Payment {
        common: common(),
        version: "V3.0.0".into(),
        method,
    }
}

#[tokio::test]
async fn v1_payment_for_every_method() {
    let browser = Browser {
        screen_height: "1080".into(),
        screen_width: "1920".into(),
        time_zone_offset: "-180".into(),
        user_agent: "Mozilla/5.0".into(),
        visitor_id: "v1".into(),
    };
    let products = vec![Product {
        price: dec("50.00"),
        product_name: "Tea".into(),
        product_url: "https://shop.example/tea".into(),
        quantity: "2".into(),
        sku: "T-1".into(),
    }];
    let cases: Vec<(V1Method, &str, Value)> = vec![
        (V1Method::Wechat(NoExtras {}), "WECHAT", json!({})),
        (
            V1Method::Pix(PixExtras {
                name: "Ana".into(),
                social_security_number: "123.456.789-09".into(),
            }),
            "PIX",
            json!({"name": "Ana", "socialSecurityNumber": "123.456.789-09"}),
        ),
        (
            V1Method::ApplePay(WalletExtras {
                browser: browser.clone(),
                products: products.clone(),
            }),
            "APPLE_PAY",
            json!({"browser": {"screenHeight": "1080", "screenWidth": "1920", "timeZoneOffset": "-180", "userAgent": "Mozilla/5.0", "visitorId": "v1"},
                   "products": [{"price": "50.00", "productName": "Tea", "productUrl": "https://shop.example/tea", "quantity": "2", "sku": "T-1"}]}),
        ),
        (
            V1Method::CashApp(WalletExtras { browser, products }),
            "CASH_APP",
            json!(null),
        ),
        (
            V1Method::Gcash(GcashExtras {
                os_type: "ANDROID".into(),
                terminal: "APP".into(),
                product_info_list: vec![ProductInfo {
                    sku: "S".into(),
                    product_name: "Tea".into(),
                    price: dec("100.00"),
                    quantity: "1".into(),
                }],
            }),
            "GCASH",
            json!({"osType": "ANDROID", "terminal": "APP", "productInfoList": [{"sku": "S", "productName": "Tea", "price": "100.00", "quantity": "1"}]}),
        ),
        (
            V1Method::Sepa(SepaExtras {
                user_agent: "Mozilla/5.0".into(),
                billing_first_name: "Ana".into(),
                billing_last_name: "Lima".into(),
            }),
            "SEPA",
            json!({"userAgent": "Mozilla/5.0", "billingFirstName": "Ana", "billingLastName": "Lima"}),
        ),
    ];
    for (method, payment_type, extras) in cases {
        let mock = Mock::start().await;
        let sepa = payment_type == "SEPA";
        let data = if sepa {
            json!({"payCode": 2, "tradeNo": "T9", "merorderNo": "M-1", "reference": "REF9", "IBAN": "DE89370400440532013000",
                   "beneficialName": "PayDesk GmbH", "bankName": "Bank", "bankAddress": "Str. 1", "BIC": "COBADEFFXXX"})
        } else {
            json!({"payCode": 2, "tradeNo": "T9", "merorderNo": "M-1", "payUrl": "https://pay.example/9"})
        };
        mock.reply(Reply::Json(ok(data)));
        let a = client(&mock).send(&v1(method)).await.unwrap();
        assert_eq!(a.data.mer_order_no, "M-1");
        if sepa {
            assert_eq!(a.data.iban.as_deref(), Some("DE89370400440532013000"));
            assert_eq!(a.data.bic.as_deref(), Some("COBADEFFXXX"));
            assert_eq!(a.data.pay_url, None);
        } else {
            assert_eq!(a.data.pay_url.as_deref(), Some("https://pay.example/9"));
        }
        let c = mock.last();
        assert_eq!(c.path, "/payment");
        assert_eq!(header(&c, "paymentType"), Some(payment_type));
        assert_eq!(header(&c, "referer"), Some("https://shop.example"));
        assert_eq!(header(&c, "authorization"), None);
        if !extras.is_null() {
            let want = merge(
                merge(common_json(), json!({"version": "V3.0.0"})).into(),
                extras,
            );
            assert_eq!(body_without_sign(&c, "sign"), want, "{payment_type}");
        }
        assert_signed(&c, "sign");
    }
}

fn vn() -> V1VnBankPayment {
    V1VnBankPayment {
        common: PayinCommon {
            currency_code: "VND".into(),
            source_amount: dec("150000"),
            ..common()
        },
        version: "V3.0.0".into(),
        payment_method_str: "BANK".into(),
        product_name: "Cà phê".into(),
        vn_bank_id: 970436,
    }
}

#[tokio::test]
async fn v1_vn_bank_payment_is_signed_and_maps_400_and_404() {
    let mock = Mock::start().await;
    mock.reply(Reply::SignedJson(ok(
        json!({"payCode": 2, "tradeNo": "T5", "merOrderNo": "M-1", "message": "pending"}),
    )));
    let a = client(&mock).send(&vn()).await.unwrap();
    assert_eq!(a.signature, SignatureStatus::Verified);
    assert_eq!(a.data.message, "pending");
    let c = mock.last();
    assert_eq!(header(&c, "paymentType"), Some("VN_BANK"));
    assert_eq!(c.body["vnBankId"], json!(970436));
    assert_signed(&c, "sign");

    mock.reply(Reply::Raw(
        400,
        "application/json",
        br#"{"code":"400","message":"invalid vnBankId"}"#.to_vec(),
    ));
    match client(&mock).send(&vn()).await.unwrap_err() {
        GatewayError::Http {
            status: 400,
            message,
        } => assert_eq!(message, "invalid vnBankId"),
        other => panic!("{other}"),
    }
    mock.reply(Reply::Raw(
        404,
        "application/json",
        br#"{"code":"404","message":"record not found"}"#.to_vec(),
    ));
    let err = client(&mock).send(&vn()).await.unwrap_err();
    assert!(
        matches!(err, GatewayError::Http { status: 404, .. }),
        "{err}"
    );
    assert_eq!(err.next_step(), NextStep::Stop);
    // A documented status with a body that is not the gateway's envelope (a proxy's
    // page) is no refusal: the outcome is looked up.
    for (ct, body) in [
        (
            "text/html",
            &b"<html><body><h1>400 Bad Request</h1></body></html>"[..],
        ),
        ("text/plain", &b"record not found"[..]),
        ("application/json", &b""[..]),
    ] {
        mock.reply(Reply::Raw(400, ct, body.to_vec()));
        let err = client(&mock).send(&vn()).await.unwrap_err();
        assert!(matches!(err, GatewayError::OutcomeUnknown { .. }), "{err}");
        assert_eq!(err.next_step(), NextStep::Reconcile);
    }
    // Statuses the interface does not document (a proxy's or a load balancer's, after
    // the gateway may have acted) are no answer: the outcome is looked up.
    for status in [403u16, 408, 409, 429] {
        mock.reply(Reply::Raw(status, "text/plain", b"busy".to_vec()));
        let err = client(&mock).send(&vn()).await.unwrap_err();
        assert!(matches!(err, GatewayError::OutcomeUnknown { .. }), "{err}");
        assert_eq!(err.next_step(), NextStep::Reconcile, "HTTP {status}");
    }
}

/// A payout documents no status but 200: whatever else comes back, even the gateway's
/// own envelope under 400 or 404, may come after the payout was committed.
#[tokio::test]
async fn a_payout_answered_with_any_other_status_is_an_unknown_outcome() {
    let mock = Mock::start().await;
    let cases: [(u16, &str, &[u8]); 6] = [
        (
            400,
            "text/html",
            b"<!DOCTYPE html><html><body>Bad Request</body></html>",
        ),
        (
            400,
            "application/json",
            br#"{"code":"E1007","message":"bad"}"#,
        ),
        (
            404,
            "application/json",
            br#"{"code":"404","message":"no such path"}"#,
        ),
        (404, "text/html", b"<html>Not Found</html>"),
        (
            504,
            "text/html",
            b"<html><body>Gateway Time-out</body></html>",
        ),
        (400, "text/plain", b""),
    ];
    for (status, ct, body) in cases {
        mock.reply(Reply::Raw(status, ct, body.to_vec()));
        let err = client(&mock).send(&clabe_payout()).await.unwrap_err();
        assert!(
            matches!(err, GatewayError::OutcomeUnknown { .. }),
            "HTTP {status} {ct}: {err}"
        );
        assert!(err.may_have_taken_effect(), "HTTP {status}");
        assert!(err.to_string().contains(&format!("HTTP {status}")), "{err}");
    }
    // A profile whose gateway documents 409 as its refusal of a payout: with the
    // envelope it is a refusal, with an HTML page it is still unknown.
    let mut with = client(&mock);
    let mut config = with.config().clone();
    config
        .conventions
        .refusal_statuses
        .insert("v2.payout".into(), vec![409]);
    with = with.with_config(config).unwrap();
    mock.reply(Reply::Raw(
        409,
        "application/json",
        br#"{"code":"D01","message":"duplicate"}"#.to_vec(),
    ));
    let err = with.send(&clabe_payout()).await.unwrap_err();
    assert!(
        matches!(err, GatewayError::Http { status: 409, .. }),
        "{err}"
    );
    assert_eq!(err.next_step(), NextStep::Stop);
    mock.reply(Reply::Raw(
        409,
        "text/html",
        b"<html>Conflict</html>".to_vec(),
    ));
    let err = with.send(&clabe_payout()).await.unwrap_err();
    assert!(matches!(err, GatewayError::OutcomeUnknown { .. }), "{err}");
}

#[tokio::test]
async fn v1_card_payout() {
    let mock = Mock::start().await;
    mock.reply(Reply::Json(ok(
        json!({"payCode": 2, "tradeNo": "T3", "merorderNo": "C-1"}),
    )));
    let op = V1CardPayout {
        mer_no: MerNo(10001),
        mer_order_no: "C-1".into(),
        currency_code: "USD".into(),
        source_amount: dec("10.00"),
        withdraw_type: "1".into(),
        return_url: String::new(),
        notify_url: "https://shop.example/n".into(),
        version: "V3.0.0".into(),
        ip_address: "203.0.113.7".into(),
        card_no: "4111111111111111".into(),
        ben_first_name: "Ana".into(),
        ben_last_name: "O'Neil".into(),
        mobile: "+5215512345678".into(),
        address_line: "Calle 1".into(),
        address_line2: String::new(),
        city: "CDMX".into(),
        state: "CDMX".into(),
        country_code: "MX".into(),
        post_code: "01000".into(),
        email: "ana@example.com".into(),
        beneficiary_type: "individual".into(),
        browser: None,
        products: vec![],
    };
    // A `{:?}` of the request (a log line, a panic) never shows the card number whole.
    let printed = format!("{op:?}");
    assert!(
        printed.contains("411111******1111") && !printed.contains("4111111111111111"),
        "{printed}"
    );
    let a = client(&mock).send(&op).await.unwrap();
    assert_eq!(a.data.trade_no, "T3");
    let c = mock.last();
    assert_eq!(c.path, "/payout");
    assert_eq!(header(&c, "referer"), Some("https://shop.example"));
    assert_eq!(c.body["cardNo"], json!("4111111111111111"));
    assert!(!c.body.contains_key("browser"));
    assert_signed(&c, "sign");
    let bad = V1CardPayout {
        card_no: "4111111111111112".into(),
        ..op
    };
    match client(&mock).send(&bad).await.unwrap_err() {
        GatewayError::Invalid(e) => assert_eq!(
            (e.field.as_str(), e.rule.contains("Luhn")),
            ("cardNo", true)
        ),
        other => panic!("{other}"),
    }
}

#[tokio::test]
async fn v1_refund_query_in_both_spellings() {
    let mock = Mock::start().await;
    let record = json!({"state": "3", "refundNo": "R1", "tradeNo": "T1", "message": "", "merNo": "10001", "merOrderNo": "M1",
        "refundAmount": "20.00", "refundCurrency": "USD", "refuseAmount": "", "refuseCurrency": "", "actualRefuseAmount": "",
        "actualRefuseCurrency": "", "tradeFee": "0.50", "settle": 0, "gasFee": "", "transactionHash": "", "receiveAmount": "19.50"});
    for sing in [false, true] {
        mock.reply(Reply::Json(ok(record.clone())));
        let op = V1RefundQuery {
            mer_no: MerNo(10001),
            mer_order_no: "M1".into(),
            version: "V3.0.0".into(),
            trade_no: "T1".into(),
            query_type: "refund".into(),
            refund_no: "R1".into(),
            sing_variant: sing,
        };
        let a = client(&mock).send(&op).await.unwrap();
        assert_eq!(a.data.refund_amount, Some(dec("20.00")));
        let c = mock.last();
        assert_eq!(c.path, "/order/query");
        let (field, other) = if sing {
            ("sing", "sign")
        } else {
            ("sign", "sing")
        };
        assert!(!c.body.contains_key(other));
        assert_eq!(
            Value::Object(body_without_sign(&c, field)),
            json!({"merNo": 10001, "merOrderNo": "M1", "version": "V3.0.0", "tradeNo": "T1", "queryType": "refund", "refundNo": "R1"})
        );
        assert_signed(&c, field);
    }
}

#[tokio::test]
async fn v1_transfer_order_submission() {
    let mock = Mock::start().await;
    mock.reply(Reply::Json(json!({"code": "00000", "message": "success"})));
    let op = V1TransferOrderSubmit {
        mer_no: MerNo(10001),
        trade_no: "T900".into(),
        info_list: vec![InfoItem {
            info_type: "1".into(),
            info_content: "Invoice 55".into(),
        }],
        file_list: vec![FileItem {
            file_type: "21".into(),
            file_content: "iVBORw0KGgo=".into(),
            file_name: "id-front".into(),
            suffix: ".png".into(),
        }],
    };
    client(&mock).send(&op).await.unwrap();
    let c = mock.last();
    assert_eq!(c.path, "/submit/transferOrder");
    assert_eq!(c.body["fileList"][0]["suffix"], json!(".png"));
    assert_signed(&c, "sign");
    let bad = V1TransferOrderSubmit {
        file_list: vec![FileItem {
            suffix: "png".into(),
            ..op.file_list[0].clone()
        }],
        ..op
    };
    match client(&mock).send(&bad).await.unwrap_err() {
        GatewayError::Invalid(e) => assert_eq!(e.field, "fileList[0].suffix"),
        other => panic!("{other}"),
    }
}

#[tokio::test]
async fn v1_card_withdraw() {
    let mock = Mock::start().await;
    mock.reply(Reply::Json(ok(json!({"tradeNo": "W1", "fee": "1.50"}))));
    let op = V1CardWithdraw {
        mer_no: MerNo(10001),
        apply_order_no: "A-9".into(),
        amount: dec("20.00"),
        currency: "USD".into(),
    };
    let a = client(&mock).send(&op).await.unwrap();
    assert_eq!(
        a.data,
        WithdrawResult {
            trade_no: "W1".into(),
            fee: "1.50".into()
        }
    );
    let c = mock.last();
    assert_eq!(c.path, "/card/withdraw");
    assert_eq!(
        Value::Object(body_without_sign(&c, "sign")),
        json!({"merNo": 10001, "applyOrderNo": "A-9", "amount": "20.00", "currency": "USD"})
    );
    assert_signed(&c, "sign");
}

#[tokio::test]
async fn business_failures_are_rejections_with_code_and_message() {
    let mock = Mock::start().await;
    mock.reply(Reply::Json(
        json!({"code": "E1004", "message": "insufficient balance", "data": ""}),
    ));
    let err = client(&mock)
        .send(&V2BalanceQuery {
            mer_no: MerNo(10001),
            currency: "USD".into(),
        })
        .await
        .unwrap_err();
    match &err {
        GatewayError::Rejected { code, message } => assert_eq!(
            (code.as_str(), message.as_str()),
            ("E1004", "insufficient balance")
        ),
        other => panic!("{other}"),
    }
    assert_eq!(err.next_step(), NextStep::Stop);
}

async fn bad_answer(reply: Reply) -> GatewayError {
    let mock = Mock::start().await;
    mock.reply(reply);
    client(&mock)
        .send(&V2BalanceQuery {
            mer_no: MerNo(10001),
            currency: "USD".into(),
        })
        .await
        .unwrap_err()
}

#[tokio::test]
async fn malformed_answers_give_the_matching_error_and_never_panic() {
    let truncated = Reply::Raw(
        200,
        "application/json",
        br#"{"code":"00000","message":"success","data":{"curr"#.to_vec(),
    );
    let e = bad_answer(truncated).await;
    assert!(
        matches!(&e, GatewayError::BadResponse { reason } if reason.contains("not JSON")),
        "{e}"
    );
    assert_eq!(e.next_step(), NextStep::Reconcile);

    let wrong_type = Reply::Json(ok(
        json!({"currency": "USD", "balance": 12.5, "unCheckedBalance": "0", "totalBalance": "0"}),
    ));
    let e = bad_answer(wrong_type).await;
    assert!(
        matches!(&e, GatewayError::BadResponse { reason } if reason.starts_with("data.balance")),
        "{e}"
    );

    let bad_decimal = Reply::Json(ok(
        json!({"currency": "USD", "balance": "1e5", "unCheckedBalance": "0", "totalBalance": "0"}),
    ));
    let e = bad_answer(bad_decimal).await;
    assert!(
        matches!(&e, GatewayError::BadResponse { reason } if reason.starts_with("data.balance")),
        "{e}"
    );

    let no_data = Reply::Json(json!({"code": "00000", "message": "success"}));
    let e = bad_answer(no_data).await;
    assert!(
        matches!(&e, GatewayError::BadResponse { reason } if reason == "data is missing"),
        "{e}"
    );

    let html = Reply::Raw(
        200,
        "text/html",
        b"<html><body>502 Bad Gateway</body></html>".to_vec(),
    );
    let e = bad_answer(html).await;
    assert!(
        matches!(&e, GatewayError::BadResponse { reason } if reason.contains("<html>")),
        "{e}"
    );

    let empty = Reply::Raw(200, "application/json", Vec::new());
    let e = bad_answer(empty).await;
    assert!(
        matches!(&e, GatewayError::BadResponse { reason } if reason == "empty body"),
        "{e}"
    );

    let array = Reply::Json(json!([1, 2]));
    let e = bad_answer(array).await;
    assert!(
        matches!(&e, GatewayError::BadResponse { reason } if reason.contains("an array")),
        "{e}"
    );

    let code_object = Reply::Json(json!({"code": {"x": 1}}));
    assert!(matches!(
        bad_answer(code_object).await,
        GatewayError::BadResponse { .. }
    ));

    let huge = Reply::Raw(200, "application/json", vec![b' '; 50 * 1024 * 1024]);
    let e = bad_answer(huge).await;
    assert!(
        matches!(&e, GatewayError::BadResponse { reason } if reason.contains("larger than")),
        "{e}"
    );

    let e = bad_answer(Reply::Raw(503, "text/plain", b"busy".to_vec())).await;
    assert!(matches!(e, GatewayError::OutcomeUnknown { .. }), "{e}");
}

#[tokio::test]
async fn lost_answers_are_unknown_outcomes_and_refused_connections_are_not_sent() {
    let e = bad_answer(Reply::Slow(Duration::from_secs(5))).await;
    assert!(matches!(e, GatewayError::OutcomeUnknown { .. }), "{e}");
    assert_eq!(e.next_step(), NextStep::Reconcile);

    // A server that reads the request and hangs up without answering.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        use tokio::io::AsyncReadExt;
        let (mut sock, _) = listener.accept().await.unwrap();
        let mut buf = vec![0; 65536];
        let _ = sock.read(&mut buf).await;
        drop(sock);
    });
    let c = client_for(format!("http://{addr}/").parse().unwrap(), None);
    let e = c
        .send(&V2BalanceQuery {
            mer_no: MerNo(10001),
            currency: "USD".into(),
        })
        .await
        .unwrap_err();
    assert!(matches!(e, GatewayError::OutcomeUnknown { .. }), "{e}");

    // Nothing listens on this port any more.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let c = client_for(format!("http://{closed}/").parse().unwrap(), None);
    let e = c
        .send(&V2BalanceQuery {
            mer_no: MerNo(10001),
            currency: "USD".into(),
        })
        .await
        .unwrap_err();
    assert!(matches!(e, GatewayError::NotSent { .. }), "{e}");
}

#[test]
fn https_is_required_off_loopback() {
    for ok in [
        "https://gw.example/",
        "http://127.0.0.1:8080/",
        "http://localhost/",
        "http://[::1]:9/",
    ] {
        paydesk_gateway::client::check_base_url(&ok.parse().unwrap()).unwrap();
    }
    for bad in [
        "http://gw.example/",
        "http://10.0.0.1/",
        "ftp://gw.example/",
    ] {
        assert!(
            paydesk_gateway::client::check_base_url(&bad.parse().unwrap()).is_err(),
            "{bad}"
        );
    }
}

fn balance_answer() -> Reply {
    Reply::Json(ok(
        json!({"currency": "USD", "balance": "1.00", "unCheckedBalance": "0", "totalBalance": "1.00"}),
    ))
}

fn balance_query() -> V2BalanceQuery {
    V2BalanceQuery {
        mer_no: MerNo(10001),
        currency: "USD".into(),
    }
}

#[tokio::test]
async fn a_base_url_keeps_its_path_with_or_without_a_trailing_slash() {
    let mock = Mock::start().await;
    for base in ["api", "api/", "gw/v1"] {
        mock.reply(balance_answer());
        let url = mock.base.join(base).unwrap();
        let _ = client_for(url, Some("tok-123"))
            .send(&balance_query())
            .await;
        let expected = format!("/{}/v2/balance/query", base.trim_end_matches('/'));
        assert_eq!(mock.last().path, expected, "base {base}");
    }
    let base: url::Url = "https://gw.example/api".parse().unwrap();
    assert_eq!(
        paydesk_gateway::client::endpoint(&base, "/v2/payout")
            .unwrap()
            .as_str(),
        "https://gw.example/api/v2/payout"
    );
}

/// A TCP listener standing in for a proxy: it records the first line of each
/// connection (a proxy request names its target there) and closes it.
async fn fake_proxy() -> (url::Url, Arc<Mutex<Vec<String>>>) {
    use tokio::io::AsyncBufReadExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap())
        .parse()
        .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let mut lines = tokio::io::BufReader::new(stream).lines();
            if let Ok(Some(first)) = lines.next_line().await {
                s.lock().unwrap().push(first);
            }
        }
    });
    (url, seen)
}

#[tokio::test]
async fn a_loopback_gateway_is_reached_directly_and_a_remote_one_through_the_explicit_proxy() {
    let (proxy, seen) = fake_proxy().await;
    let mock = Mock::start().await;
    mock.reply(balance_answer());
    let mut cfg = ClientConfig::new(mock.base.clone(), MerNo(10001));
    cfg.proxy = Some(proxy.clone());
    let creds = || Credentials {
        private_key: Arc::new(PrivateKey::from_text(&key("merchant", "private_pkcs8")).unwrap()),
        gateway_key: Some(PublicKey::from_text(&key("gateway", "public_spki")).unwrap()),
        bearer: Some(Sensitive::new("tok-123".to_string())),
    };
    GatewayClient::new(cfg, creds())
        .unwrap()
        .send(&balance_query())
        .await
        .unwrap();
    assert_eq!(mock.last().path, "/v2/balance/query");
    assert!(
        seen.lock().unwrap().is_empty(),
        "the loopback call went through the proxy"
    );

    let mut remote =
        ClientConfig::new("https://gateway.example/api".parse().unwrap(), MerNo(10001));
    remote.proxy = Some(proxy);
    remote.timeout = Duration::from_secs(3);
    let err = GatewayClient::new(remote, creds())
        .unwrap()
        .send(&balance_query())
        .await
        .unwrap_err();
    assert!(!matches!(err, GatewayError::Invalid(_)), "{err}");
    assert_eq!(
        seen.lock().unwrap().first().map(String::as_str),
        Some("CONNECT gateway.example:443 HTTP/1.1"),
        "the remote call must go through the explicit proxy"
    );

    let with_password = "http://ana:secret@proxy.corp:3128".parse().unwrap();
    assert!(paydesk_gateway::client::check_proxy(&with_password).is_err());
}

/// Whatever the member, a text of an answer reaches no type raw: a refund's `state`
/// with NUL, escape and bidi characters, a payin's megabyte `payUrl`, a message with a
/// line break.
#[tokio::test]
async fn every_text_of_an_answer_is_admitted_escaped_and_bounded() {
    let mock = Mock::start().await;
    let record = json!({"state": "3\u{0}\u{1b}[2J\u{202e}", "refundNo": "R1", "tradeNo": "T1", "message": "line 1\nline 2",
        "merNo": "10001", "merOrderNo": "M1", "refundAmount": "20.00", "refundCurrency": "USD"});
    mock.reply(Reply::Json(ok(record)));
    let op = V1RefundQuery {
        mer_no: MerNo(10001),
        mer_order_no: "M1".into(),
        version: "V3.0.0".into(),
        trade_no: "T1".into(),
        query_type: "refund".into(),
        refund_no: "R1".into(),
        sing_variant: false,
    };
    let a = client(&mock).send(&op).await.unwrap();
    assert_eq!(a.data.state, "3\u{fffd}\u{fffd}[2J\u{fffd}");
    assert!(!a.data.message.contains('\n'), "{:?}", a.data.message);
    assert_eq!(a.data.refund_no, "R1", "plain text is left as it is");

    let huge = format!("https://pay.example/{}", "a".repeat(1_000_000));
    mock.reply(Reply::Json(ok(
        json!({"payCode": 2, "tradeNo": "T1", "merOrderNo": "M-1", "payUrl": huge}),
    )));
    let a = client(&mock)
        .send(&V2Payment { common: common() })
        .await
        .unwrap();
    assert!(
        a.data.pay_url.chars().count() < paydesk_gateway::redact::MAX_ANSWER_TEXT + 64,
        "cut at the bound"
    );
}

/// A request whose free texts carry a control character or run past their bound is
/// never sent: the error names the member and the rule.
#[tokio::test]
async fn a_name_with_a_nul_or_a_megabyte_is_never_sent() {
    let mock = Mock::start().await;
    let mut payin = common();
    payin.user_id = "ana\u{0}".into();
    let e = client(&mock)
        .send(&V2Payment { common: payin })
        .await
        .unwrap_err();
    assert!(
        matches!(&e, GatewayError::Invalid(f) if f.field == "userId" && f.rule.contains("U+0000")),
        "{e:?}"
    );
    assert!(
        mock.state.captured.lock().unwrap().is_empty(),
        "nothing sent"
    );
}
