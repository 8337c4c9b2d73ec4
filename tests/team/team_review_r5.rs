//! Issue 35 and 32, what the fifth hostile review found (notes: review-sql-r5, migration
//! 0028): each hole attacked as the member who would use it, with plain SQL (psql, their
//! own password), on a team owned by a role that is not a superuser. Every expected sum
//! and time is the test's own.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

use paydesk_team::{MemberLimit, TeamRole};
use paydesk_testpg::{Options, TestPg};

use common::team::{CLABE, member, owner_sql, refused, sql};

const MER: i64 = common::MER as i64;

/// Admins alice and adam, makers mark and max, approver ann, viewer vic, signer sam;
/// MXN payouts above 10,000 need one approval.
fn team_db() -> TestPg {
    common::team::team_db_of(
        Options::default(),
        &[
            ("adam", TeamRole::Admin),
            ("mark", TeamRole::Maker),
            ("max", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("vic", TeamRole::Viewer),
            ("sam", TeamRole::Signer),
        ],
        "10000",
    )
}

/// One payout request of one row, as a maker's psql writes it, with a purpose.
fn request(no: &str, amount: &str, purpose: &str) -> String {
    format!(
        "WITH r AS (INSERT INTO paydesk.requests (operation, currency, total, row_count, summary) \
         VALUES ('payout', 'MXN', {amount}, 1, '{amount} MXN to CLABE 002010********7771') RETURNING id) \
         INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary) \
         SELECT id, 1, '{no}', {amount}, \
         '{{\"kind\":\"CLABE\",\"merOrderNo\":\"{no}\",\"amount\":\"{amount}\",\"currency\":\"MXN\",\"clabe\":\"{CLABE}\",\"purpose\":{{\"text\":\"{purpose}\"}}}}', \
         'CLABE 002010********7771' FROM r"
    )
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

// ---------------------------------------------------------------------------------
// F2: a maker's day limit, two sessions of the maker at once, at every isolation level.

/// Two psql sessions of mark, each one payout of 900 against a day's room of 1000:
/// `late` takes its snapshot first and waits 2 s before its insert; `early` starts once
/// `late` has its snapshot, inserts at once and commits 3 s later, so `late`'s insert
/// waits for `early` and its snapshot is older than `early`'s commit.
fn race(
    pg: &TestPg,
    level: &str,
    early_level: &str,
    tag: &str,
) -> (Result<String, String>, Result<String, String>) {
    let late_sql = format!(
        "BEGIN ISOLATION LEVEL {level}; SELECT 1; SELECT pg_sleep(2) AS late_{tag}; {}; COMMIT;",
        request(&format!("R5-{tag}-B"), "900", "b")
    );
    let early_sql = format!(
        "BEGIN ISOLATION LEVEL {early_level}; SELECT 1; {}; SELECT pg_sleep(3); COMMIT;",
        request(&format!("R5-{tag}-A"), "900", "a")
    );
    std::thread::scope(|s| {
        let late = s.spawn(|| sql(pg, "mark", &late_sql));
        let start = Instant::now();
        while owner_sql(
            pg,
            &format!(
                "SELECT count(*) FROM pg_stat_activity WHERE usename = 'mark' AND query LIKE '%late_{tag}%' AND state = 'active'"
            ),
        ) != "1"
        {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "late never slept"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let early = s.spawn(|| sql(pg, "mark", &early_sql));
        (early.join().unwrap(), late.join().unwrap())
    })
}

#[test]
fn two_sessions_of_one_maker_do_not_pass_the_days_limit_together_at_any_isolation_level() {
    let pg = team_db();
    let adam = member(&pg, "adam");
    let d = |s: &str| s.parse::<rust_decimal::Decimal>().unwrap();
    let mut kept = rust_decimal::Decimal::ZERO;
    // The late session's level, the early one's: a snapshot older than the other's
    // commit is refused whatever level the other ran at.
    for (level, early_level, tag, needle) in [
        (
            "REPEATABLE READ",
            "REPEATABLE READ",
            "RR",
            "could not serialize",
        ),
        ("SERIALIZABLE", "SERIALIZABLE", "SR", "could not serialize"),
        (
            "READ COMMITTED",
            "READ COMMITTED",
            "RC",
            "over the limit per day",
        ),
        (
            "REPEATABLE READ",
            "READ COMMITTED",
            "MX",
            "could not serialize",
        ),
    ] {
        // Each round, 1000 of room left today.
        let per_day = kept + d("1000");
        adam.set_member_limit(&MemberLimit {
            member: "mark".into(),
            currency: "MXN".into(),
            per_payout: None,
            per_day: Some(per_day.to_string()),
            day_zone: "UTC".into(),
            set_by: String::new(),
        })
        .unwrap();
        let (early, late) = race(&pg, level, early_level, tag);
        let passed = [&early, &late].iter().filter(|r| r.is_ok()).count();
        assert_eq!(passed, 1, "{level}: early {early:?}, late {late:?}");
        let refusal = early.clone().err().or(late.clone().err()).unwrap();
        assert!(refusal.contains(needle), "{level}: {refusal}");
        kept += d("900");
        let sum = owner_sql(
            &pg,
            "SELECT sum(rr.amount) FROM paydesk.request_rows rr JOIN paydesk.requests q ON q.id = rr.request_id WHERE q.maker = 'mark'",
        );
        assert_eq!(d(&sum), kept, "{level}: mark's rows");
        assert!(kept <= per_day);
    }
}

// ---------------------------------------------------------------------------------
// F3: the journal's purpose is the live request row's, not a rejected one's.

#[test]
fn the_journal_takes_the_purpose_of_the_live_request_row_not_of_a_rejected_one() {
    let pg = team_db();
    let ann = member(&pg, "ann");
    let last_request = || owner_sql(&pg, "SELECT max(id) FROM paydesk.requests");
    // The maker stages a respectable purpose bound to be rejected, then the real one.
    sql(
        &pg,
        "mark",
        &request("R5-P1", "20000", "Rent for November, approved by CFO"),
    )
    .unwrap();
    let first: i64 = last_request().parse().unwrap();
    ann.reject(first, "not this one").unwrap();
    sql(
        &pg,
        "mark",
        &request("R5-P1", "20000", "Supplier invoice 77"),
    )
    .unwrap();
    let second: i64 = last_request().parse().unwrap();
    assert_ne!(first, second);
    ann.approve(second).unwrap();
    // Sam's worker executes it (a signer journals a payout only so, 0039).
    common::team::take_row(&pg, "ann", "sam", "R5-P1");
    // The signer journals the number, stating a purpose of its own.
    sql(
        &pg,
        "sam",
        &format!(
            "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary,
                 status, attempts, created_at, updated_at, fingerprint, purpose)
             VALUES ({MER}, 'p', 'v1.payout', 'R5-P1', '{{\"currencyCode\":\"MXN\",\"sourceAmount\":\"20000\"}}', 's', 'pending', 0, 1, 1, 'fp-r5', 'signer says')"
        ),
    )
    .unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT purpose FROM paydesk.journal WHERE mer_order_no = 'R5-P1'"
        ),
        "Supplier invoice 77"
    );
}

// ---------------------------------------------------------------------------------
// F4: a signer cannot put an order's moved_at anywhere.

#[test]
fn a_signer_cannot_forge_an_orders_moved_at() {
    let pg = team_db();
    let insert = |trade: &str, synced: i64, extra_col: &str, extra_val: &str| {
        format!(
            "INSERT INTO paydesk.orders (mer_no, trade_no, mer_order_no, state, currency, source_amount,
                 amount_e4, created_at, synced_at{extra_col})
             VALUES ({MER}, '{trade}', 'N-{trade}', 1, 'MXN', 500, 5000000, 1, {synced}{extra_val})"
        )
    };
    let moved = |trade: &str| -> i64 {
        owner_sql(
            &pg,
            &format!("SELECT moved_at FROM paydesk.orders WHERE trade_no = '{trade}'"),
        )
        .parse()
        .unwrap()
    };
    let near_now = |what: &str, t: i64, before: i64| {
        let after = now_ms();
        assert!(
            t >= before - 5_000 && t <= after + 5_000,
            "{what}: moved_at {t}, not within the test's clock [{before}, {after}]"
        );
    };

    // 1. An insert stating a read in 2100, or naming moved_at itself.
    let before = now_ms();
    sql(&pg, "sam", &insert("T1", 4_102_444_800_000, "", "")).unwrap();
    near_now("an insert read in 2100", moved("T1"), before);
    refused(
        sql(&pg, "sam", &insert("T0", before, ", moved_at", ", 1")),
        "an insert naming moved_at",
        "permission denied",
    );

    // 2. Lowering synced_at first, then moving a balance field at a read of 1970.
    sql(&pg, "sam", &insert("T2", now_ms(), "", "")).unwrap();
    let read = owner_sql(
        &pg,
        "SELECT synced_at FROM paydesk.orders WHERE trade_no = 'T2'",
    );
    sql(
        &pg,
        "sam",
        "UPDATE paydesk.orders SET synced_at = 1 WHERE trade_no = 'T2'",
    )
    .unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT synced_at FROM paydesk.orders WHERE trade_no = 'T2'"
        ),
        read,
        "a read is never earlier than the previous one"
    );
    let before = now_ms();
    sql(
        &pg,
        "sam",
        "UPDATE paydesk.orders SET state = 2, source_amount = 50, synced_at = 2 WHERE trade_no = 'T2'",
    )
    .unwrap();
    near_now("a balance change at a read of 1970", moved("T2"), before);

    // 3. Writing moved_at directly, after a balance change or with another column.
    let at = moved("T2");
    refused(
        sql(
            &pg,
            "sam",
            "UPDATE paydesk.orders SET moved_at = 2 WHERE trade_no = 'T2'",
        ),
        "an update of moved_at",
        "permission denied",
    );
    sql(
        &pg,
        "sam",
        "UPDATE paydesk.orders SET message = 'seen' WHERE trade_no = 'T2'",
    )
    .unwrap();
    assert_eq!(moved("T2"), at, "no balance field moved: moved_at kept");
    // Not even the owner's direct write takes, without a balance change.
    owner_sql(
        &pg,
        "UPDATE paydesk.orders SET moved_at = 2 WHERE trade_no = 'T2'",
    );
    assert_eq!(moved("T2"), at);
}

// ---------------------------------------------------------------------------------
// F7: the payee-approval switch is in the settings' audit line.

fn last_settings_audit(pg: &TestPg) -> String {
    owner_sql(
        pg,
        "SELECT identifiers || ' => ' || result FROM (
             SELECT id AS k, identifiers, result FROM paydesk.audit_log WHERE operation = 'team.settings.update'
             UNION ALL
             SELECT 1000000000 + n, identifiers, result FROM paydesk.audit_inbox WHERE operation = 'team.settings.update'
         ) a ORDER BY k DESC LIMIT 1",
    )
}

#[test]
fn turning_payee_approval_on_and_off_is_in_the_audit_log_with_every_setting_an_admin_updates() {
    let pg = team_db();
    sql(
        &pg,
        "alice",
        "UPDATE paydesk.team SET payee_approval = true WHERE id = 1",
    )
    .unwrap();
    let line = last_settings_audit(&pg);
    assert!(
        line.contains("payee_approval=false")
            && line.contains("=> ")
            && line
                .split(" => ")
                .nth(1)
                .unwrap()
                .contains("payee_approval=true"),
        "{line}"
    );
    // Every column an admin may update on the team's settings is named in the line.
    let cols = owner_sql(
        &pg,
        "SELECT string_agg(column_name, ',' ORDER BY column_name) FROM information_schema.column_privileges
          WHERE table_schema = 'paydesk' AND table_name = 'team' AND grantee = 'paydesk_admin'
            AND privilege_type = 'UPDATE'",
    );
    assert!(cols.contains("payee_approval"), "{cols}");
    for col in cols.split(',') {
        assert!(
            line.contains(&format!("{col}=")),
            "{col} is not in the audit line {line}"
        );
    }
}

// ---------------------------------------------------------------------------------
// F8: no invisible, no-break or direction-changing characters in a payee; the team's
// own log lines escape them.

fn sealed() -> String {
    format!("{}==", "Q".repeat(342))
}

fn add_call(nickname: &str, first: &str, bank: &str) -> String {
    format!(
        "SELECT paydesk.add_beneficiary({MER}, {nickname}, 'clabe', {first}, 'SA', '002010********7771', '{}', {bank}, 'MX')",
        sealed()
    )
}

#[test]
fn a_payee_holds_printable_text_only_and_the_teams_log_escapes_the_rest() {
    let pg = team_db();
    sql(&pg, "mark", &add_call("'acme'", "'Acme'", "'BANAMEX'")).unwrap();
    for (what, nickname, first, bank) in [
        ("zero-width space", "E'acme\\u200b'", "'Acme'", "NULL"),
        ("no-break space", "E'ACME\\u00a0'", "'Acme'", "NULL"),
        (
            "right-to-left override",
            "E'x\\u202eemca'",
            "'Acme'",
            "NULL",
        ),
        ("a name's bidi mark", "'acme2'", "E'Ac\\u200fme'", "NULL"),
        ("a bank's control", "'acme3'", "'Acme'", "E'BAN\\nAMEX'"),
        (
            "a bank's zero-width joiner",
            "'acme4'",
            "'Acme'",
            "E'BAN\\u200dAMEX'",
        ),
    ] {
        refused(
            sql(&pg, "mark", &add_call(nickname, first, bank)),
            what,
            "beneficiaries_printable",
        );
    }
    assert_eq!(
        owner_sql(&pg, "SELECT count(*) FROM paydesk.beneficiaries"),
        "1"
    );
    // The desk's own rule, with a key a window translates.
    let e = paydesk_core::beneficiaries::check(&paydesk_core::beneficiaries::NewBeneficiary {
        nickname: "acme\u{00a0}x".into(),
        first_name: "Acme".into(),
        last_name: "SA".into(),
        account: CLABE.into(),
        ..Default::default()
    })
    .unwrap_err();
    let v = serde_json::to_value(&e).unwrap();
    assert_eq!(v["ruleKey"], "payeeCharacter", "{e}");
    assert_eq!(v["ruleParams"]["code"], "U+00A0", "{e}");
    // The team's writer escapes what a team function was given.
    owner_sql(
        &pg,
        "SELECT paydesk.audit('team.r5.probe', E'nickname=x\\u202eyz', E'ok\\n')",
    );
    let line = owner_sql(
        &pg,
        "SELECT identifiers || '|' || result FROM (
             SELECT id AS k, identifiers, result FROM paydesk.audit_log WHERE operation = 'team.r5.probe'
             UNION ALL
             SELECT n, identifiers, result FROM paydesk.audit_inbox WHERE operation = 'team.r5.probe') a",
    );
    assert_eq!(line, "nickname=x\\u{202E}yz|ok\\u{000A}");
}

// ---------------------------------------------------------------------------------
// F9: a payee's names (a card's holder) are not for viewers and support.

#[test]
fn viewers_do_not_read_a_payees_names_and_the_desk_still_shows_the_book() {
    let pg = team_db();
    sql(&pg, "mark", &add_call("'rent'", "'Casa Azul'", "'BANAMEX'")).unwrap();
    for col in ["first_name", "last_name", "bank", "account_sealed", "*"] {
        refused(
            sql(
                &pg,
                "vic",
                &format!("SELECT {col} FROM paydesk.beneficiaries"),
            ),
            &format!("a viewer reads {col}"),
            "permission denied",
        );
    }
    assert_eq!(
        sql(
            &pg,
            "vic",
            "SELECT nickname || ',' || account_masked || ',' || first_name || ',' || last_name || ',' || coalesce(bank, '-')
               FROM paydesk.beneficiaries_shown"
        )
        .unwrap(),
        "rent,002010********7771,,,-"
    );
    assert_eq!(
        sql(
            &pg,
            "ann",
            "SELECT first_name || ' ' || last_name FROM paydesk.beneficiaries_shown"
        )
        .unwrap(),
        "Casa Azul SA"
    );
    // The desks read the book through it: the viewer's without names, the approver's with.
    let vic = member(&pg, "vic").payees().unwrap();
    assert_eq!(vic.len(), 1);
    assert_eq!(vic[0].payee.nickname, "rent");
    assert_eq!(vic[0].payee.name(), "");
    let ann = member(&pg, "ann").payees().unwrap();
    assert_eq!(ann[0].payee.first_name, "Casa Azul");
}

// ---------------------------------------------------------------------------------
// F11: an admin does not set their own limit; another admin does, audited.

#[test]
fn an_admin_does_not_set_or_clear_their_own_limit() {
    let pg = team_db();
    // alice also makes payouts (granted by the owner, as another admin could).
    owner_sql(&pg, "GRANT paydesk_maker TO alice");
    refused(
        sql(
            &pg,
            "alice",
            "SELECT paydesk.set_member_limit('alice', 'MXN', 5, NULL, 'UTC')",
        ),
        "an admin sets their own limit",
        "their own payout limits",
    );
    sql(
        &pg,
        "adam",
        "SELECT paydesk.set_member_limit('alice', 'MXN', 5, 10, 'UTC')",
    )
    .unwrap();
    refused(
        sql(
            &pg,
            "alice",
            "SELECT paydesk.set_member_limit('alice', 'MXN', NULL, NULL, 'UTC')",
        ),
        "an admin clears their own limit",
        "their own payout limits",
    );
    sql(
        &pg,
        "adam",
        "SELECT paydesk.set_member_limit('alice', 'MXN', 6, NULL, 'UTC')",
    )
    .unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT per_payout::text || ',' || coalesce(per_day::text, '-') || ',' || set_by FROM paydesk.member_limits WHERE member = 'alice'"
        ),
        "6.000000,-,adam"
    );
    let audit = owner_sql(
        &pg,
        "SELECT result FROM (
             SELECT id AS k, result FROM paydesk.audit_log WHERE operation = 'team.limit.set'
             UNION ALL
             SELECT 1000000000 + n, result FROM paydesk.audit_inbox WHERE operation = 'team.limit.set') a
          ORDER BY k DESC LIMIT 1",
    );
    assert!(
        audit.contains("perPayout=6") && audit.contains("was perPayout=5"),
        "{audit}"
    );
}
