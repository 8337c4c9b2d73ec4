//! The simulation API under `/__sandbox/` (not part of the gateway interface): drive
//! orders through their lifecycle, refund, charge back, settle, decide reviews, inspect
//! notifications, seed, reset, inject faults, register merchants and cards.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State as AxState};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use chrono::Utc;
use paydesk_gateway::SignSettings;
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::faults::Fault;
use crate::model::{Card, Kind, Merchant, Order, Refund, st};
use crate::notify::{Notification, NotifyKind};
use crate::seed::SeedSpec;
use crate::store::Touched;
use crate::{Shared, gateway};

type ApiResult = Result<Response, (StatusCode, axum::Json<Value>)>;

fn api_error(status: StatusCode, msg: impl Into<String>) -> (StatusCode, axum::Json<Value>) {
    (status, axum::Json(json!({"error": msg.into()})))
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
            format!("amount must be above 0 and at most {left}"),
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
    if let Ok(signed) = paydesk_gateway::sign_body(&body, &SignSettings::default(), &s.gateway_key)
    {
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

fn parse_amount(
    body: Option<axum::Json<AmountBody>>,
) -> Result<Option<Decimal>, (StatusCode, axum::Json<Value>)> {
    match body.and_then(|b| b.0.amount) {
        None => Ok(None),
        Some(a) => paydesk_gateway::money::parse_decimal("amount", &a)
            .map(Some)
            .map_err(|e| api_error(StatusCode::BAD_REQUEST, e.to_string())),
    }
}

fn order_json(o: &Order) -> Value {
    json!({"order": o, "listItem": gateway::list_item(o)})
}

pub(crate) fn routes(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/__sandbox/health", get(|| async { "ok" }))
        .route("/__sandbox/gateway-key", get(gateway_key))
        .route("/__sandbox/orders/{trade_no}", get(show_order))
        .route("/__sandbox/orders/{trade_no}/{action}", post(order_action))
        .route("/__sandbox/reviews", get(list_reviews))
        .route("/__sandbox/reviews/{id}/{decision}", post(decide_review))
        .route("/__sandbox/reviews/{id}/files/{n}", get(review_file))
        .route("/__sandbox/notifications", get(list_notifications))
        .route("/__sandbox/seed", post(seed))
        .route("/__sandbox/reset", post(reset))
        .route(
            "/__sandbox/faults",
            post(set_fault).delete(clear_faults).get(get_faults),
        )
        .route(
            "/__sandbox/behaviour",
            post(set_behaviour).get(get_behaviour),
        )
        .route("/__sandbox/merchants", post(add_merchant))
        .route("/__sandbox/cards", post(add_card).get(list_cards))
        .route("/__sandbox/ledger", get(ledger))
        .with_state(shared)
}

async fn gateway_key(AxState(s): AxState<Arc<Shared>>) -> String {
    s.gateway_key.public_key().to_pem()
}

async fn show_order(AxState(s): AxState<Arc<Shared>>, Path(trade_no): Path<String>) -> ApiResult {
    let state = s.read();
    let o = state
        .order(&trade_no)
        .ok_or_else(|| api_error(StatusCode::NOT_FOUND, format!("no order {trade_no}")))?;
    Ok(axum::Json(order_json(o)).into_response())
}

async fn order_action(
    AxState(s): AxState<Arc<Shared>>,
    Path((trade_no, action)): Path<(String, String)>,
    body: Option<axum::Json<AmountBody>>,
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
    Path((id, n)): Path<(u64, usize)>,
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
    Path((id, decision)): Path<(u64, String)>,
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
    axum::Json(spec): axum::Json<SeedSpec>,
) -> ApiResult {
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

#[derive(Debug, Deserialize)]
struct FaultBody {
    route: String,
    #[serde(flatten)]
    fault: Fault,
}

async fn set_fault(
    AxState(s): AxState<Arc<Shared>>,
    axum::Json(b): axum::Json<FaultBody>,
) -> Response {
    s.faults
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(b.route.clone(), b.fault.arm());
    axum::Json(json!({"route": b.route})).into_response()
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
    axum::Json(b): axum::Json<crate::Behaviour>,
) -> Response {
    *s.behaviour
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = b.clone();
    axum::Json(json!(b)).into_response()
}

async fn get_behaviour(AxState(s): AxState<Arc<Shared>>) -> Response {
    axum::Json(json!(s.behaviour())).into_response()
}

async fn add_merchant(
    AxState(s): AxState<Arc<Shared>>,
    axum::Json(m): axum::Json<Merchant>,
) -> ApiResult {
    if m.key().is_none() {
        return Err(api_error(
            StatusCode::BAD_REQUEST,
            "publicKey: not an RSA public key of 2048 to 4096 bits",
        ));
    }
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

async fn add_card(
    AxState(s): AxState<Arc<Shared>>,
    axum::Json(mut c): axum::Json<Card>,
) -> ApiResult {
    if paydesk_gateway::Currency::parse(&c.currency).is_err() {
        return Err(api_error(
            StatusCode::BAD_REQUEST,
            "currency: not an ISO 4217 code",
        ));
    }
    c.balance = c.opening;
    let mut state = s.write();
    let key = (c.mer_no, c.apply_order_no.clone());
    state.cards.insert(key.clone(), c);
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
        Err(e) => (
            StatusCode::CONFLICT,
            axum::Json(json!({"consistent": false, "error": e})),
        )
            .into_response(),
    }
}
