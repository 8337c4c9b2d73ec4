//! The desk's store: which backend a desk keeps its records in ([`Store`], `backend.rs`),
//! and the store's tables as the engine sees them, re-exported from `paydesk-store` at
//! the paths the engine has always used (`store::journal`, `store::orders`, ...): one
//! trait per table and its types, the team's tables; no database driver.
//!
//! The backends are crates of their own, which only the facade names (`backend.rs`, and
//! [`team`] below for a member's connection): `paydesk-store-sqlite` (a desk's own SQLite
//! file: its migrations, its durability, each table's adapter) and `paydesk-store-pg` (a
//! team's PostgreSQL database). The engine re-exports neither: a test, an example or a benchmark that opens a desk's file or the
//! team's database itself depends on that backend crate (`tests/layers.rs`,
//! `the_engine_re_exports_no_backend`).
//!
//! Nothing in the engine writes SQL (`tests::no_sql_outside_the_store`).

mod backend;

pub use backend::{CacheTx, Store};
/// Where the store reads "now": the desk's clock (`Store::set_clock`).
pub use paydesk_store::Now;
/// Now on the system's clock, in milliseconds.
pub use paydesk_store::now_ms;
/// Each table: the store's trait and its types (the traits in scope: `prelude`).
pub use paydesk_store::{
    audit, balances, beneficiaries, cards, journal, notifications, orders, prelude, reversals,
    reviews, sync_state, views,
};

/// The team's tables as the engine sees them ([`team::TeamDb`], [`team::TeamStore`]),
/// and the one place the engine opens a member's connection ([`team::connect`]).
pub mod team {
    use std::sync::Arc;

    pub use paydesk_store::team::*;

    use crate::error::CoreResult;

    /// Connects to the team's database as the member `cfg.user`.
    pub fn connect(cfg: &TeamConfig, password: &str) -> CoreResult<Arc<dyn TeamDb>> {
        Ok(Arc::new(paydesk_store_pg::PgLink::connect(cfg, password)?))
    }

    /// A member's password as the SCRAM-SHA-256 verifier the team's server keeps
    /// (computed here: the password never reaches the server).
    pub fn scram_verifier(password: &str) -> String {
        paydesk_store_pg::scram_verifier(password)
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
