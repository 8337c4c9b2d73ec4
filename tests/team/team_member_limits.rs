//! Issue 35, item 1: a team member's payout limits are held by the database (migration
//! 0025). An admin sets them through the team's function; a maker's payout rows beyond
//! them are refused when inserted, also when the maker writes plain SQL with psql; no
//! member but an admin can change them, and no member can lock them. Every expected sum
//! is the test's own.

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_team::{MemberLimit, TeamRole};
use paydesk_testpg::{Options, TestPg};
use rust_decimal::Decimal;

use common::team::{DB, PASSWORD, member};

const CLABE: &str = "002010077777777771";

/// Admin alice, makers mark and max, approver ann, signer sam; MXN payouts above
/// 10,000 need one approval.
fn team_db() -> TestPg {
    common::team::team_db_of(
        Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("max", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("sam", TeamRole::Signer),
        ],
        "10000",
    )
}

fn sql(pg: &TestPg, user: &str, q: &str) -> Result<String, String> {
    pg.psql_as(user, PASSWORD, DB, q)
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

/// One payout request of one row, as a maker's psql would write it.
fn request(no: &str, amount: &str) -> String {
    format!(
        "WITH r AS (INSERT INTO paydesk.requests (operation, currency, total, row_count, summary) \
         VALUES ('payout', 'MXN', {amount}, 1, '{amount} MXN to CLABE 002010********7771') RETURNING id) \
         INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary) \
         SELECT id, 1, '{no}', {amount}, \
         '{{\"kind\":\"CLABE\",\"merOrderNo\":\"{no}\",\"amount\":\"{amount}\",\"currency\":\"MXN\",\"clabe\":\"{CLABE}\"}}', \
         'CLABE 002010********7771' FROM r"
    )
}

fn limit(member: &str, per_payout: Option<&str>, per_day: Option<&str>) -> MemberLimit {
    MemberLimit {
        member: member.into(),
        currency: "mxn".into(),
        per_payout: per_payout.map(str::to_string),
        per_day: per_day.map(str::to_string),
        day_zone: "America/Mexico_City".into(),
        set_by: String::new(),
    }
}

#[test]
fn a_makers_payout_rows_beyond_their_limits_are_refused_by_the_database() {
    let pg = team_db();
    let alice = member(&pg, "alice");
    alice
        .set_member_limit(&limit("mark", Some("100"), Some("250")))
        .unwrap();
    let kept = alice.member_limits().unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(
        (
            kept[0].currency.as_str(),
            kept[0].per_payout.as_deref(),
            kept[0].per_day.as_deref()
        ),
        ("MXN", Some("100"), Some("250"))
    );

    // Over the per-payout limit, with plain SQL: refused naming it.
    refused(
        sql(&pg, "mark", &request("LIM-PG-1", "100.01")),
        "a row of 100.01 over mark's 100",
        "over the limit per payout of 100",
    );
    // Within it, until the day's sum would pass 250.
    let d = |s: &str| s.parse::<Decimal>().unwrap();
    let mut used = Decimal::ZERO;
    for (no, amount) in [("LIM-PG-2", "100"), ("LIM-PG-3", "99.99")] {
        sql(&pg, "mark", &request(no, amount)).unwrap();
        used += d(amount);
    }
    let room = d("250") - used;
    refused(
        sql(
            &pg,
            "mark",
            &request("LIM-PG-4", &(room + d("0.01")).to_string()),
        ),
        "a row taking mark's day past 250",
        "over the limit per day of 250",
    );
    sql(&pg, "mark", &request("LIM-PG-5", &room.to_string())).unwrap();
    // Through the maker's own desk: said before anything is submitted (team35), naming
    // the limit, as a rule a window translates (the database's refusal stands behind it).
    let e = member(&pg, "mark")
        .request_payout(&paydesk_core::forms::PayoutForm {
            clabe: CLABE.into(),
            ..paydesk_core::forms::PayoutForm::new(
                paydesk_core::forms::PayoutKind::Clabe,
                "LIM-PG-DESK",
                "100.01",
                "MXN",
            )
        })
        .unwrap_err();
    let v = serde_json::to_value(&e).unwrap();
    assert_eq!(v["ruleKey"], "memberLimitPerPayout", "{e}");
    assert_eq!(v["ruleParams"]["limit"], "100", "{e}");
    // Another maker has no limit.
    sql(&pg, "max", &request("LIM-PG-6", "5000")).unwrap();
    let rows = pg
        .psql_owner(
            DB,
            "SELECT string_agg(mer_order_no, ',' ORDER BY mer_order_no) FROM paydesk.request_rows",
        )
        .unwrap();
    assert_eq!(rows.trim(), "LIM-PG-2,LIM-PG-3,LIM-PG-5,LIM-PG-6");

    // Nobody but an admin changes the limits, by any door.
    for who in ["mark", "ann", "sam"] {
        refused(
            sql(
                &pg,
                who,
                "SELECT paydesk.set_member_limit('mark', 'MXN', NULL, NULL, 'UTC')",
            ),
            &format!("{who} clearing mark's limits"),
            "permission denied",
        );
        refused(
            sql(&pg, who, "DELETE FROM paydesk.member_limits"),
            &format!("{who} deleting the limits"),
            "permission denied",
        );
        refused(
            sql(
                &pg,
                who,
                "UPDATE paydesk.member_limits SET per_payout = 1000000",
            ),
            &format!("{who} raising the limits"),
            "permission denied",
        );
        refused(
            sql(
                &pg,
                who,
                "INSERT INTO paydesk.member_limits (member, currency, per_payout) VALUES ('max', 'USD', 1)",
            ),
            &format!("{who} adding a limit"),
            "permission denied",
        );
        // Holding the limit's row would stall the member's requests: not theirs to lock.
        refused(
            sql(
                &pg,
                who,
                "BEGIN; SELECT * FROM paydesk.member_limits FOR UPDATE; COMMIT",
            ),
            &format!("{who} locking the limits"),
            "permission denied",
        );
        refused(
            sql(
                &pg,
                who,
                "BEGIN; LOCK TABLE paydesk.member_limits IN EXCLUSIVE MODE; COMMIT",
            ),
            &format!("{who} locking the table"),
            "permission denied",
        );
    }
    // The maker's own desk refuses through the core's API too.
    assert!(
        member(&pg, "mark")
            .set_member_limit(&limit("mark", None, None))
            .is_err()
    );

    // Each change is in the audit log; cleared, mark's larger row goes.
    alice.set_member_limit(&limit("mark", None, None)).unwrap();
    assert!(alice.member_limits().unwrap().is_empty());
    sql(&pg, "mark", &request("LIM-PG-7", "100.01")).unwrap();
    let audited = pg
        .psql_owner(
            DB,
            "SELECT count(*) FROM paydesk.audit_log WHERE operation = 'team.limit.set'",
        )
        .unwrap();
    assert_eq!(audited.trim(), "2");

    // Bad limits are refused naming the field, before and by the database.
    let e = alice
        .set_member_limit(&limit("mark", Some("-1"), None))
        .unwrap_err();
    assert!(e.to_string().contains("perPayout"), "{e}");
    refused(
        sql(
            &pg,
            "alice",
            "SELECT paydesk.set_member_limit('nobody', 'MXN', 5, NULL, 'UTC')",
        ),
        "a limit for no member",
        "no member named nobody",
    );
    refused(
        sql(
            &pg,
            "alice",
            "SELECT paydesk.set_member_limit('mark', 'MXN', 5, NULL, 'Mars/Olympus')",
        ),
        "a day in no zone",
        "dayZone",
    );
}
