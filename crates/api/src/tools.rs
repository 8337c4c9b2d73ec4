//! The signing tools of `signing.md` (`paydesk sign`, `verify`; the Settings screen's
//! *Signing tools*): a JSON object's canonical string, its signature checked against a
//! public key, or signed with a profile's merchant key, which stays in the keyring (only
//! the signature leaves). One reading of the body and the settings for both front ends.

use paydesk_core::{CoreError, CoreResult, Secrets};
use paydesk_gateway::signing::VerifyError;
use paydesk_gateway::{PublicKey, SignSettings, canonical_string, sign_body, verify_body};
use serde_json::{Map, Value};

/// The canonical string's settings: the top-level keys left out (none given: `sign`,
/// `sing`, `signType`; blanks ignored) and whether empty values stay in.
pub fn settings(exclude: Option<Vec<String>>, keep_empty: bool) -> SignSettings {
    let mut s = SignSettings::default();
    if let Some(keys) = exclude {
        s.excluded_keys = keys
            .into_iter()
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty())
            .collect();
    }
    s.skip_empty = !keep_empty;
    s
}

/// `text` as the JSON object it must be (`field` names it in the error).
pub fn body(field: &str, text: &str) -> CoreResult<Map<String, Value>> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(CoreError::validation(field, "must be a JSON object")),
        Err(e) => Err(CoreError::validation(
            field,
            format!("is not valid JSON: {e}"),
        )),
    }
}

/// A public key's text (PEM SPKI or PKCS#1, or bare base64 DER).
pub fn public_key(field: &str, text: &str) -> CoreResult<PublicKey> {
    PublicKey::from_text(text).map_err(|e| CoreError::validation(field, e.to_string()))
}

/// What a signature check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub valid: bool,
    /// The string the signature was checked over.
    pub canonical: String,
    /// The key's SHA-256 fingerprint.
    pub key_fingerprint: String,
}

/// Checks `signature` (standard base64) over `body`'s canonical string with `key`; a
/// signature that is not base64 is refused, naming `signature`.
pub fn verify(
    body: &Map<String, Value>,
    settings: &SignSettings,
    key: &PublicKey,
    signature: &str,
) -> CoreResult<Verified> {
    let valid = match verify_body(body, settings, key, signature) {
        Ok(()) => true,
        Err(VerifyError::NotBase64) => {
            return Err(CoreError::validation("signature", "is not valid base64"));
        }
        Err(VerifyError::Mismatch) => false,
    };
    Ok(Verified {
        valid,
        canonical: canonical_string(body, settings),
        key_fingerprint: key.fingerprint(),
    })
}

/// The gateway's public key kept for `profile` (what its answers and notifications are
/// signed with).
pub fn gateway_key(secrets: &Secrets, profile: &str) -> CoreResult<PublicKey> {
    secrets.gateway_key(profile)?.ok_or_else(|| {
        CoreError::validation(
            "publicKey",
            format!("profile {profile} has no gateway key: paste the public key to check with"),
        )
    })
}

/// `body` signed with `profile`'s merchant key from the keyring: the canonical string
/// and the signature (the key never leaves the keyring's side of this call).
pub fn sign_with_profile(
    secrets: &Secrets,
    profile: &str,
    body: &Map<String, Value>,
    settings: &SignSettings,
) -> CoreResult<paydesk_gateway::signing::Signed> {
    let key = secrets.merchant_key(profile)?;
    sign_body(body, settings, &key).map_err(|e| CoreError::internal(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use paydesk_gateway::PrivateKey;

    #[test]
    fn a_signature_is_valid_only_over_its_body_and_bad_input_names_its_field() {
        let key = PrivateKey::generate(2048).unwrap_or_else(|e| panic!("{e}"));
        let b = body(
            "body",
            r#"{"merNo":"1","amount":"10.00","sign":"x","note":""}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let s = settings(None, false);
        let signed = sign_body(&b, &s, &key).unwrap_or_else(|e| panic!("{e}"));
        // The canonical string, written here from the rule: sorted, sign and empty out.
        assert_eq!(signed.canonical, "amount=10.00&merNo=1");
        let v = verify(&b, &s, &key.public_key(), &signed.sign).unwrap_or_else(|e| panic!("{e}"));
        assert!(v.valid);
        assert_eq!(v.canonical, signed.canonical);
        let other = body("body", r#"{"merNo":"1","amount":"10.01"}"#).unwrap_or_default();
        let v =
            verify(&other, &s, &key.public_key(), &signed.sign).unwrap_or_else(|e| panic!("{e}"));
        assert!(!v.valid);
        let field = |e: CoreError| match e {
            CoreError::Validation { field, .. } => field,
            other => panic!("{other}"),
        };
        assert_eq!(
            field(verify(&b, &s, &key.public_key(), "%%").unwrap_err()),
            "signature"
        );
        assert_eq!(field(body("body", "[1]").unwrap_err()), "body");
        assert_eq!(field(body("body", "{").unwrap_err()), "body");
        assert_eq!(
            field(public_key("publicKey", "nope").unwrap_err()),
            "publicKey"
        );
        // Settings: blanks ignored, empties kept when asked.
        let keep = settings(Some(vec![" ".into(), "sign".into()]), true);
        assert_eq!(keep.excluded_keys, vec!["sign".to_string()]);
        assert_eq!(canonical_string(&b, &keep), "amount=10.00&merNo=1&note=");
    }
}
