//! A team's members through the `paydesk` command (issue 30): `team init` refuses a
//! superuser, an admin changes a member's roles (the old ones taken away) and resets a
//! password as steps of their own, adding an existing member or another role of the
//! server is refused, and what no rule names needs the team's default approvals.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::team::*;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn members_change_roles_and_passwords_as_steps_of_their_own() {
    let (mut env, _running, pg) = team_with(&[], "10000").await;
    let port = pg.port().to_string();

    // The cluster's superuser may not own the team.
    let out = env
        .cmd(&[
            "team",
            "init",
            "--host",
            "127.0.0.1",
            "--port",
            &port,
            "--database",
            "team",
            "--user",
            pg.superuser(),
            "--mer-no",
            "10001",
        ])
        .env("PAYDESK_TEAM_PASSWORD", pg.superuser_password())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is a superuser"), "{err}");
    assert!(!err.contains(pg.superuser_password()), "{err}");

    let add = |env: &Env, name: &str, role: &str| {
        env.cmd(&[
            "--profile",
            "owner",
            "team",
            "user",
            "add",
            name,
            "--role",
            role,
        ])
        .env("PAYDESK_NEW_PASSWORD", PASSWORD)
        .output()
        .unwrap()
    };
    // ann, an approver, again as a viewer: refused, she keeps her role and password.
    let out = add(&env, "ann", "viewer");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("already a member (holds approver)"), "{err}");
    // The owner is never a member.
    let out = add(&env, pg.owner(), "admin");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("owner is never a member"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A role change replaces the role, and says what the member holds.
    let said = env.ok(&[
        "--profile",
        "owner",
        "team",
        "user",
        "role",
        "ann",
        "--role",
        "viewer,support",
    ]);
    assert!(said.contains("ann now holds: support,viewer"), "{said}");
    let listed = env.ok(&["--profile", "owner", "team", "user", "list"]);
    let ann = listed.lines().find(|l| l.starts_with("ann ")).unwrap();
    assert!(
        ann.contains("support,viewer") && !ann.contains("approver"),
        "{ann}"
    );

    // A password reset: the new password opens ann's profile, the old one no more.
    let out = env
        .cmd(&["--profile", "owner", "team", "user", "password", "ann"])
        .env("PAYDESK_NEW_PASSWORD", "a-new-password-for-ann")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = env.run(&["--profile", "ap", "team", "whoami"], "");
    assert!(!out.status.success(), "the old password still works");
    let out = env.run(
        &["profile", "set-team-password", "ap"],
        "a-new-password-for-ann",
    );
    assert!(out.status.success());
    let me = env.ok(&["--profile", "ap", "team", "whoami"]);
    assert!(me.contains("support, viewer"), "{me}");

    // The team's default approvals, said by the rules' list.
    let said = env.ok(&[
        "--profile",
        "owner",
        "team",
        "rules",
        "default",
        "--approvals",
        "2",
    ]);
    assert!(said.contains("needs 2 approval(s)"), "{said}");
    let rules = env.ok(&["--profile", "owner", "team", "rules", "list"]);
    assert!(
        rules.contains("otherwise (no rule names the operation and currency): 2 approver(s)"),
        "{rules}"
    );
    let log = pg
        .psql_owner(
            "team",
            "SELECT operator || ' ' || operation FROM paydesk.audit_log WHERE operation LIKE 'team.member.%' ORDER BY id",
        )
        .unwrap();
    assert!(log.contains("team_owner team.member.role"), "{log}");
    assert!(log.contains("team_owner team.member.password"), "{log}");
}

/// `team init` says which roles the owner lacks to end members' stalling sessions, and
/// what a superuser runs: on PostgreSQL 16 and later without the superuser's grant,
/// both; on 15 the owner takes them itself at each `team init` (even after a superuser
/// took them away), so it says nothing.
#[test]
fn team_init_names_the_grants_the_owner_lacks() {
    let pg = paydesk_testpg::TestPg::start_with(
        paydesk_testpg::Options::default().without_owner_grants(),
    )
    .unwrap();
    pg.create_database("team").unwrap();
    let env = Env {
        home: tempfile::tempdir().unwrap(),
        service: "PayDesk-test-team-init-grants".into(),
        outputs: Vec::new(),
    };
    let port = pg.port().to_string();
    let init = || {
        let out = env
            .cmd(&[
                "team",
                "init",
                "--host",
                "127.0.0.1",
                "--port",
                &port,
                "--database",
                "team",
                "--user",
                pg.owner(),
                "--mer-no",
                "10001",
            ])
            .env("PAYDESK_TEAM_PASSWORD", pg.owner_password())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let holds = || {
        pg.psql_super(
            "postgres",
            "SELECT pg_has_role('team_owner', 'pg_signal_backend', 'USAGE')
                AND pg_has_role('team_owner', 'pg_read_all_stats', 'USAGE')",
        )
        .unwrap()
        .trim()
            == "t"
    };
    for _ in 0..2 {
        let err = init();
        if pg.server_version_num() >= 160_000 {
            assert!(
                err.contains("lacks pg_signal_backend, pg_read_all_stats")
                    && err.contains("GRANT pg_signal_backend, pg_read_all_stats TO team_owner"),
                "{err}"
            );
            assert!(!holds());
        } else {
            assert!(!err.contains("warning"), "{err}");
            assert!(holds());
        }
        pg.psql_super(
            "postgres",
            "REVOKE pg_signal_backend, pg_read_all_stats FROM team_owner",
        )
        .unwrap();
    }
}
