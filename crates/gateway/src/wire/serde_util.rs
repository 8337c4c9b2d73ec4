//! Serde helpers for the wire's quirks: amounts as decimal strings (never JSON numbers),
//! optional amounts sent as `""`, `code` as string or number, `merNo` as a string.

use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serializer};
use serde_json::Value;

/// `code` as the gateway sends it: a string, or a number we turn into its digits.
pub fn code<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(s),
        Value::Number(n) => Ok(n.to_string()),
        other => Err(serde::de::Error::custom(format!(
            "code must be a string, got {other}"
        ))),
    }
}

fn parse<E: serde::de::Error>(s: &str) -> Result<Decimal, E> {
    crate::money::parse_decimal("amount", s).map_err(|e| E::custom(e.rule))
}

/// A required amount: a JSON string holding a plain decimal.
pub mod dec {
    use super::*;

    pub fn serialize<S: Serializer>(v: &Decimal, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        let s = String::deserialize(d)?;
        parse(&s)
    }
}

/// An optional amount: absent, `null` or `""` is `None`.
pub mod opt_dec {
    use super::*;

    pub fn serialize<S: Serializer>(v: &Option<Decimal>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => s.collect_str(v),
            None => s.serialize_str(""),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Decimal>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(s) if s.is_empty() => Ok(None),
            Some(s) => parse(&s).map(Some),
        }
    }
}

/// `merNo` as a decimal string (V2 card top-up).
pub mod mer_no_string {
    use super::*;
    use crate::wire::MerNo;

    pub fn serialize<S: Serializer>(v: &MerNo, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&v.0)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<MerNo, D::Error> {
        let s = String::deserialize(d)?;
        s.parse::<u64>()
            .map(MerNo)
            .map_err(|_| serde::de::Error::custom(format!("merNo must be digits, got {s:?}")))
    }
}
