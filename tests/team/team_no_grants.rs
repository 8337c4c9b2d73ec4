//! Issue 30, item 7, on a team whose owner holds neither `pg_signal_backend` nor
//! `pg_read_all_stats` (PostgreSQL 16 and later when no superuser granted them; on 15
//! the owner takes them itself at `team init`, so these tests take them away again as
//! the superuser). The owner can then neither end another role's session nor see what
//! it is doing. What a member relies on: nobody is ended that the owner may not end or
//! cannot see idle (a session whose state is hidden counts as busy); a decision held up
//! by another member waits its bound and fails changing nothing, naming the grant a
//! superuser gives; no step fails with "permission denied to terminate process". With
//! the grants, the tests in team_attacks.rs and team_review_fixes.rs hold (some of
//! them on 16 as well: `TEAM_ON_PG16`).

#![allow(clippy::unwrap_used)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use paydesk_store_pg::{PgLink, owner_stall_grants_missing};
use paydesk_team::{RequestState, TeamRole};
use paydesk_testpg::{Options, TestPg};

use common::team::{CLABE, DB, PASSWORD, cfg, member, owner_sql};

/// The bound (seconds) the approver's own session gives its wait for a held request
/// row here (30 s unless a session shortens its own).
const WAIT: u64 = 8;

/// Admin alice, maker mark, approvers ann and abe, viewer vic, signer sam; MXN payouts
/// above 10,000 need one approval. The superuser never granted the owner anything;
/// `keep` lists the roles it grants after all (to try one missing alone).
fn team_without_grants(keep: &[&str]) -> TestPg {
    let pg = common::team::team_db_of(
        Options::default().without_owner_grants(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("abe", TeamRole::Approver),
            ("vic", TeamRole::Viewer),
            ("sam", TeamRole::Signer),
        ],
        "10000",
    );
    // On 15 the owner granted them to itself at `team init`: taken back by the
    // superuser (on 16 and later there is nothing to take back).
    pg.psql_super(
        "postgres",
        &format!(
            "REVOKE pg_signal_backend, pg_read_all_stats FROM {}",
            pg.owner()
        ),
    )
    .unwrap();
    for role in keep {
        pg.psql_super("postgres", &format!("GRANT {role} TO {}", pg.owner()))
            .unwrap();
    }
    // The approver's own steps wait 8 s for a held request, not 30.
    pg.psql_super(
        DB,
        &format!("ALTER ROLE ann SET paydesk.request_wait_seconds = {WAIT}"),
    )
    .unwrap();
    pg
}

fn sql(pg: &TestPg, user: &str, q: &str) -> Result<String, String> {
    pg.psql_as(user, PASSWORD, DB, q)
}

fn payout(pg: &TestPg, amount: &str, no: &str) -> i64 {
    let mut form = paydesk_core::forms::PayoutForm::new(
        paydesk_core::forms::PayoutKind::Clabe,
        no,
        amount,
        "MXN",
    );
    form.clabe = CLABE.into();
    member(pg, "mark").request_payout(&form).unwrap().id
}

/// The members whose decisions on request `id` are recorded, ','-separated.
fn deciders(pg: &TestPg, id: i64) -> String {
    owner_sql(
        pg,
        &format!(
            "SELECT coalesce(string_agg(member, ',' ORDER BY decided_at, member), '') FROM paydesk.decisions WHERE request_id = {id}"
        ),
    )
}

/// Every `team.stall.end` row of the log, chained or still in the inbox.
fn stalls_ended(pg: &TestPg) -> String {
    owner_sql(
        pg,
        "SELECT count(*) FROM (
             SELECT 1 FROM paydesk.audit_log WHERE operation = 'team.stall.end'
             UNION ALL
             SELECT 1 FROM paydesk.audit_inbox WHERE operation = 'team.stall.end') x",
    )
}

/// The approver ann's decision through her desk (the real client): how long it took
/// and what it said.
fn approve_timed(pg: &TestPg, id: i64) -> (Duration, Result<RequestState, String>) {
    let ann = member(pg, "ann");
    let start = Instant::now();
    let r = ann.approve(id).map(|r| r.state).map_err(|e| e.to_string());
    (start.elapsed(), r)
}

/// The refusal names the grant(s) the owner lacks, and the statement a superuser runs.
fn names_the_grant(e: &str, missing: &str) {
    assert!(e.contains("may not end it"), "{e}");
    assert!(
        e.contains(&format!("GRANT {missing} TO team_owner")),
        "not naming GRANT {missing}: {e}"
    );
    assert!(e.contains("nothing was changed"), "{e}");
    assert!(!e.contains("permission denied"), "{e}");
}

/// A member's psql left open: the statements run, then the session idles (no
/// statement running) until the test drops it.
struct IdleSession {
    child: Child,
    stdin: ChildStdin,
    _out: std::io::Lines<BufReader<ChildStdout>>,
    pid: i32,
}

impl IdleSession {
    fn open(pg: &TestPg, user: &str, statements: &str) -> IdleSession {
        let psql = pg.bin_dir().join("psql");
        let mut child = Command::new(if psql.is_file() { psql } else { "psql".into() })
            .env("PGPASSWORD", PASSWORD)
            .env_remove("PGSERVICE")
            .env_remove("PGOPTIONS")
            .args(["-X", "-q", "-At", "-v", "ON_ERROR_STOP=1"])
            .args(["-h", pg.host(), "-p", &pg.port().to_string(), "-U", user])
            .args(["-d", DB])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{statements}\nSELECT 'ready ' || pg_backend_pid();").unwrap();
        stdin.flush().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let pid = loop {
            let line = lines
                .next()
                .unwrap_or_else(|| panic!("{user}'s session ended before it idled"))
                .unwrap();
            if let Some(pid) = line.strip_prefix("ready ") {
                break pid.parse().unwrap();
            }
        };
        IdleSession {
            child,
            stdin,
            _out: lines,
            pid,
        }
    }

    /// Whether the server still serves this session (the superuser sees every one).
    fn alive(&self, pg: &TestPg) -> bool {
        pg.psql_super(
            DB,
            &format!(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = {}",
                self.pid
            ),
        )
        .unwrap()
        .trim()
            == "1"
    }
}

impl Drop for IdleSession {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "\\q");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the set-up says: on 16 and later without the superuser's grant, `team init`'s
/// check names both roles (the owner cannot take them); on 15 the owner takes them
/// itself, so nothing is missing. The team's own function says the same as the owner.
#[test]
fn team_init_says_which_grants_the_owner_lacks() {
    let pg = team_without_grants(&[]);
    assert_eq!(
        owner_sql(&pg, "SELECT paydesk.stall_grants_missing()"),
        "pg_signal_backend, pg_read_all_stats"
    );
    let owner = PgLink::connect(&cfg(&pg, pg.owner()), pg.owner_password()).unwrap();
    let missing = owner_stall_grants_missing(&owner).unwrap();
    if pg.server_version_num() >= 160_000 {
        assert_eq!(missing, ["pg_signal_backend", "pg_read_all_stats"]);
    } else {
        assert!(missing.is_empty(), "15: the owner takes them: {missing:?}");
        assert_eq!(owner_sql(&pg, "SELECT paydesk.stall_grants_missing()"), "");
    }
}

/// (a) A member holds a request busy (a statement running in the transaction of their
/// own approval, their idle bound off). The owner can neither see nor end their
/// session: the other approver's decision waits its bound, then fails naming the grant
/// and changing nothing; the busy member is not ended and their approval commits.
#[test]
fn without_the_grants_a_busy_holder_is_waited_for_and_the_step_fails_naming_them() {
    let pg = team_without_grants(&[]);
    let id = payout(&pg, "50000", "T-NG-BUSY");
    std::thread::scope(|s| {
        let holder = s.spawn(|| {
            sql(
                &pg,
                "abe",
                &format!(
                    "BEGIN;
                     INSERT INTO paydesk.decisions (request_id, decision) VALUES ({id}, 'approve');
                     SET idle_in_transaction_session_timeout = 0;
                     SELECT pg_sleep({});
                     COMMIT;",
                    WAIT + 8
                ),
            )
        });
        std::thread::sleep(Duration::from_millis(700));
        let (took, r) = approve_timed(&pg, id);
        let e = r.unwrap_err();
        names_the_grant(&e, "pg_signal_backend, pg_read_all_stats");
        assert!(took >= Duration::from_secs(WAIT), "gave up after {took:?}");
        assert!(took < Duration::from_secs(WAIT + 6), "waited {took:?}");
        // Nothing of ann's was recorded while abe still held it.
        assert_eq!(deciders(&pg, id), "");
        holder.join().unwrap().unwrap();
    });
    assert_eq!(deciders(&pg, id), "abe");
    assert_eq!(
        member(&pg, "vic").request(id).unwrap().state,
        RequestState::Approved
    );
    assert_eq!(stalls_ended(&pg), "0");
}

/// (b) A member holds a request and idles in the transaction. Without
/// `pg_signal_backend` the owner may not end it, whether it sees the session idle
/// (granted `pg_read_all_stats` alone) or not at all: the decision fails after its
/// bound naming what is missing, changing nothing, and the idle member lives on. Once
/// they are gone, the decision goes through.
#[test]
fn without_the_right_to_end_an_idle_holder_is_not_ended_and_the_step_fails_naming_it() {
    for (keep, missing) in [
        (&[][..], "pg_signal_backend, pg_read_all_stats"),
        (&["pg_read_all_stats"][..], "pg_signal_backend"),
    ] {
        let pg = team_without_grants(keep);
        assert_eq!(
            owner_sql(&pg, "SELECT paydesk.stall_grants_missing()"),
            missing
        );
        let id = payout(&pg, "50000", "T-NG-IDLE");
        let holder = IdleSession::open(
            &pg,
            "abe",
            &format!(
                "BEGIN;
                 INSERT INTO paydesk.decisions (request_id, decision) VALUES ({id}, 'approve');"
            ),
        );
        let (took, r) = approve_timed(&pg, id);
        let e = r.unwrap_err();
        names_the_grant(&e, missing);
        assert!(took >= Duration::from_secs(WAIT), "gave up after {took:?}");
        assert!(took < Duration::from_secs(WAIT + 6), "waited {took:?}");
        assert!(holder.alive(&pg), "{missing}: the idle holder was ended");
        assert_eq!(deciders(&pg, id), "");
        assert_eq!(stalls_ended(&pg), "0");
        // The holder gone (their transaction undone), the approver's step goes through.
        drop(holder);
        let deadline = Instant::now() + Duration::from_secs(10);
        let state = loop {
            match member(&pg, "ann").approve(id) {
                Ok(r) => break r.state,
                Err(e) if Instant::now() < deadline => {
                    assert!(e.to_string().contains("held it"), "{e}");
                }
                Err(e) => panic!("{e}"),
            }
        };
        assert_eq!(state, RequestState::Approved);
        assert_eq!(deciders(&pg, id), "ann");
    }
}

/// A member's call to end stalls, with an idle member holding what another waits for,
/// the owner seeing it idle but without the right to end it: nothing is ended and the
/// call succeeds (0, not "permission denied to terminate process"); the waiter gives
/// up after its own lock bound.
#[test]
fn end_stalls_without_the_right_to_end_leaves_the_idle_holder() {
    let pg = team_without_grants(&["pg_read_all_stats"]);
    let key = 4545;
    let holder = IdleSession::open(&pg, "abe", &format!("SELECT pg_advisory_lock({key});"));
    std::thread::scope(|s| {
        let waiter = s.spawn(|| {
            sql(
                &pg,
                "ann",
                &format!("SET lock_timeout = '12s'; SELECT pg_advisory_lock({key});"),
            )
        });
        // Once the superuser sees the approver waiting on the lock for 5.5 s.
        let deadline = Instant::now() + Duration::from_secs(11);
        while pg
            .psql_super(
                DB,
                "SELECT count(*) FROM pg_stat_activity WHERE usename = 'ann'
                    AND wait_event_type = 'Lock' AND query_start < now() - interval '5.5 s'",
            )
            .unwrap()
            .trim()
            != "1"
        {
            assert!(Instant::now() < deadline, "the approver never waited 5 s");
            std::thread::sleep(Duration::from_millis(200));
        }
        assert_eq!(
            sql(&pg, "vic", "SELECT paydesk.end_stalls()")
                .unwrap()
                .trim(),
            "0"
        );
        let e = waiter.join().unwrap().unwrap_err();
        assert!(e.contains("lock timeout"), "{e}");
    });
    assert!(holder.alive(&pg), "the idle holder was ended");
    assert_eq!(stalls_ended(&pg), "0");
}

/// A step's wait for a held request is 30 s; a session may shorten its own (whole
/// seconds, at least 1), never lengthen it; a value that is no number is refused,
/// naming the setting.
#[test]
fn a_session_shortens_its_own_wait_never_lengthens_it() {
    let pg = team_without_grants(&[]);
    for (set, bound) in [
        ("", "30"),
        ("SET paydesk.request_wait_seconds = '12';", "12"),
        ("SET paydesk.request_wait_seconds = '600';", "30"),
        ("SET paydesk.request_wait_seconds = '0';", "1"),
        ("SET paydesk.request_wait_seconds = '-5';", "1"),
        ("SET paydesk.request_wait_seconds = 'Infinity';", "30"),
        ("SET paydesk.request_wait_seconds = 'NaN';", "30"),
    ] {
        assert_eq!(
            sql(
                &pg,
                "vic",
                &format!("{set} SELECT paydesk.request_wait_bound()")
            )
            .unwrap()
            .trim(),
            bound,
            "{set}"
        );
    }
    let e = sql(
        &pg,
        "vic",
        "SET paydesk.request_wait_seconds = 'soon'; SELECT paydesk.request_wait_bound()",
    )
    .unwrap_err();
    assert!(e.contains("paydesk.request_wait_seconds"), "{e}");
}

/// The signer's desk's own lock (`advisory_xact_lock`: the merchant's order cache, a
/// journal number) is a row lock only the team's function takes (0022, review r4 F6):
/// a viewer who takes the advisory lock of the same key and idles, with no right of the
/// owner to end it, no longer holds up the signer's step, and is left alone.
#[test]
fn without_the_right_to_end_a_viewers_advisory_lock_no_longer_holds_up_the_signer() {
    let pg = team_without_grants(&[]);
    let key = 4646;
    let holder = IdleSession::open(&pg, "vic", &format!("SELECT pg_advisory_lock({key});"));
    let start = Instant::now();
    sql(
        &pg,
        "sam",
        &format!("BEGIN; SELECT paydesk.advisory_xact_lock({key}); COMMIT;"),
    )
    .unwrap();
    let took = start.elapsed();
    assert!(took < Duration::from_secs(3), "waited {took:?}");
    assert!(holder.alive(&pg), "the viewer's session was ended");
    assert_eq!(stalls_ended(&pg), "0");
}
