//! Queries: balances and their history, refunds and chargebacks, notifications,
//! the audit log, the dashboard.

use paydesk_gateway::wire::{self, MerNo};
use serde::{Deserialize, Serialize};

use crate::desk::Desk;
use crate::error::{CoreError, CoreResult};
use crate::journal::{Entry, Status};
use crate::store::reversals::{ChargebackSeen, RefundSeen};

pub use crate::store::balances::BalanceSnapshot;
pub use crate::store::orders::DayFigures;
pub use crate::store::reversals::Reversal;

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Dashboard {
    pub balances: Vec<BalanceSnapshot>,
    pub days: Vec<DayFigures>,
    pub unknown_outcomes: Vec<Entry>,
    /// Every journal entry that needs a person, with the action that resolves it
    /// (oldest first).
    pub needs_attention: Vec<crate::desk::Attention>,
    /// Bulk rows held by this profile's runs (not in the journal): filled by the front
    /// end from the home ([`crate::profile::Home::held_bulk_rows`]).
    #[serde(default)]
    pub held_bulk: Vec<crate::held::HeldBulkRow>,
    /// Scheduled reports that failed or were missed at their time, until seen: filled
    /// by the front end from the home ([`crate::profile::Home::schedules`]).
    #[serde(default)]
    pub schedule_alerts: Vec<crate::schedule::ScheduleAlert>,
    pub pending_reviews: i64,
    pub sync_error: Option<(i64, String)>,
    pub last_sync: Option<i64>,
    pub cached_orders: i64,
}

/// The kinds of record the V2 order query answers with.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryType {
    /// The order itself.
    Sales,
    Refund,
    Chargeback,
}

impl QueryType {
    /// The interface's `queryType`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sales => "sales",
            Self::Refund => "refund",
            Self::Chargeback => "chargeback",
        }
    }
}

/// One currency's balance query: the answer, or why it failed (one currency's failure
/// does not hide the others).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BalanceResult {
    pub currency: String,
    pub snapshot: Option<BalanceSnapshot>,
    pub error: Option<CoreError>,
}

impl Desk {
    #[allow(clippy::type_complexity)]
    fn dashboard_figures(
        &self,
    ) -> CoreResult<(
        Vec<BalanceSnapshot>,
        Vec<DayFigures>,
        i64,
        i64,
        Option<(i64, String)>,
        Option<i64>,
    )> {
        // One moment's cache, under one lock: the figures agree with each other.
        self.store.cache_read(|c| {
            Ok((
                c.balances.latest()?,
                c.orders.day_figures(self.now_ms() - 30 * 86_400_000)?,
                c.reviews.pending_count()?,
                c.orders.count_all()?,
                c.sync_state.last_error(&self.profile.name)?,
                c.sync_state.last_synced(&self.profile.name)?,
            ))
        })
    }
}

/// A notification as the Events screen lists it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    #[serde(flatten)]
    pub stored: crate::events::Stored,
    /// How many times the sandbox tried to deliver it (built-in sandbox only).
    pub attempts: Option<u32>,
    pub delivered: Option<bool>,
}

impl<'d> super::Orders<'d> {
    /// The V2 order query of one type (`sales`, `refund`, `chargeback`, or another the
    /// gateway knows); refund and chargeback records are cached.
    pub async fn query_order(
        self,
        trade_no: &str,
        query_type: &str,
    ) -> CoreResult<paydesk_gateway::Answer<wire::OrderRecord>> {
        paydesk_gateway::validate::required("queryType", query_type)?;
        // The gateway's own names of the three kinds of query (its conventions).
        let names = &self.desk.conventions.query_types;
        let wire_type = match query_type {
            "sales" => names.sales.as_str(),
            "refund" => names.refund.as_str(),
            "chargeback" => names.chargeback.as_str(),
            other => other,
        };
        let op = wire::V2OrderQuery::new(
            MerNo(self.desk.profile.mer_no),
            trade_no.to_string(),
            wire_type.to_string(),
        );
        let a = self
            .desk
            .query(&op, format!("tradeNo={trade_no} queryType={query_type}"))
            .await?;
        crate::answers::order_record(trade_no, query_type, &a.data)?;
        let d = &a.data;
        let cached = self.desk.store.reversals();
        if d.chargeback_amount.is_some() {
            cached.chargeback(ChargebackSeen {
                trade_no,
                amount: d.chargeback_amount,
                currency: &d.chargeback_currency,
                actual_amount: d.actual_chargeback_amount,
                actual_currency: &d.actual_chargeback_currency,
                status: &d.status,
            })?;
        }
        if !d.refund_no.is_empty() {
            // The V2 record's `state` is the order's, whatever was asked (the project's
            // reading; the sandbox answers so): the refund's own state comes only from
            // the V1 refund query, so none is cached from here.
            cached.refund_from_order_query(RefundSeen {
                trade_no,
                refund_no: &d.refund_no,
                state: "",
                amount: d.refund_amount,
                currency: &d.refund_currency,
                fee: None,
                settle: d.settle,
                receive_amount: None,
            })?;
        }
        drop(cached);
        Ok(a)
    }

    pub fn dashboard(&self) -> CoreResult<Dashboard> {
        let (balances, days, pending_reviews, cached_orders, sync_error, last_sync) =
            self.desk.dashboard_figures()?;
        let unknown_outcomes = self.desk.store.journal().list(
            &self.desk.profile.name,
            &[Status::Unknown, Status::Sending],
            &[],
            100,
        )?;
        let needs_attention = self.desk.journal().needs_attention(100)?;
        Ok(Dashboard {
            balances,
            days,
            unknown_outcomes,
            needs_attention,
            held_bulk: Vec::new(),
            schedule_alerts: Vec::new(),
            pending_reviews,
            sync_error,
            last_sync,
            cached_orders,
        })
    }

    /// Refunds and chargebacks cached from queries, newest first; `trade_no` narrows
    /// to one order.
    pub fn reversals(&self, trade_no: Option<&str>) -> CoreResult<Vec<Reversal>> {
        self.desk.store.reversals().list(trade_no)
    }
}
