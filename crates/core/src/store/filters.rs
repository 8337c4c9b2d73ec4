//! `saved_filters`: named filter sets of the orders table.

use std::ops::Deref;

use rusqlite::{Connection, params};

use super::now_ms;
use super::orders::OrderFilter;
use crate::error::{CoreError, CoreResult};

/// Saved order filters.
pub trait FilterStore {
    /// Saves a filter set under `name` (replacing one of the same name); the desk has
    /// checked the name ([`crate::Desk::save_filter`]).
    fn save(&self, name: &str, filter: &OrderFilter) -> CoreResult<()>;

    fn all(&self) -> CoreResult<Vec<(String, OrderFilter)>>;

    fn delete(&self, name: &str) -> CoreResult<()>;
}

/// The saved filters of one database (a connection or a transaction).
#[derive(Debug, Clone, Copy)]
pub struct SavedFilters<C> {
    conn: C,
}

impl<C: Deref<Target = Connection>> SavedFilters<C> {
    pub fn on(conn: C) -> Self {
        SavedFilters { conn }
    }
}

impl<C: Deref<Target = Connection>> FilterStore for SavedFilters<C> {
    fn save(&self, name: &str, filter: &OrderFilter) -> CoreResult<()> {
        let json = serde_json::to_string(filter).map_err(|e| CoreError::internal(e.to_string()))?;
        self.conn.execute(
            "INSERT INTO saved_filters (name, filter, created_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (name) DO UPDATE SET filter = excluded.filter",
            params![name, json, now_ms()],
        )?;
        Ok(())
    }

    fn all(&self) -> CoreResult<Vec<(String, OrderFilter)>> {
        let mut stmt = self
            .conn
            .prepare("SELECT name, filter FROM saved_filters ORDER BY name")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        let mut out = Vec::new();
        for row in rows {
            let (name, json) = row?;
            if let Ok(f) = serde_json::from_str(&json) {
                out.push((name, f));
            }
        }
        Ok(out)
    }

    fn delete(&self, name: &str) -> CoreResult<()> {
        self.conn
            .execute("DELETE FROM saved_filters WHERE name = ?1", [name])?;
        Ok(())
    }
}
