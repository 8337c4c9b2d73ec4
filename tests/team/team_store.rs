//! The team's journal and audit log on a real PostgreSQL server (a scratch one per
//! test, from `paydesk-testpg`): the SQLite journal's rules, kept by desks on several
//! connections at once; claims that die with their connection; the audit chain the
//! database seals, checked here so an edit by the table's owner is caught; and the
//! team's roles as the database enforces them.

#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use paydesk_core::CoreError;
use paydesk_core::audit::{AuditFilter, Record};
use paydesk_core::journal::{
    Begin, CLAIM_LEASE_MS, Claim, Entry, Guard, Intent, Outcome, Status, fingerprint, mask_request,
};
use paydesk_core::store::Store;
use paydesk_core::store::prelude::*;
use paydesk_store_pg::journal::PgJournal;
use paydesk_store_pg::{PgConfig, PgLink, init_team};
use paydesk_testpg::TestPg;
use serde_json::{Value, json};

const MER_NO: i64 = 123;
const DB: &str = "team";
const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";
const GUARD: Guard = Guard {
    window_ms: 24 * 3_600_000,
    allow_duplicate: false,
};

/// A scratch server with the team schema, and a desk's store on it as the owner (no
/// superuser).
struct Team {
    pg: TestPg,
    link: Arc<PgLink>,
    store: Arc<Store>,
    _dir: tempfile::TempDir,
}

impl Team {
    fn start() -> Team {
        let pg = TestPg::start().unwrap();
        pg.create_database(DB).unwrap();
        let link = connect(&pg, pg.owner(), pg.owner_password());
        init_team(&link, MER_NO).unwrap();
        let link = Arc::new(link);
        let dir = tempfile::tempdir().unwrap();
        let cache = connect(&pg, pg.owner(), pg.owner_password());
        let store = Store::open_team(link.clone(), Arc::new(cache), MER_NO).unwrap();
        Team {
            pg,
            link,
            store,
            _dir: dir,
        }
    }

    /// Another connection as the owner (another desk).
    fn link(&self) -> PgLink {
        connect(&self.pg, self.pg.owner(), self.pg.owner_password())
    }

    /// A login role granted one of the team's roles, and a connection as it.
    fn member(&self, name: &str, role: &str) -> PgLink {
        self.pg
            .psql_owner(
                DB,
                &format!("CREATE ROLE {name} LOGIN PASSWORD 'x'; GRANT paydesk_{role} TO {name};"),
            )
            .unwrap();
        connect(&self.pg, name, "x")
    }

    fn sql(&self, sql: &str) -> String {
        self.pg.psql_super(DB, sql).unwrap()
    }

    /// The journal's own rules alone: schema 0039's check that a signer's payout entry
    /// is a row of an approved request their worker executes (attacked on its own in
    /// tests/team/team_review_r8.rs) is turned off by the owner, so a signer's desk
    /// journals payouts here without the team's requests.
    fn without_requests(self) -> Team {
        self.pg
            .psql_owner(
                DB,
                "ALTER TABLE paydesk.journal DISABLE TRIGGER journal_x_payout_approved",
            )
            .unwrap();
        self
    }
}

fn connect(pg: &TestPg, user: &str, password: &str) -> PgLink {
    let cfg = PgConfig {
        host: pg.host().into(),
        port: pg.port(),
        database: DB.into(),
        user: user.into(),
        ca_file: String::new(),
        cert_file: String::new(),
        key_file: String::new(),
    };
    PgLink::connect(&cfg, password).unwrap()
}

fn begin_on(j: &dyn JournalStore, profile: &str, op: &str, no: &str, body: &Value) -> Begin {
    begin_guarded(j, profile, op, no, body, GUARD)
}

fn begin_guarded(
    j: &dyn JournalStore,
    profile: &str,
    op: &str,
    no: &str,
    body: &Value,
    guard: Guard,
) -> Begin {
    let fp = fingerprint(KEY, op, body);
    j.begin(
        profile,
        Intent {
            operation: op,
            mer_order_no: no,
            request: body,
            summary: "s",
            fingerprint: &fp,
            purpose: None,
        },
        guard,
    )
    .unwrap()
}

fn sent(b: Begin) -> (Entry, Claim) {
    match b {
        Begin::Send(e, c) | Begin::Resend(e, c) => (e, c),
        other => panic!("{other:?}"),
    }
}

fn outcome(status: Status) -> Outcome<'static> {
    Outcome {
        status,
        trade_no: None,
        code: None,
        message: Some("m"),
    }
}

#[test]
fn begin_finds_the_number_the_intent_and_a_mismatch_across_the_team() {
    let team = Team::start();
    let j = team.store.journal();
    let body = json!({"sourceAmount": "10.00", "clabe": "002010077777777771", "merOrderNo": "N1"});
    let (first, claim) = sent(begin_on(&*j, "desk-a", "v2.payout", "N1", &body));
    assert_eq!(first.status, Status::Sending);
    assert_eq!(first.attempts, 1);
    assert!(first.sent_at.is_some());
    assert_eq!(first.request, mask_request(&body), "stored masked");
    assert!(!first.request.to_string().contains("002010077777777771"));
    assert!(
        claim
            .0
            .starts_with(&format!("pg:{}:", team.link.backend_pid()))
    );

    // Another desk of the team, whose profile is named otherwise, finds the number.
    match begin_on(&*j, "desk-b", "v2.payout", "N1", &body) {
        Begin::Exists(e) => assert_eq!(e.id, first.id),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        j.get_by_number("desk-b", "N1").unwrap().unwrap().profile,
        "desk-a",
        "kept for information, not a filter"
    );

    // Unresolved: a new number for the same intent is a duplicate; nothing is written.
    j.finish(first.id, &claim, outcome(Status::Unknown))
        .unwrap();
    match begin_on(&*j, "desk-b", "v2.payout", "N2", &body) {
        Begin::Duplicate(e) => assert_eq!(e.mer_order_no, "N1"),
        other => panic!("{other:?}"),
    }
    assert!(j.get_by_number("desk-a", "N2").unwrap().is_none());
    let fp = fingerprint(KEY, "v2.payout", &body);
    assert_eq!(
        j.same_intent("x", &fp, GUARD.window_ms, &[])
            .unwrap()
            .unwrap()
            .id,
        first.id
    );
    assert!(
        j.same_intent("x", &fp, GUARD.window_ms, &["N1"])
            .unwrap()
            .is_none()
    );
    assert_eq!(j.same_intents("x", &fp, GUARD.window_ms).unwrap().len(), 1);

    // Confirmed by the operator: a second one goes.
    let guard = Guard {
        allow_duplicate: true,
        ..GUARD
    };
    assert!(matches!(
        begin_guarded(&*j, "desk-a", "v2.payout", "N2", &body, guard),
        Begin::Send(..)
    ));
    assert_eq!(j.same_intents("x", &fp, GUARD.window_ms).unwrap().len(), 2);

    // The same number with another request, or for another operation, is refused.
    let other = json!({"sourceAmount": "99.00", "clabe": "002010077777777771"});
    assert!(matches!(
        begin_on(&*j, "desk-a", "v2.payout", "N1", &other),
        Begin::Mismatch(_)
    ));
    assert!(matches!(
        begin_on(&*j, "desk-a", "v1.payment", "N1", &body),
        Begin::Mismatch(_)
    ));

    // A rejected intent is no duplicate.
    let body3 = json!({"sourceAmount": "3.00", "clabe": "1"});
    let (e3, c3) = sent(begin_on(&*j, "desk-a", "v2.payout", "N3", &body3));
    assert!(j.finish(e3.id, &c3, outcome(Status::Rejected)).unwrap());
    assert!(matches!(
        begin_on(&*j, "desk-a", "v2.payout", "N4", &body3),
        Begin::Send(..)
    ));

    // Accepted within the window: a duplicate; accepted long ago: not.
    let body5 = json!({"sourceAmount": "5.00", "clabe": "1"});
    let (e5, c5) = sent(begin_on(&*j, "desk-a", "v2.payout", "N5", &body5));
    let accepted = Outcome {
        trade_no: Some("T5"),
        ..outcome(Status::Accepted)
    };
    assert!(j.finish(e5.id, &c5, accepted).unwrap());
    assert!(matches!(
        begin_on(&*j, "desk-a", "v2.payout", "N6", &body5),
        Begin::Duplicate(_)
    ));
    team.sql(&format!(
        "UPDATE paydesk.journal SET updated_at = updated_at - {} WHERE id = {}",
        GUARD.window_ms + 1,
        e5.id
    ));
    assert!(matches!(
        begin_on(&*j, "desk-a", "v2.payout", "N6", &body5),
        Begin::Send(..)
    ));
    let found = j.of_order("x", "T5", "").unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].trade_no.as_deref(), Some("T5"));
    assert_eq!(j.of_order("x", "", "N1").unwrap()[0].id, first.id);
    assert!(j.of_order("x", "", "").unwrap().is_empty());
    assert_eq!(
        j.get_by_key("x", "v2.payout", "N5").unwrap().unwrap().id,
        e5.id
    );
    assert!(j.get_by_key("x", "v1.payment", "N5").unwrap().is_none());
}

#[test]
fn a_queued_entry_is_sent_once_by_begin_and_an_entry_elsewhere_is_not_ours() {
    let team = Team::start();
    let j = team.store.journal();
    let body = json!({"sourceAmount": "7.00", "clabe": "1"});
    let fp = fingerprint(KEY, "v2.payout", &body);
    let intent = Intent {
        operation: "v2.payout",
        mer_order_no: "Q1",
        request: &body,
        summary: "row 1",
        fingerprint: &fp,
        purpose: None,
    };
    let queued = j.queue("desk-a", intent).unwrap();
    assert_eq!((queued.status, queued.attempts), (Status::Pending, 0));
    assert_eq!(
        j.queue("desk-b", intent).unwrap().id,
        queued.id,
        "left as it is"
    );
    let (resent, claim) = match begin_on(&*j, "desk-b", "v2.payout", "Q1", &body) {
        Begin::Resend(e, c) => (e, c),
        other => panic!("{other:?}"),
    };
    assert_eq!(resent.id, queued.id);
    assert_eq!((resent.status, resent.attempts), (Status::Sending, 1));
    assert!(matches!(
        begin_on(&*j, "desk-b", "v2.payout", "Q1", &body),
        Begin::Exists(_)
    ));

    // Not found at the gateway yet, then resolved by hand to be sent again.
    j.not_found_yet(resent.id, &claim, 42, "not there yet")
        .unwrap();
    let e = j.get(resent.id).unwrap().unwrap();
    assert_eq!(
        (e.status, e.lookups, e.next_check_at, e.code.as_deref()),
        (Status::Unknown, 1, Some(42), Some("not_found_yet"))
    );
    assert_eq!(j.unresolved("x").unwrap().len(), 1);
    j.defer(e.id, 99, "later").unwrap();
    assert_eq!(j.get(e.id).unwrap().unwrap().next_check_at, Some(99));
    j.note(e.id, "ask the bank").unwrap();
    let e = j.get(e.id).unwrap().unwrap();
    assert_eq!(
        (e.next_check_at, e.message.as_deref()),
        (None, Some("ask the bank"))
    );
    assert!(!j.answered(e.id).unwrap());
    j.mark_answered(e.id).unwrap();
    assert!(j.answered(e.id).unwrap());
    let (_, c) = j.claim(e.id).unwrap().unwrap();
    assert!(
        j.resolve(e.id, &c, false, "by ann: not at the bank")
            .unwrap()
    );
    let e = j.get(e.id).unwrap().unwrap();
    assert_eq!(
        (e.status, e.resolution.as_deref()),
        (Status::Pending, Some("by ann: not at the bank"))
    );
    assert!(j.unresolved("x").unwrap().is_empty());
    let (e, _) = sent(begin_on(&*j, "desk-a", "v2.payout", "Q1", &body));
    assert_eq!((e.attempts, e.lookups, e.next_check_at), (2, 0, None));

    // Another merchant's entries (a database holds one team) are not this desk's.
    team.sql(
        "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary,
                status, created_at, updated_at)
         VALUES (999, 'x', 'v2.payout', 'Q1', '{}', 's', 'pending', 0, 0)",
    );
    let foreign: i64 = team
        .sql("SELECT id FROM paydesk.journal WHERE mer_no = 999")
        .trim()
        .parse()
        .unwrap();
    assert!(j.get(foreign).unwrap().is_none());
    assert!(j.claim(foreign).unwrap().is_none());
    assert_eq!(j.list("x", &[], &[], 10).unwrap().len(), 1);
}

/// Desks on connections of their own begin the same number, or the same intent under
/// numbers of their own, at the same moment: one sends, the others find it.
#[test]
fn desks_racing_to_begin_send_once() {
    const DESKS: usize = 6;
    let team = Team::start();
    let links: Vec<PgLink> = (0..DESKS).map(|_| team.link()).collect();
    for round in 0..10 {
        let body = json!({"sourceAmount": format!("{round}.00"), "clabe": "1"});
        let same_number = round % 2 == 0;
        let barrier = Barrier::new(DESKS);
        let results: Vec<Begin> = std::thread::scope(|s| {
            let handles: Vec<_> = links
                .iter()
                .enumerate()
                .map(|(i, link)| {
                    let (barrier, body) = (&barrier, &body);
                    s.spawn(move || {
                        let no = if same_number {
                            format!("R{round}")
                        } else {
                            format!("R{round}-{i}")
                        };
                        barrier.wait();
                        let j = PgJournal::on(link, MER_NO);
                        begin_on(&j, &format!("desk-{i}"), "v2.payout", &no, body)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let sends = results
            .iter()
            .filter(|b| matches!(b, Begin::Send(..)))
            .count();
        let others = results
            .iter()
            .filter(|b| {
                if same_number {
                    matches!(b, Begin::Exists(_))
                } else {
                    matches!(b, Begin::Duplicate(_))
                }
            })
            .count();
        assert_eq!(
            (sends, others),
            (1, DESKS - 1),
            "round {round}: {results:?}"
        );
    }
    let j = team.store.journal();
    assert_eq!(j.list("p", &[], &[], -1).unwrap().len(), 10);
}

fn backend_running(team: &Team, pid: i32) -> bool {
    team.sql(&format!(
        "SELECT count(*) FROM pg_stat_activity WHERE pid = {pid}"
    ))
    .trim()
        != "0"
}

/// A claim lives while its lease runs and its connection's server process does: a desk
/// killed outright (its connection gone) gives its claims up at once. Seen by a signer,
/// who is no superuser.
#[test]
fn a_claim_dies_with_its_connection_and_lives_while_it_runs() {
    let team = Team::start().without_requests();
    let ann = team.member("ann", "signer");
    let bob = team.member("bob", "signer");
    let (e, held) = sent(begin_on(
        &PgJournal::on(&bob, MER_NO),
        "bob",
        "v2.payout",
        "C1",
        &json!({"currencyCode": "MXN", "sourceAmount": "1.00"}),
    ));
    let ann_j = PgJournal::on(&ann, MER_NO);
    assert!(ann_j.claim(e.id).unwrap().is_none(), "being sent by bob");
    assert!(
        team.store.journal().claim(e.id).unwrap().is_none(),
        "nor by the owner's desk"
    );

    let bob_pid = bob.backend_pid();
    drop(bob);
    let gone = Instant::now();
    while backend_running(&team, bob_pid) {
        assert!(
            gone.elapsed() < Duration::from_secs(10),
            "bob's server process still runs (the lease is {CLAIM_LEASE_MS} ms)"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (_, ann_claim) = ann_j
        .claim(e.id)
        .unwrap()
        .expect("bob's claim died with him");
    assert_ne!(ann_claim, held);
    assert!(
        ann_claim
            .0
            .starts_with(&format!("pg:{}:", ann.backend_pid()))
    );
    assert!(
        team.store.journal().claim(e.id).unwrap().is_none(),
        "ann's is live"
    );

    // Bob's old claim does not release ann's.
    ann_j.release(e.id, &held).unwrap();
    assert!(team.store.journal().claim(e.id).unwrap().is_none());

    // A live holder whose lease ran out gives it up too.
    team.sql(&format!(
        "UPDATE paydesk.journal SET claimed_until = claimed_until - {} WHERE id = {}",
        CLAIM_LEASE_MS + 1,
        e.id
    ));
    let (_, owner_claim) = team.store.journal().claim(e.id).unwrap().unwrap();
    assert!(ann_j.claim(e.id).unwrap().is_none());
    team.store.journal().release(e.id, &owner_claim).unwrap();
    assert!(ann_j.claim(e.id).unwrap().is_some());

    // A holder that is not a connection's is trusted until its lease ends.
    team.sql(&format!(
        "UPDATE paydesk.journal SET claimed_by = '999999999:1-1' WHERE id = {}",
        e.id
    ));
    assert!(ann_j.claim(e.id).unwrap().is_none());
}

fn record<'a>(operation: &'a str, identifiers: &str) -> Record<'a> {
    Record {
        profile: "desk-a",
        operator: "ann",
        operation,
        identifiers: identifiers.into(),
        result: "ok".into(),
        latency_ms: 12,
    }
}

#[test]
fn the_audit_chain_verifies_and_breaks_when_the_owner_edits_or_removes_a_row() {
    let team = Team::start();
    let audit = team.store.audit();
    let empty = audit.verify(KEY, None).unwrap();
    assert!(empty.ok && empty.rows == 0, "{empty:?}");

    let (first, anchor) = audit
        .append(record("payout", "merOrderNo=N1"), KEY, None)
        .unwrap();
    assert_eq!(first.id, 1);
    assert_eq!(first.prev_hash, "");
    // An append anchors nothing on a team: a desk anchors only a head it verified, when
    // it connects (tests/team_chain.rs).
    assert_eq!((anchor.last_id, anchor.count), (0, 0));
    // A maker may write the log but not read it: its row comes back all the same.
    let maker = team.member("mia", "maker");
    let (second, _) = paydesk_store_pg::audit::PgAudit::on(&maker)
        .append(record("payout.request", "merOrderNo=N2"), KEY, None)
        .unwrap();
    assert_eq!(
        (second.id, second.prev_hash.as_str()),
        (2, first.hash.as_str())
    );
    assert!(matches!(
        paydesk_store_pg::audit::PgAudit::on(&maker).list(&AuditFilter::default()),
        Err(CoreError::Validation { .. })
    ));
    assert_eq!(
        team.sql("SELECT db_user FROM paydesk.audit_log WHERE id = 2")
            .trim(),
        "mia"
    );
    // A rolled-back append leaves no gap.
    team.sql(
        "BEGIN; INSERT INTO paydesk.audit_log (at, profile, operator, operation, identifiers, result)
         VALUES (0, 'p', 'o', 'x', '', ''); ROLLBACK;",
    );
    for i in 3..=6 {
        audit
            .append(record("query", &format!("merOrderNo=N{i}")), KEY, None)
            .unwrap();
    }
    let check = audit.verify(KEY, None).unwrap();
    assert!(check.ok, "{check:?}");
    assert_eq!(check.rows, 6);

    let listed = audit.list(&AuditFilter::default()).unwrap();
    assert_eq!(
        listed.iter().map(|e| e.id).collect::<Vec<_>>(),
        [6, 5, 4, 3, 2, 1],
        "newest first"
    );
    let filtered = audit
        .list(&AuditFilter {
            operation: Some("query".into()),
            text: Some("n4".into()),
            ..AuditFilter::default()
        })
        .unwrap();
    assert_eq!(filtered.len(), 1);
    assert_eq!(filtered[0].identifiers, "merOrderNo=N4");
    let limited = audit
        .list(&AuditFilter {
            limit: Some(2),
            to: Some(i64::MAX),
            from: Some(first.at),
            ..AuditFilter::default()
        })
        .unwrap();
    assert_eq!(limited.iter().map(|e| e.id).collect::<Vec<_>>(), [6, 5]);

    // An alert recorded by a desk makes a sound chain incomplete.
    let alerted = audit
        .verify_with_alert(KEY, None, Some("payout at noon: down".into()))
        .unwrap();
    assert!(!alerted.ok);
    assert_eq!(alerted.broken_at, Some(7));
    assert_eq!(alerted.alert.as_deref(), Some("payout at noon: down"));

    // The table's owner goes around the triggers: the database lets it, the check does not.
    team.sql(
        "ALTER TABLE paydesk.audit_log DISABLE TRIGGER ALL;
         UPDATE paydesk.audit_log SET result = 'failed' WHERE id = 4;
         ALTER TABLE paydesk.audit_log ENABLE TRIGGER ALL;",
    );
    let check = audit.verify(KEY, None).unwrap();
    assert!(!check.ok);
    assert_eq!(check.broken_at, Some(4), "{check:?}");
    assert!(check.problem.unwrap().contains("changed"));

    // ... and the same for a row's author, which the seal covers too.
    team.sql(
        "ALTER TABLE paydesk.audit_log DISABLE TRIGGER ALL;
         UPDATE paydesk.audit_log SET result = 'ok' WHERE id = 4;
         UPDATE paydesk.audit_log SET db_user = 'someone' WHERE id = 2;
         ALTER TABLE paydesk.audit_log ENABLE TRIGGER ALL;",
    );
    assert_eq!(audit.verify(KEY, None).unwrap().broken_at, Some(2));
    team.sql(
        "ALTER TABLE paydesk.audit_log DISABLE TRIGGER ALL;
         UPDATE paydesk.audit_log SET db_user = 'mia' WHERE id = 2;
         DELETE FROM paydesk.audit_log WHERE id = 5;
         ALTER TABLE paydesk.audit_log ENABLE TRIGGER ALL;",
    );
    let check = audit.verify(KEY, None).unwrap();
    assert_eq!(check.broken_at, Some(5), "{check:?}");
    assert!(check.problem.unwrap().contains("missing"));

    // Nobody else can change a row at all.
    let err = team
        .pg
        .psql_super(DB, "UPDATE paydesk.audit_log SET result = 'x' WHERE id = 1")
        .unwrap_err()
        .to_string();
    assert!(err.contains("append-only"), "{err}");
}

/// Desks appending at the same moment: one chain, numbered without gaps.
#[test]
fn desks_appending_at_once_keep_one_chain() {
    const DESKS: usize = 4;
    const EACH: usize = 25;
    let team = Team::start();
    let links: Vec<PgLink> = (0..DESKS).map(|_| team.link()).collect();
    let barrier = Barrier::new(DESKS);
    std::thread::scope(|s| {
        for (i, link) in links.iter().enumerate() {
            let barrier = &barrier;
            s.spawn(move || {
                barrier.wait();
                for n in 0..EACH {
                    paydesk_store_pg::audit::PgAudit::on(link)
                        .append(record("query", &format!("desk={i} n={n}")), KEY, None)
                        .unwrap();
                }
            });
        }
    });
    let check = team.store.audit().verify(KEY, None).unwrap();
    assert!(check.ok, "{check:?}");
    assert_eq!(check.rows, (DESKS * EACH) as i64);
}

#[test]
fn only_a_signer_writes_the_journal() {
    let team = Team::start().without_requests();
    let maker = team.member("mia", "maker");
    let signer = team.member("sam", "signer");
    let insert =
        "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary,
                          status, created_at, updated_at, fingerprint)
                  VALUES (123, 'p', 'v2.payout', 'S1', '{\"currencyCode\":\"MXN\",\"sourceAmount\":\"1\"}', 's', 'pending', 0, 0, 'fp-S1')";
    let refused = team.pg.psql_as("mia", "x", DB, insert).unwrap_err();
    assert!(refused.contains("permission denied"), "{refused}");
    team.pg.psql_as("sam", "x", DB, insert).unwrap();
    assert_eq!(
        team.sql("SELECT written_by FROM paydesk.journal WHERE mer_order_no = 'S1'")
            .trim(),
        "sam"
    );

    // Through the store: the maker's desk is refused by the database, the signer's goes.
    let body = json!({"currencyCode": "MXN", "sourceAmount": "1.00"});
    let fp = fingerprint(KEY, "v2.payout", &body);
    let intent = Intent {
        operation: "v2.payout",
        mer_order_no: "S2",
        request: &body,
        summary: "s",
        fingerprint: &fp,
        purpose: None,
    };
    let err = PgJournal::on(&maker, MER_NO)
        .begin("mia", intent, GUARD)
        .unwrap_err();
    assert!(
        matches!(&err, CoreError::Validation { rule, .. } if rule.contains("permission denied")),
        "{err:?}"
    );
    assert!(
        PgJournal::on(&maker, MER_NO)
            .get_by_number("mia", "S1")
            .unwrap()
            .is_some(),
        "a maker reads the journal"
    );
    let signer_j = PgJournal::on(&signer, MER_NO);
    let (e, c) = sent(signer_j.begin("sam", intent, GUARD).unwrap());
    assert!(
        signer_j
            .finish(e.id, &c, outcome(Status::Accepted))
            .unwrap()
    );
    assert!(matches!(
        PgJournal::on(&maker, MER_NO).claim(e.id),
        Err(CoreError::Validation { .. })
    ));
}

/// Review r7 (R7-1): a signer with psql writes a queued entry under a number another
/// desk is about to send, with the send's own fingerprint (a signer holds the key) but
/// a smaller amount: the day's sum would read the smaller one. The desk does not send
/// through it; an entry queued with the same amount is taken up as before.
#[test]
fn a_queued_entry_written_by_hand_with_another_amount_is_not_sent_through() {
    let team = Team::start().without_requests();
    let signer = team.member("sam", "signer");
    let plant = |no: &str, amount: &str, fp: &str| {
        team.pg
            .psql_as(
                "sam",
                "x",
                DB,
                &format!(
                    "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary,
                            status, created_at, updated_at, fingerprint)
                     VALUES ({MER_NO}, 'p', 'v2.payout', '{no}',
                             '{{\"merOrderNo\":\"{no}\",\"sourceAmount\":\"{amount}\",\"currencyCode\":\"MXN\"}}',
                             's', 'pending', 0, 0, '{fp}')"
                ),
            )
            .unwrap();
    };
    let j = PgJournal::on(&signer, MER_NO);
    let body =
        |no: &str| json!({"merOrderNo": no, "sourceAmount": "100000", "currencyCode": "MXN"});
    let (b1, b2) = (body("P1"), body("P2"));
    plant("P1", "0.01", &fingerprint(KEY, "v2.payout", &b1));
    match begin_on(&j, "sam", "v2.payout", "P1", &b1) {
        Begin::Mismatch(e) => assert_eq!(e.status, Status::Pending),
        other => panic!("sent through a planted 0.01: {other:?}"),
    }
    plant("P2", "100000.00", &fingerprint(KEY, "v2.payout", &b2));
    let (e, _) = sent(begin_on(&j, "sam", "v2.payout", "P2", &b2));
    assert_eq!(e.status, Status::Sending);
}

/// Schema 0027 (issue 32): an order's `moved_at` is the time its writer states it read
/// the order (the sync's `synced_at`, on the engine's clock), no longer the server's.
/// Attacked as a signer with plain SQL: a stated time before the order's previous read,
/// or more than a day past the server's clock, is not taken (the server's is); a viewer
/// writes no order at all.
#[test]
fn a_signers_stated_read_time_moves_an_order_only_within_bounds() {
    use paydesk_core::store::orders::Upsert;
    use paydesk_gateway::wire::OrderListItem;

    let team = Team::start();
    team.member("sam", "signer");
    team.member("vic", "viewer");
    // An hour before the server's clock: a new order's stated read is taken within a
    // day of it (schema 0028).
    let t0: i64 = team
        .sql("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint - 3600000")
        .trim()
        .parse()
        .unwrap();
    let it = OrderListItem {
        state: 2,
        trade_no: "TMV1".into(),
        mer_order_no: "MV1".into(),
        source_amount: rust_decimal::Decimal::new(10_000, 2),
        source_currency: "MXN".into(),
        ..OrderListItem::default()
    };
    let row = Upsert {
        item: &it,
        created_at: t0,
        verified: true,
        window_end: None,
    };
    team.store
        .orders()
        .upsert_at(MER_NO as u64, &[row], t0)
        .unwrap();
    let moved = || -> i64 {
        team.sql("SELECT moved_at FROM paydesk.orders WHERE trade_no = 'TMV1'")
            .trim()
            .parse()
            .unwrap()
    };
    let server_now = || -> i64 {
        team.sql("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint")
            .trim()
            .parse()
            .unwrap()
    };
    assert_eq!(moved(), t0, "first seen at the sync's time");
    let as_sam = |q: &str| team.pg.psql_as("sam", "x", DB, q);

    // Within bounds: the signer's stated read time.
    as_sam(&format!(
        "UPDATE paydesk.orders SET settle = 1, synced_at = {} WHERE trade_no = 'TMV1'",
        t0 + 5_000
    ))
    .unwrap();
    assert_eq!(moved(), t0 + 5_000);

    // Before the order's previous read: the server's time instead.
    let before = server_now();
    as_sam(&format!(
        "UPDATE paydesk.orders SET handling_fee = 9, synced_at = {} WHERE trade_no = 'TMV1'",
        t0 + 1_000
    ))
    .unwrap();
    let m = moved();
    assert!(m >= before && m <= server_now(), "backdated: {m}");

    // Ten days past the server's clock: the server's time instead.
    let future = server_now() + 10 * 86_400_000;
    let before = server_now();
    as_sam(&format!(
        "UPDATE paydesk.orders SET refund_amount = 1, synced_at = {future} WHERE trade_no = 'TMV1'"
    ))
    .unwrap();
    let m = moved();
    assert!(m >= before && m <= server_now(), "in the future: {m}");

    // A viewer moves nothing.
    let refused = team
        .pg
        .psql_as(
            "vic",
            "x",
            DB,
            "UPDATE paydesk.orders SET settle = 2, synced_at = 1 WHERE trade_no = 'TMV1'",
        )
        .unwrap_err();
    assert!(refused.contains("permission denied"), "{refused}");
    assert_eq!(
        team.sql("SELECT settle FROM paydesk.orders WHERE trade_no = 'TMV1'")
            .trim(),
        "1"
    );
}
