//! Issue 30: each member of a team is a possible attacker with psql. These tests attack
//! the team's database through plain SQL as each role, on a server whose team is owned
//! by a role with CREATEROLE that is not a superuser (as in production), and say what a
//! security reviewer expects: no member runs code with another's rights, membership
//! touches only members, the audit log says who wrote each row, and no member stalls
//! the others.

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_store_pg::AsPgLink;
use std::time::{Duration, Instant};

use paydesk_core::CoreError;
use paydesk_core::audit::Record;
use paydesk_core::store::prelude::AuditStore;
use paydesk_store_pg::audit::PgAudit;
use paydesk_store_pg::{PgLink, init_team};
use paydesk_team::{RequestState, Team, TeamRole};
use paydesk_testpg::{Options, TestPg};

use common::team::{CLABE, DB, PASSWORD, cfg, member};

/// A team set up by its owner (no superuser): admin alice, maker mark, approvers ann
/// and abe, viewer vic, signer sam; MXN payouts above 10,000 need one approval.
fn team_db_with(opts: Options) -> TestPg {
    common::team::team_db_of(
        opts,
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("abe", TeamRole::Approver),
            ("vic", TeamRole::Viewer),
            ("sam", TeamRole::Signer),
        ],
        "10000",
    )
}

fn team_db() -> TestPg {
    team_db_with(Options::default())
}

fn payout_form(amount: &str, no: &str) -> paydesk_core::forms::PayoutForm {
    let mut form = paydesk_core::forms::PayoutForm::new(
        paydesk_core::forms::PayoutKind::Clabe,
        no,
        amount,
        "MXN",
    );
    form.clabe = CLABE.into();
    form
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

fn owner_sql(pg: &TestPg, q: &str) -> String {
    pg.psql_owner(DB, q).unwrap()
}

#[test]
fn team_init_refuses_a_superuser_and_a_role_that_does_not_own_the_database() {
    let pg = TestPg::start().unwrap();
    pg.create_database(DB).unwrap();
    let su = PgLink::connect(&cfg(&pg, pg.superuser()), pg.superuser_password()).unwrap();
    match init_team(&su, 1) {
        Err(CoreError::Validation { field, rule }) => {
            assert_eq!(field, "team.user");
            assert!(rule.contains("is a superuser"), "{rule}");
            assert!(
                rule.contains("CREATEROLE that is not a superuser"),
                "{rule}"
            );
        }
        other => panic!("a superuser set the team up: {other:?}"),
    }
    // A role with CREATEROLE that does not own the database is told so.
    pg.psql_super(
        "postgres",
        "CREATE ROLE helper LOGIN CREATEROLE PASSWORD 'helper-password'",
    )
    .unwrap();
    let helper = PgLink::connect(&cfg(&pg, "helper"), "helper-password").unwrap();
    match init_team(&helper, 1) {
        Err(CoreError::Validation { rule, .. }) => {
            assert!(rule.contains("does not own the database team"), "{rule}")
        }
        other => panic!("{other:?}"),
    }
    // The owner sets it up; members then make no temporary objects at all.
    let owner = PgLink::connect(&cfg(&pg, pg.owner()), pg.owner_password()).unwrap();
    init_team(&owner, 1).unwrap();
    let privileges = owner_sql(
        &pg,
        "SELECT has_database_privilege('paydesk_maker', current_database(), 'TEMPORARY')",
    );
    assert_eq!(privileges.trim(), "f");
}

/// A maker with temporary objects named like the catalog's (the database granting
/// TEMPORARY, as one set up by hand might) calls every way in to the owner's code: none
/// of it runs their objects, so they never approve their own request.
#[test]
fn a_makers_temporary_objects_never_run_with_the_owners_rights() {
    let pg = team_db();
    // Revoked from PUBLIC by team init: a member makes no temporary object.
    refused(
        sql(&pg, "mark", "CREATE TEMP TABLE t (i int)"),
        "a member's temporary table",
        "permission denied to create temporary tables",
    );
    // Every SECURITY DEFINER function of the team fixes its search path, pg_temp last.
    let loose = owner_sql(
        &pg,
        "SELECT string_agg(p.proname, ',') FROM pg_proc p
          WHERE p.pronamespace = 'paydesk'::regnamespace AND p.prosecdef
            AND NOT coalesce('search_path=pg_catalog, paydesk, pg_temp' = ANY (p.proconfig), false)",
    );
    assert_eq!(loose.trim(), "", "definer functions without pg_temp last");

    // Should TEMPORARY be granted again (by hand), the search path still holds.
    owner_sql(&pg, "GRANT TEMPORARY ON DATABASE team TO paydesk_maker");
    let request = member(&pg, "mark")
        .request_payout(&payout_form("50000", "T-TEMP-1"))
        .unwrap();
    assert_eq!(request.state, RequestState::Waiting);
    let id = request.id;
    // What the maker's objects would do with the owner's rights: approve the request
    // twice behind the triggers' back, and leave a mark.
    let attack = format!(
        "CREATE FUNCTION pg_temp.evil() RETURNS boolean LANGUAGE plpgsql AS $f$
         BEGIN
             BEGIN
                 CREATE TABLE IF NOT EXISTS paydesk.pwned (by text);
             EXCEPTION WHEN others THEN NULL;
             END;
             BEGIN
                 ALTER TABLE paydesk.decisions DISABLE TRIGGER USER;
                 INSERT INTO paydesk.decisions (request_id, member, decision)
                      VALUES ({id}, 'ann', 'approve'), ({id}, 'abe', 'approve') ON CONFLICT DO NOTHING;
                 ALTER TABLE paydesk.decisions ENABLE TRIGGER USER;
             EXCEPTION WHEN others THEN NULL;
             END;
             RETURN true;
         END $f$;
         CREATE DOMAIN pg_temp.text AS pg_catalog.text CHECK (pg_temp.evil());
         CREATE DOMAIN pg_temp.int4 AS pg_catalog.int4 CHECK (pg_temp.evil());
         CREATE DOMAIN pg_temp.numeric AS pg_catalog.numeric CHECK (pg_temp.evil());
         CREATE TABLE pg_temp.audit_log (id bigint, hash text);
         CREATE TABLE pg_temp.requests (id bigint);
         SELECT paydesk.roles_of(session_user);
         SELECT paydesk.approvals_needed('payout', 'MXN', 1);
         SELECT id FROM paydesk.audit_append(0, 'p', 'mark', 'x', '', '', 0);
         BEGIN;
         INSERT INTO paydesk.requests (operation, currency, total, row_count, summary)
              VALUES ('payout', 'MXN', 20000, 1, 'x');
         INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary)
              VALUES (currval('paydesk.requests_id_seq'), 1, 'T-TEMP-2', 20000,
                      '{{\"kind\":\"CLABE\",\"merOrderNo\":\"T-TEMP-2\",\"amount\":\"20000\",\"currency\":\"MXN\",\"clabe\":\"{CLABE}\"}}',
                      'CLABE x');
         COMMIT;"
    );
    // Whatever the database answers, nothing of the attack may have run as the owner.
    let answer = sql(&pg, "mark", &attack);
    // The team goes on: another request of the maker's, approved by an approver.
    let ann = member(&pg, "ann");
    let other = member(&pg, "mark")
        .request_payout(&payout_form("30000", "T-TEMP-3"))
        .unwrap();
    ann.approve(other.id).unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT to_regclass('paydesk.pwned') IS NULL, (SELECT bool_and(tgenabled = 'O') FROM pg_trigger WHERE tgrelid = 'paydesk.decisions'::regclass AND NOT tgisinternal)"
        )
        .trim(),
        "t|t",
        "the maker's code ran as the owner: {answer:?}"
    );
    let decisions = owner_sql(
        &pg,
        &format!("SELECT count(*) FROM paydesk.decisions WHERE request_id = {id}"),
    );
    assert_eq!(decisions.trim(), "0", "approvals the maker wrote");
    assert_eq!(
        member(&pg, "vic").request(id).unwrap().state,
        RequestState::Waiting
    );
}

/// The admin adds members, never another role of the server: not the owner, not a
/// superuser, not a role that creates roles, not another application's login; their
/// passwords stay as they were.
#[test]
fn membership_touches_only_members() {
    let pg = team_db();
    pg.psql_super(
        "postgres",
        "CREATE ROLE postgres LOGIN SUPERUSER PASSWORD 'postgres-password';
         CREATE ROLE ops LOGIN CREATEROLE PASSWORD 'ops-password';
         CREATE ROLE app LOGIN PASSWORD 'app-password';",
    )
    .unwrap();
    let passwords = || {
        pg.psql_super(
            "postgres",
            "SELECT string_agg(rolname || '=' || coalesce(rolpassword, ''), ',' ORDER BY rolname)
               FROM pg_authid WHERE rolname IN ('postgres', 'ops', 'app', 'team_owner')",
        )
        .unwrap()
    };
    let before = passwords();
    let admin = member(&pg, "alice");
    for (name, rule) in [
        ("team_owner", "the team's owner is never a member"),
        ("postgres", "a superuser"),
        ("ops", "creates roles"),
        ("app", "the team did not make is never taken over"),
    ] {
        match admin.add_member(name, TeamRole::Admin, "another-password-1") {
            Err(CoreError::Validation { rule: r, .. }) => assert!(r.contains(rule), "{name}: {r}"),
            other => panic!("{name} was added: {other:?}"),
        }
        match admin.reset_member_password(name, "another-password-1") {
            Err(CoreError::Validation { rule: r, .. }) => {
                assert!(r.contains("not a member"), "{name}: {r}")
            }
            other => panic!("{name}'s password was reset: {other:?}"),
        }
        // By plain SQL, with a verifier of the admin's own making.
        let verifier = postgres_protocol::password::scram_sha_256(b"another-password-1");
        refused(
            sql(
                &pg,
                "alice",
                &format!(
                    "BEGIN;
                     INSERT INTO paydesk.new_passwords (member, verifier) VALUES ('{name}', '{verifier}');
                     SELECT paydesk.add_member('{name}', 'admin');
                     COMMIT;"
                ),
            ),
            name,
            rule,
        );
        refused(
            sql(
                &pg,
                "alice",
                &format!("SELECT paydesk.set_member_roles('{name}', ARRAY['viewer'])"),
            ),
            name,
            "not a member",
        );
    }
    assert_eq!(
        passwords(),
        before,
        "a password of a role outside the team changed"
    );
    // The owner may not take a superuser over either.
    let owner = Team::connect(&cfg(&pg, pg.owner()), pg.owner_password()).unwrap();
    assert!(
        owner
            .add_member("postgres", TeamRole::Admin, "another-password-1")
            .is_err()
    );
    // Nor may an admin read the passwords written for others.
    refused(
        sql(&pg, "alice", "SELECT * FROM paydesk.new_passwords"),
        "reading new passwords",
        "permission denied",
    );

    // Adding a member twice is no role change nor a password reset.
    match admin.add_member("abe", TeamRole::Viewer, "another-password-1") {
        Err(CoreError::Validation { rule, .. }) => {
            assert!(rule.contains("already a member (holds approver)"), "{rule}")
        }
        other => panic!("{other:?}"),
    }
    assert!(
        Team::connect(&cfg(&pg, "abe"), PASSWORD).is_ok(),
        "the password changed"
    );
    // A removed member cannot log in; added back (a login the team made), they can.
    admin.remove_member("vic").unwrap();
    assert!(Team::connect(&cfg(&pg, "vic"), PASSWORD).is_err());
    assert_eq!(
        admin
            .add_member("vic", TeamRole::Viewer, "vic-is-back-again")
            .unwrap(),
        "viewer"
    );
    assert!(Team::connect(&cfg(&pg, "vic"), "vic-is-back-again").is_ok());
}

/// A role change replaces the role: an approver made a viewer approves no more.
#[test]
fn a_role_change_takes_the_old_role_away() {
    let pg = team_db();
    let admin = member(&pg, "alice");
    let request = member(&pg, "mark")
        .request_payout(&payout_form("50000", "T-ROLE-1"))
        .unwrap();
    assert_eq!(
        admin.set_member_roles("abe", &[TeamRole::Viewer]).unwrap(),
        "viewer"
    );
    let abe = member(&pg, "abe");
    assert_eq!(abe.me().roles, vec![TeamRole::Viewer]);
    let e = abe.approve(request.id).unwrap_err();
    assert!(e.to_string().contains("permission denied"), "{e}");
    refused(
        sql(
            &pg,
            "abe",
            &format!(
                "INSERT INTO paydesk.decisions (request_id, decision) VALUES ({}, 'approve')",
                request.id
            ),
        ),
        "a former approver approving by SQL",
        "permission denied",
    );
    assert_eq!(
        member(&pg, "vic").request(request.id).unwrap().state,
        RequestState::Waiting
    );
    // Only an admin changes roles, and the log says who changed what.
    refused(
        sql(
            &pg,
            "ann",
            "SELECT paydesk.set_member_roles('ann', ARRAY['admin'])",
        ),
        "an approver making themself admin",
        "permission denied",
    );
    let log = sql(
        &pg,
        "alice",
        "SELECT operator || ' ' || operation || ' ' || identifiers || ' ' || result FROM paydesk.audit_log WHERE operation = 'team.member.role'",
    )
    .unwrap();
    assert_eq!(
        log.trim(),
        "alice team.member.role member=abe roles approver -> viewer"
    );
}

/// A password reset is its own step: audited, the old password no longer works, and no
/// verifier reaches the server's log, even one that logs every statement.
#[test]
fn a_password_reset_is_audited_and_no_verifier_is_logged() {
    let pg = team_db_with(
        Options::default()
            .setting("log_statement", "all")
            .setting("log_min_error_statement", "error"),
    );
    let admin = member(&pg, "alice");
    admin
        .reset_member_password("vic", "a-new-password-for-vic")
        .unwrap();
    assert!(Team::connect(&cfg(&pg, "vic"), PASSWORD).is_err());
    let vic = Team::connect(&cfg(&pg, "vic"), "a-new-password-for-vic").unwrap();
    assert_eq!(vic.me().roles, vec![TeamRole::Viewer]);
    // A refused add (an existing member) and a refused reset: nothing logged either.
    assert!(
        admin
            .add_member("vic", TeamRole::Admin, "a-new-password-for-vic")
            .is_err()
    );
    assert!(
        admin
            .reset_member_password("nobody", "a-new-password-1")
            .is_err()
    );
    let log = sql(
        &pg,
        "alice",
        "SELECT operator || ' ' || operation || ' ' || identifiers FROM paydesk.audit_log WHERE operation LIKE 'team.member.%' ORDER BY id",
    )
    .unwrap();
    assert!(
        log.contains("alice team.member.password member=vic"),
        "{log}"
    );
    let server_log = pg.log();
    assert!(
        server_log.contains("paydesk.add_member"),
        "the server logs statements"
    );
    assert!(
        !server_log.contains("SCRAM-SHA-256$"),
        "a verifier is in the server's log"
    );
}

/// A row's operator is the database user who wrote it, whatever the writer says.
#[test]
fn the_audit_log_says_who_wrote_each_row() {
    let pg = team_db();
    refused(
        sql(
            &pg,
            "vic",
            "SELECT id FROM paydesk.audit_append(0, 'p', 'alice', 'team.approve', 'request=1', 'approved', 0)",
        ),
        "a viewer writing in alice's name",
        "the audit log's operator is the database user who writes the row (vic), not alice",
    );
    // Nor by an INSERT of their own: members write the log through the team's
    // functions only (which set the operator).
    refused(
        sql(
            &pg,
            "vic",
            "INSERT INTO paydesk.audit_log (at, profile, operator, operation, identifiers, result)
             VALUES (0, 'p', 'alice', 'note', '', '')",
        ),
        "a viewer inserting a row in alice's name",
        "permission denied",
    );
    sql(
        &pg,
        "vic",
        "SELECT id FROM paydesk.audit_append(0, 'p', 'vic', 'note', '', '', 0)",
    )
    .unwrap();
    assert_eq!(
        sql(
            &pg,
            "alice",
            "SELECT operator || ' ' || db_user FROM paydesk.audit_log WHERE operation = 'note'"
        )
        .unwrap()
        .trim(),
        "vic vic"
    );
    // A desk appends as its own database user, whatever the profile's operator is.
    let link = PgLink::connect(&cfg(&pg, "vic"), PASSWORD).unwrap();
    let (entry, _) = PgAudit::on(&link)
        .append(
            Record {
                profile: "vic-desk",
                operator: "someone else",
                operation: "query",
                identifiers: String::new(),
                result: "ok".into(),
                latency_ms: 1,
            },
            b"unused",
            None,
        )
        .unwrap();
    assert_eq!(entry.operator, "vic");
    assert_eq!(entry.db_user.as_deref(), Some("vic"));
}

/// Approves `id` as ann on a thread of its own; how long it took and what it came to.
fn approve_timed(pg: &TestPg, id: i64) -> (Duration, Result<RequestState, String>) {
    let ann = member(pg, "ann");
    let start = Instant::now();
    let r = ann.approve(id).map(|r| r.state).map_err(|e| e.to_string());
    (start.elapsed(), r)
}

/// No member stalls the team: the old advisory lock holds nobody up, the chain's head
/// is out of a member's reach, and a member who keeps a transaction open after writing
/// the log (or after sealing it) makes nobody wait: others' audited steps go through at
/// once, and their rows are chained once the holder is gone, the chain intact.
#[test]
fn no_member_stalls_the_others() {
    let pg = team_db();
    let maker = member(&pg, "mark");
    let mut ids = Vec::new();
    for (i, amount) in ["50000", "60000", "70000"].iter().enumerate() {
        ids.push(
            maker
                .request_payout(&payout_form(amount, &format!("T-LOCK-{i}")))
                .unwrap()
                .id,
        );
    }
    // Members wait for a lock 10 s at most.
    assert_eq!(sql(&pg, "vic", "SHOW lock_timeout").unwrap().trim(), "10s");
    refused(
        sql(&pg, "vic", "SELECT * FROM paydesk.audit_head FOR UPDATE"),
        "a member locking the chain's head",
        "permission denied",
    );
    // Nor writes the log but through the team's functions (an INSERT would take the
    // head in the member's own transaction).
    refused(
        sql(
            &pg,
            "vic",
            "INSERT INTO paydesk.audit_log (at, profile, operator, operation, identifiers, result, latency_ms)
             VALUES (0, 'p', 'vic', 'x', '', '', 0)",
        ),
        "a member inserting into the log",
        "permission denied",
    );
    refused(
        sql(&pg, "vic", "SELECT * FROM paydesk.audit_inbox"),
        "a member reading the inbox",
        "permission denied",
    );

    std::thread::scope(|s| {
        // The advisory key the chain once used, held by a viewer.
        let holder = s.spawn(|| {
            sql(
                &pg,
                "vic",
                "SELECT pg_advisory_lock(7261104901); SELECT pg_sleep(4);",
            )
        });
        std::thread::sleep(Duration::from_millis(700));
        let (took, r) = approve_timed(&pg, ids[0]);
        assert_eq!(r, Ok(RequestState::Approved));
        assert!(took < Duration::from_secs(3), "waited {took:?}");
        holder.join().unwrap().unwrap();
    });

    // A viewer keeps a transaction open after writing the log, then another after
    // sealing it (holding the chain's head row): an approval meanwhile waits for
    // neither.
    for (hold, id) in [
        (
            "BEGIN; SELECT id FROM paydesk.audit_append(0, 'p', 'vic', 'x', '', '', 0); SELECT pg_sleep(5); COMMIT;",
            ids[1],
        ),
        (
            "BEGIN; SELECT paydesk.audit_seal_pending(); SELECT pg_sleep(5); COMMIT;",
            ids[2],
        ),
    ] {
        std::thread::scope(|s| {
            let holder = s.spawn(|| sql(&pg, "vic", hold));
            std::thread::sleep(Duration::from_millis(700));
            let (took, r) = approve_timed(&pg, id);
            assert_eq!(r, Ok(RequestState::Approved), "{hold}");
            assert!(took < Duration::from_secs(3), "waited {took:?}: {hold}");
            holder.join().unwrap().unwrap();
        });
    }
    // The rows held back are chained by the next sealer (here, a verify); then every
    // approval is in the chain, once, with who made it, and the chain holds.
    let check = PgAudit::on(member(&pg, "ann").link().pg())
        .verify(&[], None)
        .unwrap();
    assert!(check.ok, "{check:?}");
    let approvals = owner_sql(
        &pg,
        "SELECT string_agg(operator || ' ' || identifiers, ';' ORDER BY id) FROM paydesk.audit_log WHERE operation = 'team.approve'",
    );
    let expected: Vec<String> = ids.iter().map(|id| format!("ann request={id}")).collect();
    assert_eq!(approvals.trim(), expected.join(";"));
    assert_eq!(
        owner_sql(&pg, "SELECT count(*) FROM paydesk.audit_inbox").trim(),
        "0",
        "rows left unchained"
    );
}

/// A member cannot take their session out of the team's idle bound: PostgreSQL lets a
/// role SET it (and ALTER ROLE itself SET it), so every audited step refuses a session
/// that did; the step changes nothing.
#[test]
fn a_member_cannot_turn_off_the_idle_bound() {
    let pg = team_db();
    let id = member(&pg, "mark")
        .request_payout(&payout_form("50000", "T-IDLE-1"))
        .unwrap()
        .id;
    assert_eq!(
        sql(&pg, "ann", "SHOW idle_in_transaction_session_timeout")
            .unwrap()
            .trim(),
        "1min"
    );
    for off in ["0", "'10min'"] {
        refused(
            sql(
                &pg,
                "ann",
                &format!(
                    "SET idle_in_transaction_session_timeout = {off};
                     INSERT INTO paydesk.decisions (request_id, decision) VALUES ({id}, 'approve')"
                ),
            ),
            "an approval from a session without the idle bound",
            "idle_in_transaction_session_timeout",
        );
    }
    refused(
        sql(
            &pg,
            "vic",
            "SET idle_in_transaction_session_timeout = 0;
             SELECT id FROM paydesk.audit_append(0, 'p', 'vic', 'x', '', '', 0)",
        ),
        "a log row from a session without the idle bound",
        "idle_in_transaction_session_timeout",
    );
    // The role's own default, changed by the member: every later session is refused.
    sql(
        &pg,
        "ann",
        "ALTER ROLE ann SET idle_in_transaction_session_timeout = 0",
    )
    .unwrap();
    match member(&pg, "ann").approve(id) {
        Err(e) => assert!(
            e.to_string()
                .contains("idle_in_transaction_session_timeout"),
            "{e}"
        ),
        Ok(r) => panic!(
            "approved from a session without the idle bound: {:?}",
            r.state
        ),
    }
    assert_eq!(
        member(&pg, "mark").request(id).unwrap().state,
        RequestState::Waiting
    );
    // Set back, the member approves again.
    sql(
        &pg,
        "ann",
        "ALTER ROLE ann SET idle_in_transaction_session_timeout = '60s'",
    )
    .unwrap();
    assert_eq!(
        member(&pg, "ann").approve(id).unwrap().state,
        RequestState::Approved
    );
}

/// A member who took a step and keeps the transaction busy (a statement running, their
/// idle bound turned off) for less than 20 s is not ended: a busy session may be the
/// signer's worker or a large bulk request (see team_review_fixes.rs for the idle
/// holder, and for one busy longer, which are ended). Another member's step on the same
/// request waits for it, then finds what it committed (the request approved already)
/// and changes nothing, saying so; the busy one's step commits.
#[test]
fn a_member_who_holds_a_request_busy_is_not_ended() {
    let pg = team_db();
    let id = member(&pg, "mark")
        .request_payout(&payout_form("50000", "T-HOLD-1"))
        .unwrap()
        .id;
    std::thread::scope(|s| {
        let holder = s.spawn(|| {
            sql(
                &pg,
                "abe",
                &format!(
                    "BEGIN;
                     INSERT INTO paydesk.decisions (request_id, decision) VALUES ({id}, 'approve');
                     SET idle_in_transaction_session_timeout = 0;
                     SELECT pg_sleep(14);
                     COMMIT;"
                ),
            )
        });
        std::thread::sleep(Duration::from_millis(700));
        let (took, r) = approve_timed(&pg, id);
        let e = r.unwrap_err();
        assert!(e.contains("not waiting for approval"), "{e}");
        assert!(took < Duration::from_secs(20), "waited {took:?}");
        holder.join().unwrap().unwrap();
    });
    assert_eq!(
        owner_sql(
            &pg,
            &format!(
                "SELECT string_agg(member, ',') FROM paydesk.decisions WHERE request_id = {id}"
            )
        )
        .trim(),
        "abe"
    );
    let ended = owner_sql(
        &pg,
        "SELECT count(*) FROM paydesk.audit_log WHERE operation = 'team.stall.end'",
    );
    assert_eq!(ended.trim(), "0");
}
