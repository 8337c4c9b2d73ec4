//! Balance reconciliation: between two balance snapshots of a currency, the movement
//! the cached orders explain against the movement observed, line by line, each line
//! with the [`OrderFilter`] of the orders behind it (its amount is the sum of its
//! [`Field`] over exactly those orders, as a statement figure's is). Also what is still
//! to come: paid payins not settled yet, and rolling reserve not released yet.
//!
//! **Which balance.** The gateway's `balance` (settled and available). Every movement
//! the reconciliation explains lands there: a payin's money once it is settled, less its
//! fees and the reserve held; reserve released; payouts and their fees; refunds of
//! settled payins; chargebacks; card top-ups and withdrawals. A payin paid but not
//! settled moves `unCheckedBalance`, and `totalBalance` is `balance` plus
//! `unCheckedBalance` (the rolling reserve held is in neither), so `totalBalance` would
//! mix in money the list cannot date (paid, not settled).
//!
//! **Which orders: when.** The gateway's list gives no time of settlement, release,
//! refund or chargeback, only the day an order was created. So the cache keeps
//! `moved_at`: when this desk first saw the order as it now stands (cached, or a sync
//! finding its state, amounts, fees, reserve, reserve status, settlement or refund
//! changed); a payout, card top-up or card withdrawal this desk made is dated by its
//! journal time instead (the gateway took or gave its money when it accepted it, not
//! when a later sync first listed it). An order belongs to the window `(from, to]` of
//! the two snapshots by that time, and it counts there with its whole effect on the balance. That is exact when
//! (a) a sync ran just before each snapshot (the desk takes one at the end of every sync)
//! so what a snapshot shows the cache had seen, and (b) an order that changed in the
//! window had no effect on `balance` before it: a payin paid and settled in the window,
//! a payout made in it. It is not exact for an order settled before `from` and refunded
//! or charged back after (the whole settled payin counts again), a payout that failed
//! after an earlier window took it (its return is not seen), or a partial chargeback
//! (the list gives no chargeback amount: the order's amount counts). The difference
//! shows such cases; the lines' orders are where to look.

use paydesk_gateway::{Meaning, StateDictionary, StateField};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::error::{CoreError, CoreResult};
use crate::statement::Field;
use crate::store::balances::BalanceSnapshot;
use crate::store::orders::{OrderFilter, OrderKind, OrderStore, StatementGroup};

/// What a reconciliation line is.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LineKind {
    /// Paid payins settled: their amount.
    SettledPayins,
    /// Their `handlingFee`.
    PayinHandlingFees,
    /// Their `transactionFixedFee`.
    PayinFixedFees,
    /// Their `exceptionHandlingFee`.
    PayinExceptionFees,
    /// Their `rollingReserve`, held back from the settlement.
    ReserveHeld,
    /// Their `refundAmount` (refunds of payins not settled come out of the unsettled
    /// balance).
    Refunds,
    /// `rollingReserve` of paid payins whose reserve is released.
    ReserveReleased,
    /// Charged-back payins, at the amount charged back (looked up; else the order's).
    Chargebacks,
    /// Payouts open or paid (the gateway takes a payout's money when it accepts it).
    Payouts,
    PayoutHandlingFees,
    PayoutFixedFees,
    /// Card top-ups paid (from the merchant's balance to the card).
    TopUps,
    /// Card withdrawals paid (from the card to the merchant's balance).
    Withdrawals,
    WithdrawalFees,
}

/// One line: `amount` is the sum of `field` over the `count` orders `filter` lists;
/// `effect` is what they did to the balance (`amount` with its sign).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReconcileLine {
    pub kind: LineKind,
    pub count: i64,
    /// A decimal string.
    pub amount: String,
    /// A decimal string: `amount`, negative when it leaves the balance.
    pub effect: String,
    pub field: Field,
    pub filter: OrderFilter,
}

/// The movement of a currency's balance between two snapshots, and what explains it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reconciliation {
    pub currency: String,
    pub from: BalanceSnapshot,
    pub to: BalanceSnapshot,
    /// `to.balance - from.balance` (the available balance; see the module's note).
    pub observed: String,
    /// The sum of the lines' effects.
    pub explained: String,
    /// `observed - explained`: zero when the cache explains every movement.
    pub difference: String,
    pub lines: Vec<ReconcileLine>,
    /// Every order of the currency seen moving in the window.
    pub filter: OrderFilter,
}

/// Money still to come to the balance in one currency, from the cache.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Upcoming {
    pub currency: String,
    /// Paid payins not settled (or settlement not given): how many, their amount.
    pub unsettled_count: i64,
    pub unsettled_amount: String,
    /// What their settlement should bring: amount less fees, reserve and refunds.
    pub unsettled_net: String,
    pub unsettled_filter: OrderFilter,
    /// When they settle, UTC millis. Always `None`: neither the list nor the queries give a
    /// settlement time or schedule, and PayDesk does not guess one.
    pub settles_at: Option<i64>,
    /// Rolling reserve of paid payins still held (status held, or not given).
    pub reserve_count: i64,
    pub reserve_amount: String,
    pub reserve_filter: OrderFilter,
    /// When it is released, UTC millis. Always `None`: the gateway gives no release date.
    pub released_at: Option<i64>,
}

/// Raw order states the dictionary reads as one of `meanings`.
fn states(dict: &StateDictionary, meanings: &[Meaning]) -> Vec<i64> {
    let mut v: Vec<i64> = dict
        .entries(StateField::OrderState)
        .filter(|(_, m)| meanings.contains(m))
        .filter_map(|(raw, _)| raw.parse().ok())
        .collect();
    v.sort_unstable();
    v
}

const PAID: [Meaning; 4] = [
    Meaning::Success,
    Meaning::Refunded,
    Meaning::PartlyRefunded,
    Meaning::ChargedBack,
];

/// Which orders a line counts: kinds (`None` in the list: not known), states, and
/// settlement and reserve statuses (-1: not given; empty: any).
#[derive(Clone, Default)]
struct Pick {
    kinds: Vec<Option<OrderKind>>,
    states: Vec<i64>,
    settles: Vec<i64>,
    reserves: Vec<i64>,
}

impl Pick {
    fn payins(states: Vec<i64>) -> Self {
        Pick {
            // The list does not say what an order is: one the journal did not make counts
            // as a payin, as in statements.
            kinds: vec![Some(OrderKind::Payin), None],
            states,
            ..Pick::default()
        }
    }

    fn of(kind: OrderKind, states: Vec<i64>) -> Self {
        Pick {
            kinds: vec![Some(kind)],
            states,
            ..Pick::default()
        }
    }

    fn takes(&self, g: &StatementGroup) -> bool {
        let given =
            |list: &[i64], v: Option<i64>| list.is_empty() || list.contains(&v.unwrap_or(-1));
        self.kinds.contains(&g.kind)
            && self.states.contains(&g.state)
            && given(&self.settles, g.settle)
            && given(&self.reserves, g.reserve_status)
    }

    fn filter(&self, base: &OrderFilter) -> OrderFilter {
        let mut f = base.clone();
        f.kinds = self.kinds.iter().flatten().copied().collect();
        f.unknown_kind = self.kinds.contains(&None);
        f.states = self.states.clone();
        f.settles = self.settles.clone();
        f.reserve_statuses = self.reserves.clone();
        f
    }
}

fn field_of(field: Field, g: &StatementGroup) -> Decimal {
    let s = &g.sums;
    match field {
        Field::SourceAmount => s.amount,
        Field::HandlingFee => s.handling_fee,
        Field::TransactionFixedFee => s.fixed_fee,
        Field::ExceptionHandlingFee => s.exception_fee,
        Field::RollingReserve => s.rolling_reserve,
        Field::RefundAmount => s.refund_amount,
        Field::SettleAmount => s.settle_amount,
        Field::ReceiveAmount => s.receive_amount,
        Field::ChargebackAmount => s.chargeback,
    }
}

/// The count and sum of `field` over the groups `pick` takes.
fn sum(groups: &[StatementGroup], pick: &Pick, field: Field) -> (i64, Decimal) {
    groups
        .iter()
        .filter(|g| pick.takes(g))
        .fold((0, Decimal::ZERO), |(n, a), g| {
            (n + g.count, a + field_of(field, g))
        })
}

fn decimal(field: &str, text: &str) -> CoreResult<Decimal> {
    text.trim()
        .parse::<Decimal>()
        .map_err(|e| CoreError::internal(format!("snapshot {field} {text:?}: {e}")))
}

/// The lines of a window: `(kind, sign, field, pick)`.
fn line_specs(dict: &StateDictionary) -> Vec<(LineKind, i8, Field, Pick)> {
    let paid = states(dict, &PAID);
    let settled = Pick {
        settles: vec![1],
        ..Pick::payins(paid.clone())
    };
    let released = Pick {
        reserves: vec![1],
        ..Pick::payins(paid)
    };
    let charged_back = Pick::payins(states(dict, &[Meaning::ChargedBack]));
    let payouts = Pick::of(
        OrderKind::Payout,
        states(
            dict,
            // A payout debits the balance when made, and gives it back only if it fails.
            &[
                Meaning::Created,
                Meaning::Pending,
                Meaning::Processing,
                Meaning::Submitted,
                Meaning::Success,
            ],
        ),
    );
    let success = states(dict, &[Meaning::Success]);
    let top_ups = Pick::of(OrderKind::TopUp, success.clone());
    let withdrawals = Pick::of(OrderKind::Withdraw, success);
    use Field as F;
    use LineKind as L;
    vec![
        (L::SettledPayins, 1, F::SourceAmount, settled.clone()),
        (L::PayinHandlingFees, -1, F::HandlingFee, settled.clone()),
        (
            L::PayinFixedFees,
            -1,
            F::TransactionFixedFee,
            settled.clone(),
        ),
        (
            L::PayinExceptionFees,
            -1,
            F::ExceptionHandlingFee,
            settled.clone(),
        ),
        (L::ReserveHeld, -1, F::RollingReserve, settled.clone()),
        (L::Refunds, -1, F::RefundAmount, settled),
        (L::ReserveReleased, 1, F::RollingReserve, released),
        (L::Chargebacks, -1, F::ChargebackAmount, charged_back),
        (L::Payouts, -1, F::SourceAmount, payouts.clone()),
        (L::PayoutHandlingFees, -1, F::HandlingFee, payouts.clone()),
        (L::PayoutFixedFees, -1, F::TransactionFixedFee, payouts),
        (L::TopUps, -1, F::SourceAmount, top_ups),
        (L::Withdrawals, 1, F::SourceAmount, withdrawals.clone()),
        (L::WithdrawalFees, -1, F::HandlingFee, withdrawals),
    ]
}

/// The reconciliation of `currency`'s balance from snapshot `from` to snapshot `to`.
pub fn reconcile(
    orders: &dyn OrderStore,
    dict: &StateDictionary,
    from: BalanceSnapshot,
    to: BalanceSnapshot,
) -> CoreResult<Reconciliation> {
    if from.currency != to.currency {
        return Err(CoreError::keyed(
            "to",
            "a snapshot of another currency",
            "snapshotOtherCurrency",
            &[],
        ));
    }
    if to.taken_at <= from.taken_at {
        return Err(CoreError::keyed(
            "to",
            "must be taken after from",
            "snapshotOrder",
            &[],
        ));
    }
    let base = OrderFilter {
        currencies: vec![from.currency.clone()],
        moved_from: Some(from.taken_at + 1),
        moved_to: Some(to.taken_at + 1),
        ..OrderFilter::default()
    };
    let groups = orders.statement_groups(&base)?;
    explain(dict, &groups, &base, from, to)
}

/// The lines of `groups` (the window's orders, `base` their filter) against the
/// snapshots.
fn explain(
    dict: &StateDictionary,
    groups: &[StatementGroup],
    base: &OrderFilter,
    from: BalanceSnapshot,
    to: BalanceSnapshot,
) -> CoreResult<Reconciliation> {
    let mut explained = Decimal::ZERO;
    let lines = line_specs(dict)
        .into_iter()
        .map(|(kind, sign, field, pick)| {
            let (count, amount) = sum(groups, &pick, field);
            let effect = if sign < 0 { -amount } else { amount };
            explained += effect;
            ReconcileLine {
                kind,
                count,
                amount: amount.normalize().to_string(),
                effect: effect.normalize().to_string(),
                field,
                filter: pick.filter(base),
            }
        })
        .collect();
    let observed = decimal("balance", &to.balance)? - decimal("balance", &from.balance)?;
    Ok(Reconciliation {
        currency: from.currency.clone(),
        observed: observed.normalize().to_string(),
        explained: explained.normalize().to_string(),
        difference: (observed - explained).normalize().to_string(),
        lines,
        filter: base.clone(),
        from,
        to,
    })
}

/// What is still to come in each currency of the cache (`currency` only, when given).
pub fn upcoming(
    orders: &dyn OrderStore,
    dict: &StateDictionary,
    currency: Option<&str>,
) -> CoreResult<Vec<Upcoming>> {
    let currencies = match currency {
        Some(c) => vec![c.to_string()],
        None => orders.distinct_currencies()?,
    };
    let paid = states(dict, &PAID);
    currencies
        .into_iter()
        .map(|c| {
            let base = OrderFilter {
                currencies: vec![c.clone()],
                ..OrderFilter::default()
            };
            let groups = orders.statement_groups(&base)?;
            let unsettled = Pick {
                settles: vec![0, -1],
                ..Pick::payins(paid.clone())
            };
            let held = Pick {
                reserves: vec![0, -1],
                ..Pick::payins(paid.clone())
            };
            let (unsettled_count, amount) = sum(&groups, &unsettled, Field::SourceAmount);
            let less: Decimal = [
                Field::HandlingFee,
                Field::TransactionFixedFee,
                Field::ExceptionHandlingFee,
                Field::RollingReserve,
                Field::RefundAmount,
            ]
            .into_iter()
            .map(|f| sum(&groups, &unsettled, f).1)
            .sum();
            let (reserve_count, reserve) = sum(&groups, &held, Field::RollingReserve);
            Ok(Upcoming {
                currency: c,
                unsettled_count,
                unsettled_amount: amount.normalize().to_string(),
                unsettled_net: (amount - less).normalize().to_string(),
                unsettled_filter: unsettled.filter(&base),
                settles_at: None,
                reserve_count,
                reserve_amount: reserve.normalize().to_string(),
                reserve_filter: held.filter(&base),
                released_at: None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
