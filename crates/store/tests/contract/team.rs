//! The team's tables' contract ([`TeamDb`], [`TeamStore`]), over the traits the engine
//! speaks to: members added by an admin, each connection the member it signed in as;
//! what a role may not do refused as a validation error; rules read back and counted; a
//! request made by a maker, approved by another member, claimed by a signer, its row's
//! outcome and its end recorded; a member's limits set and cleared; the signer's
//! worker's heartbeat. Only a team's PostgreSQL database implements them, by design (a
//! desk's SQLite file has no team). The team's book of payees and the attacks a hostile
//! member tries are the team's scenarios (`tests/team`, package `paydesk-tests`).

use paydesk_store::CoreError;
use paydesk_store::team::{NewRequest, NewRow, RequestState, RowState, TeamDb, TeamRole};
use serde_json::json;

use super::Facts;

pub const PASSWORD: &str = "correct-horse-battery";

fn refused(what: &str, r: Result<impl std::fmt::Debug, CoreError>, facts: Facts) {
    match r {
        Err(CoreError::Validation { .. }) => {}
        other => panic!("{}: {what} is refused as a rule: {other:?}", facts.name),
    }
}

/// Members, rules and one payout request from its making to its end, each step by the
/// member whose role it is (`connect(user, password)`; `verifier(password)` is what the
/// database keeps of a password).
pub fn members_rules_and_a_request_from_making_to_done(
    owner: &dyn TeamDb,
    connect: &dyn Fn(&str, &str) -> Box<dyn TeamDb>,
    verifier: &dyn Fn(&str) -> String,
    mer_no: i64,
    facts: Facts,
) {
    let f = facts.name;
    owner
        .tables()
        .add_member("alice", TeamRole::Admin, &verifier(PASSWORD))
        .unwrap();
    let alice = connect("alice", PASSWORD);
    assert_eq!(alice.user(), "alice", "{f}");
    let me = alice.tables().me().unwrap();
    assert_eq!(
        (me.name.as_str(), &me.roles[..]),
        ("alice", &[TeamRole::Admin][..]),
        "{f}"
    );
    let (merchant, _idle, salt) = alice.tables().settings().unwrap();
    assert_eq!(merchant, mer_no, "{f}");
    assert!(!salt.is_empty(), "{f}: the team's salt");
    for (name, role) in [
        ("mark", TeamRole::Maker),
        ("ann", TeamRole::Approver),
        ("sam", TeamRole::Signer),
    ] {
        alice
            .tables()
            .add_member(name, role, &verifier(PASSWORD))
            .unwrap();
    }
    let mut names: Vec<String> = alice
        .tables()
        .members()
        .unwrap()
        .into_iter()
        .map(|m| m.name)
        .collect();
    names.sort();
    for name in ["alice", "ann", "mark", "sam"] {
        assert!(names.iter().any(|n| n == name), "{f}: {name} in {names:?}");
    }
    let (mark, ann, sam) = (
        connect("mark", PASSWORD),
        connect("ann", PASSWORD),
        connect("sam", PASSWORD),
    );
    assert_eq!(
        mark.tables().me().unwrap().roles,
        [TeamRole::Maker],
        "{f}: each connection is its member"
    );
    // On a connection of its own: the refused password's copy ends the connection it
    // was sent on (the desk opens a lost connection again).
    refused(
        "a maker adding a member",
        connect("mark", PASSWORD)
            .tables()
            .add_member("eve", TeamRole::Admin, &verifier(PASSWORD)),
        facts,
    );
    assert!(
        !alice
            .tables()
            .members()
            .unwrap()
            .iter()
            .any(|m| m.name == "eve"),
        "{f}: nobody added"
    );

    // Rules: read back as set; the approvals a payout above one needs.
    let rule = alice.tables().set_rule("payout", "MXN", "1000", 1).unwrap();
    let rules = alice.tables().rules().unwrap();
    let set = rules.iter().find(|r| r.id == rule).unwrap();
    assert_eq!(
        (
            set.operation.as_str(),
            set.currency.as_str(),
            set.approvals,
            set.created_by.as_str()
        ),
        ("payout", "MXN", 1, "alice"),
        "{f}"
    );
    assert_eq!(
        mark.tables()
            .approvals_needed("payout", "MXN", "1500.00")
            .unwrap(),
        1,
        "{f}"
    );
    refused(
        "a maker setting a rule",
        mark.tables().set_rule("payout", "MXN", "1", 0),
        facts,
    );

    // A request: made, approved by another member, claimed, its row paid, done.
    let form = json!({
        "kind": "CLABE",
        "merOrderNo": "PO-C-1",
        "amount": "1500.00",
        "currency": "MXN",
        "clabe": "002010077777777771",
    });
    assert!(!mark.tables().number_requested("PO-C-1").unwrap(), "{f}");
    let made = mark
        .tables()
        .make(&NewRequest {
            operation: "payout",
            currency: "MXN",
            total: "1500.00",
            summary: "1500.00 MXN to Ana ****7771",
            source: None,
            rows: vec![NewRow {
                line: None,
                mer_order_no: "PO-C-1",
                amount: "1500.00",
                form: &form,
                beneficiary: "Ana ****7771",
            }],
        })
        .unwrap();
    assert_eq!(
        (
            made.state,
            made.maker.as_str(),
            made.approvals_needed,
            made.row_count
        ),
        (RequestState::Waiting, "mark", 1, 1),
        "{f}"
    );
    assert!(mark.tables().number_requested("PO-C-1").unwrap(), "{f}");
    assert!(
        sam.tables().claim_next(60).unwrap().is_none(),
        "{f}: nothing approved to claim"
    );
    refused(
        "a maker deciding",
        mark.tables().decide(made.id, true, None),
        facts,
    );
    let approved = ann.tables().decide(made.id, true, Some("ok")).unwrap();
    assert_eq!(approved.state, RequestState::Approved, "{f}");
    assert_eq!(approved.approvals(), 1, "{f}");
    assert_eq!(
        ann.tables()
            .requests(&[RequestState::Approved], 10)
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect::<Vec<_>>(),
        [made.id],
        "{f}"
    );

    let claimed = sam.tables().claim_next(60).unwrap().unwrap();
    assert_eq!(claimed.id, made.id, "{f}");
    assert_eq!(claimed.state, RequestState::Executing, "{f}");
    assert_eq!(claimed.claimed_by.as_deref(), Some("sam"), "{f}");
    assert!(sam.tables().claim_next(60).unwrap().is_none(), "{f}: once");
    let rows = sam.tables().rows_with_forms(made.id).unwrap();
    assert_eq!(rows.len(), 1, "{f}");
    assert_eq!(
        rows[0].form["merOrderNo"], "PO-C-1",
        "{f}: the form to send"
    );
    assert_eq!(rows[0].state, RowState::Waiting, "{f}");
    sam.tables()
        .row_outcome(
            made.id,
            rows[0].row_no,
            RowState::Accepted,
            Some("T-77"),
            None,
        )
        .unwrap();
    sam.tables().finish(made.id, true, "1 accepted").unwrap();
    let done = mark.tables().request(made.id).unwrap().unwrap();
    assert_eq!(done.state, RequestState::Done, "{f}");
    assert_eq!(done.outcome.as_deref(), Some("1 accepted"), "{f}");
    let row = &mark.tables().rows(made.id).unwrap()[0];
    assert_eq!(
        (row.state, row.trade_no.as_deref()),
        (RowState::Accepted, Some("T-77")),
        "{f}"
    );

    // A member's limits: set by an admin, read back, cleared.
    alice
        .tables()
        .set_member_limit("mark", "MXN", Some("2000"), None, "America/Mexico_City")
        .unwrap();
    let limits = alice.tables().member_limits().unwrap();
    assert_eq!(limits.len(), 1, "{f}");
    assert_eq!(
        (
            limits[0].member.as_str(),
            limits[0].currency.as_str(),
            limits[0].per_day.as_deref()
        ),
        ("mark", "MXN", None),
        "{f}"
    );
    assert!(
        limits[0]
            .per_payout
            .as_deref()
            .is_some_and(|p| p.parse::<rust_decimal::Decimal>().unwrap() == 2000.into()),
        "{f}: {limits:?}"
    );
    alice
        .tables()
        .set_member_limit("mark", "MXN", None, None, "America/Mexico_City")
        .unwrap();
    assert!(alice.tables().member_limits().unwrap().is_empty(), "{f}");

    // The signer's worker's heartbeat: running, then stopped on purpose.
    sam.tables().worker_beat(true, false).unwrap();
    let beats = alice.tables().worker_beats().unwrap();
    assert_eq!(
        beats
            .iter()
            .map(|b| (b.signer.as_str(), b.stopped_at.is_some()))
            .collect::<Vec<_>>(),
        [("sam", false)],
        "{f}"
    );
    sam.tables().worker_beat(false, true).unwrap();
    assert!(
        alice.tables().worker_beats().unwrap()[0]
            .stopped_at
            .is_some(),
        "{f}"
    );
}
