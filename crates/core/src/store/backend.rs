//! [`Store`]: what a desk keeps its records in, behind the table traits
//! ([`JournalStore`], [`OrderStore`], ...). The desk asks the store for a table and calls
//! the trait; it never sees a connection. Two backends implement the same traits:
//!
//! - SQLite, a desk's own: the profile's file opened twice, one connection for the cache
//!   and one for the journal and the audit log (so a long sync batch never holds up a
//!   payout's intent).
//! - The team's PostgreSQL database, shared by a team's desks: two links likewise, one
//!   for the journal and the audit log, one for the read model (the cache's tables).
//!
//! Nothing above the store knows which one a desk has.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rusqlite::Connection;

use super::audit::{AuditLog, AuditStore};
use super::balances::{BalanceStore, Balances};
use super::cards::{CardOperations, CardStore};
use super::journal::{Journal, JournalStore};
use super::notifications::{NotificationStore, Notifications};
use super::orders::{OrderStore, Orders};
use super::pg::audit::PgAudit;
use super::pg::cache::{
    PgBalances, PgCards, PgNotifications, PgReversals, PgReviews, PgSyncState, PgViews,
};
use super::pg::journal::PgJournal;
use super::pg::orders::PgOrders;
use super::pg::{PgLink, Tx};
use super::reversals::{ReversalStore, Reversals};
use super::reviews::{ReviewStore, Reviews};
use super::sync_state::{SyncState, SyncStateStore};
use super::team::{TeamConfig, TeamDb};
use super::views::{SavedViews, ViewStore};
use super::{Durability, atomic, shrink_memory};
use crate::error::CoreResult;
use crate::store::Db;

/// Where a desk keeps its cache, journal and audit log. Cheap to share (`Arc`).
#[derive(Debug)]
pub struct Store {
    backend: Backend,
    /// The desk's clock, for the journal's times ([`Store::set_clock`]).
    now: std::sync::RwLock<super::Now>,
}

// One per desk, behind an `Arc`: the size of a variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
enum Backend {
    Sqlite {
        cache: Mutex<Connection>,
        journal: Mutex<Connection>,
    },
    /// A team desk: everything in the team's PostgreSQL database, shared by every desk
    /// of the team (of merchant `mer_no`); the read model on a link of its own, so a
    /// long sync batch never holds up the journal.
    Team {
        journal: Arc<PgLink>,
        cache: Arc<PgLink>,
        mer_no: i64,
        /// The same two links as the engine sees them (`store::team`).
        links: [Arc<dyn TeamDb>; 2],
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
    /// A team desk's store on the team's database (the team of merchant `mer_no`): the
    /// journal and the audit log on `journal`, the read model on `cache` (two links to
    /// the same database, as a member).
    /// Refused with a clear message when `team init` has not brought the database's
    /// schema up to this PayDesk's.
    pub fn open_team(
        journal: Arc<PgLink>,
        cache: Arc<PgLink>,
        mer_no: i64,
    ) -> CoreResult<Arc<Self>> {
        let found = super::pg::team_schema_version(&journal)?;
        let ours = super::pg::TEAM_MIGRATIONS.len();
        if usize::try_from(found).unwrap_or(0) < ours {
            return Err(crate::error::CoreError::keyed(
                "team",
                format!(
                    "the team's database has schema version {found}, this PayDesk needs {ours}: \
                     the database's owner runs `paydesk team init` to bring it up to date"
                ),
                "teamSchemaOld",
                &[("found", found.to_string()), ("ours", ours.to_string())],
            ));
        }
        let links: [Arc<dyn TeamDb>; 2] = [journal.clone(), cache.clone()];
        Ok(Arc::new(Store {
            backend: Backend::Team {
                journal,
                cache,
                mer_no,
                links,
            },
            now: Default::default(),
        }))
    }

    /// A team desk's store: two connections to the team's database as the member
    /// `cfg.user` (the journal's and the read model's), on the team of merchant `mer_no`.
    pub fn connect_team(cfg: &TeamConfig, password: &str, mer_no: i64) -> CoreResult<Arc<Self>> {
        let journal = PgLink::connect(cfg, password)?;
        let cache = PgLink::connect(cfg, password)?;
        Self::open_team(Arc::new(journal), Arc::new(cache), mer_no)
    }

    /// A team store on one connection for everything (a report's: the overview reads a
    /// few rows), as [`Store::connect_team`] otherwise.
    pub fn connect_team_one_link(
        cfg: &TeamConfig,
        password: &str,
        mer_no: i64,
    ) -> CoreResult<Arc<Self>> {
        let link = Arc::new(PgLink::connect(cfg, password)?);
        Self::open_team(link.clone(), link, mer_no)
    }

    /// The member's connection to the team (the journal's), on a team desk.
    pub fn team_db(&self) -> Option<&Arc<dyn TeamDb>> {
        match &self.backend {
            Backend::Team { links, .. } => Some(&links[0]),
            Backend::Sqlite { .. } => None,
        }
    }

    /// The member's second connection to the team (the read model's), on a team desk.
    pub fn team_cache_db(&self) -> Option<&Arc<dyn TeamDb>> {
        match &self.backend {
            Backend::Team { links, .. } => Some(&links[1]),
            Backend::Sqlite { .. } => None,
        }
    }

    /// The team's database (the journal's link), on a team desk.
    pub fn team_link(&self) -> Option<&Arc<PgLink>> {
        match &self.backend {
            Backend::Team { journal, .. } => Some(journal),
            Backend::Sqlite { .. } => None,
        }
    }

    /// The team's database (the read model's link), on a team desk.
    pub fn team_cache_link(&self) -> Option<&Arc<PgLink>> {
        match &self.backend {
            Backend::Team { cache, .. } => Some(cache),
            Backend::Sqlite { .. } => None,
        }
    }

    /// On a team desk, whether a connection to the team's database was lost (the server
    /// restarted, the network dropped): the desk is then opened again.
    pub fn team_connection_lost(&self) -> bool {
        match &self.backend {
            Backend::Team { journal, cache, .. } => journal.is_closed() || cache.is_closed(),
            Backend::Sqlite { .. } => false,
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
            now: Default::default(),
        }))
    }

    /// Reads "now" from `now` from here on (the desk's clock: `Desk::set_clock`).
    pub fn set_clock(&self, now: super::Now) {
        *self.now.write().unwrap_or_else(PoisonError::into_inner) = now;
    }

    /// Now by the desk's clock.
    fn now(&self) -> super::Now {
        self.now
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub fn journal(&self) -> Box<dyn JournalStore + '_> {
        match &self.backend {
            Backend::Sqlite { journal, .. } => Box::new(Journal::on(lock(journal)).at(self.now())),
            Backend::Team {
                journal, mer_no, ..
            } => Box::new(PgJournal::on(journal, *mer_no).at(self.now())),
        }
    }

    pub fn audit(&self) -> Box<dyn AuditStore + '_> {
        match &self.backend {
            Backend::Sqlite { journal, .. } => Box::new(AuditLog::on(lock(journal))),
            Backend::Team { journal, .. } => Box::new(PgAudit::on(journal)),
        }
    }

    /// `(rows, sealed rows)` of a desk's own audit log; `None` on a team's database, whose
    /// log is the team's.
    pub fn audit_sealed_rows(&self) -> CoreResult<Option<(i64, i64)>> {
        match &self.backend {
            Backend::Sqlite { journal, .. } => super::audit::sealed_rows(&lock(journal)).map(Some),
            Backend::Team { .. } => Ok(None),
        }
    }

    /// Whether a desk's own audit log still reaches `anchor` (its rows and its last row
    /// as recorded: [`super::audit::reaches`]); `None` on a team's database, whose desks
    /// anchor the head they verified when they connect.
    pub fn audit_reaches(&self, anchor: &super::audit::Anchor) -> CoreResult<Option<bool>> {
        match &self.backend {
            Backend::Sqlite { journal, .. } => {
                super::audit::reaches(&lock(journal), anchor).map(Some)
            }
            Backend::Team { .. } => Ok(None),
        }
    }

    /// Sets a desk's own audit log aside and starts a new chain
    /// ([`super::audit::archive_and_restart`]); refused on a team's database.
    pub fn audit_archive_and_restart(
        &self,
        r: super::audit::Record<'_>,
        reason: &str,
        key: &[u8],
    ) -> CoreResult<(
        super::audit::AuditArchive,
        super::audit::AuditEntry,
        super::audit::Anchor,
    )> {
        match &self.backend {
            Backend::Sqlite { journal, .. } => {
                super::audit::archive_and_restart(&lock(journal), r, reason, key)
            }
            Backend::Team { .. } => Err(crate::error::CoreError::keyed(
                "profile",
                "a team's audit log is kept in the team's database and cannot be set aside from one desk",
                "teamAuditNotAside",
                &[],
            )),
        }
    }

    /// The audit logs set aside (none on a team's database).
    pub fn audit_archives(&self) -> CoreResult<Vec<super::audit::AuditArchive>> {
        match &self.backend {
            Backend::Sqlite { journal, .. } => super::audit::archives(&lock(journal)),
            Backend::Team { .. } => Ok(Vec::new()),
        }
    }

    /// The rows of a log set aside, newest first.
    pub fn audit_archived_rows(
        &self,
        archive: i64,
        limit: i64,
    ) -> CoreResult<Vec<super::audit::AuditEntry>> {
        match &self.backend {
            Backend::Sqlite { journal, .. } => {
                super::audit::archived_rows(&lock(journal), archive, limit)
            }
            Backend::Team { .. } => Ok(Vec::new()),
        }
    }

    pub fn orders(&self) -> Box<dyn OrderStore + '_> {
        match &self.backend {
            Backend::Sqlite { cache, .. } => Box::new(Orders::on(lock(cache))),
            Backend::Team { cache, mer_no, .. } => Box::new(PgOrders::on(cache, *mer_no)),
        }
    }

    pub fn sync_state(&self) -> Box<dyn SyncStateStore + '_> {
        match &self.backend {
            Backend::Sqlite { cache, .. } => Box::new(SyncState::on(lock(cache))),
            Backend::Team { cache, mer_no, .. } => Box::new(PgSyncState::on(cache, *mer_no)),
        }
    }

    pub fn views(&self) -> Box<dyn ViewStore + '_> {
        match &self.backend {
            Backend::Sqlite { cache, .. } => Box::new(SavedViews::on(lock(cache))),
            Backend::Team { cache, mer_no, .. } => Box::new(PgViews::on(cache, *mer_no)),
        }
    }

    /// The book of payees (issue 35): the desk's own file; a team's book is not kept
    /// here yet, and says so.
    pub fn beneficiaries(
        &self,
    ) -> CoreResult<Box<dyn super::beneficiaries::BeneficiaryStore + '_>> {
        match &self.backend {
            Backend::Sqlite { journal, .. } => Ok(Box::new(
                super::beneficiaries::Beneficiaries::on(lock(journal)),
            )),
            Backend::Team { .. } => Err(crate::error::CoreError::keyed(
                "beneficiary",
                "a team's payouts do not take a payee from the book yet: give the account",
                "payeeTeamBook",
                &[],
            )),
        }
    }

    pub fn balances(&self) -> Box<dyn BalanceStore + '_> {
        match &self.backend {
            Backend::Sqlite { cache, .. } => Box::new(Balances::on(lock(cache))),
            Backend::Team { cache, mer_no, .. } => Box::new(PgBalances::on(cache, *mer_no)),
        }
    }

    pub fn cards(&self) -> Box<dyn CardStore + '_> {
        match &self.backend {
            Backend::Sqlite { cache, .. } => Box::new(CardOperations::on(lock(cache))),
            Backend::Team { cache, mer_no, .. } => Box::new(PgCards::on(cache, *mer_no)),
        }
    }

    pub fn reviews(&self) -> Box<dyn ReviewStore + '_> {
        match &self.backend {
            Backend::Sqlite { cache, .. } => Box::new(Reviews::on(lock(cache))),
            Backend::Team { cache, mer_no, .. } => Box::new(PgReviews::on(cache, *mer_no)),
        }
    }

    pub fn reversals(&self) -> Box<dyn ReversalStore + '_> {
        match &self.backend {
            Backend::Sqlite { cache, .. } => Box::new(Reversals::on(lock(cache))),
            Backend::Team { cache, mer_no, .. } => Box::new(PgReversals::on(cache, *mer_no)),
        }
    }

    pub fn notifications(&self) -> Box<dyn NotificationStore + '_> {
        match &self.backend {
            Backend::Sqlite { cache, .. } => Box::new(Notifications::on(lock(cache))),
            Backend::Team { cache, mer_no, .. } => Box::new(PgNotifications::on(cache, *mer_no)),
        }
    }

    /// Runs `f` on the cache's tables in one read transaction: what it reads is one
    /// moment's cache, so a screen's figures agree. On SQLite a deferred transaction (it
    /// takes no write lock, so the journal's writes never wait for it; writes in it are
    /// rolled back); on the team's database a read-only one with one snapshot
    /// (repeatable read; writes in it are refused).
    pub fn cache_read<R>(&self, f: impl FnOnce(&CacheTx<'_>) -> CoreResult<R>) -> CoreResult<R> {
        match &self.backend {
            Backend::Sqlite { cache, .. } => {
                let conn = lock(cache);
                let tx = conn.unchecked_transaction().db()?;
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
            Backend::Team { cache, mer_no, .. } => cache.read(|tx| pg_tables(tx, *mer_no, f)),
        }
    }

    /// Runs `f` on the cache's tables in one transaction: all of it is written or none.
    pub fn cache_atomic<R>(&self, f: impl FnOnce(&CacheTx<'_>) -> CoreResult<R>) -> CoreResult<R> {
        match &self.backend {
            Backend::Sqlite { cache, .. } => {
                let conn = lock(cache);
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
            Backend::Team { cache, mer_no, .. } => cache.atomic(|tx| pg_tables(tx, *mer_no, f)),
        }
    }

    /// A bulk run's turn, in one transaction where the backend can (one commit a turn,
    /// not three): the audit rows of the answers in (chained from `anchor`), their
    /// outcomes, and the next rows taken up (`sending` and claimed), all committed before
    /// any of those rows' requests leaves. Returns the audit chain's anchor after the
    /// rows, and what each intent was.
    #[allow(clippy::too_many_arguments)]
    pub fn bulk_turn(
        &self,
        records: Vec<super::audit::Record<'_>>,
        key: &[u8],
        anchor: Option<&super::audit::Anchor>,
        outcomes: &[(i64, &super::journal::Claim, super::journal::Outcome<'_>)],
        profile: &str,
        intents: &[super::journal::Intent<'_>],
        guard: super::journal::Guard,
    ) -> CoreResult<(Option<super::audit::Anchor>, Vec<super::journal::Begin>)> {
        match &self.backend {
            Backend::Sqlite { journal, .. } => {
                let conn = lock(journal);
                super::committed(&conn, || {
                    let mut anchor = anchor.cloned();
                    for r in records {
                        anchor = Some(super::audit::append(&conn, r, key, anchor.as_ref())?.1);
                    }
                    let j = Journal::on(&*conn).at(self.now());
                    for (id, claim, o) in outcomes {
                        j.finish(*id, claim, *o)?;
                    }
                    let begun = intents
                        .iter()
                        .map(|i| j.begin_in(profile, *i, guard))
                        .collect::<CoreResult<Vec<_>>>()?;
                    Ok((anchor, begun))
                })
            }
            Backend::Team { .. } => {
                let anchor = self.audit().append_many(records, key, anchor)?;
                self.journal().finish_many(outcomes)?;
                let begun = self.journal().begin_many(profile, intents, guard)?;
                Ok((anchor, begun))
            }
        }
    }

    /// Hands the backend's page caches back to the allocator (the team's database keeps
    /// its caches on its server).
    pub fn shrink_memory(&self) -> CoreResult<()> {
        match &self.backend {
            Backend::Sqlite { cache, journal } => {
                shrink_memory(&lock(cache))?;
                shrink_memory(&lock(journal))
            }
            Backend::Team { .. } => Ok(()),
        }
    }
}

/// The read model's tables on one transaction of the team's database.
fn pg_tables<R>(
    tx: &Tx<'_>,
    mer_no: i64,
    f: impl FnOnce(&CacheTx<'_>) -> CoreResult<R>,
) -> CoreResult<R> {
    let orders = PgOrders::in_run(tx, mer_no);
    let sync_state = PgSyncState::in_run(tx, mer_no);
    let balances = PgBalances::in_run(tx, mer_no);
    let reviews = PgReviews::in_run(tx, mer_no);
    f(&CacheTx {
        orders: &orders,
        sync_state: &sync_state,
        balances: &balances,
        reviews: &reviews,
    })
}
