//! Reaching the team's database over TLS: a server on this machine with TLS on and a
//! self-signed certificate (what Debian's package sets up) is reached, over TLS; a
//! certificate-authority file that cannot be used is refused naming the setting.

#![allow(clippy::unwrap_used)]

use std::os::unix::fs::{MetadataExt, PermissionsExt, chown};
use std::path::Path;
use std::process::Command;

use paydesk_core::CoreError;
use paydesk_store_pg::{PgConfig, PgLink};
use paydesk_testpg::{Options, TestPg};

/// The `postgres` user's uid and gid, when the tests run as root (the server then runs
/// as that user and must read its key).
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

/// A self-signed certificate and its key for `localhost`, readable by the server.
fn self_signed(dir: &Path) -> (String, String) {
    let (crt, key) = (dir.join("server.crt"), dir.join("server.key"));
    let ok = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        ])
        .args(["-subj", "/CN=localhost", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&crt)
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    if std::fs::metadata(dir).unwrap().uid() == 0
        && let Some((uid, gid)) = postgres_ids()
    {
        for p in [dir, crt.as_path(), key.as_path()] {
            chown(p, Some(uid), Some(gid)).unwrap();
        }
    }
    (
        crt.to_string_lossy().into_owned(),
        key.to_string_lossy().into_owned(),
    )
}

#[test]
fn a_loopback_server_with_a_self_signed_certificate_is_reached_over_tls() {
    let dir = tempfile::tempdir().unwrap();
    let (crt, key) = self_signed(dir.path());
    let pg = TestPg::start_with(
        Options::default()
            .setting("ssl", "on")
            .setting("ssl_cert_file", &crt)
            .setting("ssl_key_file", &key),
    )
    .unwrap();
    for host in ["127.0.0.1", "localhost"] {
        let cfg = PgConfig {
            host: host.into(),
            port: pg.port(),
            database: "postgres".into(),
            user: pg.owner().into(),
            ca_file: String::new(),
            cert_file: String::new(),
            key_file: String::new(),
        };
        let link = PgLink::connect(&cfg, pg.owner_password()).unwrap();
        let encrypted = pg
            .psql_super(
                "postgres",
                &format!(
                    "SELECT ssl FROM pg_stat_ssl WHERE pid = {}",
                    link.backend_pid()
                ),
            )
            .unwrap();
        assert_eq!(encrypted.trim(), "t", "{host}: the connection is encrypted");
    }
}

#[test]
fn a_certificate_authority_file_that_cannot_be_used_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = |ca: &str| PgConfig {
        host: "db.team.example".into(),
        port: 5432,
        database: "team".into(),
        user: "ann".into(),
        ca_file: ca.into(),
        cert_file: String::new(),
        key_file: String::new(),
    };
    let named = |e: CoreError| match e {
        CoreError::Validation { field, rule } => (field, rule),
        other => panic!("{other}"),
    };
    let (field, rule) = named(cfg("ca.pem").validate().unwrap_err());
    assert_eq!(field, "team.caFile");
    assert!(rule.contains("full path"), "{rule}");
    // Checked before any connection: a missing file, and one that is not PEM.
    let missing = dir.path().join("none.pem");
    let (field, _) = named(PgLink::connect(&cfg(missing.to_str().unwrap()), "pw").unwrap_err());
    assert_eq!(field, "team.caFile");
    let junk = dir.path().join("junk.pem");
    std::fs::write(&junk, "not a certificate").unwrap();
    let (field, rule) = named(PgLink::connect(&cfg(junk.to_str().unwrap()), "pw").unwrap_err());
    assert_eq!(field, "team.caFile");
    assert!(
        rule.contains("no certificate") || rule.contains("PEM"),
        "{rule}"
    );
}
