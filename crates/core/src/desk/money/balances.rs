//! Balances (asked of the gateway and kept as snapshots, the scheduled snapshot, their
//! history) and refunds.

use crate::desk::{BalanceResult, BalanceSnapshot};
use crate::error::{CoreError, CoreResult};
use crate::store::reversals::RefundSeen;
use paydesk_gateway::wire::{self, MerNo};

impl<'d> crate::desk::Money<'d> {
    /// The balance of each of `currencies` (ISO 4217 codes, any case), or of every
    /// currency the desk knows ([`Money::currencies`]) when none is named; each answer is kept as a snapshot.
    /// A code that is not a currency refuses the whole request before anything is asked.
    pub async fn balances(self, currencies: &[String]) -> CoreResult<Vec<BalanceResult>> {
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
    pub async fn snapshot_balances_if_due(self, now: i64) -> CoreResult<Option<usize>> {
        let every = i64::from(self.desk.profile.sync.balances_every_mins) * 60_000;
        if every == 0 || !self.desk.holds_key() || self.desk.orders().syncing() {
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
        self.desk.store.balances().latest()
    }

    /// A balance query; every answer is kept as a snapshot for the history chart.
    pub async fn balance(self, currency: &str) -> CoreResult<BalanceSnapshot> {
        let a = self
            .desk
            .query(
                &wire::V2BalanceQuery {
                    mer_no: MerNo(self.desk.profile.mer_no),
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
            taken_at: self.desk.now_ms(),
        };
        self.desk.store.balances().add(&s)?;
        Ok(s)
    }

    pub fn balance_history(&self, currency: &str) -> CoreResult<Vec<BalanceSnapshot>> {
        self.desk.store.balances().history(currency)
    }

    /// The V1 refund query; the record is cached.
    pub async fn refund(self, trade_no: &str, refund_no: &str) -> CoreResult<wire::RefundRecord> {
        let op = wire::V1RefundQuery {
            mer_no: MerNo(self.desk.profile.mer_no),
            mer_order_no: String::new(),
            version: wire::V1RefundQuery::VERSION.into(),
            trade_no: trade_no.to_string(),
            query_type: wire::V1RefundQuery::REFUND.into(),
            refund_no: refund_no.to_string(),
            // Some gateways spell this query's signature field `sing` (conventions).
            sing_variant: self.desk.conventions.v1_query_sign_field
                == paydesk_gateway::conventions::V1QuerySignField::Sing,
        };
        let a = self
            .desk
            .query(&op, format!("tradeNo={trade_no} refundNo={refund_no}"))
            .await?;
        crate::answers::refund_record(trade_no, refund_no, &a.data)?;
        let d = &a.data;
        if d.refund_no.is_empty() {
            // Nothing to keep it under: shown, not cached.
            return Ok(a.data);
        }
        self.desk.store.reversals().refund(RefundSeen {
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
}
