//! `card_operations`: card top-ups and withdrawals made from this desk.

/// The table's trait and types are the store's (`paydesk-store`); kept at this path.
pub use paydesk_store::cards::*;

use std::ops::Deref;

use rusqlite::{Connection, params};

use super::now_ms;
use crate::Db;
use paydesk_store::error::CoreResult;

/// The card operations of one database (a connection or a transaction).
#[derive(Debug, Clone, Copy)]
pub struct CardOperations<C> {
    conn: C,
}

impl<C: Deref<Target = Connection>> CardOperations<C> {
    pub fn on(conn: C) -> Self {
        CardOperations { conn }
    }
}

impl<C: Deref<Target = Connection>> CardStore for CardOperations<C> {
    fn add(&self, op: NewCardOperation<'_>) -> CoreResult<()> {
        self.conn.execute(
            "INSERT INTO card_operations (journal_id, kind, card, amount, currency, fee, trade_no, outcome, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![op.journal_id, op.kind, op.card, op.amount, op.currency, op.fee, op.trade_no, op.outcome, now_ms()],
        ).db()?;
        Ok(())
    }

    fn latest(&self) -> CoreResult<Vec<CardOperation>> {
        let mut stmt = self.conn.prepare("SELECT kind, card, amount, currency, fee, trade_no, outcome, at, journal_id FROM card_operations ORDER BY id DESC LIMIT 1000").db()?;
        let rows = stmt
            .query_map([], |r| {
                Ok(CardOperation {
                    kind: r.get(0)?,
                    card: r.get(1)?,
                    amount: r.get(2)?,
                    currency: r.get(3)?,
                    fee: r.get(4)?,
                    trade_no: r.get(5)?,
                    outcome: r.get(6)?,
                    at: r.get(7)?,
                    journal_id: r.get(8)?,
                })
            })
            .db()?;
        rows.collect::<Result<Vec<_>, _>>().db()
    }
}
