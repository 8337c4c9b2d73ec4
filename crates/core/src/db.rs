//! The SQLite file: WAL, `busy_timeout`, embedded ordered migrations, and a refusal
//! to open a database written by a newer PayDesk.

use std::path::Path;
use std::time::Duration;

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

use crate::error::CoreError;

/// The migrations, in order. Never edit a released one: add the next.
pub const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/0001_cache.sql"),
    include_str!("../migrations/0002_saved_filters.sql"),
    include_str!("../migrations/0003_review_queue.sql"),
    include_str!("../migrations/0004_intents.sql"),
    include_str!("../migrations/0005_keyed_audit.sql"),
    include_str!("../migrations/0006_answered.sql"),
];

fn migrations() -> Migrations<'static> {
    Migrations::new(MIGRATIONS.iter().map(|sql| M::up(sql)).collect())
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
    if let Some(dir) = path.parent() {
        crate::private_fs::dir(dir)
            .map_err(|e| CoreError::storage(format!("cannot create {}: {e}", dir.display())))?;
    }
    // Readable by the user only (the -wal and -shm files take the database's mode).
    crate::private_fs::file(path)
        .map_err(|e| CoreError::storage(format!("cannot create {}: {e}", path.display())))?;
    let mut conn = Connection::open(path)?;
    conn.busy_timeout(Duration::from_secs(10))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(
        None,
        "synchronous",
        match durability {
            Durability::Cache => "NORMAL",
            Durability::Journal => "FULL",
        },
    )?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // On macOS, FULL alone does not reach the disk's platter: the journal (and the
    // audit chain whose anchor the keyring keeps) must survive a power cut.
    #[cfg(target_os = "macos")]
    if matches!(durability, Durability::Journal) {
        conn.pragma_update(None, "fullfsync", "ON")?;
    }
    // A million orders with their indexes are a few hundred MB: a 64 MB page cache and
    // 64 MB of memory-mapped reads keep lists and syncs off the disk's slow path while
    // the process stays well under 200 MB resident.
    conn.pragma_update(None, "cache_size", -65_536)?;
    conn.pragma_update(None, "mmap_size", 67_108_864)?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    // Checkpoint the WAL every ~40 MB rather than every 4 MB: a sync writes in batches.
    conn.pragma_update(None, "wal_autocheckpoint", 10_000)?;
    migrate(&mut conn)?;
    Ok(conn)
}

/// Applies the pending migrations; refuses a database from a newer version.
pub fn migrate(conn: &mut Connection) -> Result<(), CoreError> {
    let found: usize = conn
        .pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0))?
        .try_into()
        .unwrap_or(0);
    if found > schema_version() {
        return Err(CoreError::storage(format!(
            "this database has schema version {found}, written by a newer PayDesk; this one knows up to {}. Update PayDesk, or move the file aside.",
            schema_version()
        )));
    }
    migrations()
        .to_latest(conn)
        .map_err(|e| CoreError::storage(format!("database migration failed: {e}")))
}

pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_migrations_are_valid() {
        migrations().validate().unwrap();
    }
}
