//! One error type with stable variants a caller (CLI, desktop app) acts on.

use paydesk_gateway::{FieldError, GatewayError};
use serde::{Deserialize, Serialize};

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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "BrokenRule")]
pub struct Rule {
    #[serde(rename = "rule")]
    pub text: String,
    #[serde(rename = "ruleKey", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(optional))]
    pub key: Option<String>,
    #[serde(
        rename = "ruleParams",
        default,
        skip_serializing_if = "std::collections::BTreeMap::is_empty"
    )]
    #[cfg_attr(feature = "specta", specta(optional))]
    pub params: std::collections::BTreeMap<String, String>,
}

impl Rule {
    /// A rule a window words in the user's language: `text` is the English the CLI
    /// prints, `key` names `rules.<key>` in the UI's catalogues (a literal, so the
    /// catalogue test finds it), `params` the values its words name.
    pub fn keyed(text: impl Into<String>, key: &str, params: &[(&str, String)]) -> Self {
        Rule {
            text: text.into(),
            key: Some(key.to_string()),
            params: params
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        }
    }
}

impl Rule {
    /// This rule quoting `inner` as its parameter `param` (a batch's "the first, line 3:
    /// amount {{rule}}", a URL's "({{reason}})"): a window words the quoted rule in its
    /// language too, from `quotedKey` and the `quoted.`-prefixed parameters.
    pub fn quoting(mut self, param: &str, inner: &Rule) -> Self {
        if let Some(key) = &inner.key {
            self.params.insert("quoted".into(), param.to_string());
            self.params.insert("quotedKey".into(), key.clone());
            for (p, v) in &inner.params {
                self.params.insert(format!("quoted.{p}"), v.clone());
            }
        }
        self
    }

    /// Why a text is not a URL, keyed where the reason is one a person can act on.
    pub fn url_reason(e: url::ParseError) -> Rule {
        use url::ParseError as P;
        let text = e.to_string();
        match e {
            P::RelativeUrlWithoutBase => Rule::keyed(text, "urlRelative", &[]),
            P::EmptyHost => Rule::keyed(text, "urlEmptyHost", &[]),
            P::InvalidPort => Rule::keyed(text, "urlInvalidPort", &[]),
            P::InvalidIpv4Address | P::InvalidIpv6Address => Rule::keyed(text, "urlInvalidIp", &[]),
            P::InvalidDomainCharacter | P::IdnaError => Rule::keyed(text, "urlInvalidHost", &[]),
            _ => Rule::from(text),
        }
    }

    /// Why a CSV row cannot be read, keyed where a person can act on it.
    pub fn csv_reason(e: &csv::Error) -> Rule {
        let text = e.to_string();
        match e.kind() {
            csv::ErrorKind::UnequalLengths {
                expected_len, len, ..
            } => Rule::keyed(
                text,
                "csvFieldCount",
                &[
                    ("got", len.to_string()),
                    ("expected", expected_len.to_string()),
                ],
            ),
            csv::ErrorKind::Utf8 { .. } => Rule::keyed(text, "csvNotUtf8", &[]),
            _ => Rule::from(text),
        }
    }

    /// The rule a currency code broke, as `paydesk_gateway::money::Currency::parse`
    /// words it (`text`), keyed by which of its two rules `code` broke.
    pub fn currency(code: &str, text: String) -> Self {
        if text.starts_with("must be a 3-letter") {
            Rule::keyed(text, "currencyCode", &[("got", code.to_string())])
        } else {
            Rule::keyed(text, "currencyUnknown", &[("code", code.to_string())])
        }
    }
}

impl From<FieldError> for Rule {
    fn from(e: FieldError) -> Self {
        Rule {
            text: e.rule,
            key: e.key,
            params: e.params,
        }
    }
}

/// A conventions member that breaks a rule, named `conventions.<member>` as a form's
/// field, its rule worded in the window's language where it has a key.
impl From<paydesk_gateway::conventions::ConventionsError> for CoreError {
    fn from(e: paydesk_gateway::conventions::ConventionsError) -> Self {
        CoreError::validation(
            format!("conventions.{}", e.field),
            Rule {
                text: e.rule,
                key: e.key,
                params: e.params.into_iter().collect(),
            },
        )
    }
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

    /// A validation error whose rule has a message key: see [`Rule::keyed`].
    pub fn keyed(
        field: impl Into<String>,
        text: impl Into<String>,
        key: &str,
        params: &[(&str, String)],
    ) -> Self {
        Self::validation(field, Rule::keyed(text, key, params))
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

    /// A currency code's two rules, as the gateway's parser words them, keep its words
    /// and get their own keys (the parser's wording is what tells them apart).
    #[test]
    fn a_currency_rule_is_keyed_by_which_rule_it_broke() {
        let rule = |code: &str| {
            Rule::currency(
                code,
                paydesk_gateway::money::Currency::parse(code).unwrap_err(),
            )
        };
        let lower = rule("mxn");
        assert_eq!(lower.key.as_deref(), Some("currencyCode"));
        assert_eq!(lower.params["got"], "mxn");
        assert!(lower.text.contains("ISO 4217"), "{}", lower.text);
        let unknown = rule("QQQ");
        assert_eq!(unknown.key.as_deref(), Some("currencyUnknown"));
        assert_eq!(unknown.params["code"], "QQQ");
        assert_eq!(unknown.text, "\"QQQ\" is not an ISO 4217 currency");
    }

    /// One call that states a rule with a message key, as the source has it.
    struct KeyedSite {
        file: String,
        key: String,
        params: Vec<String>,
    }

    /// The arguments of the call whose `(` is at `open`, split at top-level commas (the
    /// text of strings, chars and nested brackets kept whole).
    fn call_args(src: &str, open: usize) -> Vec<String> {
        let b = src.as_bytes();
        let (mut depth, mut i, mut start) = (0_i32, open, open + 1);
        let mut out = Vec::new();
        while i < b.len() {
            match b[i] {
                b'"' => {
                    i += 1;
                    while b[i] != b'"' {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                }
                b'\'' if b.get(i + 2) == Some(&b'\'') => i += 2,
                b'\'' if b.get(i + 1) == Some(&b'\\') => {
                    i += 2;
                    while b[i] != b'\'' {
                        i += 1;
                    }
                }
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        out.push(src[start..i].trim().to_string());
                        return out;
                    }
                }
                b',' if depth == 1 => {
                    out.push(src[start..i].trim().to_string());
                    start = i + 1;
                }
                _ => {}
            }
            i += 1;
        }
        panic!("no end to the call at {open}");
    }

    /// Every keyed rule in the workspace's crates: `CoreError::keyed(field, text, key,
    /// params)`, `FieldError::keyed(field, text, key, params)`, `Rule::keyed(text, key,
    /// params)`. A forwarding call (its key the parameter `key`) is no site of its own.
    fn keyed_sites() -> Vec<KeyedSite> {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        for c in std::fs::read_dir(&crates).unwrap() {
            let src = c.unwrap().path().join("src");
            if src.is_dir() {
                walk(&src, &mut files);
            }
        }
        let mut out = Vec::new();
        for f in files {
            let src = std::fs::read_to_string(&f).unwrap();
            for (call, at) in [
                ("CoreError::keyed(", 2),
                ("FieldError::keyed(", 2),
                ("Rule::keyed(", 1),
                ("ConventionsError::keyed(", 2),
            ] {
                for (i, _) in src.match_indices(call) {
                    // Not in a comment, nor in a string (this test's own list).
                    let line = &src[src[..i].rfind('\n').map_or(0, |n| n + 1)..i];
                    if line.trim_start().starts_with("//") || line.ends_with('"') {
                        continue;
                    }
                    let args = call_args(&src, i + call.len() - 1);
                    let key = &args[at];
                    if key == "key" {
                        continue;
                    }
                    let file = f.display().to_string();
                    assert!(
                        key.len() > 2 && key.starts_with('"') && key.ends_with('"'),
                        "{file}: a rule's key is a literal (the catalogues are checked for it), got {key}"
                    );
                    let params = args[at + 1]
                        .split("(\"")
                        .skip(1)
                        .map(|p| p.split('"').next().unwrap().to_string())
                        .collect();
                    out.push(KeyedSite {
                        file,
                        key: key.trim_matches('"').to_string(),
                        params,
                    });
                }
            }
        }
        out
    }

    /// The `rules` section of a UI catalogue: each key with its text.
    fn catalogue_rules(lang: &str) -> std::collections::BTreeMap<String, String> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../../ui/src/i18n/{lang}.ts"));
        let text = std::fs::read_to_string(&path).unwrap();
        let section = text
            .split("\n  rules: {\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{lang}.ts has no rules section"));
        let section = &section[..section.find("\n  },").unwrap()];
        let mut out = std::collections::BTreeMap::new();
        let mut pending: Option<String> = None;
        for line in section.lines().map(str::trim) {
            if line.is_empty() || line.starts_with("//") {
                continue;
            }
            if let Some(key) = pending.take() {
                out.insert(key, line.to_string());
            } else if let Some((key, value)) = line.split_once(':')
                && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                if value.trim().is_empty() {
                    pending = Some(key.to_string());
                } else {
                    out.insert(key.to_string(), value.trim().to_string());
                }
            }
        }
        out
    }

    /// Every rule the Rust side states with a message key has words in English and in
    /// Chinese, and the English words' placeholders are values the rule gives: a Chinese
    /// window never falls back to the core's English, nor shows `{{name}}`.
    #[test]
    fn every_rule_key_the_core_states_is_translated() {
        let sites = keyed_sites();
        // The field rules of the gateway, the forms, profiles, bulk files and teams.
        assert!(sites.len() >= 90, "only {} keyed rules found", sites.len());
        let en = catalogue_rules("en");
        let zh = catalogue_rules("zh");
        assert!(
            en.len() >= 60 && zh.len() >= 60,
            "{} / {}",
            en.len(),
            zh.len()
        );
        let mut missing = Vec::new();
        for s in &sites {
            for (lang, c) in [("en", &en), ("zh", &zh)] {
                // A plural's words are under `<key>_other` (and `_one` in English).
                if !c.contains_key(&s.key) && !c.contains_key(&format!("{}_other", s.key)) {
                    missing.push(format!("{lang}: rules.{} ({})", s.key, s.file));
                }
            }
            if let Some(text) = en
                .get(&s.key)
                .or_else(|| en.get(&format!("{}_other", s.key)))
            {
                for p in text.split("{{").skip(1) {
                    let name = p.split("}}").next().unwrap();
                    if !s.params.iter().any(|x| x == name) {
                        missing.push(format!(
                            "rules.{} names {{{{{name}}}}}, not given at {} (gives {:?})",
                            s.key, s.file, s.params
                        ));
                    }
                }
            }
        }
        missing.sort();
        missing.dedup();
        assert!(missing.is_empty(), "{}", missing.join("\n"));
    }
}
