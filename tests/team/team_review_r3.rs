//! Issue 30, what the second hostile review left (migration 0016): each hole attacked
//! as the member who would use it, with plain SQL (psql, their own password), on a team
//! owned by a role that is not a superuser. What a member relies on: no signer LOCKs a
//! table the team's work reads; the team's own log rows are the team's, however a
//! desk spells "team"; an order's amount for sorting and filtering is its amount; a
//! dead worker's request is taken up by another signer though its server process's
//! number was reused; an order the read model held before a request asked its number
//! is never labelled as made by that request.

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_store_pg::AsPgLink;
use paydesk_team::TeamRole;
use paydesk_testpg::{Options, TestPg};

use common::team::{CLABE, DB, PASSWORD, member, owner_sql};

/// Admin alice, makers mark and max, approver ann, viewer vic, signers sam and sid; MXN payouts
/// above 10,000 need one approval.
fn team_db() -> TestPg {
    common::team::team_db_of(
        Options::default(),
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
    // Every function that runs with the owner's rights (0016's new ones included) puts
    // pg_temp last and bounds its lock waits; the signer's advisory lock keeps its 5 s.
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT coalesce(string_agg(p.proname, ', '), 'none') FROM pg_proc p
              WHERE p.pronamespace = 'paydesk'::regnamespace AND p.prosecdef
                AND (NOT 'search_path=pg_catalog, paydesk, pg_temp' = ANY (p.proconfig)
                     OR NOT EXISTS (SELECT 1 FROM unnest(p.proconfig) c WHERE c LIKE 'lock\\_timeout=%'))"
        ),
        "none"
    );
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT c FROM pg_proc p, unnest(p.proconfig) c
              WHERE p.proname = 'advisory_xact_lock' AND c LIKE 'lock\\_timeout=%'"
        ),
        "lock_timeout=5s"
    );
    // The sync's error is recorded and cleared through the desk's own store.
    use paydesk_core::store::sync_state::SyncStateStore as _;
    let team = member(&pg, "sam");
    let store = paydesk_store_pg::cache::PgSyncState::on(team.link().pg(), common::MER as i64);
    store.record_error("p", "gateway down").unwrap();
    assert_eq!(store.last_error("p").unwrap().unwrap().1, "gateway down");
    store.clear_error("p").unwrap();
    assert_eq!(store.last_error("p").unwrap(), None);
}

/// R3-2: a member's log row never passes for the team's own: profile `team` and
/// operations `team.*` spelled with a tab, a line break, a no-break space, a zero-width
/// space or a look-alike letter are refused, naming the field; a desk's own profile
/// (`team (desk)` included) is written.
#[test]
fn a_members_log_row_never_spells_the_teams_profile_another_way() {
    let pg = team_db();
    let append = |who: &str, profile: &str, operation: &str| {
        sql(
            &pg,
            who,
            &format!(
                "SELECT (paydesk.audit_append(0, {profile}, session_user, {operation}, 'request=1', 'approved', 0)).operator"
            ),
        )
    };
    for profile in [
        "'team' || E'\\t'",
        "E'\\tteam'",
        "'team' || E'\\n'",
        "E'\\rteam'",
        "'team' || U&'\\00A0'",
        "U&'\\00A0team'",
        "'te' || U&'\\200B' || 'am'",
        "'team' || U&'\\3000'",
        "U&'t\\0435am'",
        "'TEAM' || E'\\x0b'",
    ] {
        refused(
            append("vic", profile, "'payout.submit'"),
            &format!("a viewer's row with profile {profile}"),
            "profile:",
        );
    }
    for operation in [
        "E'\\tteam.approve'",
        "E'\\nteam.approve'",
        "U&'\\00A0team.approve'",
        "U&'\\FEFFteam.approve'",
        "U&'\\0442eam.approve'",
    ] {
        refused(
            append("mark", "'desk'", operation),
            &format!("a maker's row with operation {operation}"),
            "operation:",
        );
    }
    // A desk's own rows are written, in the member's name.
    assert_eq!(
        append("vic", "'team (desk)'", "'payout.submit'")
            .unwrap()
            .trim(),
        "vic"
    );
    assert_eq!(
        append("mark", "'my-desk_2'", "'orders.export'")
            .unwrap()
            .trim(),
        "mark"
    );
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT count(*) FROM (SELECT profile FROM paydesk.audit_log WHERE operator IN ('vic', 'mark')
                                   UNION ALL SELECT profile FROM paydesk.audit_inbox WHERE operator IN ('vic', 'mark')) x"
        ),
        "2"
    );
    // The desk writes a profile it cannot spell in printable ASCII escaped, never refused.
    use paydesk_core::store::prelude::AuditStore as _;
    let sam = member(&pg, "sam");
    let audit = paydesk_store_pg::audit::PgAudit::on(sam.link().pg());
    let (row, _) = audit
        .append(
            paydesk_core::store::audit::Record {
                profile: "team\t",
                operator: "sam",
                operation: "orders.export",
                identifiers: "x".into(),
                result: "ok".into(),
                latency_ms: 0,
            },
            &[],
            None,
        )
        .unwrap();
    assert_eq!(row.profile, "team\\t");
    assert_eq!(row.operator, "sam");
}

/// R3-3: an order's amount for sorting and filtering (`amount_e4`, the amount times
/// 10^4) is its amount's, whatever the signer writes: `record_made` refuses another
/// value, and the sync's own insert and update keep the amount's. The desk's value
/// (rounded half away from zero) is the database's.
#[test]
fn an_orders_sorting_amount_is_its_amount() {
    use paydesk_core::store::orders::{MadeOrder, OrderKind, OrderStore as _};
    let pg = team_db();
    let mer = common::MER as i64;
    let e4 = |trade_no: &str| {
        owner_sql(
            &pg,
            &format!(
                "SELECT source_amount || ' ' || amount_e4 FROM paydesk.orders WHERE trade_no = '{trade_no}'"
            ),
        )
    };
    refused(
        sql(
            &pg,
            "sam",
            &format!(
                "SELECT paydesk.record_made({mer}, 'T-E4-1', 'M-E4-1', 'payout', 2, 'CLABE', 'MXN', 900000, 50000, 1)"
            ),
        ),
        "the signer records 900,000 as sorting like 5",
        "amount_e4",
    );
    assert_eq!(e4("T-E4-1"), "");
    sql(
        &pg,
        "sam",
        &format!(
            "INSERT INTO paydesk.orders (mer_no, trade_no, mer_order_no, state, currency, source_amount,
                 amount_e4, created_at, synced_at)
             VALUES ({mer}, 'T-E4-2', 'M-E4-2', 5, 'MXN', 900000, 50000, 1, 1)"
        ),
    )
    .unwrap();
    assert_eq!(e4("T-E4-2"), "900000 9000000000");
    sql(
        &pg,
        "sam",
        "UPDATE paydesk.orders SET amount_e4 = 1 WHERE trade_no = 'T-E4-2'",
    )
    .unwrap();
    assert_eq!(e4("T-E4-2"), "900000 9000000000");
    sql(
        &pg,
        "sam",
        "UPDATE paydesk.orders SET source_amount = 12.5, amount_e4 = 1 WHERE trade_no = 'T-E4-2'",
    )
    .unwrap();
    assert_eq!(e4("T-E4-2"), "12.5 125000");
    // The desk's own record: half a ten-thousandth rounds away from zero, as the
    // database rounds it.
    let sam = member(&pg, "sam");
    let orders = paydesk_store_pg::orders::PgOrders::on(sam.link().pg(), mer);
    assert!(
        orders
            .record_made(
                mer as u64,
                &MadeOrder {
                    trade_no: "T-E4-3".into(),
                    mer_order_no: "M-E4-3".into(),
                    kind: OrderKind::Payout,
                    method: "CLABE".into(),
                    currency: "MXN".into(),
                    amount: "1.23455".parse().unwrap(),
                    state: Some(2),
                    made_at: 1,
                },
            )
            .unwrap()
    );
    assert_eq!(e4("T-E4-3"), "1.23455 12346");
}

/// R3-4: a worker's claim names its session by process number and start time. A dead
/// worker's number taken by another member's session (faked here: the owner writes a
/// live viewer session's number into the claim, the start time staying the dead
/// worker's, as after PostgreSQL reused the number) no longer keeps the request held:
/// the second signer's worker takes it over. A live worker's claim is never taken
/// over, given back or ended by another signer's plain SQL.
#[test]
fn a_dead_workers_request_is_taken_over_though_its_process_number_was_reused() {
    use paydesk_store_pg::team::TeamTables;
    let pg = team_db();
    let id = payout(&pg, "500", "PIN-PID-1");
    let later = payout(&pg, "400", "PIN-PID-2");
    // Sam's worker claims the first, then its session ends.
    sql(
        &pg,
        "sam",
        &format!(
            "UPDATE paydesk.requests SET state = 'executing', claimed_pid = pg_backend_pid() WHERE id = {id}"
        ),
    )
    .unwrap();
    let claimed_by = |id: i64| {
        owner_sql(
            &pg,
            &format!("SELECT state || ' ' || claimed_by FROM paydesk.requests WHERE id = {id}"),
        )
    };
    assert_eq!(claimed_by(id), "executing sam");
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
        // Sid's worker takes the dead worker's request up while the viewer's session
        // with its number runs.
        let sid = member(&pg, "sid");
        let sid_tables = TeamTables::on(sid.link().pg());
        assert_eq!(sid_tables.claim_next(30).unwrap().map(|r| r.id), Some(id));
        assert_eq!(claimed_by(id), "executing sid");
        assert_eq!(
            owner_sql(
                &pg,
                &format!(
                    "SELECT count(*) FROM paydesk.requests q JOIN pg_stat_activity a
                        ON a.pid = q.claimed_pid AND a.backend_start = q.claimed_backend_start
                     WHERE q.id = {id} AND a.usename = 'sid'"
                )
            ),
            "1"
        );
        // Sam's new worker leaves sid's live claim alone and takes the next request.
        let sam = member(&pg, "sam");
        assert_eq!(
            TeamTables::on(sam.link().pg())
                .claim_next(30)
                .unwrap()
                .map(|r| r.id),
            Some(later)
        );
        // Nor does sam's plain SQL take over, give back or end sid's request.
        for (what, q) in [
            (
                "take over a live worker's request",
                format!(
                    "UPDATE paydesk.requests SET claimed_pid = pg_backend_pid() WHERE id = {id}"
                ),
            ),
            (
                "give back a live worker's request",
                format!("UPDATE paydesk.requests SET claimed_pid = NULL WHERE id = {id}"),
            ),
            (
                "end a live worker's request",
                format!(
                    "UPDATE paydesk.requests SET state = 'done', outcome = 'x' WHERE id = {id}"
                ),
            ),
        ] {
            refused(sql(&pg, "sam", &q), what, "whose worker still runs");
        }
        assert_eq!(claimed_by(id), "executing sid");
        // A claim is the claiming session's, whatever number the signer writes.
        let third = payout(&pg, "300", "PIN-PID-3");
        assert_eq!(
            sql(
                &pg,
                "sid",
                &format!(
                    "UPDATE paydesk.requests SET state = 'executing', claimed_pid = 1 WHERE id = {third}
                     RETURNING claimed_pid = pg_backend_pid()"
                ),
            )
            .unwrap()
            .trim(),
            "t"
        );
        // Its row's outcome first (the owner's hand here: this test is about the claim),
        // since a request is done only once every row has one (schema 0041, review r10).
        owner_sql(
            &pg,
            &format!("UPDATE paydesk.request_rows SET status = 'accepted' WHERE request_id = {id}"),
        );
        sid_tables.finish(id, true, "1 accepted").unwrap();
        assert_eq!(claimed_by(id), "done sid");
        viewer.join().unwrap().unwrap();
    });
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

/// R3-5: an order the team's read model held before a request asked its number is not
/// that request's. The signer's sync caches an order paid around the team under number
/// PIN-FS in a transaction still open while the maker requests PIN-FS (neither the
/// maker's desk nor the database see an order under it yet); once the request is sent,
/// the signer's `record_made` of that order leaves it made outside, and the request row
/// unclaimed; the order its worker then makes is the request's. When the read model
/// first saw an order is the database's: no member writes it.
#[test]
fn an_order_seen_before_its_number_was_requested_is_not_the_requests() {
    use paydesk_store_pg::team::TeamTables;
    let pg = team_db();
    let mer = common::MER as i64;
    let id = std::thread::scope(|s| {
        let sync = s.spawn(|| {
            sql(
                &pg,
                "sam",
                &format!(
                    "BEGIN;
                     INSERT INTO paydesk.orders (mer_no, trade_no, mer_order_no, state, currency, source_amount,
                         amount_e4, created_at, synced_at)
                     VALUES ({mer}, 'T-FS-OUT', 'PIN-FS', 2, 'MXN', 500, 5000000, 1, 1);
                     SELECT pg_sleep(3);
                     COMMIT;"
                ),
            )
        });
        let started = std::time::Instant::now();
        while owner_sql(
            &pg,
            "SELECT count(*) FROM pg_stat_activity WHERE usename = 'sam' AND query LIKE '%pg_sleep(3)%'",
        ) != "1"
        {
            assert!(started.elapsed().as_secs() < 3, "the sync never wrote");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let id = payout(&pg, "500", "PIN-FS");
        sync.join().unwrap().unwrap();
        id
    });
    let sam = member(&pg, "sam");
    assert_eq!(
        TeamTables::on(sam.link().pg())
            .claim_next(30)
            .unwrap()
            .map(|r| r.id),
        Some(id)
    );
    let record = |trade: &str| {
        sql(
            &pg,
            "sam",
            &format!(
                "SELECT paydesk.record_made({mer}, '{trade}', 'PIN-FS', 'payout', 2, 'CLABE', 'MXN', 500, 5000000, 1)"
            ),
        )
        .unwrap()
        .trim()
        .to_string()
    };
    assert_eq!(record("T-FS-OUT"), "f");
    assert_eq!(label_of(&pg, "T-FS-OUT"), "outside");
    let row_trade_no = || {
        owner_sql(
            &pg,
            "SELECT coalesce(trade_no, 'none') FROM paydesk.request_rows WHERE mer_order_no = 'PIN-FS' AND live",
        )
    };
    assert_eq!(row_trade_no(), "none");
    // The order the worker made under the request is the request's.
    assert_eq!(record("T-FS"), "t");
    assert_eq!(label_of(&pg, "T-FS"), "made payout");
    assert_eq!(row_trade_no(), "T-FS");
    // When an order was first seen is the database's.
    for (what, q) in [
        (
            "move an order's first sight",
            "UPDATE paydesk.orders SET first_seen_at = now() WHERE trade_no = 'T-FS-OUT'".to_string(),
        ),
        (
            "cache an order with its first sight",
            format!(
                "INSERT INTO paydesk.orders (mer_no, trade_no, mer_order_no, state, currency, source_amount,
                     amount_e4, created_at, synced_at, first_seen_at)
                 VALUES ({mer}, 'T-FS-2', 'PIN-FS-2', 2, 'MXN', 1, 10000, 1, 1, now() + interval '1 day')"
            ),
        ),
    ] {
        refused(sql(&pg, "sam", &q), what, "permission denied");
    }
}

/// R3-6: a card payout's holder (name, country, e-mail) is shown to the approvers who
/// approve it, the signers who send it and the maker who asked for it; a viewer,
/// another maker and an admin read the card's mask only, on the request's row and in
/// its summary, and the columns themselves are refused them. The team's screens read
/// requests as before, for every role.
#[test]
fn a_card_holder_is_shown_only_to_who_approves_sends_or_asked_for_the_payout() {
    let pg = team_db();
    let holder = "card 411111******1111 of Ana Lima, US, ana.lima@example.com";
    sql(
        &pg,
        "mark",
        &format!(
            "BEGIN;
             INSERT INTO paydesk.requests (operation, currency, total, row_count, summary)
                  VALUES ('payout', 'USD', 500, 1, '500 USD to {holder}');
             INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary)
                  VALUES (currval('paydesk.requests_id_seq'), 1, 'PIN-CARD-1', 500,
                          '{{\"kind\":\"CARD\",\"merOrderNo\":\"PIN-CARD-1\",\"amount\":\"500\",\"currency\":\"USD\",\"sealedCardNo\":\"x\"}}',
                          '{holder}');
             COMMIT;"
        ),
    )
    .unwrap();
    let id: i64 = owner_sql(&pg, "SELECT max(id) FROM paydesk.requests")
        .parse()
        .unwrap();
    for user in ["vic", "max", "alice"] {
        refused(
            sql(&pg, user, "SELECT beneficiary FROM paydesk.request_rows"),
            &format!("{user} reads the rows' beneficiaries"),
            "permission denied",
        );
        refused(
            sql(&pg, user, "SELECT summary FROM paydesk.requests"),
            &format!("{user} reads the requests' summaries"),
            "permission denied",
        );
    }
    let mask = "card 411111******1111";
    for (user, sees) in [
        ("vic", false),
        ("max", false),
        ("alice", false),
        ("mark", true),
        ("ann", true),
        ("sam", true),
    ] {
        let team = member(&pg, user);
        let row = team.rows(id).unwrap().remove(0).beneficiary;
        let listed = team
            .requests(&[], 100)
            .unwrap()
            .into_iter()
            .find(|r| r.id == id)
            .unwrap()
            .summary;
        let one = team.request(id).unwrap().summary;
        if sees {
            assert_eq!(row, holder, "{user}");
            assert_eq!(listed, format!("500 USD to {holder}"), "{user}");
        } else {
            assert_eq!(row, mask, "{user}");
            assert_eq!(listed, format!("500 USD to {mask}"), "{user}");
        }
        assert_eq!(one, listed, "{user}");
    }
}

/// R3-7: a signer removed from the team keeps nothing through a session left open: a
/// request its worker holds (its connection alive, idle) is taken over by another
/// signer's worker at once, and the log says how many of its sessions were ended.
#[test]
fn a_removed_signers_open_session_holds_no_request() {
    use paydesk_store_pg::team::TeamTables;
    let pg = team_db();
    let id = payout(&pg, "500", "PIN-GONE-1");
    let sam = member(&pg, "sam");
    assert_eq!(
        TeamTables::on(sam.link().pg())
            .claim_next(30)
            .unwrap()
            .map(|r| r.id),
        Some(id)
    );
    let sid = member(&pg, "sid");
    assert_eq!(
        TeamTables::on(sid.link().pg()).claim_next(30).unwrap(),
        None
    );
    member(&pg, "alice").remove_member("sam").unwrap();
    assert_eq!(
        TeamTables::on(sid.link().pg())
            .claim_next(30)
            .unwrap()
            .map(|r| r.id),
        Some(id)
    );
    assert!(TeamTables::on(sam.link().pg()).claim_next(30).is_err());
    let logged = owner_sql(
        &pg,
        "SELECT string_agg(result, ';') FROM (
             SELECT result FROM paydesk.audit_log WHERE operation = 'team.member.remove'
             UNION ALL SELECT result FROM paydesk.audit_inbox WHERE operation = 'team.member.remove') x",
    );
    assert_eq!(logged, "removed; 1 open session ended");
}
