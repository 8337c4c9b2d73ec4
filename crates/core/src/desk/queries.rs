//! Queries: balances and their history, refunds and chargebacks, notifications,
//! the audit log, the dashboard.

use paydesk_gateway::wire::{self, MerNo};
use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::{Desk, lock};
use crate::audit;
use crate::db::now_ms;
use crate::error::CoreResult;
use crate::journal::{self, Entry, Status};
use crate::sync;

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BalanceSnapshot {
    pub currency: String,
    pub balance: String,
    pub un_checked_balance: String,
    pub total_balance: String,
    pub taken_at: i64,
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DayFigures {
    /// UTC day start, millis.
    pub day: i64,
    pub currency: String,
    pub orders: i64,
    pub volume: String,
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Dashboard {
    pub balances: Vec<BalanceSnapshot>,
    pub days: Vec<DayFigures>,
    pub unknown_outcomes: Vec<Entry>,
    pub pending_reviews: i64,
    pub sync_error: Option<(i64, String)>,
    pub last_sync: Option<i64>,
    pub cached_orders: i64,
}

fn snapshot(r: &rusqlite::Row<'_>) -> rusqlite::Result<BalanceSnapshot> {
    Ok(BalanceSnapshot {
        currency: r.get(0)?,
        balance: r.get(1)?,
        un_checked_balance: r.get(2)?,
        total_balance: r.get(3)?,
        taken_at: r.get(4)?,
    })
}

impl Desk {
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
            taken_at: now_ms(),
        };
        lock(&self.cache).execute(
            "INSERT INTO balance_snapshots (currency, balance, un_checked_balance, total_balance, taken_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![s.currency, s.balance, s.un_checked_balance, s.total_balance, s.taken_at],
        )?;
        Ok(s)
    }

    pub fn balance_history(&self, currency: &str) -> CoreResult<Vec<BalanceSnapshot>> {
        let conn = lock(&self.cache);
        let mut stmt = conn.prepare(
            "SELECT currency, balance, un_checked_balance, total_balance, taken_at FROM balance_snapshots WHERE currency = ?1 ORDER BY taken_at",
        )?;
        let rows = stmt.query_map([currency], snapshot)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The V2 order query of one type (`sales`, `refund`, `chargeback`, or another the
    /// gateway knows); refund and chargeback records are cached.
    pub async fn query_order(
        &self,
        trade_no: &str,
        query_type: &str,
    ) -> CoreResult<paydesk_gateway::Answer<wire::OrderRecord>> {
        paydesk_gateway::validate::required("queryType", query_type)?;
        let op = wire::V2OrderQuery {
            version: "V4.0.0".into(),
            mer_no: MerNo(self.profile.mer_no),
            mer_order_no: String::new(),
            trade_no: trade_no.to_string(),
            query_type: query_type.to_string(),
        };
        let a = self
            .query(&op, format!("tradeNo={trade_no} queryType={query_type}"))
            .await?;
        crate::answers::order_record(trade_no, query_type, &a.data)?;
        let d = &a.data;
        let s = |v: Option<rust_decimal::Decimal>| v.map(|v| v.to_string());
        let conn = lock(&self.cache);
        if d.chargeback_amount.is_some() {
            conn.execute(
                "INSERT INTO chargebacks (trade_no, chargeback_amount, chargeback_currency, actual_chargeback_amount, actual_chargeback_currency, status, fetched_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (trade_no) DO UPDATE SET chargeback_amount = excluded.chargeback_amount, chargeback_currency = excluded.chargeback_currency,
                   actual_chargeback_amount = excluded.actual_chargeback_amount, actual_chargeback_currency = excluded.actual_chargeback_currency,
                   status = excluded.status, fetched_at = excluded.fetched_at",
                params![trade_no, s(d.chargeback_amount), d.chargeback_currency, s(d.actual_chargeback_amount), d.actual_chargeback_currency, d.status, now_ms()],
            )?;
        }
        if !d.refund_no.is_empty() {
            conn.execute(
                "INSERT INTO refunds (trade_no, refund_no, state, refund_amount, refund_currency, settle, fetched_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (trade_no, refund_no) DO UPDATE SET state = excluded.state, refund_amount = excluded.refund_amount, fetched_at = excluded.fetched_at",
                params![trade_no, d.refund_no, d.state, s(d.refund_amount), d.refund_currency, d.settle, now_ms()],
            )?;
        }
        drop(conn);
        Ok(a)
    }

    /// Records a notification received at this desk's endpoint, with its signature
    /// checked against the gateway's key.
    pub fn record_notification(&self, body: &str) -> CoreResult<crate::events::Received> {
        let received = crate::events::check(
            body,
            self.client.credentials_gateway_key(),
            &self.profile.sign_settings,
        )?;
        lock(&self.cache).execute(
            "INSERT INTO notifications (received_at, kind, trade_no, body, signature_ok) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![now_ms(), received.kind, received.trade_no, body, received.signature_ok],
        )?;
        Ok(received)
    }

    /// Notifications received, newest first.
    pub fn notifications(&self, limit: i64) -> CoreResult<Vec<crate::events::Stored>> {
        crate::events::list(&lock(&self.cache), limit)
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
        crate::events::check(
            body,
            self.client.credentials_gateway_key(),
            &self.profile.sign_settings,
        )
    }

    /// The V1 refund query; the record is cached.
    pub async fn refund(&self, trade_no: &str, refund_no: &str) -> CoreResult<wire::RefundRecord> {
        let op = wire::V1RefundQuery {
            mer_no: MerNo(self.profile.mer_no),
            mer_order_no: String::new(),
            version: "V3.0.0".into(),
            trade_no: trade_no.to_string(),
            query_type: "refund".into(),
            refund_no: refund_no.to_string(),
            sing_variant: false,
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
        lock(&self.cache).execute(
            "INSERT INTO refunds (trade_no, refund_no, state, refund_amount, refund_currency, trade_fee, settle, receive_amount, fetched_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
             ON CONFLICT (trade_no, refund_no) DO UPDATE SET state = excluded.state, refund_amount = excluded.refund_amount,
               trade_fee = excluded.trade_fee, settle = excluded.settle, receive_amount = excluded.receive_amount, fetched_at = excluded.fetched_at",
            params![trade_no, d.refund_no, d.state, d.refund_amount.map(|v| v.to_string()), d.refund_currency, d.trade_fee.map(|v| v.to_string()), d.settle, d.receive_amount.map(|v| v.to_string()), now_ms()],
        )?;
        Ok(a.data)
    }

    pub fn audit_verify(&self) -> CoreResult<audit::ChainCheck> {
        let anchor = self.secrets.audit_anchor(&self.profile.name)?;
        let alert = self.secrets.audit_alert(&self.profile.name)?;
        audit::verify_with_alert(
            &lock(&self.journal),
            self.audit_key.expose(),
            anchor.as_ref(),
            alert,
        )
    }

    pub fn audit_list(&self, f: &audit::AuditFilter) -> CoreResult<Vec<audit::AuditEntry>> {
        audit::list(&lock(&self.journal), f)
    }

    pub fn dashboard(&self) -> CoreResult<Dashboard> {
        let (balances, days, pending_reviews, cached_orders, sync_error, last_sync) =
            self.dashboard_figures()?;
        let unknown_outcomes = journal::list(
            &lock(&self.journal),
            &self.profile.name,
            &[Status::Unknown, Status::Sending],
            &[],
            100,
        )?;
        Ok(Dashboard {
            balances,
            days,
            unknown_outcomes,
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
        let conn = lock(&self.cache);
        let mut stmt = conn.prepare(
            "SELECT currency, balance, un_checked_balance, total_balance, MAX(taken_at) FROM balance_snapshots GROUP BY currency ORDER BY currency",
        )?;
        let balances = stmt
            .query_map([], snapshot)?
            .collect::<Result<Vec<_>, _>>()?;
        let since = now_ms() - 30 * 86_400_000;
        let mut stmt = conn.prepare(
            "SELECT (created_at / 86400000) * 86400000 AS day, currency, COUNT(*), SUM(amount_e4) FROM orders
             WHERE created_at >= ?1 GROUP BY day, currency ORDER BY day, currency",
        )?;
        let days = stmt
            .query_map([since], |r| {
                let e4: i64 = r.get(3)?;
                Ok(DayFigures {
                    day: r.get(0)?,
                    currency: r.get(1)?,
                    orders: r.get(2)?,
                    volume: rust_decimal::Decimal::new(e4, 4).normalize().to_string(),
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let pending_reviews: i64 = conn.query_row(
            "SELECT COUNT(*) FROM review_submissions WHERE outcome NOT IN ('accepted', 'rejected')",
            [],
            |r| r.get(0),
        )?;
        let cached_orders: i64 = conn.query_row("SELECT COUNT(*) FROM orders", [], |r| r.get(0))?;
        let sync_error = sync::last_error(&conn, &self.profile.name)?;
        let last_sync = sync::last_synced(&conn, &self.profile.name)?;
        Ok((
            balances,
            days,
            pending_reviews,
            cached_orders,
            sync_error,
            last_sync,
        ))
    }

    /// Refunds and chargebacks cached from queries, newest first; `trade_no` narrows
    /// to one order.
    pub fn reversals(&self, trade_no: Option<&str>) -> CoreResult<Vec<Reversal>> {
        let conn = lock(&self.cache);
        let mut stmt = conn.prepare(
            "SELECT 'refund', trade_no, refund_no, state, refund_amount, refund_currency, trade_fee, settle, fetched_at FROM refunds
               WHERE ?1 IS NULL OR trade_no = ?1
             UNION ALL
             SELECT 'chargeback', trade_no, '', status, chargeback_amount, chargeback_currency, NULL, NULL, fetched_at FROM chargebacks
               WHERE ?1 IS NULL OR trade_no = ?1
             ORDER BY 9 DESC",
        )?;
        let rows = stmt.query_map([trade_no], |r| {
            Ok(Reversal {
                kind: r.get(0)?,
                trade_no: r.get(1)?,
                refund_no: r.get(2)?,
                state: r.get(3)?,
                amount: r.get(4)?,
                currency: r.get(5)?,
                fee: r.get(6)?,
                settle: r.get(7)?,
                fetched_at: r.get(8)?,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// Writes the audit log (filtered) to a CSV file; returns the number of rows.
    pub fn export_audit(
        &self,
        f: &audit::AuditFilter,
        path: &std::path::Path,
    ) -> CoreResult<usize> {
        let rows = audit::list(
            &lock(&self.journal),
            &audit::AuditFilter {
                limit: Some(f.limit.unwrap_or(i64::MAX)),
                ..f.clone()
            },
        )?;
        let io = |e: &dyn std::fmt::Display| {
            crate::CoreError::storage(format!("cannot write {}: {e}", path.display()))
        };
        let mut w = csv::Writer::from_path(path).map_err(|e| io(&e))?;
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
        ])
        .map_err(|e| io(&e))?;
        for r in &rows {
            w.write_record(crate::export::safe_record([
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
            ]))
            .map_err(|e| io(&e))?;
        }
        w.flush().map_err(|e| io(&e))?;
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

/// A refund or chargeback as the Refunds screen lists it; `state` is raw (the V1 refund
/// `state`, or the V2 query `status` of a chargeback).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reversal {
    pub kind: String,
    pub trade_no: String,
    pub refund_no: String,
    pub state: String,
    pub amount: Option<String>,
    pub currency: String,
    pub fee: Option<String>,
    pub settle: Option<i64>,
    pub fetched_at: i64,
}
