//! Issue 30, a hostile review of the team's rules: each flaw attacked as the member who
//! found it would, with plain SQL (psql, their own password), on a team owned by a role
//! that is not a superuser. What a member relies on: ending stalls ends only an idle
//! session that holds what another member waits for, never a busy one (the signer's
//! worker, a large bulk request); an idle viewer's advisory lock does not stall the
//! signer; an admin neither changes their own roles nor the key makers seal to.

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_store_pg::AsPgLink;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use paydesk_core::store::orders::{MadeOrder, OrderKind, OrderStore};
use paydesk_core::store::prelude::AuditStore;
use paydesk_store_pg::orders::PgOrders;
use paydesk_team::{RequestState, TeamRole};
use paydesk_testpg::{Options, TestPg};
use sha2::{Digest, Sha256};

use common::team::{CLABE, DB, PASSWORD, member, owner_sql};

/// Admin alice, maker mark, approvers ann and abe, viewer vic, signer sam; a second
/// admin, ada; MXN payouts above 10,000 need one approval.
fn team_db() -> TestPg {
    common::team::team_db_of(
        Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("abe", TeamRole::Approver),
            ("vic", TeamRole::Viewer),
            ("sam", TeamRole::Signer),
            ("ada", TeamRole::Admin),
        ],
        "10000",
    )
}

fn sql(pg: &TestPg, user: &str, q: &str) -> Result<String, String> {
    pg.psql_as(user, PASSWORD, DB, q)
}

/// The database refused, saying `needle` (in any case: PostgreSQL 15 says "must have
/// admin option", 16 "Only roles with the ADMIN option").
fn refused(r: Result<String, String>, what: &str, needle: &str) {
    match r {
        Ok(out) => panic!("{what}: the database allowed it ({out})"),
        Err(e) => assert!(
            e.to_lowercase().contains(&needle.to_lowercase()),
            "{what}: refused, but not for {needle:?}: {e}"
        ),
    }
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

/// A member's psql left open: the statements run, then the session idles (no
/// statement running) until the test drops it.
struct IdleSession {
    child: Child,
    stdin: ChildStdin,
    /// Kept open: psql's later answers go to the pipe, unread.
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
            .args([
                "-h",
                pg.host(),
                "-p",
                &pg.port().to_string(),
                "-U",
                user,
                "-d",
            ])
            .arg(DB)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{statements}\nSELECT 'ready ' || pg_backend_pid();").unwrap();
        stdin.flush().unwrap();
        let out: ChildStdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(out).lines();
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

    /// Runs one more statement in the session (its answer unread), then idles again.
    fn run(&mut self, statement: &str) {
        writeln!(self.stdin, "{statement}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Whether the server still serves this session.
    fn alive(&self, pg: &TestPg) -> bool {
        owner_sql(
            pg,
            &format!(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = {}",
                self.pid
            ),
        ) == "1"
    }
}

impl Drop for IdleSession {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The advisory key of the merchant's order cache, as every desk computes it: the
/// first 8 bytes of SHA-256("paydesk.orders" 0x1f merchant number), big-endian.
fn orders_key(mer_no: u64) -> i64 {
    let digest = Sha256::digest(format!("paydesk.orders\x1f{mer_no}").as_bytes());
    i64::from_be_bytes(digest[..8].try_into().unwrap())
}

/// `what` of the team's log rows `cond` holds for, oldest first, ';'-separated: those
/// chained and those still in the inbox (committed, chained by the next sealer, which
/// skips while another session seals).
fn log_rows(pg: &TestPg, what: &str, cond: &str) -> String {
    owner_sql(
        pg,
        &format!(
            "SELECT coalesce(string_agg(w, ';' ORDER BY g, k), '') FROM (
                 SELECT 0 AS g, id AS k, {what} AS w FROM paydesk.audit_log WHERE {cond}
                 UNION ALL
                 SELECT 1, n, {what} FROM paydesk.audit_inbox WHERE {cond}) x"
        ),
    )
}

fn stalls_ended(pg: &TestPg) -> String {
    log_rows(
        pg,
        "operator || ' ' || identifiers",
        "operation = 'team.stall.end'",
    )
}

/// F2: a member busy writing (a statement running, its transaction open 12 s and
/// holding a row another member waits for) is not ended by a viewer's call, nor by the
/// signer's worker's: its work commits.
#[test]
fn end_stalls_never_ends_a_busy_writer() {
    let pg = team_db();
    let id = payout(&pg, "50000", "T-BUSY-1");
    std::thread::scope(|s| {
        let writer = s.spawn(|| {
            sql(
                &pg,
                "abe",
                &format!(
                    "BEGIN;
                     INSERT INTO paydesk.decisions (request_id, decision) VALUES ({id}, 'approve');
                     SELECT pg_sleep(15);
                     COMMIT;"
                ),
            )
        });
        std::thread::sleep(Duration::from_secs(3));
        // Another member's step waits on the writer's row meanwhile.
        let waiter = s.spawn(|| {
            sql(
                &pg,
                "ann",
                &format!(
                    "INSERT INTO paydesk.decisions (request_id, decision) VALUES ({id}, 'approve')"
                ),
            )
        });
        std::thread::sleep(Duration::from_secs(9));
        for who in ["vic", "sam"] {
            assert_eq!(
                sql(&pg, who, "SELECT paydesk.end_stalls()").unwrap().trim(),
                "0",
                "{who} ended a busy writer"
            );
        }
        writer.join().unwrap().unwrap();
        let _ = waiter.join().unwrap();
    });
    // The busy writer's approval committed (the waiter's fate is its own timing's).
    assert_eq!(
        owner_sql(
            &pg,
            &format!(
                "SELECT count(*) FROM paydesk.decisions WHERE request_id = {id} AND member = 'abe'"
            )
        ),
        "1"
    );
    assert_eq!(
        member(&pg, "vic").request(id).unwrap().state,
        RequestState::Approved
    );
    assert_eq!(stalls_ended(&pg), "");
}

/// F2: a member who took a step, turned their idle bound off and then idles in the
/// transaction (running a statement every few seconds to look busy) is ended once
/// another member's audited step waited 5 s for them (by the waiting step itself, or
/// at the viewer's call; the signer's worker calls at each round): the waiting approval
/// goes through, the idle
/// one's step is undone, and the log says who was ended.
#[test]
fn end_stalls_ends_an_idle_blocker_of_another_members_step() {
    let pg = team_db();
    let id = payout(&pg, "50000", "T-IDLE-1");
    let mut holder = IdleSession::open(
        &pg,
        "abe",
        &format!(
            "BEGIN;
             INSERT INTO paydesk.decisions (request_id, decision) VALUES ({id}, 'approve');
             SET idle_in_transaction_session_timeout = 0;"
        ),
    );
    std::thread::scope(|s| {
        let approval = s.spawn(|| {
            let start = Instant::now();
            let r = member(&pg, "ann").approve(id).map(|r| r.state);
            (start.elapsed(), r)
        });
        for _ in 0..3 {
            std::thread::sleep(Duration::from_secs(2));
            holder.run("SELECT 1;");
        }
        std::thread::sleep(Duration::from_millis(400));
        // The viewer's call ends it, unless the waiting step's own wait (5 s, then the
        // same rules) already did.
        let by_vic = sql(&pg, "vic", "SELECT paydesk.end_stalls()").unwrap();
        assert!(["0", "1"].contains(&by_vic.trim()), "{by_vic}");
        let (took, r) = approval.join().unwrap();
        assert_eq!(r.unwrap(), RequestState::Approved);
        assert!(took < Duration::from_secs(10), "waited {took:?}");
    });
    assert!(!holder.alive(&pg), "the idle holder lived on");
    assert_eq!(
        owner_sql(
            &pg,
            &format!(
                "SELECT string_agg(member, ',') FROM paydesk.decisions WHERE request_id = {id}"
            )
        ),
        "ann"
    );
    let ended = stalls_ended(&pg);
    assert!(
        ["vic member=abe", "ann member=abe"].contains(&ended.as_str()),
        "{ended}"
    );
}

/// F2: a member cannot end another's session by waiting on it themselves: the viewer
/// waits 7 s on a lock the signer's idle session holds, then calls `end_stalls` from a
/// second session; the signer's session lives on.
#[test]
fn end_stalls_ignores_the_callers_own_waiter() {
    let pg = team_db();
    let key = 4242;
    let signer = IdleSession::open(
        &pg,
        "sam",
        &format!("BEGIN; SELECT pg_advisory_xact_lock({key});"),
    );
    std::thread::scope(|s| {
        let waiter = s.spawn(|| {
            sql(
                &pg,
                "vic",
                &format!("SET lock_timeout = '12s'; SELECT pg_advisory_lock({key});"),
            )
        });
        std::thread::sleep(Duration::from_secs(7));
        assert_eq!(
            sql(&pg, "vic", "SELECT paydesk.end_stalls()")
                .unwrap()
                .trim(),
            "0"
        );
        assert!(waiter.join().unwrap().is_err(), "the viewer got the lock");
    });
    assert!(signer.alive(&pg), "the signer's session was ended");
    assert_eq!(stalls_ended(&pg), "");
}

/// F1: a viewer holds the merchant's order cache with a session-level advisory lock
/// (its key is computable) and idles, outside any transaction. The signer's next
/// record of a made order goes through within bounded time: since 0022 (review r4 F6)
/// the desk's lock is a row lock only the team's function takes, so the viewer's
/// advisory lock holds up nothing and is left alone.
#[test]
fn a_viewers_idle_advisory_lock_does_not_stall_the_signer() {
    let pg = team_db();
    let mer = common::MER;
    let viewer = IdleSession::open(
        &pg,
        "vic",
        &format!("SELECT pg_advisory_lock({});", orders_key(mer)),
    );
    std::thread::sleep(Duration::from_secs(1));
    let sam = member(&pg, "sam");
    let start = Instant::now();
    let recorded = PgOrders::on(sam.link().pg(), mer as i64).record_made(
        mer,
        &MadeOrder {
            trade_no: "T-F1-1".into(),
            mer_order_no: "M-F1-1".into(),
            kind: OrderKind::Payout,
            method: String::new(),
            currency: "MXN".into(),
            amount: "1250.00".parse().unwrap(),
            state: Some(2),
            made_at: 1,
        },
    );
    let took = start.elapsed();
    assert!(recorded.unwrap(), "the made order was not recorded");
    assert!(took < Duration::from_secs(10), "waited {took:?}");
    assert!(viewer.alive(&pg), "the viewer's harmless session was ended");
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT count(*) FROM paydesk.orders WHERE trade_no = 'T-F1-1'"
        ),
        "1"
    );
    assert_eq!(stalls_ended(&pg), "");
    // The signer's next record waits for nobody.
    let start = Instant::now();
    PgOrders::on(sam.link().pg(), mer as i64)
        .record_made(
            mer,
            &MadeOrder {
                trade_no: "T-F1-2".into(),
                mer_order_no: "M-F1-2".into(),
                kind: OrderKind::Payout,
                method: String::new(),
                currency: "MXN".into(),
                amount: "10".parse().unwrap(),
                state: Some(2),
                made_at: 2,
            },
        )
        .unwrap();
    assert!(start.elapsed() < Duration::from_secs(2));
    drop(viewer);
    // Kept busy instead (a statement running), the viewer's hold holds up nothing
    // either, and the viewer's statement runs to its end.
    std::thread::scope(|s| {
        let busy = s.spawn(|| {
            sql(
                &pg,
                "vic",
                &format!(
                    "SELECT pg_advisory_lock({}); SELECT pg_sleep(3);",
                    orders_key(mer)
                ),
            )
        });
        std::thread::sleep(Duration::from_secs(1));
        let start = Instant::now();
        PgOrders::on(sam.link().pg(), mer as i64)
            .record_made(
                mer,
                &MadeOrder {
                    trade_no: "T-F1-3".into(),
                    mer_order_no: "M-F1-3".into(),
                    kind: OrderKind::Payout,
                    method: String::new(),
                    currency: "MXN".into(),
                    amount: "11".parse().unwrap(),
                    state: Some(2),
                    made_at: 3,
                },
            )
            .unwrap();
        assert!(start.elapsed() < Duration::from_secs(2));
        busy.join().unwrap().unwrap();
    });
    assert_eq!(stalls_ended(&pg), "");
    // Nor may a viewer take the signer's lock function to end others.
    refused(
        sql(&pg, "vic", "SELECT paydesk.advisory_xact_lock(1)"),
        "a viewer taking the signer's lock function",
        "permission denied",
    );
}

/// F4: an admin does not make themselves signer, and no signer (an admin's own member
/// included) replaces the key makers seal card numbers and tax ids to; the owner does.
#[test]
fn an_admin_changes_neither_their_own_roles_nor_the_seal_key() {
    let pg = team_db();
    refused(
        sql(
            &pg,
            "alice",
            "SELECT paydesk.set_member_roles('alice', ARRAY['admin', 'signer'])",
        ),
        "an admin changing their own roles",
        "does not change their own roles",
    );
    assert!(
        member(&pg, "alice")
            .set_member_roles("alice", &[TeamRole::Admin, TeamRole::Signer])
            .is_err()
    );
    // Nor around the function, with plain SQL.
    for (attempt, says) in [
        ("GRANT paydesk_signer TO alice", "admin option"),
        ("ALTER ROLE alice CREATEROLE", "permission denied"),
        (
            "SELECT paydesk.set_member_group_roles('alice', ARRAY['admin', 'signer'])",
            "permission denied",
        ),
    ] {
        refused(sql(&pg, "alice", attempt), attempt, says);
    }
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT pg_has_role('alice', 'paydesk_signer', 'MEMBER')"
        ),
        "f"
    );
    // The signer's desk publishes the merchant's key; the same again is fine.
    let merchant = "A".repeat(60);
    let attacker = "B".repeat(60);
    sql(
        &pg,
        "sam",
        &format!("SELECT paydesk.publish_seal_key('{merchant}')"),
    )
    .unwrap();
    sql(
        &pg,
        "sam",
        &format!("SELECT paydesk.publish_seal_key('{merchant}')"),
    )
    .unwrap();
    // Another admin makes alice signer (allowed); alice's own key is refused.
    sql(
        &pg,
        "ada",
        "SELECT paydesk.set_member_roles('alice', ARRAY['admin', 'signer'])",
    )
    .unwrap();
    refused(
        sql(
            &pg,
            "alice",
            &format!("SELECT paydesk.publish_seal_key('{attacker}')"),
        ),
        "a new signer replacing the seal key",
        "replaced by the database's owner only",
    );
    refused(
        sql(
            &pg,
            "alice",
            &format!("SELECT paydesk.replace_seal_key('{attacker}')"),
        ),
        "an admin calling the owner's replacement",
        "permission denied",
    );
    assert_eq!(
        owner_sql(&pg, "SELECT spki FROM paydesk.seal_key"),
        merchant
    );
    // The owner puts a rotated key in place, audited.
    owner_sql(
        &pg,
        &format!("SELECT paydesk.replace_seal_key('{attacker}')"),
    );
    assert_eq!(
        owner_sql(&pg, "SELECT spki FROM paydesk.seal_key"),
        attacker
    );
    assert_eq!(
        log_rows(&pg, "result", "operation = 'team.seal_key'"),
        "published;replaced by the owner"
    );
}

/// F3 and F9: a member's log row is bounded and is theirs: an endless identifier or
/// result, a row posing as the team's own (profile `team`, operation `team.*`) are
/// refused; a backdated time is replaced by the server's. A flooded inbox makes another
/// member's step chain 500 rows at most; a desk's long text is cut, saying so.
#[test]
fn a_members_log_rows_are_bounded_and_never_the_teams() {
    let pg = team_db();
    let append = |profile: &str, operation: &str, identifiers: &str| {
        sql(
            &pg,
            "vic",
            &format!(
                "SELECT id FROM paydesk.audit_append(0, '{profile}', 'vic', '{operation}', '{identifiers}', 'ok', 0)"
            ),
        )
    };
    refused(
        append("vic-desk", "query", &"x".repeat(2001)),
        "an identifier of 2,001 characters",
        "identifiers: at most 2,000 characters",
    );
    refused(
        sql(
            &pg,
            "vic",
            &format!(
                "SELECT id FROM paydesk.audit_append(0, 'p', 'vic', 'query', '', '{}', 0)",
                "y".repeat(5000)
            ),
        ),
        "a result of 5,000 characters",
        "result: at most 2,000 characters",
    );
    refused(
        append("team", "query", ""),
        "a row in the team's profile",
        "profile: team is the team's own rows",
    );
    refused(
        append("vic-desk", "team.approve", "request=1"),
        "a row posing as a team step",
        "operation: team.* are the team's own steps",
    );
    refused(
        append("vic-desk", "TEAM.member.add", ""),
        "a row posing as a team step, in capitals",
        "operation: team.*",
    );
    // At 2,000 characters, backdated to 1970: kept, at the server's time.
    let before_ms = chrono::Utc::now().timestamp_millis() - 60_000;
    append("vic-desk", "query", &"z".repeat(2000)).unwrap();
    let at: i64 = log_rows(&pg, "at::text", "operation = 'query'")
        .parse()
        .unwrap();
    assert!(at > before_ms, "the row kept the caller's time: {at}");

    // A flood of 1,200 rows in the inbox (as a member could have left it): another
    // member's step chains 500 of them, oldest first.
    owner_sql(
        &pg,
        "INSERT INTO paydesk.audit_inbox (at, profile, operator, operation, identifiers, result, db_user)
         SELECT 1, 'flood', 'vic', 'flood', g::text, 'ok', 'vic' FROM generate_series(1, 1200) g",
    );
    let id = payout(&pg, "50000", "T-FLOOD-1");
    assert!(id > 0);
    assert_eq!(
        owner_sql(&pg, "SELECT count(*) FROM paydesk.audit_inbox"),
        (1200 + 1 - 500).to_string(),
        "one step chained other than 500 rows"
    );

    // A desk's own long text is cut to the bound, saying so, never refused.
    let link = paydesk_store_pg::PgLink::connect(&common::team::cfg(&pg, "vic"), PASSWORD).unwrap();
    paydesk_store_pg::audit::PgAudit::on(&link)
        .append(
            paydesk_core::audit::Record {
                profile: "team",
                operator: "vic",
                operation: "export",
                identifiers: "w".repeat(3000),
                result: "ok".into(),
                latency_ms: 1,
            },
            b"unused",
            None,
        )
        .unwrap();
    let row = owner_sql(
        &pg,
        "SELECT profile || ' ' || length(identifiers) || ' ' || right(identifiers, 5)
           FROM paydesk.audit_inbox WHERE operation = 'export'
         UNION ALL
         SELECT profile || ' ' || length(identifiers) || ' ' || right(identifiers, 5)
           FROM paydesk.audit_log WHERE operation = 'export'",
    );
    assert_eq!(row, "team (desk) 2000 (cut)");
}

/// F1, the journal's side: a viewer holds the advisory lock of a payout number the
/// signer is about to send (its key is computable from the number) and idles. The
/// signer's journal entry for it is still made, within bounded time.
#[test]
fn a_viewers_idle_lock_on_a_journal_number_does_not_stall_the_signer() {
    use paydesk_core::journal::{Begin, Guard, Intent, fingerprint};
    use paydesk_core::store::prelude::JournalStore;
    use paydesk_store_pg::journal::PgJournal;
    let pg = team_db();
    let mer = common::MER;
    let no = "T-F1-J-1";
    let digest = Sha256::digest(format!("paydesk.journal.number\x1f{mer}\x1f{no}").as_bytes());
    let key = i64::from_be_bytes(digest[..8].try_into().unwrap());
    let viewer = IdleSession::open(&pg, "vic", &format!("SELECT pg_advisory_lock({key});"));
    // A row of an approved request sam's worker executes (a signer journals a payout
    // only so, 0039).
    common::team::executing_row(&pg, "mark", "ann", "sam", no, "10.00");
    let sam = member(&pg, "sam");
    let body = serde_json::json!({"currencyCode": "MXN", "sourceAmount": "10.00", "clabe": CLABE});
    let fp = fingerprint(b"0123456789abcdef0123456789abcdef", "v2.payout", &body);
    let start = Instant::now();
    let begun = PgJournal::on(sam.link().pg(), mer as i64).begin(
        "sam-desk",
        Intent {
            operation: "v2.payout",
            mer_order_no: no,
            request: &body,
            summary: "payout 10.00 MXN",
            fingerprint: &fp,
            purpose: None,
        },
        Guard {
            window_ms: 3_600_000,
            allow_duplicate: false,
        },
    );
    let took = start.elapsed();
    assert!(matches!(begun.unwrap(), Begin::Send(..)));
    assert!(took < Duration::from_secs(10), "waited {took:?}");
    // Since 0022 (review r4 F6) the viewer's advisory lock holds up nothing.
    assert!(viewer.alive(&pg), "the viewer's harmless session was ended");
    assert_eq!(stalls_ended(&pg), "");
}

/// F4, the maker's side: a maker's desk seals nothing before its member trusts a key
/// (the fingerprint they were given checked against the database's); when the key in
/// the team's database is another later (put there by whoever owns the database), the
/// desk refuses to seal a PIX payer's tax id, naming the field and saying nothing was
/// sealed, until the member trusts the new key.
#[test]
fn a_makers_desk_refuses_to_seal_to_a_key_that_changed() {
    use base64::Engine as _;
    use paydesk_core::forms::{PayinForm, PayinMethod};
    use paydesk_core::secrets::{MemoryStore, Secrets};
    use paydesk_gateway::keys::PrivateKey;
    let pg = team_db();
    let b64 = |der: &[u8]| base64::engine::general_purpose::STANDARD.encode(der);
    let merchant = PrivateKey::generate(2048).unwrap().public_key();
    let other = PrivateKey::generate(2048).unwrap().public_key();
    sql(
        &pg,
        "sam",
        &format!(
            "SELECT paydesk.publish_seal_key('{}')",
            b64(merchant.spki_der())
        ),
    )
    .unwrap();
    let secrets = Secrets::new(std::sync::Arc::new(MemoryStore::default()));
    let maker = || member(&pg, "mark").pinning_seal_key(secrets.clone(), "mk");
    let pix = |no: &str| {
        let mut f = PayinForm::new(PayinMethod::Pix, no, "20", "BRL");
        f.name = "Ana Lima".into();
        f.social_security_number = "12345678909".into();
        f
    };
    // Nothing is sealed to a key the member has not trusted: being published first
    // (by whichever signer an admin made) is not trust.
    match maker().request_payin(&pix("T-PIN-0")) {
        Err(paydesk_core::CoreError::Validation { field, rule }) => {
            assert_eq!(field, "socialSecurityNumber");
            assert!(rule.contains("no seal key is trusted"), "{rule}");
        }
        other => panic!("sealed to a key nobody trusted: {other:?}"),
    }
    assert!(secrets.seal_key_pin("mk").unwrap().is_none());
    use sha2::Digest as _;
    let fingerprint = hex::encode(Sha256::digest(merchant.spki_der()));
    // The fingerprint the member was given must be the database's.
    let wrong = hex::encode(Sha256::digest(other.spki_der()));
    assert!(maker().trust_seal_key(Some(&wrong[..16])).is_err());
    assert!(secrets.seal_key_pin("mk").unwrap().is_none());
    assert_eq!(
        // As the signer's `paydesk profile show-key` prints it.
        maker()
            .trust_seal_key(Some(&merchant.fingerprint()))
            .unwrap(),
        fingerprint
    );
    maker().request_payin(&pix("T-PIN-1")).unwrap();
    assert_eq!(secrets.seal_key_pin("mk").unwrap(), Some(fingerprint));
    owner_sql(
        &pg,
        &format!(
            "SELECT paydesk.replace_seal_key('{}')",
            b64(other.spki_der())
        ),
    );
    match maker().request_payin(&pix("T-PIN-2")) {
        Err(paydesk_core::CoreError::Validation { field, rule }) => {
            assert_eq!(field, "socialSecurityNumber");
            assert!(rule.contains("has changed"), "{rule}");
            assert!(rule.contains("nothing was sealed"), "{rule}");
        }
        other => panic!("sealed to a key that changed: {other:?}"),
    }
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT count(*) FROM paydesk.request_rows WHERE mer_order_no = 'T-PIN-2'"
        ),
        "0"
    );
    // The member trusts the rotated key: the next request seals to it.
    maker().trust_seal_key(None).unwrap();
    maker().request_payin(&pix("T-PIN-3")).unwrap();
}

/// F2, the signer's worker: its waiting connection cannot ask for itself, so the
/// worker's second connection does, every 3 s (a signer may count a wait of its own
/// other session). A member idling on what the signer waits for is ended; the signer's
/// step goes through.
#[test]
fn a_signers_second_session_ends_what_its_first_waits_for() {
    let pg = team_db();
    let key = 4343;
    let holder = IdleSession::open(&pg, "abe", &format!("SELECT pg_advisory_lock({key});"));
    std::thread::scope(|s| {
        let waiter = s.spawn(|| {
            let start = Instant::now();
            let r = sql(
                &pg,
                "sam",
                &format!("BEGIN; SELECT pg_advisory_xact_lock({key}); COMMIT;"),
            );
            (start.elapsed(), r)
        });
        std::thread::sleep(Duration::from_secs(6));
        assert_eq!(
            sql(&pg, "sam", "SELECT paydesk.end_stalls()")
                .unwrap()
                .trim(),
            "1"
        );
        let (took, r) = waiter.join().unwrap();
        r.unwrap();
        assert!(took < Duration::from_secs(10), "waited {took:?}");
    });
    assert!(!holder.alive(&pg), "the idle holder lived on");
    assert_eq!(stalls_ended(&pg), "sam member=abe");
}

/// F6: whether the team made an order is the request rows' to say, not the signer's. A
/// signer neither labels an order paid around the team as the team's (nor the reverse)
/// by writing `made_at`/`kind` or an order's numbers, nor through `record_made` without
/// the approved request row that made it; with that row, the label is the request's.
#[test]
fn a_signer_cannot_relabel_who_made_an_order() {
    let pg = team_db();
    let mer = common::MER as i64;
    // An order paid around the team, in the cache as the signer's sync writes it.
    sql(
        &pg,
        "sam",
        &format!(
            "INSERT INTO paydesk.orders (mer_no, trade_no, mer_order_no, state, currency, source_amount,
                 amount_e4, created_at, synced_at)
             VALUES ({mer}, 'T-OUT', 'M-OUT', 5, 'MXN', 900000, 9000000000, 1, 1)"
        ),
    )
    .unwrap();
    for (what, q) in [
        (
            "label an outside order as made",
            "UPDATE paydesk.orders SET made_at = 1, kind = 'payout' WHERE trade_no = 'T-OUT'",
        ),
        (
            "give an outside order a request's number",
            "UPDATE paydesk.orders SET mer_order_no = 'T-F6-1' WHERE trade_no = 'T-OUT'",
        ),
        (
            "insert an order labelled as made",
            "INSERT INTO paydesk.orders (mer_no, trade_no, mer_order_no, state, currency, source_amount,
                 amount_e4, created_at, synced_at, kind, made_at)
             VALUES (10001, 'T-OUT2', 'M-OUT2', 5, 'MXN', 900000, 9000000000, 1, 1, 'payout', 1)",
        ),
    ] {
        refused(sql(&pg, "sam", q), what, "permission denied");
    }
    // Nor through the function, without a request row that made it.
    assert_eq!(
        sql(
            &pg,
            "sam",
            &format!(
                "SELECT paydesk.record_made({mer}, 'T-OUT', 'M-OUT', 'payout', NULL, 'CLABE', 'MXN', 900000, 9000000000, 1)"
            )
        )
        .unwrap()
        .trim(),
        "f"
    );
    refused(
        sql(
            &pg,
            "vic",
            &format!(
                "SELECT paydesk.record_made({mer}, 'T-OUT', 'M-OUT', 'payout', NULL, 'CLABE', 'MXN', 900000, 9000000000, 1)"
            ),
        ),
        "a viewer records a made order",
        "permission denied",
    );
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT coalesce(made_at::text, 'outside') || ' ' || coalesce(nullif(kind, ''), 'no kind') FROM paydesk.orders WHERE trade_no = 'T-OUT'"
        ),
        "outside no kind"
    );

    // A team-made order: a request approved (no rule applies under 10,000) and claimed.
    let id = payout(&pg, "500", "T-F6-1");
    let sam = member(&pg, "sam");
    let claimed = paydesk_store_pg::team::TeamTables::on(sam.link().pg())
        .claim_next(30)
        .unwrap()
        .unwrap();
    assert_eq!(claimed.id, id);
    let made = |trade_no: &str, amount: &str, made_at: i64| MadeOrder {
        trade_no: trade_no.into(),
        mer_order_no: "T-F6-1".into(),
        // What the desk says is not what labels it: the request's operation does.
        kind: OrderKind::Payin,
        method: "CLABE".into(),
        currency: "MXN".into(),
        amount: amount.parse().unwrap(),
        state: Some(2),
        made_at,
    };
    let orders = PgOrders::on(sam.link().pg(), mer);
    // Another amount than approved: cached, but as made outside.
    assert!(
        orders
            .record_made(mer as u64, &made("T-F6-WRONG", "900", 5))
            .unwrap()
    );
    // The approved one: the request's kind, a time no earlier than the request.
    assert!(
        orders
            .record_made(mer as u64, &made("T-F6-OK", "500", 5))
            .unwrap()
    );
    let wrong = orders.get("T-F6-WRONG").unwrap().unwrap();
    assert!(wrong.outside_team && wrong.made_at.is_none());
    let ok = orders.get("T-F6-OK").unwrap().unwrap();
    assert!(!ok.outside_team);
    assert_eq!(ok.kind, Some(OrderKind::Payout));
    assert!(ok.made_at.unwrap() > 1_700_000_000_000, "{:?}", ok.made_at);
    // Nor is another order given that request's number labelled as the team's: one
    // order per request row.
    sql(
        &pg,
        "sam",
        &format!(
            "INSERT INTO paydesk.orders (mer_no, trade_no, mer_order_no, state, currency, source_amount,
                 amount_e4, created_at, synced_at)
             VALUES ({mer}, 'T-OUT-DUP', 'T-F6-1', 5, 'MXN', 500, 5000000, 1, 1)"
        ),
    )
    .unwrap();
    assert_eq!(
        sql(
            &pg,
            "sam",
            &format!(
                "SELECT paydesk.record_made({mer}, 'T-OUT-DUP', 'T-F6-1', 'payout', NULL, 'CLABE', 'MXN', 500, 5000000, 1)"
            )
        )
        .unwrap()
        .trim(),
        "f"
    );
    assert!(orders.get("T-OUT-DUP").unwrap().unwrap().outside_team);
    // And the signer does not unlabel it.
    refused(
        sql(
            &pg,
            "sam",
            "UPDATE paydesk.orders SET made_at = NULL, kind = '' WHERE trade_no = 'T-F6-OK'",
        ),
        "unlabel a team-made order",
        "permission denied",
    );
}

/// Item 7, what was left: an approver takes a step on a request, turns their own
/// statement timeout off and keeps a statement running in the transaction (busy, so
/// no `end_stalls` ends it). Another approver's decision on that request no longer
/// fails after 10 s: their own step ends the holder once its transaction has been open
/// 20 s, and goes through; the log says who was ended, by whom.
#[test]
fn a_busy_member_holding_a_request_does_not_block_anothers_decision() {
    let pg = team_db();
    let id = payout(&pg, "50000", "T-BUSY-HOLD");
    std::thread::scope(|s| {
        let holder = s.spawn(|| {
            sql(
                &pg,
                "abe",
                &format!(
                    "SET statement_timeout = 0;
                     BEGIN;
                     INSERT INTO paydesk.decisions (request_id, decision) VALUES ({id}, 'approve');
                     SELECT pg_sleep(60);
                     COMMIT;"
                ),
            )
        });
        std::thread::sleep(Duration::from_secs(1));
        let start = Instant::now();
        let r = member(&pg, "ann").approve(id).map(|r| r.state);
        let took = start.elapsed();
        assert_eq!(r.unwrap(), RequestState::Approved, "after {took:?}");
        assert!(took < Duration::from_secs(30), "waited {took:?}");
        let e = holder.join().unwrap().unwrap_err();
        assert!(e.contains("terminating connection"), "{e}");
    });
    assert_eq!(
        owner_sql(
            &pg,
            &format!(
                "SELECT string_agg(member, ',') FROM paydesk.decisions WHERE request_id = {id}"
            )
        ),
        "ann"
    );
    assert_eq!(stalls_ended(&pg), "ann member=abe");
}

/// The request row whose number is `no`: its trade number, or "none".
fn row_trade_no(pg: &TestPg, no: &str) -> String {
    owner_sql(
        pg,
        &format!(
            "SELECT coalesce(trade_no, 'none') FROM paydesk.request_rows WHERE mer_order_no = '{no}' AND live"
        ),
    )
}

/// An order's label as the owner reads it: "made <kind>" or "outside".
fn label_of(pg: &TestPg, trade_no: &str) -> String {
    owner_sql(
        pg,
        &format!(
            "SELECT CASE WHEN made_at IS NULL THEN 'outside' ELSE 'made ' || kind END
               FROM paydesk.orders WHERE trade_no = '{trade_no}'"
        ),
    )
}

/// Review of team30, 1 (HIGH): the first order recorded for a request row claims it;
/// the signer then neither moves the row's trade number to another order, nor keeps a
/// label on an order whose amount or number it rewrites. A lower-case currency is the
/// request's currency too.
#[test]
fn a_signer_cannot_move_or_keep_a_label_a_request_row_gave() {
    let pg = team_db();
    let mer = common::MER as i64;
    let id = payout(&pg, "500", "PIN-1");
    payout(&pg, "300", "PIN-4");
    payout(&pg, "200", "PIN-5");
    let sam = member(&pg, "sam");
    let claimed = paydesk_store_pg::team::TeamTables::on(sam.link().pg())
        .claim_next(30)
        .unwrap()
        .unwrap();
    assert_eq!(claimed.id, id);
    // The other two are sent too: only a sent row's order is the team's.
    for _ in 0..2 {
        paydesk_store_pg::team::TeamTables::on(sam.link().pg())
            .claim_next(30)
            .unwrap()
            .unwrap();
    }
    let record = |trade: &str, no: &str, amount: &str, cur: &str, state: &str| {
        sql(
            &pg,
            "sam",
            &format!(
                "SELECT paydesk.record_made({mer}, '{trade}', '{no}', 'payout', {state}, 'CLABE', '{cur}', {amount}, {amount}0000, 1)"
            ),
        )
        .map(|s| s.trim().to_string())
    };
    // The order made under PIN-1 is recorded: labelled, and it claims the row.
    assert_eq!(record("T-OUT", "PIN-1", "500", "MXN", "2").unwrap(), "t");
    assert_eq!(label_of(&pg, "T-OUT"), "made payout");
    assert_eq!(row_trade_no(&pg, "PIN-1"), "T-OUT");
    // The row's trade number is set once: not moved to another order.
    refused(
        sql(
            &pg,
            "sam",
            "UPDATE paydesk.request_rows SET trade_no = 'T-OTHER' WHERE mer_order_no = 'PIN-1'",
        ),
        "move a claimed row to another order",
        "never changes",
    );
    // Nor cleared: a blank new value keeps it (an outcome comes without one).
    sql(
        &pg,
        "sam",
        "UPDATE paydesk.request_rows SET trade_no = NULL WHERE mer_order_no = 'PIN-1'",
    )
    .unwrap();
    assert_eq!(row_trade_no(&pg, "PIN-1"), "T-OUT");
    // Paid out 500 as approved, then rewritten in the cache as 90,000: the label goes.
    sql(
        &pg,
        "sam",
        "UPDATE paydesk.orders SET source_amount = 90000, amount_e4 = 900000000, signature_verified = true
          WHERE trade_no = 'T-OUT'",
    )
    .unwrap();
    assert_eq!(label_of(&pg, "T-OUT"), "outside");

    // Another claimed row's order: its amount_e4 (what sums and ranges read) is
    // rewritten. Since 0016 the database keeps it the amount's, so the order still is
    // what was approved, and keeps its label.
    assert_eq!(record("T-4", "PIN-4", "300", "MXN", "2").unwrap(), "t");
    assert_eq!(row_trade_no(&pg, "PIN-4"), "T-4");
    // A second order under the claimed number is not labelled.
    assert_eq!(
        record("T-4-DECOY", "PIN-4", "300", "MXN", "2").unwrap(),
        "t"
    );
    assert_eq!(label_of(&pg, "T-4-DECOY"), "outside");
    sql(
        &pg,
        "sam",
        "UPDATE paydesk.orders SET amount_e4 = 900000000 WHERE trade_no = 'T-4'",
    )
    .unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT amount_e4 FROM paydesk.orders WHERE trade_no = 'T-4'"
        ),
        "3000000"
    );
    assert_eq!(label_of(&pg, "T-4"), "made payout");

    // A cached order in lower-case currency is labelled by the MXN request that made it.
    sql(
        &pg,
        "sam",
        &format!(
            "INSERT INTO paydesk.orders (mer_no, trade_no, mer_order_no, state, currency, source_amount,
                 amount_e4, created_at, synced_at)
             VALUES ({mer}, 'T-5', 'PIN-5', 2, 'mxn', 200, 2000000, 1, 1)"
        ),
    )
    .unwrap();
    assert_eq!(record("T-5", "PIN-5", "200", "mxn", "NULL").unwrap(), "t");
    assert_eq!(label_of(&pg, "T-5"), "made payout");
    assert_eq!(row_trade_no(&pg, "PIN-5"), "T-5");
}

/// Review of team30, 2 (MEDIUM): a maker does not request a number the merchant used
/// already (an outside order in the cache, a send in the journal), so such an order
/// is never labelled as the team's.
#[test]
fn a_maker_cannot_request_a_number_the_merchant_used() {
    let pg = team_db();
    let mer = common::MER as i64;
    sql(
        &pg,
        "sam",
        &format!(
            "INSERT INTO paydesk.orders (mer_no, trade_no, mer_order_no, state, currency, source_amount,
                 amount_e4, created_at, synced_at)
             VALUES ({mer}, 'T-OUT-9', 'OUT-9', 2, 'MXN', 700, 7000000, 1, 1);
             INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary,
                 status, created_at, updated_at, fingerprint)
             VALUES ({mer}, 'p', 'payout', 'SENT-7', '{{}}', 'x', 'sending', 1, 1, 'fp');
             UPDATE paydesk.journal SET status = 'unknown', claimed_by = 'pg:' || pg_backend_pid() || ':psql'
              WHERE mer_order_no = 'SENT-7'"
        ),
    )
    .unwrap();
    let attempt = |no: &str| {
        sql(
            &pg,
            "mark",
            &format!(
                "BEGIN;
                 INSERT INTO paydesk.requests (operation, currency, total, row_count, summary)
                      VALUES ('payout', 'MXN', 700, 1, 'x');
                 INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary)
                      VALUES (currval('paydesk.requests_id_seq'), 1, '{no}', 700,
                              '{{\"kind\":\"CLABE\",\"merOrderNo\":\"{no}\",\"amount\":\"700\",\"currency\":\"MXN\",\"clabe\":\"{CLABE}\"}}',
                              'CLABE x');
                 COMMIT;"
            ),
        )
    };
    refused(
        attempt("OUT-9"),
        "request an outside order's number",
        "used this number already",
    );
    refused(
        attempt("SENT-7"),
        "request a sent number",
        "used this number already",
    );
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT count(*) FROM paydesk.request_rows WHERE mer_order_no IN ('OUT-9', 'SENT-7')"
        ),
        "0"
    );
    // A fresh number still goes, the same way.
    attempt("NEW-1").unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT count(*) FROM paydesk.request_rows WHERE mer_order_no = 'NEW-1' AND live"
        ),
        "1"
    );
}

/// Review of team30, 3 (MEDIUM): the admin holds no table-level right on the rules
/// that lets them LOCK the table every request reads; rules are removed through the
/// database's function, by an admin only. No role but the signer holds table-level
/// UPDATE, DELETE or TRUNCATE on any of the team's tables (saved filters, each
/// member's own, read by no money path, aside).
#[test]
fn an_admin_cannot_lock_the_rules_every_request_reads() {
    let pg = team_db();
    refused(
        sql(
            &pg,
            "alice",
            "BEGIN; SET LOCAL lock_timeout = '1s'; LOCK TABLE paydesk.rules IN ACCESS EXCLUSIVE MODE; ROLLBACK;",
        ),
        "an admin locks the rules",
        "permission denied",
    );
    refused(
        sql(&pg, "alice", "DELETE FROM paydesk.rules"),
        "an admin deletes rules directly",
        "permission denied",
    );
    let rule = owner_sql(&pg, "SELECT id FROM paydesk.rules ORDER BY id LIMIT 1");
    refused(
        sql(&pg, "mark", &format!("SELECT paydesk.delete_rule({rule})")),
        "a maker removes a rule",
        "permission denied",
    );
    assert_eq!(
        sql(&pg, "alice", &format!("SELECT paydesk.delete_rule({rule})"))
            .unwrap()
            .trim(),
        "t"
    );
    assert_eq!(
        owner_sql(
            &pg,
            &format!("SELECT count(*) FROM paydesk.rules WHERE id = {rule}")
        ),
        "0"
    );
    // The desks remove rules the same way (the admin screen, `paydesk team rule remove`).
    let another = sql(
        &pg,
        "alice",
        "INSERT INTO paydesk.rules (operation, currency, above, approvals) VALUES ('payin', 'MXN', 5, 2) RETURNING id",
    )
    .unwrap();
    let another: i64 = another.trim().lines().next().unwrap().parse().unwrap();
    member(&pg, "alice").remove_rule(another).unwrap();
    assert!(member(&pg, "alice").remove_rule(another).is_err());
    assert_eq!(
        owner_sql(
            &pg,
            &format!("SELECT count(*) FROM paydesk.rules WHERE id = {another}")
        ),
        "0"
    );
    let held = owner_sql(
        &pg,
        "SELECT coalesce(string_agg(r || ' ' || p || ' ' || c.relname, ', ' ORDER BY r, p, c.relname), 'none')
           FROM pg_class c
           JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'paydesk'
          CROSS JOIN unnest(ARRAY['paydesk_viewer', 'paydesk_support', 'paydesk_maker',
                                  'paydesk_approver', 'paydesk_admin']) r
          CROSS JOIN unnest(ARRAY['UPDATE', 'DELETE', 'TRUNCATE']) p
          WHERE c.relkind IN ('r', 'p')
            AND has_table_privilege(r, c.oid, p)",
    );
    assert_eq!(held, "none");
}

/// The row whose number is `no`: its status and trade number ("none" when blank).
fn row_status(pg: &TestPg, no: &str) -> String {
    owner_sql(
        pg,
        &format!(
            "SELECT status || ' ' || coalesce(trade_no, 'none') FROM paydesk.request_rows
              WHERE mer_order_no = '{no}' AND live"
        ),
    )
}

fn row_no_of(pg: &TestPg, no: &str) -> i32 {
    owner_sql(
        pg,
        &format!("SELECT row_no FROM paydesk.request_rows WHERE mer_order_no = '{no}' AND live"),
    )
    .parse()
    .unwrap()
}

/// The signer records an order made under `no` with plain SQL: "t" when recorded.
fn record_as_signer(pg: &TestPg, trade: &str, no: &str, amount: &str) -> String {
    let mer = common::MER as i64;
    sql(
        pg,
        "sam",
        &format!(
            "SELECT paydesk.record_made({mer}, '{trade}', '{no}', 'payout', 2, 'CLABE', 'MXN', {amount}, {amount}0000, 1)"
        ),
    )
    .unwrap()
    .trim()
    .to_string()
}

/// Review of team30 round 2, F1 (MEDIUM): the order made under a row is recorded (the
/// made listing, after a worker died between the gateway's answer and the outcome)
/// and claims the row; the next worker's outcome comes with no trade number. It is
/// written, the number kept, and the request ends: a paid row is never stuck.
#[test]
fn a_rows_outcome_is_written_after_its_order_claimed_it() {
    use paydesk_store_pg::team::{RowState, TeamTables};
    let pg = team_db();
    let id = payout(&pg, "500", "PIN-R1");
    let sam = member(&pg, "sam");
    let tables = TeamTables::on(sam.link().pg());
    assert_eq!(tables.claim_next(30).unwrap().unwrap().id, id);
    assert_eq!(record_as_signer(&pg, "T-R1", "PIN-R1", "500"), "t");
    assert_eq!(row_status(&pg, "PIN-R1"), "waiting T-R1");
    // Plain SQL, the review's sequence: an unknown outcome without a trade number.
    sql(
        &pg,
        "sam",
        "UPDATE paydesk.request_rows SET status = 'unknown', trade_no = NULL, message = 'timeout'
          WHERE mer_order_no = 'PIN-R1'",
    )
    .unwrap();
    assert_eq!(row_status(&pg, "PIN-R1"), "unknown T-R1");
    // The worker's own write: accepted, the gateway's answer carrying no trade number.
    tables
        .row_outcome(
            id,
            row_no_of(&pg, "PIN-R1"),
            RowState::Accepted,
            None,
            Some("accepted"),
        )
        .unwrap();
    assert_eq!(row_status(&pg, "PIN-R1"), "accepted T-R1");
    tables.finish(id, true, "1 accepted").unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            &format!("SELECT state FROM paydesk.requests WHERE id = {id}")
        ),
        "done"
    );
    // Another number is still refused.
    refused(
        sql(
            &pg,
            "sam",
            "UPDATE paydesk.request_rows SET trade_no = 'T-OTHER' WHERE mer_order_no = 'PIN-R1'",
        ),
        "move a claimed row's number",
        "never changes",
    );
    assert_eq!(label_of(&pg, "T-R1"), "made payout");
}

/// Review of team30 round 2, F2 (MEDIUM): while a request is approved but not sent, the
/// signer neither sets its row's trade number nor has an order under its number
/// labelled as the team's; once sent, the real order is.
#[test]
fn a_signer_cannot_claim_an_unsent_rows_number() {
    use paydesk_store_pg::team::TeamTables;
    let pg = team_db();
    let id = payout(&pg, "500", "PIN-R2");
    assert_eq!(
        owner_sql(
            &pg,
            &format!("SELECT state FROM paydesk.requests WHERE id = {id}")
        ),
        "approved"
    );
    refused(
        sql(
            &pg,
            "sam",
            "UPDATE paydesk.request_rows SET trade_no = 'T-R2-FAKE' WHERE mer_order_no = 'PIN-R2'",
        ),
        "set an unsent row's trade number",
        "only while its request is executing",
    );
    assert_eq!(row_status(&pg, "PIN-R2"), "waiting none");
    // An order under the number before it was sent: recorded, as made outside.
    assert_eq!(record_as_signer(&pg, "T-R2-FAKE", "PIN-R2", "500"), "t");
    assert_eq!(label_of(&pg, "T-R2-FAKE"), "outside");
    assert_eq!(row_status(&pg, "PIN-R2"), "waiting none");
    // Sent: the real order is the team's and claims the row.
    let sam = member(&pg, "sam");
    assert_eq!(
        TeamTables::on(sam.link().pg())
            .claim_next(30)
            .unwrap()
            .unwrap()
            .id,
        id
    );
    assert_eq!(record_as_signer(&pg, "T-R2", "PIN-R2", "500"), "t");
    assert_eq!(label_of(&pg, "T-R2"), "made payout");
    assert_eq!(row_status(&pg, "PIN-R2"), "waiting T-R2");
}

/// Review of team30 round 2, F5 (LOW-MEDIUM): a row the gateway rejected made no
/// order: after its request is done, the signer neither sets its trade number nor has
/// an order under its number labelled as the team's.
#[test]
fn a_rejected_row_claims_no_order() {
    use paydesk_store_pg::team::{RowState, TeamTables};
    let pg = team_db();
    let id = payout(&pg, "500", "PIN-R5");
    let sam = member(&pg, "sam");
    let tables = TeamTables::on(sam.link().pg());
    assert_eq!(tables.claim_next(30).unwrap().unwrap().id, id);
    tables
        .row_outcome(
            id,
            row_no_of(&pg, "PIN-R5"),
            RowState::Rejected,
            None,
            Some("refused by the gateway"),
        )
        .unwrap();
    tables.finish(id, true, "1 rejected").unwrap();
    assert_eq!(row_status(&pg, "PIN-R5"), "rejected none");
    refused(
        sql(
            &pg,
            "sam",
            "UPDATE paydesk.request_rows SET trade_no = 'T-R5' WHERE mer_order_no = 'PIN-R5'",
        ),
        "set a rejected row's trade number",
        "only while its request is executing",
    );
    assert_eq!(record_as_signer(&pg, "T-R5", "PIN-R5", "500"), "t");
    assert_eq!(label_of(&pg, "T-R5"), "outside");
    assert_eq!(row_status(&pg, "PIN-R5"), "rejected none");
}

/// Review of team30 round 2, F4 (MEDIUM, from 0008): the admin may set the team's
/// default approvals to 0 and back, but each change is in the audit log, with who made
/// it and the values before and after.
#[test]
fn an_admins_change_to_the_default_approvals_is_audited() {
    let pg = team_db();
    let mer = common::MER;
    let idle = owner_sql(&pg, "SELECT idle_lock_minutes FROM paydesk.team");
    sql(
        &pg,
        "alice",
        "UPDATE paydesk.team SET default_approvals = 0",
    )
    .unwrap();
    assert_eq!(
        owner_sql(&pg, "SELECT default_approvals FROM paydesk.team"),
        "0"
    );
    sql(
        &pg,
        "alice",
        "UPDATE paydesk.team SET default_approvals = 1",
    )
    .unwrap();
    // With the payee-approval switch since schema 0028 (review r5, F7).
    let at = |n: u32| {
        format!("default_approvals={n} idle_lock_minutes={idle} mer_no={mer} payee_approval=false")
    };
    assert_eq!(
        log_rows(
            &pg,
            "operator || ' ' || identifiers || ' -> ' || result",
            "operation = 'team.settings.update'"
        ),
        format!("alice {} -> {};alice {} -> {}", at(1), at(0), at(0), at(1))
    );
}

// Review of team30 round 2, F3: a signer LOCKed the journal while running a statement;
// `end_stalls` ended that session. Since 0016 no member holds a table-level right that
// allows such a lock (`team_review_r3::a_signer_cannot_lock_the_journal_or_the_read_model`).
