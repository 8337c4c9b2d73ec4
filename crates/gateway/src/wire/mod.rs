//! Wire types: one request struct per documented operation, each knowing its path,
//! generation, headers and output type, and the response payloads with the exact
//! wire names of the interface, quirks included.

mod card;
mod payin;
mod payout;
mod query;
mod review;
pub mod serde_util;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub use card::*;
pub use payin::*;
pub use payout::*;
pub use query::*;
pub use review::*;

use crate::validate::FieldError;

/// The business success code.
pub const SUCCESS: &str = "00000";

/// Path generation: V2 paths begin with `/v2`, V1 paths have no prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Generation {
    V1,
    V2,
}

/// Where the signature goes: `sign`, or `sing` in one variant of the V1 order query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SignField {
    #[default]
    Sign,
    Sing,
}

impl SignField {
    pub fn key(self) -> &'static str {
        match self {
            Self::Sign => "sign",
            Self::Sing => "sing",
        }
    }
}

/// Whether an operation sends `Authorization: Bearer <token>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bearer {
    /// Not sent.
    No,
    /// Required by the interface (V2 payin, V2 card top-up): the call is not sent
    /// without a token.
    Required,
    /// Listed among the headers (V2 payout): sent when the profile has a token.
    IfAvailable,
}

/// The headers an operation sends besides `Content-Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderSpec {
    pub payment_type: Option<&'static str>,
    /// `Referer`: the merchant's registered origin (payin and payout calls).
    pub referer: bool,
    pub bearer: Bearer,
    /// `lang`, `orderType` and `User-Agent` as the V2 payin, payout and top-up list them.
    pub lang_and_order_type: bool,
}

impl HeaderSpec {
    pub const PLAIN: HeaderSpec = HeaderSpec {
        payment_type: None,
        referer: false,
        bearer: Bearer::No,
        lang_and_order_type: false,
    };
}

/// A documented operation of the gateway.
pub trait Operation: Serialize + Send + Sync {
    /// The `data` of a successful answer.
    type Output: DeserializeOwned + Serialize + Send + std::fmt::Debug;
    /// A stable name for logs and the journal, e.g. `v2.payment`.
    const NAME: &'static str;
    const PATH: &'static str;
    const GENERATION: Generation;
    /// Business codes that mean success (`00000`; the V2 order query also shows `200`).
    const SUCCESS_CODES: &'static [&'static str] = &[SUCCESS];
    /// The answer carries `sign` over the request parameters.
    const RESPONSE_SIGNED: bool = false;
    /// The call moves money or submits data: it goes through the journal.
    const MOVES_MONEY: bool = false;
    /// HTTP statuses besides 200 that the interface documents for this call.
    const DOCUMENTED_HTTP_ERRORS: &'static [u16] = &[];

    fn headers(&self) -> HeaderSpec;

    fn sign_field(&self) -> SignField {
        SignField::Sign
    }

    /// Checks every field; the first broken rule is returned with its field name.
    fn validate(&self) -> Result<(), FieldError>;
}

/// The `data` member of an answer: an object, the empty string, or absent.
#[derive(Debug, Clone, PartialEq)]
pub enum Data<T> {
    Value(T),
    Empty,
    Absent,
}

impl<T> Data<T> {
    pub fn into_option(self) -> Option<T> {
        match self {
            Data::Value(v) => Some(v),
            Data::Empty | Data::Absent => None,
        }
    }

    pub fn is_absent(&self) -> bool {
        matches!(self, Data::Absent)
    }
}

impl<T: Serialize> Serialize for Data<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Data::Value(v) => v.serialize(s),
            Data::Empty | Data::Absent => s.serialize_str(""),
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Data<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        match v {
            serde_json::Value::Null => Ok(Data::Empty),
            serde_json::Value::String(s) if s.is_empty() => Ok(Data::Empty),
            other => serde_json::from_value(other)
                .map(Data::Value)
                .map_err(serde::de::Error::custom),
        }
    }
}

/// The common answer envelope: `code`, `message`, `data`, and `sign` where signed.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound(deserialize = "T: DeserializeOwned"))]
pub struct Envelope<T> {
    #[serde(deserialize_with = "serde_util::code")]
    pub code: String,
    #[serde(default)]
    pub message: String,
    #[serde(default = "absent", skip_serializing_if = "Data::is_absent")]
    pub data: Data<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sign: Option<String>,
    #[serde(rename = "signType", default, skip_serializing_if = "Option::is_none")]
    pub sign_type: Option<String>,
}

fn absent<T>() -> Data<T> {
    Data::Absent
}

impl<T> Envelope<T> {
    pub fn ok(data: T) -> Self {
        Self {
            code: SUCCESS.into(),
            message: "success".into(),
            data: Data::Value(data),
            sign: None,
            sign_type: None,
        }
    }

    pub fn error(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
            data: Data::Empty,
            sign: None,
            sign_type: None,
        }
    }
}

/// `data` of answers that carry nothing (`""`, absent, or anything ignorable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct NoData;

impl<'de> Deserialize<'de> for NoData {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d).map(|_| NoData)
    }
}

/// The merchant number. On the wire an integer, except in the V2 card top-up where it
/// is a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MerNo(pub u64);

impl std::fmt::Display for MerNo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// Checks `value` only when it is not empty.
pub(crate) fn optional(
    value: &str,
    check: impl FnOnce(&str) -> Result<(), FieldError>,
) -> Result<(), FieldError> {
    if value.is_empty() {
        Ok(())
    } else {
        check(value)
    }
}
