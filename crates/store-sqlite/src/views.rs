//! `saved_views` and `last_views`: the views of each screen (issue 36; the saved filter
//! sets of the orders table became orders views in migration 0012) and the view each
//! screen last used.

/// The table's trait and types are the store's (`paydesk-store`); kept at this path.
pub use paydesk_store::views::*;

use std::ops::Deref;

use rusqlite::{Connection, OptionalExtension, params};

use super::now_ms;
use crate::Db;
use paydesk_store::error::{CoreError, CoreResult};

/// The saved views of one desk's SQLite file (a connection or a transaction).
#[derive(Debug, Clone, Copy)]
pub struct SavedViews<C> {
    conn: C,
}

impl<C: Deref<Target = Connection>> SavedViews<C> {
    pub fn on(conn: C) -> Self {
        SavedViews { conn }
    }
}

fn not_shared(shared: bool) -> CoreResult<()> {
    if shared {
        return Err(CoreError::keyed(
            "shared",
            "only a team profile's views are shared",
            "viewSharedTeamOnly",
            &[],
        ));
    }
    Ok(())
}

impl<C: Deref<Target = Connection>> ViewStore for SavedViews<C> {
    fn list(&self, screen: Screen) -> CoreResult<Vec<StoredView>> {
        let mut stmt = self.conn.prepare(
            "SELECT id, name, spec, updated_at FROM saved_views WHERE screen = ?1 ORDER BY name",
        ).db()?;
        let rows = stmt
            .query_map([screen.as_str()], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, i64>(3)?,
                ))
            })
            .db()?;
        let mut out = Vec::new();
        for row in rows {
            let (id, name, json, updated_at) = row.db()?;
            if let Some(spec) = paydesk_model::views::read_spec(&json) {
                out.push(StoredView {
                    id,
                    screen,
                    name,
                    spec,
                    shared: false,
                    owner: None,
                    mine: true,
                    updated_at,
                });
            }
        }
        Ok(out)
    }

    fn save(&self, screen: Screen, name: &str, spec: &str, shared: bool) -> CoreResult<i64> {
        not_shared(shared)?;
        let now = now_ms();
        let id = self
            .conn
            .query_row(
                "INSERT INTO saved_views (screen, name, spec, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?4)
             ON CONFLICT (screen, name) DO UPDATE SET spec = excluded.spec,
                 updated_at = excluded.updated_at
             RETURNING id",
                params![screen.as_str(), name, spec, now],
                |r| r.get(0),
            )
            .db()?;
        Ok(id)
    }

    fn update(&self, id: i64, spec: &str, shared: bool) -> CoreResult<bool> {
        not_shared(shared)?;
        let n = self
            .conn
            .execute(
                "UPDATE saved_views SET spec = ?2, updated_at = ?3 WHERE id = ?1",
                params![id, spec, now_ms()],
            )
            .db()?;
        Ok(n == 1)
    }

    fn delete(&self, id: i64) -> CoreResult<bool> {
        let n = self
            .conn
            .execute("DELETE FROM saved_views WHERE id = ?1", [id])
            .db()?;
        Ok(n == 1)
    }

    fn last(&self, screen: Screen) -> CoreResult<Option<i64>> {
        Ok(self
            .conn
            .query_row(
                "SELECT view_id FROM last_views WHERE screen = ?1",
                [screen.as_str()],
                |r| r.get::<_, Option<i64>>(0),
            )
            .optional()
            .db()?
            .flatten())
    }

    fn set_last(&self, screen: Screen, id: Option<i64>) -> CoreResult<()> {
        self.conn
            .execute(
                "INSERT INTO last_views (screen, view_id) VALUES (?1, ?2)
             ON CONFLICT (screen) DO UPDATE SET view_id = excluded.view_id",
                params![screen.as_str(), id],
            )
            .db()?;
        Ok(())
    }
}
