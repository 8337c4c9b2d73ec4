//! `balance_snapshots`: every balance answer, kept for the history chart.

/// The table's trait and types are the store's (`paydesk-store`); kept at this path.
pub use paydesk_store::balances::*;

use std::ops::Deref;

use rusqlite::{Connection, params};

use crate::Db;
use paydesk_store::error::CoreResult;

fn snapshot(r: &rusqlite::Row<'_>) -> rusqlite::Result<BalanceSnapshot> {
    Ok(BalanceSnapshot {
        currency: r.get(0)?,
        balance: r.get(1)?,
        un_checked_balance: r.get(2)?,
        total_balance: r.get(3)?,
        taken_at: r.get(4)?,
    })
}

/// The balance snapshots of one database (a connection or a transaction).
#[derive(Debug, Clone, Copy)]
pub struct Balances<C> {
    conn: C,
}

impl<C: Deref<Target = Connection>> Balances<C> {
    pub fn on(conn: C) -> Self {
        Balances { conn }
    }
}

impl<C: Deref<Target = Connection>> BalanceStore for Balances<C> {
    fn add(&self, s: &BalanceSnapshot) -> CoreResult<()> {
        self.conn.execute(
            "INSERT INTO balance_snapshots (currency, balance, un_checked_balance, total_balance, taken_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![s.currency, s.balance, s.un_checked_balance, s.total_balance, s.taken_at],
        ).db()?;
        Ok(())
    }

    fn history(&self, currency: &str) -> CoreResult<Vec<BalanceSnapshot>> {
        let mut stmt = self.conn.prepare(
            "SELECT currency, balance, un_checked_balance, total_balance, taken_at FROM balance_snapshots WHERE currency = ?1 ORDER BY taken_at",
        ).db()?;
        let rows = stmt.query_map([currency], snapshot).db()?;
        rows.collect::<Result<Vec<_>, _>>().db()
    }

    fn latest(&self) -> CoreResult<Vec<BalanceSnapshot>> {
        let mut stmt = self.conn.prepare(
            "SELECT currency, balance, un_checked_balance, total_balance, MAX(taken_at) FROM balance_snapshots GROUP BY currency ORDER BY currency",
        ).db()?;
        let rows = stmt.query_map([], snapshot).db()?;
        rows.collect::<Result<Vec<_>, _>>().db()
    }
}
