//! [`PgStore`]: a team desk's store, everything in the team's PostgreSQL database shared
//! by every desk of the team (of merchant `mer_no`): two links, one for the journal and
//! the audit log, one for the read model (the cache's tables), so a long sync batch
//! never holds up the journal. `paydesk_core::store::Store` hands these tables out for a
//! team desk.

use std::sync::Arc;

use paydesk_store::audit::{Anchor, AuditStore, Record};
use paydesk_store::balances::BalanceStore;
use paydesk_store::cards::CardStore;
use paydesk_store::error::{CoreError, CoreResult};
use paydesk_store::journal::{Begin, Claim, Guard, Intent, JournalStore, Outcome};
use paydesk_store::notifications::NotificationStore;
use paydesk_store::orders::OrderStore;
use paydesk_store::reversals::ReversalStore;
use paydesk_store::reviews::ReviewStore;
use paydesk_store::sync_state::SyncStateStore;
use paydesk_store::team::TeamDb;
use paydesk_store::views::ViewStore;
use paydesk_store::{CacheTx, Now};

use crate::audit::PgAudit;
use crate::cache::{
    PgBalances, PgCards, PgNotifications, PgReversals, PgReviews, PgSyncState, PgViews,
};
use crate::journal::PgJournal;
use crate::orders::PgOrders;
use crate::{
    PgConfig, PgLink, TEAM_MIGRATIONS, Tx, migrations, team_schema_applied, team_schema_version,
};

/// A team desk's store on the team's database, as a member.
#[derive(Debug)]
pub struct PgStore {
    journal: Arc<PgLink>,
    cache: Arc<PgLink>,
    mer_no: i64,
    /// The same two links as the engine sees them (`paydesk_store::team`).
    links: [Arc<dyn TeamDb>; 2],
}

impl PgStore {
    /// The journal and the audit log on `journal`, the read model on `cache` (two links
    /// to the same database, as a member), for the team of merchant `mer_no`. Refused
    /// with a clear message when `team init` has not brought the database's schema up
    /// to this PayDesk's.
    pub fn open(journal: Arc<PgLink>, cache: Arc<PgLink>, mer_no: i64) -> CoreResult<Self> {
        let applied = team_schema_applied(&journal)?;
        let found = if applied.iter().all(|a| a.file.is_none()) {
            // Initialised by an older PayDesk (positions only), or not at all.
            i64::from(team_schema_version(&journal)?)
        } else {
            // Which of this build's files, with this build's texts, were applied.
            migrations::check_applied(TEAM_MIGRATIONS, &applied, false)?;
            TEAM_MIGRATIONS
                .iter()
                .filter(|m| applied.iter().any(|a| a.file == Some(m.number())))
                .count() as i64
        };
        let ours = TEAM_MIGRATIONS.len();
        if usize::try_from(found).unwrap_or(0) < ours {
            return Err(CoreError::keyed(
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
        Ok(PgStore {
            journal,
            cache,
            mer_no,
            links,
        })
    }

    /// Two connections to the team's database as the member `cfg.user` (the journal's
    /// and the read model's), on the team of merchant `mer_no`.
    pub fn connect(cfg: &PgConfig, password: &str, mer_no: i64) -> CoreResult<Self> {
        let journal = PgLink::connect(cfg, password)?;
        let cache = PgLink::connect(cfg, password)?;
        Self::open(Arc::new(journal), Arc::new(cache), mer_no)
    }

    /// One connection for everything (a report's: the overview reads a few rows).
    pub fn connect_one_link(cfg: &PgConfig, password: &str, mer_no: i64) -> CoreResult<Self> {
        let link = Arc::new(PgLink::connect(cfg, password)?);
        Self::open(link.clone(), link, mer_no)
    }

    /// The member's connection to the team (the journal's).
    pub fn team_db(&self) -> &Arc<dyn TeamDb> {
        &self.links[0]
    }

    /// The member's second connection to the team (the read model's).
    pub fn team_cache_db(&self) -> &Arc<dyn TeamDb> {
        &self.links[1]
    }

    /// The journal's link.
    pub fn link(&self) -> &Arc<PgLink> {
        &self.journal
    }

    /// The read model's link.
    pub fn cache_link(&self) -> &Arc<PgLink> {
        &self.cache
    }

    /// Whether a connection to the team's database was lost (the server restarted, the
    /// network dropped).
    pub fn connection_lost(&self) -> bool {
        self.journal.is_closed() || self.cache.is_closed()
    }

    pub fn journal(&self) -> Box<dyn JournalStore + '_> {
        self.journal_at(Now::system())
    }

    /// The journal, reading "now" from `now` (the desk's clock) for its times.
    pub fn journal_at(&self, now: Now) -> Box<dyn JournalStore + '_> {
        Box::new(PgJournal::on(&self.journal, self.mer_no).at(now))
    }

    pub fn audit(&self) -> Box<dyn AuditStore + '_> {
        Box::new(PgAudit::on(&self.journal))
    }

    pub fn orders(&self) -> Box<dyn OrderStore + '_> {
        Box::new(PgOrders::on(&self.cache, self.mer_no))
    }

    pub fn sync_state(&self) -> Box<dyn SyncStateStore + '_> {
        Box::new(PgSyncState::on(&self.cache, self.mer_no))
    }

    pub fn views(&self) -> Box<dyn ViewStore + '_> {
        Box::new(PgViews::on(&self.cache, self.mer_no))
    }

    pub fn balances(&self) -> Box<dyn BalanceStore + '_> {
        Box::new(PgBalances::on(&self.cache, self.mer_no))
    }

    pub fn cards(&self) -> Box<dyn CardStore + '_> {
        Box::new(PgCards::on(&self.cache, self.mer_no))
    }

    pub fn reviews(&self) -> Box<dyn ReviewStore + '_> {
        Box::new(PgReviews::on(&self.cache, self.mer_no))
    }

    pub fn reversals(&self) -> Box<dyn ReversalStore + '_> {
        Box::new(PgReversals::on(&self.cache, self.mer_no))
    }

    pub fn notifications(&self) -> Box<dyn NotificationStore + '_> {
        Box::new(PgNotifications::on(&self.cache, self.mer_no))
    }

    /// Runs `f` on the read model's tables in a read-only transaction with one snapshot
    /// (repeatable read; writes in it are refused).
    pub fn cache_read<R>(&self, f: impl FnOnce(&CacheTx<'_>) -> CoreResult<R>) -> CoreResult<R> {
        self.cache.read(|tx| tables(tx, self.mer_no, f))
    }

    /// Runs `f` on the read model's tables in one transaction: all of it or none.
    pub fn cache_atomic<R>(&self, f: impl FnOnce(&CacheTx<'_>) -> CoreResult<R>) -> CoreResult<R> {
        self.cache.atomic(|tx| tables(tx, self.mer_no, f))
    }

    /// A bulk run's turn: the audit rows of the answers in (the database seals them),
    /// their outcomes, and the next rows taken up, each in a transaction of its own.
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
        let anchor = self.audit().append_many(records, key, anchor)?;
        self.journal_at(now.clone()).finish_many(outcomes)?;
        let begun = self.journal_at(now).begin_many(profile, intents, guard)?;
        Ok((anchor, begun))
    }
}

/// The read model's tables on one transaction of the team's database.
fn tables<R>(
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
