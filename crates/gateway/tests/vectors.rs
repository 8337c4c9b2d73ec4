//! Every case of the independent vectors (`shared/vectors/signing.json`, copied here
//! so the tests run anywhere) must pass byte for byte.

#![allow(clippy::unwrap_used)]

use base64::Engine as _;
use paydesk_gateway::{
    PrivateKey, PublicKey, SignSettings, canonical_string, sign_body, verify_body,
};
use serde_json::Value;

fn vectors() -> Value {
    let text = include_str!("vectors/signing.json");
    serde_json::from_str(text).unwrap()
}

fn key_text<'a>(v: &'a Value, name: &str, form: &str) -> &'a str {
    v["keys"][name][form].as_str().unwrap()
}

fn settings(v: &Value) -> SignSettings {
    let excluded = v["excluded_keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap().to_string())
        .collect();
    SignSettings {
        excluded_keys: excluded,
        skip_empty: true,
    }
}

#[test]
fn default_settings_match_the_vectors_excluded_keys() {
    let v = vectors();
    let mut want = settings(&v).excluded_keys;
    let mut have = SignSettings::default().excluded_keys;
    want.sort();
    have.sort();
    assert_eq!(want, have);
}

#[test]
fn every_sign_case_matches_byte_for_byte() {
    let v = vectors();
    let cases = v["sign_cases"].as_array().unwrap();
    assert!(cases.len() >= 9);
    let settings = SignSettings::default();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let body = case["body"].as_object().unwrap();
        let key_name = case["key"].as_str().unwrap();
        assert_eq!(
            canonical_string(body, &settings),
            case["canonical"].as_str().unwrap(),
            "canonical of {name}"
        );
        for form in ["private_pkcs8", "private_pkcs1"] {
            let Some(text) = v["keys"][key_name][form].as_str() else {
                continue;
            };
            let key = PrivateKey::from_text(text).unwrap();
            let signed = sign_body(body, &settings, &key).unwrap();
            assert_eq!(
                signed.sign,
                case["signature"].as_str().unwrap(),
                "signature of {name} with {form}"
            );
            let public = PublicKey::from_text(key_text(&v, key_name, "public_spki")).unwrap();
            verify_body(body, &settings, &public, &signed.sign).unwrap();
        }
    }
}

#[test]
fn every_verify_case_gives_the_expected_verdict() {
    let v = vectors();
    let gateway = PublicKey::from_text(key_text(&v, "gateway", "public_spki")).unwrap();
    let settings = SignSettings::default();
    for case in v["verify_cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let ok = verify_body(
            case["request"].as_object().unwrap(),
            &settings,
            &gateway,
            case["response_sign"].as_str().unwrap(),
        )
        .is_ok();
        assert_eq!(ok, case["valid"].as_bool().unwrap(), "{name}");
    }
}

#[test]
fn keys_load_in_every_accepted_form_and_agree_with_their_public_halves() {
    let v = vectors();
    for name in ["merchant", "gateway", "merchant4096"] {
        let pem = key_text(&v, name, "private_pkcs8");
        let key = PrivateKey::from_text(pem).unwrap();
        let public = PublicKey::from_text(key_text(&v, name, "public_spki")).unwrap();
        assert_eq!(key.public_key(), public, "{name}");
        // Bare base64 DER, as gateway portals hand keys out.
        let der = pem::parse(pem).unwrap().into_contents();
        let bare = base64::engine::general_purpose::STANDARD.encode(&der);
        assert_eq!(PrivateKey::from_text(&bare).unwrap().public_key(), public);
        assert_eq!(PublicKey::from_text(&public.to_base64()).unwrap(), public);
        assert!(public.fingerprint().starts_with("SHA256:"));
        assert_eq!(public.fingerprint().len(), "SHA256:".len() + 32 * 3 - 1);
    }
    let big = PrivateKey::from_text(key_text(&v, "merchant4096", "private_pkcs8")).unwrap();
    assert_eq!(big.bits(), 4096);
    assert!(
        big.pkcs8_der().len() < 2560,
        "a 4096-bit key's DER must fit the Windows credential limit"
    );
    let sig = big.sign(b"abc").unwrap();
    assert!(big.public_key().verify(b"abc", &sig));
    assert!(!big.public_key().verify(b"abd", &sig));
    // A private key never prints.
    let dbg = format!("{big:?}");
    assert!(dbg.contains("<redacted>") && !dbg.contains("MII"), "{dbg}");
}

#[test]
fn generated_keys_round_trip_and_bad_keys_are_refused() {
    let key = PrivateKey::generate(2048).unwrap();
    let again = PrivateKey::from_text(&key.to_pkcs8_pem()).unwrap();
    assert_eq!(again.public_key(), key.public_key());
    assert!(PrivateKey::generate(1024).is_err());
    assert!(PrivateKey::from_text("not a key").is_err());
    assert!(
        PrivateKey::from_text("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
            .is_err()
    );
    assert!(PublicKey::from_text("QUJD").is_err());
}

#[test]
fn the_copy_matches_the_shared_vectors_when_they_are_there() {
    // The project keeps its own copy so tests run anywhere; where the shared folder
    // sits beside the checkout (CI, developers), the copy must not have drifted.
    let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/vectors/signing.json");
    if let Ok(text) = std::fs::read_to_string(&shared) {
        let theirs: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            theirs,
            vectors(),
            "tests/vectors/signing.json differs from {}",
            shared.display()
        );
    }
}

/// A key below the size rule is refused naming the rule (aws-lc would only say it
/// cannot read it): a throwaway 1024-bit test key, in both private forms.
#[test]
fn a_1024_bit_key_is_refused_by_its_size() {
    for file in ["rsa1024-pkcs8.pem", "rsa1024-pkcs1.pem"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(file);
        let text = std::fs::read_to_string(path).unwrap();
        let err = paydesk_gateway::PrivateKey::from_text(&text).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the key has 1024 bits; keys from 2048 to 4096 bits are accepted",
            "{file}"
        );
    }
}
