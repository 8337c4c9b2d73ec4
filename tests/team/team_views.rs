//! Issue 36, saved views on a team: a personal view is seen by its author only, a shared
//! view by every member; only its author, or an admin for a shared one, changes or
//! deletes it; no member can LOCK the views' tables (or the old saved filters') above
//! ROW EXCLUSIVE. Held by the database: each member attacks with plain SQL (psql, their
//! own password), as a hostile member would, and the desks' store reads what it may.

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_core::store::prelude::ViewStore;
use paydesk_core::store::views::Screen;
use paydesk_store_pg::PgLink;
use paydesk_store_pg::cache::PgViews;
use paydesk_team::TeamRole;
use paydesk_testpg::{Options, TestPg};

use common::team::{PASSWORD, cfg, owner_sql, refused, sql};

const MER: i64 = common::MER as i64;

/// Admin alice (added by the owner), maker mark, viewer vic, support sue, signer sam.
fn team_db() -> TestPg {
    common::team::team_db_of(
        Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("vic", TeamRole::Viewer),
            ("sue", TeamRole::Support),
            ("sam", TeamRole::Signer),
        ],
        "10000",
    )
}

/// `user` adds a view with plain SQL; its id.
fn add(pg: &TestPg, user: &str, name: &str, shared: bool) -> i64 {
    sql(
        pg,
        user,
        &format!(
            "INSERT INTO paydesk.saved_views (mer_no, screen, name, spec, shared, created_at, updated_at)
             VALUES ({MER}, 'orders', '{name}', '{{\"dates\":{{\"kind\":\"relative\",\"range\":\"last7Days\"}}}}', {shared}, 1, 1)
             RETURNING id"
        ),
    )
    .unwrap()
    .parse()
    .unwrap()
}

/// The names of the views `user` sees, in order.
fn seen(pg: &TestPg, user: &str) -> String {
    sql(
        pg,
        user,
        "SELECT coalesce(string_agg(name, ',' ORDER BY name), '') FROM paydesk.saved_views",
    )
    .unwrap()
}

/// How many rows `user`'s `UPDATE ... RETURNING 1` changed.
fn updated(pg: &TestPg, user: &str, update: &str) -> Result<String, String> {
    sql(
        pg,
        user,
        &format!("WITH u AS ({update} RETURNING 1) SELECT count(*) FROM u"),
    )
}

fn spec_of(pg: &TestPg, id: i64) -> String {
    owner_sql(
        pg,
        &format!("SELECT spec FROM paydesk.saved_views WHERE id = {id}"),
    )
}

#[test]
fn views_are_personal_or_shared_and_only_their_author_or_an_admin_changes_a_shared_one() {
    let pg = team_db();
    let vic_own = add(&pg, "vic", "vic personal", false);
    let vic_shared = add(&pg, "vic", "vic shared", true);
    let mark_own = add(&pg, "mark", "mark personal", false);

    // Who sees what.
    assert_eq!(seen(&pg, "vic"), "vic personal,vic shared");
    assert_eq!(seen(&pg, "mark"), "mark personal,vic shared");
    assert_eq!(seen(&pg, "sue"), "vic shared");
    assert_eq!(
        seen(&pg, "alice"),
        "vic shared",
        "an admin sees no one's personal views"
    );

    // A member changes neither another's personal view nor their shared one: the rows
    // are not theirs to touch (no error tells what is there).
    for (id, what) in [(vic_own, "vic's personal"), (vic_shared, "vic's shared")] {
        assert_eq!(
            updated(
                &pg,
                "mark",
                &format!("UPDATE paydesk.saved_views SET spec = '{{}}' WHERE id = {id}")
            )
            .unwrap(),
            "0",
            "mark changing {what} view"
        );
        assert_eq!(
            sql(
                &pg,
                "mark",
                &format!("SELECT paydesk.delete_view({MER}, {id})")
            )
            .unwrap(),
            "f",
            "mark deleting {what} view"
        );
    }
    assert!(spec_of(&pg, vic_shared).contains("last7Days"));
    assert_eq!(
        owner_sql(&pg, "SELECT count(*) FROM paydesk.saved_views"),
        "3"
    );

    // Nor writes one as another's, nor moves one to another author.
    refused(
        sql(
            &pg,
            "mark",
            &format!(
                "INSERT INTO paydesk.saved_views (mer_no, owner, screen, name, spec, shared, created_at, updated_at)
                 VALUES ({MER}, 'vic', 'orders', 'planted', '{{}}', true, 1, 1)"
            ),
        ),
        "mark adding a view as vic's",
        "row-level security",
    );
    refused(
        sql(
            &pg,
            "mark",
            &format!("UPDATE paydesk.saved_views SET owner = 'vic' WHERE id = {mark_own}"),
        ),
        "mark giving his view to vic",
        "permission denied",
    );
    // A group role taken with SET ROLE is not another author.
    assert_eq!(
        sql(
            &pg,
            "mark",
            &format!(
                "SET ROLE paydesk_maker;
                 INSERT INTO paydesk.saved_views (mer_no, screen, name, spec, created_at, updated_at)
                 VALUES ({MER}, 'events', 'as a group', '{{}}', 1, 1) RETURNING owner"
            ),
        )
        .unwrap(),
        "mark"
    );

    // The author changes and deletes their own.
    assert_eq!(
        updated(
            &pg,
            "vic",
            &format!(
                "UPDATE paydesk.saved_views SET spec = '{{\"fields\":{{}}}}' WHERE id = {vic_own}"
            )
        )
        .unwrap(),
        "1"
    );
    assert_eq!(spec_of(&pg, vic_own), r#"{"fields":{}}"#);

    // An admin changes a shared view of another, which stays shared; not a personal one.
    assert_eq!(
        updated(
            &pg,
            "alice",
            &format!(
                "UPDATE paydesk.saved_views SET spec = '{{\"sort\":null}}' WHERE id = {vic_shared}"
            )
        )
        .unwrap(),
        "1"
    );
    assert_eq!(spec_of(&pg, vic_shared), r#"{"sort":null}"#);
    refused(
        updated(
            &pg,
            "alice",
            &format!("UPDATE paydesk.saved_views SET shared = false WHERE id = {vic_shared}"),
        ),
        "alice making vic's shared view personal (hers to see no more, vic's alone)",
        "row-level security",
    );
    assert_eq!(
        updated(
            &pg,
            "alice",
            &format!("UPDATE paydesk.saved_views SET spec = '{{}}' WHERE id = {mark_own}")
        )
        .unwrap(),
        "0",
        "alice changing mark's personal view"
    );
    assert_eq!(
        sql(
            &pg,
            "alice",
            &format!("SELECT paydesk.delete_view({MER}, {mark_own})")
        )
        .unwrap(),
        "f"
    );
    assert_eq!(
        sql(
            &pg,
            "alice",
            &format!("SELECT paydesk.delete_view({MER}, {vic_shared})")
        )
        .unwrap(),
        "t"
    );
    assert_eq!(
        sql(
            &pg,
            "vic",
            &format!("SELECT paydesk.delete_view({MER}, {vic_own})")
        )
        .unwrap(),
        "t"
    );
    assert_eq!(seen(&pg, "vic"), "");
    assert_eq!(seen(&pg, "mark"), "as a group,mark personal");

    // The desks' store reads the same: a shared view named with its author, not mine.
    let shared = add(&pg, "vic", "team week", true);
    let mark = PgLink::connect(&cfg(&pg, "mark"), PASSWORD).unwrap();
    let views = PgViews::on(&mark, MER).list(Screen::Orders).unwrap();
    let names: Vec<(&str, bool, bool)> = views
        .iter()
        .map(|v| (v.name.as_str(), v.shared, v.mine))
        .collect();
    assert_eq!(
        names,
        [("mark personal", false, true), ("team week", true, false)]
    );
    assert_eq!(views[1].owner.as_deref(), Some("vic"));
    assert!(!PgViews::on(&mark, MER).delete(shared).unwrap());
    assert!(!PgViews::on(&mark, MER).update(shared, "{}", true).unwrap());

    // The view each screen used last is each member's own.
    PgViews::on(&mark, MER)
        .set_last(Screen::Orders, Some(shared))
        .unwrap();
    assert_eq!(
        PgViews::on(&mark, MER).last(Screen::Orders).unwrap(),
        Some(shared)
    );
    assert_eq!(
        sql(&pg, "vic", "SELECT count(*) FROM paydesk.last_views").unwrap(),
        "0"
    );
    refused(
        sql(
            &pg,
            "vic",
            &format!(
                "INSERT INTO paydesk.last_views (mer_no, owner, screen, view_id) VALUES ({MER}, 'mark', 'events', 1)"
            ),
        ),
        "vic setting mark's last view",
        "row-level security",
    );
}

/// A member holding table-level UPDATE, DELETE or TRUNCATE on a table may LOCK it in
/// ACCESS EXCLUSIVE mode and stall every desk that reads it: no member may on the
/// views' tables or the old saved filters, whatever their role.
#[test]
fn no_member_locks_the_views_tables_above_row_exclusive() {
    let pg = team_db();
    for user in ["alice", "mark", "vic", "sue", "sam"] {
        for table in ["saved_views", "last_views", "saved_filters"] {
            for mode in [
                "SHARE UPDATE EXCLUSIVE",
                "SHARE",
                "EXCLUSIVE",
                "ACCESS EXCLUSIVE",
            ] {
                refused(
                    sql(
                        &pg,
                        user,
                        &format!(
                            "BEGIN; LOCK TABLE paydesk.{table} IN {mode} MODE NOWAIT; COMMIT;"
                        ),
                    ),
                    &format!("{user} locking {table} in {mode} mode"),
                    "permission denied",
                );
            }
            // What saving a view takes is still theirs (so the refusals above are the
            // modes', not the table's).
            sql(
                &pg,
                user,
                &format!("BEGIN; LOCK TABLE paydesk.{table} IN ROW EXCLUSIVE MODE NOWAIT; COMMIT;"),
            )
            .unwrap();
            for p in ["DELETE", "TRUNCATE"] {
                refused(
                    sql(
                        &pg,
                        user,
                        &format!("{p} paydesk.{table}")
                            .replace("DELETE paydesk", "DELETE FROM paydesk"),
                    ),
                    &format!("{user}: {p} on {table}"),
                    "permission denied",
                );
            }
        }
    }
    let held = owner_sql(
        &pg,
        "SELECT coalesce(string_agg(r || ' ' || p || ' ' || t, ', ' ORDER BY r, p, t), 'none')
           FROM unnest(ARRAY['paydesk_viewer', 'paydesk_support', 'paydesk_maker',
                             'paydesk_approver', 'paydesk_signer', 'paydesk_admin']) r
          CROSS JOIN unnest(ARRAY['UPDATE', 'DELETE', 'TRUNCATE']) p
          CROSS JOIN unnest(ARRAY['paydesk.saved_views', 'paydesk.last_views',
                                  'paydesk.saved_filters']) t
          WHERE has_table_privilege(r, t, p)",
    );
    assert_eq!(held, "none");
}

/// A team upgraded to saved views: each member's saved filter sets become their own
/// orders views (the filter, its fixed dates included), seen by no one else, and the
/// table-level DELETE every role held on `saved_filters` is gone.
#[test]
fn an_upgrade_turns_each_members_saved_filters_into_their_personal_views() {
    use paydesk_store_pg::{TEAM_MIGRATIONS, init_team};
    let pg = team_db();
    // The team as it stood before migration 0017 (the one that adds views): the views'
    // tables and function gone, saved_filters' old grants back, the migration not done.
    let version = TEAM_MIGRATIONS
        .iter()
        .position(|m| m.sql.contains("CREATE TABLE paydesk.saved_views"))
        .unwrap()
        + 1;
    owner_sql(
        &pg,
        &format!(
            "DROP TABLE paydesk.saved_views, paydesk.last_views;
             DROP FUNCTION paydesk.delete_view(bigint, bigint);
             GRANT SELECT, INSERT, UPDATE, DELETE ON paydesk.saved_filters
                TO paydesk_viewer, paydesk_support, paydesk_maker, paydesk_approver,
                   paydesk_signer, paydesk_admin;
             DELETE FROM paydesk.schema_migrations WHERE version = {version};"
        ),
    );
    sql(
        &pg,
        "vic",
        &format!(
            "INSERT INTO paydesk.saved_filters (mer_no, name, filter, created_at)
             VALUES ({MER}, 'November MXN', '{{\"from\":1793491200000,\"to\":1796083200000,\"currencies\":[\"MXN\"]}}', 5)"
        ),
    )
    .unwrap();
    sql(
        &pg,
        "mark",
        &format!(
            "INSERT INTO paydesk.saved_filters (mer_no, name, filter, created_at)
             VALUES ({MER}, 'pending', '{{\"states\":[2]}}', 6)"
        ),
    )
    .unwrap();
    // Before: any member could delete (and so LOCK) the table.
    sql(
        &pg,
        "sue",
        "BEGIN; LOCK TABLE paydesk.saved_filters IN ACCESS EXCLUSIVE MODE NOWAIT; COMMIT;",
    )
    .unwrap();

    let owner = PgLink::connect(&cfg(&pg, pg.owner()), pg.owner_password()).unwrap();
    // `team init` does not run a file the record lacks before later ones (review r5,
    // F1): it names it, and changes nothing.
    match init_team(&owner, MER) {
        Err(paydesk_core::CoreError::Validation { rule, .. }) => {
            assert_eq!(rule.key.as_deref(), Some("teamSchemaSkipped"), "{rule}");
            assert!(rule.contains("0017"), "{rule}");
        }
        other => panic!("init ran around a skipped file: {other:?}"),
    }
    // The views' migration as `team init` runs it on a team that stood before it.
    owner_sql(&pg, TEAM_MIGRATIONS[version - 1].sql);

    let vic = PgLink::connect(&cfg(&pg, "vic"), PASSWORD).unwrap();
    let views = PgViews::on(&vic, MER).list(Screen::Orders).unwrap();
    assert_eq!(views.len(), 1, "vic sees her filter only, not mark's");
    assert_eq!(views[0].name, "November MXN");
    assert!(views[0].mine && !views[0].shared);
    let f = views[0].spec.order_filter.clone().unwrap();
    assert_eq!(
        (f.from, f.to),
        (Some(1_793_491_200_000), Some(1_796_083_200_000))
    );
    assert_eq!(f.currencies, ["MXN"]);
    assert_eq!(seen(&pg, "mark"), "pending");
    refused(
        sql(
            &pg,
            "sue",
            "BEGIN; LOCK TABLE paydesk.saved_filters IN ACCESS EXCLUSIVE MODE NOWAIT; COMMIT;",
        ),
        "sue locking saved_filters after the upgrade",
        "permission denied",
    );
}
