//! Secrets in the real OS keyring (Secret Service, gnome-keyring under dbus-run-session,
//! started by `cargo xtask test`).

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_core::{CoreError, KeyringStore, SecretStore};

#[test]
fn the_probe_accepts_a_real_store_and_secrets_round_trip() {
    let secrets = common::secrets();
    let info = secrets.generate_merchant_key("kr", 2048).unwrap();
    assert!(info.fingerprint.starts_with("SHA256:"));
    // A second handle to the same store reads it back: it is really stored.
    let again = common::secrets_for(&common::service_of(&secrets));
    let key = again.merchant_key("kr").unwrap();
    assert_eq!(key.public_key().fingerprint(), info.fingerprint);
    assert!(format!("{key:?}").contains("<redacted>"));

    secrets.set_bearer("kr", "tok-secret-123").unwrap();
    let token = again.bearer("kr").unwrap().unwrap();
    assert_eq!(token.expose(), "tok-secret-123");
    assert_eq!(format!("{token:?}"), "<redacted>");

    // A 4096-bit key is stored as DER (fits Windows' credential limit).
    let big = secrets.generate_merchant_key("kr4096", 4096).unwrap();
    assert_eq!(big.bits, 4096);

    secrets.forget("kr").unwrap();
    assert!(matches!(
        again.merchant_key("kr"),
        Err(CoreError::MissingSecret { .. })
    ));
    secrets.forget("kr4096").unwrap();

    let bad = secrets.import_merchant_key(
        "kr",
        "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----",
    );
    assert!(
        matches!(bad, Err(CoreError::Validation { ref field, .. }) if field == "privateKey"),
        "{bad:?}"
    );
}

#[test]
fn without_a_secret_service_the_probe_refuses_with_a_clear_error() {
    // A child process with no session bus: the store is missing.
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "probe_without_bus", "--ignored", "--nocapture"])
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("refused: keyring unavailable"), "{text}");
}

#[test]
#[ignore = "run by the test above in a process without a session bus"]
fn probe_without_bus() {
    match KeyringStore::open("PayDesk-probe-test") {
        Ok(s) => panic!("a store without a bus was accepted: {s:?}"),
        Err(e) => println!("refused: {e}"),
    }
    let _ = <KeyringStore as SecretStore>::get;
}
