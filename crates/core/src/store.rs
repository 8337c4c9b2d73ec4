//! The desk's store: which backend a desk keeps its records in ([`Store`], `backend.rs`),
//! over the store's crates, re-exported at the paths the engine has always used:
//!
//! - `paydesk-store`: one trait per table, the team's tables, the filter's SQL both
//!   dialects share; no database driver.
//! - `paydesk-store-sqlite`: a desk's own SQLite file (its migrations, its durability,
//!   each table's adapter); `store::journal::Journal`, `store::orders::Orders`, ...
//! - `paydesk-store-pg`: a team's PostgreSQL database (`store::pg`).
//!
//! Nothing in the engine writes SQL (`tests::no_sql_outside_the_store`).

mod backend;

pub use backend::{CacheTx, Store};
/// Where the store reads "now": the desk's clock (`Store::set_clock`).
pub use paydesk_store::Now;

/// The team's PostgreSQL database.
pub use paydesk_store_pg as pg;
/// A desk's SQLite file: opening, migrations, transactions.
pub use paydesk_store_sqlite::{
    Durability, MIGRATIONS, Migration, atomic, committed, migrate, now_ms, open, open_with,
    prelude, schema_version, shrink_memory,
};
/// Each table: the store's trait and types, and the SQLite file's adapter.
pub use paydesk_store_sqlite::{
    audit, balances, beneficiaries, cards, journal, notifications, orders, reversals, reviews,
    sync_state, views,
};

/// The team's tables as the engine sees them ([`team::TeamDb`], [`team::TeamStore`]),
/// and the one place the engine opens a member's connection ([`team::connect`]).
pub mod team {
    use std::sync::Arc;

    pub use paydesk_store::team::*;
    pub use paydesk_store_pg::scram_verifier;

    use crate::error::CoreResult;

    /// Connects to the team's database as the member `cfg.user`.
    pub fn connect(cfg: &TeamConfig, password: &str) -> CoreResult<Arc<dyn TeamDb>> {
        Ok(Arc::new(paydesk_store_pg::PgLink::connect(cfg, password)?))
    }

    /// Creates or brings up to date the team's schema for merchant `mer_no`, as the
    /// database's owner (`cfg.user`): the migrations applied now, and the grants the owner
    /// lacks to end members' stalling sessions (empty: none).
    pub fn init(
        cfg: &TeamConfig,
        owner_password: &str,
        mer_no: i64,
    ) -> CoreResult<(usize, Vec<String>)> {
        let link = paydesk_store_pg::PgLink::connect(cfg, owner_password)?;
        let applied = paydesk_store_pg::init_team(&link, mer_no)?;
        Ok((
            applied,
            paydesk_store_pg::owner_stall_grants_missing(&link)?,
        ))
    }
}

#[cfg(test)]
mod tests {
    /// The store is the only place that speaks SQL: a statement anywhere in the engine
    /// (the store's facade included) fails this test (a second backend could not see it).
    #[test]
    fn no_sql_outside_the_store() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        walk(&src, &mut files);
        let sql = [
            "SELECT ",
            "INSERT ",
            "UPDATE ",
            "DELETE ",
            "CREATE ",
            "PRAGMA ",
            "execute(",
            "execute_batch(",
            "query_row(",
            "prepare_cached(",
            "pragma_",
        ];
        let mut found = Vec::new();
        for f in files.iter().filter(|f| !f.ends_with("src/store.rs")) {
            let text = std::fs::read_to_string(f).unwrap();
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if sql.iter().any(|k| code.contains(k)) {
                    found.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
                }
            }
        }
        assert!(found.is_empty(), "SQL outside the store: {found:#?}");
        assert!(files.len() > 20, "the walk found the sources");
    }
}
