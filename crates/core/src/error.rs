//! One error type with stable variants a caller (CLI, desktop app) acts on.

use paydesk_gateway::{FieldError, GatewayError};
use serde::Serialize;

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, thiserror::Error, Serialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum CoreError {
    /// Input broke a rule; `field` is the wire or form field. Over IPC the rule's
    /// English words are `rule`, and a rule the UI translates also has `ruleKey` and
    /// `ruleParams` (see [`Rule`]).
    #[error("{field}: {rule}")]
    Validation {
        field: String,
        #[serde(flatten)]
        rule: Rule,
    },
    /// The gateway said no.
    #[error("rejected by the gateway: {gateway_code} {message}")]
    Rejected {
        gateway_code: String,
        message: String,
    },
    /// The request may have reached the gateway: it is reconciled before anything is
    /// sent again.
    #[error("outcome unknown: {message}")]
    OutcomeUnknown { message: String },
    /// Nothing was sent (connection refused, configuration); safe to retry.
    #[error("not sent: {message}")]
    NotSent { message: String },
    /// The gateway's answer could not be read.
    #[error("unreadable answer from the gateway: {message}")]
    BadResponse { message: String },
    /// The answer's signature does not verify.
    #[error("the gateway's signature does not verify: {message}")]
    SignatureInvalid { message: String },
    /// The OS keyring is missing, locked or not a real store.
    #[error("keyring unavailable: {message}")]
    KeyringUnavailable { message: String },
    /// A secret that should be in the keyring is not.
    #[error("missing secret: {message}")]
    MissingSecret { message: String },
    #[error("not found: {message}")]
    NotFound { message: String },
    /// The local database or files.
    #[error("storage: {message}")]
    Storage { message: String },
    /// The same intent (operation, account, amount, currency, beneficiary) is in the
    /// journal under another order number, unresolved or accepted lately: nothing was
    /// sent. Retry that order with its number, or confirm a second, deliberate one.
    #[error(
        "the same request is already in the journal as merOrderNo {earlier_mer_order_no} ({earlier_status}, {age_secs} s ago: {summary}); nothing was sent"
    )]
    Duplicate {
        earlier_id: i64,
        earlier_mer_order_no: String,
        earlier_status: String,
        age_secs: i64,
        summary: String,
    },
    /// The operation was cancelled by the user.
    #[error("cancelled")]
    Cancelled,
    /// The team desk locked itself after a stretch without activity: the member's
    /// password is asked again before anything else is done.
    #[error("locked: {message}")]
    Locked { message: String },
    #[error("internal error: {message}")]
    Internal { message: String },
}

/// A broken rule: its English words (what the CLI prints and the logs keep) and, for a
/// rule a window shows in the user's language, a message key (`rules.<key>` in the UI's
/// catalogues) with the values its words name. Reads as its words (`Deref<str>`,
/// `Display`), so code that checks or prints a rule is unchanged.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename = "BrokenRule")]
pub struct Rule {
    #[serde(rename = "rule")]
    pub text: String,
    #[serde(rename = "ruleKey", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(optional))]
    pub key: Option<String>,
    #[serde(
        rename = "ruleParams",
        skip_serializing_if = "std::collections::BTreeMap::is_empty"
    )]
    #[cfg_attr(feature = "specta", specta(optional))]
    pub params: std::collections::BTreeMap<String, String>,
}

impl std::ops::Deref for Rule {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl From<String> for Rule {
    fn from(text: String) -> Self {
        Rule {
            text,
            key: None,
            params: Default::default(),
        }
    }
}

impl From<&str> for Rule {
    fn from(text: &str) -> Self {
        text.to_string().into()
    }
}

impl From<&String> for Rule {
    fn from(text: &String) -> Self {
        text.clone().into()
    }
}

impl From<&Rule> for Rule {
    fn from(r: &Rule) -> Self {
        r.clone()
    }
}

impl From<Rule> for String {
    fn from(r: Rule) -> Self {
        r.text
    }
}

impl PartialEq<str> for Rule {
    fn eq(&self, other: &str) -> bool {
        self.text == other
    }
}

impl PartialEq<&str> for Rule {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

impl PartialEq<String> for Rule {
    fn eq(&self, other: &String) -> bool {
        &self.text == other
    }
}

impl CoreError {
    /// The same error, a validation error naming its field as `name` says (the wire's
    /// name of a field becomes the form's).
    pub fn in_terms(self, name: impl Fn(&str) -> &str) -> Self {
        match self {
            Self::Validation { field, rule } => Self::Validation {
                field: name(&field).to_string(),
                rule,
            },
            other => other,
        }
    }

    pub fn validation(field: impl Into<String>, rule: impl Into<Rule>) -> Self {
        Self::Validation {
            field: field.into(),
            rule: rule.into(),
        }
    }

    pub fn storage(message: impl Into<String>) -> Self {
        Self::Storage {
            message: message.into(),
        }
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::Internal {
            message: message.into(),
        }
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::NotFound {
            message: message.into(),
        }
    }
}

impl From<FieldError> for CoreError {
    fn from(e: FieldError) -> Self {
        Self::Validation {
            field: e.field,
            rule: Rule {
                text: e.rule,
                key: e.key,
                params: e.params,
            },
        }
    }
}

impl From<GatewayError> for CoreError {
    fn from(e: GatewayError) -> Self {
        match e {
            GatewayError::Invalid(f) => f.into(),
            GatewayError::NotSent { reason } => Self::NotSent { message: reason },
            GatewayError::OutcomeUnknown { reason } => Self::OutcomeUnknown { message: reason },
            GatewayError::Rejected { code, message } => Self::Rejected {
                gateway_code: code,
                message,
            },
            GatewayError::Http { status, message } => Self::Rejected {
                gateway_code: format!("HTTP {status}"),
                message,
            },
            GatewayError::BadResponse { reason } => Self::BadResponse { message: reason },
            GatewayError::SignatureInvalid { reason } => Self::SignatureInvalid { message: reason },
        }
    }
}

impl From<rusqlite::Error> for CoreError {
    fn from(e: rusqlite::Error) -> Self {
        Self::storage(e.to_string())
    }
}

impl From<std::io::Error> for CoreError {
    fn from(e: std::io::Error) -> Self {
        Self::storage(e.to_string())
    }
}

pub type CoreResult<T> = Result<T, CoreError>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant crosses IPC as one JSON object with a stable `code`.
    #[test]
    fn every_variant_serializes_with_its_code() {
        let all = [
            CoreError::validation("clabe", "check digit is wrong"),
            CoreError::Rejected {
                gateway_code: "E1012".into(),
                message: "balance".into(),
            },
            CoreError::OutcomeUnknown {
                message: "timeout".into(),
            },
            CoreError::NotSent {
                message: "refused".into(),
            },
            CoreError::BadResponse {
                message: "html".into(),
            },
            CoreError::SignatureInvalid {
                message: "mismatch".into(),
            },
            CoreError::KeyringUnavailable {
                message: "locked".into(),
            },
            CoreError::MissingSecret {
                message: "no key".into(),
            },
            CoreError::not_found("T1"),
            CoreError::Duplicate {
                earlier_id: 1,
                earlier_mer_order_no: "PO1".into(),
                earlier_status: "unknown".into(),
                age_secs: 5,
                summary: "payout".into(),
            },
            CoreError::storage("disk full"),
            CoreError::Cancelled,
            CoreError::Locked {
                message: "idle".into(),
            },
            CoreError::internal("bug"),
        ];
        let codes: Vec<String> = all
            .iter()
            .map(|e| {
                serde_json::to_value(e).unwrap()["code"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(
            codes,
            [
                "validation",
                "rejected",
                "outcome_unknown",
                "not_sent",
                "bad_response",
                "signature_invalid",
                "keyring_unavailable",
                "missing_secret",
                "not_found",
                "duplicate",
                "storage",
                "cancelled",
                "locked",
                "internal"
            ]
        );
        let v =
            serde_json::to_value(CoreError::validation("clabe", "check digit is wrong")).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"code": "validation", "field": "clabe", "rule": "check digit is wrong"})
        );
    }
}
