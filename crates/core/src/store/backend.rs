//! [`Store`]: what a desk keeps its records in, behind the table traits
//! ([`JournalStore`], [`OrderStore`], ...). The desk asks the store for a table and calls
//! the trait; it never sees a connection. SQLite is the one backend today: the profile's
//! file opened twice, one connection for the cache and one for the journal and the audit
//! log (so a long sync batch never holds up a payout's intent). A second backend (the
//! team's PostgreSQL database) is a second [`Backend`] variant whose tables implement the
//! same traits; nothing above the store changes.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rusqlite::Connection;

use super::audit::{AuditLog, AuditStore};
use super::balances::{BalanceStore, Balances};
use super::cards::{CardOperations, CardStore};
use super::filters::{FilterStore, SavedFilters};
use super::journal::{Journal, JournalStore};
use super::notifications::{NotificationStore, Notifications};
use super::orders::{OrderStore, Orders};
use super::pg::PgLink;
use super::pg::audit::PgAudit;
use super::pg::journal::PgJournal;
use super::reversals::{ReversalStore, Reversals};
use super::reviews::{ReviewStore, Reviews};
use super::sync_state::{SyncState, SyncStateStore};
use super::{Durability, atomic, shrink_memory};
use crate::error::CoreResult;

/// Where a desk keeps its cache, journal and audit log. Cheap to share (`Arc`).
#[derive(Debug)]
pub struct Store {
    backend: Backend,
}

#[derive(Debug)]
enum Backend {
    Sqlite {
        cache: Mutex<Connection>,
        journal: Mutex<Connection>,
    },
    /// A team desk: the journal and the audit log in the team's PostgreSQL database,
    /// shared by every desk of the team; the cache's tables in the desk's own SQLite
    /// file until the team's shared read model replaces them.
    Team {
        cache: Mutex<Connection>,
        link: Arc<PgLink>,
        mer_no: i64,
    },
}

/// The cache's tables on one transaction: what [`Store::cache_atomic`] hands its closure.
#[allow(missing_debug_implementations)]
pub struct CacheTx<'a> {
    pub orders: &'a dyn OrderStore,
    pub sync_state: &'a dyn SyncStateStore,
    pub balances: &'a dyn BalanceStore,
    pub reviews: &'a dyn ReviewStore,
}

fn lock(m: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Store {
    fn cache(&self) -> &Mutex<Connection> {
        match &self.backend {
            Backend::Sqlite { cache, .. } | Backend::Team { cache, .. } => cache,
        }
    }

    /// A team desk's store: the journal and the audit log on the team's database
    /// (`link`, the team of merchant `mer_no`), the cache in the SQLite file at `path`.
    pub fn open_team(path: &Path, link: Arc<PgLink>, mer_no: i64) -> CoreResult<Arc<Self>> {
        let cache = super::open(path, Durability::Cache)?;
        Ok(Arc::new(Store {
            backend: Backend::Team {
                cache: Mutex::new(cache),
                link,
                mer_no,
            },
        }))
    }

    /// The team's database, on a team desk.
    pub fn team_link(&self) -> Option<&Arc<PgLink>> {
        match &self.backend {
            Backend::Team { link, .. } => Some(link),
            Backend::Sqlite { .. } => None,
        }
    }

    /// The SQLite file at `path` (created and migrated if needed).
    pub fn open_sqlite(path: &Path) -> CoreResult<Arc<Self>> {
        let cache = super::open(path, Durability::Cache)?;
        let journal = super::open(path, Durability::Journal)?;
        Ok(Arc::new(Store {
            backend: Backend::Sqlite {
                cache: Mutex::new(cache),
                journal: Mutex::new(journal),
            },
        }))
    }

    pub fn journal(&self) -> Box<dyn JournalStore + '_> {
        match &self.backend {
            Backend::Sqlite { journal, .. } => Box::new(Journal::on(lock(journal))),
            Backend::Team { link, mer_no, .. } => Box::new(PgJournal::on(link, *mer_no)),
        }
    }

    pub fn audit(&self) -> Box<dyn AuditStore + '_> {
        match &self.backend {
            Backend::Sqlite { journal, .. } => Box::new(AuditLog::on(lock(journal))),
            Backend::Team { link, .. } => Box::new(PgAudit::on(link)),
        }
    }

    pub fn orders(&self) -> Box<dyn OrderStore + '_> {
        Box::new(Orders::on(lock(self.cache())))
    }

    pub fn sync_state(&self) -> Box<dyn SyncStateStore + '_> {
        Box::new(SyncState::on(lock(self.cache())))
    }

    pub fn filters(&self) -> Box<dyn FilterStore + '_> {
        Box::new(SavedFilters::on(lock(self.cache())))
    }

    pub fn balances(&self) -> Box<dyn BalanceStore + '_> {
        Box::new(Balances::on(lock(self.cache())))
    }

    pub fn cards(&self) -> Box<dyn CardStore + '_> {
        Box::new(CardOperations::on(lock(self.cache())))
    }

    pub fn reviews(&self) -> Box<dyn ReviewStore + '_> {
        Box::new(Reviews::on(lock(self.cache())))
    }

    pub fn reversals(&self) -> Box<dyn ReversalStore + '_> {
        Box::new(Reversals::on(lock(self.cache())))
    }

    pub fn notifications(&self) -> Box<dyn NotificationStore + '_> {
        Box::new(Notifications::on(lock(self.cache())))
    }

    /// Runs `f` on the cache's tables in one read transaction (deferred: it takes no
    /// write lock, so the journal's writes never wait for it): what it reads is one
    /// moment's cache, so a screen's figures agree. Writes in it are rolled back.
    pub fn cache_read<R>(&self, f: impl FnOnce(&CacheTx<'_>) -> CoreResult<R>) -> CoreResult<R> {
        {
            {
                let conn = lock(self.cache());
                let tx = conn.unchecked_transaction()?;
                let orders = Orders::on(&*tx);
                let sync_state = SyncState::on(&*tx);
                let balances = Balances::on(&*tx);
                let reviews = Reviews::on(&*tx);
                f(&CacheTx {
                    orders: &orders,
                    sync_state: &sync_state,
                    balances: &balances,
                    reviews: &reviews,
                })
            }
        }
    }

    /// Runs `f` on the cache's tables in one transaction: all of it is written or none.
    pub fn cache_atomic<R>(&self, f: impl FnOnce(&CacheTx<'_>) -> CoreResult<R>) -> CoreResult<R> {
        {
            {
                let conn = lock(self.cache());
                let orders = Orders::on(&*conn);
                let sync_state = SyncState::on(&*conn);
                let balances = Balances::on(&*conn);
                let reviews = Reviews::on(&*conn);
                atomic(&conn, || {
                    f(&CacheTx {
                        orders: &orders,
                        sync_state: &sync_state,
                        balances: &balances,
                        reviews: &reviews,
                    })
                })
            }
        }
    }

    /// Hands the backend's page caches back to the allocator.
    pub fn shrink_memory(&self) -> CoreResult<()> {
        match &self.backend {
            Backend::Sqlite { cache, journal } => {
                shrink_memory(&lock(cache))?;
                shrink_memory(&lock(journal))
            }
            Backend::Team { cache, .. } => shrink_memory(&lock(cache)),
        }
    }
}
