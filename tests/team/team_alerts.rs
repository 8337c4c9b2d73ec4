//! Issue 35 item 4, the team's alerts on a real PostgreSQL: a request waits for my
//! approval only while I approve, did not make it and have not decided; approved
//! requests that no signer's worker takes for the set time are "the worker stopped".
//! Each member's view comes from their own connection (what the database lets them
//! read), as `Records::current_alerts` reads it on a team desk.

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_core::alerts::{AlertKind, AlertSettings, AlertTarget, team_alerts};
use paydesk_core::forms::{PayoutForm, PayoutKind};
use paydesk_team::{Team, TeamRole};
use paydesk_testpg::Options;

use common::team::{CLABE, member};

fn kinds(team: &Team, now: i64) -> Vec<(AlertKind, AlertTarget)> {
    team_alerts(team, &AlertSettings::default(), now)
        .unwrap()
        .into_iter()
        .map(|a| (a.kind, a.target))
        .collect()
}

fn payout(no: &str, amount: &str) -> PayoutForm {
    let mut f = PayoutForm::new(PayoutKind::Clabe, no, amount, "MXN");
    f.clabe = CLABE.into();
    f
}

#[test]
fn an_approval_waits_for_the_approvers_who_have_not_decided_and_a_stopped_worker_is_seen() {
    let pg = common::team::team_db_of(
        Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("abe", TeamRole::Approver),
            ("vic", TeamRole::Viewer),
        ],
        "10000",
    );
    let (mark, ann, abe, vic) = (
        member(&pg, "mark"),
        member(&pg, "ann"),
        member(&pg, "abe"),
        member(&pg, "vic"),
    );
    let now = || chrono::Utc::now().timestamp_millis();
    for m in [&mark, &ann, &abe, &vic] {
        assert!(kinds(m, now()).is_empty());
    }
    // Above the rule's 10000: one approval needed.
    let big = mark.request_payout(&payout("T-AL-1", "20000")).unwrap();
    let waiting = (
        AlertKind::ApprovalWaiting,
        AlertTarget::Request { id: big.id },
    );
    assert_eq!(kinds(&ann, now()), std::slice::from_ref(&waiting));
    assert_eq!(kinds(&abe, now()), std::slice::from_ref(&waiting));
    // Not for its maker, nor for a member who does not approve.
    assert!(kinds(&mark, now()).is_empty());
    assert!(kinds(&vic, now()).is_empty());
    let a = &team_alerts(&ann, &AlertSettings::default(), now()).unwrap()[0];
    assert_eq!(a.params["maker"], "mark");
    assert_eq!(a.params["total"], "20000");

    // Ann approves: approved, no longer waiting for anyone's approval.
    ann.approve(big.id).unwrap();
    assert!(kinds(&ann, now()).is_empty());
    assert!(kinds(&abe, now()).is_empty());

    // No signer's worker takes it: after 15 minutes (the default), every member sees
    // the worker stopped, at the oldest approved request.
    assert!(kinds(&vic, now() + 14 * 60_000).is_empty());
    let stopped = (
        AlertKind::WorkerStopped,
        AlertTarget::Request { id: big.id },
    );
    assert_eq!(
        kinds(&vic, now() + 16 * 60_000),
        std::slice::from_ref(&stopped)
    );
    assert_eq!(kinds(&mark, now() + 16 * 60_000), [stopped]);
    let w = &team_alerts(&vic, &AlertSettings::default(), now() + 16 * 60_000).unwrap()[0];
    assert_eq!(w.params["count"], "1");
}
