//! What a lookup proves. The gateway's order list, asked for one merchant order number,
//! names this desk's order only when the item's number, currency and amount (and its
//! kind, where the desk knows the trade number's) are the journal's; an item under the
//! number that differs is another order, a conflict, never taken as ours. The list proves
//! the order absent only when it is complete for the number asked: one page, every item
//! under that number, and a total equal to the items shown. A list that shows another
//! number, or counts more or fewer orders than it shows, proves nothing either way.

use paydesk_gateway::redact::terminal_safe;
use paydesk_gateway::wire::{OrderListItem, OrderListPage};
use rust_decimal::Decimal;

use crate::store::orders::OrderKind;

/// What the journal says the order is.
#[derive(Debug, Clone, PartialEq)]
pub struct Intended<'a> {
    pub mer_order_no: &'a str,
    /// The amount and currency the request carried (`None`: the request has none).
    pub money: Option<(Decimal, String)>,
    /// The kind of order the operation makes (`None`: not known).
    pub kind: Option<OrderKind>,
}

/// What one answer of the order list proves about an intended order.
#[derive(Debug, Clone, PartialEq)]
pub enum Proof {
    /// Listed, complete, and it is the journal's order.
    Ours(Box<OrderListItem>),
    /// Listed under the number asked, but another order (amount, currency or kind
    /// differ): the reason, quoted safely.
    Conflict(String),
    /// Listed under the number asked without a trade number the desk can keep.
    WithoutTradeNo,
    /// The answer is complete for the number asked and does not hold it.
    Absent,
    /// The answer proves neither: why (quoted safely).
    Unproven(String),
}

/// What `page` (the answer to the list asked for `intended.mer_order_no` alone) proves.
/// `known_kind` gives the kind the desk's cache knows for a trade number, if any.
pub fn prove(
    page: &OrderListPage,
    intended: &Intended<'_>,
    known_kind: impl Fn(&str) -> Option<OrderKind>,
) -> Proof {
    let asked = intended.mer_order_no;
    let shown = i64::try_from(page.list.len()).unwrap_or(i64::MAX);
    if let Some(other) = page.list.iter().find(|i| i.mer_order_no != asked) {
        return Proof::Unproven(format!(
            "shows merOrderNo {:?} (tradeNo {:?}), which was not asked for: the answer is not the list of {asked}",
            terminal_safe(&other.mer_order_no, 64),
            terminal_safe(&other.trade_no, 64)
        ));
    }
    if page.total != shown || page.total_page > 1 || page.page_num > 1 {
        return Proof::Unproven(format!(
            "says it holds {} orders on {} pages (page {}) but shows {shown}: not complete for {asked}",
            page.total, page.total_page, page.page_num
        ));
    }
    let mut usable: Option<&OrderListItem> = None;
    let mut without = false;
    for i in &page.list {
        if paydesk_gateway::validate::trade_no("tradeNo", &i.trade_no).is_err() {
            without = true;
            continue;
        }
        match usable {
            Some(t) if t.trade_no != i.trade_no => {
                return Proof::Unproven(format!(
                    "names two trade numbers under {asked} ({} and {})",
                    terminal_safe(&t.trade_no, 64),
                    terminal_safe(&i.trade_no, 64)
                ));
            }
            _ => usable = Some(i),
        }
    }
    let Some(item) = usable else {
        return if without {
            Proof::WithoutTradeNo
        } else {
            Proof::Absent
        };
    };
    if without {
        return Proof::Unproven(format!(
            "lists {asked} twice, once without a trade number: which order is this desk's is not known"
        ));
    }
    let mut differs = Vec::new();
    if let Some((amount, currency)) = &intended.money {
        // Every listing of the order must be the journal's: an answer that lists it
        // twice, once with other money, does not say which is true.
        for i in &page.list {
            if i.source_currency != *currency {
                differs.push(format!(
                    "currency {:?}, not {currency}",
                    terminal_safe(&i.source_currency, 16)
                ));
            }
            if i.source_amount != *amount {
                differs.push(format!(
                    "amount {}, not {}",
                    i.source_amount.normalize(),
                    amount.normalize()
                ));
            }
        }
        differs.dedup();
    }
    if let (Some(want), Some(seen)) = (intended.kind, known_kind(&item.trade_no))
        && want != seen
    {
        differs.push(format!("a {}, not a {}", seen.as_str(), want.as_str()));
    }
    if differs.is_empty() {
        return Proof::Ours(Box::new(item.clone()));
    }
    Proof::Conflict(format!(
        "the gateway lists tradeNo {} under merOrderNo {asked}, but with {}: it is not the order the journal sent",
        terminal_safe(&item.trade_no, 64),
        differs.join(", ")
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn item(no: &str, trade: &str, amount: i64, currency: &str) -> OrderListItem {
        OrderListItem {
            state: 1,
            mer_order_no: no.into(),
            trade_no: trade.into(),
            source_amount: Decimal::new(amount, 2),
            source_currency: currency.into(),
            ..OrderListItem::default()
        }
    }

    fn page(list: Vec<OrderListItem>, total: i64) -> OrderListPage {
        OrderListPage {
            page_num: 1,
            page_size: 50,
            total_page: i64::from(total > 0),
            total,
            list,
        }
    }

    fn ours() -> Intended<'static> {
        Intended {
            mer_order_no: "PO-1",
            money: Some((Decimal::new(5000, 2), "MXN".into())),
            kind: Some(OrderKind::Payout),
        }
    }

    fn no_kind(_: &str) -> Option<OrderKind> {
        None
    }

    #[test]
    fn an_item_is_ours_only_when_number_currency_amount_and_kind_match() {
        // 50.00 and "50.0" are one amount.
        let p = page(vec![item("PO-1", "T0001", 500, "MXN")], 1);
        let mut same = p.clone();
        same.list[0].source_amount = Decimal::new(500, 1);
        assert!(matches!(prove(&same, &ours(), no_kind), Proof::Ours(_)));
        // Our number, another amount: a conflict, never ours.
        let other_amount = page(vec![item("PO-1", "T0001", 60000, "MXN")], 1);
        match prove(&other_amount, &ours(), no_kind) {
            Proof::Conflict(why) => {
                assert!(why.contains("amount 600, not 50"), "{why}");
                assert!(why.contains("T0001"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        let other_currency = page(vec![item("PO-1", "T0001", 5000, "USD")], 1);
        assert!(
            matches!(prove(&other_currency, &ours(), no_kind), Proof::Conflict(w) if w.contains("currency \"USD\", not MXN"))
        );
        // The cache knows the trade number as a payin: not our payout.
        let matching = page(vec![item("PO-1", "T0001", 5000, "MXN")], 1);
        assert!(matches!(
            prove(&matching, &ours(), |_| Some(OrderKind::Payin)),
            Proof::Conflict(w) if w.contains("a payin, not a payout")
        ));
        assert!(matches!(
            prove(&matching, &ours(), |_| Some(OrderKind::Payout)),
            Proof::Ours(_)
        ));
    }

    #[test]
    fn absent_only_from_an_answer_complete_for_the_number_asked() {
        assert_eq!(prove(&page(vec![], 0), &ours(), no_kind), Proof::Absent);
        // "total: 1" and another order shown: not the list of our number.
        let other = page(vec![item("PO-2", "T0002", 5000, "MXN")], 1);
        assert!(matches!(
            prove(&other, &ours(), no_kind),
            Proof::Unproven(w) if w.contains("\"PO-2\"") && w.contains("not asked for")
        ));
        // Counts that do not match what is shown.
        assert!(matches!(
            prove(&page(vec![], 1), &ours(), no_kind),
            Proof::Unproven(_)
        ));
        let mut second = page(vec![], 0);
        second.page_num = 2;
        assert!(matches!(
            prove(&second, &ours(), no_kind),
            Proof::Unproven(_)
        ));
        let mut fewer = page(vec![item("PO-1", "T0001", 5000, "MXN")], 1);
        fewer.total = 2;
        fewer.total_page = 1;
        assert!(matches!(
            prove(&fewer, &ours(), no_kind),
            Proof::Unproven(_)
        ));
        // Two trade numbers under one number, or one without any: not known which.
        let two = page(
            vec![
                item("PO-1", "T0001", 5000, "MXN"),
                item("PO-1", "T0002", 5000, "MXN"),
            ],
            2,
        );
        assert!(matches!(prove(&two, &ours(), no_kind), Proof::Unproven(_)));
        let blank = page(vec![item("PO-1", "", 5000, "MXN")], 1);
        assert_eq!(prove(&blank, &ours(), no_kind), Proof::WithoutTradeNo);
    }

    #[test]
    fn what_the_gateway_wrote_is_quoted_safely() {
        let p = page(vec![item("PO-1", "T0001", 5000, "M\u{1b}[2J\u{202e}")], 1);
        match prove(&p, &ours(), no_kind) {
            Proof::Conflict(w) => assert!(!w.contains('\u{1b}') && !w.contains('\u{202e}')),
            other => panic!("{other:?}"),
        }
    }
}
