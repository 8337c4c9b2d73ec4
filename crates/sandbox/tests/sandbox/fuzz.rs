//! A bounded fuzz test: one sandbox in-process, and for about 12 seconds random and
//! hostile requests to every route it serves (the 11 operations and every call of the
//! simulation API, in turn): random bytes, truncated and deeply nested JSON, huge and
//! NaN-like numbers, wrong types per field, signed requests with one field mutated,
//! control and bidi characters, 1 MB strings, hostile path parameters, other methods.
//! Every case must get an HTTP answer that is not 5xx; gateway paths answer a JSON
//! envelope with a `code`, simulation paths JSON (success, or `{"error": ...}`). After
//! the run the ledger still agrees with the orders.
//!
//! Reproducible: the cases come from a fixed seed (`FUZZ_SEED`); the budget only
//! decides how many are run. Run with `--nocapture` to see the count.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::*;
use paydesk_gateway::{PrivateKey, SignSettings, sign_body};
use paydesk_sandbox::{Running, SIMULATION_ROUTES, Sandbox};
use serde_json::{Map, Value, json};

const FUZZ_SEED: u64 = 0x5EED_2026_F022;
const BUDGET: Duration = Duration::from_secs(12);
const METHODS: [&str; 5] = ["GET", "POST", "PUT", "DELETE", "PATCH"];
const NOTIFY: &str = "http://127.0.0.1:9/n";

#[derive(Debug, Clone)]
struct Case {
    method: String,
    path: String,
    headers: Vec<(String, Vec<u8>)>,
    content_type: Option<&'static str>,
    body: Vec<u8>,
    what: String,
}

/// Values that break parsers, decimals, validators and terminals.
const HOSTILE_STRINGS: &[&str] = &[
    "",
    " ",
    "0",
    "-0",
    "-1",
    "NaN",
    "-NaN",
    "nan",
    "Infinity",
    "-Infinity",
    "inf",
    "1e5",
    "1E-7",
    "0x10",
    "1_000",
    "1,00",
    " 1.00",
    "1.00 ",
    "+1.00",
    ".5",
    "5.",
    "79228162514264337593543950335",
    "79228162514264337593543950336",
    "-79228162514264337593543950335",
    "0.0000000000000000000000000001",
    "0.00000000000000000000000000000000000001",
    "1.0000000000000000000000000000000000001",
    "1000000000000000",
    "1000000000000000.01",
    "999999999999999.99",
    "18446744073709551616",
    "-9223372036854775809",
    "١٢٣",
    "１２３",
    "\u{0}",
    "\u{1b}[2J\u{1b}[31mred",
    "\u{7}\u{8}\u{7f}",
    "\r\n\r\nHTTP/1.1 200 OK",
    "\u{202e}gnp.exe",
    "\u{2066}x\u{2069}",
    "\u{200b}\u{200d}\u{feff}",
    "\u{fffd}",
    "💸🧾",
    "'; DROP TABLE orders; --",
    "<script>alert(1)</script>",
    "../../etc/passwd",
    "%00",
    "%5F%5Fsandbox",
    "http://127.0.0.1:9/__sandbox/reset",
    "javascript:alert(1)",
    "USD",
    "usd",
    "XXX",
    "V2.0.0",
    "V3.0.0",
    "V4.0.0",
    "2026-02-30 00:00:00",
    "9999-12-31 23:59:59",
    "-262143-01-01 00:00:00",
    "002010077777777771",
    "4111111111111111",
];

fn hostile_string(rng: &mut fastrand::Rng) -> String {
    match rng.u8(0..10) {
        0 => {
            // Random characters: control, bidi, astral, ASCII.
            let pool = [
                '\u{0}',
                '\u{1}',
                '\u{1b}',
                '\n',
                '\t',
                '"',
                '\\',
                '/',
                '%',
                '{',
                '[',
                'a',
                'Z',
                '9',
                '.',
                '-',
                '\u{202a}',
                '\u{202e}',
                '\u{2067}',
                '\u{200f}',
                '\u{85}',
                '\u{2028}',
                '\u{fffe}',
                '\u{10ffff}',
                'é',
                '中',
                '😀',
            ];
            (0..rng.usize(0..64))
                .map(|_| pool[rng.usize(0..pool.len())])
                .collect()
        }
        1 => "x".repeat(rng.usize(60..300)),
        2 if rng.u8(0..8) == 0 => "\u{202e}".repeat(16) + &"A".repeat(1024 * 1024),
        _ => HOSTILE_STRINGS[rng.usize(0..HOSTILE_STRINGS.len())].to_string(),
    }
}

fn hostile_value(rng: &mut fastrand::Rng, depth: u32) -> Value {
    match rng.u8(0..12) {
        0 => Value::Null,
        1 => Value::Bool(rng.bool()),
        2 => {
            let n: [Value; 12] = [
                json!(0),
                json!(-1),
                json!(1),
                json!(i64::MIN),
                json!(i64::MAX),
                json!(u64::MAX),
                json!(1.5),
                json!(-0.0),
                json!(1e308),
                json!(5e-324),
                json!(100_001),
                json!(120_001),
            ];
            n[rng.usize(0..n.len())].clone()
        }
        3 => json!(rng.i64(-1000..100_000)),
        4 => json!(rng.f64() * 2.0 - 0.5),
        5 if depth < 3 => Value::Array(
            (0..rng.usize(0..4))
                .map(|_| hostile_value(rng, depth + 1))
                .collect(),
        ),
        6 if depth < 3 => {
            let mut m = Map::new();
            for _ in 0..rng.usize(0..4) {
                m.insert(hostile_string(rng), hostile_value(rng, depth + 1));
            }
            Value::Object(m)
        }
        7 => {
            // Nested arrays, within and beyond serde_json's recursion limit (128).
            let mut v = json!(1);
            for _ in 0..rng.usize(1..200) {
                v = json!([v]);
            }
            v
        }
        _ => Value::String(hostile_string(rng)),
    }
}

/// Bodies that are not JSON objects, or JSON that breaks parsers.
fn hostile_bytes(rng: &mut fastrand::Rng, valid: &[u8]) -> (Vec<u8>, &'static str) {
    match rng.u8(0..14) {
        0 => (
            (0..rng.usize(0..2048)).map(|_| rng.u8(..)).collect(),
            "random bytes",
        ),
        1 => {
            let cut = rng.usize(0..valid.len().max(1));
            (valid[..cut.min(valid.len())].to_vec(), "truncated JSON")
        }
        2 => ("[".repeat(10_000).into_bytes(), "10,000 ["),
        3 => ("{\"a\":".repeat(5_000).into_bytes(), "5,000 nested objects"),
        4 => (
            format!(
                "{{\"merNo\": 1{}, \"count\": 1{}}}",
                "0".repeat(100_000),
                "9".repeat(400)
            )
            .into_bytes(),
            "huge number literals",
        ),
        5 => (
            format!(
                "{{\"merNo\": {MER}, \"x\": \"{}\"}}",
                "a".repeat(1024 * 1024)
            )
            .into_bytes(),
            "1 MB string",
        ),
        6 => (
            b"{\"merNo\": \"\xff\xfe\", \"route\": \"*\"}".to_vec(),
            "invalid UTF-8 in a string",
        ),
        7 => (
            b"{\"merNo\": \"\\ud800\", \"count\": \"\\udfff\"}".to_vec(),
            "lone surrogates",
        ),
        8 => {
            let mut v = b"{\"merNo\": 1, ".to_vec();
            v.extend_from_slice(&valid[1.min(valid.len())..]);
            (v, "duplicate keys")
        }
        9 => {
            let pick = [
                &b"null"[..],
                b"[]",
                b"42",
                b"\"text\"",
                b"true",
                b"-1e400",
                b"NaN",
            ];
            (pick[rng.usize(0..pick.len())].to_vec(), "not an object")
        }
        10 => ([b"\xef\xbb\xbf".as_slice(), valid].concat(), "BOM"),
        11 => (vec![b' '; rng.usize(0..8)], "empty"),
        12 => ([valid, b" trailing"].concat(), "trailing garbage"),
        _ => (
            format!("{{\"a\": {}}}", "1".repeat(rng.usize(1..400))).into_bytes(),
            "long integer",
        ),
    }
}

/// A copy of `v` with one field changed, removed or added.
fn mutate(rng: &mut fastrand::Rng, v: &Value) -> (Value, String) {
    let mut v = v.clone();
    let Some(obj) = v.as_object_mut() else {
        return (v, "no object".into());
    };
    let keys: Vec<String> = obj.keys().cloned().collect();
    let what = match rng.u8(0..10) {
        0 if !keys.is_empty() => {
            let k = &keys[rng.usize(0..keys.len())];
            obj.remove(k);
            format!("without {k}")
        }
        1 => {
            let k = hostile_string(rng);
            let short: String = k.chars().take(20).collect();
            obj.insert(k, hostile_value(rng, 0));
            format!("extra field {short:?}")
        }
        _ if !keys.is_empty() => {
            let k = keys[rng.usize(0..keys.len())].clone();
            // Inside a nested object or array of objects, sometimes.
            let inner = obj.get_mut(&k).unwrap();
            let target = match inner {
                Value::Object(m) if !m.is_empty() && rng.bool() => {
                    let ik: Vec<String> = m.keys().cloned().collect();
                    let ik = ik[rng.usize(0..ik.len())].clone();
                    let path = format!("{k}.{ik}");
                    (m.get_mut(&ik).unwrap(), path)
                }
                Value::Array(a) if !a.is_empty() && rng.bool() => match &mut a[0] {
                    Value::Object(m) if !m.is_empty() => {
                        let ik: Vec<String> = m.keys().cloned().collect();
                        let ik = ik[rng.usize(0..ik.len())].clone();
                        let path = format!("{k}[0].{ik}");
                        (m.get_mut(&ik).unwrap(), path)
                    }
                    other => (other, format!("{k}[0]")),
                },
                other => (other, k.clone()),
            };
            let (slot, path) = target;
            let new = hostile_value(rng, 0);
            let mut shown = new.to_string();
            if shown.len() > 40 {
                shown = shown.chars().take(40).collect::<String>() + "…";
            }
            *slot = new;
            format!("{path}={shown}")
        }
        _ => "unchanged".into(),
    };
    (v, what)
}

fn sign(key: &PrivateKey, v: &Value) -> Vec<u8> {
    let mut body: Map<String, Value> = v.as_object().cloned().unwrap_or_default();
    body.remove("sign");
    if let Ok(signed) = sign_body(&body, &SignSettings::default(), key) {
        body.insert("sign".into(), Value::String(signed.sign));
    }
    serde_json::to_vec(&body).unwrap()
}

/// The state a case may refer to: a few trade numbers, review ids.
struct Known {
    trade_nos: Vec<String>,
    sepa_trade_no: String,
    reviews: u64,
}

fn known(r: &Running, sepa: &str) -> Known {
    r.sandbox.with_state(|s| {
        let n = s.orders.len();
        let mut trade_nos: Vec<String> = s
            .orders
            .iter()
            .rev()
            .take(8)
            .map(|o| o.trade_no.clone())
            .collect();
        if n > 8 {
            trade_nos.push(s.orders[n / 2].trade_no.clone());
        }
        Known {
            trade_nos,
            sepa_trade_no: sepa.to_string(),
            reviews: s.reviews.len() as u64,
        }
    })
}

/// A signed request the gateway would take, for `path`: (headers, body).
fn gateway_template(
    rng: &mut fastrand::Rng,
    path: &str,
    k: &Known,
    n: u64,
) -> (Vec<(&'static str, String)>, Value) {
    let no = format!("FZ-{n}");
    let trade_no = k.trade_nos.first().cloned().unwrap_or_else(|| "T1".into());
    let referer = ("referer", "https://shop.example/pay".to_string());
    let bearer = ("authorization", format!("Bearer {TOKEN}"));
    let amount = ["10.00", "1.13", "2.44", "3.55", "250.00"][rng.usize(0..5)];
    let payin = json!({"merNo": MER, "merOrderNo": no, "currencyCode": "CNY", "sourceAmount": amount,
        "returnUrl": "https://shop.example/r", "notifyUrl": NOTIFY, "ipAddress": "203.0.113.7",
        "userId": "u-1", "email": "a@shop.example"});
    let with = |mut v: Value, extra: Value| {
        for (key, val) in extra.as_object().unwrap() {
            v[key] = val.clone();
        }
        v
    };
    match path {
        "/v2/payment" => (
            vec![("paymentType", "WECHAT".into()), referer, bearer],
            payin,
        ),
        "/v2/payout" => (
            vec![("paymentType", "PAYOUT".into()), referer],
            json!({"merNo": MER, "merOrderNo": no, "currencyCode": "MXN", "sourceAmount": amount, "withdrawType": "6",
                "returnUrl": "", "notifyUrl": NOTIFY, "signType": "RSA256", "version": "V2.0.0",
                "ipAddress": "203.0.113.7", "cardNo": "", "clabe": "002010077777777771"}),
        ),
        "/v2/card/topUp" => (
            vec![("paymentType", "CARD".into()), referer, bearer],
            json!({"merNo": MER.to_string(), "subMerNo": "SUB-1", "merOrderNo": no, "applyOrderNo": CARD,
                "amount": "1.00", "currency": "USD", "remark": "", "signType": "RSA256", "version": "V2.0.0"}),
        ),
        "/v2/order/query" => (
            vec![],
            json!({"version": "V4.0.0", "merNo": MER, "merOrderNo": "", "tradeNo": trade_no,
                "queryType": (["sales", "refund", "chargeback"][rng.usize(0..3)])}),
        ),
        "/v2/order/queryOrderList" => (
            vec![],
            json!({"merNo": MER, "merOrderNos": [no], "tradeNos": [trade_no],
                "dateLimit": {"from": "2020-01-01 00:00:00", "to": "2099-12-31 23:59:59"},
                "pageNum": 1, "pageSize": 50, "version": "V2.0.0"}),
        ),
        "/v2/balance/query" => (
            vec![],
            json!({"merNo": MER, "currency": (["USD", "CNY", "MXN", "EUR"][rng.usize(0..4)])}),
        ),
        "/payment" => {
            let browser = json!({"screenHeight": "1080", "screenWidth": "1920", "timeZoneOffset": "0", "userAgent": "UA", "visitorId": "v"});
            let products = json!([{"price": "10.00", "productName": "Tea", "productUrl": "", "quantity": "1", "sku": "S"}]);
            let v1 = with(payin, json!({"version": "V3.0.0"}));
            let (method, body) = match rng.u8(0..7) {
                0 => ("WECHAT", v1),
                1 => (
                    "PIX",
                    with(
                        with(v1, json!({"currencyCode": "BRL"})),
                        json!({"name": "Ana", "socialSecurityNumber": "123.456.789-09"}),
                    ),
                ),
                2 => (
                    "APPLE_PAY",
                    with(
                        with(v1, json!({"currencyCode": "USD"})),
                        json!({"browser": browser, "products": products}),
                    ),
                ),
                3 => (
                    "CASH_APP",
                    with(
                        with(v1, json!({"currencyCode": "USD"})),
                        json!({"browser": browser, "products": products}),
                    ),
                ),
                4 => (
                    "GCASH",
                    with(
                        with(v1, json!({"currencyCode": "PHP"})),
                        json!({"osType": "IOS", "terminal": "APP",
                    "productInfoList": [{"sku": "S", "productName": "Tea", "price": "10.00", "quantity": "1"}]}),
                    ),
                ),
                5 => (
                    "SEPA",
                    with(
                        with(v1, json!({"currencyCode": "EUR"})),
                        json!({"userAgent": "UA", "billingFirstName": "Ana", "billingLastName": "Lima"}),
                    ),
                ),
                _ => (
                    "VN_BANK",
                    with(
                        with(v1, json!({"currencyCode": "VND", "sourceAmount": "150000"})),
                        json!({"paymentMethodStr": "BANK", "productName": "Cà phê", "vnBankId": 970436}),
                    ),
                ),
            };
            (vec![("paymentType", method.into()), referer], body)
        }
        "/payout" => (
            vec![("paymentType", "PAYOUT".into()), referer],
            json!({"merNo": MER, "merOrderNo": no, "currencyCode": "USD", "sourceAmount": amount, "withdrawType": "1",
                "notifyUrl": NOTIFY, "version": "V3.0.0", "ipAddress": "203.0.113.7", "cardNo": "4111111111111111",
                "benFirstName": "A", "benLastName": "B", "beneficiaryType": "individual"}),
        ),
        "/order/query" => (
            vec![],
            json!({"merNo": MER, "merOrderNo": "", "version": "V3.0.0", "tradeNo": trade_no, "queryType": "refund", "refundNo": ""}),
        ),
        "/submit/transferOrder" => {
            use base64::Engine as _;
            let png = base64::engine::general_purpose::STANDARD.encode(b"\x89PNG\r\n\x1a\nfuzz");
            (
                vec![],
                json!({"merNo": MER, "tradeNo": k.sepa_trade_no, "infoList": [{"infoType": "1", "infoContent": "Invoice"}],
                    "fileList": [{"fileType": "21", "fileContent": png, "fileName": "id", "suffix": ".png"}]}),
            )
        }
        "/card/withdraw" => (
            vec![],
            json!({"merNo": MER, "applyOrderNo": CARD, "amount": "0.50", "currency": "USD"}),
        ),
        other => panic!("no template for gateway path {other}"),
    }
}

/// A path parameter: a real value, or a hostile one (always a valid URL path segment).
fn segment(rng: &mut fastrand::Rng, real: &[String]) -> String {
    if !real.is_empty() && rng.u8(0..3) > 0 {
        return real[rng.usize(0..real.len())].clone();
    }
    match rng.u8(0..8) {
        0 => "%2e%2e".into(),
        1 => "..".into(),
        2 => "%00%FF%FE".into(),
        3 => "%E2%80%AE%F0%9F%92%B8".into(),
        4 => "9".repeat(rng.usize(1..60)),
        5 => "-1".into(),
        6 => "A".repeat(rng.usize(100..3000)),
        _ => (0..rng.usize(1..40))
            .map(|_| format!("%{:02X}", rng.u8(..)))
            .collect(),
    }
}

fn sim_template(rng: &mut fastrand::Rng, path: &str) -> Option<Value> {
    Some(match path {
        "/__sandbox/orders/{trade_no}/{action}" => {
            if rng.bool() {
                json!({"amount": (["1.00", "0.01", "5"][rng.usize(0..3)])})
            } else {
                json!({})
            }
        }
        "/__sandbox/seed" => json!({"count": rng.usize(1..4), "merNo": MER, "seed": rng.u64(..),
            "from": "2026-01-01 00:00:00", "to": "2026-03-31 23:59:59", "notifyUrl": NOTIFY}),
        "/__sandbox/faults" => {
            json!({"route": (["*", "/v2/payout"][rng.usize(0..2)]), "latencyMs": 0, "latencyJitterMs": 0, "errorRate": 0.0,
            "dropRate": 0.0, "malformedRate": 0.0, "badSignatureRate": 0.0, "hangRate": 0.0, "hangMs": 0,
            "blankTradeNoRate": 0.0, "seed": 7})
        }
        "/__sandbox/behaviour" => {
            json!({"acceptReusedOrderNo": rng.bool(), "listLagMs": rng.u64(0..50)})
        }
        "/__sandbox/merchants" => json!({"mer_no": ([20002, MER][rng.usize(0..2)]),
            "public_key": merchant_key().public_key().to_base64(),
            "origins": [ORIGIN], "tokens": [TOKEN], "fee_rate": "0.025", "fixed_fee": "0.30", "reserve_rate": "0.05",
            "payout_fee": "1.00", "withdraw_fee_rate": "0.01",
            "opening": {"USD": "250000.00", "CNY": "800000.00", "MXN": "6000000.00", "EUR": "120000.00"},
            "card_notify_url": NOTIFY}),
        "/__sandbox/cards" => {
            json!({"mer_no": MER, "apply_order_no": (["CARD-2", CARD][rng.usize(0..2)]), "sub_mer_no": "SUB-1",
            "holder": "Ana Lima", "currency": "USD", "opening": "100.00", "balance": "100.00"})
        }
        _ => return None,
    })
}

/// Builds case number `n` for route `(method list, path template)`.
fn build(
    rng: &mut fastrand::Rng,
    key: &PrivateKey,
    gateway: bool,
    route: &(&str, &[&str]),
    k: &Known,
    n: u64,
) -> Case {
    let (template, methods) = *route;
    let mut case = Case {
        method: methods[rng.usize(0..methods.len())].to_string(),
        path: template.to_string(),
        headers: Vec::new(),
        content_type: Some("application/json"),
        body: Vec::new(),
        what: String::new(),
    };
    if rng.u8(0..12) == 0 {
        case.method = METHODS[rng.usize(0..METHODS.len())].to_string();
    }
    if gateway {
        let (headers, valid) = gateway_template(rng, template, k, n);
        case.headers = headers
            .into_iter()
            .map(|(h, v)| (h.to_string(), v.into_bytes()))
            .collect();
        match rng.u8(0..20) {
            0..=8 => {
                let (m, what) = mutate(rng, &valid);
                case.body = sign(key, &m);
                case.what = format!("signed, {what}");
            }
            9..=10 => {
                let signed: Value = serde_json::from_slice(&sign(key, &valid)).unwrap();
                let (m, what) = mutate(rng, &signed);
                case.body = serde_json::to_vec(&m).unwrap();
                case.what = format!("mutated after signing, {what}");
            }
            11..=13 => {
                case.body = sign(key, &valid);
                case.what = "valid".into();
            }
            14..=17 => {
                let (b, what) = hostile_bytes(rng, &sign(key, &valid));
                case.body = b;
                case.what = what.into();
            }
            _ => {
                // A header mutated: paymentType, Referer or the bearer token.
                case.body = sign(key, &valid);
                let name = ["paymentType", "referer", "authorization"][rng.usize(0..3)];
                case.headers.retain(|(h, _)| h != name);
                let value = hostile_string(rng);
                let value: String = value.chars().take(2000).collect();
                case.headers.push((name.to_string(), value.into_bytes()));
                case.what = format!("header {name}");
            }
        }
        if rng.u8(0..10) == 0 {
            case.content_type = [
                None,
                Some("text/plain"),
                Some("application/x-www-form-urlencoded"),
            ][rng.usize(0..3)];
        }
        return case;
    }
    // Simulation API: fill the path parameters.
    let actions: Vec<String> = [
        "pay",
        "fail",
        "close",
        "settle",
        "release-reserve",
        "refund",
        "chargeback",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let ids: Vec<String> = (1..=k.reviews.max(1)).map(|i| i.to_string()).collect();
    let mut path = template.to_string();
    let fills: [(&str, Vec<String>); 5] = [
        ("{trade_no}", k.trade_nos.clone()),
        ("{action}", actions),
        ("{id}", ids),
        ("{decision}", vec!["approve".into(), "reject".into()]),
        ("{n}", vec!["0".into()]),
    ];
    for (name, real) in &fills {
        if path.contains(name) {
            path = path.replace(name, &segment(rng, real));
        }
    }
    case.path = path;
    let valid = sim_template(rng, template);
    match rng.u8(0..10) {
        0..=3 if valid.is_some() => {
            let (m, what) = mutate(rng, valid.as_ref().unwrap());
            case.body = serde_json::to_vec(&m).unwrap();
            case.what = what;
        }
        4..=6 if valid.is_some() => {
            case.body = serde_json::to_vec(valid.as_ref().unwrap()).unwrap();
            case.what = "valid".into();
        }
        7..=8 => {
            let base = valid
                .map(|v| serde_json::to_vec(&v).unwrap())
                .unwrap_or_else(|| b"{}".to_vec());
            let (b, what) = hostile_bytes(rng, &base);
            case.body = b;
            case.what = what.into();
        }
        _ => case.what = "no body".into(),
    }
    if rng.u8(0..10) == 0 {
        case.content_type = [
            None,
            Some("text/plain"),
            Some("application/json; charset=utf-8"),
        ][rng.usize(0..3)];
    }
    case
}

/// Sends a case; checks the answer. Returns the status (0 when there was none).
async fn run(http: &reqwest::Client, r: &Running, case: &Case) -> (u16, Result<(), String>) {
    let url = format!("http://{}{}", r.addr, case.path);
    // What the server sees once the URL is normalised (`..` and `%2e%2e` resolved):
    // a path parameter of `..` can take the request out of `/__sandbox/`.
    let sent_path = url::Url::parse(&url).unwrap().path().to_string();
    let gateway = !sent_path
        .trim_start_matches('/')
        .to_ascii_lowercase()
        .starts_with("__sandbox");
    let mut req = http
        .request(case.method.parse().unwrap(), &url)
        .body(case.body.clone());
    if let Some(ct) = case.content_type {
        req = req.header("content-type", ct);
    }
    for (name, value) in &case.headers {
        if let Ok(v) = reqwest::header::HeaderValue::from_bytes(value) {
            req = req.header(name.as_str(), v);
        }
    }
    let resp = match req.send().await {
        Ok(r) => r,
        Err(e) => return (0, Err(format!("no answer: {e:?}"))),
    };
    let status = resp.status().as_u16();
    let ct = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let bytes = match resp.bytes().await {
        Ok(b) => b,
        Err(e) => return (status, Err(format!("answer cut: {e:?}"))),
    };
    if status >= 500 {
        return (
            status,
            Err(format!(
                "HTTP {status}: {}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(300)])
            )),
        );
    }
    let json: Option<Value> = serde_json::from_slice(&bytes).ok();
    let shown = || String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned();
    if gateway {
        let ok = json
            .as_ref()
            .and_then(|v| v.get("code"))
            .is_some_and(Value::is_string);
        if !ok || !ct.starts_with("application/json") {
            return (
                status,
                Err(format!(
                    "HTTP {status} without an envelope ({ct}): {}",
                    shown()
                )),
            );
        }
        return (status, Ok(()));
    }
    if status >= 400 {
        let ok = json
            .as_ref()
            .and_then(Value::as_object)
            .is_some_and(|o| o.len() == 1 && o.get("error").is_some_and(Value::is_string));
        if !ok {
            return (
                status,
                Err(format!("HTTP {status} without {{\"error\"}}: {}", shown())),
            );
        }
        return (status, Ok(()));
    }
    // Successes: JSON, but for the three documented non-JSON answers.
    let documented = match sent_path.as_str() {
        "/__sandbox/health" => ct.starts_with("text/plain") && &bytes[..] == b"ok",
        "/__sandbox/gateway-key" => {
            ct.starts_with("text/plain") && bytes.starts_with(b"-----BEGIN PUBLIC KEY-----")
        }
        p if p.contains("/files/") => {
            ["image/png", "image/jpeg", "application/pdf"].contains(&ct.as_str())
        }
        _ => false,
    };
    if documented || (json.is_some() && ct.starts_with("application/json")) {
        (status, Ok(()))
    } else {
        (
            status,
            Err(format!("HTTP {status} not JSON ({ct}): {}", shown())),
        )
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fuzz_every_route() {
    let r = start().await;
    let key = merchant_key();
    let c = client(&r);
    // A bank-transfer order with a review, so the review routes have something to find.
    let sepa = json!({"merNo": MER, "merOrderNo": "FZ-SEPA", "currencyCode": "EUR", "sourceAmount": "10.00",
        "returnUrl": "https://shop.example/r", "notifyUrl": NOTIFY, "ipAddress": "203.0.113.7", "version": "V3.0.0",
        "userAgent": "UA", "billingFirstName": "Ana", "billingLastName": "Lima"});
    let (_, v) = raw(
        &r,
        "/payment",
        &[("paymentType", "SEPA"), ("referer", ORIGIN)],
        sepa,
    )
    .await;
    let sepa_trade_no = v["data"]["tradeNo"].as_str().unwrap().to_string();
    let paid = c
        .send(&paydesk_gateway::wire::V2Payment {
            common: payin("FZ-PAID", "100.00", "USD"),
        })
        .await
        .unwrap()
        .data
        .trade_no;
    sim(&r, &format!("/__sandbox/orders/{paid}/pay"), json!({})).await;

    let gateway_routes: Vec<(&str, &[&str])> = Sandbox::gateway_paths()
        .iter()
        .map(|p| (*p, &["POST"][..]))
        .collect();
    let routes: Vec<(bool, (&str, &[&str]))> = gateway_routes
        .into_iter()
        .map(|r| (true, r))
        .chain(SIMULATION_ROUTES.iter().map(|r| (false, *r)))
        .collect();
    assert_eq!(
        routes.len(),
        11 + 16,
        "every route: 11 operations, 16 simulation calls"
    );

    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let mut rng = fastrand::Rng::with_seed(FUZZ_SEED);
    let started = Instant::now();
    let mut cases = 0u64;
    let mut failures: Vec<String> = Vec::new();
    let mut per_route: BTreeMap<String, (u64, BTreeMap<u16, u64>)> = BTreeMap::new();
    let mut k = known(&r, &sepa_trade_no);
    while started.elapsed() < BUDGET {
        let (gateway, route) = routes[(cases as usize) % routes.len()];
        if cases.is_multiple_of(16) {
            k = known(&r, &sepa_trade_no);
        }
        let case = build(&mut rng, &key, gateway, &route, &k, cases);
        let (status, outcome) = run(&http, &r, &case).await;
        cases += 1;
        let entry = per_route.entry(route.0.to_string()).or_default();
        entry.0 += 1;
        *entry.1.entry(status).or_default() += 1;
        if let Err(e) = outcome {
            let path: String = case.path.chars().take(120).collect();
            failures.push(format!(
                "#{} {} {path} [{}]: {e}",
                cases - 1,
                case.method,
                case.what
            ));
        }
        // Faults set by a case would change what later cases see (drops, hangs):
        // cleared at once, before any gateway call.
        if route.0 == "/__sandbox/faults" && case.method == "POST" && status == 200 {
            r.sandbox.clear_faults();
        }
    }
    let elapsed = started.elapsed();
    r.sandbox.clear_faults();

    for (route, (n, statuses)) in &per_route {
        eprintln!("  {route}: {n} cases, statuses {statuses:?}");
    }
    for f in failures.iter().take(30) {
        eprintln!("  FAIL {f}");
    }
    eprintln!(
        "fuzz sandbox: {cases} cases, {} failures, {:.1} s (seed {FUZZ_SEED:#x})",
        failures.len(),
        elapsed.as_secs_f64()
    );
    assert!(per_route.len() == routes.len(), "every route was fuzzed");

    // The books still agree with the orders, and the sandbox still serves.
    let (status, v) = get_json(&r, "/__sandbox/ledger").await;
    assert_eq!((status, &v), (200, &json!({"consistent": true})), "{v}");
    r.sandbox.with_state(|s| s.check_ledger()).unwrap();
    let (status, v) = raw(
        &r,
        "/v2/balance/query",
        &[],
        json!({"merNo": MER, "currency": "USD"}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert!(v["code"].is_string(), "{v}");
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed",
        failures.len()
    );
}

async fn get_json(r: &Running, path: &str) -> (u16, Value) {
    let resp = reqwest::Client::new()
        .get(format!("http://{}{path}", r.addr))
        .send()
        .await
        .unwrap();
    (
        resp.status().as_u16(),
        resp.json().await.unwrap_or(Value::Null),
    )
}
