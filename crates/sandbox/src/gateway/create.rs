//! Operations that create orders: payins, payouts, card top-ups and withdrawals.

use super::*;

pub(super) fn own_order<'a>(state: &'a State, mer_no: u64, trade_no: &str) -> Outcome<&'a Order> {
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

pub(super) fn round(amount: Decimal, currency: &str) -> Decimal {
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

/// Refuses a `merOrderNo` the merchant used before, unless the sandbox behaves as a
/// gateway that takes a reused number as a new order (see [`crate::Behaviour`]).
pub(super) fn duplicate(s: &Shared, state: &State, mer_no: u64, mer_order_no: &str) -> Outcome<()> {
    if s.behaviour().accept_reused_order_no {
        return Ok(());
    }
    if state.by_mer_order(mer_no, mer_order_no).is_some() {
        return Err(Failure::new(
            Code::DuplicateOrder,
            format!("merOrderNo {mer_order_no} was already used"),
        ));
    }
    Ok(())
}

pub(super) fn new_order(
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

pub(super) fn create_payin(
    s: &Arc<Shared>,
    m: &Merchant,
    c: &wire::PayinCommon,
    method: &str,
) -> Outcome<Order> {
    let mut state = s.write();
    duplicate(s, &state, m.mer_no, &c.mer_order_no)?;
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
        if let Some(hostile) = s.pay_url.read().unwrap_or_else(|e| e.into_inner()).clone() {
            o.pay_url = hostile;
        }
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
pub(super) fn create_payout(
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
    duplicate(s, &state, m.mer_no, mer_order_no)?;
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

pub(super) fn payout_result(o: &Order) -> wire::PayoutResult {
    wire::PayoutResult {
        pay_code: o.pay_code(),
        trade_no: o.trade_no.clone(),
        mer_order_no: o.mer_order_no.clone(),
    }
}

pub(super) fn card_operation(
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
        duplicate(s, &state, m.mer_no, no)?;
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

pub(super) fn v1_payment(
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
    // The method's extras, as `V1Method::from_body` reads them, but through `decode`
    // so that a failure names its field (`products[0].price`).
    let method = match payment_type.as_str() {
        "PIX" => wire::V1Method::Pix(decode(body)?),
        "APPLE_PAY" => wire::V1Method::ApplePay(decode(body)?),
        "CASH_APP" => wire::V1Method::CashApp(decode(body)?),
        "GCASH" => wire::V1Method::Gcash(decode(body)?),
        "SEPA" => wire::V1Method::Sepa(decode(body)?),
        _ => wire::V1Method::Wechat(wire::NoExtras {}),
    };
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
    check_prices(&op.method, &op.common.currency_code)?;
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

/// Product prices are amounts like any other: above 0, at most the largest amount,
/// in the order currency's minor units (E1007 naming the item otherwise).
fn check_prices(method: &wire::V1Method, currency: &str) -> Outcome<()> {
    let prices: Vec<(String, Decimal)> = match method {
        wire::V1Method::ApplePay(w) | wire::V1Method::CashApp(w) => w
            .products
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("products[{i}].price"), p.price))
            .collect(),
        wire::V1Method::Gcash(g) => g
            .product_info_list
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("productInfoList[{i}].price"), p.price))
            .collect(),
        _ => Vec::new(),
    };
    for (field, price) in prices {
        v::amount(&field, &price.to_string(), currency).map_err(field_failure)?;
    }
    Ok(())
}

/// Vietnamese bank ids the sandbox knows; another id is answered with HTTP 404.
pub(super) const VN_BANKS: &[i64] = &[
    970403, 970405, 970407, 970415, 970418, 970422, 970423, 970432, 970436, 970441, 970448,
];

pub(super) fn vn_bank(
    s: &Arc<Shared>,
    body: &Map<String, Value>,
    m: &Merchant,
) -> Result<Done, Refusal> {
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
