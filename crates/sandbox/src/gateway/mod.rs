//! The 11 documented operations. Each request goes through the same gate (faults,
//! JSON, merchant, signature, origin, token), then its operation, then the answer is
//! signed where the interface signs it, and faults after commit are applied.

use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State as AxState;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use base64::Engine as _;
use chrono::{NaiveDateTime, Utc};
use paydesk_gateway::Currency;
use paydesk_gateway::validate::{self as v, FieldError};
use paydesk_gateway::wire::{self, Envelope, Operation};
use rust_decimal::Decimal;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::codes::{Code, Failure, Outcome};
use crate::extract::Read;
use crate::faults::Injected;
use crate::model::{Kind, Merchant, Order, Review, ReviewFile, State, st};
use crate::store::Touched;
use crate::{Shared, sim};

mod create;
mod records;

use create::*;
pub(crate) use create::{MAGIC_CLOSE, magic};
pub(crate) use records::list_item;
use records::*;

/// Review files: at most this many bytes each, decoded.
pub const MAX_FILE_BYTES: usize = 5 * 1024 * 1024;
/// Review files: at most this many bytes together.
pub const MAX_TOTAL_FILE_BYTES: usize = 20 * 1024 * 1024;
/// Request bodies of the operations: at most this many bytes (review files are base64
/// inside JSON: the file limits plus their encoding, and 1 MiB for the rest). A larger
/// body is answered with the E1014 envelope.
pub const MAX_BODY_BYTES: usize = MAX_TOTAL_FILE_BYTES.div_ceil(3) * 4 + 1024 * 1024;

/// The paths of the 11 operations, in the interface's order.
pub const PATHS: [&str; 11] = {
    let mut paths = [""; 11];
    let mut i = 0;
    while i < Route::ALL.len() {
        paths[i] = Route::ALL[i].path();
        i += 1;
    }
    paths
};

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
    const ALL: [Route; 11] = [
        Self::V2Payment,
        Self::V2Payout,
        Self::V2TopUp,
        Self::V2Query,
        Self::V2List,
        Self::V2Balance,
        Self::V1Payment,
        Self::V1Payout,
        Self::V1Query,
        Self::V1Review,
        Self::V1Withdraw,
    ];

    const fn path(self) -> &'static str {
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
    let mut router = Router::new();
    for route in Route::ALL {
        // The body is read by `handle` itself, within `MAX_BODY_BYTES`, so that a body
        // too large is answered with the envelope (axum's own limit answers plain text).
        router = router.route(
            route.path(),
            post(
                move |AxState(s): AxState<Arc<Shared>>, headers: HeaderMap, body: Body| async move {
                    handle(s, route, headers, body).await
                },
            ),
        );
    }
    router
        .method_not_allowed_fallback(wrong_method)
        .with_state(shared)
}

/// An envelope with `code` and `message` only, under `status`.
fn refusal(status: StatusCode, code: Code, message: impl Into<String>) -> Response {
    json_response(status, &Failure::new(code, message).envelope::<Value>())
}

/// An operation's path asked with another method than POST: HTTP 405 and the E1005
/// envelope (the operation takes a JSON object, POSTed).
async fn wrong_method(method: Method, uri: Uri) -> Response {
    let mut r = refusal(
        StatusCode::METHOD_NOT_ALLOWED,
        Code::NotJsonObject,
        format!(
            "{method} {}: the operation takes a JSON object, POSTed",
            uri.path()
        ),
    );
    r.headers_mut().insert(
        axum::http::header::ALLOW,
        axum::http::HeaderValue::from_static("POST"),
    );
    r
}

/// A path that is no operation (and not under `/__sandbox/`): HTTP 404 with an
/// envelope whose `code` is `404`.
pub(crate) fn not_found(method: &Method, path: &str) -> Response {
    let envelope: Envelope<Value> =
        Envelope::error("404", format!("{method} {path}: no operation at this path"));
    json_response(StatusCode::NOT_FOUND, &envelope)
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

/// A body over [`MAX_BODY_BYTES`]: E1014 under HTTP 200, as every business failure.
pub(crate) fn too_large() -> Response {
    refusal(
        StatusCode::OK,
        Code::FileTooLarge,
        format!(
            "the body is over {MAX_BODY_BYTES} bytes, the most accepted (review files: \
             {MAX_FILE_BYTES} bytes each, {MAX_TOTAL_FILE_BYTES} together, in base64)"
        ),
    )
}

/// A body that broke off: E1005 (the client has likely gone).
pub(crate) fn broken(e: &str) -> Response {
    refusal(
        StatusCode::OK,
        Code::NotJsonObject,
        format!("the body could not be read: {e}"),
    )
}

async fn handle(s: Arc<Shared>, route: Route, headers: HeaderMap, body: Body) -> Response {
    // `extract::whole_body` has read it whole already; the limit holds here all the same.
    let bytes = match crate::extract::read_limited(&headers, body, MAX_BODY_BYTES).await {
        Read::Whole(b) => b,
        Read::TooLarge => return too_large(),
        Read::Broken(e) => return broken(&e),
    };
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
                Some(d) if injected == Injected::BlankTradeNo => {
                    wire::Data::Value(blank_trade_no(d))
                }
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
    if let Injected::Proxy { status, body } = injected {
        return proxy_answer(status, body);
    }
    match injected {
        Injected::Drop => dropped_connection(),
        Injected::Malformed => {
            let text = serde_json::to_string(&envelope).unwrap_or_default();
            // Half of it, cut on a character boundary (the text may hold any character).
            let mut cut = text.len() / 2;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            (
                StatusCode::OK,
                [("content-type", "application/json")],
                text[..cut].to_string(),
            )
                .into_response()
        }
        _ => {
            let mut v = serde_json::to_value(&envelope).unwrap_or(Value::Null);
            s.with_dialect(|d| d.answer(&mut v));
            json_response(status, &v)
        }
    }
}

/// What a proxy or load balancer in front of the gateway answers after the gateway
/// committed: its own page under its own status, never the gateway's envelope.
fn proxy_answer(status: u16, body: crate::faults::ProxyBody) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    match body {
        crate::faults::ProxyBody::Html => (
            status,
            [("content-type", "text/html")],
            format!(
                "<!DOCTYPE html><html><head><title>{status}</title></head><body><center><h1>{status}</h1></center><hr><center>nginx</center></body></html>"
            ),
        )
            .into_response(),
        crate::faults::ProxyBody::Empty => (status, "").into_response(),
        crate::faults::ProxyBody::Envelope => (
            status,
            [("content-type", "application/json")],
            format!(
                r#"{{"code":"{}","message":"{}"}}"#,
                status.as_u16(),
                status.canonical_reason().unwrap_or("error")
            ),
        )
            .into_response(),
    }
}

/// The answer's data with its `tradeNo` blank.
fn blank_trade_no(data: &RawValue) -> Box<RawValue> {
    let mut v: Value = serde_json::from_str(data.get()).unwrap_or(Value::Null);
    if let Some(t) = v.get_mut("tradeNo") {
        *t = Value::String(String::new());
    }
    serde_json::value::to_raw_value(&v).unwrap_or_else(|_| data.to_owned())
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
    let signing = s.with_dialect(|d| d.signing());
    paydesk_gateway::sign_body(&original, &signing, &s.gateway_key)
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

    // The V1 query takes either spelling, unless the conventions spoken name one.
    let only_sing = route == Route::V1Query && s.with_dialect(|d| d.v1_query_sings());
    let field = if only_sing
        || (route == Route::V1Query && body.contains_key("sing") && !body.contains_key("sign"))
    {
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
    let signing = s.with_dialect(|d| d.signing());
    if paydesk_gateway::verify_body(body, &signing, &key, &sign).is_err() {
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
            let query_type = s.with_dialect(|d| d.query_type_in(&op.query_type));
            let record = order_record(o, &query_type)?;
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
            // The V1 query's one type, as the interface names it.
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
