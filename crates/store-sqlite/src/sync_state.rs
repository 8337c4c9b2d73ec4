//! `sync_state`: how far each sync window got (pages done of how many, complete or
//! not), and the last sync failure of a profile (the row with `window_start = -1`).

/// The table's trait and types are the store's (`paydesk-store`); kept at this path.
pub use paydesk_store::sync_state::*;

use std::ops::Deref;

use rusqlite::{Connection, OptionalExtension, params};

use super::now_ms;
use crate::Db;
use paydesk_store::error::CoreResult;

/// The sync progress of one database (a connection or a transaction).
#[derive(Debug, Clone, Copy)]
pub struct SyncState<C> {
    conn: C,
}

impl<C: Deref<Target = Connection>> SyncState<C> {
    pub fn on(conn: C) -> Self {
        SyncState { conn }
    }
}

impl<C: Deref<Target = Connection>> SyncStateStore for SyncState<C> {
    fn window_complete(&self, profile: &str, start: i64, end: i64) -> CoreResult<bool> {
        let row: Option<(i64, i64)> = self
            .conn
            .query_row(
                "SELECT complete, window_end FROM sync_state WHERE profile = ?1 AND window_start = ?2",
                params![profile, start],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional().db()?;
        Ok(matches!(row, Some((1, e)) if e == end))
    }

    fn page_done(&self, profile: &str, p: PageDone) -> CoreResult<()> {
        self.conn.prepare_cached(
            "INSERT INTO sync_state (profile, window_start, window_end, pages_done, total_pages, complete, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (profile, window_start) DO UPDATE SET window_end = excluded.window_end,
               pages_done = MAX(pages_done, excluded.pages_done), total_pages = excluded.total_pages,
               complete = CASE WHEN excluded.pages_done >= excluded.total_pages THEN excluded.complete
                 WHEN window_end = excluded.window_end THEN MAX(complete, excluded.complete) ELSE 0 END,
               updated_at = excluded.updated_at, error = NULL",
        ).db()?
        .execute(params![
            profile,
            p.window_start,
            p.window_end,
            p.page_num,
            p.total_pages,
            p.clean && p.page_num >= p.total_pages,
            now_ms()
        ]).db()?;
        Ok(())
    }

    fn record_error(&self, profile: &str, error: &str) -> CoreResult<()> {
        self.conn.execute(
            "INSERT INTO sync_state (profile, window_start, window_end, complete, updated_at, error) VALUES (?1, -1, -1, 0, ?2, ?3)
             ON CONFLICT (profile, window_start) DO UPDATE SET updated_at = excluded.updated_at, error = excluded.error",
            params![profile, now_ms(), error],
        ).db()?;
        Ok(())
    }

    fn last_error(&self, profile: &str) -> CoreResult<Option<(i64, String)>> {
        self
            .conn
            .query_row(
                "SELECT updated_at, error FROM sync_state WHERE profile = ?1 AND window_start = -1 AND error IS NOT NULL",
                [profile],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional().db()
    }

    fn last_synced(&self, profile: &str) -> CoreResult<Option<i64>> {
        self.conn
            .query_row(
                "SELECT MAX(updated_at) FROM sync_state WHERE profile = ?1 AND window_start >= 0",
                [profile],
                |r| r.get(0),
            )
            .db()
    }

    fn clear_error(&self, profile: &str) -> CoreResult<()> {
        self.conn
            .execute(
                "DELETE FROM sync_state WHERE profile = ?1 AND window_start = -1",
                [profile],
            )
            .db()?;
        Ok(())
    }
}
