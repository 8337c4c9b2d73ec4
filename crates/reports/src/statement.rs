//! Statements: what the cached orders of a period add up to, per currency. Payins and
//! payouts by state, fees by kind, rolling reserve held and released, refunds,
//! chargebacks, settled and not settled, and the net. The database groups and sums
//! ([`OrderStore::statement_groups`]); this module only adds the groups up, so a month of
//! a million orders costs one indexed pass.
//!
//! Every figure carries the [`OrderFilter`] of the orders behind it: the figure is the
//! sum of its [`Field`] over exactly the orders that filter lists, so a screen opens the
//! Orders screen with it and an export of that filter adds up to the figure.
//!
//! What the cache cannot tell: the gateway's list does not say whether an order is a
//! payin or a payout. An order's kind is known from the journal of the desk that made
//! it, or from the profile's conventions (`kindRules` on its number); the others are on
//! a line of their own ([`CurrencyStatement::unknown_kind`]), never counted as payins (a
//! payout made outside the desk would be) and left out of the net; a chargeback's amount is the order's amount
//! (the list gives none); and an order is in the period by its cached date (the day of
//! the list window it was found in, or the time this desk made it).

use paydesk_gateway::{Meaning, StateDictionary, StateField};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::error::{CoreError, CoreResult};
use crate::store::orders::{GroupSums, OrderFilter, OrderKind, OrderStore, StatementGroup};

pub mod export;
mod font;
mod pdf;

/// A period and the zone its days are in belong to the engine (a refresh of a period, a
/// profile's business zone); kept at these paths.
pub use paydesk_core::period::{Period, Zone, parse_zone};

/// Which amount of an order a figure sums.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Field {
    SourceAmount,
    HandlingFee,
    TransactionFixedFee,
    ExceptionHandlingFee,
    RollingReserve,
    RefundAmount,
    SettleAmount,
    ReceiveAmount,
    /// The amount charged back: the chargeback query's, else the order's `sourceAmount`.
    ChargebackAmount,
}

impl Field {
    fn of(self, s: &GroupSums) -> Decimal {
        match self {
            Self::SourceAmount => s.amount,
            Self::HandlingFee => s.handling_fee,
            Self::TransactionFixedFee => s.fixed_fee,
            Self::ExceptionHandlingFee => s.exception_fee,
            Self::RollingReserve => s.rolling_reserve,
            Self::RefundAmount => s.refund_amount,
            Self::SettleAmount => s.settle_amount,
            Self::ReceiveAmount => s.receive_amount,
            Self::ChargebackAmount => s.chargeback,
        }
    }

    /// The order list's (and the orders export's) name of the field.
    pub fn wire_name(self) -> &'static str {
        match self {
            Self::SourceAmount => "sourceAmount",
            Self::HandlingFee => "handlingFee",
            Self::TransactionFixedFee => "transactionFixedFee",
            Self::ExceptionHandlingFee => "exceptionHandlingFee",
            Self::RollingReserve => "rollingReserve",
            Self::RefundAmount => "refundAmount",
            Self::SettleAmount => "settleAmount",
            Self::ReceiveAmount => "receiveAmount",
            Self::ChargebackAmount => "chargebackAmount",
        }
    }

    /// What a finance person calls the amount.
    pub fn label(self) -> &'static str {
        match self {
            Self::SourceAmount => "Order amount",
            Self::HandlingFee => "Handling fee",
            Self::TransactionFixedFee => "Fixed fee",
            Self::ExceptionHandlingFee => "Exception fee",
            Self::RollingReserve => "Rolling reserve",
            Self::RefundAmount => "Refunded amount",
            Self::SettleAmount => "Settled amount",
            Self::ReceiveAmount => "Received amount",
            Self::ChargebackAmount => "Charged-back amount",
        }
    }
}

/// A count and an amount, and the orders behind them: `amount` is the sum of `field`
/// over the orders `filter` lists, `count` how many they are.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Figure {
    pub count: i64,
    /// A decimal string.
    pub amount: String,
    pub field: Field,
    pub filter: OrderFilter,
}

/// The orders of one raw state.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StateLine {
    pub state: i64,
    /// The profile's dictionary's reading (`success`, `failed`, ...); `None`: a state
    /// it does not know, shown raw.
    pub meaning: Option<Meaning>,
    pub figure: Figure,
}

/// Payins or payouts of a currency: by state, and by what the states mean.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Flow {
    pub all: Figure,
    pub by_state: Vec<StateLine>,
    /// Paid: success, and the refunded, partly refunded and charged back (they were paid).
    pub succeeded: Figure,
    /// Failed or closed.
    pub failed: Figure,
    /// Created or pending.
    pub pending: Figure,
    /// On the line of orders of unknown kind: how many there are (0 on the others).
    pub unclassified: i64,
}

/// Fees by kind over a flow's paid orders, and their total.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fees {
    pub handling: Figure,
    pub fixed: Figure,
    pub exception: Figure,
    pub total: String,
}

/// Paid payins settled or not: how many, their amount, and what the gateway says was
/// settled and is received.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settlement {
    pub amount: Figure,
    pub settle_amount: Figure,
    pub receive_amount: Figure,
}

/// One currency's statement.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CurrencyStatement {
    pub currency: String,
    pub payins: Flow,
    pub payin_fees: Fees,
    /// Rolling reserve of paid payins still held (status held, or not given).
    pub reserve_held: Figure,
    pub reserve_released: Figure,
    /// `refundAmount` of paid payins refunded in full or in part, whatever their state
    /// now (a refunded order charged back later keeps its refund).
    pub refunds: Figure,
    /// Charged-back payins, at the amount charged back (looked up with the chargeback
    /// query; the order's amount where it was not).
    pub chargebacks: Figure,
    /// Charged-back payins whose charged-back amount was not looked up: counted at the
    /// order's full amount.
    pub chargebacks_not_looked_up: i64,
    pub settled: Settlement,
    /// Not settled, or settlement not given.
    pub not_settled: Settlement,
    pub payouts: Flow,
    pub payout_fees: Fees,
    /// Payouts not finished yet: the gateway has already taken them (and their fees)
    /// from the balance, so they are a line of the net of their own.
    pub pending_payouts: Figure,
    pub pending_payout_fees: Fees,
    /// Card top-ups that succeeded: money moved from the balance to a card.
    pub card_top_ups: Figure,
    /// Card withdrawals that succeeded: money back from a card to the balance, less
    /// their fees.
    pub card_withdrawals: Figure,
    pub card_withdrawal_fees: Fees,
    /// Digits after the point of the currency's minor unit (2 for USD, 0 for JPY): every
    /// amount is written with at least these.
    pub digits: u32,
    /// Orders whose kind neither the journal nor the conventions' kind rules give (the
    /// list does not say): on their own line, in no other figure and not in the net.
    pub unknown_kind: Flow,
    /// Paid payins less their fees, the reserve still held, refunds and chargebacks,
    /// less paid and pending payouts and their fees, less card top-ups, plus card
    /// withdrawals less their fees: what the period's orders move on the balance
    /// (orders of unknown kind are left out: see `unknown_kind`).
    pub net: String,
}

/// A statement of a period, for one currency or all.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Statement {
    pub period: Period,
    /// The currency asked for; `None`: all.
    pub currency: Option<String>,
    /// Every order behind the statement (the period, the currency).
    pub filter: OrderFilter,
    pub orders: i64,
    /// Orders the cache cannot place exactly on a side of the period's first or last
    /// moment (the gateway's list gave their day, or the window they were found in spans
    /// the boundary, in this time zone): counted by where the cache placed them, and
    /// named here instead of guessed. 0 when every order is placed exactly.
    #[serde(default)]
    pub uncertain: i64,
    /// When the cache was last synced (UTC millis): the figures are as of then.
    #[serde(default)]
    pub as_of: Option<i64>,
    pub currencies: Vec<CurrencyStatement>,
    /// On a team: orders behind the statement that no request of the team made (made
    /// outside this team). They keep no kind, so they are on the line of orders of
    /// unknown kind, never counted as payins. 0 on a single desk.
    #[serde(default)]
    pub outside_team: i64,
}

/// What the dictionary's meanings make of a state, for a statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Paid,
    Failed,
    Pending,
    Other,
}

fn class(m: Option<Meaning>) -> Class {
    match m {
        Some(
            Meaning::Success | Meaning::Refunded | Meaning::PartlyRefunded | Meaning::ChargedBack,
        ) => Class::Paid,
        Some(Meaning::Failed | Meaning::Closed) => Class::Failed,
        // Not finished yet, whatever a gateway calls it.
        Some(Meaning::Created | Meaning::Pending | Meaning::Processing | Meaning::Submitted) => {
            Class::Pending
        }
        _ => Class::Other,
    }
}

/// Raw values of `field` the dictionary reads as one of `meanings`, as numbers.
fn raws(dict: &StateDictionary, field: StateField, meanings: &[Meaning]) -> Vec<i64> {
    let mut v: Vec<i64> = dict
        .entries(field)
        .filter(|(_, m)| meanings.contains(m))
        .filter_map(|(raw, _)| raw.parse().ok())
        .collect();
    v.sort_unstable();
    v
}

/// Adds up groups into figures, each with the filter of exactly the orders it counts.
struct Builder<'a> {
    dict: &'a StateDictionary,
    base: OrderFilter,
    groups: Vec<StatementGroup>,
    /// The states seen, raw values with their meaning.
    states: Vec<(i64, Option<Meaning>)>,
}

/// Which orders of a currency a figure counts.
#[derive(Clone, Default)]
struct Pick {
    side: Side,
    states: Vec<i64>,
    settles: Vec<i64>,
    reserves: Vec<i64>,
    /// Only orders with a refunded amount: the count is theirs (the amount is the same
    /// either way, the others have none).
    refunded: bool,
}

/// Which orders a figure counts, by what the desk knows of their kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Side {
    #[default]
    Payins,
    Payouts,
    /// Orders whose kind neither the journal nor the conventions' rules give: counted on
    /// a line of their own, never as payins (a payout made outside the desk would be).
    Unknown,
    TopUps,
    Withdrawals,
}

impl Side {
    fn kind(self) -> Option<OrderKind> {
        match self {
            Side::Payins => Some(OrderKind::Payin),
            Side::Payouts => Some(OrderKind::Payout),
            Side::TopUps => Some(OrderKind::TopUp),
            Side::Withdrawals => Some(OrderKind::Withdraw),
            Side::Unknown => None,
        }
    }
}

impl Builder<'_> {
    fn digits(&self, currency: &str) -> u32 {
        minor_digits(currency)
    }

    fn meaning(&self, state: i64) -> Option<Meaning> {
        self.dict
            .meaning(StateField::OrderState, &state.to_string())
    }

    fn states_of(&self, c: Class) -> Vec<i64> {
        // The dictionary's states of that class, and any seen (a profile may override).
        let mut v: Vec<i64> = self
            .dict
            .entries(StateField::OrderState)
            .filter(|(_, m)| class(Some(*m)) == c)
            .filter_map(|(raw, _)| raw.parse().ok())
            .collect();
        v.extend(
            self.states
                .iter()
                .filter(|(_, m)| class(*m) == c)
                .map(|(s, _)| *s),
        );
        v.sort_unstable();
        v.dedup();
        v
    }

    fn filter(&self, currency: &str, p: &Pick) -> OrderFilter {
        let mut f = self.base.clone();
        f.currencies = vec![currency.to_string()];
        match p.side.kind() {
            Some(k) => {
                f.kinds = vec![k];
                f.unknown_kind = false;
            }
            None => {
                f.kinds = vec![];
                f.unknown_kind = true;
            }
        }
        f.refunded = p.refunded.then_some(true);
        f.states = p.states.clone();
        f.settles = p.settles.clone();
        f.reserve_statuses = p.reserves.clone();
        f
    }

    fn matches(g: &StatementGroup, currency: &str, p: &Pick) -> bool {
        let kind_ok = g.kind == p.side.kind();
        let any = |list: &[i64], v: i64| list.is_empty() || list.contains(&v);
        g.currency == currency
            && kind_ok
            && any(&p.states, g.state)
            && any(&p.settles, g.settle.unwrap_or(-1))
            && any(&p.reserves, g.reserve_status.unwrap_or(-1))
    }

    fn figure(&self, currency: &str, p: &Pick, field: Field) -> Figure {
        let (count, amount) = self
            .groups
            .iter()
            .filter(|g| Self::matches(g, currency, p))
            .fold((0, Decimal::ZERO), |(n, a), g| {
                let n_of = if p.refunded { g.sums.refunded } else { g.count };
                (n + n_of, a + field.of(&g.sums))
            });
        Figure {
            count,
            amount: money(amount, self.digits(currency)),
            field,
            filter: self.filter(currency, p),
        }
    }

    fn flow(&self, currency: &str, side: Side) -> Flow {
        let pick = |states: Vec<i64>| Pick {
            side,
            states,
            ..Pick::default()
        };
        let mut by_state: Vec<StateLine> = self
            .states
            .iter()
            .map(|(state, meaning)| StateLine {
                state: *state,
                meaning: *meaning,
                figure: self.figure(currency, &pick(vec![*state]), Field::SourceAmount),
            })
            .filter(|l| l.figure.count > 0)
            .collect();
        by_state.sort_by_key(|l| l.state);
        let unclassified = if side == Side::Unknown {
            self.groups
                .iter()
                .filter(|g| g.currency == currency && g.kind.is_none())
                .map(|g| g.count)
                .sum()
        } else {
            0
        };
        Flow {
            all: self.figure(currency, &pick(vec![]), Field::SourceAmount),
            by_state,
            succeeded: self.figure(
                currency,
                &pick(self.states_of(Class::Paid)),
                Field::SourceAmount,
            ),
            failed: self.figure(
                currency,
                &pick(self.states_of(Class::Failed)),
                Field::SourceAmount,
            ),
            pending: self.figure(
                currency,
                &pick(self.states_of(Class::Pending)),
                Field::SourceAmount,
            ),
            unclassified,
        }
    }

    fn fees(&self, currency: &str, paid: &Pick) -> Fees {
        let handling = self.figure(currency, paid, Field::HandlingFee);
        let fixed = self.figure(currency, paid, Field::TransactionFixedFee);
        let exception = self.figure(currency, paid, Field::ExceptionHandlingFee);
        let total = [&handling, &fixed, &exception]
            .iter()
            .map(|f| dec(&f.amount))
            .sum::<Decimal>();
        Fees {
            handling,
            fixed,
            exception,
            total: money(total, self.digits(currency)),
        }
    }

    fn settlement(&self, currency: &str, p: &Pick) -> Settlement {
        Settlement {
            amount: self.figure(currency, p, Field::SourceAmount),
            settle_amount: self.figure(currency, p, Field::SettleAmount),
            receive_amount: self.figure(currency, p, Field::ReceiveAmount),
        }
    }

    fn currency(&self, currency: &str) -> CurrencyStatement {
        let dict = self.dict;
        let paid = Pick {
            states: self.states_of(Class::Paid),
            ..Pick::default()
        };
        let with_states = |meanings: &[Meaning]| Pick {
            states: raws(dict, StateField::OrderState, meanings),
            ..Pick::default()
        };
        let mut held = raws(dict, StateField::RollingReserveStatus, &[Meaning::Held]);
        held.insert(0, -1);
        let mut not_settled = raws(dict, StateField::Settle, &[Meaning::NotSettled]);
        not_settled.insert(0, -1);
        let payins = self.flow(currency, Side::Payins);
        let payin_fees = self.fees(currency, &paid);
        let reserve_held = self.figure(
            currency,
            &Pick {
                reserves: held,
                ..paid.clone()
            },
            Field::RollingReserve,
        );
        let reserve_released = self.figure(
            currency,
            &Pick {
                reserves: raws(dict, StateField::RollingReserveStatus, &[Meaning::Released]),
                ..paid.clone()
            },
            Field::RollingReserve,
        );
        // Refunds of paid payins in whatever state they are now.
        let refunds = self.figure(
            currency,
            &Pick {
                refunded: true,
                ..paid.clone()
            },
            Field::RefundAmount,
        );
        let charged_back = with_states(&[Meaning::ChargedBack]);
        let chargebacks = self.figure(currency, &charged_back, Field::ChargebackAmount);
        let chargebacks_not_looked_up = chargebacks.count
            - self
                .groups
                .iter()
                .filter(|g| Self::matches(g, currency, &charged_back))
                .map(|g| g.sums.chargebacks_looked_up)
                .sum::<i64>();
        let settled = self.settlement(
            currency,
            &Pick {
                settles: raws(dict, StateField::Settle, &[Meaning::Settled]),
                ..paid.clone()
            },
        );
        let not_settled = self.settlement(
            currency,
            &Pick {
                settles: not_settled,
                ..paid.clone()
            },
        );
        let payouts = self.flow(currency, Side::Payouts);
        let payout_fees = self.fees(
            currency,
            &Pick {
                side: Side::Payouts,
                ..paid.clone()
            },
        );
        let pending = Pick {
            side: Side::Payouts,
            states: self.states_of(Class::Pending),
            ..Pick::default()
        };
        let pending_payouts = self.figure(currency, &pending, Field::SourceAmount);
        let pending_payout_fees = self.fees(currency, &pending);
        let succeeded = |side: Side| Pick {
            side,
            states: raws(dict, StateField::OrderState, &[Meaning::Success]),
            ..Pick::default()
        };
        let card_top_ups = self.figure(currency, &succeeded(Side::TopUps), Field::SourceAmount);
        let card_withdrawals =
            self.figure(currency, &succeeded(Side::Withdrawals), Field::SourceAmount);
        let card_withdrawal_fees = self.fees(currency, &succeeded(Side::Withdrawals));
        let unknown_kind = self.flow(currency, Side::Unknown);
        let net = dec(&payins.succeeded.amount)
            - dec(&payin_fees.total)
            - dec(&reserve_held.amount)
            - dec(&refunds.amount)
            - dec(&chargebacks.amount)
            - dec(&payouts.succeeded.amount)
            - dec(&payout_fees.total)
            - dec(&pending_payouts.amount)
            - dec(&pending_payout_fees.total)
            - dec(&card_top_ups.amount)
            + dec(&card_withdrawals.amount)
            - dec(&card_withdrawal_fees.total);
        CurrencyStatement {
            currency: currency.to_string(),
            payins,
            payin_fees,
            reserve_held,
            reserve_released,
            refunds,
            chargebacks,
            chargebacks_not_looked_up,
            settled,
            not_settled,
            payouts,
            payout_fees,
            pending_payouts,
            pending_payout_fees,
            card_top_ups,
            card_withdrawals,
            card_withdrawal_fees,
            digits: self.digits(currency),
            unknown_kind,
            net: money(net, self.digits(currency)),
        }
    }
}

/// Digits after the point of `currency`'s minor unit (2 for a code the desk does not
/// know).
pub fn minor_digits(currency: &str) -> u32 {
    paydesk_gateway::money::Currency::parse(currency).map_or(2, |c| c.minor_units())
}

/// An exact amount written with at least `digits` decimals (its currency's), never
/// rounded: a sum of fees with four decimals keeps them.
pub fn money(amount: Decimal, digits: u32) -> String {
    let mut d = amount.normalize();
    if d.scale() < digits {
        d.rescale(digits);
    }
    d.to_string()
}

/// A figure's amount back as a number (it was written from one).
fn dec(text: &str) -> Decimal {
    text.parse().unwrap_or(Decimal::ZERO)
}

/// A day in milliseconds.
const DAY: i64 = 86_400_000;

/// Groups of the same currency, kind, state, settlement and reserve status added up
/// (the days' sums of a period), sorted by them.
fn merge(groups: impl Iterator<Item = StatementGroup>) -> CoreResult<Vec<StatementGroup>> {
    type Key = (String, Option<&'static str>, i64, Option<i64>, Option<i64>);
    let mut by: std::collections::BTreeMap<Key, StatementGroup> = Default::default();
    let add = |a: &mut Decimal, b: Decimal| -> CoreResult<()> {
        *a = a
            .checked_add(b)
            .ok_or_else(|| CoreError::internal("a statement sum beyond 7.9 x 10^28"))?;
        Ok(())
    };
    for g in groups {
        let key = (
            g.currency.clone(),
            g.kind.map(|k| k.as_str()),
            g.state,
            g.settle,
            g.reserve_status,
        );
        match by.get_mut(&key) {
            None => {
                by.insert(key, g);
            }
            Some(m) => {
                m.count += g.count;
                let (a, b) = (&mut m.sums, g.sums);
                add(&mut a.amount, b.amount)?;
                add(&mut a.handling_fee, b.handling_fee)?;
                add(&mut a.fixed_fee, b.fixed_fee)?;
                add(&mut a.exception_fee, b.exception_fee)?;
                add(&mut a.rolling_reserve, b.rolling_reserve)?;
                add(&mut a.refund_amount, b.refund_amount)?;
                add(&mut a.settle_amount, b.settle_amount)?;
                add(&mut a.receive_amount, b.receive_amount)?;
                add(&mut a.chargeback, b.chargeback)?;
                a.chargebacks_looked_up += b.chargebacks_looked_up;
                a.refunded += b.refunded;
                a.outside_team += b.outside_team;
            }
        }
    }
    Ok(by.into_values().collect())
}

impl Statement {
    /// The statement of `period` for `currency` (all when `None`) from the cache.
    pub fn build(
        orders: &dyn OrderStore,
        dict: &StateDictionary,
        period: Period,
        currency: Option<&str>,
    ) -> CoreResult<Self> {
        let currency = currency.map(str::trim).filter(|c| !c.is_empty());
        if let Some(c) = currency
            && (c.len() != 3 || !c.bytes().all(|b| b.is_ascii_uppercase()))
        {
            return Err(CoreError::keyed(
                "currency",
                "must be a three-letter ISO code such as USD",
                "currencyCode",
                &[("got", c.to_string())],
            ));
        }
        let filter = OrderFilter {
            from: Some(period.from),
            to: Some(period.to),
            currencies: currency.map(|c| vec![c.to_string()]).unwrap_or_default(),
            ..OrderFilter::default()
        };
        // Summed a day at a time (24 hours from the period's start, the last cut to its
        // end), which the cache keeps: a month is read from 30 days' sums, not its orders.
        let mut days = Vec::new();
        let mut at = period.from;
        while at < period.to && days.len() < 40_000 {
            let end = at.saturating_add(DAY).min(period.to);
            days.push((at, end));
            at = end;
        }
        let groups = if at < period.to || !orders.keeps_report_days() {
            // Longer than a century, or a backend that keeps no days: not by day.
            orders.statement_groups(&filter)?
        } else {
            merge(
                orders
                    .statement_groups_by_day(&days)?
                    .into_iter()
                    .flatten()
                    .filter(|g| currency.is_none_or(|c| g.currency == c)),
            )?
        };
        Ok(Self::from_groups(dict, period, currency, filter, groups))
    }

    /// The statement of already summed groups (what [`Statement::build`] reads).
    pub fn from_groups(
        dict: &StateDictionary,
        period: Period,
        currency: Option<&str>,
        filter: OrderFilter,
        groups: Vec<StatementGroup>,
    ) -> Self {
        let mut currencies: Vec<String> = groups.iter().map(|g| g.currency.clone()).collect();
        currencies.sort();
        currencies.dedup();
        let mut states: Vec<i64> = groups.iter().map(|g| g.state).collect();
        states.sort_unstable();
        states.dedup();
        let orders = groups.iter().map(|g| g.count).sum();
        let outside_team = groups.iter().map(|g| g.sums.outside_team).sum();
        let mut b = Builder {
            dict,
            base: filter.clone(),
            groups,
            states: Vec::new(),
        };
        b.states = states.into_iter().map(|s| (s, b.meaning(s))).collect();
        // Top-ups and withdrawals move a card's money, not the merchant's sales: they
        // are behind the statement's filter but in none of its figures.
        Statement {
            period,
            currency: currency.map(String::from),
            filter,
            orders,
            uncertain: 0,
            as_of: None,
            currencies: currencies.iter().map(|c| b.currency(c)).collect(),
            outside_team,
        }
    }

    /// Two periods side by side: figures of `current` against `previous`, per currency
    /// either has.
    pub fn compare(current: Statement, previous: Statement) -> Comparison {
        let mut codes: Vec<String> = current
            .currencies
            .iter()
            .chain(&previous.currencies)
            .map(|c| c.currency.clone())
            .collect();
        codes.sort();
        codes.dedup();
        let find =
            |s: &Statement, code: &str| s.currencies.iter().find(|c| c.currency == code).cloned();
        let currencies = codes
            .iter()
            .map(|code| {
                let (a, b) = (find(&current, code), find(&previous, code));
                let pick = |f: fn(&CurrencyStatement) -> &str| {
                    Change::new(
                        a.as_ref().map_or(Decimal::ZERO, |c| dec(f(c))),
                        b.as_ref().map_or(Decimal::ZERO, |c| dec(f(c))),
                        minor_digits(code),
                    )
                };
                CurrencyChange {
                    currency: code.clone(),
                    payins: pick(|c| &c.payins.succeeded.amount),
                    fees: pick(|c| &c.payin_fees.total),
                    refunds: pick(|c| &c.refunds.amount),
                    chargebacks: pick(|c| &c.chargebacks.amount),
                    payouts: pick(|c| &c.payouts.succeeded.amount),
                    net: pick(|c| &c.net),
                }
            })
            .collect();
        Comparison {
            current,
            previous,
            currencies,
        }
    }
}

/// Two statements side by side.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    pub current: Statement,
    pub previous: Statement,
    pub currencies: Vec<CurrencyChange>,
}

/// The main figures of one currency in both periods.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CurrencyChange {
    pub currency: String,
    /// Paid payins.
    pub payins: Change,
    /// Payin fees.
    pub fees: Change,
    pub refunds: Change,
    pub chargebacks: Change,
    /// Paid payouts.
    pub payouts: Change,
    pub net: Change,
}

/// A figure now and before, the difference, and the difference in percent of before
/// (`None` when before was zero), to two decimals.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    pub current: String,
    pub previous: String,
    pub difference: String,
    pub percent: Option<String>,
}

impl Change {
    fn new(current: Decimal, previous: Decimal, digits: u32) -> Self {
        let difference = current - previous;
        let percent = (!previous.is_zero()).then(|| {
            (difference * Decimal::ONE_HUNDRED / previous.abs())
                .round_dp(2)
                .normalize()
                .to_string()
        });
        Change {
            current: money(current, digits),
            previous: money(previous, digits),
            difference: money(difference, digits),
            percent,
        }
    }
}

#[cfg(test)]
mod tests;
