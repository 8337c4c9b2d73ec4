//! Queries: balances and their history, refunds and chargebacks, notifications,
//! the audit log, the dashboard.

use paydesk_gateway::wire::{self, MerNo};
use serde::{Deserialize, Serialize};

use super::Desk;
use crate::audit::{self};
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
    pub needs_attention: Vec<super::Attention>,
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
    /// The balance of each of `currencies` (ISO 4217 codes, any case), or of every
    /// currency the desk knows ([`Desk::currencies`]) when none is named; each answer is kept as a snapshot.
    /// A code that is not a currency refuses the whole request before anything is asked.
    pub async fn balances(&self, currencies: &[String]) -> CoreResult<Vec<BalanceResult>> {
        let mut list: Vec<String> = currencies
            .iter()
            .map(|c| c.trim().to_ascii_uppercase())
            .filter(|c| !c.is_empty())
            .collect();
        if list.is_empty() {
            list = self.currencies()?;
        }
        for c in &list {
            paydesk_gateway::money::Currency::parse(c)
                .map_err(|rule| CoreError::validation("currency", rule))?;
        }
        let mut seen = std::collections::HashSet::new();
        list.retain(|c| seen.insert(c.clone()));
        let mut out = Vec::with_capacity(list.len());
        for currency in list {
            let r = self.balance(&currency).await;
            let (snapshot, error) = match r {
                Ok(s) => (Some(s), None),
                Err(e) => (None, Some(e)),
            };
            out.push(BalanceResult {
                currency,
                snapshot,
                error,
            });
        }
        Ok(out)
    }

    /// The scheduled balance snapshot: when this desk talks to the gateway, its profile
    /// asks for snapshots on a schedule and the last one is at least that old at `now`
    /// (UTC millis), a snapshot of every currency the desk knows; how many were taken.
    /// `None` when none was due.
    pub async fn snapshot_balances_if_due(&self, now: i64) -> CoreResult<Option<usize>> {
        let every = i64::from(self.profile.sync.balances_every_mins) * 60_000;
        if every == 0 || !self.holds_key() || self.syncing() {
            return Ok(None);
        }
        let last = self.latest_balances()?.iter().map(|b| b.taken_at).max();
        if last.is_some_and(|t| now - t < every) || self.currencies()?.is_empty() {
            return Ok(None);
        }
        let taken = self.balances(&[]).await?;
        Ok(Some(taken.iter().filter(|b| b.snapshot.is_some()).count()))
    }

    /// The last snapshot of each currency, as the balances screen opens (no request).
    pub fn latest_balances(&self) -> CoreResult<Vec<BalanceSnapshot>> {
        self.store.balances().latest()
    }

    /// A balance query; every answer is kept as a snapshot for the history chart.
    pub async fn balance(&self, currency: &str) -> CoreResult<BalanceSnapshot> {
        let a = self
            .query(
                &wire::V2BalanceQuery {
                    mer_no: MerNo(self.profile.mer_no),
                    currency: currency.to_string(),
                },
                format!("currency={currency}"),
            )
            .await?;
        crate::answers::balance(currency, &a.data)?;
        let s = BalanceSnapshot {
            currency: a.data.currency.clone(),
            balance: a.data.balance.to_string(),
            un_checked_balance: a.data.un_checked_balance.to_string(),
            total_balance: a.data.total_balance.to_string(),
            taken_at: self.now_ms(),
        };
        self.store.balances().add(&s)?;
        Ok(s)
    }

    pub fn balance_history(&self, currency: &str) -> CoreResult<Vec<BalanceSnapshot>> {
        self.store.balances().history(currency)
    }

    /// The V2 order query of one type (`sales`, `refund`, `chargeback`, or another the
    /// gateway knows); refund and chargeback records are cached.
    pub async fn query_order(
        &self,
        trade_no: &str,
        query_type: &str,
    ) -> CoreResult<paydesk_gateway::Answer<wire::OrderRecord>> {
        paydesk_gateway::validate::required("queryType", query_type)?;
        // The gateway's own names of the three kinds of query (its conventions).
        let names = &self.conventions.query_types;
        let wire_type = match query_type {
            "sales" => names.sales.as_str(),
            "refund" => names.refund.as_str(),
            "chargeback" => names.chargeback.as_str(),
            other => other,
        };
        let op = wire::V2OrderQuery::new(
            MerNo(self.profile.mer_no),
            trade_no.to_string(),
            wire_type.to_string(),
        );
        let a = self
            .query(&op, format!("tradeNo={trade_no} queryType={query_type}"))
            .await?;
        crate::answers::order_record(trade_no, query_type, &a.data)?;
        let d = &a.data;
        let cached = self.store.reversals();
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

    /// Records a notification received at this desk's endpoint, with its signature
    /// checked against the gateway's key.
    pub fn record_notification(&self, body: &str) -> CoreResult<crate::events::Received> {
        let received =
            crate::events::check(body, self.gateway_key.as_ref(), &self.conventions.signing)?;
        self.store.notifications().add(
            &received.kind,
            &received.trade_no,
            body,
            received.signature_ok,
        )?;
        Ok(received)
    }

    /// Notifications received, newest first.
    pub fn notifications(&self, limit: i64) -> CoreResult<Vec<crate::events::Stored>> {
        self.store.notifications().latest(limit)
    }

    /// Notifications received, newest first, each with the gateway's record of its
    /// delivery (attempts, delivered) when the caller runs that gateway (the built-in
    /// sandbox).
    pub fn events(&self, limit: i64) -> CoreResult<Vec<Event>> {
        let stored = self.notifications(limit)?;
        let sent = self
            .control
            .as_ref()
            .map(|c| c.deliveries())
            .unwrap_or_default();
        Ok(stored
            .into_iter()
            .map(|n| {
                let sign = serde_json::from_str::<serde_json::Value>(&n.body)
                    .ok()
                    .and_then(|v| v.get("sign").and_then(|s| s.as_str()).map(str::to_string));
                let delivery = sent.iter().find(|x| sign.is_some() && x.sign == sign);
                Event {
                    attempts: delivery.map(|d| d.attempts),
                    delivered: delivery.map(|d| d.delivered),
                    stored: n,
                }
            })
            .collect())
    }

    /// Checks a pasted notification body's signature without storing it.
    pub fn verify_notification(&self, body: &str) -> CoreResult<crate::events::Received> {
        crate::events::check(body, self.gateway_key.as_ref(), &self.conventions.signing)
    }

    /// The V1 refund query; the record is cached.
    pub async fn refund(&self, trade_no: &str, refund_no: &str) -> CoreResult<wire::RefundRecord> {
        let op = wire::V1RefundQuery {
            mer_no: MerNo(self.profile.mer_no),
            mer_order_no: String::new(),
            version: wire::V1RefundQuery::VERSION.into(),
            trade_no: trade_no.to_string(),
            query_type: wire::V1RefundQuery::REFUND.into(),
            refund_no: refund_no.to_string(),
            // Some gateways spell this query's signature field `sing` (conventions).
            sing_variant: self.conventions.v1_query_sign_field
                == paydesk_gateway::conventions::V1QuerySignField::Sing,
        };
        let a = self
            .query(&op, format!("tradeNo={trade_no} refundNo={refund_no}"))
            .await?;
        crate::answers::refund_record(trade_no, refund_no, &a.data)?;
        let d = &a.data;
        if d.refund_no.is_empty() {
            // Nothing to keep it under: shown, not cached.
            return Ok(a.data);
        }
        self.store.reversals().refund(RefundSeen {
            trade_no,
            refund_no: &d.refund_no,
            state: &d.state,
            amount: d.refund_amount,
            currency: &d.refund_currency,
            fee: d.trade_fee,
            settle: d.settle,
            receive_amount: d.receive_amount,
        })?;
        Ok(a.data)
    }

    pub fn audit_verify(&self) -> CoreResult<audit::ChainCheck> {
        let anchor = self.secrets.audit_anchor(&self.profile.name)?;
        let alert = self.secrets.audit_alert(&self.profile.name)?;
        self.store
            .audit()
            .verify_with_alert(self.audit_key.expose(), anchor.as_ref(), alert)
    }

    pub fn audit_list(&self, f: &audit::AuditFilter) -> CoreResult<Vec<audit::AuditEntry>> {
        self.store.audit().list(f)
    }

    pub fn dashboard(&self) -> CoreResult<Dashboard> {
        let (balances, days, pending_reviews, cached_orders, sync_error, last_sync) =
            self.dashboard_figures()?;
        let unknown_outcomes = self.store.journal().list(
            &self.profile.name,
            &[Status::Unknown, Status::Sending],
            &[],
            100,
        )?;
        let needs_attention = self.needs_attention(100)?;
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

    /// Refunds and chargebacks cached from queries, newest first; `trade_no` narrows
    /// to one order.
    pub fn reversals(&self, trade_no: Option<&str>) -> CoreResult<Vec<Reversal>> {
        self.store.reversals().list(trade_no)
    }

    /// Writes the audit log (filtered) to a CSV file (an existing file is replaced only
    /// with [`crate::output::Existing::Replace`]); returns the number of rows.
    pub fn export_audit(
        &self,
        f: &audit::AuditFilter,
        path: &std::path::Path,
        existing: crate::output::Existing,
    ) -> CoreResult<usize> {
        let mut out = crate::output::create(path, existing)?;
        let rows = self.store.audit().list(&audit::AuditFilter {
            limit: Some(f.limit.unwrap_or(i64::MAX)),
            ..f.clone()
        })?;
        let io = |e: &dyn std::fmt::Display| crate::output::write_error(path, e);
        let mut w = csv::Writer::from_writer(out.file());
        w.write_record([
            "id",
            "at",
            "profile",
            "operator",
            "operation",
            "identifiers",
            "result",
            "latencyMs",
            "prevHash",
            "hash",
            "dbUser",
        ])
        .map_err(|e| io(&e))?;
        for r in &rows {
            w.write_record(crate::output::safe_record([
                r.id.to_string(),
                chrono::DateTime::from_timestamp_millis(r.at)
                    .map(|t| t.to_rfc3339())
                    .unwrap_or_default(),
                r.profile.clone(),
                r.operator.clone(),
                r.operation.clone(),
                r.identifiers.clone(),
                r.result.clone(),
                r.latency_ms.to_string(),
                r.prev_hash.clone(),
                r.hash.clone(),
                r.db_user.clone().unwrap_or_default(),
            ]))
            .map_err(|e| io(&e))?;
        }
        w.flush().map_err(|e| io(&e))?;
        drop(w);
        out.commit()?;
        Ok(rows.len())
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
