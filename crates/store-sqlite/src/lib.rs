//! The store on a desk's own SQLite file: one module per table (or per pair of tables
//! that only make sense together), each a typed handle implementing the table's trait
//! (`paydesk-store`) on a connection or inside a transaction ([`atomic`]), and
//! [`SqliteStore`], the file's tables as a desk uses them. The handles take and return
//! the model's types, never SQLite's, so the team's PostgreSQL store
//! (`paydesk-store-pg`, which never links this crate) implements the same traits.
//!
//! This file: the SQLite file itself (WAL, `busy_timeout`, durability), the embedded
//! ordered migrations, and the schema's compatibility rule: a database written by a
//! newer PayDesk opens when every migration this binary does not know says it leaves
//! older readers working, and is refused with a clear message otherwise.

pub mod audit;
mod backend;
pub mod balances;
pub mod beneficiaries;
pub mod cards;
pub mod journal;
pub mod notifications;
pub mod orders;
pub mod reversals;
pub mod reviews;
pub mod sync_state;
pub mod views;

pub use backend::SqliteStore;
/// The table traits, for code that uses a table handle directly (tests, benchmarks).
pub use paydesk_store::prelude;
pub use paydesk_store::{Now, now_ms};

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension};
use rusqlite_migration::{M, Migrations};

use paydesk_store::error::{CoreError, CoreResult};

/// SQLite's errors as the engine's: each SQLite call in the store says `.db()?`, so
/// the engine's error type names no driver (`crates/core/tests/layers.rs`) and the
/// mapping is written once, here.
pub(crate) trait Db<T> {
    fn db(self) -> CoreResult<T>;
}

impl<T> Db<T> for rusqlite::Result<T> {
    fn db(self) -> CoreResult<T> {
        self.map_err(db_error)
    }
}

/// One SQLite error as a storage error (for a `map_err` where `.db()` does not fit).
pub(crate) fn db_error(e: rusqlite::Error) -> CoreError {
    CoreError::storage(e.to_string())
}

/// One migration: its SQL, and the oldest schema version whose PayDesk can still open a
/// database this migration was applied to. A migration that only adds what older code
/// ignores keeps the previous migration's value; one that changes what older code reads
/// or writes sets its own version.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    pub sql: &'static str,
    pub oldest_reader: usize,
}

/// The migrations, in order. Never edit a released one: add the next.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        sql: include_str!("../migrations/0001_cache.sql"),
        oldest_reader: 1,
    },
    Migration {
        sql: include_str!("../migrations/0002_saved_filters.sql"),
        oldest_reader: 2,
    },
    Migration {
        sql: include_str!("../migrations/0003_review_queue.sql"),
        oldest_reader: 3,
    },
    Migration {
        sql: include_str!("../migrations/0004_intents.sql"),
        oldest_reader: 4,
    },
    Migration {
        sql: include_str!("../migrations/0005_keyed_audit.sql"),
        oldest_reader: 5,
    },
    Migration {
        sql: include_str!("../migrations/0006_answered.sql"),
        oldest_reader: 6,
    },
    // Binaries before 7 refuse any newer database; from 7 on, the rule above holds.
    Migration {
        sql: include_str!("../migrations/0007_schema_compat.sql"),
        oldest_reader: 7,
    },
    // Adds two columns and an index: older desks keep working.
    Migration {
        sql: include_str!("../migrations/0008_made_orders.sql"),
        oldest_reader: 7,
    },
    // Adds `orders.moved_at`, which this binary's writers keep: an older desk would cache
    // and update orders without it, and a balance reconciliation would then miss them.
    Migration {
        sql: include_str!("../migrations/0009_moved_at.sql"),
        oldest_reader: 9,
    },
    // Adds the tables of audit logs set aside after their key was lost: older desks
    // ignore them.
    Migration {
        sql: include_str!("../migrations/0011_audit_archive.sql"),
        oldest_reader: 9,
    },
    // Adds the tables of saved views (issue 36), with the saved filters copied in as
    // orders views: older desks ignore them and keep their `saved_filters`.
    Migration {
        sql: include_str!("../migrations/0012_saved_views.sql"),
        oldest_reader: 9,
    },
    // Adds `review_submissions.evidence` (what each file sent was): older desks write
    // submissions without it, and keep working.
    Migration {
        sql: include_str!("../migrations/0013_review_evidence.sql"),
        oldest_reader: 9,
    },
    // Adds `journal.purpose` and `purpose_ref` (issue 35): older desks write entries
    // without a purpose, and keep working.
    Migration {
        sql: include_str!("../migrations/0014_purpose.sql"),
        oldest_reader: 9,
    },
    // Adds the book of payees (issue 35): older desks ignore it.
    Migration {
        sql: include_str!("../migrations/0015_beneficiaries.sql"),
        oldest_reader: 9,
    },
    // Adds an index of the journal by day (a payout's per-day limit): older desks ignore it.
    Migration {
        sql: include_str!("../migrations/0016_journal_day.sql"),
        oldest_reader: 9,
    },
    // Adds the report sums kept per day (issue 34) and the triggers that forget a day
    // when one of its orders changes. An older desk writing orders fires the triggers
    // too (they are the database's), so it keeps the kept days right.
    Migration {
        sql: include_str!("../migrations/0017_report_days.sql"),
        oldest_reader: 9,
    },
];

fn migrations(list: &[Migration]) -> Migrations<'static> {
    Migrations::new(list.iter().map(|m| M::up(m.sql)).collect())
}

/// The schema version this binary writes.
pub fn schema_version() -> usize {
    MIGRATIONS.len()
}

/// How a connection writes: the journal's commits must survive a power cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// `synchronous=NORMAL`: the cache, which the gateway can always refill.
    Cache,
    /// `synchronous=FULL`: the journal and the audit log.
    Journal,
}

/// Opens (creating if needed) and migrates the database at `path`.
pub fn open(path: &Path, durability: Durability) -> Result<Connection, CoreError> {
    open_with(path, durability, MIGRATIONS)
}

/// [`open`] with a given list of migrations (tests play an older or newer binary).
pub fn open_with(
    path: &Path,
    durability: Durability,
    list: &[Migration],
) -> Result<Connection, CoreError> {
    if let Some(dir) = path.parent() {
        paydesk_store::private_fs::dir(dir)
            .map_err(|e| CoreError::storage(format!("cannot create {}: {e}", dir.display())))?;
    }
    // Readable by the user only (the -wal and -shm files take the database's mode).
    paydesk_store::private_fs::file(path)
        .map_err(|e| CoreError::storage(format!("cannot create {}: {e}", path.display())))?;
    let mut conn = Connection::open(path).db()?;
    conn.busy_timeout(Duration::from_secs(10)).db()?;
    conn.pragma_update(None, "journal_mode", "WAL").db()?;
    conn.pragma_update(
        None,
        "synchronous",
        match durability {
            Durability::Cache => "NORMAL",
            Durability::Journal => "FULL",
        },
    )
    .db()?;
    conn.pragma_update(None, "foreign_keys", "ON").db()?;
    // On macOS, FULL alone does not reach the disk's platter: the journal (and the
    // audit chain whose anchor the keyring keeps) must survive a power cut.
    #[cfg(target_os = "macos")]
    if matches!(durability, Durability::Journal) {
        conn.pragma_update(None, "fullfsync", "ON")?;
    }
    // A million orders with their indexes are a few hundred MB: a 64 MB page cache and
    // 64 MB of memory-mapped reads keep lists and syncs off the disk's slow path while
    // the process stays well under 200 MB resident.
    conn.pragma_update(None, "cache_size", -65_536).db()?;
    conn.pragma_update(None, "mmap_size", 67_108_864).db()?;
    conn.pragma_update(None, "temp_store", "MEMORY").db()?;
    // Checkpoint the WAL every ~40 MB rather than every 4 MB: a sync writes in batches.
    conn.pragma_update(None, "wal_autocheckpoint", 10_000)
        .db()?;
    migrate_with(&mut conn, list)?;
    Ok(conn)
}

/// Applies the pending migrations; opens a newer database only when it says this
/// binary can still read it (see [`Migration::oldest_reader`]).
pub fn migrate(conn: &mut Connection) -> Result<(), CoreError> {
    migrate_with(conn, MIGRATIONS)
}

fn migrate_with(conn: &mut Connection, list: &[Migration]) -> Result<(), CoreError> {
    let found: usize = conn
        .pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0))
        .db()?
        .try_into()
        .unwrap_or(0);
    let ours = list.len();
    if found > ours {
        // Written by a newer PayDesk: fine if it says this version can still read it.
        let oldest: Option<i64> = conn
            .query_row(
                "SELECT oldest_reader FROM schema_compat WHERE one = 1",
                [],
                |r| r.get(0),
            )
            .optional()
            .unwrap_or(None);
        return match oldest.and_then(|o| usize::try_from(o).ok()) {
            Some(oldest) if oldest <= ours => {
                tracing::info!(
                    found,
                    ours,
                    oldest,
                    "database written by a newer PayDesk, compatible with this one"
                );
                Ok(())
            }
            _ => Err(CoreError::storage(format!(
                "this database has schema version {found}, written by a newer PayDesk that changed it in a way this one (schema version {ours}) cannot read. Update PayDesk, or move the file aside."
            ))),
        };
    }
    migrations(list)
        .to_latest(conn)
        .map_err(|e| CoreError::storage(format!("database migration failed: {e}")))?;
    if ours >= 7 {
        let oldest = list.iter().map(|m| m.oldest_reader).max().unwrap_or(ours);
        conn.execute(
            "INSERT INTO schema_compat (one, oldest_reader) VALUES (1, ?1)
             ON CONFLICT (one) DO UPDATE SET oldest_reader = excluded.oldest_reader",
            [i64::try_from(oldest).unwrap_or(i64::MAX)],
        )
        .db()?;
    }
    Ok(())
}

/// Runs `f` atomically on `conn`: in an immediate transaction when none is open, else
/// in a savepoint of the caller's transaction. An error (or a panic) rolls back what
/// `f` wrote. This is how a handle is "usable from a connection or a transaction".
pub fn atomic<R>(conn: &Connection, f: impl FnOnce() -> CoreResult<R>) -> CoreResult<R> {
    struct Undo<'c> {
        conn: &'c Connection,
        outer: bool,
        armed: bool,
    }
    impl Drop for Undo<'_> {
        fn drop(&mut self) {
            if self.armed {
                let sql = if self.outer {
                    "ROLLBACK"
                } else {
                    "ROLLBACK TO store_atomic; RELEASE store_atomic"
                };
                if let Err(e) = self.conn.execute_batch(sql) {
                    tracing::error!(error = %e, "rollback failed");
                }
            }
        }
    }
    let outer = conn.is_autocommit();
    conn.execute_batch(if outer {
        "BEGIN IMMEDIATE"
    } else {
        "SAVEPOINT store_atomic"
    })
    .db()?;
    let mut undo = Undo {
        conn,
        outer,
        armed: true,
    };
    let r = f()?;
    conn.execute_batch(if outer {
        "COMMIT"
    } else {
        "RELEASE store_atomic"
    })
    .db()?;
    undo.armed = false;
    Ok(r)
}

/// Runs `f` in a transaction of its own, committed when `f` returns: for writes whose
/// commit must be durable before anything else happens (the journal's intent before a
/// request leaves, a claim, an audit row before its anchor goes to the keyring). Inside
/// a caller's transaction it refuses: its commit would be the caller's to make.
pub fn committed<R>(conn: &Connection, f: impl FnOnce() -> CoreResult<R>) -> CoreResult<R> {
    if !conn.is_autocommit() {
        return Err(CoreError::internal(
            "this write commits on its own and cannot run inside another transaction",
        ));
    }
    atomic(conn, f)
}

/// Hands SQLite's page cache of `conn` back to the allocator.
pub fn shrink_memory(conn: &Connection) -> CoreResult<()> {
    conn.execute_batch("PRAGMA shrink_memory").db()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_migrations_are_valid() {
        migrations(MIGRATIONS).validate().unwrap();
    }
}
