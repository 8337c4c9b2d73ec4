//! Why money moved (issue 35): a movement's purpose and optional reference, checked
//! before anything is journaled. The rules, each naming its field:
//!
//! - `purpose`: at most [`MAX_PURPOSE_CHARS`] characters; required when the profile
//!   says so (`Safety::purpose_required`).
//! - `purposeRef`: at most [`MAX_REFERENCE_CHARS`] characters (a ticket, an invoice).
//! - both: printable text, no control characters (line break, tab, escape, C1) and no
//!   invisible or direction-changing characters (U+061C, U+200B..U+200F,
//!   U+2028..U+202E, U+2060..U+2069, U+FEFF): the same set the team's audit log
//!   refuses in its identifiers (PostgreSQL 0022), so a purpose can never forge a line
//!   or turn text around in a log, a CSV or a terminal.
//!
//! A purpose travels in PayDesk's own records (journal, audit, timeline, exports,
//! statement), not to the gateway: of the interface's operations only a card top-up has
//! a free text (`remark`), which takes the purpose when no remark is given.

pub use paydesk_model::purpose::Purpose;

use crate::error::{CoreError, CoreResult};

/// The longest purpose, in characters.
pub const MAX_PURPOSE_CHARS: usize = 140;
/// The longest reference, in characters.
pub const MAX_REFERENCE_CHARS: usize = 64;

/// The form's field of a purpose's text.
pub const PURPOSE_FIELD: &str = "purpose";
/// The form's field of a purpose's reference.
pub const REFERENCE_FIELD: &str = "purposeRef";

/// A character a purpose never holds: controls, and invisible or direction-changing
/// characters.
pub fn forbidden(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{061C}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{2069}'
            | '\u{FEFF}')
}

fn text(field: &str, value: &str, max: usize) -> CoreResult<String> {
    let value = value.trim();
    if let Some(c) = value.chars().find(|c| forbidden(*c)) {
        return Err(CoreError::keyed(
            field,
            format!(
                "printable text only: no control characters (line break, tab, escape) and no invisible or direction-changing characters (found U+{:04X})",
                c as u32
            ),
            "purposeCharacter",
            &[("code", format!("U+{:04X}", c as u32))],
        ));
    }
    let n = value.chars().count();
    if n > max {
        return Err(CoreError::keyed(
            field,
            format!("at most {max} characters ({n} given)"),
            "purposeTooLong",
            &[("max", max.to_string()), ("given", n.to_string())],
        ));
    }
    Ok(value.to_string())
}

/// `p` checked and trimmed: `None` when nothing was given (refused when `required`).
/// Called before anything is journaled; a refusal names the field.
pub fn check(p: &Purpose, required: bool) -> CoreResult<Option<Purpose>> {
    let checked = Purpose {
        text: text(PURPOSE_FIELD, &p.text, MAX_PURPOSE_CHARS)?,
        reference: text(REFERENCE_FIELD, &p.reference, MAX_REFERENCE_CHARS)?,
    };
    if required && checked.text.is_empty() {
        return Err(CoreError::keyed(
            PURPOSE_FIELD,
            "is required: this profile asks for a purpose on every movement (Settings, \"Purpose required\")",
            "purposeRequired",
            &[],
        ));
    }
    Ok(checked.given().cloned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule_of(e: CoreError) -> (String, String) {
        match e {
            CoreError::Validation { field, rule } => (field, rule.key.unwrap_or_default()),
            other => panic!("not a field rule: {other:?}"),
        }
    }

    #[test]
    fn a_purpose_is_trimmed_and_none_when_empty() {
        let p = check(&Purpose::new("  March payroll ", " INV-1042 "), false).unwrap();
        assert_eq!(p, Some(Purpose::new("March payroll", "INV-1042")));
        assert_eq!(check(&Purpose::new("  ", ""), false).unwrap(), None);
        // A reference alone is kept (the purpose is not required here).
        assert_eq!(
            check(&Purpose::new("", "T-9"), false).unwrap(),
            Some(Purpose::new("", "T-9"))
        );
    }

    #[test]
    fn a_required_purpose_names_its_field() {
        for given in [Purpose::default(), Purpose::new(" ", "INV-1")] {
            let (field, key) = rule_of(check(&given, true).unwrap_err());
            assert_eq!(
                (field.as_str(), key.as_str()),
                ("purpose", "purposeRequired")
            );
        }
        assert!(check(&Purpose::new("Rent", ""), true).unwrap().is_some());
    }

    #[test]
    fn bounds_and_characters_name_the_field() {
        let long = "é".repeat(MAX_PURPOSE_CHARS + 1);
        let (field, key) = rule_of(check(&Purpose::new(long, ""), false).unwrap_err());
        assert_eq!(
            (field.as_str(), key.as_str()),
            ("purpose", "purposeTooLong")
        );
        // Exactly at the bound, in characters (not bytes): kept.
        assert!(check(&Purpose::new("é".repeat(MAX_PURPOSE_CHARS), ""), false).is_ok());
        let (field, key) = rule_of(
            check(
                &Purpose::new("ok", "x".repeat(MAX_REFERENCE_CHARS + 1)),
                false,
            )
            .unwrap_err(),
        );
        assert_eq!(
            (field.as_str(), key.as_str()),
            ("purposeRef", "purposeTooLong")
        );
        for bad in [
            "a\nb",
            "a\tb",
            "\u{1b}[2J",
            "pay\u{202e}dis",
            "x\u{200b}y",
            "a\u{85}b",
        ] {
            let (field, key) = rule_of(check(&Purpose::new(bad, ""), false).unwrap_err());
            assert_eq!(
                (field.as_str(), key.as_str()),
                ("purpose", "purposeCharacter"),
                "{bad:?}"
            );
            let (field, _) = rule_of(check(&Purpose::new("ok", bad), false).unwrap_err());
            assert_eq!(field, "purposeRef", "{bad:?}");
        }
        // Letters of any script stay allowed.
        assert!(check(&Purpose::new("工资 三月 — Nómina", "发票-7"), true).is_ok());
    }
}
