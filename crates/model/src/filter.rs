//! The order filter as one tree of predicates, read once from an [`OrderFilter`] (its
//! amounts parsed, its lists and its search decided here) and rendered by each store
//! backend in its own dialect. What a filter means is written here only; a backend
//! decides how to say it.

use paydesk_gateway::FieldError;

use crate::orders::{OrderFilter, amount_e4};

/// A column a list of values is matched on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListColumn {
    State,
    Currency,
    Method,
    /// The kind as the journal knows it (`''`: not known).
    Kind,
    /// `settle`; a missing value matches -1.
    Settle,
    /// `rolling_reserve_status`; a missing value matches -1.
    ReserveStatus,
    /// `refusal_pay_reason` as the gateway gave it (`''`: not given).
    Reason,
    /// `message` as the gateway gave it (`''`: not given).
    Message,
}

/// Values of one list, as their column holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Values {
    Numbers(Vec<i64>),
    Texts(Vec<String>),
}

/// How a number search matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Search {
    /// A fragment of 3 characters or more, anywhere in the trade or order number (and,
    /// where the backend keeps the journal's requests, in an order's customer).
    Substring(String),
    /// One or two characters: the start of the trade or order number.
    Prefix(String),
}

/// One condition every listed order meets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Predicate {
    /// `created_at` at or after (UTC millis).
    CreatedFrom(i64),
    /// `created_at` before (UTC millis).
    CreatedBefore(i64),
    /// When the order moved the balance (its journal time for a payout, top-up or
    /// withdrawal made here, else `moved_at`), at or after.
    MovedFrom(i64),
    /// When the order moved the balance, before.
    MovedBefore(i64),
    /// The column holds one of the values (never empty).
    OneOf(ListColumn, Values),
    /// A refunded amount above zero (`true`), or none (`false`).
    Refunded(bool),
    /// The amount times 10^4 ([`amount_e4`]) at least.
    AmountAtLeast(i64),
    /// The amount times 10^4 at most.
    AmountAtMost(i64),
    Search(Search),
}

impl OrderFilter {
    /// The filter's conditions, all of which an order meets; a bound that is no amount
    /// is refused naming its field (`minAmount`, `maxAmount`).
    pub fn predicates(&self) -> Result<Vec<Predicate>, FieldError> {
        let mut p = Vec::new();
        if let Some(t) = self.from {
            p.push(Predicate::CreatedFrom(t));
        }
        if let Some(t) = self.to {
            p.push(Predicate::CreatedBefore(t));
        }
        if let Some(t) = self.moved_from {
            p.push(Predicate::MovedFrom(t));
        }
        if let Some(t) = self.moved_to {
            p.push(Predicate::MovedBefore(t));
        }
        let texts = |v: Vec<String>| Values::Texts(v);
        for (column, values) in [
            (ListColumn::State, Values::Numbers(self.states.clone())),
            (ListColumn::Currency, texts(self.currencies.clone())),
            (ListColumn::Method, texts(self.methods.clone())),
            (
                ListColumn::Kind,
                texts(self.kind_names().into_iter().map(String::from).collect()),
            ),
            (ListColumn::Settle, Values::Numbers(self.settles.clone())),
            (
                ListColumn::ReserveStatus,
                Values::Numbers(self.reserve_statuses.clone()),
            ),
            (
                ListColumn::Reason,
                texts(self.reasons.clone().unwrap_or_default()),
            ),
            (
                ListColumn::Message,
                texts(self.messages.clone().unwrap_or_default()),
            ),
        ] {
            let empty = match &values {
                Values::Numbers(v) => v.is_empty(),
                Values::Texts(v) => v.is_empty(),
            };
            if !empty {
                p.push(Predicate::OneOf(column, values));
            }
        }
        if let Some(r) = self.refunded {
            p.push(Predicate::Refunded(r));
        }
        for (field, bound, at_least) in [
            ("minAmount", &self.min_amount, true),
            ("maxAmount", &self.max_amount, false),
        ] {
            if let Some(text) = bound.as_deref().filter(|t| !t.trim().is_empty()) {
                let e4 = amount_e4(paydesk_gateway::money::parse_decimal(field, text.trim())?);
                p.push(if at_least {
                    Predicate::AmountAtLeast(e4)
                } else {
                    Predicate::AmountAtMost(e4)
                });
            }
        }
        if let Some(frag) = self
            .search
            .as_deref()
            .map(str::trim)
            .filter(|f| !f.is_empty())
        {
            p.push(Predicate::Search(if frag.chars().count() >= 3 {
                Search::Substring(frag.to_string())
            } else {
                Search::Prefix(frag.to_string())
            }));
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_filter_has_no_condition() {
        assert_eq!(OrderFilter::default().predicates().unwrap(), []);
    }

    #[test]
    fn each_field_gives_its_condition_and_amounts_are_parsed_once() {
        let f = OrderFilter {
            from: Some(1),
            to: Some(2),
            states: vec![5],
            currencies: vec!["USD".into()],
            unknown_kind: true,
            min_amount: Some(" 12.5 ".into()),
            max_amount: Some("".into()),
            search: Some(" 12 ".into()),
            refunded: Some(false),
            ..OrderFilter::default()
        };
        assert_eq!(
            f.predicates().unwrap(),
            [
                Predicate::CreatedFrom(1),
                Predicate::CreatedBefore(2),
                Predicate::OneOf(ListColumn::State, Values::Numbers(vec![5])),
                Predicate::OneOf(ListColumn::Currency, Values::Texts(vec!["USD".into()])),
                Predicate::OneOf(ListColumn::Kind, Values::Texts(vec![String::new()])),
                Predicate::Refunded(false),
                Predicate::AmountAtLeast(125_000),
                Predicate::Search(Search::Prefix("12".into())),
            ]
        );
        let long = OrderFilter {
            search: Some("M-0029".into()),
            ..OrderFilter::default()
        };
        assert_eq!(
            long.predicates().unwrap(),
            [Predicate::Search(Search::Substring("M-0029".into()))]
        );
    }

    #[test]
    fn reasons_and_messages_match_exactly_and_an_empty_text_is_not_given() {
        let f = OrderFilter {
            reasons: Some(vec![String::new()]),
            messages: Some(vec!["E2031".into()]),
            ..OrderFilter::default()
        };
        assert_eq!(
            f.predicates().unwrap(),
            [
                Predicate::OneOf(ListColumn::Reason, Values::Texts(vec![String::new()])),
                Predicate::OneOf(ListColumn::Message, Values::Texts(vec!["E2031".into()])),
            ]
        );
        // No list, or an empty one: any reason.
        let any = OrderFilter {
            reasons: Some(vec![]),
            ..OrderFilter::default()
        };
        assert_eq!(any.predicates().unwrap(), []);
        // A filter without them reads as before (saved filters, other screens).
        let old: OrderFilter = serde_json::from_str(r#"{"states":[3]}"#).unwrap();
        assert_eq!(old.reasons, None);
        assert!(!serde_json::to_string(&old).unwrap().contains("reasons"));
    }

    #[test]
    fn a_bound_that_is_no_amount_names_its_field() {
        let f = OrderFilter {
            max_amount: Some("1e3".into()),
            ..OrderFilter::default()
        };
        assert_eq!(f.predicates().unwrap_err().field, "maxAmount");
    }
}
