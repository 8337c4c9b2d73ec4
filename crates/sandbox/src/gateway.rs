//! The 11 documented operations. Each request goes through the same gate (faults,
//! JSON, merchant, signature, origin, token), then its operation, then the answer is
//! signed where the interface signs it, and faults after commit are applied.

use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, State as AxState};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use base64::Engine as _;
use chrono::{NaiveDateTime, Utc};
use paydesk_gateway::validate::{self as v, FieldError};
use paydesk_gateway::wire::{self, Envelope, Operation};
use paydesk_gateway::{Currency, SignSettings};
use rust_decimal::Decimal;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::codes::{Code, Failure, Outcome};
use crate::faults::Injected;
use crate::model::{Kind, Merchant, Order, Review, ReviewFile, State, st};
use crate::store::Touched;
use crate::{Shared, sim};

/// Review files: at most this many bytes each, decoded.
pub const MAX_FILE_BYTES: usize = 5 * 1024 * 1024;
/// Review files: at most this many bytes together.
pub const MAX_TOTAL_FILE_BYTES: usize = 20 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    V2Payment,
    V2Payout,
    V2TopUp,
    V2Query,
    V2List,
    V2Balance,
    V1Payment,
    V1Payout,
    V1Query,
    V1Review,
    V1Withdraw,
}

impl Route {
    fn path(self) -> &'static str {
        match self {
            Self::V2Payment => wire::V2Payment::PATH,
            Self::V2Payout => wire::V2Payout::PATH,
            Self::V2TopUp => wire::V2CardTopUp::PATH,
            Self::V2Query => wire::V2OrderQuery::PATH,
            Self::V2List => wire::V2OrderList::PATH,
            Self::V2Balance => wire::V2BalanceQuery::PATH,
            Self::V1Payment => wire::V1Payment::PATH,
            Self::V1Payout => wire::V1CardPayout::PATH,
            Self::V1Query => wire::V1RefundQuery::PATH,
            Self::V1Review => wire::V1TransferOrderSubmit::PATH,
            Self::V1Withdraw => wire::V1CardWithdraw::PATH,
        }
    }

    fn needs_origin(self) -> bool {
        matches!(
            self,
            Self::V2Payment | Self::V2Payout | Self::V2TopUp | Self::V1Payment | Self::V1Payout
        )
    }

    fn needs_token(self) -> bool {
        matches!(self, Self::V2Payment | Self::V2TopUp)
    }
}

pub(crate) fn routes(shared: Arc<Shared>) -> Router {
    let r = |route: Route| {
        post(
            move |AxState(s): AxState<Arc<Shared>>, headers: HeaderMap, body: Bytes| async move {
                handle(s, route, headers, body).await
            },
        )
    };
    Router::new()
        .route(Route::V2Payment.path(), r(Route::V2Payment))
        .route(Route::V2Payout.path(), r(Route::V2Payout))
        .route(Route::V2TopUp.path(), r(Route::V2TopUp))
        .route(Route::V2Query.path(), r(Route::V2Query))
        .route(Route::V2List.path(), r(Route::V2List))
        .route(Route::V2Balance.path(), r(Route::V2Balance))
        .route(Route::V1Payment.path(), r(Route::V1Payment))
        .route(Route::V1Payout.path(), r(Route::V1Payout))
        .route(Route::V1Query.path(), r(Route::V1Query))
        .route(Route::V1Review.path(), r(Route::V1Review))
        .route(Route::V1Withdraw.path(), r(Route::V1Withdraw))
        // Review files are base64 inside JSON: allow the file limits plus their encoding.
        .layer(DefaultBodyLimit::max(
            MAX_TOTAL_FILE_BYTES / 3 * 4 + 1024 * 1024,
        ))
        .with_state(shared)
}

/// A successful operation: its `data`, whether the answer is signed, an optional
/// non-200 status (Vietnam bank), and the code to answer with.
struct Done {
    /// Serialized once, straight from the wire type (`None`: no `data` member).
    data: Option<Box<RawValue>>,
    signed: bool,
    code: &'static str,
}

fn raw<T: serde::Serialize>(v: &T) -> Option<Box<RawValue>> {
    serde_json::value::to_raw_value(v).ok()
}

impl Done {
    fn data<T: serde::Serialize>(data: T) -> Self {
        Self {
            data: raw(&data),
            signed: false,
            code: wire::SUCCESS,
        }
    }
    fn signed<T: serde::Serialize>(data: T) -> Self {
        Self {
            data: raw(&data),
            signed: true,
            code: wire::SUCCESS,
        }
    }
}

/// A failure with the HTTP status it travels under (200 for business failures).
struct Refusal {
    status: StatusCode,
    failure: Failure,
}

impl From<Failure> for Refusal {
    fn from(failure: Failure) -> Self {
        Self {
            status: StatusCode::OK,
            failure,
        }
    }
}

async fn handle(s: Arc<Shared>, route: Route, headers: HeaderMap, bytes: Bytes) -> Response {
    let (latency, injected, hang) = {
        let mut faults = s
            .faults
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = if faults.contains_key(route.path()) {
            route.path()
        } else {
            "*"
        };
        match faults.get_mut(key) {
            Some(f) => (f.latency(), f.roll(), f.hang()),
            None => (
                std::time::Duration::ZERO,
                Injected::None,
                std::time::Duration::ZERO,
            ),
        }
    };
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    if injected == Injected::Error {
        return (StatusCode::SERVICE_UNAVAILABLE, "sandbox: injected 503").into_response();
    }
    let body = match parse_object(&bytes) {
        Ok(b) => b,
        Err(f) => return json_response(StatusCode::OK, &f.envelope::<Value>()),
    };
    let result = gate(&s, route, &headers, &body)
        .and_then(|merchant| run(&s, route, &headers, &body, &merchant));
    let mut envelope: Envelope<Box<RawValue>> = match &result {
        Ok(done) => Envelope {
            code: done.code.to_string(),
            message: "success".into(),
            data: match &done.data {
                None => wire::Data::Absent,
                Some(d) => wire::Data::Value(d.clone()),
            },
            sign: None,
            sign_type: None,
        },
        Err(r) => r.failure.envelope(),
    };
    if let Ok(done) = &result
        && done.signed
    {
        envelope.sign = Some(sign_request(&s, &body));
        envelope.sign_type = Some("RSA256".into());
        if injected == Injected::BadSignature {
            envelope.sign = Some(base64::engine::general_purpose::STANDARD.encode([7u8; 256]));
        }
    }
    let status = match &result {
        Ok(_) => StatusCode::OK,
        Err(r) => r.status,
    };
    if injected == Injected::Hang {
        tokio::time::sleep(hang).await;
    }
    match injected {
        Injected::Drop => dropped_connection(),
        Injected::Malformed => {
            let text = serde_json::to_string(&envelope).unwrap_or_default();
            let cut = text.len() / 2;
            (
                StatusCode::OK,
                [("content-type", "application/json")],
                text[..cut].to_string(),
            )
                .into_response()
        }
        _ => json_response(status, &envelope),
    }
}

fn json_response<T: serde::Serialize>(status: StatusCode, v: &T) -> Response {
    (status, axum::Json(v)).into_response()
}

/// Headers, then a body that fails: the client sees the connection cut mid-answer.
fn dropped_connection() -> Response {
    let stream = futures_util::stream::once(async {
        Err::<Bytes, std::io::Error>(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "sandbox: dropped",
        ))
    });
    Response::builder()
        .status(StatusCode::OK)
        .header("content-type", "application/json")
        .body(Body::from_stream(stream))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

fn parse_object(bytes: &[u8]) -> Outcome<Map<String, Value>> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(Failure::new(
            Code::NotJsonObject,
            "the body must be a JSON object",
        )),
        Err(e) => Err(Failure::new(
            Code::NotJsonObject,
            format!("the body is not JSON: {e}"),
        )),
    }
}

/// The request parameters the answer signs over: the body without its own signature.
fn sign_request(s: &Arc<Shared>, body: &Map<String, Value>) -> String {
    let mut original = body.clone();
    original.remove("sign");
    original.remove("sing");
    paydesk_gateway::sign_body(&original, &SignSettings::default(), &s.gateway_key)
        .map(|signed| signed.sign)
        .unwrap_or_default()
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// `scheme://host[:port]` of a URL.
fn origin_of(referer: &str) -> Option<String> {
    let u = url::Url::parse(referer).ok()?;
    Some(u.origin().ascii_serialization())
}

/// Merchant, signature, origin, token: the checks every request passes first.
fn gate(
    s: &Arc<Shared>,
    route: Route,
    headers: &HeaderMap,
    body: &Map<String, Value>,
) -> Result<Merchant, Refusal> {
    let mer_no = match body.get("merNo") {
        Some(Value::Number(n)) if route != Route::V2TopUp => n.as_u64(),
        Some(Value::String(t)) if route == Route::V2TopUp => t.parse().ok(),
        None => return Err(Failure::new(Code::MissingField, "merNo is required").into()),
        Some(_) => {
            let want = if route == Route::V2TopUp {
                "a string of digits"
            } else {
                "an integer"
            };
            return Err(Failure::new(Code::BadFormat, format!("merNo must be {want}")).into());
        }
    }
    .ok_or_else(|| Failure::new(Code::BadFormat, "merNo must be a positive merchant number"))?;
    let merchant = s.read().merchants.get(&mer_no).cloned().ok_or_else(|| {
        Failure::new(
            Code::UnknownMerchant,
            format!("merchant {mer_no} is not registered"),
        )
    })?;

    let field =
        if route == Route::V1Query && body.contains_key("sing") && !body.contains_key("sign") {
            "sing"
        } else {
            "sign"
        };
    let sign = match body.get(field) {
        Some(Value::String(t)) if !t.is_empty() => t.clone(),
        _ => return Err(Failure::new(Code::BadSignature, format!("{field} is required")).into()),
    };
    let key = merchant.key().ok_or_else(|| {
        Failure::new(
            Code::BadSignature,
            "the merchant's registered public key is unusable",
        )
    })?;
    if paydesk_gateway::verify_body(body, &SignSettings::default(), &key, &sign).is_err() {
        return Err(Failure::new(
            Code::BadSignature,
            format!("{field} does not verify with the merchant's public key"),
        )
        .into());
    }

    if route.needs_origin() {
        let origin = header(headers, "referer").and_then(origin_of);
        match origin {
            Some(o)
                if merchant
                    .origins
                    .iter()
                    .any(|r| origin_of(r).as_deref() == Some(o.as_str())) => {}
            Some(o) => {
                return Err(Failure::new(
                    Code::OriginNotRegistered,
                    format!("Referer origin {o} is not registered for merchant {mer_no}"),
                )
                .into());
            }
            None => {
                return Err(Failure::new(
                    Code::OriginNotRegistered,
                    "the Referer header is missing or not a URL",
                )
                .into());
            }
        }
    }
    if route.needs_token() {
        let token = header(headers, "authorization").and_then(|h| h.strip_prefix("Bearer "));
        match token {
            Some(t) if !t.starts_with("sha256:") && merchant.has_token(t) => {}
            Some(_) => {
                return Err(Failure::new(
                    Code::BadToken,
                    "the bearer token is not valid for this merchant",
                )
                .into());
            }
            None => {
                return Err(Failure::new(
                    Code::BadToken,
                    "Authorization: Bearer <token> is required",
                )
                .into());
            }
        }
    }
    Ok(merchant)
}

/// Decodes a request into its wire type; a missing field and a wrong type get their codes.
fn decode<T: DeserializeOwned>(body: &Map<String, Value>) -> Outcome<T> {
    let v = Value::Object(body.clone());
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.inner().to_string();
        if let Some(rest) = inner.strip_prefix("missing field `") {
            let field = rest.split('`').next().unwrap_or_default();
            let full = if path == "." {
                field.to_string()
            } else {
                format!("{path}.{field}")
            };
            Failure::new(Code::MissingField, format!("{full} is required"))
        } else {
            Failure::new(Code::BadFormat, format!("{path}: {inner}"))
        }
    })
}

fn field_failure(e: FieldError) -> Failure {
    let code = if e.rule == "is required" || e.rule.contains("is required") {
        Code::MissingField
    } else if e.field == "version" {
        Code::BadVersion
    } else {
        Code::BadFormat
    };
    Failure::new(code, e.to_string())
}

fn check<T: Operation>(op: &T) -> Outcome<()> {
    op.validate().map_err(field_failure)
}

fn run(
    s: &Arc<Shared>,
    route: Route,
    headers: &HeaderMap,
    body: &Map<String, Value>,
    m: &Merchant,
) -> Result<Done, Refusal> {
    match route {
        Route::V2Payment => {
            let op = wire::V2Payment {
                common: decode(body)?,
            };
            check(&op)?;
            let o = create_payin(s, m, &op.common, "WECHAT")?;
            Ok(Done::data(json!(wire::V2PayinResult {
                pay_code: o.pay_code(),
                trade_no: o.trade_no.clone(),
                mer_order_no: o.mer_order_no.clone(),
                pay_url: o.pay_url.clone(),
            })))
        }
        Route::V1Payment => v1_payment(s, headers, body, m),
        Route::V2Payout => {
            let op: wire::V2Payout = decode(body)?;
            check(&op)?;
            let account = format!("CLABE {}…{}", &op.clabe[..3], &op.clabe[14..]);
            let o = create_payout(
                s,
                m,
                &op.mer_order_no,
                &op.currency_code,
                op.source_amount,
                &op.notify_url,
                "CLABE",
                account,
            )?;
            Ok(Done::data(json!(payout_result(&o))))
        }
        Route::V1Payout => {
            let op: wire::V1CardPayout = decode(body)?;
            check(&op)?;
            let account = v::mask_card(&op.card_no);
            let o = create_payout(
                s,
                m,
                &op.mer_order_no,
                &op.currency_code,
                op.source_amount,
                &op.notify_url,
                "CARD",
                account,
            )?;
            Ok(Done::data(json!(payout_result(&o))))
        }
        Route::V2TopUp => {
            let op: wire::V2CardTopUp = decode(body)?;
            check(&op)?;
            card_operation(
                s,
                m,
                Kind::TopUp,
                &op.apply_order_no,
                Some(&op.mer_order_no),
                &op.currency,
                op.amount,
            )?;
            Ok(Done {
                data: raw(&""),
                signed: false,
                code: wire::SUCCESS,
            })
        }
        Route::V1Withdraw => {
            let op: wire::V1CardWithdraw = decode(body)?;
            check(&op)?;
            let o = card_operation(
                s,
                m,
                Kind::Withdraw,
                &op.apply_order_no,
                None,
                &op.currency,
                op.amount,
            )?;
            Ok(Done::data(json!(wire::WithdrawResult {
                trade_no: o.trade_no,
                fee: o.fee.to_string()
            })))
        }
        Route::V2Query => {
            let op: wire::V2OrderQuery = decode(body)?;
            check(&op)?;
            if op.version != "V4.0.0" {
                return Err(Failure::new(Code::BadVersion, "version must be V4.0.0").into());
            }
            let state = s.read();
            let o = own_order(&state, m.mer_no, &op.trade_no)?;
            let record = order_record(o, &op.query_type)?;
            // The interface's own example answers this query with code 200.
            Ok(Done {
                data: raw(&record),
                signed: true,
                code: "200",
            })
        }
        Route::V2List => order_list(s, body, m),
        Route::V2Balance => {
            let op: wire::V2BalanceQuery = decode(body)?;
            check(&op)?;
            let b = s.read().balance(m.mer_no, &op.currency);
            Ok(Done::data(json!(wire::BalanceRecord {
                currency: op.currency,
                balance: b.available,
                un_checked_balance: b.unchecked,
                total_balance: b.total(),
            })))
        }
        Route::V1Query => {
            let op: wire::V1RefundQuery = decode(body)?;
            check(&op)?;
            if op.query_type != "refund" {
                return Err(Failure::new(
                    Code::BadFormat,
                    "queryType: this query answers refund only",
                )
                .into());
            }
            let state = s.read();
            let o = own_order(&state, m.mer_no, &op.trade_no)?;
            Ok(Done::data(json!(refund_record(o, &op.refund_no)?)))
        }
        Route::V1Review => review(s, body, m),
    }
}

fn own_order<'a>(state: &'a State, mer_no: u64, trade_no: &str) -> Outcome<&'a Order> {
    state
        .order(trade_no)
        .filter(|o| o.mer_no == mer_no)
        .ok_or_else(|| {
            Failure::new(
                Code::OrderNotFound,
                format!("no order with tradeNo {trade_no}"),
            )
        })
}

fn round(amount: Decimal, currency: &str) -> Decimal {
    let units = Currency::parse(currency).map_or(2, Currency::minor_units);
    amount.round_dp(units)
}

/// The last two digits of the amount in cents (or in units for currencies without
/// minor units): the magic amounts of the README.
pub(crate) fn magic(amount: Decimal, currency: &str) -> u32 {
    let units = Currency::parse(currency).map_or(2, Currency::minor_units);
    let scaled = if units == 0 {
        amount.trunc()
    } else {
        (amount * Decimal::ONE_HUNDRED).trunc()
    };
    u32::try_from(scaled.mantissa().rem_euclid(100) / 10i128.pow(scaled.scale())).unwrap_or(0)
}

pub(crate) const MAGIC_FAIL: u32 = 13;
pub(crate) const MAGIC_HOLD: u32 = 44;
pub(crate) const MAGIC_CLOSE: u32 = 55;

fn duplicate(state: &State, mer_no: u64, mer_order_no: &str) -> Outcome<()> {
    if state.by_mer_order(mer_no, mer_order_no).is_some() {
        return Err(Failure::new(
            Code::DuplicateOrder,
            format!("merOrderNo {mer_order_no} was already used"),
        ));
    }
    Ok(())
}

fn new_order(
    state: &mut State,
    m: &Merchant,
    kind: Kind,
    method: &str,
    mer_order_no: &str,
    currency: &str,
    amount: Decimal,
) -> Order {
    let now = Utc::now();
    let trade_no = state.new_trade_no(now);
    let mer_order_no = if mer_order_no.is_empty() {
        trade_no.clone()
    } else {
        mer_order_no.to_string()
    };
    Order::new(
        trade_no,
        m.mer_no,
        mer_order_no,
        kind,
        method,
        currency,
        amount,
        now,
    )
}

fn create_payin(
    s: &Arc<Shared>,
    m: &Merchant,
    c: &wire::PayinCommon,
    method: &str,
) -> Outcome<Order> {
    let mut state = s.write();
    duplicate(&state, m.mer_no, &c.mer_order_no)?;
    let mut o = new_order(
        &mut state,
        m,
        Kind::Payin,
        method,
        &c.mer_order_no,
        &c.currency_code,
        c.source_amount,
    );
    o.notify_url = c.notify_url.clone();
    o.fee = round(c.source_amount * m.fee_rate, &c.currency_code);
    o.fixed_fee = round(m.fixed_fee, &c.currency_code);
    o.reserve = round(c.source_amount * m.reserve_rate, &c.currency_code);
    if method != "SEPA" {
        o.pay_url = format!(
            "https://pay.sandbox.paydesk.invalid/checkout/{}",
            o.trade_no
        );
    }
    match magic(c.source_amount, &c.currency_code) {
        MAGIC_FAIL => {
            o.state = st::FAILED;
            o.refusal_reason = "declined by the sandbox (amount ending in 13)".into();
        }
        MAGIC_HOLD => {
            o.hold = true;
            o.message = "pending: the sandbox holds amounts ending in 44".into();
        }
        _ => o.message = "pending".into(),
    }
    let idx = state.insert_order(o);
    let o = state.orders[idx].clone();
    s.persist(&state, &Touched::order(idx));
    drop(state);
    sim::after_create(s, &o);
    Ok(o)
}

#[allow(clippy::too_many_arguments)]
fn create_payout(
    s: &Arc<Shared>,
    m: &Merchant,
    mer_order_no: &str,
    currency: &str,
    amount: Decimal,
    notify_url: &str,
    channel: &str,
    account: String,
) -> Outcome<Order> {
    let mut state = s.write();
    duplicate(&state, m.mer_no, mer_order_no)?;
    let fee = round(m.payout_fee, currency);
    let available = state.balance(m.mer_no, currency).available;
    if available < amount + fee {
        return Err(Failure::new(
            Code::InsufficientBalance,
            format!(
                "balance {available} {currency} is less than {} {currency} (amount plus fee {fee})",
                amount + fee
            ),
        ));
    }
    let mut o = new_order(
        &mut state,
        m,
        Kind::Payout,
        channel,
        mer_order_no,
        currency,
        amount,
    );
    o.notify_url = notify_url.to_string();
    o.fee = fee;
    o.account = account;
    match magic(amount, currency) {
        MAGIC_FAIL => {
            o.state = st::FAILED;
            o.refusal_reason =
                "rejected by the beneficiary bank (sandbox: amount ending in 13)".into();
        }
        MAGIC_HOLD => o.hold = true,
        _ => {}
    }
    let idx = state.insert_order(o);
    let o = state.orders[idx].clone();
    s.persist(&state, &Touched::order(idx));
    drop(state);
    sim::after_create(s, &o);
    Ok(o)
}

fn payout_result(o: &Order) -> wire::PayoutResult {
    wire::PayoutResult {
        pay_code: o.pay_code(),
        trade_no: o.trade_no.clone(),
        mer_order_no: o.mer_order_no.clone(),
    }
}

fn card_operation(
    s: &Arc<Shared>,
    m: &Merchant,
    kind: Kind,
    apply_order_no: &str,
    mer_order_no: Option<&str>,
    currency: &str,
    amount: Decimal,
) -> Outcome<Order> {
    let mut state = s.write();
    let key = (m.mer_no, apply_order_no.to_string());
    let card = state.cards.get(&key).cloned().ok_or_else(|| {
        Failure::new(
            Code::CardNotFound,
            format!("applyOrderNo {apply_order_no} names no card of this merchant"),
        )
    })?;
    if card.currency != currency {
        return Err(Failure::new(
            Code::BadFormat,
            format!("currency: the card is in {}, not {currency}", card.currency),
        ));
    }
    if let Some(no) = mer_order_no {
        duplicate(&state, m.mer_no, no)?;
    }
    let mut o = new_order(
        &mut state,
        m,
        kind,
        "CARD",
        mer_order_no.unwrap_or_default(),
        currency,
        amount,
    );
    o.card = apply_order_no.to_string();
    o.account = card.sub_mer_no.clone();
    o.notify_url = m.card_notify_url.clone();
    match kind {
        Kind::TopUp => {
            let available = state.balance(m.mer_no, currency).available;
            if available < amount {
                return Err(Failure::new(
                    Code::InsufficientBalance,
                    format!(
                        "balance {available} {currency} is less than the top-up {amount} {currency}"
                    ),
                ));
            }
        }
        _ => {
            if card.balance < amount {
                return Err(Failure::new(
                    Code::InsufficientCardBalance,
                    format!(
                        "the card holds {} {currency}, less than {amount} {currency}",
                        card.balance
                    ),
                ));
            }
            o.fee = round(amount * m.withdraw_fee_rate, currency);
        }
    }
    o.state = st::SUCCESS;
    o.message = "success".into();
    let idx = state.insert_order(o);
    let o = state.orders[idx].clone();
    s.persist(
        &state,
        &Touched {
            orders: vec![idx],
            cards: vec![key],
            ..Touched::default()
        },
    );
    drop(state);
    sim::notify_order(s, &o, crate::NotifyKind::Card, None);
    Ok(o)
}

fn v1_payment(
    s: &Arc<Shared>,
    headers: &HeaderMap,
    body: &Map<String, Value>,
    m: &Merchant,
) -> Result<Done, Refusal> {
    let payment_type = header(headers, "paymentType")
        .unwrap_or_default()
        .to_string();
    if payment_type == "VN_BANK" {
        return vn_bank(s, body, m);
    }
    if !["WECHAT", "PIX", "APPLE_PAY", "CASH_APP", "GCASH", "SEPA"].contains(&payment_type.as_str())
    {
        return Err(Failure::new(
            Code::UnsupportedPaymentType,
            format!("paymentType {payment_type:?} is not a payin method of /payment"),
        )
        .into());
    }
    let common: wire::PayinCommon = decode(body)?;
    let method = wire::V1Method::from_body(&payment_type, &Value::Object(body.clone()))
        .map_err(|e| decode_error(&e.to_string()))?;
    let version = body
        .get("version")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let op = wire::V1Payment {
        common,
        version,
        method,
    };
    check(&op)?;
    if op.version != "V3.0.0" {
        return Err(Failure::new(Code::BadVersion, "version must be V3.0.0").into());
    }
    let o = create_payin(s, m, &op.common, &payment_type)?;
    let mut result = wire::V1PayinResult {
        pay_code: o.pay_code(),
        trade_no: o.trade_no.clone(),
        mer_order_no: o.mer_order_no.clone(),
        ..wire::V1PayinResult::default()
    };
    if payment_type == "SEPA" {
        let bank = sim::sepa_details(&o);
        result.reference = Some(bank.reference);
        result.iban = Some(bank.iban);
        result.beneficial_name = Some(bank.beneficial_name);
        result.bank_name = Some(bank.bank_name);
        result.bank_address = Some(bank.bank_address);
        result.bic = Some(bank.bic);
    } else {
        result.pay_url = Some(o.pay_url.clone());
    }
    Ok(Done::data(json!(result)))
}

fn decode_error(inner: &str) -> Failure {
    match inner.strip_prefix("missing field `") {
        Some(rest) => Failure::new(
            Code::MissingField,
            format!("{} is required", rest.split('`').next().unwrap_or_default()),
        ),
        None => Failure::new(Code::BadFormat, inner.to_string()),
    }
}

/// Vietnamese bank ids the sandbox knows; another id is answered with HTTP 404.
const VN_BANKS: &[i64] = &[
    970403, 970405, 970407, 970415, 970418, 970422, 970423, 970432, 970436, 970441, 970448,
];

fn vn_bank(s: &Arc<Shared>, body: &Map<String, Value>, m: &Merchant) -> Result<Done, Refusal> {
    let bad = |f: Failure| Refusal {
        status: StatusCode::BAD_REQUEST,
        failure: f,
    };
    // The common fields first: through `flatten` serde loses the failing field's name.
    decode::<wire::PayinCommon>(body).map_err(bad)?;
    let op: wire::V1VnBankPayment = decode(body).map_err(bad)?;
    check(&op).map_err(bad)?;
    if op.common.currency_code != "VND" {
        return Err(bad(Failure::new(
            Code::BadFormat,
            "currencyCode: VN_BANK takes VND",
        )));
    }
    if !VN_BANKS.contains(&op.vn_bank_id) {
        return Err(Refusal {
            status: StatusCode::NOT_FOUND,
            failure: Failure::new(
                Code::OrderNotFound,
                format!("record not found: vnBankId {}", op.vn_bank_id),
            ),
        });
    }
    let o = create_payin(s, m, &op.common, "VN_BANK")?;
    Ok(Done::signed(json!(wire::VnBankPayinResult {
        pay_code: o.pay_code(),
        trade_no: o.trade_no.clone(),
        mer_order_no: o.mer_order_no.clone(),
        message: o.message.clone(),
    })))
}

fn dec_opt(d: Decimal) -> Option<Decimal> {
    (!d.is_zero()).then_some(d)
}

pub(crate) fn order_record(o: &Order, query_type: &str) -> Outcome<wire::OrderRecord> {
    let mut r = wire::OrderRecord {
        state: o.state.to_string(),
        status: o.status().to_string(),
        trade_no: o.trade_no.clone(),
        mer_no: o.mer_no.to_string(),
        mer_order_no: o.mer_order_no.clone(),
        message: o.message.clone(),
        transaction_fixed_fee: Some(o.fixed_fee),
        settle: Some(i64::from(o.settled)),
        gas_fee: Some(Decimal::ZERO),
        receive_amount: o.is_paid().then(|| o.net()),
        currency_code: o.currency.clone(),
        source_amount: Some(o.amount),
        ..wire::OrderRecord::default()
    };
    match query_type {
        "sales" => {}
        "refund" => {
            let last = o.refunds.last().ok_or_else(|| {
                Failure::new(
                    Code::RefundNotFound,
                    format!("order {} has no refund", o.trade_no),
                )
            })?;
            r.refund_no = last.refund_no.clone();
            r.refund_amount = Some(last.amount);
            r.refund_currency = o.currency.clone();
        }
        "chargeback" => {
            let amount = o.chargeback.ok_or_else(|| {
                Failure::new(
                    Code::NotAllowedInState,
                    format!("order {} has no chargeback", o.trade_no),
                )
            })?;
            r.chargeback_amount = Some(amount);
            r.chargeback_currency = o.currency.clone();
            r.actual_chargeback_amount = Some(amount);
            r.actual_chargeback_currency = o.currency.clone();
        }
        other => {
            return Err(Failure::new(
                Code::BadFormat,
                format!("queryType must be sales, refund or chargeback, got {other:?}"),
            ));
        }
    }
    Ok(r)
}

fn refund_record(o: &Order, refund_no: &str) -> Outcome<wire::RefundRecord> {
    let refund = if refund_no.is_empty() {
        o.refunds.last()
    } else {
        o.refunds.iter().find(|r| r.refund_no == refund_no)
    };
    let refund = refund.ok_or_else(|| {
        Failure::new(
            Code::RefundNotFound,
            format!("no refund {refund_no:?} on order {}", o.trade_no),
        )
    })?;
    Ok(wire::RefundRecord {
        state: refund.state.to_string(),
        refund_no: refund.refund_no.clone(),
        trade_no: o.trade_no.clone(),
        message: "success".into(),
        mer_no: o.mer_no.to_string(),
        mer_order_no: o.mer_order_no.clone(),
        refund_amount: Some(refund.amount),
        refund_currency: o.currency.clone(),
        refuse_amount: None,
        refuse_currency: String::new(),
        actual_refuse_amount: None,
        actual_refuse_currency: String::new(),
        trade_fee: Some(Decimal::ZERO),
        settle: Some(i64::from(o.settled)),
        gas_fee: None,
        transaction_hash: String::new(),
        receive_amount: Some(refund.amount),
    })
}

pub(crate) fn list_item(o: &Order) -> wire::OrderListItem {
    let paid = o.is_paid() && o.kind == Kind::Payin;
    wire::OrderListItem {
        state: o.state,
        mer_order_no: o.mer_order_no.clone(),
        trade_no: o.trade_no.clone(),
        handling_fee: Some(o.fee),
        receive_amount: Some(if paid { o.net() } else { Decimal::ZERO }),
        settle_amount: Some(if paid && o.settled {
            o.net() - o.refunded()
        } else {
            Decimal::ZERO
        }),
        rolling_reserve: Some(o.reserve),
        transaction_fixed_fee: Some(o.fixed_fee),
        exception_handling_fee: Some(Decimal::ZERO),
        refund_amount: dec_opt(o.refunded()),
        source_amount: o.amount,
        settlement_currency: o.currency.clone(),
        refund_currency: if o.refunds.is_empty() {
            String::new()
        } else {
            o.currency.clone()
        },
        source_currency: o.currency.clone(),
        rolling_reserve_status: Some(i64::from(o.reserve_released)),
        settle: Some(i64::from(o.settled)),
        refusal_pay_reason: o.refusal_reason.clone(),
        message: o.message.clone(),
    }
}

fn millis(field: &str, text: &str) -> Outcome<i64> {
    let t: NaiveDateTime = v::date_time(field, text).map_err(field_failure)?;
    Ok(t.and_utc().timestamp_millis())
}

fn order_list(s: &Arc<Shared>, body: &Map<String, Value>, m: &Merchant) -> Result<Done, Refusal> {
    let op: wire::V2OrderList = decode(body)?;
    if op.version != wire::V2OrderList::VERSION {
        return Err(Failure::new(Code::BadVersion, "version must be V2.0.0").into());
    }
    if op.date_limit.is_none() && op.mer_order_nos.is_empty() && op.trade_nos.is_empty() {
        return Err(Failure::new(
            Code::ListNeedsFilter,
            "at least one of dateLimit, merOrderNos or tradeNos is required",
        )
        .into());
    }
    if v::page_num("pageNum", op.page_num).is_err()
        || v::page_size("pageSize", op.page_size).is_err()
    {
        return Err(Failure::new(
            Code::PageSizeOutOfBounds,
            format!(
                "pageNum must be 1 or more and pageSize between 1 and {}",
                v::MAX_PAGE_SIZE
            ),
        )
        .into());
    }
    check(&op)?;
    let window = match &op.date_limit {
        Some(d) => Some((
            millis("dateLimit.from", &d.from)?,
            millis("dateLimit.to", &d.to)? + 999,
        )),
        None => None,
    };
    let state = s.read();
    let in_window = |o: &Order| {
        window.is_none_or(|(from, to)| (from..=to).contains(&o.created.timestamp_millis()))
    };
    let size = op.page_size as usize;
    let skip = (op.page_num as usize - 1).saturating_mul(size);
    let (total, list): (usize, Vec<wire::OrderListItem>) =
        if op.mer_order_nos.is_empty() && op.trade_nos.is_empty() {
            let (from, to) = window.unwrap_or((i64::MIN, i64::MAX));
            let slice = state.window(m.mer_no, from, to);
            let items = slice
                .iter()
                .skip(skip)
                .take(size)
                .map(|&(_, i)| list_item(&state.orders[i]))
                .collect();
            (slice.len(), items)
        } else {
            let mut found: Vec<&Order> = op
                .mer_order_nos
                .iter()
                .filter_map(|n| state.by_mer_order(m.mer_no, n))
                .chain(
                    op.trade_nos
                        .iter()
                        .filter_map(|t| state.order(t).filter(|o| o.mer_no == m.mer_no)),
                )
                .filter(|o| in_window(o))
                .collect();
            found.sort_by(|a, b| (a.created, &a.trade_no).cmp(&(b.created, &b.trade_no)));
            found.dedup_by(|a, b| a.trade_no == b.trade_no);
            let items = found
                .iter()
                .skip(skip)
                .take(size)
                .map(|o| list_item(o))
                .collect();
            (found.len(), items)
        };
    let page = wire::OrderListPage {
        page_num: op.page_num,
        page_size: op.page_size,
        total_page: total.div_ceil(size) as i64,
        total: total as i64,
        list,
    };
    Ok(Done::signed(&page))
}

fn file_kind_ok(suffix: &str, bytes: &[u8]) -> bool {
    match suffix.to_ascii_lowercase().as_str() {
        ".png" => bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        ".jpg" | ".jpeg" => bytes.starts_with(&[0xFF, 0xD8, 0xFF]),
        ".pdf" => bytes.starts_with(b"%PDF-"),
        _ => false,
    }
}

fn review(s: &Arc<Shared>, body: &Map<String, Value>, m: &Merchant) -> Result<Done, Refusal> {
    let op: wire::V1TransferOrderSubmit = decode(body)?;
    check(&op)?;
    let mut files = Vec::new();
    let mut total = 0usize;
    for (i, f) in op.file_list.iter().enumerate() {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(f.file_content.as_bytes())
            .map_err(|_| {
                Failure::new(
                    Code::BadFormat,
                    format!("fileList[{i}].fileContent is not standard base64"),
                )
            })?;
        if bytes.len() > MAX_FILE_BYTES {
            return Err(Failure::new(
                Code::FileTooLarge,
                format!(
                    "fileList[{i}] is {} bytes; at most {MAX_FILE_BYTES} are accepted",
                    bytes.len()
                ),
            )
            .into());
        }
        total += bytes.len();
        if total > MAX_TOTAL_FILE_BYTES {
            return Err(Failure::new(
                Code::FileTooLarge,
                format!("the files are over {MAX_TOTAL_FILE_BYTES} bytes together"),
            )
            .into());
        }
        if !file_kind_ok(&f.suffix, &bytes) {
            return Err(Failure::new(
                Code::FileTypeNotAllowed,
                format!("fileList[{i}]: only PNG, JPEG and PDF files are accepted, and the content must match the suffix {}", f.suffix),
            )
            .into());
        }
        use sha2::Digest as _;
        files.push(ReviewFile {
            file_type: f.file_type.clone(),
            file_name: f.file_name.clone(),
            suffix: f.suffix.clone(),
            size: bytes.len(),
            sha256: hex_lower(&sha2::Sha256::digest(&bytes)),
            content_base64: f.file_content.clone(),
        });
    }
    let mut state = s.write();
    let o = own_order(&state, m.mer_no, &op.trade_no)?;
    if o.method != "SEPA" {
        return Err(Failure::new(
            Code::NotAllowedInState,
            format!("order {} is not a bank-transfer (SEPA) order", o.trade_no),
        )
        .into());
    }
    let id = state.reviews.len() as u64 + 1;
    state.reviews.push(Review {
        id,
        mer_no: m.mer_no,
        trade_no: op.trade_no.clone(),
        info: op
            .info_list
            .iter()
            .map(|i| (i.info_type.clone(), i.info_content.clone()))
            .collect(),
        files,
        status: "submitted".into(),
        created: Utc::now(),
    });
    let idx = state.reviews.len() - 1;
    s.persist(
        &state,
        &Touched {
            reviews: vec![idx],
            ..Touched::default()
        },
    );
    Ok(Done {
        data: None,
        signed: false,
        code: wire::SUCCESS,
    })
}

fn hex_lower(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
