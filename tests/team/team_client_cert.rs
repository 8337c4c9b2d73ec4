//! Issue 30, item 8: members authenticated by a client certificate (PostgreSQL's own
//! `cert` method), for teams that want more than a password. A team's private CA (made
//! here with the openssl command) signs the server's certificate and each member's; the
//! server takes member ann by certificate only. Her desk connects with her certificate
//! and no password; her password alone, another member's certificate, or a certificate
//! without its key is refused.

#![allow(clippy::unwrap_used)]

mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt, chown};
use std::path::{Path, PathBuf};
use std::process::Command;

use paydesk_core::CoreError;
use paydesk_core::forms::{PayoutForm, PayoutKind};
use paydesk_store_pg::{PgConfig, PgLink};
use paydesk_team::{RequestState, Team, TeamRole};
use paydesk_testpg::Options;

use common::team::{CLABE, PASSWORD, cfg, member};

fn openssl(args: &[&str], dir: &Path) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The `postgres` user's uid and gid, when the tests run as root (the server then runs
/// as that user and must read its files).
fn postgres_ids() -> Option<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|l| {
        let f: Vec<&str> = l.split(':').collect();
        if f.first() != Some(&"postgres") || f.len() < 4 {
            return None;
        }
        Some((f[2].parse().ok()?, f[3].parse().ok()?))
    })
}

/// A team's PKI in `dir`: its CA, the server's certificate for localhost and one for
/// each of `members` (CN = the member's database user), all signed by the CA.
fn pki(dir: &Path, members: &[&str]) {
    openssl(
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=paydesk-team-ca",
            "-keyout",
            "ca.key",
            "-out",
            "ca.crt",
        ],
        dir,
    );
    std::fs::write(
        dir.join("client.ext"),
        "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth,serverAuth\nsubjectAltName=DNS:localhost\n",
    )
    .unwrap();
    for name in std::iter::once("server").chain(members.iter().copied()) {
        let cn = if name == "server" { "localhost" } else { name };
        openssl(
            &[
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-subj",
                &format!("/CN={cn}"),
                "-keyout",
                &format!("{name}.key"),
                "-out",
                &format!("{name}.csr"),
            ],
            dir,
        );
        openssl(
            &[
                "x509",
                "-req",
                "-in",
                &format!("{name}.csr"),
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-days",
                "2",
                "-extfile",
                "client.ext",
                "-out",
                &format!("{name}.crt"),
            ],
            dir,
        );
        std::fs::set_permissions(
            dir.join(format!("{name}.key")),
            std::fs::Permissions::from_mode(0o600),
        )
        .unwrap();
    }
    // The server runs as postgres when the tests run as root: it reads its key and the CA.
    if std::fs::metadata(dir).unwrap().uid() == 0
        && let Some((uid, gid)) = postgres_ids()
    {
        for f in ["", "server.crt", "server.key", "ca.crt"] {
            chown(dir.join(f), Some(uid), Some(gid)).unwrap();
        }
    }
}

fn path(dir: &Path, file: &str) -> String {
    dir.join(file).to_string_lossy().into_owned()
}

fn with_cert(c: PgConfig, dir: &Path, cert: &str, key: &str) -> PgConfig {
    PgConfig {
        cert_file: path(dir, cert),
        key_file: path(dir, key),
        ..c
    }
}

#[test]
fn a_member_signs_in_with_a_client_certificate_and_nothing_else_gets_in() {
    let tmp = tempfile::tempdir().unwrap();
    let dir: PathBuf = tmp.path().to_path_buf();
    pki(&dir, &["ann", "mark"]);
    let pg = common::team::team_db_of(
        Options::default()
            .setting("ssl", "on")
            .setting("ssl_cert_file", path(&dir, "server.crt"))
            .setting("ssl_key_file", path(&dir, "server.key"))
            .setting("ssl_ca_file", path(&dir, "ca.crt")),
        &[("mark", TeamRole::Maker), ("ann", TeamRole::Approver)],
        "10000",
    );
    // From now on ann signs in by certificate only (over TLS, her CN her user name).
    pg.hba_first(&[
        "hostssl all ann 127.0.0.1/32 cert",
        "host all ann 127.0.0.1/32 reject",
    ])
    .unwrap();
    let mut form = PayoutForm::new(PayoutKind::Clabe, "T-CERT-1", "20000", "MXN");
    form.clabe = CLABE.into();
    let request = member(&pg, "mark").request_payout(&form).unwrap();

    // Her certificate and no password: she is ann to the database, and approves.
    let ann_cfg = with_cert(cfg(&pg, "ann"), &dir, "ann.crt", "ann.key");
    let ann = Team::connect(&ann_cfg, "").unwrap();
    assert_eq!(ann.me().name, "ann");
    assert_eq!(
        ann.approve(request.id).unwrap().state,
        RequestState::Approved
    );
    let link = PgLink::connect(&ann_cfg, "").unwrap();
    let seen = pg
        .psql_super(
            "postgres",
            &format!(
                "SELECT usename || ' ' || ssl || ' ' || client_dn FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) WHERE pid = {}",
                link.backend_pid()
            ),
        )
        .unwrap();
    assert_eq!(seen.trim(), "ann true /CN=ann");

    // Her password alone is refused; so is mark's certificate presented as ann.
    let refused = |r: Result<Team, CoreError>, what: &str| match r {
        Ok(_) => panic!("{what}: connected"),
        Err(e) => e.to_string(),
    };
    let e = refused(Team::connect(&cfg(&pg, "ann"), PASSWORD), "ann's password");
    assert!(e.contains("certificate"), "{e}");
    let e = refused(
        Team::connect(
            &with_cert(cfg(&pg, "ann"), &dir, "mark.crt", "mark.key"),
            "",
        ),
        "mark's certificate as ann",
    );
    assert!(e.contains("certificate authentication failed"), "{e}");
    // Mark, who still signs in by password, is not let in by his certificate alone.
    let e = refused(
        Team::connect(
            &with_cert(cfg(&pg, "mark"), &dir, "mark.crt", "mark.key"),
            "",
        ),
        "mark's certificate without his password",
    );
    assert!(e.contains("password"), "{e}");

    // A certificate with another's key, or half of the pair, is refused naming the field.
    let field = |c: PgConfig| match PgLink::connect(&c, "") {
        Err(CoreError::Validation { field, .. }) => field,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        field(with_cert(cfg(&pg, "ann"), &dir, "ann.crt", "mark.key")),
        "team.keyFile"
    );
    assert_eq!(
        field(PgConfig {
            key_file: String::new(),
            ..with_cert(cfg(&pg, "ann"), &dir, "ann.crt", "ann.key")
        }),
        "team.keyFile"
    );
    assert_eq!(
        field(with_cert(cfg(&pg, "ann"), &dir, "none.crt", "ann.key")),
        "team.certFile"
    );
}
