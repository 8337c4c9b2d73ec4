//! What may be printed of a request: card numbers and CLABEs as their first 6 and last 4
//! digits, tax ids (CPF) as their last 2, file contents as their size, signatures left
//! out. The journal stores requests through [`masked_json`], and the `Debug` of every
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
                        ("fileContent", Value::String(s)) => {
                            Value::String(format!("<{} base64 characters>", s.len()))
                        }
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
