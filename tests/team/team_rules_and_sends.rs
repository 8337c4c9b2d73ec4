//! Issue 30: rules without holes, and what is approved is what is sent. A request no
//! rule names needs the team's default approvals (never 0 by omission); a CLABE payout
//! is in MXN; and a maker who writes a request's form by hand cannot choose where the
//! gateway's answer goes or who asks: the signer sends the approved fields with its own
//! addresses. On a team owned by a role with CREATEROLE that is not a superuser.

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_core::forms::{CardForm, CardMove, PayinForm, PayinMethod, PayoutForm, PayoutKind};
use paydesk_core::{CoreError, Desk, Endpoint, Profile};
use paydesk_team::{self as team, RequestState, RowState, Team, TeamRole};
use paydesk_testpg::TestPg;

use common::team::{CLABE, DB, PASSWORD, cfg, member};

/// A team whose only rule is the issue's: MXN payouts above 10,000 need one approval.
fn team_db() -> TestPg {
    common::team::team_db_of(
        paydesk_testpg::Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("vic", TeamRole::Viewer),
            ("sam", TeamRole::Signer),
        ],
        "10000",
    )
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

fn payin(no: &str, amount: &str) -> PayinForm {
    let mut form = PayinForm::new(PayinMethod::Wechat, no, amount, "USD");
    form.email = "lucia.perez@example.com".into();
    form
}

fn top_up(reference: &str, amount: &str) -> CardForm {
    CardForm {
        kind: CardMove::TopUp,
        card: "CARD-1".into(),
        reference: reference.into(),
        amount: amount.into(),
        currency: "USD".into(),
        sub_mer_no: String::new(),
        remark: String::new(),
        purpose: Default::default(),
    }
}

#[test]
fn what_no_rule_names_needs_the_teams_default_approvals() {
    let pg = team_db();
    let maker = member(&pg, "mark");
    // With MXN payout rules only: a 200,000 USD payin and a 900,000 USD top-up.
    let big_payin = maker.request_payin(&payin("T-RULE-1", "200000")).unwrap();
    assert_eq!(
        (big_payin.state, big_payin.approvals_needed),
        (RequestState::Waiting, 1)
    );
    let big_top_up = maker.request_card(&top_up("T-RULE-2", "900000")).unwrap();
    assert_eq!(
        (big_top_up.state, big_top_up.approvals_needed),
        (RequestState::Waiting, 1)
    );
    // Through plain SQL too: the database decides.
    assert_eq!(
        pg.psql_as(
            "mark",
            PASSWORD,
            DB,
            "SELECT paydesk.approvals_needed('withdraw', 'EUR', 5)"
        )
        .unwrap()
        .trim(),
        "1"
    );
    // What the MXN rules name, they decide: under every threshold, none.
    let small = maker
        .request_payout(&{
            let mut f = PayoutForm::new(PayoutKind::Clabe, "T-RULE-3", "500", "MXN");
            f.clabe = CLABE.into();
            f
        })
        .unwrap();
    assert_eq!(small.approvals_needed, 0);

    // The default is the admin's to set, no one else's.
    refused(
        pg.psql_as(
            "vic",
            PASSWORD,
            DB,
            "UPDATE paydesk.team SET default_approvals = 0",
        ),
        "a viewer setting the default",
        "permission denied",
    );
    refused(
        pg.psql_as(
            "mark",
            PASSWORD,
            DB,
            "UPDATE paydesk.team SET default_approvals = 0",
        ),
        "a maker setting the default",
        "permission denied",
    );
    let admin = member(&pg, "alice");
    match admin.set_default_approvals(6) {
        Err(CoreError::Validation { field, .. }) => assert_eq!(field, "approvals"),
        other => panic!("{other:?}"),
    }
    admin.set_default_approvals(2).unwrap();
    assert_eq!(admin.default_approvals().unwrap(), 2);
    let r = maker.request_payin(&payin("T-RULE-4", "10")).unwrap();
    assert_eq!(r.approvals_needed, 2);
    // None only when the admin says so.
    admin.set_default_approvals(0).unwrap();
    let r = maker.request_card(&top_up("T-RULE-5", "10")).unwrap();
    assert_eq!((r.state, r.approvals_needed), (RequestState::Approved, 0));
    let log = pg
        .psql_as(
            "alice",
            PASSWORD,
            DB,
            "SELECT count(*) FROM paydesk.audit_log WHERE operation = 'team.request'",
        )
        .unwrap();
    assert_eq!(log.trim(), "5");
}

#[test]
fn a_clabe_payout_is_in_mxn() {
    let pg = team_db();
    let maker = member(&pg, "mark");
    let mut usd = PayoutForm::new(PayoutKind::Clabe, "T-CLABE-1", "200000", "USD");
    usd.clabe = CLABE.into();
    match maker.request_payout(&usd) {
        Err(CoreError::Validation { field, rule }) => {
            assert_eq!(field, "currency");
            assert!(rule.contains("a CLABE payout is in MXN"), "{rule}");
        }
        other => panic!("a CLABE payout in USD was requested: {other:?}"),
    }
    // Through plain SQL: refused by the database, naming the field.
    let by_hand = |kind: &str, currency: &str, no: &str| {
        format!(
            "WITH r AS (INSERT INTO paydesk.requests (operation, currency, total, row_count, summary)
                        VALUES ('payout', '{currency}', 200000, 1, 'x') RETURNING id)
             INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary)
             SELECT id, 1, '{no}', 200000,
                    '{{\"kind\":\"{kind}\",\"merOrderNo\":\"{no}\",\"amount\":\"200000\",\"currency\":\"{currency}\",\"clabe\":\"{CLABE}\"}}',
                    'CLABE 002010********7771 (BANAMEX)' FROM r"
        )
    };
    refused(
        pg.psql_as("mark", PASSWORD, DB, &by_hand("CLABE", "USD", "T-CLABE-2")),
        "a CLABE payout in USD by SQL",
        "currency",
    );
    // A card payout by SQL with the card number readable (not sealed to the signers).
    refused(
        pg.psql_as("mark", PASSWORD, DB, &by_hand("CARD", "MXN", "T-CLABE-3")),
        "a team card payout by SQL",
        "cardNo: a card number is sealed to the signers",
    );
    refused(
        pg.psql_as("mark", PASSWORD, DB, &by_hand("SPEI", "MXN", "T-CLABE-5")),
        "a payout of no kind the team knows, by SQL",
        "kind: a team payout is a CLABE or a card payout",
    );
    pg.psql_as("mark", PASSWORD, DB, &by_hand("CLABE", "MXN", "T-CLABE-4"))
        .unwrap();
}

/// A signer's desk: a team profile on the sandbox, its key in the keyring.
fn signer_desk(f: &common::Fixture, pg: &TestPg, user: &str) -> Desk {
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

/// A request's form written by hand: what the maker's desk would write, with the
/// fields that say where answers go and who asks set to the maker's choosing.
fn forged_sql(
    operation: &str,
    currency: &str,
    amount: &str,
    form: &serde_json::Value,
    beneficiary: &str,
    no: &str,
) -> String {
    let mut form = form.clone();
    for (k, v) in [
        ("notifyUrl", "https://evil.example/hook"),
        ("returnUrl", "https://evil.example/back"),
        ("ipAddress", "6.6.6.6"),
    ] {
        form[k] = serde_json::Value::String(v.into());
    }
    let form = form.to_string().replace('\'', "''");
    format!(
        "WITH r AS (INSERT INTO paydesk.requests (operation, currency, total, row_count, summary)
                    VALUES ('{operation}', '{currency}', {amount}, 1, 'x') RETURNING id)
         INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary)
         SELECT id, 1, '{no}', {amount}, '{form}', '{beneficiary}' FROM r"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_signer_sends_its_own_addresses_never_the_forms() {
    let pg = team_db();
    let f = common::Fixture::new("sends").await;
    let desk = signer_desk(&f, &pg, "sam");
    let sam = member(&pg, "sam");
    let mut payout = PayoutForm::new(PayoutKind::Clabe, "T-SEND-1", "20000", "MXN");
    payout.clabe = CLABE.into();
    pg.psql_as(
        "mark",
        PASSWORD,
        DB,
        &forged_sql(
            "payout",
            "MXN",
            "20000",
            &serde_json::to_value(&payout).unwrap(),
            "CLABE 002010********7771 (BANAMEX)",
            "T-SEND-1",
        ),
    )
    .unwrap();
    pg.psql_as(
        "mark",
        PASSWORD,
        DB,
        &forged_sql(
            "payin",
            "USD",
            "25.50",
            &serde_json::to_value(payin("T-SEND-2", "25.50")).unwrap(),
            "WECHAT payin from lu********@example.com",
            "T-SEND-2",
        ),
    )
    .unwrap();
    let ann = member(&pg, "ann");
    for r in ann.requests(&[RequestState::Waiting], 10).unwrap() {
        ann.approve(r.id).unwrap();
    }
    let mut executed = 0;
    while let Some(done) = team::execute_next(&desk, &sam).await.unwrap() {
        assert_eq!(done.accepted, 1, "{done:?}: {:?}", ann.rows(done.request));
        executed += 1;
    }
    assert_eq!(executed, 2);
    let profile_notify = f.home.get(&f.name).unwrap().notify_url;
    for no in ["T-SEND-1", "T-SEND-2"] {
        let sent_to = f.running.sandbox.with_state(|s| {
            s.orders
                .iter()
                .find(|o| o.mer_order_no == no)
                .map(|o| o.notify_url.clone())
        });
        assert_eq!(sent_to.as_deref(), Some(profile_notify.as_str()), "{no}");
        let entry = desk.journal().entry_by_number(no).unwrap().unwrap();
        let sent = entry.request.to_string();
        assert!(
            !sent.contains("evil.example") && !sent.contains("6.6.6.6"),
            "{no} sent the form's addresses: {sent}"
        );
    }
    assert!(
        ann.rows(executed_row_request(&ann, "T-SEND-2"))
            .unwrap()
            .iter()
            .all(|r| r.state == RowState::Accepted)
    );
}

fn executed_row_request(t: &Team, no: &str) -> i64 {
    t.requests(&[], 50)
        .unwrap()
        .into_iter()
        .find(|r| {
            t.rows(r.id)
                .unwrap()
                .iter()
                .any(|row| row.mer_order_no == no)
        })
        .unwrap()
        .id
}
