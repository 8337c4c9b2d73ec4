//! What both store backends say alike of the orders table: the names of the columns a
//! filter's lists match, when an order moved the balance, and the sort. Each backend
//! renders the filter's predicates ([`paydesk_model::filter`]) with these, in its own
//! dialect; neither backend imports the other.

use paydesk_model::filter::ListColumn;
use paydesk_model::journal::Status;
use paydesk_model::orders::BALANCE_FIELDS;

use super::orders::{OrderFilter, SortKey};

/// When an order moved the balance, for reconciliation: a payout, card top-up or card
/// withdrawal this desk made took (or gave) the money when the gateway accepted it, at
/// its journal time; any other order when a sync first saw it as it stands (`moved_at`).
pub const MOVED: &str = "(CASE WHEN made_at IS NOT NULL AND kind IN ('payout', 'topUp', 'withdraw') \
     THEN made_at ELSE moved_at END)";

/// Whether a write changes what moves the balance ([`BALANCE_FIELDS`]), for SQLite's
/// writer: each field compared with the parameter that writes it (`bound`), except
/// those the writer has already found equal (`equal`). Every balance field is one or
/// the other (a field forgotten would never move an order; checked in the tests).
pub fn sqlite_balance_changed(bound: &[(&str, usize)], equal: &[&str]) -> String {
    debug_assert!(
        BALANCE_FIELDS
            .iter()
            .all(|f| equal.contains(f) || bound.iter().any(|(b, _)| b == f))
    );
    BALANCE_FIELDS
        .iter()
        .filter_map(|f| {
            bound
                .iter()
                .find(|(b, _)| b == f)
                .map(|(b, i)| format!("{b} IS NOT ?{i}"))
        })
        .collect::<Vec<_>>()
        .join(" OR ")
}

/// The column (or expression) a list of the filter matches.
pub fn list_column(c: ListColumn) -> &'static str {
    match c {
        ListColumn::State => "state",
        ListColumn::Currency => "currency",
        ListColumn::Method => "method",
        ListColumn::Kind => "kind",
        ListColumn::Settle => "COALESCE(settle, -1)",
        ListColumn::ReserveStatus => "COALESCE(rolling_reserve_status, -1)",
        ListColumn::Reason => "refusal_pay_reason",
        ListColumn::Message => "message",
    }
}

/// The filter's sort as SQL.
pub trait SortSql {
    fn sort_column(&self) -> &'static str;
    fn order_by(&self) -> String;
}

impl SortSql for OrderFilter {
    fn sort_column(&self) -> &'static str {
        match self.sort {
            SortKey::Created => "created_at",
            SortKey::Amount => "amount_e4",
            SortKey::State => "state",
            SortKey::TradeNo => "trade_no",
        }
    }

    fn order_by(&self) -> String {
        let dir = if self.descending { "DESC" } else { "ASC" };
        format!("ORDER BY {} {dir}, id {dir}", self.sort_column())
    }
}

/// Statuses as an SQL list (`'unknown', 'sending'`), for `status IN (..)`: the journal's
/// transitions ([`Status::LIVE`], [`Status::UNSETTLED`], [`Status::finishing_as`]) in
/// either dialect.
pub fn statuses(states: &[Status]) -> String {
    states
        .iter()
        .map(|s| format!("'{}'", s.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlites_check_names_every_balance_field_not_found_equal() {
        let rest: Vec<&str> = BALANCE_FIELDS
            .into_iter()
            .filter(|f| !["settle", "handling_fee"].contains(f))
            .collect();
        let sql = sqlite_balance_changed(&[("settle", 3), ("handling_fee", 4)], &rest);
        assert_eq!(sql, "handling_fee IS NOT ?4 OR settle IS NOT ?3");
    }
}
