//! A team's database in the core's team tests: its name, the members' password, the
//! CLABE their payouts go to, a member's connection settings and their connection.

use paydesk_store_pg::PgConfig;
use paydesk_team::Team;
use paydesk_testpg::TestPg;

pub const DB: &str = "team";
pub const PASSWORD: &str = "correct-horse-battery";
pub const CLABE: &str = "002010077777777771";

/// Where member `user` connects (the test server, the team's database).
pub fn cfg(pg: &TestPg, user: &str) -> PgConfig {
    PgConfig {
        host: pg.host().into(),
        port: pg.port(),
        database: DB.into(),
        user: user.into(),
        ca_file: String::new(),
        cert_file: String::new(),
        key_file: String::new(),
    }
}

/// Member `user`'s connection to the team.
pub fn member(pg: &TestPg, user: &str) -> Team {
    Team::connect(&cfg(pg, user), PASSWORD).unwrap()
}

/// A team's database set up by its owner (never a superuser): admin alice, then
/// `members` added by her, and one rule: MXN payouts above `above` need one approval.
pub fn team_db_of(
    opts: paydesk_testpg::Options,
    members: &[(&str, paydesk_team::TeamRole)],
    above: &str,
) -> TestPg {
    use paydesk_store_pg::{PgLink, init_team};
    use paydesk_team::{RuleInput, TeamRole};
    let pg = TestPg::start_with(opts).unwrap();
    pg.create_database(DB).unwrap();
    let owner = PgLink::connect(&cfg(&pg, pg.owner()), pg.owner_password()).unwrap();
    init_team(&owner, super::MER as i64).unwrap();
    Team::on(std::sync::Arc::new(owner))
        .unwrap()
        .add_member("alice", TeamRole::Admin, PASSWORD)
        .unwrap();
    let admin = member(&pg, "alice");
    for (name, role) in members {
        admin.add_member(name, *role, PASSWORD).unwrap();
    }
    admin
        .set_rule(&RuleInput {
            operation: "payout".into(),
            currency: "MXN".into(),
            above: above.into(),
            approvals: 1,
        })
        .unwrap();
    pg
}

/// Runs `q` with psql as member `user` (their own password): its output, trimmed, or
/// the database's refusal.
///
/// A statement that takes a journal entry's claim for its session (`'pg:' ||
/// pg_backend_pid()`) returns once that session's server process has gone: the
/// database holds a claim as another session's while its process lives (schema 0038),
/// and on a loaded machine psql's server process can outlive psql itself by a moment,
/// so the test's next psql session would meet its own previous claim as another's.
pub fn sql(pg: &TestPg, user: &str, q: &str) -> Result<String, String> {
    let out = pg
        .psql_as(user, PASSWORD, DB, q)
        .map(|s| s.trim().to_string());
    if q.contains("pg_backend_pid()") {
        let gone = format!(
            "SELECT count(*) FROM pg_stat_activity WHERE usename = '{user}' AND application_name = 'psql'"
        );
        let until = std::time::Instant::now() + std::time::Duration::from_secs(3);
        while owner_sql(pg, &gone) != "0" && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    out
}

/// Runs `q` with psql as the database's owner: its output, trimmed.
pub fn owner_sql(pg: &TestPg, q: &str) -> String {
    pg.psql_owner(DB, q).unwrap().trim().to_string()
}

/// `r` was refused, for a reason containing `needle`.
pub fn refused(r: Result<String, String>, what: &str, needle: &str) {
    match r {
        Ok(out) => panic!("{what}: the database allowed it ({out:?})"),
        Err(e) => assert!(
            e.contains(needle),
            "{what}: refused, but not for {needle:?}: {e}"
        ),
    }
}

/// The database's clock, ms.
pub fn db_ms(pg: &TestPg) -> i64 {
    owner_sql(
        pg,
        "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
    )
    .parse()
    .unwrap()
}

/// A payout request of one row numbered `no`, of `amount` MXN to [`CLABE`], made by
/// maker `maker` with psql, approved by `approver` when the team's rules ask, and taken
/// to execute by signer `signer` (their psql session's claim, gone with it): a signer
/// journals a payout under the row's number only then (schema 0039). Its request's id.
pub fn executing_row(
    pg: &TestPg,
    maker: &str,
    approver: &str,
    signer: &str,
    no: &str,
    amount: &str,
) -> i64 {
    let id: i64 = sql(
        pg,
        maker,
        &format!(
            "WITH r AS (INSERT INTO paydesk.requests (operation, currency, total, row_count, summary) \
             VALUES ('payout', 'MXN', {amount}, 1, '{amount} MXN to CLABE 002010********7771') RETURNING id) \
             INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary) \
             SELECT id, 1, '{no}', {amount}, \
             '{{\"kind\":\"CLABE\",\"merOrderNo\":\"{no}\",\"amount\":\"{amount}\",\"currency\":\"MXN\",\"clabe\":\"{CLABE}\"}}', \
             'CLABE 002010********7771' FROM r RETURNING request_id"
        ),
    )
    .unwrap()
    .parse()
    .unwrap();
    take_row(pg, approver, signer, no);
    id
}

/// The request of row `no` approved by `approver` (when the team's rules ask) and taken
/// to execute by signer `signer`'s psql session (as [`executing_row`]).
pub fn take_row(pg: &TestPg, approver: &str, signer: &str, no: &str) {
    let id: i64 = owner_sql(
        pg,
        &format!(
            "SELECT request_id FROM paydesk.request_rows WHERE mer_order_no = '{no}' AND live \
             ORDER BY request_id DESC LIMIT 1"
        ),
    )
    .parse()
    .unwrap();
    if owner_sql(
        pg,
        &format!("SELECT state FROM paydesk.requests WHERE id = {id}"),
    ) == "waiting"
    {
        member(pg, approver).approve(id).unwrap();
    }
    sql(pg, signer, &claim_request_sql(no)).unwrap();
}

/// The SQL by which a signer's psql session takes to execute the request of row `no`
/// (approved, or executing with its worker gone).
pub fn claim_request_sql(no: &str) -> String {
    format!(
        "UPDATE paydesk.requests SET state = 'executing', claimed_pid = pg_backend_pid() \
         WHERE id = (SELECT max(rr.request_id) FROM paydesk.request_rows rr \
                     JOIN paydesk.requests q ON q.id = rr.request_id \
                     WHERE rr.mer_order_no = '{no}' AND q.state IN ('approved', 'executing'))"
    )
}
