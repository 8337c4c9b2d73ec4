//! A team on a real PostgreSQL server, set up through the `paydesk` command as its
//! owner would: shared by the CLI's team tests.

use paydesk_sandbox::Running;
use paydesk_testpg::TestPg;

use super::*;

pub const PASSWORD: &str = "correct-horse-battery";

pub fn fund(running: &Running) {
    let mut m = running.sandbox.with_state(|s| s.merchants[&10001].clone());
    *m.opening.entry("MXN".into()).or_default() += rust_decimal::Decimal::from(10_000_000);
    running.sandbox.add_merchant(m);
}

/// A team profile `name` for the database user `user` (password in the keyring).
pub fn team_profile(env: &mut Env, pg: &TestPg, base: &str, name: &str, user: &str) {
    let port = pg.port().to_string();
    env.ok(&[
        "profile",
        "add",
        name,
        "--base-url",
        base,
        "--mer-no",
        "10001",
        "--origin",
        ORIGIN,
        "--notify-url",
        NOTIFY_URL,
        "--team-host",
        pg.host(),
        "--team-port",
        &port,
        "--team-database",
        "team",
        "--team-user",
        user,
    ]);
    let out = env.run(&["profile", "set-team-password", name], PASSWORD);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A team set up through the command: the signer's profile `ext` (user sam, the key,
/// `signer_args` added to its `profile add`), a maker's `mk` (mark) and an approver's
/// `ap` (ann); MXN payouts above `above` need one approval.
pub async fn team_with(signer_args: &[&str], above: &str) -> (Env, Running, TestPg) {
    let (env, running, pg, _key) = team_with_key(signer_args, above).await;
    (env, running, pg)
}

/// [`team_with`], and the merchant's private key (for a second signer's own desk).
pub async fn team_with_key(
    signer_args: &[&str],
    above: &str,
) -> (Env, Running, TestPg, paydesk_gateway::PrivateKey) {
    let pg = TestPg::start().unwrap();
    pg.create_database("team").unwrap();
    let port = pg.port().to_string();
    let (mut env, running, key) = setup_with(
        &[
            "--team-host",
            "127.0.0.1",
            "--team-port",
            &port,
            "--team-database",
            "team",
            "--team-user",
            "sam",
        ]
        .into_iter()
        .chain(signer_args.iter().copied())
        .collect::<Vec<_>>(),
    )
    .await;
    fund(&running);
    let base = running.base_url().to_string();
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
    team_profile(&mut env, &pg, &base, "owner", pg.owner());
    let out = env.run(
        &["profile", "set-team-password", "owner"],
        pg.owner_password(),
    );
    assert!(out.status.success());
    for (name, role) in [("mark", "maker"), ("ann", "approver"), ("sam", "signer")] {
        let out = env
            .cmd(&[
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
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = env.run(&["profile", "set-team-password", "ext"], PASSWORD);
    assert!(out.status.success());
    env.ok(&[
        "--profile",
        "owner",
        "team",
        "rules",
        "set",
        "--currency",
        "MXN",
        "--above",
        above,
        "--approvals",
        "1",
    ]);
    team_profile(&mut env, &pg, &base, "mk", "mark");
    team_profile(&mut env, &pg, &base, "ap", "ann");
    (env, running, pg, key)
}
