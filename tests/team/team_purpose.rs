//! Issue 35, item 3, on a team: a maker gives a payout's purpose in the request, the
//! approver sees it, the signer's desk journals it, and the database keeps the maker's:
//! a signer writing the journal entry of a requested number with another purpose gets the
//! maker's, and nobody (signer, maker, the owner) changes a purpose once written, with
//! plain SQL. The length and character rules hold in the database too.

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_core::forms::{PayoutForm, PayoutKind};
use paydesk_core::purpose::Purpose;
use paydesk_core::{Desk, Endpoint, Profile};
use paydesk_team::{self as team, RequestState, TeamRole};
use paydesk_testpg::TestPg;

use common::team::{CLABE, DB, PASSWORD, cfg, member};

fn team_db() -> TestPg {
    common::team::team_db_of(
        paydesk_testpg::Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("max", TeamRole::Maker),
            ("ann", TeamRole::Approver),
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

fn payout(no: &str, amount: &str, purpose: Purpose) -> PayoutForm {
    let mut form = PayoutForm::new(PayoutKind::Clabe, no, amount, "MXN");
    form.clabe = CLABE.into();
    form.purpose = purpose;
    form
}

/// A journal row of a payout of `amount` MXN written by hand (what a signer's desk
/// inserts), with `purpose`.
fn journal_insert(no: &str, amount: &str, purpose: &str) -> String {
    format!(
        "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary,
                status, attempts, created_at, updated_at, fingerprint, purpose)
         VALUES ({mer}, 'p', 'v2.payout', '{no}', '{{\"currencyCode\":\"MXN\",\"sourceAmount\":\"{amount}\"}}', 's', 'pending', 0, 1, 1, 'fp-{no}', {purpose})",
        mer = common::MER
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_makers_purpose_is_journaled_and_no_member_changes_it() {
    let pg = team_db();
    let f = common::Fixture::new("teamwhy").await;
    let desk = signer_desk(&f, &pg, "sam");
    let (mark, ann, sam) = (member(&pg, "mark"), member(&pg, "ann"), member(&pg, "sam"));

    // The maker's request carries the purpose; the approver reads it in the row.
    let made = mark
        .request_payout(&payout(
            "T-WHY-1",
            "20000",
            Purpose::new(" Rent Q4 ", "INV-9"),
        ))
        .unwrap();
    let rows = ann.rows(made.id).unwrap();
    let no = rows[0].mer_order_no.clone();
    assert_eq!(rows[0].purpose, Some(Purpose::new("Rent Q4", "INV-9")));
    assert_eq!(
        rows[0].form,
        serde_json::Value::Null,
        "the form stays the signers'"
    );
    // A purpose with a control character is refused at the maker's desk, naming it.
    let e = mark
        .request_payout(&payout("T-WHY-X", "5", Purpose::new("a\u{202e}b", "")))
        .unwrap_err();
    assert!(e.to_string().contains("purpose"), "{e}");

    for r in ann.requests(&[RequestState::Waiting], 10).unwrap() {
        ann.approve(r.id).unwrap();
    }
    let done = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    assert_eq!(done.accepted, 1, "{done:?}");
    let entry = desk.journal().entry_by_number(&no).unwrap().unwrap();
    assert_eq!(entry.purpose, Some(Purpose::new("Rent Q4", "INV-9")));

    // Nobody changes it with plain SQL: not the signer who wrote it, not a maker (the
    // columns are no member's to update), not even the owner (a trigger).
    let change =
        format!("UPDATE paydesk.journal SET purpose = 'forged' WHERE mer_order_no = '{no}'");
    refused(
        pg.psql_as("sam", PASSWORD, DB, &change),
        "the signer",
        "permission denied",
    );
    refused(
        pg.psql_as("mark", PASSWORD, DB, &change),
        "the maker",
        "permission denied",
    );
    refused(
        pg.psql_as("max", PASSWORD, DB, &change),
        "another maker",
        "permission denied",
    );
    refused(
        pg.psql_owner(DB, &change).map_err(|e| e.to_string()),
        "the owner",
        "kept as written",
    );
    let reference =
        format!("UPDATE paydesk.journal SET purpose_ref = 'X' WHERE mer_order_no = '{no}'");
    refused(
        pg.psql_as("sam", PASSWORD, DB, &reference),
        "the signer",
        "permission denied",
    );

    // A signer writing the entry of another maker's requested number with a purpose of
    // its own gets the maker's.
    let max = member(&pg, "max");
    let other = max
        .request_payout(&payout("T-WHY-2", "30", Purpose::new("Payroll Max", "")))
        .unwrap();
    let other_no = ann.rows(other.id).unwrap()[0].mer_order_no.clone();
    // Executed by sam's worker (a signer journals a payout only so, 0039).
    common::team::take_row(&pg, "ann", "sam", &other_no);
    pg.psql_as(
        "sam",
        PASSWORD,
        DB,
        &journal_insert(&other_no, "30", "'Forged by sam'"),
    )
    .unwrap();
    let kept = pg
        .psql_owner(
            DB,
            &format!(
                "SELECT coalesce(purpose, '-') || '|' || coalesce(purpose_ref, '-') FROM paydesk.journal WHERE mer_order_no = '{other_no}'"
            ),
        )
        .unwrap();
    assert_eq!(kept.trim(), "Payroll Max|-");

    // The database's own bounds: a line break, a direction change, too long.
    for (bad, what) in [
        ("E'a\\nb'", "a line break"),
        ("E'pay\\u202Edis'", "a direction change"),
        ("repeat('x', 141)", "141 characters"),
    ] {
        refused(
            // (a payin's entry: a payout's is a request row's, whose purpose is the
            // maker's, 0039)
            pg.psql_as(
                "sam",
                PASSWORD,
                DB,
                &journal_insert("T-WHY-BAD", "100", bad).replace("v2.payout", "v2.payment"),
            ),
            what,
            "journal_purpose_text",
        );
    }
    // Every member reads it through the journal as shown to them.
    let seen = pg
        .psql_as(
            "ann",
            PASSWORD,
            DB,
            &format!("SELECT purpose FROM paydesk.journal_shown WHERE mer_order_no = '{no}'"),
        )
        .unwrap();
    assert!(seen.contains("Rent Q4"), "{seen}");
}
