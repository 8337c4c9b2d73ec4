//! [`SqliteStore`]: a desk's own SQLite file as the store's tables. The profile's file is
//! opened twice: one connection for the cache, one for the journal and the audit log (so
//! a long sync batch never holds up a payout's intent). `paydesk_core::store::Store`
//! hands these tables out for a desk that is not a team's.

use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use paydesk_store::CacheTx;
use paydesk_store::beneficiaries::BeneficiaryStore;
use paydesk_store::error::CoreResult;
use rusqlite::Connection;

use crate::audit::{self, Anchor, AuditArchive, AuditEntry, AuditLog, AuditStore, Record};
use crate::balances::{BalanceStore, Balances};
use crate::beneficiaries::Beneficiaries;
use crate::cards::{CardOperations, CardStore};
use crate::journal::{Begin, Claim, Guard, Intent, Journal, JournalStore, Outcome};
use crate::notifications::{NotificationStore, Notifications};
use crate::orders::{OrderStore, Orders};
use crate::reversals::{ReversalStore, Reversals};
use crate::reviews::{ReviewStore, Reviews};
use crate::sync_state::{SyncState, SyncStateStore};
use crate::views::{SavedViews, ViewStore};
use crate::{Db, Durability, Now, atomic, committed, open, shrink_memory};

/// A desk's SQLite file: the cache's connection and the journal's.
#[derive(Debug)]
pub struct SqliteStore {
    cache: Mutex<Connection>,
    journal: Mutex<Connection>,
}

fn lock(m: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl SqliteStore {
    /// The SQLite file at `path` (created and migrated if needed).
    pub fn open(path: &Path) -> CoreResult<Self> {
        let cache = open(path, Durability::Cache)?;
        let journal = open(path, Durability::Journal)?;
        Ok(SqliteStore {
            cache: Mutex::new(cache),
            journal: Mutex::new(journal),
        })
    }

    pub fn journal(&self) -> Box<dyn JournalStore + '_> {
        self.journal_at(Now::system())
    }

    /// The journal, reading "now" from `now` (the desk's clock) for its times.
    pub fn journal_at(&self, now: Now) -> Box<dyn JournalStore + '_> {
        Box::new(Journal::on(lock(&self.journal)).at(now))
    }

    pub fn audit(&self) -> Box<dyn AuditStore + '_> {
        Box::new(AuditLog::on(lock(&self.journal)))
    }

    /// `(rows, sealed rows)` of the audit log.
    pub fn audit_sealed_rows(&self) -> CoreResult<(i64, i64)> {
        audit::sealed_rows(&lock(&self.journal))
    }

    /// Whether the audit log still reaches `anchor` ([`audit::reaches`]).
    pub fn audit_reaches(&self, anchor: &Anchor) -> CoreResult<bool> {
        audit::reaches(&lock(&self.journal), anchor)
    }

    /// Sets the audit log aside and starts a new chain ([`audit::archive_and_restart`]).
    pub fn audit_archive_and_restart(
        &self,
        r: Record<'_>,
        reason: &str,
        key: &[u8],
    ) -> CoreResult<(AuditArchive, AuditEntry, Anchor)> {
        audit::archive_and_restart(&lock(&self.journal), r, reason, key)
    }

    /// The audit logs set aside.
    pub fn audit_archives(&self) -> CoreResult<Vec<AuditArchive>> {
        audit::archives(&lock(&self.journal))
    }

    /// The rows of a log set aside, newest first.
    pub fn audit_archived_rows(&self, archive: i64, limit: i64) -> CoreResult<Vec<AuditEntry>> {
        audit::archived_rows(&lock(&self.journal), archive, limit)
    }

    pub fn orders(&self) -> Box<dyn OrderStore + '_> {
        Box::new(Orders::on(lock(&self.cache)))
    }

    pub fn sync_state(&self) -> Box<dyn SyncStateStore + '_> {
        Box::new(SyncState::on(lock(&self.cache)))
    }

    pub fn views(&self) -> Box<dyn ViewStore + '_> {
        Box::new(SavedViews::on(lock(&self.cache)))
    }

    /// The book of payees (issue 35), beside the journal.
    pub fn beneficiaries(&self) -> Box<dyn BeneficiaryStore + '_> {
        Box::new(Beneficiaries::on(lock(&self.journal)))
    }

    pub fn balances(&self) -> Box<dyn BalanceStore + '_> {
        Box::new(Balances::on(lock(&self.cache)))
    }

    pub fn cards(&self) -> Box<dyn CardStore + '_> {
        Box::new(CardOperations::on(lock(&self.cache)))
    }

    pub fn reviews(&self) -> Box<dyn ReviewStore + '_> {
        Box::new(Reviews::on(lock(&self.cache)))
    }

    pub fn reversals(&self) -> Box<dyn ReversalStore + '_> {
        Box::new(Reversals::on(lock(&self.cache)))
    }

    pub fn notifications(&self) -> Box<dyn NotificationStore + '_> {
        Box::new(Notifications::on(lock(&self.cache)))
    }

    /// Runs `f` on the cache's tables in one deferred transaction: it takes no write
    /// lock, so the journal's writes never wait for it; writes in it are rolled back.
    pub fn cache_read<R>(&self, f: impl FnOnce(&CacheTx<'_>) -> CoreResult<R>) -> CoreResult<R> {
        let conn = lock(&self.cache);
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

    /// Runs `f` on the cache's tables in one transaction: all of it is written or none.
    pub fn cache_atomic<R>(&self, f: impl FnOnce(&CacheTx<'_>) -> CoreResult<R>) -> CoreResult<R> {
        let conn = lock(&self.cache);
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

    /// A bulk run's turn in one transaction (one commit a turn): the audit rows of the
    /// answers in (chained from `anchor`), their outcomes, and the next rows taken up.
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
        now: Now,
    ) -> CoreResult<(Option<Anchor>, Vec<Begin>)> {
        let conn = lock(&self.journal);
        committed(&conn, || {
            let mut anchor = anchor.cloned();
            for r in records {
                anchor = Some(audit::append(&conn, r, key, anchor.as_ref())?.1);
            }
            let j = Journal::on(&*conn).at(now);
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

    /// Hands SQLite's page caches back to the allocator.
    pub fn shrink_memory(&self) -> CoreResult<()> {
        shrink_memory(&lock(&self.cache))?;
        shrink_memory(&lock(&self.journal))
    }
}
