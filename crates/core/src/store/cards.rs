//! `card_operations`: card top-ups and withdrawals made from this desk.

use std::ops::Deref;

use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};

use super::now_ms;
use crate::error::CoreResult;

/// A card top-up or withdraw made from this desk.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardOperation {
    /// `top_up` or `withdraw`.
    pub kind: String,
    pub card: String,
    pub amount: String,
    pub currency: String,
    /// The gateway's fee on a withdrawal.
    pub fee: Option<String>,
    pub trade_no: Option<String>,
    /// The journal status it ended in.
    pub outcome: String,
    pub at: i64,
    pub journal_id: Option<i64>,
}

/// A card operation to record (now).
#[derive(Debug, Clone, Copy)]
pub struct NewCardOperation<'a> {
    pub journal_id: i64,
    pub kind: &'a str,
    pub card: &'a str,
    pub amount: &'a str,
    pub currency: &'a str,
    pub fee: Option<&'a str>,
    pub trade_no: Option<&'a str>,
    pub outcome: &'a str,
}

/// Card top-ups and withdrawals made here.
pub trait CardStore {
    fn add(&self, op: NewCardOperation<'_>) -> CoreResult<()>;

    /// The latest 1,000, newest first.
    fn latest(&self) -> CoreResult<Vec<CardOperation>>;
}

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
        )?;
        Ok(())
    }

    fn latest(&self) -> CoreResult<Vec<CardOperation>> {
        let mut stmt = self.conn.prepare("SELECT kind, card, amount, currency, fee, trade_no, outcome, at, journal_id FROM card_operations ORDER BY id DESC LIMIT 1000")?;
        let rows = stmt.query_map([], |r| {
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
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }
}
