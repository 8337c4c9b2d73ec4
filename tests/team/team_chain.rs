//! Issue 30, item 6: the team's audit chain is anchored outside the database. Each desk
//! keeps the head it last verified in its keyring and checks, when it connects, that the
//! database's chain still holds it; a chain the database's owner cut or rebuilt (with
//! seals that match, which a check of the chain alone cannot tell) is reported, and such
//! a desk never signs for the team. Run with the real keyring (`/work/tools/ktest`).

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_core::forms::{PayoutForm, PayoutKind};
use paydesk_core::store::prelude::AuditStore;
use paydesk_core::{Desk, Endpoint, Profile};
use paydesk_store_pg::AsPgLink;
use paydesk_store_pg::audit::PgAudit;
use paydesk_team::{self as team, TeamRole};
use paydesk_testpg::TestPg;

use common::team::{CLABE, DB, PASSWORD, cfg, member};

fn team_db() -> TestPg {
    common::team::team_db_of(
        paydesk_testpg::Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("sam", TeamRole::Signer),
            ("vic", TeamRole::Viewer),
        ],
        "10000",
    )
}

/// A signer's desk on the team: a team profile on the sandbox, its key in the keyring.
fn signer_desk(f: &common::Fixture, pg: &TestPg) -> Desk {
    let p = f.home.get(&f.name).unwrap();
    if p.team.is_none() {
        f.home
            .put(Profile {
                team: Some(cfg(pg, "sam")),
                ..p
            })
            .unwrap();
        f.secrets.set_team_password(&f.name, PASSWORD).unwrap();
    }
    Desk::open(&f.home, f.secrets.clone(), &f.name, Endpoint::Profile).unwrap()
}

/// A few audited steps: a request and its approval.
fn steps(pg: &TestPg, no: &str) {
    let mut form = PayoutForm::new(PayoutKind::Clabe, no, "20000", "MXN");
    form.clabe = CLABE.into();
    let id = member(pg, "mark").request_payout(&form).unwrap().id;
    member(pg, "ann").approve(id).unwrap();
}

fn rows(pg: &TestPg) -> i64 {
    pg.psql_owner(DB, "SELECT count(*) FROM paydesk.audit_log")
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// What the database's owner can do unseen by a check of the chain alone: with the
/// log's triggers off, remove row `gone`, number the rest again and seal every row
/// again with the database's own SHA-256.
fn rebuild_without(pg: &TestPg, gone: i64) {
    pg.psql_owner(
        DB,
        &format!(
            "ALTER TABLE paydesk.audit_log DISABLE TRIGGER USER;
             DELETE FROM paydesk.audit_log WHERE id = {gone};
             UPDATE paydesk.audit_log SET id = -id WHERE id > {gone};
             UPDATE paydesk.audit_log SET id = -id - 1 WHERE id < 0;
             DO $$
             DECLARE r record; prev text := '';
             BEGIN
                 FOR r IN SELECT * FROM paydesk.audit_log ORDER BY id LOOP
                     UPDATE paydesk.audit_log SET prev_hash = prev,
                            hash = encode(sha256(convert_to(concat_ws(E'\\x1f', prev, r.id::text,
                                r.at::text, r.profile, r.operator, r.operation, r.identifiers,
                                r.result, r.latency_ms::text, r.db_user), 'UTF8')), 'hex')
                      WHERE id = r.id RETURNING hash INTO prev;
                 END LOOP;
             END $$;
             ALTER TABLE paydesk.audit_log ENABLE TRIGGER USER;"
        ),
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebuilt_team_chain_is_reported_and_its_desk_does_not_sign() {
    let pg = team_db();
    let f = common::Fixture::new("chain-rebuilt").await;
    // The signer's desk connects: the chain holds, its head is anchored in the keyring.
    steps(&pg, "T-CHAIN-1");
    let desk = signer_desk(&f, &pg);
    assert_eq!(desk.journal().team_chain_problem(), None);
    let anchored = f.secrets.audit_anchor(&f.name).unwrap().unwrap();
    assert_eq!(anchored.last_id, rows(&pg));
    drop(desk);

    // More steps; the desk connects again: the anchor moves on to the new head.
    steps(&pg, "T-CHAIN-2");
    let desk = signer_desk(&f, &pg);
    assert_eq!(desk.journal().team_chain_problem(), None);
    assert!(desk.journal().audit_verify().unwrap().ok);
    let anchor = f.secrets.audit_anchor(&f.name).unwrap().unwrap();
    assert_eq!(anchor.last_id, rows(&pg));
    assert!(anchor.last_id > anchored.last_id);
    drop(desk);

    // The owner removes the first request's approval and rebuilds the chain: on its own
    // it checks out (every seal matches), which is why the desk keeps an anchor.
    steps(&pg, "T-CHAIN-3");
    let approval: i64 = pg
        .psql_owner(
            DB,
            "SELECT min(id) FROM paydesk.audit_log WHERE operation = 'team.approve'",
        )
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(approval < anchor.last_id);
    rebuild_without(&pg, approval);
    let alone = PgAudit::on(member(&pg, "ann").link().pg())
        .verify(&[], None)
        .unwrap();
    assert!(
        alone.ok,
        "the rebuilt chain is consistent on its own: {alone:?}"
    );

    // The signer's desk connects: it says so, keeps its anchor, and does not sign.
    let desk = signer_desk(&f, &pg);
    let problem = desk.journal().team_chain_problem().unwrap().to_string();
    assert!(problem.contains("rewritten"), "{problem}");
    assert!(
        problem.contains(&format!("row {}", anchor.last_id)),
        "{problem}"
    );
    assert_eq!(f.secrets.audit_anchor(&f.name).unwrap().unwrap(), anchor);
    let check = desk.journal().audit_verify().unwrap();
    assert!(!check.ok);
    assert!(
        check.problem.unwrap_or_default().contains("rewritten"),
        "audit verify does not say it"
    );
    let sam = member(&pg, "sam");
    match team::execute_next(&desk, &sam).await {
        Err(e) => assert!(e.to_string().contains("does not sign for the team"), "{e}"),
        Ok(done) => panic!("the desk signed on a rewritten chain: {done:?}"),
    }
    // Reconnecting does not make it go away.
    drop(desk);
    assert!(
        signer_desk(&f, &pg)
            .journal()
            .team_chain_problem()
            .is_some()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_team_chain_is_reported() {
    let pg = team_db();
    let f = common::Fixture::new("chain-cut").await;
    steps(&pg, "T-CUT-1");
    steps(&pg, "T-CUT-2");
    let desk = signer_desk(&f, &pg);
    assert_eq!(desk.journal().team_chain_problem(), None);
    drop(desk);
    let head = rows(&pg);
    // The owner cuts the last rows: what is left is a consistent chain.
    pg.psql_owner(
        DB,
        &format!(
            "ALTER TABLE paydesk.audit_log DISABLE TRIGGER USER;
             DELETE FROM paydesk.audit_log WHERE id > {};
             ALTER TABLE paydesk.audit_log ENABLE TRIGGER USER;",
            head - 2
        ),
    )
    .unwrap();
    let desk = signer_desk(&f, &pg);
    let problem = desk.journal().team_chain_problem().unwrap().to_string();
    assert!(problem.contains("cut"), "{problem}");
    assert!(
        problem.contains(&format!("verified {head} rows")),
        "{problem}"
    );
    assert!(
        problem.contains(&format!("ends at row {}", head - 2)),
        "{problem}"
    );
}

/// Cuts the team's log after row `keep` as the database's owner can (triggers off).
fn cut_after(pg: &TestPg, keep: i64) {
    pg.psql_owner(
        DB,
        &format!(
            "ALTER TABLE paydesk.audit_log DISABLE TRIGGER USER;
             DELETE FROM paydesk.audit_log WHERE id > {keep};
             ALTER TABLE paydesk.audit_log ENABLE TRIGGER USER;"
        ),
    )
    .unwrap();
}

/// F7: a desk's anchor follows its own steps, so the rows written after it connected are
/// anchored too: the owner cutting them while the desk stays connected is seen at the
/// signer's worker's next round (which then does not sign), not only at a reconnect.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_cut_while_a_desk_is_connected_is_seen_at_the_workers_next_round() {
    let pg = team_db();
    let f = common::Fixture::new("chain-cut-live").await;
    steps(&pg, "T-LIVE-1");
    let desk = signer_desk(&f, &pg);
    let at_connect = f.secrets.audit_anchor(&f.name).unwrap().unwrap().last_id;
    // The desk's own steps after it connected, and others' between them.
    desk.journal().audit_event("test.step", "n=1".into(), "ok");
    steps(&pg, "T-LIVE-2");
    desk.journal().audit_event("test.step", "n=2".into(), "ok");
    let head = rows(&pg);
    let anchor = f.secrets.audit_anchor(&f.name).unwrap().unwrap();
    assert_eq!(
        anchor.last_id, head,
        "the anchor did not follow the desk's own step"
    );
    assert!(head > at_connect + 2);
    assert_eq!(desk.journal().team_chain_problem(), None);
    // The owner cuts what followed the connect; the desk is still open.
    cut_after(&pg, at_connect + 1);
    let sam = member(&pg, "sam");
    match team::execute_next(&desk, &sam).await {
        Err(e) => assert!(e.to_string().contains("does not sign for the team"), "{e}"),
        Ok(done) => panic!("the worker signed on a cut chain: {done:?}"),
    }
    let problem = desk.journal().team_chain_problem().unwrap().to_string();
    assert!(problem.contains("cut"), "{problem}");
    assert!(desk.journal().audit_verify().unwrap().ok.eq(&false));
}

/// F7: the same cut seen at the desk's own next step, with no worker running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_cut_while_a_desk_is_connected_is_seen_at_its_next_step() {
    let pg = team_db();
    let f = common::Fixture::new("chain-cut-step").await;
    steps(&pg, "T-STEP-1");
    let desk = signer_desk(&f, &pg);
    desk.journal().audit_event("test.step", "n=1".into(), "ok");
    steps(&pg, "T-STEP-2");
    desk.journal().audit_event("test.step", "n=2".into(), "ok");
    let head = rows(&pg);
    // The owner rewrites the latest rows: the desk's last step cut, and a row put back
    // in its place (sealed by the database's own trigger, so the chain checks out alone).
    cut_after(&pg, head - 1);
    pg.psql_owner(
        DB,
        "SELECT paydesk.audit('team.member.role', 'member=x', 'nothing happened')",
    )
    .unwrap();
    assert_eq!(desk.journal().team_chain_problem(), None);
    desk.journal().audit_event("test.step", "n=3".into(), "ok");
    let problem = desk.journal().team_chain_problem().unwrap().to_string();
    assert!(problem.contains(&format!("row {head}")), "{problem}");
}

/// F7 residue: a desk left open and idle (a viewer's, which holds no key, runs no worker
/// and takes no step) checks the chain from its anchor on its own every
/// `PAYDESK_TEAM_CHAIN_CHECK_SECONDS` (a minute in the app; here a second), so the owner
/// cutting history is reported by it within that time, as the connect-time check would.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_cut_while_a_desk_sits_idle_is_seen_by_its_own_timer() {
    let pg = team_db();
    let f = common::Fixture::new("chain-cut-idle").await;
    steps(&pg, "T-IDLE-1");
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
    let every = paydesk_core::desk::team_chain_check_every(Some("1"));
    assert_eq!(every, std::time::Duration::from_secs(1));
    let viewer = std::sync::Arc::new(
        Desk::open(&f.home, f.secrets.clone(), "vic-desk", Endpoint::Profile).unwrap(),
    );
    assert!(!viewer.holds_key());
    let watch = viewer.watch_team_chain(every).expect("a team desk watches");
    // Others' steps while it sits idle: its timer follows them, the chain holds.
    steps(&pg, "T-IDLE-2");
    let head = rows(&pg);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while f.secrets.audit_anchor("vic-desk").unwrap().unwrap().last_id < head {
        assert!(
            std::time::Instant::now() < until,
            "the idle desk's anchor did not follow the chain to row {head}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(viewer.journal().team_chain_problem(), None);
    // The owner cuts the rows the idle desk verified; the desk takes no step.
    cut_after(&pg, head - 2);
    let cut_at = std::time::Instant::now();
    let problem = loop {
        if let Some(p) = viewer.journal().team_chain_problem() {
            break p.to_string();
        }
        assert!(
            cut_at.elapsed() < every * 3,
            "the idle desk did not see the cut within {:?}",
            every * 3
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert!(problem.contains("cut"), "{problem}");
    assert!(
        problem.contains(&format!("verified {head} rows")),
        "{problem}"
    );
    // Its timer ends once it found the problem, which stays for the desk's life.
    tokio::time::timeout(std::time::Duration::from_secs(5), watch)
        .await
        .expect("the timer ends after a finding")
        .unwrap();
    assert!(viewer.journal().team_chain_problem().is_some());
    // A single desk has nothing to watch.
    let single = std::sync::Arc::new(f.desk().await);
    assert!(single.watch_team_chain(every).is_none());
}

#[test]
fn the_check_interval_setting_never_turns_the_check_off() {
    use paydesk_core::desk::{TEAM_CHAIN_CHECK_EVERY, team_chain_check_every};
    assert_eq!(TEAM_CHAIN_CHECK_EVERY.as_secs(), 60);
    assert_eq!(team_chain_check_every(None), TEAM_CHAIN_CHECK_EVERY);
    assert_eq!(team_chain_check_every(Some(" 5 ")).as_secs(), 5);
    assert_eq!(team_chain_check_every(Some("3600")).as_secs(), 3600);
    for bad in ["0", "-1", "3601", "soon", ""] {
        assert_eq!(
            team_chain_check_every(Some(bad)),
            TEAM_CHAIN_CHECK_EVERY,
            "{bad}"
        );
    }
}
