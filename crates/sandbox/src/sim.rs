//! The simulation API under `/__sandbox/` (not part of the gateway interface): drive
//! orders through their lifecycle, refund, charge back, settle, decide reviews, inspect
//! notifications, seed, reset, inject faults, register merchants and cards, count
//! the traffic.

use std::sync::Arc;

use axum::Router;
use axum::extract::State as AxState;
use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use chrono::Utc;
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::extract::{OptJson, SimJson, SimPath, from_map};
use crate::faults::Fault;
use crate::model::{Card, Kind, Merchant, Order, Refund, st};
use crate::notify::{Notification, NotifyKind};
use crate::seed::SeedSpec;
use crate::store::Touched;
use crate::{Shared, gateway};

/// A simulation API error: a 4xx status and `{"error": "..."}`.
pub(crate) type ApiError = (StatusCode, axum::Json<Value>);

type ApiResult = Result<Response, ApiError>;

/// Error messages are cut to this many characters (they may quote what was sent).
const MAX_ERROR_CHARS: usize = 1000;

pub(crate) fn api_error(status: StatusCode, msg: impl Into<String>) -> ApiError {
    let mut msg: String = msg.into();
    if let Some((cut, _)) = msg.char_indices().nth(MAX_ERROR_CHARS) {
        msg.truncate(cut);
        msg.push('…');
    }
    (status, axum::Json(json!({"error": msg})))
}

/// The bank details a SEPA payin answers with.
pub(crate) struct SepaDetails {
    pub reference: String,
    pub iban: String,
    pub beneficial_name: String,
    pub bank_name: String,
    pub bank_address: String,
    pub bic: String,
}

pub(crate) fn sepa_details(o: &Order) -> SepaDetails {
    SepaDetails {
        reference: format!("PD-{}", o.trade_no),
        iban: "DE89370400440532013000".into(),
        beneficial_name: "PayDesk Sandbox Collections GmbH".into(),
        bank_name: "Sandbox Bank AG".into(),
        bank_address: "Musterstrasse 1, 60311 Frankfurt am Main, DE".into(),
        bic: "COBADEFFXXX".into(),
    }
}

/// Called after an order is created: notifies a failure at once, and schedules the
/// automatic completion when the sandbox is configured for it.
pub(crate) fn after_create(s: &Arc<Shared>, o: &Order) {
    if !o.is_open() {
        notify_order(s, o, NotifyKind::Pay, None);
        return;
    }
    let Some(delay) = s.auto_complete_after else {
        return;
    };
    if o.hold {
        return;
    }
    let s = s.clone();
    let trade_no = o.trade_no.clone();
    tokio::spawn(async move {
        tokio::time::sleep(delay).await;
        let (hold, magic) = match s.read().order(&trade_no) {
            Some(o) => (
                o.hold || !o.is_open(),
                gateway::magic(o.amount, &o.currency),
            ),
            None => return,
        };
        if hold {
            return;
        }
        let to = if magic == gateway::MAGIC_CLOSE {
            Transition::Close
        } else {
            Transition::Pay
        };
        let _ = transition(&s, &trade_no, to);
    });
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transition {
    Pay,
    Fail,
    Close,
    Settle,
    ReleaseReserve,
}

/// Moves an order; the ledger follows through `State::update_order`.
pub(crate) fn transition(s: &Arc<Shared>, trade_no: &str, t: Transition) -> Result<Order, String> {
    let mut state = s.write();
    let idx = state
        .index_of(trade_no)
        .ok_or_else(|| format!("no order {trade_no}"))?;
    let o = &state.orders[idx];
    let allowed = match t {
        Transition::Pay | Transition::Fail | Transition::Close => o.is_open(),
        Transition::Settle => o.kind == Kind::Payin && o.is_paid() && !o.settled,
        Transition::ReleaseReserve => o.kind == Kind::Payin && o.is_paid() && !o.reserve_released,
    };
    if !allowed {
        return Err(format!(
            "order {trade_no} in state {} does not allow {t:?}",
            o.state
        ));
    }
    let now = Utc::now();
    state.update_order(idx, |o| {
        o.updated = now;
        match t {
            Transition::Pay => {
                o.state = st::SUCCESS;
                o.message = "success".into();
            }
            Transition::Fail => {
                o.state = st::FAILED;
                o.refusal_reason = "failed by the simulation API".into();
            }
            Transition::Close => {
                o.state = st::CLOSED;
                o.message = "closed: the customer did not pay in time".into();
            }
            Transition::Settle => o.settled = true,
            Transition::ReleaseReserve => o.reserve_released = true,
        }
    });
    let o = state.orders[idx].clone();
    s.persist(&state, &Touched::order(idx));
    drop(state);
    if matches!(t, Transition::Pay | Transition::Fail | Transition::Close) {
        notify_order(s, &o, NotifyKind::Pay, None);
    }
    Ok(o)
}

/// The checks a refund and a chargeback share: a paid payin, and an amount above 0 and
/// at most what is left of it (all of it when absent). Returns the index and amount.
fn reversible(
    state: &crate::model::State,
    trade_no: &str,
    amount: Option<Decimal>,
    what: &str,
) -> Result<(usize, Decimal), (StatusCode, String)> {
    let idx = state
        .index_of(trade_no)
        .ok_or((StatusCode::NOT_FOUND, format!("no order {trade_no}")))?;
    let o = &state.orders[idx];
    if o.kind != Kind::Payin || !matches!(o.state, st::SUCCESS | st::PARTLY_REFUNDED) {
        return Err((
            StatusCode::CONFLICT,
            format!("order {trade_no} in state {} cannot be {what}", o.state),
        ));
    }
    let left = o.amount - o.refunded();
    let amount = amount.unwrap_or(left);
    if amount <= Decimal::ZERO || amount > left {
        return Err((
            StatusCode::BAD_REQUEST,
            format!("amount: must be above 0 and at most {left}"),
        ));
    }
    // A part of a cent would leave balances no currency can show (and, at Decimal's
    // 28 digits, sums that round).
    let units = paydesk_gateway::Currency::parse(&o.currency)
        .map_or(2, paydesk_gateway::Currency::minor_units);
    if amount.normalize().scale() > units {
        return Err((
            StatusCode::BAD_REQUEST,
            format!(
                "amount: has {} decimal places but {} allows at most {units}",
                amount.normalize().scale(),
                o.currency
            ),
        ));
    }
    Ok((idx, amount))
}

fn refund(
    s: &Arc<Shared>,
    trade_no: &str,
    amount: Option<Decimal>,
) -> Result<Order, (StatusCode, String)> {
    let mut state = s.write();
    let (idx, amount) = reversible(&state, trade_no, amount, "refunded")?;
    let o = &state.orders[idx];
    // A refund comes out of the bucket the payin's money is in.
    let b = state.balance(o.mer_no, &o.currency);
    let room = if o.settled { b.available } else { b.unchecked };
    if room < amount {
        return Err((
            StatusCode::CONFLICT,
            format!(
                "insufficient balance for a refund of {amount} {}",
                o.currency
            ),
        ));
    }
    let now = Utc::now();
    let refund_no = format!("R{}-{}", o.trade_no, o.refunds.len() + 1);
    state.update_order(idx, |o| {
        o.refunds.push(Refund {
            refund_no: refund_no.clone(),
            amount,
            state: 3,
            created: now,
        });
        o.state = if o.refunded() >= o.amount {
            st::REFUNDED
        } else {
            st::PARTLY_REFUNDED
        };
        o.updated = now;
    });
    let o = state.orders[idx].clone();
    s.persist(&state, &Touched::order(idx));
    drop(state);
    notify_order(s, &o, NotifyKind::Refund, Some(refund_no));
    Ok(o)
}

fn chargeback(
    s: &Arc<Shared>,
    trade_no: &str,
    amount: Option<Decimal>,
) -> Result<Order, (StatusCode, String)> {
    let mut state = s.write();
    let (idx, amount) = reversible(&state, trade_no, amount, "charged back")?;
    state.update_order(idx, |o| {
        o.chargeback = Some(amount);
        o.state = st::CHARGED_BACK;
        o.updated = Utc::now();
    });
    let o = state.orders[idx].clone();
    s.persist(&state, &Touched::order(idx));
    drop(state);
    notify_order(s, &o, NotifyKind::Chargeback, None);
    Ok(o)
}

/// Queues a signed notification about `o` to its `notifyUrl` (none if it has none).
pub(crate) fn notify_order(
    s: &Arc<Shared>,
    o: &Order,
    kind: NotifyKind,
    refund_no: Option<String>,
) {
    if o.notify_url.is_empty() {
        return;
    }
    let mut body = Map::new();
    let mut put = |k: &str, v: Value| {
        body.insert(k.to_string(), v);
    };
    put("notifyType", json!(kind.as_str()));
    put("merNo", json!(o.mer_no));
    put("merOrderNo", json!(o.mer_order_no));
    put("tradeNo", json!(o.trade_no));
    put("payCode", json!(o.pay_code()));
    put("state", json!(o.state));
    put("status", json!(o.status()));
    put("currencyCode", json!(o.currency));
    put("sourceAmount", json!(o.amount.to_string()));
    if let Some(r) = refund_no.and_then(|no| o.refunds.iter().find(|r| r.refund_no == no)) {
        put("refundNo", json!(r.refund_no));
        put("refundAmount", json!(r.amount.to_string()));
    }
    if let Some(c) = o.chargeback.filter(|_| kind == NotifyKind::Chargeback) {
        put("chargebackAmount", json!(c.to_string()));
    }
    if kind == NotifyKind::Card {
        put("applyOrderNo", json!(o.card));
        put(
            "operation",
            json!(if o.kind == Kind::TopUp {
                "topUp"
            } else {
                "withdraw"
            }),
        );
    }
    put(
        "notifyTime",
        json!(Utc::now().format("%Y-%m-%d %H:%M:%S").to_string()),
    );
    s.with_dialect(|d| d.notification(&mut body));
    queue(s, kind, o.mer_no, &o.trade_no, &o.notify_url, body);
}

pub(crate) fn queue(
    s: &Arc<Shared>,
    kind: NotifyKind,
    mer_no: u64,
    trade_no: &str,
    url: &str,
    mut body: Map<String, Value>,
) {
    let signing = s.with_dialect(|d| d.signing());
    if let Ok(signed) = paydesk_gateway::sign_body(&body, &signing, &s.gateway_key) {
        body.insert("sign".into(), Value::String(signed.sign));
    }
    let note = {
        let mut notes = s
            .notifications
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let id = notes.last().map_or(1, |n| n.id + 1);
        let note = Notification {
            id,
            kind,
            mer_no,
            trade_no: trade_no.to_string(),
            url: url.to_string(),
            body,
            attempts: Vec::new(),
            delivered: false,
            gave_up: false,
        };
        notes.push(note.clone());
        note
    };
    let state = s.read();
    s.persist(
        &state,
        &Touched {
            notifications: vec![note.clone()],
            ..Touched::default()
        },
    );
    drop(state);
    tokio::spawn(crate::notify::deliver(s.clone(), note.id));
}

#[derive(Debug, Deserialize)]
struct AmountBody {
    amount: Option<String>,
}

fn parse_amount(body: Option<AmountBody>) -> Result<Option<Decimal>, ApiError> {
    match body.and_then(|b| b.amount) {
        None => Ok(None),
        Some(a) => paydesk_gateway::money::parse_decimal("amount", &a)
            .map(Some)
            .map_err(|e| api_error(StatusCode::BAD_REQUEST, e.to_string())),
    }
}

fn order_json(o: &Order) -> Value {
    json!({"order": o, "listItem": gateway::list_item(o)})
}

/// Every call of the simulation API: its path (as the router has it) and methods.
pub const SIMULATION_ROUTES: &[(&str, &[&str])] = &[
    ("/__sandbox/health", &["GET"]),
    ("/__sandbox/gateway-key", &["GET"]),
    ("/__sandbox/orders/{trade_no}", &["GET"]),
    ("/__sandbox/orders/{trade_no}/{action}", &["POST"]),
    ("/__sandbox/reviews", &["GET"]),
    ("/__sandbox/reviews/{id}/{decision}", &["POST"]),
    ("/__sandbox/reviews/{id}/files/{n}", &["GET"]),
    ("/__sandbox/notifications", &["GET"]),
    ("/__sandbox/seed", &["POST"]),
    ("/__sandbox/reset", &["POST"]),
    ("/__sandbox/faults", &["POST", "DELETE", "GET"]),
    ("/__sandbox/behaviour", &["POST", "GET"]),
    ("/__sandbox/merchants", &["POST"]),
    ("/__sandbox/cards", &["POST", "GET"]),
    ("/__sandbox/ledger", &["GET"]),
    ("/__sandbox/traffic", &["GET", "DELETE"]),
];

/// The handlers of one path of [`SIMULATION_ROUTES`].
fn method_router(path: &str) -> Option<MethodRouter<Arc<Shared>>> {
    Some(match path {
        "/__sandbox/health" => get(|| async { "ok" }),
        "/__sandbox/gateway-key" => get(gateway_key),
        "/__sandbox/orders/{trade_no}" => get(show_order),
        "/__sandbox/orders/{trade_no}/{action}" => post(order_action),
        "/__sandbox/reviews" => get(list_reviews),
        "/__sandbox/reviews/{id}/{decision}" => post(decide_review),
        "/__sandbox/reviews/{id}/files/{n}" => get(review_file),
        "/__sandbox/notifications" => get(list_notifications),
        "/__sandbox/seed" => post(seed),
        "/__sandbox/reset" => post(reset),
        "/__sandbox/faults" => post(set_fault).delete(clear_faults).get(get_faults),
        "/__sandbox/behaviour" => post(set_behaviour).get(get_behaviour),
        "/__sandbox/merchants" => post(add_merchant),
        "/__sandbox/cards" => post(add_card).get(list_cards),
        "/__sandbox/ledger" => get(ledger),
        "/__sandbox/traffic" => get(crate::traffic::show).delete(crate::traffic::reset),
        _ => return None,
    })
}

pub(crate) fn routes(shared: Arc<Shared>) -> Router {
    let mut router = Router::new();
    for (path, _) in SIMULATION_ROUTES {
        if let Some(m) = method_router(path) {
            router = router.route(path, m);
        }
    }
    router
        .method_not_allowed_fallback(wrong_method)
        .with_state(shared)
}

/// A simulation path asked with a method it does not serve.
async fn wrong_method(method: Method, uri: Uri) -> ApiError {
    let path = uri.path();
    let allowed = SIMULATION_ROUTES
        .iter()
        .find(|(p, _)| same_route(p, path))
        .map_or_else(String::new, |(_, m)| m.join(", "));
    api_error(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("{method} {path}: method not allowed (this call takes {allowed})"),
    )
}

/// Whether `path` fits the route template `route` (`{name}` takes one segment).
fn same_route(route: &str, path: &str) -> bool {
    let (r, p): (Vec<&str>, Vec<&str>) = (route.split('/').collect(), path.split('/').collect());
    r.len() == p.len() && r.iter().zip(&p).all(|(r, p)| r.starts_with('{') || r == p)
}

/// A path under `/__sandbox/` that names no call.
pub(crate) async fn not_found(method: Method, uri: Uri) -> ApiError {
    api_error(
        StatusCode::NOT_FOUND,
        format!(
            "{method} {}: no such simulation call (see the README's simulation API table)",
            uri.path()
        ),
    )
}

async fn gateway_key(AxState(s): AxState<Arc<Shared>>) -> String {
    s.gateway_key.public_key().to_pem()
}

async fn show_order(
    AxState(s): AxState<Arc<Shared>>,
    SimPath(trade_no): SimPath<String>,
) -> ApiResult {
    let state = s.read();
    let o = state
        .order(&trade_no)
        .ok_or_else(|| api_error(StatusCode::NOT_FOUND, format!("no order {trade_no}")))?;
    Ok(axum::Json(order_json(o)).into_response())
}

async fn order_action(
    AxState(s): AxState<Arc<Shared>>,
    SimPath((trade_no, action)): SimPath<(String, String)>,
    OptJson(body): OptJson<AmountBody>,
) -> ApiResult {
    let result = match action.as_str() {
        "refund" => refund(&s, &trade_no, parse_amount(body)?),
        "chargeback" => chargeback(&s, &trade_no, parse_amount(body)?),
        other => {
            let t = match other {
                "pay" => Transition::Pay,
                "fail" => Transition::Fail,
                "close" => Transition::Close,
                "settle" => Transition::Settle,
                "release-reserve" => Transition::ReleaseReserve,
                _ => {
                    return Err(api_error(
                        StatusCode::NOT_FOUND,
                        format!("unknown action {other}"),
                    ));
                }
            };
            transition(&s, &trade_no, t).map_err(|e| {
                let status = if e.starts_with("no order") {
                    StatusCode::NOT_FOUND
                } else {
                    StatusCode::CONFLICT
                };
                (status, e)
            })
        }
    };
    let o = result.map_err(|(status, e)| api_error(status, e))?;
    Ok(axum::Json(order_json(&o)).into_response())
}

/// The reviews without their files' contents (see `reviews/{id}/files/{n}`).
async fn list_reviews(AxState(s): AxState<Arc<Shared>>) -> Response {
    let mut reviews = s.read().reviews.clone();
    for f in reviews.iter_mut().flat_map(|r| r.files.iter_mut()) {
        f.content_base64.clear();
    }
    axum::Json(json!(reviews)).into_response()
}

/// One file of a review submission, decoded, with its type.
async fn review_file(
    AxState(s): AxState<Arc<Shared>>,
    SimPath((id, n)): SimPath<(u64, usize)>,
) -> ApiResult {
    use base64::Engine as _;
    let state = s.read();
    let file = state
        .reviews
        .iter()
        .find(|r| r.id == id)
        .and_then(|r| r.files.get(n))
        .ok_or_else(|| api_error(StatusCode::NOT_FOUND, format!("no file {n} in review {id}")))?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&file.content_base64)
        .map_err(|e| api_error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let ctype = match file.suffix.to_ascii_lowercase().as_str() {
        ".png" => "image/png",
        ".pdf" => "application/pdf",
        _ => "image/jpeg",
    };
    Ok(([("content-type", ctype)], bytes).into_response())
}

async fn decide_review(
    AxState(s): AxState<Arc<Shared>>,
    SimPath((id, decision)): SimPath<(u64, String)>,
) -> ApiResult {
    let status = match decision.as_str() {
        "approve" => "approved",
        "reject" => "rejected",
        _ => {
            return Err(api_error(
                StatusCode::NOT_FOUND,
                "decision must be approve or reject",
            ));
        }
    };
    let (review, order) = {
        let mut state = s.write();
        let idx = state
            .reviews
            .iter()
            .position(|r| r.id == id)
            .ok_or_else(|| api_error(StatusCode::NOT_FOUND, format!("no review {id}")))?;
        state.reviews[idx].status = status.to_string();
        let review = state.reviews[idx].clone();
        let order = state.order(&review.trade_no).cloned();
        s.persist(
            &state,
            &Touched {
                reviews: vec![idx],
                ..Touched::default()
            },
        );
        (review, order)
    };
    if let Some(o) = order.filter(|o| !o.notify_url.is_empty()) {
        let mut body = Map::new();
        body.insert("notifyType".into(), json!("edd"));
        body.insert("merNo".into(), json!(o.mer_no));
        body.insert("tradeNo".into(), json!(o.trade_no));
        body.insert("merOrderNo".into(), json!(o.mer_order_no));
        body.insert("reviewId".into(), json!(review.id));
        body.insert("reviewStatus".into(), json!(status));
        body.insert(
            "notifyTime".into(),
            json!(Utc::now().format("%Y-%m-%d %H:%M:%S").to_string()),
        );
        queue(
            &s,
            NotifyKind::Edd,
            o.mer_no,
            &o.trade_no,
            &o.notify_url,
            body,
        );
    }
    Ok(axum::Json(json!(review)).into_response())
}

async fn list_notifications(AxState(s): AxState<Arc<Shared>>) -> Response {
    let notes = s
        .notifications
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    axum::Json(json!(notes)).into_response()
}

async fn seed(
    AxState(s): AxState<Arc<Shared>>,
    SimJson(body): SimJson<Map<String, Value>>,
) -> ApiResult {
    let max = crate::seed::MAX_SEED_COUNT;
    let count = body.get("count").and_then(Value::as_u64);
    if !count.is_some_and(|n| (1..=max as u64).contains(&n)) {
        return Err(api_error(
            StatusCode::BAD_REQUEST,
            format!("count: must be 1 to {max}"),
        ));
    }
    let spec: SeedSpec = from_map(body)?;
    spec.check()
        .map_err(|e| api_error(StatusCode::BAD_REQUEST, e))?;
    {
        let state = s.read();
        match spec.mer_no {
            Some(m) if !state.merchants.contains_key(&m) => {
                return Err(api_error(
                    StatusCode::NOT_FOUND,
                    format!("merNo: no merchant {m} is registered"),
                ));
            }
            None if state.merchants.is_empty() => {
                return Err(api_error(
                    StatusCode::NOT_FOUND,
                    "merNo: no merchant is registered",
                ));
            }
            _ => {}
        }
    }
    let s2 = s.clone();
    let added = tokio::task::spawn_blocking(move || crate::seed::seed(&s2, &spec))
        .await
        .map_err(|e| api_error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    Ok(axum::Json(json!({"added": added})).into_response())
}

async fn reset(AxState(s): AxState<Arc<Shared>>) -> Response {
    let mut state = s.write();
    let merchants: Vec<Merchant> = state.merchants.values().cloned().collect();
    let cards: Vec<Card> = state.cards.values().cloned().collect();
    *state = crate::model::State::default();
    for m in merchants {
        state.add_merchant(m);
    }
    for mut c in cards {
        c.balance = c.opening;
        state.cards.insert((c.mer_no, c.apply_order_no.clone()), c);
    }
    s.notifications
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clear();
    if let Some(store) = &s.store {
        let mut store = store
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Err(e) = store.clear() {
            tracing::error!(error = %e, "sandbox reset");
        }
    }
    let all = Touched {
        merchants: state.merchants.keys().copied().collect(),
        cards: state.cards.keys().cloned().collect(),
        ..Touched::default()
    };
    s.persist(&state, &all);
    axum::Json(json!({"reset": true})).into_response()
}

/// A fault from the body of `POST faults`: `route` and the [`Fault`] settings, each
/// within its bounds, and nothing else.
fn fault_body(mut body: Map<String, Value>) -> Result<(String, Fault), ApiError> {
    use crate::faults::{DURATION_FIELDS, MAX_FAULT_MS, RATE_FIELDS};
    let bad = |msg: String| api_error(StatusCode::BAD_REQUEST, msg);
    let route = match body.remove("route") {
        Some(Value::String(r)) if r == "*" || gateway::PATHS.contains(&r.as_str()) => r,
        _ => {
            return Err(bad(format!(
                "route: must be * or one of the gateway paths {}",
                gateway::PATHS.join(", ")
            )));
        }
    };
    for (key, v) in &body {
        if DURATION_FIELDS.contains(&key.as_str()) {
            if v.as_u64().is_none_or(|ms| ms > MAX_FAULT_MS) {
                return Err(bad(format!(
                    "{key}: must be an integer from 0 to {MAX_FAULT_MS} (milliseconds)"
                )));
            }
        } else if RATE_FIELDS.contains(&key.as_str()) {
            if !v.as_f64().is_some_and(|r| (0.0..=1.0).contains(&r)) {
                return Err(bad(format!("{key}: must be a number from 0 to 1")));
            }
        } else if key == "proxyStatus" {
            if v.as_u64().is_none_or(|st| !(100..=599).contains(&st)) {
                return Err(bad(
                    "proxyStatus: must be an HTTP status from 100 to 599".to_string()
                ));
            }
        } else if key == "proxyBody" {
            if !matches!(v.as_str(), Some("html" | "empty" | "envelope")) {
                return Err(bad("proxyBody: must be html, empty or envelope".to_string()));
            }
        } else if key != "seed" {
            return Err(bad(format!(
                "{key}: not a fault setting (route, {}, {}, proxyStatus, proxyBody, seed)",
                DURATION_FIELDS.join(", "),
                RATE_FIELDS.join(", ")
            )));
        }
    }
    let fault: Fault = from_map(body)?;
    fault.check().map_err(bad)?;
    Ok((route, fault))
}

async fn set_fault(
    AxState(s): AxState<Arc<Shared>>,
    SimJson(body): SimJson<Map<String, Value>>,
) -> ApiResult {
    let (route, fault) = fault_body(body)?;
    s.faults
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(route.clone(), fault.arm());
    Ok(axum::Json(json!({"route": route})).into_response())
}

async fn get_faults(AxState(s): AxState<Arc<Shared>>) -> Response {
    let faults: std::collections::BTreeMap<String, Fault> = s
        .faults
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .map(|(route, armed)| (route.clone(), armed.fault.clone()))
        .collect();
    axum::Json(json!(faults)).into_response()
}

async fn clear_faults(AxState(s): AxState<Arc<Shared>>) -> Response {
    s.faults
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clear();
    axum::Json(json!({"cleared": true})).into_response()
}

/// Sets how the sandbox behaves where the interface leaves it open (see
/// [`crate::Behaviour`]): a reused `merOrderNo` taken as a new order, a lagging list.
async fn set_behaviour(
    AxState(s): AxState<Arc<Shared>>,
    SimJson(body): SimJson<Map<String, Value>>,
) -> ApiResult {
    let max = crate::MAX_LIST_LAG_MS;
    for (key, v) in &body {
        match key.as_str() {
            "acceptReusedOrderNo" if v.is_boolean() => {}
            "acceptReusedOrderNo" => {
                return Err(api_error(
                    StatusCode::BAD_REQUEST,
                    "acceptReusedOrderNo: must be true or false",
                ));
            }
            "listLagMs" if v.as_u64().is_some_and(|ms| ms <= max) => {}
            "listLagMs" => {
                return Err(api_error(
                    StatusCode::BAD_REQUEST,
                    format!("listLagMs: must be an integer from 0 to {max} (milliseconds)"),
                ));
            }
            "speaks" if v.is_null() => {}
            "speaks" => {
                let text = v.to_string();
                paydesk_gateway::Conventions::from_json(&text).map_err(|e| {
                    api_error(
                        StatusCode::BAD_REQUEST,
                        format!("speaks.{}: {}", e.field, e.rule),
                    )
                })?;
            }
            other => {
                return Err(api_error(
                    StatusCode::BAD_REQUEST,
                    format!(
                        "{other}: not a behaviour setting (acceptReusedOrderNo, listLagMs, speaks)"
                    ),
                ));
            }
        }
    }
    let b: crate::Behaviour = from_map(body)?;
    b.check()
        .map_err(|e| api_error(StatusCode::BAD_REQUEST, e))?;
    *s.behaviour
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = b.clone();
    Ok(axum::Json(json!(b)).into_response())
}

async fn get_behaviour(AxState(s): AxState<Arc<Shared>>) -> Response {
    axum::Json(json!(s.behaviour())).into_response()
}

async fn add_merchant(
    AxState(s): AxState<Arc<Shared>>,
    SimJson(m): SimJson<Merchant>,
) -> ApiResult {
    m.check()
        .map_err(|e| api_error(StatusCode::BAD_REQUEST, e))?;
    let mut state = s.write();
    let mer_no = m.mer_no;
    state.add_merchant(m);
    s.persist(
        &state,
        &Touched {
            merchants: vec![mer_no],
            ..Touched::default()
        },
    );
    Ok(axum::Json(json!({"merNo": mer_no})).into_response())
}

async fn add_card(AxState(s): AxState<Arc<Shared>>, SimJson(c): SimJson<Card>) -> ApiResult {
    c.check()
        .map_err(|e| api_error(StatusCode::BAD_REQUEST, e))?;
    let mut state = s.write();
    let key = (c.mer_no, c.apply_order_no.clone());
    state.put_card(c);
    s.persist(
        &state,
        &Touched {
            cards: vec![key],
            ..Touched::default()
        },
    );
    Ok(axum::Json(json!({"ok": true})).into_response())
}

async fn list_cards(AxState(s): AxState<Arc<Shared>>) -> Response {
    let cards: Vec<Card> = s.read().cards.values().cloned().collect();
    axum::Json(json!(cards)).into_response()
}

async fn ledger(AxState(s): AxState<Arc<Shared>>) -> Response {
    match s.read().check_ledger() {
        Ok(()) => axum::Json(json!({"consistent": true})).into_response(),
        Err(e) => api_error(StatusCode::CONFLICT, format!("ledger: {e}")).into_response(),
    }
}
