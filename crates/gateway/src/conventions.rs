//! A gateway's conventions: everything the interface leaves open, in one named,
//! versioned structure a profile keeps, that a team shares as a JSON file, and that the
//! sandbox can be switched to speak.
//!
//! The interface (`shared/gateway-interface.md`) shows state values without their
//! meanings, one success code, no error codes, no page or span limits, no time zone for
//! `dateLimit`, and does not say which orders its list shows. The [`Conventions::sandbox`]
//! preset is the project's reading (the built-in sandbox speaks it); a real gateway's
//! answers to the questions in the README's "Connecting a live gateway" go here.
//!
//! The file format is this structure in JSON (camelCase), `format` 1. Every member may be
//! left out, taking the sandbox's reading; unknown members are refused so a typo is not
//! silently ignored.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::dictionary::{Meaning, StateDictionary, StateField};
use crate::signing::SignSettings;

/// The version of the conventions file format this PayDesk writes and reads.
pub const CONVENTIONS_FORMAT: u32 = 1;

/// The largest page size a profile may say its gateway takes.
pub const MAX_PAGE_SIZE_SETTING: u32 = 10_000;

/// What kind of order an order is (the order list does not say): known from the
/// journal of the desk that made it, or from the conventions' rules on its number.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OrderKind {
    Payin,
    Payout,
    TopUp,
    Withdraw,
}

impl OrderKind {
    pub const ALL: [Self; 4] = [Self::Payin, Self::Payout, Self::TopUp, Self::Withdraw];

    /// The name the cache and the conventions file store (`payin`, `payout`, `topUp`,
    /// `withdraw`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Payin => "payin",
            Self::Payout => "payout",
            Self::TopUp => "topUp",
            Self::Withdraw => "withdraw",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// What it is called in a sentence ("a payout").
    pub fn label(self) -> &'static str {
        match self {
            Self::Payin => "payin",
            Self::Payout => "payout",
            Self::TopUp => "card top-up",
            Self::Withdraw => "card withdrawal",
        }
    }
}

/// Which operations' orders the gateway's order list shows.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ListShows {
    pub payins: bool,
    pub payouts: bool,
    pub top_ups: bool,
    pub withdrawals: bool,
}

impl Default for ListShows {
    fn default() -> Self {
        Self {
            payins: true,
            payouts: true,
            top_ups: true,
            withdrawals: true,
        }
    }
}

impl ListShows {
    pub fn shows(&self, kind: OrderKind) -> bool {
        match kind {
            OrderKind::Payin => self.payins,
            OrderKind::Payout => self.payouts,
            OrderKind::TopUp => self.top_ups,
            OrderKind::Withdraw => self.withdrawals,
        }
    }
}

/// A rule that tells an order's kind from its merchant order number.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KindRule {
    /// Numbers starting with this text (case-sensitive) are of `kind`.
    pub prefix: String,
    pub kind: OrderKind,
}

/// The V2 query's `queryType` names.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct QueryTypes {
    pub sales: String,
    pub refund: String,
    pub chargeback: String,
}

impl Default for QueryTypes {
    fn default() -> Self {
        Self {
            sales: "sales".into(),
            refund: "refund".into(),
            chargeback: "chargeback".into(),
        }
    }
}

/// The field the V1 order query carries its signature in.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum V1QuerySignField {
    #[default]
    Sign,
    Sing,
}

/// Everything the interface leaves open about one gateway.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Conventions {
    /// The file format's version ([`CONVENTIONS_FORMAT`]).
    pub format: u32,
    /// A name for this set (`sandbox` for the built-in reading), shown in Settings.
    pub name: String,
    /// Each state field's values and their meanings. A field given here replaces the
    /// sandbox's reading of that field whole; a value not listed is shown raw and
    /// counted on a line of its own.
    #[cfg_attr(feature = "specta", specta(type = BTreeMap<String, BTreeMap<String, Meaning>>))]
    pub states: BTreeMap<StateField, BTreeMap<String, Meaning>>,
    /// Business codes that mean success, on every operation (the V2 order query's
    /// documented `200` is always taken too).
    pub success_codes: Vec<String>,
    /// Codes that mean "this merchant order number is already used".
    pub duplicate_codes: Vec<String>,
    /// Codes that mean "no such order" (a query or refund look-up).
    pub not_found_codes: Vec<String>,
    /// How the canonical string is built: excluded keys, empty values left out or kept.
    pub signing: SignSettings,
    /// The IANA time zone in which the gateway reads `dateLimit` (`Asia/Shanghai`,
    /// `America/Mexico_City`, `UTC`).
    pub time_zone: String,
    /// The largest `pageSize` the order list takes.
    pub max_page_size: u32,
    /// The longest `dateLimit` span the order list takes, in hours (0: no limit).
    pub max_span_hours: u32,
    /// The V2 query's `queryType` names.
    pub query_types: QueryTypes,
    /// The V1 order query's signature field: `sign`, or `sing` as one variant spells it.
    pub v1_query_sign_field: V1QuerySignField,
    /// Which operations' orders the order list shows. An unknown outcome of an operation
    /// whose orders it does not show can never be proven absent: it stays unknown until
    /// a person resolves it.
    pub list_shows: ListShows,
    /// How to tell an order's kind from its number when the desk did not make it.
    pub kind_rules: Vec<KindRule>,
    /// The requester's `ipAddress` sent on payouts, top-ups and withdrawals (the
    /// merchant's server address the gateway may have registered).
    pub requester_ip: String,
    /// HTTP statuses besides 200 that the gateway answers as a refusal (with its JSON
    /// envelope, nothing done), per operation name (`v2.payout`, ...), on top of those
    /// the interface documents (400 and 404 on the Vietnam bank payin).
    pub refusal_statuses: BTreeMap<String, Vec<u16>>,
}

impl Default for Conventions {
    fn default() -> Self {
        Self::sandbox()
    }
}

/// The operation names a `refusalStatuses` entry may name.
pub const OPERATION_NAMES: [&str; 11] = [
    "v2.payment",
    "v1.payment",
    "v1.payment.vn_bank",
    "v2.payout",
    "v1.payout",
    "v2.card.topUp",
    "v1.card.withdraw",
    "v1.submit.transferOrder",
    "v2.order.query",
    "v2.order.queryOrderList",
    "v2.balance.query",
];

impl Conventions {
    /// The project's reading, which the built-in sandbox speaks.
    pub fn sandbox() -> Self {
        let dict = StateDictionary::default();
        let states = StateField::ALL
            .into_iter()
            .map(|f| {
                (
                    f,
                    dict.entries(f)
                        .map(|(raw, m)| (raw.to_string(), m))
                        .collect(),
                )
            })
            .collect();
        Self {
            format: CONVENTIONS_FORMAT,
            name: "sandbox".into(),
            states,
            success_codes: vec![crate::wire::SUCCESS.into()],
            duplicate_codes: vec!["E1011".into()],
            not_found_codes: vec!["E1016".into()],
            signing: SignSettings::default(),
            time_zone: "UTC".into(),
            max_page_size: crate::validate::MAX_PAGE_SIZE,
            max_span_hours: 0,
            query_types: QueryTypes::default(),
            v1_query_sign_field: V1QuerySignField::Sign,
            list_shows: ListShows::default(),
            kind_rules: Vec::new(),
            requester_ip: "127.0.0.1".into(),
            refusal_statuses: BTreeMap::new(),
        }
    }

    /// The state dictionary these conventions describe.
    pub fn dictionary(&self) -> StateDictionary {
        StateDictionary::from_entries(&self.states)
    }

    /// Reads a conventions file, naming the member and the rule on a mistake.
    pub fn from_json(text: &str) -> Result<Self, ConventionsError> {
        let mut de = serde_json::Deserializer::from_str(text);
        let c: Conventions = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            ConventionsError::keyed(
                if path == "." { String::new() } else { path },
                e.inner().to_string(),
                "conventionsJson",
                &[("detail", e.inner().to_string())],
            )
        })?;
        de.end().map_err(|e| {
            ConventionsError::keyed(
                "",
                format!("trailing text after the object: {e}"),
                "conventionsJson",
                &[("detail", e.to_string())],
            )
        })?;
        c.check()?;
        Ok(c)
    }

    /// The file's text (pretty JSON).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into())
    }

    /// Whether `code` means success for an operation whose documented success codes are
    /// `documented`.
    pub fn is_success(&self, code: &str, documented: &[&str]) -> bool {
        self.success_codes.iter().any(|c| c == code)
            || documented
                .iter()
                .any(|c| *c != crate::wire::SUCCESS && *c == code)
    }

    /// The statuses answered as a refusal by operation `name`, besides `documented`.
    pub fn refusal_statuses(&self, name: &str) -> &[u16] {
        self.refusal_statuses
            .get(name)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// The kind a merchant order number's rules give, if any (the longest prefix wins).
    pub fn kind_by_number(&self, mer_order_no: &str) -> Option<OrderKind> {
        self.kind_rules
            .iter()
            .filter(|r| !r.prefix.is_empty() && mer_order_no.starts_with(&r.prefix))
            .max_by_key(|r| r.prefix.len())
            .map(|r| r.kind)
    }

    /// Checks every member; the error names the member and the rule.
    pub fn check(&self) -> Result<(), ConventionsError> {
        if self.format != CONVENTIONS_FORMAT {
            return Err(ConventionsError::keyed(
                "format",
                format!(
                    "must be {CONVENTIONS_FORMAT}: this PayDesk reads conventions format \
                     {CONVENTIONS_FORMAT} (the file says {})",
                    self.format
                ),
                "conventionsFormat",
                &[("format", CONVENTIONS_FORMAT.to_string())],
            ));
        }
        let printable = |s: &str, most: usize| {
            !s.is_empty() && s.chars().count() <= most && !s.chars().any(char::is_control)
        };
        if !printable(&self.name, 60) {
            return Err(ConventionsError::keyed(
                "name",
                "must be 1 to 60 characters without control characters",
                "textLengthPlain",
                &[("max", "60".to_string())],
            ));
        }
        for (field, values) in &self.states {
            for raw in values.keys() {
                if !printable(raw, 40) {
                    return Err(ConventionsError::keyed(
                        format!("states.{}", state_field_name(*field)),
                        format!(
                            "value {raw:?} must be 1 to 40 characters without control characters"
                        ),
                        "stateValue",
                        &[("got", raw.clone())],
                    ));
                }
            }
        }
        let codes = [
            ("successCodes", &self.success_codes),
            ("duplicateCodes", &self.duplicate_codes),
            ("notFoundCodes", &self.not_found_codes),
        ];
        for (field, list) in codes {
            for c in list.iter() {
                if !(1..=40).contains(&c.len()) || !c.bytes().all(|b| b.is_ascii_graphic()) {
                    return Err(ConventionsError::keyed(
                        field,
                        format!("code {c:?} must be 1 to 40 printable characters without spaces"),
                        "codeText",
                        &[("got", c.clone())],
                    ));
                }
            }
        }
        if self.success_codes.is_empty() {
            return Err(ConventionsError::keyed(
                "successCodes",
                "must name at least one code (the interface's is 00000)",
                "successCodesEmpty",
                &[],
            ));
        }
        for (i, k) in self.signing.excluded_keys.iter().enumerate() {
            if k.is_empty() || k.len() > 64 || !k.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(ConventionsError::keyed(
                    format!("signing.excludedKeys[{i}]"),
                    "must be a member name of 1 to 64 printable characters",
                    "memberName64",
                    &[],
                ));
            }
        }
        if self.time_zone.parse::<chrono_tz::Tz>().is_err() {
            return Err(ConventionsError::keyed(
                "timeZone",
                format!(
                    "{:?} is not an IANA time zone name (such as UTC, Asia/Shanghai, America/Mexico_City)",
                    self.time_zone
                ),
                "ianaZone",
                &[("got", self.time_zone.clone())],
            ));
        }
        if !(1..=MAX_PAGE_SIZE_SETTING).contains(&self.max_page_size) {
            return Err(ConventionsError::keyed(
                "maxPageSize",
                format!("must be between 1 and {MAX_PAGE_SIZE_SETTING} orders"),
                "pageSizeRange",
                &[("count", MAX_PAGE_SIZE_SETTING.to_string())],
            ));
        }
        if self.max_span_hours != 0 && self.max_span_hours > 24 * 3660 {
            return Err(ConventionsError::keyed(
                "maxSpanHours",
                "must be 0 (no limit) or at most 87840 hours (ten years)",
                "maxSpanRange",
                &[],
            ));
        }
        let names = [
            ("queryTypes.sales", &self.query_types.sales),
            ("queryTypes.refund", &self.query_types.refund),
            ("queryTypes.chargeback", &self.query_types.chargeback),
        ];
        for (field, name) in names {
            if !(1..=40).contains(&name.len()) || !name.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(ConventionsError::keyed(
                    field,
                    "must be 1 to 40 printable characters without spaces",
                    "queryTypeName",
                    &[],
                ));
            }
        }
        for (i, r) in self.kind_rules.iter().enumerate() {
            if !printable(&r.prefix, 32) {
                return Err(ConventionsError::keyed(
                    format!("kindRules[{i}].prefix"),
                    "must be 1 to 32 characters without control characters",
                    "textLengthPlain",
                    &[("max", "32".to_string())],
                ));
            }
        }
        if self.requester_ip.parse::<std::net::IpAddr>().is_err() {
            return Err(ConventionsError::keyed(
                "requesterIp",
                format!("{:?} must be an IPv4 or IPv6 address", self.requester_ip),
                "ipAddress",
                &[("got", self.requester_ip.clone())],
            ));
        }
        for (op, statuses) in &self.refusal_statuses {
            if !OPERATION_NAMES.contains(&op.as_str()) {
                return Err(ConventionsError::keyed(
                    format!("refusalStatuses.{op}"),
                    format!(
                        "names no operation; use one of {}",
                        OPERATION_NAMES.join(", ")
                    ),
                    "operationName",
                    &[("names", OPERATION_NAMES.join(", "))],
                ));
            }
            for s in statuses {
                if !(400..=499).contains(s) {
                    return Err(ConventionsError::keyed(
                        format!("refusalStatuses.{op}"),
                        format!(
                            "{s} cannot be a refusal: only 4xx statuses may be (a 5xx, a redirect or a 2xx may come after the gateway acted)"
                        ),
                        "refusalStatus",
                        &[("got", s.to_string())],
                    ));
                }
            }
        }
        Ok(())
    }

    /// The zone the gateway reads `dateLimit` in (checked by [`Conventions::check`];
    /// UTC if it does not parse).
    pub fn gateway_zone(&self) -> chrono_tz::Tz {
        self.time_zone.parse().unwrap_or(chrono_tz::UTC)
    }

    /// Sets one member from its text, as `paydesk profile conventions set KEY VALUE`
    /// takes it. `KEY` is a member's name (`timeZone`), a nested one
    /// (`listShows.topUps`, `queryTypes.refund`, `signing.skipEmpty`), or a state
    /// value (`states.orderState.9` to a meaning, or to `-` to remove it). `VALUE` is
    /// JSON where the member is not text (`true`, `100`, `["E1011","E2001"]`).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConventionsError> {
        let parts: Vec<&str> = key.split('.').collect();
        if let ["states", field, raw] = parts.as_slice() {
            let f = parse_state_field(field).ok_or_else(|| {
                ConventionsError::keyed(
                    format!("states.{field}"),
                    format!(
                        "names no state field; use one of {}",
                        StateField::ALL.map(state_field_name).join(", ")
                    ),
                    "methodOneOf",
                    &[("names", StateField::ALL.map(state_field_name).join(", "))],
                )
            })?;
            let mut next = self.clone();
            let values = next.states.entry(f).or_default();
            if value == "-" {
                values.remove(*raw);
            } else {
                let m: Meaning = serde_json::from_value(serde_json::Value::String(value.into()))
                    .map_err(|_| {
                        ConventionsError::keyed(
                            key,
                            format!(
                                "{value:?} is no meaning; use one of {}",
                                MEANINGS.join(", ")
                            ),
                            "methodOneOf",
                            &[("names", MEANINGS.join(", "))],
                        )
                    })?;
                values.insert((*raw).to_string(), m);
            }
            next.check()?;
            *self = next;
            return Ok(());
        }
        if let ["refusalStatuses", _, ..] = parts.as_slice() {
            // Operation names hold dots (`v2.payout`): the rest of the key is the name.
            let op = key["refusalStatuses.".len()..].to_string();
            let statuses: Vec<u16> = serde_json::from_str(value).map_err(|_| {
                ConventionsError::keyed(
                    key,
                    format!("{value:?} must be a JSON list of HTTP statuses, such as [409]"),
                    "statusList",
                    &[("got", value.to_string())],
                )
            })?;
            let mut next = self.clone();
            if statuses.is_empty() {
                next.refusal_statuses.remove(&op);
            } else {
                next.refusal_statuses.insert(op, statuses);
            }
            next.check()?;
            *self = next;
            return Ok(());
        }
        let mut tree =
            serde_json::to_value(&*self).map_err(|e| ConventionsError::new(key, e.to_string()))?;
        let mut at = &mut tree;
        for p in &parts {
            let obj = at
                .as_object_mut()
                .ok_or_else(|| ConventionsError::keyed(key, "names no member", "noMember", &[]))?;
            at = obj.get_mut(*p).ok_or_else(|| {
                ConventionsError::keyed(
                    key,
                    "names no member (the members are those of `paydesk profile conventions show`)",
                    "noMember",
                    &[],
                )
            })?;
        }
        let new_value = match at {
            serde_json::Value::String(_) => serde_json::Value::String(value.into()),
            _ => serde_json::from_str(value).map_err(|e| {
                ConventionsError::keyed(
                    key,
                    format!("{value:?} is not a JSON value of the member's type ({e})"),
                    "memberType",
                    &[("got", value.to_string()), ("detail", e.to_string())],
                )
            })?,
        };
        *at = new_value;
        let text = tree.to_string();
        *self = Self::from_json(&text).map_err(|e| ConventionsError {
            field: if e.field.is_empty() {
                key.into()
            } else {
                e.field
            },
            ..e
        })?;
        Ok(())
    }
}

/// The meanings a state value may have, as the file spells them.
pub const MEANINGS: [&str; 14] = [
    "created",
    "pending",
    "processing",
    "submitted",
    "success",
    "failed",
    "closed",
    "refunded",
    "partly_refunded",
    "charged_back",
    "not_settled",
    "settled",
    "held",
    "released",
];

/// A state field's name as the file spells it.
pub fn state_field_name(f: StateField) -> &'static str {
    match f {
        StateField::PayCode => "payCode",
        StateField::OrderState => "orderState",
        StateField::RefundState => "refundState",
        StateField::QueryStatus => "queryStatus",
        StateField::Settle => "settle",
        StateField::RollingReserveStatus => "rollingReserveStatus",
    }
}

fn parse_state_field(name: &str) -> Option<StateField> {
    StateField::ALL
        .into_iter()
        .find(|f| state_field_name(*f) == name)
}

/// A conventions member that breaks a rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("conventions{}{}: {rule}", if field.is_empty() { "" } else { "." }, field)]
pub struct ConventionsError {
    pub field: String,
    pub rule: String,
    /// The rule's message key in a window's catalogues (`rules.<key>`), and the values
    /// its words name; none for a rule only the CLI words.
    pub key: Option<String>,
    pub params: Vec<(String, String)>,
}

impl ConventionsError {
    pub fn new(field: impl Into<String>, rule: impl Into<String>) -> Self {
        ConventionsError {
            field: field.into(),
            rule: rule.into(),
            key: None,
            params: Vec::new(),
        }
    }

    /// A rule a window words in the user's language (see `paydesk_core::error::Rule`).
    pub fn keyed(
        field: impl Into<String>,
        rule: impl Into<String>,
        key: &str,
        params: &[(&str, String)],
    ) -> Self {
        ConventionsError {
            key: Some(key.to_string()),
            params: params
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            ..Self::new(field, rule)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sandbox_preset_round_trips_and_checks() {
        let c = Conventions::sandbox();
        c.check().expect("the preset is valid");
        let back = Conventions::from_json(&c.to_json()).expect("reads back");
        assert_eq!(back, c);
        assert_eq!(
            c.dictionary().meaning(StateField::OrderState, "5"),
            Some(Meaning::Success)
        );
        // An empty file is the sandbox's reading.
        assert_eq!(Conventions::from_json("{}").expect("empty"), c);
    }

    #[test]
    fn mistakes_name_the_member_and_the_rule() {
        let e = Conventions::from_json(r#"{"timeZone": "Mars/Olympus"}"#).unwrap_err();
        assert_eq!(e.field, "timeZone");
        assert!(e.rule.contains("IANA"), "{e}");
        let e = Conventions::from_json(r#"{"maxPageSze": 100}"#).unwrap_err();
        assert!(e.rule.contains("maxPageSze"), "{e}");
        let e = Conventions::from_json(r#"{"refusalStatuses": {"v2.payout": [504]}}"#).unwrap_err();
        assert_eq!(e.field, "refusalStatuses.v2.payout");
        let e = Conventions::from_json(r#"{"maxPageSize": "100"}"#).unwrap_err();
        assert_eq!(e.field, "maxPageSize");
        let e = Conventions::from_json(r#"{"format": 2}"#).unwrap_err();
        assert_eq!(e.field, "format");
    }

    #[test]
    fn set_takes_nested_members_and_state_values() {
        let mut c = Conventions::sandbox();
        c.set("timeZone", "Asia/Shanghai").expect("zone");
        assert_eq!(c.gateway_zone(), chrono_tz::Asia::Shanghai);
        c.set("listShows.topUps", "false").expect("bool");
        assert!(!c.list_shows.top_ups);
        c.set("maxPageSize", "100").expect("number");
        assert_eq!(c.max_page_size, 100);
        c.set("duplicateCodes", r#"["D01","D02"]"#).expect("list");
        assert_eq!(c.duplicate_codes, ["D01", "D02"]);
        c.set("states.orderState.9", "processing").expect("state");
        assert_eq!(
            c.dictionary().meaning(StateField::OrderState, "9"),
            Some(Meaning::Processing)
        );
        c.set("states.orderState.9", "-").expect("removed");
        assert_eq!(c.dictionary().meaning(StateField::OrderState, "9"), None);
        c.set("refusalStatuses.v2.payout", "[409]")
            .expect("an operation's statuses");
        assert_eq!(c.refusal_statuses("v2.payout"), &[409]);
        let e = c.set("refusalStatuses.v2.payout", "[503]").unwrap_err();
        assert_eq!(e.field, "refusalStatuses.v2.payout");
        assert_eq!(c.refusal_statuses("v2.payout"), &[409]);
        c.set("refusalStatuses.v2.payout", "[]").expect("removed");
        assert!(c.refusal_statuses.is_empty());
        let e = c.set("timeZone", "nowhere").unwrap_err();
        assert_eq!(e.field, "timeZone");
        let e = c.set("nosuch", "1").unwrap_err();
        assert_eq!(e.field, "nosuch");
        let e = c.set("states.orderState.9", "paid").unwrap_err();
        assert!(e.rule.contains("success"), "{e}");
        // A failed set leaves the conventions as they were.
        assert_eq!(c.time_zone, "Asia/Shanghai");
    }

    #[test]
    fn kinds_by_number_take_the_longest_prefix() {
        let mut c = Conventions::sandbox();
        c.kind_rules = vec![
            KindRule {
                prefix: "P".into(),
                kind: OrderKind::Payin,
            },
            KindRule {
                prefix: "PO".into(),
                kind: OrderKind::Payout,
            },
        ];
        assert_eq!(c.kind_by_number("PO-1"), Some(OrderKind::Payout));
        assert_eq!(c.kind_by_number("P-1"), Some(OrderKind::Payin));
        assert_eq!(c.kind_by_number("X-1"), None);
    }
}
