//! A team on a real PostgreSQL server (Debian's package, started in a scratch folder):
//! what each role may do, enforced by the database even through plain SQL; four-eyes
//! approval by the rules; and two signers executing approved requests at once through
//! the shared journal against a sandbox gateway, every row paid exactly once.

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_store_pg::AsPgLink;
use std::sync::Arc;

use paydesk_core::{CoreError, Desk, Endpoint, Profile};
use paydesk_store_pg::{PgLink, init_team};
use paydesk_team::{self as team, RequestState, RowState, RuleInput, Team, TeamRole};
use paydesk_testpg::TestPg;

use common::team::{CLABE, DB, PASSWORD, cfg, member};

/// A server with the team schema, its members, and the rules of the issue's example.
fn team_db() -> TestPg {
    let pg = TestPg::start().unwrap();
    pg.create_database(DB).unwrap();
    let owner = PgLink::connect(&cfg(&pg, pg.owner()), pg.owner_password()).unwrap();
    assert_eq!(
        init_team(&owner, common::MER as i64).unwrap(),
        paydesk_store_pg::TEAM_MIGRATIONS.len()
    );
    // Run twice: nothing more to apply, and the merchant must match.
    assert_eq!(init_team(&owner, common::MER as i64).unwrap(), 0);
    assert!(matches!(
        init_team(&owner, 999),
        Err(CoreError::Validation { .. })
    ));
    let owner = Team::on(Arc::new(owner)).unwrap();
    owner
        .add_member("alice", TeamRole::Admin, PASSWORD)
        .unwrap();
    let admin = member(&pg, "alice");
    for (name, role) in [
        ("mark", TeamRole::Maker),
        ("ann", TeamRole::Approver),
        ("abe", TeamRole::Approver),
        ("sam", TeamRole::Signer),
        ("sid", TeamRole::Signer),
        ("vic", TeamRole::Viewer),
        ("sue", TeamRole::Support),
        ("max", TeamRole::Maker),
    ] {
        admin.add_member(name, role, PASSWORD).unwrap();
    }
    // Both a maker and an approver: four eyes still holds for their own requests.
    assert_eq!(
        admin
            .set_member_roles("max", &[TeamRole::Maker, TeamRole::Approver])
            .unwrap(),
        "approver,maker"
    );
    for (above, approvals) in [("10000", 1), ("100000", 2)] {
        admin
            .set_rule(&RuleInput {
                operation: "payout".into(),
                currency: "MXN".into(),
                above: above.into(),
                approvals,
            })
            .unwrap();
    }
    pg
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

fn refused(r: Result<String, String>, what: &str, needle: &str) {
    match r {
        Ok(out) => panic!("{what}: the database allowed it ({out})"),
        Err(e) => assert!(
            e.contains(needle),
            "{what}: refused, but not for {needle:?}: {e}"
        ),
    }
}

#[test]
fn each_role_is_held_to_its_work_by_the_database_itself() {
    let pg = team_db();
    let maker = member(&pg, "mark");
    let waiting = maker
        .request_payout(&payout_form("50000", "T-ROLE-1"))
        .unwrap();
    assert_eq!(waiting.state, RequestState::Waiting);
    assert_eq!(waiting.approvals_needed, 1);
    assert_eq!(waiting.maker, "mark");
    let id = waiting.id.to_string();
    let sql = |user: &str, q: &str| pg.psql_as(user, PASSWORD, DB, q);

    // A maker cannot approve, nor move a request, nor pass as someone else.
    refused(
        sql(
            "mark",
            &format!(
                "INSERT INTO paydesk.decisions (request_id, decision) VALUES ({id}, 'approve')"
            ),
        ),
        "a maker approving",
        "permission denied",
    );
    refused(
        sql(
            "mark",
            &format!("UPDATE paydesk.requests SET state = 'approved' WHERE id = {id}"),
        ),
        "a maker approving by update",
        "permission denied",
    );
    // What the maker writes for the maker, state or approvals is overwritten.
    sql(
        "mark",
        "INSERT INTO paydesk.requests (operation, currency, total, row_count, summary) VALUES ('payout', 'MXN', 1, 1, 'x')",
    )
    .map(|_| panic!("a request without its rows was committed"))
    .unwrap_err();

    // An approver who made the request cannot approve it, even by plain SQL.
    let own = member(&pg, "max")
        .request_payout(&payout_form("20000", "T-ROLE-2"))
        .unwrap();
    refused(
        sql(
            "max",
            &format!(
                "INSERT INTO paydesk.decisions (request_id, decision) VALUES ({}, 'approve')",
                own.id
            ),
        ),
        "approving one's own request",
        "four eyes",
    );
    let err = member(&pg, "max").approve(own.id).unwrap_err();
    assert!(matches!(err, CoreError::Validation { .. }), "{err}");
    assert!(err.to_string().contains("four eyes"), "{err}");

    // A signer cannot execute a request that is not approved: the row is out of reach.
    sql(
        "sam",
        &format!("UPDATE paydesk.requests SET state = 'executing' WHERE id = {id}"),
    )
    .unwrap();
    assert_eq!(
        sql(
            "vic",
            &format!("SELECT state FROM paydesk.requests WHERE id = {id}")
        )
        .unwrap()
        .trim(),
        "waiting"
    );
    // Nor approve.
    refused(
        sql(
            "sam",
            &format!(
                "INSERT INTO paydesk.decisions (request_id, decision) VALUES ({id}, 'approve')"
            ),
        ),
        "a signer approving",
        "permission denied",
    );
    // A viewer reads, and makes nothing.
    refused(
        sql(
            "vic",
            "INSERT INTO paydesk.requests (operation, currency, total, row_count, summary) VALUES ('payout', 'MXN', 1, 1, 'x')",
        ),
        "a viewer making a request",
        "permission denied",
    );
    // Support sees no requests at all.
    refused(
        sql("sue", "SELECT count(*) FROM paydesk.requests"),
        "support reading requests",
        "permission denied",
    );
    // Only signers write the journal; nobody rewrites the audit log or a decision.
    refused(
        sql(
            "mark",
            "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, created_at, updated_at) VALUES (1, 'p', 'v2.payout', 'X', '{}', 's', 'accepted', 0, 0)",
        ),
        "a maker writing the journal",
        "permission denied",
    );
    for user in ["alice", "ann", "sam"] {
        refused(
            sql(user, "DELETE FROM paydesk.audit_log"),
            "deleting the audit log",
            "permission denied",
        );
    }
    // Only admins keep rules and members.
    refused(
        sql(
            "ann",
            "INSERT INTO paydesk.rules (operation, currency, above, approvals) VALUES ('payout', 'MXN', 0, 1)",
        ),
        "an approver adding a rule",
        "permission denied",
    );
    refused(
        sql("mark", "SELECT paydesk.add_member('eve', 'admin')"),
        "a maker adding an admin",
        "permission denied",
    );
    // Rejecting needs a reason, in the database too.
    refused(
        sql(
            "ann",
            &format!(
                "INSERT INTO paydesk.decisions (request_id, decision) VALUES ({id}, 'reject')"
            ),
        ),
        "a rejection without a reason",
        "check constraint",
    );

    // The audit log has every step with the database user who took it.
    let log = sql(
        "alice",
        "SELECT db_user || ' ' || operation FROM paydesk.audit_log ORDER BY id",
    )
    .unwrap();
    assert!(log.contains("mark team.request"), "{log}");
    assert!(log.contains("alice team.member.add"), "{log}");
    assert!(log.contains("alice team.rule.insert"), "{log}");
}

#[test]
fn four_eyes_by_amount_and_a_rejection_with_its_reason() {
    let pg = team_db();
    let maker = member(&pg, "mark");
    let (ann, abe) = (member(&pg, "ann"), member(&pg, "abe"));
    assert_eq!(ann.me().roles, vec![TeamRole::Approver]);

    // Under 10,000: no approval needed.
    let small = maker.request_payout(&payout_form("500", "T-4E-1")).unwrap();
    assert_eq!(
        (small.state, small.approvals_needed),
        (RequestState::Approved, 0)
    );
    // Above 100,000: two distinct approvers other than the maker.
    let big = maker
        .request_payout(&payout_form("150000", "T-4E-2"))
        .unwrap();
    assert_eq!(
        (big.state, big.approvals_needed),
        (RequestState::Waiting, 2)
    );
    let after_one = ann.approve(big.id).unwrap();
    assert_eq!(after_one.state, RequestState::Waiting);
    assert!(ann.approve(big.id).is_err(), "one approver counted twice");
    let after_two = abe.approve(big.id).unwrap();
    assert_eq!(after_two.state, RequestState::Approved);
    assert_eq!(after_two.approvals(), 2);

    let doubtful = maker
        .request_payout(&payout_form("20000", "T-4E-3"))
        .unwrap();
    let e = ann.reject(doubtful.id, " ").unwrap_err();
    assert!(
        matches!(e, CoreError::Validation { ref field, .. } if field == "reason"),
        "{e}"
    );
    let rejected = ann.reject(doubtful.id, "wrong beneficiary").unwrap();
    assert_eq!(rejected.state, RequestState::Rejected);
    assert!(rejected.outcome.unwrap().contains("wrong beneficiary"));
    assert!(
        abe.approve(doubtful.id).is_err(),
        "a rejected request was approved"
    );

    // The same number twice is refused, naming the request that holds it.
    let e = maker
        .request_payout(&payout_form("700", "T-4E-1"))
        .unwrap_err();
    let held = format!(
        "merOrderNo T-4E-1 is already in request #{} (approved)",
        small.id
    );
    assert!(e.to_string().contains(&held), "{e}");
    // A card payout's number is sealed to the signers: with no signer's desk connected
    // yet, there is nothing to seal to, and it is refused.
    let mut card = payout_form("700", "T-4E-4");
    card.kind = paydesk_core::forms::PayoutKind::Card;
    card.card_no = "4111111111111111".into();
    assert!(matches!(
        maker.request_payout(&card),
        Err(CoreError::Validation { .. })
    ));
    let rules = abe.rules().unwrap();
    assert_eq!(rules.len(), 2);
}

/// A signer's desk: a team profile on the sandbox, its key in the keyring.
async fn signer_desk(f: &common::Fixture, pg: &TestPg, user: &str) -> Desk {
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(Profile {
            team: Some(cfg(pg, user)),
            ..p
        })
        .unwrap();
    f.secrets.set_team_password(&f.name, PASSWORD).unwrap();
    Desk::open(&f.home, f.secrets.clone(), &f.name, Endpoint::Profile).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_signers_execute_an_approved_batch_once_and_a_file_sent_again_is_refused() {
    let pg = team_db();
    let f = common::Fixture::new("signer").await;
    let desk_a = signer_desk(&f, &pg, "sam").await;
    let desk_b = signer_desk(&f, &pg, "sid").await;
    let (sam, sid) = (member(&pg, "sam"), member(&pg, "sid"));

    let maker = member(&pg, "mark");
    let mut csv = String::from("type,amount,currency,account,firstName,lastName,country\n");
    for i in 0..12 {
        csv.push_str(&format!("clabe,{}.00,MXN,{CLABE},,,MX\n", 20_000 + i));
    }
    let batch = maker.request_bulk("payroll.csv", csv.as_bytes()).unwrap();
    assert_eq!(batch.row_count, 12);
    assert_eq!(batch.total, "240066");
    assert_eq!(batch.approvals_needed, 2);
    // Nothing is executed before it is approved.
    assert!(team::execute_next(&desk_a, &sam).await.unwrap().is_none());
    member(&pg, "ann").approve(batch.id).unwrap();
    assert!(team::execute_next(&desk_a, &sam).await.unwrap().is_none());
    member(&pg, "abe").approve(batch.id).unwrap();
    let single = maker
        .request_payout(&payout_form("300", "T-SINGLE-1"))
        .unwrap();

    // Both signers at once: each request is executed by one of them.
    let (a, b) = tokio::join!(
        async {
            let mut n = Vec::new();
            while let Some(e) = team::execute_next(&desk_a, &sam).await.unwrap() {
                n.push(e);
            }
            n
        },
        async {
            let mut n = Vec::new();
            while let Some(e) = team::execute_next(&desk_b, &sid).await.unwrap() {
                n.push(e);
            }
            n
        }
    );
    let mut executed: Vec<i64> = a.iter().chain(&b).map(|e| e.request).collect();
    executed.sort();
    assert_eq!(executed, vec![batch.id, single.id]);
    assert!(
        a.iter()
            .chain(&b)
            .all(|e| e.done && e.unknown == 0 && e.failed == 0 && e.rejected == 0)
    );

    let rows = maker.rows(batch.id).unwrap();
    assert_eq!(rows.len(), 12);
    for row in &rows {
        assert_eq!(row.state, RowState::Accepted, "{row:?}");
        assert!(row.trade_no.is_some());
        assert_eq!(
            f.running
                .sandbox
                .orders_numbered(common::MER, &row.mer_order_no),
            1,
            "row {} paid other than once",
            row.row_no
        );
        let entry = desk_a
            .journal()
            .entry_by_number(&row.mer_order_no)
            .unwrap()
            .unwrap();
        assert_eq!(entry.trade_no, row.trade_no);
    }
    assert_eq!(maker.request(batch.id).unwrap().state, RequestState::Done);
    assert_eq!(
        f.running.sandbox.orders_numbered(common::MER, "T-SINGLE-1"),
        1
    );

    // The same file again: its rows carry the same numbers, and they are refused.
    let e = maker
        .request_bulk("payroll.csv", csv.as_bytes())
        .unwrap_err();
    let held = format!(
        "12 rows have numbers already requested; the first, line 2: merOrderNo {} is already in request #{} (done); a file sent again is refused",
        rows[0].mer_order_no, batch.id
    );
    assert!(e.to_string().contains(&held), "{e}");
}

/// A maker requests a payin and a card's top-up and withdrawal besides payouts; an
/// approver approves them; the signer executes each once, by its operation. The forms
/// (full accounts, payers) are the signer's to read: the database refuses them to every
/// other member, and never takes a payer's tax id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn payins_and_card_moves_are_requested_approved_and_executed_once() {
    use paydesk_core::forms::{CardForm, CardMove, PayinForm, PayinMethod};
    let pg = team_db();
    let admin = member(&pg, "alice");
    for operation in ["payin", "top_up", "withdraw"] {
        admin
            .set_rule(&RuleInput {
                operation: operation.into(),
                currency: "*".into(),
                above: "0".into(),
                approvals: 1,
            })
            .unwrap();
    }
    let f = common::Fixture::new("more-requests").await;
    let desk = signer_desk(&f, &pg, "sam").await;
    let (maker, ann, sam) = (member(&pg, "mark"), member(&pg, "ann"), member(&pg, "sam"));

    // A form the gateway's rules refuse is refused when it is made, naming the field,
    // not when the signer sends it.
    let wallet = PayinForm::new(PayinMethod::CashApp, "T-PI-0", "25.50", "USD");
    match maker.request_payin(&wallet) {
        Err(CoreError::Validation { field, .. }) => assert_eq!(field, "browser.userAgent"),
        other => panic!("{other:?}"),
    }
    let mut payin = PayinForm::new(PayinMethod::Wechat, "T-PI-1", "25.50", "USD");
    payin.email = "lucia.perez@example.com".into();
    let payin = maker.request_payin(&payin).unwrap();
    assert_eq!(payin.operation, "payin");
    assert_eq!(payin.approvals_needed, 1);
    assert_eq!(
        payin.summary,
        "25.50 USD to WECHAT payin from lu********@example.com"
    );
    let mut pix = PayinForm::new(PayinMethod::Pix, "T-PI-2", "20", "BRL");
    pix.name = "Ana Lima".into();
    pix.social_security_number = "12345678909".into();
    // Sealed to the signers (the merchant's public key, published by the signer's desk
    // when it connected): the tax id and the card number are nowhere in the team's
    // database, not even for its owner or the signer reading the form; the signer's
    // worker opens them to send.
    let pix = maker.request_payin(&pix).unwrap();
    let mut card_payout = paydesk_core::forms::PayoutForm::new(
        paydesk_core::forms::PayoutKind::Card,
        "T-CP-1",
        "30",
        "USD",
    );
    for (field, value) in [
        (&mut card_payout.card_no, "4111 1111 1111 1111"),
        (&mut card_payout.first_name, "Ana"),
        (&mut card_payout.last_name, "Lima"),
        (&mut card_payout.country_code, "US"),
        (&mut card_payout.email, "ana.lima@example.com"),
        (&mut card_payout.mobile, "5551234567"),
        (&mut card_payout.address_line, "1 Main St"),
        (&mut card_payout.city, "Austin"),
        (&mut card_payout.state, "TX"),
        (&mut card_payout.post_code, "73301"),
    ] {
        *field = value.into();
    }
    let card_payout = maker.request_payout(&card_payout).unwrap();
    assert!(
        card_payout.summary.contains("1111") && !card_payout.summary.contains("41111111"),
        "{}",
        card_payout.summary
    );
    for table in [
        "request_rows",
        "requests",
        "audit_log",
        "audit_inbox",
        "decisions",
    ] {
        for secret in ["12345678909", "4111111111111111", "4111 1111"] {
            let found = pg
                .psql_owner(
                    DB,
                    &format!(
                        "SELECT count(*) FROM paydesk.{table} t WHERE t::text LIKE '%{secret}%'"
                    ),
                )
                .unwrap();
            assert_eq!(found.trim(), "0", "{secret} in {table}");
        }
    }
    let sealed = pg
        .psql_as(
            "sam",
            PASSWORD,
            DB,
            &format!(
                "SELECT form FROM paydesk.request_rows WHERE request_id = {}",
                pix.id
            ),
        )
        .unwrap();
    assert!(sealed.contains("sealedSocialSecurityNumber"), "{sealed}");
    let card = |kind, reference: &str, amount: &str| CardForm {
        kind,
        card: "CARD-1".into(),
        reference: reference.into(),
        amount: amount.into(),
        currency: "USD".into(),
        sub_mer_no: String::new(),
        remark: String::new(),
        purpose: Default::default(),
    };
    let top_up = maker
        .request_card(&card(CardMove::TopUp, "T-TU-1", "40"))
        .unwrap();
    let withdraw = maker
        .request_card(&card(CardMove::Withdraw, "T-WD-1", "15"))
        .unwrap();
    assert_eq!(top_up.operation, "top_up");
    assert_eq!(withdraw.operation, "withdraw");
    // A bad form is refused before it reaches the database, naming the field.
    match maker.request_card(&card(CardMove::TopUp, "T-TU-2", "-1")) {
        Err(CoreError::Validation { field, .. }) => assert_eq!(field, "amount"),
        other => panic!("{other:?}"),
    }

    // Only the signer reads a row's form.
    let forms = |user: &str| {
        pg.psql_as(
            user,
            PASSWORD,
            DB,
            "SELECT form FROM paydesk.request_rows ORDER BY request_id LIMIT 1",
        )
    };
    for user in ["ann", "mark", "vic"] {
        refused(forms(user), user, "permission denied");
    }
    assert!(forms("sam").unwrap().contains("T-PI-1"));
    let masked = pg
        .psql_as(
            "ann",
            PASSWORD,
            DB,
            "SELECT beneficiary FROM paydesk.request_rows ORDER BY request_id LIMIT 1",
        )
        .unwrap();
    assert!(masked.contains("WECHAT payin"), "{masked}");
    assert!(ann.rows(payin.id).unwrap()[0].form.is_null());

    for r in [&payin, &pix, &card_payout, &top_up, &withdraw] {
        ann.approve(r.id).unwrap();
    }
    let mut executed = 0;
    while let Some(done) = team::execute_next(&desk, &sam).await.unwrap() {
        assert!(done.done, "{done:?}");
        assert_eq!(done.accepted, 1, "{done:?}: {:?}", ann.rows(done.request));
        executed += 1;
    }
    assert_eq!(executed, 5);
    assert_eq!(
        ann.rows(card_payout.id).unwrap()[0].state,
        RowState::Accepted
    );
    // The gateway's client refuses a PIX payin without the payer's tax id: accepted, it
    // was opened and sent.
    assert_eq!(ann.rows(pix.id).unwrap()[0].state, RowState::Accepted);
    let row = &ann.rows(payin.id).unwrap()[0];
    assert_eq!(row.state, RowState::Accepted);
    assert!(row.trade_no.is_some());
    assert!(
        row.message
            .as_deref()
            .is_some_and(|m| m.starts_with("payment link: http")),
        "{row:?}"
    );
    for r in [&top_up, &withdraw] {
        assert_eq!(ann.request(r.id).unwrap().state, RequestState::Done);
        assert_eq!(ann.rows(r.id).unwrap()[0].state, RowState::Accepted);
    }
    // Once each, by number, in the shared journal.
    for no in ["T-PI-1", "T-PI-2", "T-CP-1", "T-TU-1", "T-WD-1"] {
        assert!(
            desk.journal().entry_by_number(no).unwrap().is_some(),
            "{no}"
        );
    }
    assert_eq!(team::execute_next(&desk, &sam).await.unwrap(), None);

    // Once published, the key is the signers' desks' no more to change (a member an
    // admin made signer could put their own in its place): a signer's desk that finds
    // another key (here the owner's, put in place as when the merchant key is rotated)
    // leaves it, and only the first publication is in the log.
    let key = "SELECT spki FROM paydesk.seal_key";
    pg.psql_owner(
        DB,
        "SELECT paydesk.replace_seal_key('QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB')",
    )
    .unwrap();
    drop(desk);
    let _desk = signer_desk(&f, &pg, "sam").await;
    assert_eq!(
        pg.psql_owner(DB, key).unwrap().trim(),
        "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB"
    );
    let said = pg
        .psql_owner(
            DB,
            "SELECT string_agg(result, ';' ORDER BY id) FROM paydesk.audit_log WHERE operation = 'team.seal_key'",
        )
        .unwrap();
    assert_eq!(said.trim(), "published;replaced by the owner");
}

/// The signer's upkeep fills the team's read model and balance history; a viewer's
/// desk, which holds no key, shows the same orders and balances, and is refused what
/// talks to the gateway.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_signers_upkeep_is_what_a_keyless_viewer_desk_shows() {
    let pg = team_db();
    let f = common::Fixture::new("upkeep").await;
    f.running.sandbox.seed(&paydesk_sandbox::SeedSpec {
        mer_no: Some(common::MER),
        from: Some(
            (chrono::Utc::now() - chrono::Duration::days(20))
                .format("%Y-%m-%d %H:%M:%S")
                .to_string(),
        ),
        ..paydesk_sandbox::SeedSpec::new(300)
    });
    let desk = signer_desk(&f, &pg, "sam").await;
    assert!(desk.holds_key());
    let line = team::upkeep(&desk, 30).await.unwrap();
    assert!(line.starts_with("synced "), "{line}");
    let signer_view = desk.orders().dashboard().unwrap();
    assert_eq!(
        signer_view.cached_orders, 300,
        "the sandbox's orders of the last 20 days"
    );
    assert!(!signer_view.balances.is_empty());

    // The viewer's profile: the same team, its own member, no merchant key.
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(Profile {
            name: "vic-desk".into(),
            team: Some(cfg(&pg, "vic")),
            ..p
        })
        .unwrap();
    f.secrets.set_team_password("vic-desk", PASSWORD).unwrap();
    let viewer = Desk::open(&f.home, f.secrets.clone(), "vic-desk", Endpoint::Profile).unwrap();
    assert!(!viewer.holds_key());
    let seen = viewer.orders().dashboard().unwrap();
    assert_eq!(seen.cached_orders, signer_view.cached_orders);
    assert_eq!(seen.last_sync, signer_view.last_sync);
    let figures = |b: &[paydesk_core::desk::BalanceSnapshot]| {
        b.iter()
            .map(|s| (s.currency.clone(), s.balance.clone(), s.taken_at))
            .collect::<Vec<_>>()
    };
    assert_eq!(figures(&seen.balances), figures(&signer_view.balances));
    match viewer.money().balances(&[]).await {
        Ok(list) => assert!(
            list.iter().all(
                |b| matches!(&b.error, Some(CoreError::Validation { field, .. }) if field == "team")
            ),
            "{list:?}"
        ),
        Err(e) => panic!("{e}"),
    }
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    match viewer
        .orders()
        .sync(&viewer.orders().sync_options(1), cancel, |_| {})
        .await
    {
        Err(CoreError::Validation { field, rule }) => {
            assert_eq!(field, "team");
            assert!(rule.contains("no merchant key"), "{rule}");
        }
        other => panic!("a viewer's desk synced: {other:?}"),
    }
    // Nothing to reconcile on a desk that never sends.
    assert!(
        viewer
            .journal()
            .reconcile_all(true)
            .await
            .unwrap()
            .is_empty()
    );
}

/// A maker who writes a request by hand cannot have the signer send more than the
/// approvers saw: the database refuses a row whose form sends another amount, currency
/// or number, and should a row get past it (the table's owner turned the check off),
/// the signer compares the form with the row again and sends nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_whose_form_sends_more_than_was_approved_is_never_sent() {
    let pg = team_db();
    let f = common::Fixture::new("forged").await;
    let desk = signer_desk(&f, &pg, "sam").await;
    let sam = member(&pg, "sam");
    let forged = |no: &str| {
        format!(
            "WITH r AS (INSERT INTO paydesk.requests (operation, currency, total, row_count, summary) \
             VALUES ('payout', 'MXN', 50, 1, '50 MXN to CLABE 002010********7771 (BANAMEX)') RETURNING id) \
             INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary) \
             SELECT id, 1, '{no}', 50, \
             '{{\"kind\":\"CLABE\",\"merOrderNo\":\"{no}\",\"amount\":\"500000\",\"currency\":\"MXN\",\"clabe\":\"{CLABE}\"}}', \
             'CLABE 002010********7771 (BANAMEX)' FROM r"
        )
    };
    refused(
        pg.psql_as("mark", PASSWORD, DB, &forged("T-FORGED-1")),
        "a form sending 500000 for a row of 50",
        "its form sends 500000 but the row says 50",
    );
    // The owner turns the database's check off: the signer still refuses the row.
    pg.psql_super(
        DB,
        "ALTER TABLE paydesk.request_rows DISABLE TRIGGER request_row_matches_form",
    )
    .unwrap();
    pg.psql_as("mark", PASSWORD, DB, &forged("T-FORGED-2"))
        .unwrap();
    let done = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    assert_eq!((done.accepted, done.failed), (0, 1), "{done:?}");
    let row = &sam.rows(done.request).unwrap()[0];
    assert_eq!(row.state, RowState::Failed);
    assert!(
        row.message
            .as_deref()
            .is_some_and(|m| m.contains("does not send what was approved")),
        "{row:?}"
    );
    assert!(
        f.running
            .sandbox
            .with_state(|s| s.orders.iter().all(|o| o.mer_order_no != "T-FORGED-2")),
        "nothing reached the gateway"
    );
}

/// F8: four-eyes on a card payout binds its payee, not only the mask and the amount. A
/// maker writing SQL makes rows whose form pays Eve Mallory while what approvers see
/// names Ana Lima (the same card mask and amount), or names no holder at all (as card
/// rows did before); approved, the signer's worker sends neither.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_payout_is_sent_only_to_the_holder_approvers_saw() {
    let pg = team_db();
    let f = common::Fixture::new("card-holder").await;
    let desk = signer_desk(&f, &pg, "sam").await;
    let (maker, ann, sam) = (member(&pg, "mark"), member(&pg, "ann"), member(&pg, "sam"));
    let mut eve = paydesk_core::forms::PayoutForm::new(
        paydesk_core::forms::PayoutKind::Card,
        "T-F8-EVE",
        "30",
        "USD",
    );
    for (field, value) in [
        (&mut eve.card_no, "4111 1111 1111 1111"),
        (&mut eve.first_name, "Eve"),
        (&mut eve.last_name, "Mallory"),
        (&mut eve.country_code, "US"),
        (&mut eve.email, "eve@example.com"),
        (&mut eve.mobile, "5551234567"),
        (&mut eve.address_line, "1 Main St"),
        (&mut eve.city, "Austin"),
        (&mut eve.state, "TX"),
        (&mut eve.post_code, "73301"),
    ] {
        *field = value.into();
    }
    // Made honestly, the row names the holder to the approvers.
    let honest = maker.request_payout(&eve).unwrap();
    let named = &ann.rows(honest.id).unwrap()[0].beneficiary;
    assert!(
        named.contains("Eve Mallory") && named.contains("eve@example.com"),
        "{named}"
    );
    let mask = named
        .strip_prefix("card ")
        .and_then(|r| r.split(' ').next())
        .unwrap()
        .to_string();
    // The form a hostile maker's desk sealed (the seal key is public).
    let form = pg
        .psql_owner(
            DB,
            &format!(
                "SELECT form FROM paydesk.request_rows WHERE request_id = {}",
                honest.id
            ),
        )
        .unwrap();
    let form = form.trim().replace('\'', "''");
    let mut forged = Vec::new();
    for (no, shown) in [
        (
            "T-F8-1",
            format!("card {mask} of Ana Lima, US, ana.lima@example.com"),
        ),
        ("T-F8-2", format!("CLABE {mask}")),
    ] {
        let out = pg
            .psql_as(
                "mark",
                PASSWORD,
                DB,
                &format!(
                    "BEGIN;
                     INSERT INTO paydesk.requests (operation, currency, total, row_count, summary)
                     VALUES ('payout', 'USD', 30, 1, '30 USD to {shown}');
                     INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary)
                     VALUES (currval('paydesk.requests_id_seq'), 1, '{no}', 30,
                             jsonb_set('{form}'::jsonb, '{{merOrderNo}}', '\"{no}\"'), '{shown}');
                     SELECT currval('paydesk.requests_id_seq');
                     COMMIT;"
                ),
            )
            .unwrap();
        let id: i64 = out
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .next_back()
            .unwrap();
        ann.approve(id).unwrap();
        forged.push((no, id));
    }
    while let Some(done) = team::execute_next(&desk, &sam).await.unwrap() {
        assert_eq!(done.accepted, 0, "{done:?}");
    }
    for (no, id) in forged {
        let row = &ann.rows(id).unwrap()[0];
        assert_eq!(row.state, RowState::Failed, "{no}: {row:?}");
        assert!(
            desk.journal().entry_by_number(no).unwrap().is_none(),
            "{no} was sent"
        );
    }
}

/// A card payout's default number as `team request` makes it: "T" and 24 hex digits of
/// SHA-256 over the team's salt and the day, operation, amount, currency, account, name
/// and `card` (what stands for the card), as the team's tests compute it themselves.
fn card_number(pg: &TestPg, amount: &str, card: &str) -> String {
    use sha2::Digest as _;
    let salt = pg
        .psql_owner(DB, "SELECT number_salt FROM paydesk.team")
        .unwrap();
    let day = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let content = ["payout", amount, "USD", "", "Ana", "Lima", card].join("\u{1f}");
    let mut h = sha2::Sha256::new();
    h.update(salt.trim().as_bytes());
    h.update([0x1f]);
    h.update(format!("{day}\u{1f}{content}").as_bytes());
    format!("T{}", &hex::encode(h.finalize())[..24])
}

/// F5: a card payout's default number holds nothing of the card beyond its mask (the
/// salt is every member's: a viewer could search the hidden digits of a number hashed
/// with it). A payout requested and paid under the number made the old way, then
/// requested again the same day after the upgrade, is refused as already requested:
/// the gateway sees it once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_payouts_number_hides_the_card_and_the_old_number_is_still_recognised() {
    let pg = team_db();
    let f = common::Fixture::new("card-number").await;
    let desk = signer_desk(&f, &pg, "sam").await;
    let (maker, ann, sam) = (member(&pg, "mark"), member(&pg, "ann"), member(&pg, "sam"));
    let card = |amount: &str, number: &str| {
        let mut c = paydesk_core::forms::PayoutForm::new(
            paydesk_core::forms::PayoutKind::Card,
            number,
            amount,
            "USD",
        );
        for (field, value) in [
            (&mut c.card_no, "4111111111111111"),
            (&mut c.first_name, "Ana"),
            (&mut c.last_name, "Lima"),
            (&mut c.country_code, "US"),
            (&mut c.email, "ana.lima@example.com"),
            (&mut c.mobile, "5551234567"),
            (&mut c.address_line, "1 Main St"),
            (&mut c.city, "Austin"),
            (&mut c.state, "TX"),
            (&mut c.post_code, "73301"),
        ] {
            *field = value.into();
        }
        c
    };
    // Requested and paid before the upgrade, under the number made from the full card.
    let old = card_number(&pg, "30", "4111111111111111");
    let before = maker.request_payout(&card("30", &old)).unwrap();
    ann.approve(before.id).unwrap();
    let done = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    assert_eq!(done.accepted, 1, "{done:?}");
    assert_eq!(f.running.sandbox.orders_numbered(common::MER, &old), 1);
    // The signer's worker made it through an approved request: the team's, by the
    // request row (F6), not "made outside".
    let trade_no = ann.rows(before.id).unwrap()[0].trade_no.clone().unwrap();
    use paydesk_core::store::orders::OrderStore as _;
    let made = paydesk_store_pg::orders::PgOrders::on(sam.link().pg(), common::MER as i64)
        .get(&trade_no)
        .unwrap()
        .unwrap();
    assert!(!made.outside_team, "{made:?}");
    assert_eq!(
        made.kind,
        Some(paydesk_core::store::orders::OrderKind::Payout)
    );
    // The same payout requested again today by the upgraded desk: refused.
    let again = maker.request_payout(&card("30", ""));
    assert!(again.is_err(), "requested twice: {again:?}");
    assert_eq!(team::execute_next(&desk, &sam).await.unwrap(), None);
    assert_eq!(f.running.sandbox.orders_numbered(common::MER, &old), 1);
    let new = card_number(&pg, "30", "411111******1111");
    assert_eq!(f.running.sandbox.orders_numbered(common::MER, &new), 0);
    // A new one's number is made from the mask, which every member sees anyway.
    let fresh = maker.request_payout(&card("31", "")).unwrap();
    let no = &ann.rows(fresh.id).unwrap()[0].mer_order_no;
    assert_eq!(*no, card_number(&pg, "31", "411111******1111"));
    assert_ne!(*no, card_number(&pg, "31", "4111111111111111"));
}
