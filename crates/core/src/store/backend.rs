//! [`Store`]: what a desk keeps its records in, behind the table traits
//! ([`JournalStore`], [`OrderStore`], ...). The desk asks the store for a table and calls
//! the trait; it never sees a connection. Two backends implement the same traits, each a
//! crate of its own:
//!
//! - SQLite, a desk's own (`paydesk_store_sqlite::SqliteStore`): the profile's file
//!   opened twice, one connection for the cache and one for the journal and the audit
//!   log (so a long sync batch never holds up a payout's intent).
//! - The team's PostgreSQL database, shared by a team's desks
//!   (`paydesk_store_pg::PgStore`): two links likewise, one for the journal and the audit
//!   log, one for the read model (the cache's tables).
//!
//! Nothing above the store knows which one a desk has; this file only chooses.

use std::path::Path;
use std::sync::{Arc, PoisonError, RwLock};

use paydesk_store::audit::{Anchor, AuditArchive, AuditEntry, AuditStore, Record};
use paydesk_store::balances::BalanceStore;
use paydesk_store::beneficiaries::BeneficiaryStore;
use paydesk_store::cards::CardStore;
use paydesk_store::journal::{Begin, Claim, Guard, Intent, JournalStore, Outcome};
use paydesk_store::notifications::NotificationStore;
use paydesk_store::orders::OrderStore;
use paydesk_store::reversals::ReversalStore;
use paydesk_store::reviews::ReviewStore;
use paydesk_store::sync_state::SyncStateStore;
use paydesk_store::team::{TeamConfig, TeamDb};
use paydesk_store::views::ViewStore;
use paydesk_store_pg::{PgLink, PgStore};
use paydesk_store_sqlite::SqliteStore;

use super::Now;

pub use paydesk_store::CacheTx;

use crate::error::{CoreError, CoreResult};

/// Where a desk keeps its cache, journal and audit log. Cheap to share (`Arc`).
#[derive(Debug)]
pub struct Store {
    backend: Backend,
    /// The desk's clock, for the journal's times ([`Store::set_clock`]).
    now: RwLock<Now>,
}

#[derive(Debug)]
enum Backend {
    Sqlite(SqliteStore),
    /// A team desk: everything in the team's PostgreSQL database, shared by every desk
    /// of the team (of merchant `mer_no`).
    Team(PgStore),
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
        Ok(Self::team(PgStore::open(journal, cache, mer_no)?))
    }

    /// A team desk's store: two connections to the team's database as the member
    /// `cfg.user` (the journal's and the read model's), on the team of merchant `mer_no`.
    pub fn connect_team(cfg: &TeamConfig, password: &str, mer_no: i64) -> CoreResult<Arc<Self>> {
        Ok(Self::team(PgStore::connect(cfg, password, mer_no)?))
    }

    /// A team store on one connection for everything (a report's: the overview reads a
    /// few rows), as [`Store::connect_team`] otherwise.
    pub fn connect_team_one_link(
        cfg: &TeamConfig,
        password: &str,
        mer_no: i64,
    ) -> CoreResult<Arc<Self>> {
        Ok(Self::team(PgStore::connect_one_link(
            cfg, password, mer_no,
        )?))
    }

    fn team(store: PgStore) -> Arc<Self> {
        Arc::new(Store {
            backend: Backend::Team(store),
            now: Default::default(),
        })
    }

    /// The SQLite file at `path` (created and migrated if needed).
    pub fn open_sqlite(path: &Path) -> CoreResult<Arc<Self>> {
        Ok(Arc::new(Store {
            backend: Backend::Sqlite(SqliteStore::open(path)?),
            now: Default::default(),
        }))
    }

    /// Reads "now" from `now` from here on (the desk's clock: `Desk::set_clock`).
    pub fn set_clock(&self, now: Now) {
        *self.now.write().unwrap_or_else(PoisonError::into_inner) = now;
    }

    /// Now by the desk's clock.
    fn now(&self) -> Now {
        self.now
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The member's connection to the team (the journal's), on a team desk.
    pub fn team_db(&self) -> Option<&Arc<dyn TeamDb>> {
        match &self.backend {
            Backend::Team(t) => Some(t.team_db()),
            Backend::Sqlite(_) => None,
        }
    }

    /// The member's second connection to the team (the read model's), on a team desk.
    pub fn team_cache_db(&self) -> Option<&Arc<dyn TeamDb>> {
        match &self.backend {
            Backend::Team(t) => Some(t.team_cache_db()),
            Backend::Sqlite(_) => None,
        }
    }

    /// The team's database (the journal's link), on a team desk.
    pub fn team_link(&self) -> Option<&Arc<PgLink>> {
        match &self.backend {
            Backend::Team(t) => Some(t.link()),
            Backend::Sqlite(_) => None,
        }
    }

    /// The team's database (the read model's link), on a team desk.
    pub fn team_cache_link(&self) -> Option<&Arc<PgLink>> {
        match &self.backend {
            Backend::Team(t) => Some(t.cache_link()),
            Backend::Sqlite(_) => None,
        }
    }

    /// On a team desk, whether a connection to the team's database was lost (the server
    /// restarted, the network dropped): the desk is then opened again.
    pub fn team_connection_lost(&self) -> bool {
        match &self.backend {
            Backend::Team(t) => t.connection_lost(),
            Backend::Sqlite(_) => false,
        }
    }

    pub fn journal(&self) -> Box<dyn JournalStore + '_> {
        match &self.backend {
            Backend::Sqlite(s) => s.journal_at(self.now()),
            Backend::Team(t) => t.journal_at(self.now()),
        }
    }

    pub fn audit(&self) -> Box<dyn AuditStore + '_> {
        match &self.backend {
            Backend::Sqlite(s) => s.audit(),
            Backend::Team(t) => t.audit(),
        }
    }

    /// `(rows, sealed rows)` of a desk's own audit log; `None` on a team's database, whose
    /// log is the team's.
    pub fn audit_sealed_rows(&self) -> CoreResult<Option<(i64, i64)>> {
        match &self.backend {
            Backend::Sqlite(s) => s.audit_sealed_rows().map(Some),
            Backend::Team(_) => Ok(None),
        }
    }

    /// Whether a desk's own audit log still reaches `anchor` (its rows and its last row
    /// as recorded); `None` on a team's database, whose desks anchor the head they
    /// verified when they connect.
    pub fn audit_reaches(&self, anchor: &Anchor) -> CoreResult<Option<bool>> {
        match &self.backend {
            Backend::Sqlite(s) => s.audit_reaches(anchor).map(Some),
            Backend::Team(_) => Ok(None),
        }
    }

    /// Sets a desk's own audit log aside and starts a new chain; refused on a team's
    /// database.
    pub fn audit_archive_and_restart(
        &self,
        r: Record<'_>,
        reason: &str,
        key: &[u8],
    ) -> CoreResult<(AuditArchive, AuditEntry, Anchor)> {
        match &self.backend {
            Backend::Sqlite(s) => s.audit_archive_and_restart(r, reason, key),
            Backend::Team(_) => Err(CoreError::keyed(
                "profile",
                "a team's audit log is kept in the team's database and cannot be set aside from one desk",
                "teamAuditNotAside",
                &[],
            )),
        }
    }

    /// The audit logs set aside (none on a team's database).
    pub fn audit_archives(&self) -> CoreResult<Vec<AuditArchive>> {
        match &self.backend {
            Backend::Sqlite(s) => s.audit_archives(),
            Backend::Team(_) => Ok(Vec::new()),
        }
    }

    /// The rows of a log set aside, newest first.
    pub fn audit_archived_rows(&self, archive: i64, limit: i64) -> CoreResult<Vec<AuditEntry>> {
        match &self.backend {
            Backend::Sqlite(s) => s.audit_archived_rows(archive, limit),
            Backend::Team(_) => Ok(Vec::new()),
        }
    }

    pub fn orders(&self) -> Box<dyn OrderStore + '_> {
        match &self.backend {
            Backend::Sqlite(s) => s.orders(),
            Backend::Team(t) => t.orders(),
        }
    }

    pub fn sync_state(&self) -> Box<dyn SyncStateStore + '_> {
        match &self.backend {
            Backend::Sqlite(s) => s.sync_state(),
            Backend::Team(t) => t.sync_state(),
        }
    }

    pub fn views(&self) -> Box<dyn ViewStore + '_> {
        match &self.backend {
            Backend::Sqlite(s) => s.views(),
            Backend::Team(t) => t.views(),
        }
    }

    /// The book of payees (issue 35): the desk's own file; a team's book is not kept
    /// here yet, and says so.
    pub fn beneficiaries(&self) -> CoreResult<Box<dyn BeneficiaryStore + '_>> {
        match &self.backend {
            Backend::Sqlite(s) => Ok(s.beneficiaries()),
            Backend::Team(_) => Err(CoreError::keyed(
                "beneficiary",
                "a team's payouts do not take a payee from the book yet: give the account",
                "payeeTeamBook",
                &[],
            )),
        }
    }

    pub fn balances(&self) -> Box<dyn BalanceStore + '_> {
        match &self.backend {
            Backend::Sqlite(s) => s.balances(),
            Backend::Team(t) => t.balances(),
        }
    }

    pub fn cards(&self) -> Box<dyn CardStore + '_> {
        match &self.backend {
            Backend::Sqlite(s) => s.cards(),
            Backend::Team(t) => t.cards(),
        }
    }

    pub fn reviews(&self) -> Box<dyn ReviewStore + '_> {
        match &self.backend {
            Backend::Sqlite(s) => s.reviews(),
            Backend::Team(t) => t.reviews(),
        }
    }

    pub fn reversals(&self) -> Box<dyn ReversalStore + '_> {
        match &self.backend {
            Backend::Sqlite(s) => s.reversals(),
            Backend::Team(t) => t.reversals(),
        }
    }

    pub fn notifications(&self) -> Box<dyn NotificationStore + '_> {
        match &self.backend {
            Backend::Sqlite(s) => s.notifications(),
            Backend::Team(t) => t.notifications(),
        }
    }

    /// Runs `f` on the cache's tables in one read transaction: what it reads is one
    /// moment's cache, so a screen's figures agree. On SQLite a deferred transaction (it
    /// takes no write lock, so the journal's writes never wait for it; writes in it are
    /// rolled back); on the team's database a read-only one with one snapshot
    /// (repeatable read; writes in it are refused).
    pub fn cache_read<R>(&self, f: impl FnOnce(&CacheTx<'_>) -> CoreResult<R>) -> CoreResult<R> {
        match &self.backend {
            Backend::Sqlite(s) => s.cache_read(f),
            Backend::Team(t) => t.cache_read(f),
        }
    }

    /// Runs `f` on the cache's tables in one transaction: all of it is written or none.
    pub fn cache_atomic<R>(&self, f: impl FnOnce(&CacheTx<'_>) -> CoreResult<R>) -> CoreResult<R> {
        match &self.backend {
            Backend::Sqlite(s) => s.cache_atomic(f),
            Backend::Team(t) => t.cache_atomic(f),
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
        records: Vec<Record<'_>>,
        key: &[u8],
        anchor: Option<&Anchor>,
        outcomes: &[(i64, &Claim, Outcome<'_>)],
        profile: &str,
        intents: &[Intent<'_>],
        guard: Guard,
    ) -> CoreResult<(Option<Anchor>, Vec<Begin>)> {
        match &self.backend {
            Backend::Sqlite(s) => s.bulk_turn(
                records,
                key,
                anchor,
                outcomes,
                profile,
                intents,
                guard,
                self.now(),
            ),
            Backend::Team(t) => t.bulk_turn(
                records,
                key,
                anchor,
                outcomes,
                profile,
                intents,
                guard,
                self.now(),
            ),
        }
    }

    /// Hands the backend's page caches back to the allocator (the team's database keeps
    /// its caches on its server).
    pub fn shrink_memory(&self) -> CoreResult<()> {
        match &self.backend {
            Backend::Sqlite(s) => s.shrink_memory(),
            Backend::Team(_) => Ok(()),
        }
    }
}
