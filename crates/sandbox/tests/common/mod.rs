//! Shared set-up: a sandbox in-process on a free loopback port, the vectors' keys, a
//! client for the demo merchant, and a raw signed sender for requests the client
//! itself would refuse to send.

#![allow(clippy::unwrap_used, dead_code)]

use std::sync::Arc;
use std::time::Duration;

use paydesk_gateway::wire::*;
use paydesk_gateway::{
    ClientConfig, Credentials, GatewayClient, PrivateKey, PublicKey, Sensitive, SignSettings,
    sign_body,
};
use paydesk_sandbox::{Card, Running, Sandbox, SandboxConfig, demo_merchant};
use rust_decimal::Decimal;
use serde_json::{Map, Value};

pub const MER: u64 = 10001;
pub const ORIGIN: &str = "https://shop.example";
pub const TOKEN: &str = "tok-demo";
pub const CARD: &str = "CARD-1";

const VECTORS: &str = include_str!("../../../gateway/tests/vectors/signing.json");

pub fn key(name: &str, form: &str) -> String {
    let v: Value = serde_json::from_str(VECTORS).unwrap();
    v["keys"][name][form].as_str().unwrap().to_string()
}

pub fn merchant_key() -> PrivateKey {
    PrivateKey::from_text(&key("merchant", "private_pkcs8")).unwrap()
}

pub fn config(db: Option<std::path::PathBuf>) -> SandboxConfig {
    SandboxConfig {
        db,
        gateway_key: Some(Arc::new(
            PrivateKey::from_text(&key("gateway", "private_pkcs8")).unwrap(),
        )),
        auto_complete_after: None,
        retry: paydesk_sandbox::RetryPolicy {
            base: Duration::from_millis(40),
            max_attempts: 6,
        },
        behaviour: Default::default(),
    }
}

pub async fn start_with(cfg: SandboxConfig) -> Running {
    let sb = Sandbox::new(cfg).unwrap();
    if sb.with_state(|s| s.merchants.is_empty()) {
        sb.add_merchant(demo_merchant(
            MER,
            &merchant_key().public_key(),
            ORIGIN,
            TOKEN,
        ));
        sb.add_card(Card {
            mer_no: MER,
            apply_order_no: CARD.into(),
            sub_mer_no: "SUB-1".into(),
            holder: "Ana Lima".into(),
            currency: "USD".into(),
            opening: dec("100.00"),
            balance: dec("100.00"),
        });
    }
    sb.serve("127.0.0.1:0".parse().unwrap()).await.unwrap()
}

pub async fn start() -> Running {
    start_with(config(None)).await
}

pub fn client(r: &Running) -> GatewayClient {
    let mut cfg = ClientConfig::new(r.base_url(), MerNo(MER));
    cfg.referer = Some(format!("{ORIGIN}/checkout"));
    cfg.timeout = Duration::from_secs(5);
    let creds = Credentials {
        private_key: Arc::new(merchant_key()),
        gateway_key: Some(r.sandbox.gateway_public_key()),
        bearer: Some(Sensitive::new(TOKEN.to_string())),
    };
    GatewayClient::new(cfg, creds).unwrap()
}

pub fn dec(s: &str) -> Decimal {
    s.parse().unwrap()
}

pub fn payin(mer_order_no: &str, amount: &str, currency: &str) -> PayinCommon {
    PayinCommon {
        mer_no: MerNo(MER),
        mer_order_no: mer_order_no.into(),
        currency_code: currency.into(),
        source_amount: dec(amount),
        return_url: "https://shop.example/r".into(),
        notify_url: "https://shop.example/n".into(),
        ip_address: "203.0.113.7".into(),
        user_id: "u-1".into(),
        email: "buyer@shop.example".into(),
    }
}

pub fn clabe_payout(mer_order_no: &str, amount: &str) -> V2Payout {
    V2Payout {
        mer_no: MerNo(MER),
        mer_order_no: mer_order_no.into(),
        currency_code: "MXN".into(),
        source_amount: dec(amount),
        withdraw_type: "6".into(),
        return_url: String::new(),
        notify_url: "https://shop.example/n".into(),
        sign_type: "RSA256".into(),
        version: "V2.0.0".into(),
        ip_address: "203.0.113.7".into(),
        card_no: String::new(),
        clabe: "002010077777777771".into(),
    }
}

pub fn list_by_mer_order(nos: &[&str]) -> V2OrderList {
    V2OrderList {
        mer_no: MerNo(MER),
        mer_order_nos: nos.iter().map(|s| s.to_string()).collect(),
        trade_nos: vec![],
        date_limit: None,
        page_num: 1,
        page_size: 50,
        version: "V2.0.0".into(),
    }
}

/// Signs `body` with the merchant key and POSTs it as is; returns (status, JSON).
pub async fn raw(r: &Running, path: &str, headers: &[(&str, &str)], body: Value) -> (u16, Value) {
    let mut body: Map<String, Value> = body.as_object().unwrap().clone();
    if !body.contains_key("sign") && !body.contains_key("sing") {
        let signed = sign_body(&body, &SignSettings::default(), &merchant_key()).unwrap();
        body.insert("sign".into(), Value::String(signed.sign));
    }
    post_bytes(r, path, headers, serde_json::to_vec(&body).unwrap()).await
}

pub async fn post_bytes(
    r: &Running,
    path: &str,
    headers: &[(&str, &str)],
    bytes: Vec<u8>,
) -> (u16, Value) {
    let mut req = reqwest::Client::new()
        .post(r.base_url().join(path.trim_start_matches('/')).unwrap())
        .header("content-type", "application/json")
        .body(bytes);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

pub async fn sim(r: &Running, path: &str, body: Value) -> (u16, Value) {
    let resp = reqwest::Client::new()
        .post(r.base_url().join(path.trim_start_matches('/')).unwrap())
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

pub fn gateway_public(r: &Running) -> PublicKey {
    r.sandbox.gateway_public_key()
}
