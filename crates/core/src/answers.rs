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
    CoreError::BadResponse {
        message: format!(
            "the gateway's order list: {field} {}",
            paydesk_gateway::redact::terminal_safe(&rule.into(), 300)
        ),
    }
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
    let currency = Currency::parse(&i.source_currency)
        .map_err(|rule| ("sourceCurrency", format!("{:?} {rule}", i.source_currency)))?;
    if i.source_currency != currency.code() {
        return Err((
            "sourceCurrency",
            format!(
                "{:?} must be the upper-case ISO 4217 code",
                i.source_currency
            ),
        ));
    }
    let digits = currency.minor_units();
    if i.source_amount < Decimal::ZERO
        || i.source_amount > Decimal::from(paydesk_gateway::money::MAX_AMOUNT)
        || i.source_amount.normalize().scale() > digits
    {
        return Err((
            "sourceAmount",
            format!(
                "is {}; it must be 0 to {} with at most {digits} decimal places for {}",
                i.source_amount,
                paydesk_gateway::money::MAX_AMOUNT,
                currency.code()
            ),
        ));
    }
    for (field, code) in [
        ("settlementCurrency", &i.settlement_currency),
        ("refundCurrency", &i.refund_currency),
    ] {
        if !code.is_empty() && Currency::parse(code).map(|c| c.code()) != Ok(code.as_str()) {
            return Err((
                field,
                format!("{code:?} is not an upper-case ISO 4217 code"),
            ));
        }
    }
    // Fees and refunds are never negative; what is received or settled may be (a
    // payout, a chargeback).
    let amounts = [
        ("handlingFee", i.handling_fee, false),
        ("receiveAmount", i.receive_amount, true),
        ("settleAmount", i.settle_amount, true),
        ("rollingReserve", i.rolling_reserve, true),
        ("transactionFixedFee", i.transaction_fixed_fee, false),
        ("exceptionHandlingFee", i.exception_handling_fee, false),
        ("refundAmount", i.refund_amount, false),
    ];
    for (field, value, signed) in amounts {
        if let Some(v) = value {
            if v < Decimal::ZERO && !signed {
                return Err((field, format!("is {v}; it must not be negative")));
            }
            if v.abs() > Decimal::from(paydesk_gateway::money::MAX_AMOUNT)
                || v.normalize().scale() > 8
            {
                return Err((field, format!("is {v}; it is out of range")));
            }
        }
    }
    for (field, text) in [
        ("merOrderNo", &i.mer_order_no),
        ("message", &i.message),
        ("refusalPayReason", &i.refusal_pay_reason),
    ] {
        if text.chars().count() > 2_000 {
            return Err((field, "is longer than 2000 characters".into()));
        }
    }
    Ok(())
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
        // Quoted safely: a control character in the rule's text is escaped.
        let text = bad(|i| i.source_currency = "\u{1b}[2J".into());
        assert!(!text.contains('\u{1b}'), "{text}");
    }
}
