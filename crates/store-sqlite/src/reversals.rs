//! `refunds` and `chargebacks`: refund and chargeback records cached from the gateway's
//! order and refund queries.

/// The table's trait and types are the store's (`paydesk-store`); kept at this path.
pub use paydesk_store::reversals::*;

use std::ops::Deref;

use rusqlite::{Connection, params};
use rust_decimal::Decimal;

use super::now_ms;
use crate::Db;
use paydesk_store::error::CoreResult;

fn text(d: Option<Decimal>) -> Option<String> {
    d.map(|d| d.to_string())
}

/// The cached refunds and chargebacks of one database (a connection or a transaction).
#[derive(Debug, Clone, Copy)]
pub struct Reversals<C> {
    conn: C,
}

impl<C: Deref<Target = Connection>> Reversals<C> {
    pub fn on(conn: C) -> Self {
        Reversals { conn }
    }
}

impl<C: Deref<Target = Connection>> ReversalStore for Reversals<C> {
    fn refund_from_order_query(&self, r: RefundSeen<'_>) -> CoreResult<()> {
        self.conn.execute(
            "INSERT INTO refunds (trade_no, refund_no, state, refund_amount, refund_currency, settle, fetched_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (trade_no, refund_no) DO UPDATE SET
               state = CASE WHEN excluded.state = '' THEN refunds.state ELSE excluded.state END,
               refund_amount = excluded.refund_amount, fetched_at = excluded.fetched_at",
            params![r.trade_no, r.refund_no, r.state, text(r.amount), r.currency, r.settle, now_ms()],
        ).db()?;
        Ok(())
    }

    fn refund(&self, r: RefundSeen<'_>) -> CoreResult<()> {
        self.conn.execute(
            "INSERT INTO refunds (trade_no, refund_no, state, refund_amount, refund_currency, trade_fee, settle, receive_amount, fetched_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
             ON CONFLICT (trade_no, refund_no) DO UPDATE SET state = excluded.state, refund_amount = excluded.refund_amount,
               trade_fee = excluded.trade_fee, settle = excluded.settle, receive_amount = excluded.receive_amount, fetched_at = excluded.fetched_at",
            params![r.trade_no, r.refund_no, r.state, text(r.amount), r.currency, text(r.fee), r.settle, text(r.receive_amount), now_ms()],
        ).db()?;
        Ok(())
    }

    fn chargeback(&self, c: ChargebackSeen<'_>) -> CoreResult<()> {
        self.conn.execute(
            "INSERT INTO chargebacks (trade_no, chargeback_amount, chargeback_currency, actual_chargeback_amount, actual_chargeback_currency, status, fetched_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (trade_no) DO UPDATE SET chargeback_amount = excluded.chargeback_amount, chargeback_currency = excluded.chargeback_currency,
               actual_chargeback_amount = excluded.actual_chargeback_amount, actual_chargeback_currency = excluded.actual_chargeback_currency,
               status = excluded.status, fetched_at = excluded.fetched_at",
            params![c.trade_no, text(c.amount), c.currency, text(c.actual_amount), c.actual_currency, c.status, now_ms()],
        ).db()?;
        Ok(())
    }

    fn list(&self, trade_no: Option<&str>) -> CoreResult<Vec<Reversal>> {
        let mut stmt = self.conn.prepare(
            "SELECT 'refund', trade_no, refund_no, state, refund_amount, refund_currency, trade_fee, settle, fetched_at FROM refunds
               WHERE ?1 IS NULL OR trade_no = ?1
             UNION ALL
             SELECT 'chargeback', trade_no, '', status, chargeback_amount, chargeback_currency, NULL, NULL, fetched_at FROM chargebacks
               WHERE ?1 IS NULL OR trade_no = ?1
             ORDER BY 9 DESC",
        ).db()?;
        let rows = stmt
            .query_map([trade_no], |r| {
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
            })
            .db()?;
        rows.collect::<Result<Vec<_>, _>>().db()
    }
}
