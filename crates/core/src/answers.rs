//! The desk's own rules for what a gateway answers, checked before an answer is
//! believed or cached: a page of the order list that breaks one is not cached, and the
//! error names the item, the field and the rule (its text quoted safely).

use std::collections::HashSet;

use paydesk_gateway::money::Currency;
use paydesk_gateway::validate::trade_no;
use paydesk_gateway::wire::{OrderListItem, OrderListPage};
use rust_decimal::Decimal;

use crate::error::{CoreError, CoreResult};

/// The most orders one sync window (a day by default) may say it holds: far above any
/// merchant's day, far below a count that would keep a sync asking for ever.
pub const MAX_ORDERS_PER_WINDOW: i64 = 10_000_000;

fn broken(field: String, rule: impl Into<String>) -> CoreError {
    record_error("order list", (&field, rule.into()))
}

/// A page of the order list, asked with `asked` a page: no more items than a page holds,
/// counts that agree and are bounded, no trade number twice. A page that fails is not
/// cached at all; its items are then checked one by one with [`item`].
pub fn order_page(page: &OrderListPage, asked: i64) -> CoreResult<()> {
    // A gateway may serve fewer a page than asked, and say so.
    let page_size = if (1..=asked).contains(&page.page_size) {
        page.page_size
    } else {
        asked
    };
    let shown = i64::try_from(page.list.len()).unwrap_or(i64::MAX);
    if shown > page_size {
        return Err(broken(
            "list".into(),
            format!("holds {shown} items, but {page_size} were asked for"),
        ));
    }
    if !(0..=MAX_ORDERS_PER_WINDOW).contains(&page.total) {
        return Err(broken(
            "total".into(),
            format!("is {}; it must be 0 to {MAX_ORDERS_PER_WINDOW}", page.total),
        ));
    }
    let pages = (page.total + page_size - 1) / page_size.max(1);
    if page.total_page != pages && !(page.total == 0 && page.total_page <= 1) {
        return Err(broken(
            "totalPage".into(),
            format!(
                "is {}, but {} orders at {page_size} a page make {pages}",
                page.total_page, page.total
            ),
        ));
    }
    let mut seen = HashSet::new();
    for (n, i) in page.list.iter().enumerate() {
        if i.trade_no.is_empty() {
            continue;
        }
        if !seen.insert(i.trade_no.as_str()) {
            return Err(broken(
                format!("item {} tradeNo", n + 1),
                format!("{} appears twice on the page", i.trade_no),
            ));
        }
    }
    Ok(())
}

/// One order as the desk keeps it: a usable trade number, an ISO 4217 currency, a
/// positive source amount in that currency's digits, no negative fee or amount, and
/// any other currency named valid.
pub fn item(i: &OrderListItem) -> Result<(), (&'static str, String)> {
    trade_no("tradeNo", &i.trade_no).map_err(|e| ("tradeNo", e.rule))?;
    let currency = iso("sourceCurrency", &i.source_currency)?;
    amount("sourceAmount", i.source_amount, Some(currency), false)?;
    let settlement = optional_iso("settlementCurrency", &i.settlement_currency)?;
    let refund = optional_iso("refundCurrency", &i.refund_currency)?;
    // Fees and refunds are never negative; what is received or settled may be (a
    // payout, a chargeback).
    amounts(
        &[
            ("handlingFee", i.handling_fee, None),
            ("transactionFixedFee", i.transaction_fixed_fee, None),
            ("exceptionHandlingFee", i.exception_handling_fee, None),
            ("refundAmount", i.refund_amount, refund),
        ],
        false,
    )?;
    amounts(
        &[
            ("receiveAmount", i.receive_amount, None),
            ("settleAmount", i.settle_amount, settlement),
            ("rollingReserve", i.rolling_reserve, None),
        ],
        true,
    )?;
    text_bounds(&[
        ("merOrderNo", &i.mer_order_no),
        ("message", &i.message),
        ("refusalPayReason", &i.refusal_pay_reason),
    ])
}

/// A currency code as the desk keeps it: an upper-case ISO 4217 code. Codes outside
/// the standard (a crypto token, a gateway's private code) are refused and named: the
/// interface shows only currency-code strings, and the desk's money is ISO 4217.
fn iso(field: &'static str, code: &str) -> Result<Currency, (&'static str, String)> {
    match Currency::parse(code) {
        Ok(c) if c.code() == code => Ok(c),
        Ok(_) | Err(_) => Err((
            field,
            format!("{code:?} is not an upper-case ISO 4217 code"),
        )),
    }
}

/// An amount in `currency` (when named): within range, at most its digits (8 when no
/// currency is named), and not negative unless `signed`.
fn amount(
    field: &'static str,
    v: Decimal,
    currency: Option<Currency>,
    signed: bool,
) -> Result<(), (&'static str, String)> {
    let digits = currency.map_or(8, Currency::minor_units);
    if v < Decimal::ZERO && !signed {
        return Err((field, format!("is {v}; it must not be negative")));
    }
    if v.abs() > Decimal::from(paydesk_gateway::money::MAX_AMOUNT) || v.normalize().scale() > digits
    {
        return Err((
            field,
            format!(
                "is {v}; it must be at most {} with at most {digits} decimal places{}",
                paydesk_gateway::money::MAX_AMOUNT,
                currency
                    .map(|c| format!(" for {}", c.code()))
                    .unwrap_or_default()
            ),
        ));
    }
    Ok(())
}

/// A currency field that may be empty (not given) and is otherwise ISO 4217.
fn optional_iso(
    field: &'static str,
    code: &str,
) -> Result<Option<Currency>, (&'static str, String)> {
    if code.is_empty() {
        Ok(None)
    } else {
        iso(field, code).map(Some)
    }
}

fn record_error(what: &str, (field, rule): (&str, String)) -> CoreError {
    CoreError::BadResponse {
        message: format!(
            "the gateway's {what}: {field} {}",
            paydesk_gateway::redact::terminal_safe(&rule, 300)
        ),
    }
}

/// A balance answer: the currency asked for, and amounts in its digits (they may be
/// negative: a balance can be overdrawn by chargebacks).
pub fn balance(asked: &str, r: &paydesk_gateway::wire::BalanceRecord) -> CoreResult<()> {
    let check = || {
        let c = iso("currency", &r.currency)?;
        if r.currency != asked {
            return Err((
                "currency",
                format!(
                    "is {:?}, but the balance in {asked} was asked for",
                    r.currency
                ),
            ));
        }
        amount("balance", r.balance, Some(c), true)?;
        amount("unCheckedBalance", r.un_checked_balance, Some(c), true)?;
        amount("totalBalance", r.total_balance, Some(c), true)
    };
    check().map_err(|e| record_error("balance answer", e))
}

/// The V2 order query's record: the order asked for, usable numbers, ISO currencies and
/// amounts in their digits, none of them negative.
pub fn order_record(
    trade_no: &str,
    query_type: &str,
    r: &paydesk_gateway::wire::OrderRecord,
) -> CoreResult<()> {
    let check = || {
        the_one_asked("tradeNo", &r.trade_no, trade_no)?;
        if query_type == "refund" || !r.refund_no.is_empty() {
            paydesk_gateway::validate::trade_no("refundNo", &r.refund_no)
                .map_err(|e| ("refundNo", e.rule))?;
        }
        let source = optional_iso("currencyCode", &r.currency_code)?;
        let refund = optional_iso("refundCurrency", &r.refund_currency)?;
        let chargeback = optional_iso("chargebackCurrency", &r.chargeback_currency)?;
        let actual = optional_iso("actualChargebackCurrency", &r.actual_chargeback_currency)?;
        amounts(
            &[
                ("sourceAmount", r.source_amount, source),
                ("refundAmount", r.refund_amount, refund),
                ("transactionFixedFee", r.transaction_fixed_fee, None),
                ("gasFee", r.gas_fee, None),
            ],
            false,
        )?;
        // A chargeback may be written as a debit (negative); received amounts too.
        amounts(
            &[
                ("chargebackAmount", r.chargeback_amount, chargeback),
                ("actualChargebackAmount", r.actual_chargeback_amount, actual),
                ("receiveAmount", r.receive_amount, None),
            ],
            true,
        )?;
        text_bounds(&[
            ("state", &r.state),
            ("merOrderNo", &r.mer_order_no),
            ("message", &r.message),
            ("status", &r.status),
            ("transactionHash", &r.transaction_hash),
        ])
    };
    check().map_err(|e| record_error("order record", e))
}

/// The V1 refund query's record: the refund asked for (or, asked for none, a usable
/// refund number), on the order asked for, with ISO currencies and amounts.
pub fn refund_record(
    trade_no: &str,
    refund_no: &str,
    r: &paydesk_gateway::wire::RefundRecord,
) -> CoreResult<()> {
    let check = || {
        if !refund_no.is_empty() || !r.refund_no.is_empty() {
            paydesk_gateway::validate::trade_no("refundNo", &r.refund_no)
                .map_err(|e| ("refundNo", e.rule))?;
        }
        if !refund_no.is_empty() {
            the_one_asked("refundNo", &r.refund_no, refund_no)?;
        }
        the_one_asked("tradeNo", &r.trade_no, trade_no)?;
        let refund = optional_iso("refundCurrency", &r.refund_currency)?;
        let refuse = optional_iso("refuseCurrency", &r.refuse_currency)?;
        let actual = optional_iso("actualRefuseCurrency", &r.actual_refuse_currency)?;
        amounts(
            &[
                ("refundAmount", r.refund_amount, refund),
                ("refuseAmount", r.refuse_amount, refuse),
                ("actualRefuseAmount", r.actual_refuse_amount, actual),
                ("tradeFee", r.trade_fee, None),
                ("gasFee", r.gas_fee, None),
            ],
            false,
        )?;
        amounts(&[("receiveAmount", r.receive_amount, None)], true)?;
        text_bounds(&[
            ("state", &r.state),
            ("message", &r.message),
            ("transactionHash", &r.transaction_hash),
        ])
    };
    check().map_err(|e| record_error("refund record", e))
}

/// Each amount given, checked with [`amount`].
fn amounts(
    list: &[(&'static str, Option<Decimal>, Option<Currency>)],
    signed: bool,
) -> Result<(), (&'static str, String)> {
    for (field, v, c) in list {
        if let Some(v) = v {
            amount(field, *v, *c, signed)?;
        }
    }
    Ok(())
}

/// An order number the answer gives (empty: not given) is the one asked for.
fn the_one_asked(
    field: &'static str,
    given: &str,
    asked: &str,
) -> Result<(), (&'static str, String)> {
    if !given.is_empty() && given != asked {
        return Err((field, format!("is {given:?}, but {asked} was asked for")));
    }
    Ok(())
}

fn text_bounds(fields: &[(&'static str, &String)]) -> Result<(), (&'static str, String)> {
    for (field, text) in fields {
        if text.chars().count() > 2_000 {
            return Err((field, "is longer than 2000 characters".into()));
        }
    }
    Ok(())
}

/// The longest link the desk shows or opens.
pub const MAX_LINK_CHARS: usize = 2_048;

/// A link from the gateway (a payin's `payUrl`) the desk shows and opens: an `https`
/// address (or `http` to this machine, the sandbox), at most [`MAX_LINK_CHARS`], with no
/// user name or password in it (`https://bank.example@evil.example` reads as the bank).
/// Anything else (`javascript:`, `file:`, `data:`, a megabyte) is never a link: the
/// error says the rule.
pub fn link(url: &str) -> Result<url::Url, String> {
    if url.chars().count() > MAX_LINK_CHARS {
        return Err(format!(
            "is longer than {MAX_LINK_CHARS} characters; it is not shown as a link"
        ));
    }
    let parsed = url::Url::parse(url.trim())
        .map_err(|e| format!("is not a web address ({e}); it is not shown as a link"))?;
    let loopback = match parsed.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    match parsed.scheme() {
        "https" if parsed.host().is_some() => {}
        "http" if loopback => {}
        scheme => {
            return Err(format!(
                "is a {scheme}: address; only https links (http to this machine, the sandbox) are shown and opened"
            ));
        }
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err("carries a user name or password; it is not shown as a link".into());
    }
    Ok(parsed)
}

/// The items of a checked page that keep the desk's rules, and for those that do not,
/// their position, field and rule: those are not cached (and said so).
pub fn usable_items(list: Vec<OrderListItem>) -> (Vec<OrderListItem>, Vec<String>) {
    let mut kept = Vec::with_capacity(list.len());
    let mut refused = Vec::new();
    for (n, i) in list.into_iter().enumerate() {
        match item(&i) {
            Ok(()) => kept.push(i),
            Err((field, rule)) => refused.push(format!(
                "item {} ({}) {field} {}",
                n + 1,
                paydesk_gateway::redact::terminal_safe(&i.trade_no, 64),
                paydesk_gateway::redact::terminal_safe(&rule, 300)
            )),
        }
    }
    (kept, refused)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn good(n: usize) -> OrderListItem {
        OrderListItem {
            state: 5,
            mer_order_no: format!("M-{n}"),
            trade_no: format!("T{n:010}"),
            source_amount: Decimal::new(1250, 2),
            source_currency: "USD".into(),
            settlement_currency: "USD".into(),
            settle_amount: Some(Decimal::new(-300, 2)),
            ..OrderListItem::default()
        }
    }

    fn page(list: Vec<OrderListItem>, total: i64, total_page: i64) -> OrderListPage {
        OrderListPage {
            page_num: 1,
            page_size: 2,
            total_page,
            total,
            list,
        }
    }

    trait TapSize {
        fn tap_size(self, n: i64) -> Self;
    }
    impl TapSize for OrderListPage {
        fn tap_size(mut self, n: i64) -> Self {
            self.page_size = n;
            self
        }
    }

    fn said(p: &OrderListPage) -> String {
        order_page(p, 2).unwrap_err().to_string()
    }

    #[test]
    fn only_https_links_within_the_bound_are_links() {
        link("https://pay.example/x?o=1").unwrap();
        link("http://127.0.0.1:8700/pay/T1").unwrap();
        link("http://localhost/pay").unwrap();
        for bad in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "data:text/html,<script>",
            "http://pay.example/x",
            "https://bank.example@evil.example/",
            "not a url",
            "",
        ] {
            assert!(link(bad).is_err(), "{bad}");
        }
        let long = format!("https://pay.example/{}", "a".repeat(MAX_LINK_CHARS));
        assert!(link(&long).unwrap_err().contains("2048"));
        assert!(
            link("javascript:alert(1)")
                .unwrap_err()
                .contains("javascript")
        );
    }

    #[test]
    fn a_good_page_passes_and_each_broken_rule_is_named() {
        order_page(&page(vec![good(1), good(2)], 3, 2), 2).unwrap();
        order_page(&page(vec![], 0, 0), 2).unwrap();
        assert!(said(&page(vec![good(1), good(2), good(3)], 3, 2)).contains("holds 3 items"));
        assert!(said(&page(vec![good(1)], 3, 1_000_000_000)).contains("totalPage"));
        assert!(said(&page(vec![good(1)], 500_000_000_000, 250_000_000_000)).contains("total"));
        assert!(said(&page(vec![good(1), good(1)], 2, 1)).contains("appears twice"));
        // A gateway that serves 1 a page and says so.
        order_page(&page(vec![good(1)], 3, 3).tap_size(1), 2).unwrap();
        let bad = |f: fn(&mut OrderListItem)| {
            let mut i = good(1);
            f(&mut i);
            let (kept, refused) = usable_items(vec![good(2), i]);
            assert_eq!(kept.len(), 1, "the good item is kept");
            refused.join("; ")
        };
        assert!(bad(|i| i.trade_no = String::new()).contains("item 2 () tradeNo is empty"));
        // "50000.00" yen is 50000 yen: trailing zeros are not digits.
        let yen = OrderListItem {
            source_currency: "JPY".into(),
            source_amount: Decimal::new(5_000_000, 2),
            ..good(3)
        };
        assert!(item(&yen).is_ok());
        assert!(bad(|i| i.trade_no = "T1\u{0}\u{202e}".into()).contains("tradeNo"));
        assert!(bad(|i| i.source_currency = "usd".into()).contains("sourceCurrency"));
        assert!(bad(|i| i.source_currency = "XXZ".into()).contains("sourceCurrency"));
        assert!(bad(|i| i.source_amount = Decimal::new(-1, 0)).contains("sourceAmount"));
        assert!(bad(|i| i.source_amount = Decimal::new(1, 9)).contains("sourceAmount"));
        assert!(bad(|i| i.handling_fee = Some(Decimal::new(-5, 1))).contains("handlingFee"));
        assert!(bad(|i| i.refund_currency = "eur".into()).contains("refundCurrency"));
        // Balances: the currency asked for, in its digits.
        let bal = |currency: &str, balance: Decimal| paydesk_gateway::wire::BalanceRecord {
            currency: currency.into(),
            balance,
            un_checked_balance: Decimal::ZERO,
            total_balance: balance,
        };
        balance("USD", &bal("USD", Decimal::new(-1050, 2))).unwrap();
        let wrong = balance("USD", &bal("EUR", Decimal::ONE))
            .unwrap_err()
            .to_string();
        assert!(
            wrong.contains("currency is \"EUR\", but the balance in USD"),
            "{wrong}"
        );
        assert!(balance("JPY", &bal("JPY", Decimal::new(15, 1))).is_err());
        // Order and refund records: the one asked for, nothing negative.
        let record = paydesk_gateway::wire::OrderRecord {
            trade_no: "T1".into(),
            refund_no: "R1".into(),
            refund_amount: Some(Decimal::new(500, 2)),
            refund_currency: "USD".into(),
            ..serde_json::from_str(r#"{"tradeNo":"T1"}"#).unwrap()
        };
        order_record("T1", "refund", &record).unwrap();
        assert!(
            order_record("T2", "sales", &record)
                .unwrap_err()
                .to_string()
                .contains("tradeNo")
        );
        let negative = paydesk_gateway::wire::OrderRecord {
            refund_amount: Some(Decimal::new(-5, 0)),
            ..record.clone()
        };
        assert!(
            order_record("T1", "refund", &negative)
                .unwrap_err()
                .to_string()
                .contains("refundAmount")
        );
        // Not given is not broken: a record without a trade number is the one asked for.
        let quiet = paydesk_gateway::wire::OrderRecord {
            trade_no: String::new(),
            ..negative.clone()
        };
        assert!(
            order_record("T1", "refund", &quiet)
                .is_err_and(|e| e.to_string().contains("refundAmount"))
        );
        let blank = paydesk_gateway::wire::OrderRecord {
            refund_no: " ".into(),
            ..record
        };
        assert!(
            order_record("T1", "refund", &blank)
                .unwrap_err()
                .to_string()
                .contains("refundNo")
        );
        let refund = |no: &str, amount: i64| paydesk_gateway::wire::RefundRecord {
            refund_no: no.into(),
            trade_no: "T1".into(),
            refund_amount: Some(Decimal::new(amount, 2)),
            refund_currency: "USD".into(),
            ..serde_json::from_str("{}").unwrap()
        };
        refund_record("T1", "R1", &refund("R1", 500)).unwrap();
        refund_record("T1", "", &refund("R9", 500)).unwrap();
        assert!(refund_record("T1", "R1", &refund("R2", 500)).is_err());
        refund_record("T1", "", &refund("", 500)).unwrap();
        assert!(refund_record("T1", "R1", &refund("", 500)).is_err());
        assert!(refund_record("T1", "R1", &refund("R1", -500)).is_err());
        // Quoted safely: a control character in the rule's text is escaped.
        let text = bad(|i| i.source_currency = "\u{1b}[2J".into());
        assert!(!text.contains('\u{1b}'), "{text}");
    }
}
