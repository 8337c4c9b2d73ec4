//! Operations that read: the V2 record, the V1 refund record, the order list; and the
//! review submission.

use super::*;

pub(super) fn dec_opt(d: Decimal) -> Option<Decimal> {
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

pub(super) fn refund_record(o: &Order, refund_no: &str) -> Outcome<wire::RefundRecord> {
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

/// A `dateLimit` end read in the zone the sandbox speaks (UTC by default): `from` at the
/// earliest instant the wall-clock time names, `to` at the latest (a time that occurs
/// twice when clocks go back covers both; one that never occurs, when they go forward,
/// is the instant the clocks jumped to).
pub(super) fn millis(field: &str, text: &str, zone: chrono_tz::Tz, latest: bool) -> Outcome<i64> {
    use chrono::TimeZone as _;
    let t: NaiveDateTime = v::date_time(field, text).map_err(field_failure)?;
    let at = match zone.from_local_datetime(&t) {
        chrono::LocalResult::Single(a) => a,
        chrono::LocalResult::Ambiguous(a, b) => {
            if latest {
                a.max(b)
            } else {
                a.min(b)
            }
        }
        chrono::LocalResult::None => {
            // In the gap: an hour later is after the jump.
            let later = t + chrono::Duration::hours(1);
            zone.from_local_datetime(&later)
                .earliest()
                .ok_or_else(|| Failure::new(Code::BadFormat, format!("{field}: no such time")))?
        }
    };
    Ok(at.timestamp_millis())
}

pub(super) fn order_list(
    s: &Arc<Shared>,
    body: &Map<String, Value>,
    m: &Merchant,
) -> Result<Done, Refusal> {
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
    let (most, zone) = s.with_dialect(|d| (d.max_page_size(), d.zone()));
    if v::page_num("pageNum", op.page_num).is_err()
        || !(1..=i64::from(most)).contains(&op.page_size)
    {
        return Err(Failure::new(
            Code::PageSizeOutOfBounds,
            format!("pageNum must be 1 or more and pageSize between 1 and {most}"),
        )
        .into());
    }
    check(&op)?;
    let window = match &op.date_limit {
        Some(d) => Some((
            millis("dateLimit.from", &d.from, zone, false)?,
            millis("dateLimit.to", &d.to, zone, true)? + 999,
        )),
        None => None,
    };
    if let (Some((from, to)), Some(most)) = (window, s.with_dialect(|d| d.max_span_ms()))
        && to - from > most
    {
        return Err(Failure::new(
            Code::BadFormat,
            format!(
                "dateLimit: from and to must be at most {} hours apart",
                most / 3_600_000
            ),
        )
        .into());
    }
    // Orders of the kinds this gateway's list does not show are never listed.
    let shows = s.with_dialect(|d| d.list_shows());
    let listed = |o: &Order| shows.is_none_or(|l| crate::dialect::lists(&l, o.kind));
    let state = s.read();
    // A gateway whose list lags shows an order only some time after it was made.
    let lag = i64::try_from(s.behaviour().list_lag_ms).unwrap_or(i64::MAX);
    let shown_until = chrono::Utc::now().timestamp_millis().saturating_sub(lag);
    let window = if lag > 0 {
        let (from, to) = window.unwrap_or((i64::MIN, i64::MAX));
        Some((from, to.min(shown_until)))
    } else {
        window
    };
    let in_window = |o: &Order| {
        window.is_none_or(|(from, to)| (from..=to).contains(&o.created.timestamp_millis()))
    };
    let size = op.page_size as usize;
    let skip = (op.page_num as usize - 1).saturating_mul(size);
    let (total, list): (usize, Vec<wire::OrderListItem>) =
        if op.mer_order_nos.is_empty() && op.trade_nos.is_empty() {
            let (from, to) = window.unwrap_or((i64::MIN, i64::MAX));
            let slice = state.window(m.mer_no, from, to);
            if shows.is_none() {
                let items = slice
                    .iter()
                    .skip(skip)
                    .take(size)
                    .map(|&(_, i)| list_item(&state.orders[i]))
                    .collect();
                (slice.len(), items)
            } else {
                let shown: Vec<usize> = slice
                    .iter()
                    .map(|&(_, i)| i)
                    .filter(|&i| listed(&state.orders[i]))
                    .collect();
                let items = shown
                    .iter()
                    .skip(skip)
                    .take(size)
                    .map(|&i| list_item(&state.orders[i]))
                    .collect();
                (shown.len(), items)
            }
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
                .filter(|o| in_window(o) && listed(o))
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

pub(super) fn file_kind_ok(suffix: &str, bytes: &[u8]) -> bool {
    match suffix.to_ascii_lowercase().as_str() {
        ".png" => bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        ".jpg" | ".jpeg" => bytes.starts_with(&[0xFF, 0xD8, 0xFF]),
        ".pdf" => bytes.starts_with(b"%PDF-"),
        _ => false,
    }
}

pub(super) fn review(
    s: &Arc<Shared>,
    body: &Map<String, Value>,
    m: &Merchant,
) -> Result<Done, Refusal> {
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

pub(super) fn hex_lower(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
