//! Optional persistence (`--db FILE`): every entity as a JSON row, written in one
//! transaction per request, so a restart or a kill leaves the state as last answered.

use std::path::Path;

use rusqlite::{Connection, params};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::model::{Card, Merchant, Order, Review, State};
use crate::notify::Notification;

#[derive(Debug)]
pub struct Store {
    conn: Connection,
}

/// What a request changed, to be written.
#[derive(Debug, Default)]
pub struct Touched {
    pub orders: Vec<usize>,
    pub merchants: Vec<u64>,
    pub cards: Vec<(u64, String)>,
    pub reviews: Vec<usize>,
    pub notifications: Vec<Notification>,
}

impl Touched {
    pub fn order(idx: usize) -> Self {
        Self {
            orders: vec![idx],
            ..Self::default()
        }
    }
}

fn json<T: Serialize>(v: &T) -> rusqlite::Result<String> {
    serde_json::to_string(v).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
}

fn load<T: DeserializeOwned>(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<T>> {
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    let mut out = Vec::new();
    for row in rows {
        let text = row?;
        out.push(serde_json::from_str(&text).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
        })?);
    }
    Ok(out)
}

impl Store {
    pub fn open(path: &Path) -> rusqlite::Result<Self> {
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS merchants (mer_no INTEGER PRIMARY KEY, json TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS orders (idx INTEGER PRIMARY KEY, json TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS cards (mer_no INTEGER NOT NULL, apply_order_no TEXT NOT NULL, json TEXT NOT NULL,
                                               PRIMARY KEY (mer_no, apply_order_no));
             CREATE TABLE IF NOT EXISTS reviews (idx INTEGER PRIMARY KEY, json TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS notifications (id INTEGER PRIMARY KEY, json TEXT NOT NULL);",
        )?;
        Ok(Self { conn })
    }

    pub fn meta(&self, key: &str) -> rusqlite::Result<Option<String>> {
        use rusqlite::OptionalExtension;
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
    }

    pub fn set_meta(&self, key: &str, value: &str) -> rusqlite::Result<()> {
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            params![key, value],
        )?;
        Ok(())
    }

    /// Loads everything; returns the state (balances rebuilt from orders) and the
    /// notifications.
    pub fn load(&self) -> rusqlite::Result<(State, Vec<Notification>)> {
        let mut state = State::default();
        for m in load::<Merchant>(&self.conn, "SELECT json FROM merchants ORDER BY mer_no")? {
            state.merchants.insert(m.mer_no, m);
        }
        state.orders = load::<Order>(&self.conn, "SELECT json FROM orders ORDER BY idx")?;
        for c in load::<Card>(&self.conn, "SELECT json FROM cards")? {
            state.cards.insert((c.mer_no, c.apply_order_no.clone()), c);
        }
        state.reviews = load::<Review>(&self.conn, "SELECT json FROM reviews ORDER BY idx")?;
        state.next_trade = self
            .meta("next_trade")?
            .and_then(|s| s.parse().ok())
            .unwrap_or(state.orders.len() as u64);
        state.reindex();
        state.rebuild_balances();
        let notes = load::<Notification>(&self.conn, "SELECT json FROM notifications ORDER BY id")?;
        Ok((state, notes))
    }

    /// Writes what a request changed, in one transaction.
    pub fn save(&mut self, state: &State, t: &Touched) -> rusqlite::Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        for &mer_no in &t.merchants {
            if let Some(m) = state.merchants.get(&mer_no) {
                tx.execute(
                    "INSERT OR REPLACE INTO merchants (mer_no, json) VALUES (?1, ?2)",
                    params![mer_no as i64, json(m)?],
                )?;
            }
        }
        {
            let mut stmt =
                tx.prepare_cached("INSERT OR REPLACE INTO orders (idx, json) VALUES (?1, ?2)")?;
            for &idx in &t.orders {
                stmt.execute(params![idx as i64, json(&state.orders[idx])?])?;
            }
        }
        for key in &t.cards {
            if let Some(c) = state.cards.get(key) {
                tx.execute(
                    "INSERT OR REPLACE INTO cards (mer_no, apply_order_no, json) VALUES (?1, ?2, ?3)",
                    params![key.0 as i64, key.1, json(c)?],
                )?;
            }
        }
        for &idx in &t.reviews {
            tx.execute(
                "INSERT OR REPLACE INTO reviews (idx, json) VALUES (?1, ?2)",
                params![idx as i64, json(&state.reviews[idx])?],
            )?;
        }
        for n in &t.notifications {
            tx.execute(
                "INSERT OR REPLACE INTO notifications (id, json) VALUES (?1, ?2)",
                params![n.id as i64, json(n)?],
            )?;
        }
        tx.execute(
            "INSERT INTO meta (key, value) VALUES ('next_trade', ?1) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [state.next_trade.to_string()],
        )?;
        tx.commit()
    }

    /// Forgets everything (the simulation API's reset).
    pub fn clear(&mut self) -> rusqlite::Result<()> {
        self.conn.execute_batch(
            "DELETE FROM merchants; DELETE FROM orders; DELETE FROM cards; DELETE FROM reviews;
             DELETE FROM notifications; DELETE FROM meta WHERE key = 'next_trade';",
        )
    }
}
