//! The store's contract suites (`tests/contract/`) run on both backends: a desk's
//! SQLite file (`paydesk-store-sqlite`) and the team's PostgreSQL database
//! (`paydesk-store-pg`: a scratch server from `paydesk-testpg`, its schema as
//! `paydesk team init` makes it, the owner's links). The same scenarios, the same
//! answers: a rule one adapter keeps and the other does not fails here, under the
//! backend's name. A contract that has one backend by design runs on that one alone
//! (`contract/mod.rs`): the book of payees and a desk's audit log set aside on SQLite,
//! the team's tables on PostgreSQL.

#![allow(clippy::unwrap_used)]

mod contract;

use contract::{
    Facts, audit, balances, beneficiaries, cards, journal, notifications, orders, reversals,
    reviews, sync_state, team, views,
};
use paydesk_store::Now;
use paydesk_store::audit::AuditStore;
use paydesk_store::balances::BalanceStore;
use paydesk_store::cards::CardStore;
use paydesk_store::journal::JournalStore;
use paydesk_store::notifications::NotificationStore;
use paydesk_store::orders::OrderStore;
use paydesk_store::reversals::ReversalStore;
use paydesk_store::reviews::ReviewStore;
use paydesk_store::sync_state::SyncStateStore;
use paydesk_store::team::{TeamConfig, TeamDb};
use paydesk_store::views::ViewStore;
use paydesk_store_pg::{PgLink, PgStore, TEAM_MIGRATIONS, init_team, scram_verifier};
use paydesk_store_sqlite::SqliteStore;
use paydesk_testpg::TestPg;

const MER: i64 = 123;
const DB: &str = "team";

const SQLITE: Facts = Facts {
    name: "SQLite",
    shared_by_profiles: false,
    database_seals_audit: false,
};

const POSTGRES: Facts = Facts {
    name: "PostgreSQL",
    shared_by_profiles: true,
    database_seals_audit: true,
};

/// One backend's store: the tables a scenario takes.
enum Store {
    Sqlite(SqliteStore),
    Pg(PgStore),
}

impl Store {
    fn journal(&self) -> Box<dyn JournalStore + '_> {
        match self {
            Store::Sqlite(s) => s.journal(),
            Store::Pg(p) => p.journal(),
        }
    }

    fn journal_at(&self, now: Now) -> Box<dyn JournalStore + '_> {
        match self {
            Store::Sqlite(s) => s.journal_at(now),
            Store::Pg(p) => p.journal_at(now),
        }
    }

    fn audit(&self) -> Box<dyn AuditStore + '_> {
        match self {
            Store::Sqlite(s) => s.audit(),
            Store::Pg(p) => p.audit(),
        }
    }

    fn orders(&self) -> Box<dyn OrderStore + '_> {
        match self {
            Store::Sqlite(s) => s.orders(),
            Store::Pg(p) => p.orders(),
        }
    }

    fn sync_state(&self) -> Box<dyn SyncStateStore + '_> {
        match self {
            Store::Sqlite(s) => s.sync_state(),
            Store::Pg(p) => p.sync_state(),
        }
    }

    fn reversals(&self) -> Box<dyn ReversalStore + '_> {
        match self {
            Store::Sqlite(s) => s.reversals(),
            Store::Pg(p) => p.reversals(),
        }
    }

    fn notifications(&self) -> Box<dyn NotificationStore + '_> {
        match self {
            Store::Sqlite(s) => s.notifications(),
            Store::Pg(p) => p.notifications(),
        }
    }

    fn views(&self) -> Box<dyn ViewStore + '_> {
        match self {
            Store::Sqlite(s) => s.views(),
            Store::Pg(p) => p.views(),
        }
    }

    fn reviews(&self) -> Box<dyn ReviewStore + '_> {
        match self {
            Store::Sqlite(s) => s.reviews(),
            Store::Pg(p) => p.reviews(),
        }
    }

    fn cards(&self) -> Box<dyn CardStore + '_> {
        match self {
            Store::Sqlite(s) => s.cards(),
            Store::Pg(p) => p.cards(),
        }
    }

    fn balances(&self) -> Box<dyn BalanceStore + '_> {
        match self {
            Store::Sqlite(s) => s.balances(),
            Store::Pg(p) => p.balances(),
        }
    }
}

/// Both backends' stores, each fresh, and what keeps them alive.
struct Both {
    sqlite: Store,
    pg: Store,
    _dir: tempfile::TempDir,
    server: TestPg,
}

fn config(server: &TestPg) -> TeamConfig {
    TeamConfig {
        host: server.host().into(),
        port: server.port(),
        database: DB.into(),
        user: server.owner().into(),
        ca_file: String::new(),
        cert_file: String::new(),
        key_file: String::new(),
    }
}

fn both() -> Both {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = SqliteStore::open(&dir.path().join("desk.sqlite")).unwrap();
    let server = TestPg::start().unwrap();
    server.create_database(DB).unwrap();
    let cfg = config(&server);
    let owner = PgLink::connect(&cfg, server.owner_password()).unwrap();
    assert_eq!(init_team(&owner, MER).unwrap(), TEAM_MIGRATIONS.len());
    let pg = PgStore::connect(&cfg, server.owner_password(), MER).unwrap();
    Both {
        sqlite: Store::Sqlite(sqlite),
        pg: Store::Pg(pg),
        _dir: dir,
        server,
    }
}

/// Runs `scenario` on each backend's fresh store.
fn on_both(scenario: impl Fn(&Store, Facts)) {
    let b = both();
    scenario(&b.sqlite, SQLITE);
    scenario(&b.pg, POSTGRES);
}

#[test]
fn journal_outcomes_move_entries_only_forward() {
    on_both(|s, f| journal::outcomes_move_entries_only_forward(&*s.journal(), f));
}

#[test]
fn journal_only_unsettled_entries_are_listed_looked_up_and_resolved() {
    on_both(|s, f| {
        journal::only_unsettled_entries_are_listed_looked_up_and_resolved(&*s.journal(), f)
    });
}

#[test]
fn journal_live_or_recent_entries_are_read_whole() {
    on_both(|s, f| journal::live_or_recent_entries_are_read_whole(&|now| s.journal_at(now), f));
}

#[test]
fn journal_times_follow_the_store_s_clock() {
    on_both(|s, f| journal::times_follow_the_store_s_clock(&|now| s.journal_at(now), f));
}

#[test]
fn journal_a_day_limit_is_summed_where_the_intent_is_written() {
    on_both(|s, f| journal::a_day_limit_is_summed_where_the_intent_is_written(&*s.journal(), f));
}

#[test]
fn journal_a_live_or_recent_intent_is_a_duplicate_and_writes_nothing() {
    on_both(|s, f| {
        journal::a_live_or_recent_intent_is_a_duplicate_and_writes_nothing(&*s.journal(), f)
    });
}

#[test]
fn journal_a_live_claim_keeps_others_out() {
    on_both(|s, f| journal::a_live_claim_keeps_others_out(&*s.journal(), f));
}

#[test]
fn journal_a_list_limit_counts_only_matching_entries() {
    on_both(|s, f| journal::a_list_limit_counts_only_matching_entries(&*s.journal(), f));
}

#[test]
fn audit_appended_rows_read_back_and_verify() {
    on_both(|s, f| audit::appended_rows_read_back_and_verify(&*s.audit(), f));
}

#[test]
fn audit_an_anchor_past_the_end_is_reported() {
    on_both(|s, f| audit::an_anchor_past_the_end_is_reported(&*s.audit(), f));
}

#[test]
fn orders_balance_moves_at_the_time_of_the_read_that_saw_it() {
    on_both(|s, f| {
        orders::balance_moves_at_the_time_of_the_read_that_saw_it(&*s.orders(), MER as u64, f)
    });
}

#[test]
fn sync_state_a_window_that_grew_is_complete_only_when_its_last_page_is_in() {
    on_both(|s, f| {
        sync_state::a_window_that_grew_is_complete_only_when_its_last_page_is_in(
            &*s.sync_state(),
            f,
        )
    });
}

#[test]
fn sync_state_a_failure_is_kept_until_cleared_and_a_page_dates_the_last_sync() {
    on_both(|s, f| {
        sync_state::a_failure_is_kept_until_cleared_and_a_page_dates_the_last_sync(
            &*s.sync_state(),
            f,
        )
    });
}

/// The read model's smaller tables, each its own scenario, on one pair of fresh
/// stores (they share no table, and one server is started instead of six).
#[test]
fn the_read_models_smaller_tables_keep_their_contracts() {
    let b = both();
    for (s, f) in [(&b.sqlite, SQLITE), (&b.pg, POSTGRES)] {
        balances::snapshots_read_back_as_written_oldest_first_and_latest_per_currency(
            &*s.balances(),
            f,
        );
        reversals::a_refund_keeps_what_the_refund_query_said_when_the_order_query_reports_it(
            &*s.reversals(),
            f,
        );
        notifications::notifications_are_kept_as_received_and_listed_both_ways(
            &*s.notifications(),
            f,
        );
        views::views_are_saved_by_name_listed_per_screen_changed_and_deleted(&*s.views(), f);
        reviews::a_submission_is_one_row_per_reference_until_its_final_answer(&*s.reviews(), f);
        cards::card_operations_read_back_as_written_newest_first(&*s.cards(), f);
    }
}

/// The book of payees, a desk's own: on SQLite alone (`contract/beneficiaries.rs`).
#[test]
fn beneficiaries_a_payee_is_added_once_found_by_nickname_and_digest_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = SqliteStore::open(&dir.path().join("desk.sqlite")).unwrap();
    beneficiaries::a_payee_is_added_once_found_by_nickname_and_digest_and_removed(
        &*sqlite.beneficiaries(),
        SQLITE,
    );
}

/// A desk's audit log set aside after its key was lost: on SQLite alone (a team's log is
/// the team's database's).
#[test]
fn audit_a_log_set_aside_keeps_its_rows_and_a_new_chain_starts() {
    let dir = tempfile::tempdir().unwrap();
    let s = SqliteStore::open(&dir.path().join("desk.sqlite")).unwrap();
    audit::a_log_set_aside_keeps_its_rows_and_a_new_chain_starts(
        &audit::Archive {
            log: &|| s.audit(),
            set_aside: &|r, reason, key| s.audit_archive_and_restart(r, reason, key),
            archives: &|| s.audit_archives(),
            rows: &|archive, limit| s.audit_archived_rows(archive, limit),
        },
        SQLITE,
    );
}

/// The team's tables: on PostgreSQL alone (a desk's file has no team); members signed in
/// with the verifier the database keeps.
#[test]
fn team_members_rules_and_a_request_from_making_to_done() {
    let server = TestPg::start().unwrap();
    server.create_database(DB).unwrap();
    let owner = PgLink::connect(&config(&server), server.owner_password()).unwrap();
    init_team(&owner, MER).unwrap();
    let connect = |user: &str, password: &str| -> Box<dyn TeamDb> {
        let cfg = TeamConfig {
            user: user.into(),
            ..config(&server)
        };
        Box::new(PgLink::connect(&cfg, password).unwrap())
    };
    team::members_rules_and_a_request_from_making_to_done(
        &owner,
        &connect,
        &scram_verifier,
        MER,
        POSTGRES,
    );
}

/// The store layer's opener of a team: `init` brings the schema up once (nothing the
/// second time), a store on one link or two answers alike, and the connection says
/// which schema it found.
#[test]
fn the_team_opener_inits_once_and_opens_on_one_link_or_two() {
    let b = both();
    let Store::Pg(pg) = &b.pg else {
        unreachable!("the second store is the team's")
    };
    let team = pg.team_db();
    assert_eq!(
        team.schema_version().unwrap() as usize,
        TEAM_MIGRATIONS.len()
    );
    assert_eq!(team.user(), b.server.owner());
    let cfg = config(&b.server);
    let owner = PgLink::connect(&cfg, b.server.owner_password()).unwrap();
    assert_eq!(
        init_team(&owner, MER).unwrap(),
        0,
        "nothing to apply the second time"
    );
    let one = PgStore::connect_one_link(&cfg, b.server.owner_password(), MER).unwrap();
    assert!(one.journal().list("p", &[], &[], 10).unwrap().is_empty());
    assert!(
        PgLink::connect(&cfg, "not the password").is_err(),
        "a wrong password is refused"
    );
}
