//! Secrets in the real OS keyring (Secret Service, gnome-keyring under dbus-run-session,
//! started by `cargo xtask test`).

#![allow(clippy::unwrap_used)]

use crate::common;

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

/// Windows' Credential Manager keeps at most 2,560 bytes per credential
/// (CRED_MAX_CREDENTIAL_BLOB_SIZE): the largest key the desk accepts (4096 bits, kept as
/// PKCS#8 DER), imported or generated, and every other secret must fit, and a larger one
/// is refused on every system alike, naming the field.
#[test]
fn every_secret_fits_windows_credential_limit() {
    use paydesk_core::secrets::MAX_SECRET_BYTES;
    assert_eq!(MAX_SECRET_BYTES, 2560);
    let secrets = common::secrets();
    let largest = paydesk_gateway::PrivateKey::generate(paydesk_gateway::keys::MAX_BITS).unwrap();
    assert!(
        largest.pkcs8_der().len() <= MAX_SECRET_BYTES,
        "a {}-bit key is {} bytes",
        paydesk_gateway::keys::MAX_BITS,
        largest.pkcs8_der().len()
    );
    // Imported as PEM PKCS#8 (about 3.3 kB of text), it is stored as DER and fits.
    let pem = largest.to_pkcs8_pem();
    assert!(pem.len() > MAX_SECRET_BYTES);
    let info = secrets.import_merchant_key("win", &pem).unwrap();
    assert_eq!(info.bits, 4096);
    assert_eq!(
        secrets
            .merchant_key("win")
            .unwrap()
            .public_key()
            .fingerprint(),
        largest.public_key().fingerprint()
    );
    // A bearer token longer than a credential holds is refused before the keyring.
    let long = "t".repeat(MAX_SECRET_BYTES + 1);
    let err = secrets.set_bearer("win", &long).unwrap_err();
    assert!(
        matches!(err, CoreError::Validation { ref field, .. } if field == "bearerToken"),
        "{err:?}"
    );
    secrets.forget("win").unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn without_a_secret_service_the_probe_refuses_with_a_clear_error() {
    // A child process with no session bus: the store is missing.
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &crate::test_name(module_path!(), "probe_without_bus"),
            "--ignored",
            "--nocapture",
        ])
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("refused: keyring unavailable"), "{text}");
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "run by the test above in a process without a session bus"]
fn probe_without_bus() {
    match KeyringStore::open("PayDesk-probe-test") {
        Ok(s) => panic!("a store without a bus was accepted: {s:?}"),
        Err(e) => println!("refused: {e}"),
    }
    let _ = <KeyringStore as SecretStore>::get;
}
