//! `notifications`: the gateway's notifications received at this desk, as received,
//! with whether their signature verified.

/// The table's trait and types are the store's (`paydesk-store`); kept at this path.
pub use paydesk_store::notifications::*;

use std::ops::Deref;

use rusqlite::{Connection, params};

use super::now_ms;
use crate::Db;
use paydesk_store::error::CoreResult;

/// The notifications of one database (a connection or a transaction).
#[derive(Debug, Clone, Copy)]
pub struct Notifications<C> {
    conn: C,
}

impl<C: Deref<Target = Connection>> Notifications<C> {
    pub fn on(conn: C) -> Self {
        Notifications { conn }
    }
}

impl<C: Deref<Target = Connection>> NotificationStore for Notifications<C> {
    fn add(&self, kind: &str, trade_no: &str, body: &str, signature_ok: bool) -> CoreResult<()> {
        self.conn.execute(
            "INSERT INTO notifications (received_at, kind, trade_no, body, signature_ok) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![now_ms(), kind, trade_no, body, signature_ok],
        ).db()?;
        Ok(())
    }

    fn latest(&self, limit: i64) -> CoreResult<Vec<Stored>> {
        let mut stmt = self.conn.prepare("SELECT id, received_at, kind, trade_no, body, signature_ok FROM notifications ORDER BY id DESC LIMIT ?1").db()?;
        let rows = stmt.query_map([limit], stored).db()?;
        rows.collect::<Result<Vec<_>, _>>().db()
    }

    fn of_order(&self, trade_no: &str) -> CoreResult<Vec<Stored>> {
        let mut stmt = self.conn.prepare("SELECT id, received_at, kind, trade_no, body, signature_ok FROM notifications WHERE trade_no = ?1 ORDER BY id LIMIT 200").db()?;
        let rows = stmt.query_map([trade_no], stored).db()?;
        rows.collect::<Result<Vec<_>, _>>().db()
    }
}

fn stored(r: &rusqlite::Row<'_>) -> rusqlite::Result<Stored> {
    Ok(Stored {
        id: r.get(0)?,
        received_at: r.get(1)?,
        kind: r.get(2)?,
        trade_no: r.get(3)?,
        body: r.get(4)?,
        signature_ok: r.get(5)?,
    })
}
