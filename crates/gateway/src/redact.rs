//! What may be printed of a request: card numbers and CLABEs as their first 6 and last 4
//! digits, tax ids (CPF) as their last 2, file contents as their size and SHA-256 (the
//! evidence of what was sent), signatures left out. The journal stores requests through [`masked_json`], and the `Debug` of every
//! type that carries a card number or a tax id prints through [`debug_masked`], so a
//! `{:?}` in a log or a panic message never shows one whole.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::validate::mask_card;

/// A tax id as its last 2 characters, the rest `*`.
pub fn mask_tax_id(value: &str) -> String {
    let n = value.chars().count();
    value
        .chars()
        .enumerate()
        .map(|(i, c)| if n > 4 && i >= n - 2 { c } else { '*' })
        .collect()
}

/// `v` with every sensitive member masked, at any depth (member names as on the wire,
/// or the snake_case names of the forms).
pub fn masked_json(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| *k != "sign" && *k != "sing")
                .map(|(k, v)| {
                    let masked = match (k.as_str(), v) {
                        ("cardNo" | "card_no" | "clabe" | "account", Value::String(s)) => {
                            Value::String(mask_card(s))
                        }
                        ("socialSecurityNumber" | "social_security_number", Value::String(s)) => {
                            Value::String(mask_tax_id(s))
                        }
                        ("fileContent", Value::String(s)) => Value::String(file_digest(s)),
                        _ => masked_json(v),
                    };
                    (k.clone(), masked)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(masked_json).collect()),
        other => other.clone(),
    }
}

/// A file's content (standard base64) as what it proves without what it says:
/// `<N bytes, sha256 HEX>` of the decoded bytes, or its length when it is not base64.
pub fn file_digest(content: &str) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    match base64::engine::general_purpose::STANDARD.decode(content) {
        Ok(bytes) => format!(
            "<{} bytes, sha256 {}>",
            bytes.len(),
            hex::encode(sha2::Sha256::digest(&bytes))
        ),
        Err(_) => format!("<{} base64 characters>", content.len()),
    }
}

/// A `Debug` that prints `name` and the value's members with [`masked_json`].
pub fn debug_masked<T: Serialize>(
    name: &str,
    value: &T,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    match serde_json::to_value(value) {
        Ok(v) => write!(f, "{name} {}", masked_json(&v)),
        Err(_) => write!(f, "{name} {{ <not printable> }}"),
    }
}

/// Implements `Debug` through [`debug_masked`] for types that carry a card number, an
/// account or a tax id.
#[macro_export]
macro_rules! masked_debug {
    ($($t:ty),+ $(,)?) => {$(
        impl ::std::fmt::Debug for $t {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                $crate::redact::debug_masked(stringify!($t), self, f)
            }
        }
    )+};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_content_is_kept_as_its_size_and_sha256() {
        // "abc" in base64; its SHA-256 is the FIPS 180-2 example's.
        let v = serde_json::json!({"fileList": [{"fileName": "a", "fileContent": "YWJj"}]});
        assert_eq!(
            masked_json(&v)["fileList"][0]["fileContent"],
            "<3 bytes, sha256 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad>"
        );
        assert_eq!(file_digest("not base64!"), "<11 base64 characters>");
    }

    #[test]
    fn tax_ids_keep_only_their_last_two_characters() {
        assert_eq!(mask_tax_id("12345678909"), "*********09");
        assert_eq!(mask_tax_id("1234"), "****");
    }

    #[test]
    fn nested_members_are_masked_and_signatures_left_out() {
        let v = serde_json::json!({
            "cardNo": "4111111111111111", "sign": "abc",
            "extras": {"social_security_number": "12345678909"},
            "rows": [{"account": "002010077777777771"}]
        });
        let text = masked_json(&v).to_string();
        assert!(text.contains("411111******1111"), "{text}");
        assert!(text.contains("*********09"), "{text}");
        assert!(text.contains("002010********7771"), "{text}");
        assert!(!text.contains("4111111111111111") && !text.contains("abc"));
    }
}

/// Text from outside (a gateway's code or message, a file's cell) made safe to print on
/// a terminal or a screen: control characters other than newline and tab, and the
/// characters that reorder text (bidi controls), are shown escaped (`\u{1b}`); text
/// longer than `max` characters is cut with a marker saying how much was left out.
pub fn terminal_safe(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max + 64));
    for (i, c) in text.chars().enumerate() {
        if i >= max {
            let left = text.chars().count() - i;
            out.push_str(&format!("… [{left} more characters not shown]"));
            break;
        }
        let bidi = matches!(
            c,
            '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        );
        if (c.is_control() && c != '\n' && c != '\t') || bidi {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod terminal_tests {
    use super::terminal_safe;

    #[test]
    fn escapes_controls_and_bidi_and_cuts_long_text() {
        assert_eq!(
            terminal_safe("ok\x1b[2J\0 \u{202E}txt", 100),
            "ok\\u{1b}[2J\\u{0} \\u{202e}txt"
        );
        assert_eq!(
            terminal_safe("line 1\nline 2\tend", 100),
            "line 1\nline 2\tend"
        );
        let long = "x".repeat(5000);
        let cut = terminal_safe(&long, 10);
        assert_eq!(
            cut,
            format!("{}… [4990 more characters not shown]", "x".repeat(10))
        );
        assert_eq!(terminal_safe("交易成功", 100), "交易成功");
    }
}

/// The longest text one member of an answer may hold as admitted (what is longer is cut,
/// saying so): far above any identifier, message or address of the interface.
pub const MAX_ANSWER_TEXT: usize = 4_096;

/// Whether `c` is written escaped in admitted text: a control character (NUL, escape,
/// line breaks), a character that reorders text (bidi controls), or a line or paragraph
/// separator.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200E}'
                | '\u{200F}'
                | '\u{061C}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// A text of the gateway's as the desk admits it, whatever the field: every control
/// character (NUL, escape, line breaks and tabs too, so one field stays one line) and
/// every bidi control replaced by U+FFFD (visible, and never a printable ASCII
/// character, so an identifier that carried one still fails its own rule instead of
/// becoming another valid-looking number), and at most `max` characters (the rest cut
/// with a marker). `None` when the text is admitted as it is.
pub fn admitted_text(text: &str, max: usize) -> Option<String> {
    let long = text.len() > max && text.chars().nth(max).is_some();
    if !long && !text.chars().any(unsafe_char) {
        return None;
    }
    let mut out = String::with_capacity(text.len().min(max + 64));
    for (i, c) in text.chars().enumerate() {
        if i >= max {
            let left = text.chars().count() - i;
            out.push_str(&format!("… [{left} more characters cut]"));
            break;
        }
        out.push(if unsafe_char(c) { '\u{FFFD}' } else { c });
    }
    Some(out)
}

/// Every string in `v` (at any depth) made [`admitted_text`].
pub fn admit_json(v: &mut Value, max: usize) {
    match v {
        Value::String(s) => {
            if let Some(safe) = admitted_text(s, max) {
                *s = safe;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| admit_json(i, max)),
        Value::Object(m) => m.values_mut().for_each(|i| admit_json(i, max)),
        _ => {}
    }
}

#[cfg(test)]
mod admitted_tests {
    use super::*;

    #[test]
    fn every_string_of_an_answer_is_escaped_and_bounded() {
        let mut v = serde_json::json!({
            "state": "3\u{0}\u{202e}\u{1b}[2J",
            "list": [{"message": "a\nb", "n": 5}],
            "payUrl": "x".repeat(1_000_000),
            "ok": "交易成功"
        });
        admit_json(&mut v, MAX_ANSWER_TEXT);
        assert_eq!(v["state"], "3\u{fffd}\u{fffd}\u{fffd}[2J");
        assert_eq!(v["list"][0]["message"], "a\u{fffd}b");
        assert_eq!(v["list"][0]["n"], 5);
        let url = v["payUrl"].as_str().unwrap_or_default();
        assert!(url.chars().count() < MAX_ANSWER_TEXT + 64, "{}", url.len());
        assert!(url.ends_with("more characters cut]"));
        assert_eq!(v["ok"], "交易成功");
        assert_eq!(admitted_text("T0001", 10), None);
    }
}
