//! Issue 30, what the second hostile review left (migration 0016): each hole attacked
//! as the member who would use it, with plain SQL (psql, their own password), on a team
//! owned by a role that is not a superuser. What a member relies on: no signer LOCKs a
//! table the team's work reads; the team's own log rows are the team's, however a
//! desk spells "team"; an order's amount for sorting and filtering is its amount; a
//! dead worker's request is taken up by another signer though its server process's
//! number was reused; an order the read model held before a request asked its number
//! is never labelled as made by that request.

#![allow(clippy::unwrap_used)]

#[path = "../../crates/core/tests/common/mod.rs"]
mod common;

use paydesk_core::team::TeamRole;
use paydesk_testpg::{Options, TestPg};

use common::team::{DB, PASSWORD, member};

/// Admin alice, maker mark, approver ann, viewer vic, signers sam and sid; MXN payouts
/// above 10,000 need one approval.
fn team_db() -> TestPg {
    common::team::team_db_of(
        Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("vic", TeamRole::Viewer),
            ("sam", TeamRole::Signer),
            ("sid", TeamRole::Signer),
        ],
        "10000",
    )
}

fn sql(pg: &TestPg, user: &str, q: &str) -> Result<String, String> {
    pg.psql_as(user, PASSWORD, DB, q)
}

fn owner_sql(pg: &TestPg, q: &str) -> String {
    pg.psql_owner(DB, q).unwrap().trim().to_string()
}

fn refused(r: Result<String, String>, what: &str, needle: &str) {
    match r {
        Ok(out) => panic!("{what}: the database allowed it ({out})"),
        Err(e) => assert!(
            e.contains(needle),
            "{what}: refused, but not for {needle:?}: {e}"
        ),
    }
}

/// The tables the signer's desk writes besides the orders and the requests: the
/// journal, and the read model's.
const SIGNER_TABLES: [&str; 9] = [
    "journal",
    "order_history",
    "refunds",
    "chargebacks",
    "notifications",
    "balance_snapshots",
    "card_operations",
    "review_submissions",
    "sync_state",
];

/// R3-1: a signer LOCKs none of the tables the team's work reads in a mode that stalls
/// the others (every new request reads the journal; a sync, the read model), nor
/// deletes the sync's progress; the desk's own writes still go through (the other team
/// tests run the signer's worker and the sync on these grants).
#[test]
fn a_signer_cannot_lock_the_journal_or_the_read_model() {
    let pg = team_db();
    for table in SIGNER_TABLES {
        for mode in ["SHARE ROW EXCLUSIVE", "EXCLUSIVE", "ACCESS EXCLUSIVE"] {
            refused(
                sql(
                    &pg,
                    "sam",
                    &format!(
                        "BEGIN; SET LOCAL lock_timeout = '1s'; LOCK TABLE paydesk.{table} IN {mode} MODE; ROLLBACK;"
                    ),
                ),
                &format!("the signer locks {table} in {mode} mode"),
                "permission denied",
            );
        }
    }
    refused(
        sql(&pg, "sam", "DELETE FROM paydesk.sync_state"),
        "the signer deletes the sync's progress",
        "permission denied",
    );
    // No member's role holds a table-level right that allows such a lock on a team
    // table (saved filters, each member's own and read by no money path, aside).
    let held = owner_sql(
        &pg,
        "SELECT coalesce(string_agg(r || ' ' || p || ' ' || c.relname, ', ' ORDER BY r, p, c.relname), 'none')
           FROM pg_class c
           JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'paydesk'
          CROSS JOIN unnest(ARRAY['paydesk_viewer', 'paydesk_support', 'paydesk_maker',
                                  'paydesk_approver', 'paydesk_signer', 'paydesk_admin']) r
          CROSS JOIN unnest(ARRAY['UPDATE', 'DELETE', 'TRUNCATE']) p
          WHERE c.relkind IN ('r', 'p') AND c.relname <> 'saved_filters'
            AND has_table_privilege(r, c.oid, p)",
    );
    assert_eq!(held, "none");
    // The sync's error is recorded and cleared through the desk's own store.
    use paydesk_core::store::sync_state::SyncStateStore as _;
    let team = member(&pg, "sam");
    let store = paydesk_core::store::pg::cache::PgSyncState::on(team.link(), common::MER as i64);
    store.record_error("p", "gateway down").unwrap();
    assert_eq!(store.last_error("p").unwrap().unwrap().1, "gateway down");
    store.clear_error("p").unwrap();
    assert_eq!(store.last_error("p").unwrap(), None);
}
