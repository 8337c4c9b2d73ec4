//! Issue 30, what the fourth hostile review found (notes: review-sql-r4, migration 0022):
//! each hole attacked as the member who would use it, with plain SQL (psql, their own
//! password), or the desk's own flow that broke, on a team owned by a role that is not
//! a superuser.

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_store_pg::AsPgLink;
use paydesk_team::TeamRole;
use paydesk_testpg::{Options, TestPg};

use common::team::{DB, PASSWORD, member, owner_sql};

/// Admin alice, makers mark and max, approver ann, viewer vic, signers sam and sid; MXN payouts
/// above 10,000 need one approval.
fn team_db_with(opts: Options) -> TestPg {
    common::team::team_db_of(
        opts,
        &[
            ("mark", TeamRole::Maker),
            ("max", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("vic", TeamRole::Viewer),
            ("sam", TeamRole::Signer),
            ("sid", TeamRole::Signer),
        ],
        "10000",
    )
}

fn team_db() -> TestPg {
    team_db_with(Options::default())
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

// ---------------------------------------------------------------------------------
// F1: the signer's desk updates only columns the signer holds UPDATE on.

/// Tables the desk's PostgreSQL store updates that are not the signer's to write: the
/// team's settings and rules (the admin's), each member's own saved views, and the
/// record of the schema's migrations (`team init`'s, as the database's owner).
const NOT_THE_SIGNERS: [&str; 5] = [
    "team",
    "rules",
    "saved_views",
    "last_views",
    "schema_migrations",
];

/// Every (table, column) an `UPDATE paydesk.<table> ... SET` or an
/// `INSERT INTO paydesk.<table> ... ON CONFLICT ... DO UPDATE SET` in the desk's
/// PostgreSQL store (crates/store-pg/src, its schema aside) sets, read from the
/// Rust source itself, so a column added to a statement later is checked too.
fn columns_the_desk_updates() -> std::collections::BTreeSet<(String, String)> {
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    fn ident(s: &str) -> &str {
        let end = s
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(s.len());
        &s[..end]
    }
    // The SET list starting at `s`: its assignments' columns, up to the clause's end
    // (WHERE/FROM/RETURNING at depth 0, a closing parenthesis of the enclosing CTE, or
    // the end of the Rust string).
    fn set_columns(s: &str) -> Vec<String> {
        let b = s.as_bytes();
        let (mut depth, mut i, mut start, mut parts) = (0i32, 0usize, 0usize, Vec::new());
        while i < b.len() {
            let c = b[i] as char;
            let at_word = i > 0 && (b[i - 1] as char).is_whitespace();
            if c == '"' {
                break;
            }
            if c == '(' {
                depth += 1;
            } else if c == ')' {
                depth -= 1;
                if depth < 0 {
                    break;
                }
            } else if depth == 0 && c == ',' {
                parts.push(&s[start..i]);
                start = i + 1;
            } else if depth == 0
                && at_word
                && ["WHERE", "FROM", "RETURNING"]
                    .iter()
                    .any(|k| s[i..].starts_with(k) && ident(&s[i..]).len() == k.len())
            {
                break;
            }
            i += 1;
        }
        parts.push(&s[start..i]);
        parts
            .into_iter()
            .map(|p| {
                let col = p
                    .split('=')
                    .next()
                    .unwrap()
                    .trim()
                    .trim_matches('\\')
                    .trim();
                assert!(
                    !col.is_empty() && ident(col) == col,
                    "cannot read a column out of SET item {p:?}"
                );
                col.to_string()
            })
            .collect()
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/store-pg/src");
    let mut paths = Vec::new();
    files(&root, &mut paths);
    let mut out = std::collections::BTreeSet::new();
    for p in paths {
        // Without the SQL's own `--` comments (a comment inside a SET list is no column).
        let text: String = std::fs::read_to_string(&p)
            .unwrap()
            .lines()
            .map(|l| match l.find("-- ") {
                Some(i) => &l[..i],
                None => l,
            })
            .collect::<Vec<_>>()
            .join("\n");
        for (at, _) in text.match_indices("UPDATE paydesk.") {
            let rest = &text[at + "UPDATE paydesk.".len()..];
            let table = ident(rest);
            let mut after = rest[table.len()..].trim_start();
            if !after.starts_with("SET") {
                // An alias (`UPDATE paydesk.orders o SET`).
                after = after[ident(after).len()..].trim_start();
            }
            assert!(
                after.starts_with("SET"),
                "{}: UPDATE paydesk.{table} without SET",
                p.display()
            );
            for col in set_columns(&after[3..]) {
                out.insert((table.to_string(), col));
            }
        }
        for (at, _) in text.match_indices("DO UPDATE") {
            let before = &text[..at];
            let ins = before.rfind("INSERT INTO paydesk.").unwrap();
            let table = ident(&before[ins + "INSERT INTO paydesk.".len()..]);
            let after = text[at + "DO UPDATE".len()..].trim_start();
            assert!(
                after.starts_with("SET"),
                "{}: DO UPDATE without SET",
                p.display()
            );
            for col in set_columns(&after[3..]) {
                out.insert((table.to_string(), col));
            }
        }
    }
    out
}

/// F1: every column the desk's SQL updates on a table the signer's desk writes (the
/// journal, the read model, the requests and their rows), the signer holds UPDATE on;
/// the reading of the source found the statements (the review submission's evidence,
/// the orders' upsert, the journal's claim among them).
#[test]
fn the_signer_holds_update_on_every_column_the_desk_updates() {
    let pg = team_db();
    let found = columns_the_desk_updates();
    for known in [
        ("review_submissions", "evidence"),
        ("review_submissions", "outcome"),
        ("orders", "amount_e4"),
        ("journal", "claimed_until"),
        ("requests", "claimed_pid"),
        ("sync_state", "error"),
        ("request_rows", "status"),
    ] {
        assert!(
            found.contains(&(known.0.to_string(), known.1.to_string())),
            "the source reading missed {known:?}: {found:?}"
        );
    }
    let signer: Vec<_> = found
        .iter()
        .filter(|(t, _)| !NOT_THE_SIGNERS.contains(&t.as_str()))
        .collect();
    assert!(signer.len() > 40, "{signer:?}");
    let list = signer
        .iter()
        .map(|(t, c)| format!("('paydesk.{t}', '{c}')"))
        .collect::<Vec<_>>()
        .join(", ");
    assert_eq!(
        owner_sql(
            &pg,
            &format!(
                "SELECT coalesce(string_agg(t || '.' || c, ', ' ORDER BY t, c), 'none')
                   FROM (VALUES {list}) v (t, c)
                  WHERE NOT has_column_privilege('paydesk_signer', t, c, 'UPDATE')"
            )
        ),
        "none"
    );
}

/// F1: a signer's desk records a review submission's outcome, then its later outcome
/// (the update of the same reference, evidence kept or replaced), on the team.
#[test]
fn a_signer_records_a_review_submission_twice() {
    use paydesk_core::store::reviews::{Outcome, ReviewStore as _};
    use paydesk_store_pg::cache::PgReviews;
    let pg = team_db();
    let sam = member(&pg, "sam");
    let reviews = PgReviews::on(sam.link().pg(), common::MER as i64);
    let outcome = |outcome: &'static str, evidence: &'static str| Outcome {
        reference: "R-1",
        journal_id: None,
        trade_no: "T-REV-1",
        info_count: 1,
        files: "a.pdf",
        outcome,
        request: "{}",
        evidence,
    };
    reviews
        .record(outcome("sent", r#"[{"name":"a.pdf"}]"#))
        .unwrap();
    reviews.record(outcome("accepted", "[]")).unwrap();
    reviews
        .record(outcome("rejected", r#"[{"name":"b.pdf"}]"#))
        .unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT count(*) || ' ' || string_agg(outcome || ' ' || evidence, ';')
               FROM paydesk.review_submissions WHERE reference = 'R-1'"
        ),
        r#"1 rejected [{"name":"b.pdf"}]"#
    );
}

// ---------------------------------------------------------------------------------
// F5: a member's log row prints as one line of its own.

/// F5: a viewer's log row whose identifiers carry a line break and a forged line in
/// another member's name, or whose result carries an ANSI erase, a carriage return or a
/// right-to-left override, is refused, naming the field; a payee's name in any script
/// is written. The desk's own writer escapes such characters instead of failing.
#[test]
fn a_members_log_row_cannot_print_as_another_members_line() {
    let pg = team_db();
    let append = |identifiers: &str, result: &str| {
        sql(
            &pg,
            "vic",
            &format!(
                "SELECT (paydesk.audit_append(0, 'desk', session_user, 'export', {identifiers}, {result}, 0)).operator"
            ),
        )
    };
    for identifiers in [
        "E'x\\n#9      1764201000000 apo        team.request.approved    request=2'",
        "E'x\\r#9 apo team.request.approved'",
        "E'request=2\\t'",
        "'request=' || U&'\\202E' || '2'",
        "'request=' || U&'\\2066' || '2'",
        "'request=' || U&'\\200B' || '2'",
        "'request=' || U&'\\2028' || '2'",
        "'request=' || U&'\\0085' || '2'",
    ] {
        refused(
            append(identifiers, "'ok'"),
            &format!("a viewer's row with identifiers {identifiers}"),
            "identifiers:",
        );
    }
    for result in ["E'ok\\x1b[2K'", "E'ok\\x7f'", "'ok' || U&'\\FEFF'"] {
        refused(
            append("'request=2'", result),
            &format!("a viewer's row with result {result}"),
            "result:",
        );
    }
    assert_eq!(
        append("'payee=José Müller 李雷'", "'ok'").unwrap().trim(),
        "vic"
    );
    // The desk's own writer escapes what the log refuses.
    use paydesk_core::store::prelude::AuditStore as _;
    let sam = member(&pg, "sam");
    let audit = paydesk_store_pg::audit::PgAudit::on(sam.link().pg());
    let (row, _) = audit
        .append(
            paydesk_core::store::audit::Record {
                profile: "desk",
                operator: "sam",
                operation: "orders.export",
                identifiers: "a\nb José".into(),
                result: "ok\u{1b}[2K\u{202e}".into(),
                latency_ms: 0,
            },
            &[],
            None,
        )
        .unwrap();
    assert_eq!(row.identifiers, "a\\nb José");
    assert_eq!(row.result, "ok\\u{1b}[2K\\u{202e}");
}

// ---------------------------------------------------------------------------------
// F4: a dead worker's claim is not kept alive by another member's session.

fn payout(pg: &TestPg, amount: &str, no: &str) -> i64 {
    let mut form = paydesk_core::forms::PayoutForm::new(
        paydesk_core::forms::PayoutKind::Clabe,
        no,
        amount,
        "MXN",
    );
    form.clabe = common::team::CLABE.into();
    member(pg, "mark").request_payout(&form).unwrap().id
}

/// The owner's pid-watching grants taken away (PostgreSQL 16 and later when no
/// superuser granted them; on 15 the owner took them itself at `team init`).
fn team_without_grants() -> TestPg {
    let pg = team_db_with(Options::default().without_owner_grants());
    pg.psql_super(
        "postgres",
        &format!(
            "REVOKE pg_signal_backend, pg_read_all_stats FROM {}",
            pg.owner()
        ),
    )
    .unwrap();
    pg
}

/// F4: on a team whose owner may not read members' session start times, a dead
/// worker's request whose process number another member's session now has (faked: the
/// owner writes a live viewer session's number into the claim, as after PostgreSQL
/// handed the number out again) is taken over by the second signer's worker; a live
/// worker's claim is still never taken over by another signer.
#[test]
fn a_dead_workers_claim_is_not_kept_alive_by_another_members_session_without_grants() {
    use paydesk_store_pg::team::TeamTables;
    let pg = team_without_grants();
    let id = payout(&pg, "500", "PIN-F4-1");
    let later = payout(&pg, "400", "PIN-F4-2");
    sql(
        &pg,
        "sam",
        &format!(
            "UPDATE paydesk.requests SET state = 'executing', claimed_pid = pg_backend_pid() WHERE id = {id}"
        ),
    )
    .unwrap();
    let claim = |id: i64| {
        owner_sql(
            &pg,
            &format!(
                "SELECT state || ' ' || claimed_by || ' ' || (claimed_backend_start IS NULL)
                   FROM paydesk.requests WHERE id = {id}"
            ),
        )
    };
    // The owner could not read the claiming session's start: judged by number (and
    // now role) alone.
    assert_eq!(claim(id), "executing sam true");
    std::thread::scope(|s| {
        let viewer = s.spawn(|| sql(&pg, "vic", "SELECT pg_sleep(6)"));
        let started = std::time::Instant::now();
        let pid = loop {
            let pid = owner_sql(
                &pg,
                "SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE usename = 'vic'",
            );
            if pid != "0" {
                break pid;
            }
            assert!(
                started.elapsed().as_secs() < 5,
                "the viewer never connected"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        owner_sql(
            &pg,
            &format!(
                "BEGIN;
                 ALTER TABLE paydesk.requests DISABLE TRIGGER request_moves;
                 UPDATE paydesk.requests SET claimed_pid = {pid} WHERE id = {id};
                 ALTER TABLE paydesk.requests ENABLE TRIGGER request_moves;
                 COMMIT;"
            ),
        );
        let sid = member(&pg, "sid");
        let sid_tables = TeamTables::on(sid.link().pg());
        assert_eq!(sid_tables.claim_next(30).unwrap().map(|r| r.id), Some(id));
        assert_eq!(claim(id), "executing sid true");
        // Sid's live claim stays sid's: sam's worker takes the next request, and sam's
        // plain SQL does not take it over.
        let sam = member(&pg, "sam");
        assert_eq!(
            TeamTables::on(sam.link().pg())
                .claim_next(30)
                .unwrap()
                .map(|r| r.id),
            Some(later)
        );
        refused(
            sql(
                &pg,
                "sam",
                &format!(
                    "UPDATE paydesk.requests SET claimed_pid = pg_backend_pid() WHERE id = {id}"
                ),
            ),
            "take over a live worker's request",
            "whose worker still runs",
        );
        // Its row's outcome first (the owner's hand here: this test is about the claim),
        // since a request is done only once every row has one (schema 0041, review r10).
        owner_sql(
            &pg,
            &format!("UPDATE paydesk.request_rows SET status = 'accepted' WHERE request_id = {id}"),
        );
        sid_tables.finish(id, true, "1 accepted").unwrap();
        assert_eq!(claim(id), "done sid true");
        viewer.join().unwrap().unwrap();
    });
}

// ---------------------------------------------------------------------------------
// F2: a card payout's holder in the journal.

/// F2: the journal entry of a card payout the signer's worker sent names its holder
/// (summary and request: name, e-mail, mobile, address). A viewer, an admin and a maker
/// of another request are refused the journal's `request` and `summary` in plain SQL,
/// and read the entry through the desk's own journal with the holder left out (the
/// card's mask, the amount, the number and the outcome kept), nor find the order by the
/// holder's name; the approver, the signer and the maker who asked for the payout read
/// it whole.
#[test]
fn a_card_holder_in_the_journal_is_shown_only_to_who_approves_sends_or_asked() {
    use paydesk_core::store::orders::OrderStore as _;
    use paydesk_core::store::prelude::JournalStore as _;
    use paydesk_store_pg::journal::PgJournal;
    let pg = team_db();
    let mer = common::MER as i64;
    // Mark's card payout request under PIN-CARD-J (as his desk writes it).
    let holder = "card 411111******1111 of John Doe, MX, jd@x.mx";
    sql(
        &pg,
        "mark",
        &format!(
            "BEGIN;
             INSERT INTO paydesk.requests (operation, currency, total, row_count, summary)
                  VALUES ('payout', 'MXN', 500, 1, '500 MXN to {holder}');
             INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary)
                  VALUES (currval('paydesk.requests_id_seq'), 1, 'PIN-CARD-J', 500,
                          '{{\"kind\":\"CARD\",\"merOrderNo\":\"PIN-CARD-J\",\"amount\":\"500\",\"currency\":\"MXN\",\"sealedCardNo\":\"x\"}}',
                          '{holder}');
             COMMIT;"
        ),
    )
    .unwrap();
    // Approved and executed by sam's worker (a signer journals a payout only so, 0039).
    common::team::take_row(&pg, "ann", "sam", "PIN-CARD-J");
    // The signer's worker's journal entry of that payout (as `payout_card` writes it).
    let request = r#"{"benFirstName":"John","benLastName":"Doe","cardNo":"411111******1111","currencyCode":"MXN","email":"jd@x.mx","merOrderNo":"PIN-CARD-J","mobile":"5512345678","addressLine":"Calle 1","city":"CDMX","postCode":"01000","sourceAmount":"500"}"#;
    sql(
        &pg,
        "sam",
        &format!(
            "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status,
                 attempts, created_at, updated_at, fingerprint, trade_no)
             VALUES ({mer}, 'team', 'v1.payout', 'PIN-CARD-J', '{request}',
                     'payout CARD 500 MXN to John Doe 411111******1111', 'sending', 1, 1, 1, 'fp', 'T-CARD-J');
             UPDATE paydesk.journal SET status = 'accepted', claimed_by = 'pg:' || pg_backend_pid() || ':psql'
              WHERE mer_order_no = 'PIN-CARD-J';
             INSERT INTO paydesk.orders (mer_no, trade_no, mer_order_no, state, currency, source_amount,
                 amount_e4, created_at, synced_at)
             VALUES ({mer}, 'T-CARD-J', 'PIN-CARD-J', 2, 'MXN', 500, 5000000, 1, 1)"
        ),
    )
    .unwrap();
    for user in ["vic", "alice", "max"] {
        for col in ["summary", "request"] {
            refused(
                sql(
                    &pg,
                    user,
                    &format!("SELECT {col} FROM paydesk.journal WHERE mer_order_no = 'PIN-CARD-J'"),
                ),
                &format!("{user} reads the journal's {col}"),
                "permission denied",
            );
        }
        // What the journal's screens need besides is still theirs.
        assert_eq!(
            sql(
                &pg,
                user,
                "SELECT status || ' ' || operation FROM paydesk.journal WHERE mer_order_no = 'PIN-CARD-J'"
            )
            .unwrap()
            .trim(),
            "accepted v1.payout"
        );
    }
    let holder_words = [
        "John",
        "Doe",
        "jd@x.mx",
        "5512345678",
        "Calle",
        "CDMX",
        "01000",
    ];
    for (user, sees) in [
        ("vic", false),
        ("alice", false),
        ("max", false),
        ("mark", true),
        ("ann", true),
        ("sam", true),
    ] {
        let team = member(&pg, user);
        // The orders screen finds the sent order by its holder's name only for who may
        // read the holder.
        let by_holder = paydesk_store_pg::orders::PgOrders::on(team.link().pg(), mer)
            .count(&paydesk_core::store::orders::OrderFilter {
                search: Some("Doe".into()),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(by_holder, i64::from(sees), "{user}");
        let journal = PgJournal::on(team.link().pg(), mer);
        let listed = journal.list("team", &[], &[], 100).unwrap();
        assert_eq!(listed.len(), 1, "{user}");
        let one = journal
            .get_by_number("team", "PIN-CARD-J")
            .unwrap()
            .unwrap();
        for e in [&listed[0], &one] {
            let text = format!("{} {}", e.summary, e.request);
            assert_eq!(e.mer_order_no, "PIN-CARD-J", "{user}");
            assert!(e.request["cardNo"] == "411111******1111", "{user}: {text}");
            assert!(e.request["sourceAmount"] == "500", "{user}: {text}");
            if sees {
                assert_eq!(
                    e.summary,
                    "payout CARD 500 MXN to John Doe 411111******1111"
                );
                assert!(
                    holder_words.iter().all(|w| text.contains(w)),
                    "{user}: {text}"
                );
            } else {
                assert_eq!(
                    e.summary, "payout CARD 500 MXN to card 411111******1111",
                    "{user}"
                );
                assert!(
                    holder_words.iter().all(|w| !text.contains(w)),
                    "{user}: {text}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------
// F3: a signer holding the requests' rows in an idle transaction.

/// A member's psql left open: the statements run, then the session idles (no
/// statement running) until the test drops it.
struct IdleSession {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    _out: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
    pid: i32,
}

impl IdleSession {
    fn open(pg: &TestPg, user: &str, statements: &str) -> IdleSession {
        use std::io::{BufRead as _, Write as _};
        use std::process::{Command, Stdio};
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
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
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
        use std::io::Write as _;
        let _ = writeln!(self.stdin, "\\q");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// F3: signer sid sets its idle bound to 0 and holds every approved request's row in a
/// transaction left idle: sam's worker finds nothing to claim. Once sid's session has
/// sat so 10 s with a request waiting, the stall check the worker runs (`end_stalls`)
/// ends it, saying so in the log, and sam's worker takes the request.
#[test]
fn a_signer_holding_the_approved_requests_idle_is_ended() {
    use paydesk_store_pg::team::TeamTables;
    let pg = team_db();
    let id = payout(&pg, "500", "PIN-F3-1");
    let holder = IdleSession::open(
        &pg,
        "sid",
        "SET idle_in_transaction_session_timeout = 0;
         BEGIN;
         SELECT id FROM paydesk.requests WHERE state IN ('approved', 'executing') FOR UPDATE;",
    );
    let sam = member(&pg, "sam");
    let tables = TeamTables::on(sam.link().pg());
    assert_eq!(tables.claim_next(30).unwrap().map(|r| r.id), None);
    // Not yet: a transaction idle a moment is any desk's.
    assert_eq!(tables.end_stalls().unwrap(), 0);
    assert!(holder.alive(&pg));
    std::thread::sleep(std::time::Duration::from_millis(10_500));
    assert_eq!(tables.end_stalls().unwrap(), 1);
    let started = std::time::Instant::now();
    while holder.alive(&pg) {
        assert!(started.elapsed().as_secs() < 5, "sid's session still runs");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(tables.claim_next(30).unwrap().map(|r| r.id), Some(id));
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT string_agg(identifiers || ' ' || result, ';') FROM (
                 SELECT identifiers, result FROM paydesk.audit_log WHERE operation = 'team.stall.end'
                 UNION ALL
                 SELECT identifiers, result FROM paydesk.audit_inbox WHERE operation = 'team.stall.end') x"
        )
        .split(" for ")
        .next()
        .unwrap(),
        "member=sid ended: idle in transaction"
    );
}

// ---------------------------------------------------------------------------------
// F6: the signer's desk's locks are no member's to take.

/// F6: on a team whose owner may not end members' sessions, a viewer takes the
/// advisory lock of the merchant's order cache (its key computed from public strings,
/// as the desk computes it) at session level and idles: the signer's desk still
/// records an order at once. The table the desk's locks now live on is refused to
/// every member, the signer included.
#[test]
fn a_viewer_cannot_take_the_signers_desk_lock() {
    use paydesk_core::store::orders::{MadeOrder, OrderKind, OrderStore as _};
    let pg = team_without_grants();
    let mer = common::MER as i64;
    let key = format!(
        "('x' || left(encode(sha256(convert_to(E'paydesk.orders\\x1f' || {mer}, 'UTF8')), 'hex'), 16))::bit(64)::bigint"
    );
    let _viewer = IdleSession::open(&pg, "vic", &format!("SELECT pg_advisory_lock({key});"));
    let sam = member(&pg, "sam");
    let orders = paydesk_store_pg::orders::PgOrders::on(sam.link().pg(), mer);
    let started = std::time::Instant::now();
    assert!(
        orders
            .record_made(
                mer as u64,
                &MadeOrder {
                    trade_no: "T-F6-1".into(),
                    mer_order_no: "M-F6-1".into(),
                    kind: OrderKind::Payout,
                    method: "CLABE".into(),
                    currency: "MXN".into(),
                    amount: "500".parse().unwrap(),
                    state: Some(2),
                    made_at: 1,
                },
            )
            .unwrap()
    );
    assert!(
        started.elapsed().as_secs() < 3,
        "the signer's write waited {:?}",
        started.elapsed()
    );
    for user in ["vic", "sam", "alice"] {
        refused(
            sql(
                &pg,
                user,
                "BEGIN; SELECT key FROM paydesk.desk_locks FOR UPDATE; ROLLBACK;",
            ),
            &format!("{user} locks the desk's locks"),
            "permission denied",
        );
    }
}
