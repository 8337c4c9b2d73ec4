//! Canonical string and RSA256 signatures, exactly as `shared/signing.md` fixes them.
//!
//! The canonical string is built from the JSON request body: excluded keys and empty
//! top-level values are left out, the remaining keys are sorted by their UTF-8 bytes,
//! and `key=value` pairs are joined with `&`. Nested arrays and objects are rendered
//! as compact JSON with keys sorted at every depth.

use std::fmt::Write as _;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::keys::{PrivateKey, PublicKey};

/// How the canonical string is built. A real gateway that differs from the project's
/// reading is met by changing these settings in a profile, not by code edits.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignSettings {
    /// Top-level keys left out of the canonical string.
    pub excluded_keys: Vec<String>,
    /// Leave out top-level members whose value is `null`, `""`, `[]` or `{}`.
    pub skip_empty: bool,
}

impl Default for SignSettings {
    fn default() -> Self {
        Self {
            excluded_keys: vec!["sign".into(), "sing".into(), "signType".into()],
            skip_empty: true,
        }
    }
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Bool(_) | Value::Number(_) => false,
    }
}

/// The canonical string of a JSON object body.
pub fn canonical_string(body: &Map<String, Value>, settings: &SignSettings) -> String {
    let mut keys: Vec<&String> = body
        .iter()
        .filter(|(k, v)| {
            let excluded = settings.excluded_keys.iter().any(|x| x == *k);
            let dropped_as_empty = settings.skip_empty && is_empty(v);
            !(excluded || dropped_as_empty)
        })
        .map(|(k, _)| k)
        .collect();
    // `str` ordering is byte ordering of the UTF-8 encoding.
    keys.sort_unstable();
    let mut out = String::new();
    for (i, k) in keys.into_iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.push_str(k);
        out.push('=');
        match &body[k.as_str()] {
            Value::String(s) => out.push_str(s),
            other => write_compact_sorted(&mut out, other),
        }
    }
    out
}

/// Compact JSON with object keys sorted by bytes at every depth and minimal escaping
/// (`"`, `\` and control characters; non-ASCII and `/` stay as they are).
fn write_compact_sorted(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_json_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact_sorted(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(out, k);
                out.push(':');
                write_compact_sorted(out, &map[k.as_str()]);
            }
            out.push('}');
        }
    }
}

fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Signs a body: the canonical string and its standard-base64 RSA256 signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Signed {
    pub canonical: String,
    pub sign: String,
}

pub fn sign_body(
    body: &Map<String, Value>,
    settings: &SignSettings,
    key: &PrivateKey,
) -> Result<Signed, crate::keys::KeyError> {
    let canonical = canonical_string(body, settings);
    let sig = key.sign(canonical.as_bytes())?;
    Ok(Signed {
        canonical,
        sign: B64.encode(sig),
    })
}

/// Why a signature did not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("the signature is not valid base64")]
    NotBase64,
    #[error("the signature does not match the content and key")]
    Mismatch,
}

/// Verifies a standard-base64 `sign` over a body's canonical string.
pub fn verify_body(
    body: &Map<String, Value>,
    settings: &SignSettings,
    key: &PublicKey,
    sign: &str,
) -> Result<(), VerifyError> {
    let sig = B64
        .decode(sign.trim())
        .map_err(|_| VerifyError::NotBase64)?;
    let canonical = canonical_string(body, settings);
    if key.verify(canonical.as_bytes(), &sig) {
        Ok(())
    } else {
        Err(VerifyError::Mismatch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn empty_values_and_excluded_keys_are_left_out_at_top_level_only() {
        let body = obj(json!({
            "b": "", "c": [], "d": {}, "e": null, "sign": "x", "signType": "RSA256",
            "a": {"z": "", "y": []}, "n": 0, "t": false
        }));
        assert_eq!(
            canonical_string(&body, &SignSettings::default()),
            r#"a={"y":[],"z":""}&n=0&t=false"#
        );
        let keep = SignSettings {
            skip_empty: false,
            excluded_keys: vec!["sign".into()],
        };
        assert_eq!(
            canonical_string(&body, &keep),
            r#"a={"y":[],"z":""}&b=&c=[]&d={}&e=null&n=0&signType=RSA256&t=false"#
        );
    }

    #[test]
    fn nested_strings_escape_minimally() {
        let body = obj(json!({"x": ["a/b", "é\"\\\n\u{1}"]}));
        assert_eq!(
            canonical_string(&body, &SignSettings::default()),
            "x=[\"a/b\",\"é\\\"\\\\\\n\\u0001\"]"
        );
    }
}
