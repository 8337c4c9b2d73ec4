//! The team's records: what its tables take and return (requests, rows, decisions,
//! rules, members and their limits), where its database is, and the rules of its names.
//! Backend-neutral; the PostgreSQL store keeps them at its old paths.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{CoreError, CoreResult};

/// Where a team's database is. The password is in the keyring, never here.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PgConfig {
    pub host: String,
    pub port: u16,
    pub database: String,
    pub user: String,
    /// A PEM file of the certificate authorities that sign the server's certificate
    /// (a team's private PKI); empty: the operating system's roots. Not used on
    /// loopback, where any certificate is taken (the password's SCRAM exchange is
    /// bound to the TLS channel either way).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ca_file: String,
    /// The member's client certificate (a PEM file, its chain after it) for PostgreSQL's
    /// `cert` authentication, with `key_file`; empty: none (password authentication).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cert_file: String,
    /// The private key of `cert_file` (a PEM file, PKCS#8, PKCS#1 or SEC1), readable by
    /// this desk's user only.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key_file: String,
}

impl PgConfig {
    /// The files the connection reads (certificate authorities, client certificate and
    /// key) that cannot be read now, each as (field, rule): a file missing, a folder, or
    /// one this desk's user may not read. Checked when a profile is saved (and as its
    /// form is typed), so a wrong path is named then and not at the next connection.
    pub fn file_problems(&self) -> Vec<(&'static str, crate::error::Rule)> {
        use crate::error::Rule;
        let mut out = Vec::new();
        for (field, path, what, kind) in [
            (
                "team.caFile",
                &self.ca_file,
                "certificate authorities",
                "ca",
            ),
            (
                "team.certFile",
                &self.cert_file,
                "client certificate",
                "cert",
            ),
            ("team.keyFile", &self.key_file, "private key", "key"),
        ] {
            let p = std::path::Path::new(path);
            if path.is_empty() || !p.is_absolute() {
                continue;
            }
            let rule = match std::fs::metadata(p) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Rule::keyed(
                    format!("{path}: no such file (the {what} PEM file)"),
                    "pemMissing",
                    &[("file", path.to_string()), ("kind", kind.to_string())],
                ),
                Err(e) => Rule::keyed(
                    format!("{path} cannot be read: {e}"),
                    "fileUnreadable",
                    &[("file", path.to_string()), ("detail", e.to_string())],
                ),
                Ok(m) if !m.is_file() => Rule::keyed(
                    format!("{path} is not a file (the {what} PEM file)"),
                    "pemNotFile",
                    &[("file", path.to_string()), ("kind", kind.to_string())],
                ),
                Ok(_) => match std::fs::File::open(p) {
                    Ok(_) => continue,
                    Err(e) => Rule::keyed(
                        format!("{path} cannot be read by this desk's user: {e}"),
                        "fileUnreadable",
                        &[("file", path.to_string()), ("detail", e.to_string())],
                    ),
                },
            };
            out.push((field, rule));
        }
        out
    }

    /// True when the host is this machine (TLS may then be left out).
    pub fn is_loopback(&self) -> bool {
        let host = self.host.trim();
        host.eq_ignore_ascii_case("localhost")
            || host.starts_with('/')
            || host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    }

    /// The connection's rules, each naming its field.
    pub fn validate(&self) -> CoreResult<()> {
        if self.host.trim().is_empty() {
            return Err(CoreError::keyed(
                "team.host",
                "the database's host is required",
                "required",
                &[],
            ));
        }
        if self.port == 0 {
            return Err(CoreError::keyed(
                "team.port",
                "the port is 1 to 65535",
                "portRange",
                &[],
            ));
        }
        if self.database.trim().is_empty() {
            return Err(CoreError::keyed(
                "team.database",
                "the database's name is required",
                "required",
                &[],
            ));
        }
        // Any role may connect (the owner who runs `team init` too); members added by
        // the team follow USER_NAME_RULE.
        if !self.ca_file.is_empty() && !std::path::Path::new(&self.ca_file).is_absolute() {
            return Err(CoreError::keyed(
                "team.caFile",
                "must be the full path of a PEM file of certificate authorities",
                "pemPath",
                &[],
            ));
        }
        for (field, path, what) in [
            ("team.certFile", &self.cert_file, "the client certificate"),
            (
                "team.keyFile",
                &self.key_file,
                "the client certificate's private key",
            ),
        ] {
            if !path.is_empty() && !std::path::Path::new(path).is_absolute() {
                return Err(CoreError::keyed(
                    field,
                    format!("must be the full path of a PEM file of {what}"),
                    "pemPath",
                    &[],
                ));
            }
        }
        if self.cert_file.is_empty() != self.key_file.is_empty() {
            let field = if self.cert_file.is_empty() {
                "team.certFile"
            } else {
                "team.keyFile"
            };
            return Err(CoreError::keyed(
                field,
                "a client certificate goes with its private key: both files, or neither",
                "certWithKey",
                &[],
            ));
        }
        if self.user.is_empty() || self.user.len() > 63 || self.user.chars().any(char::is_control) {
            return Err(CoreError::keyed(
                "team.user",
                "the database user: 1 to 63 characters, no control characters",
                "dbUser",
                &[],
            ));
        }
        Ok(())
    }
}

/// The rule of a team member's database user name (it becomes a PostgreSQL role).
pub const USER_NAME_RULE: &str =
    "1 to 50 characters: lowercase letters, digits and underscores, starting with a letter";

/// A member's name as a role: plain, so it never needs quoting and cannot be taken for
/// one of the team's own roles.
pub fn valid_user_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase())
        && name.len() <= 50
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !name.starts_with("paydesk_")
        && !name.starts_with("pg_")
}

/// A notification the database sent on a channel this link listens to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub channel: String,
    pub payload: String,
}

/// The team's roles, each a PostgreSQL group role `paydesk_<role>`.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum TeamRole {
    /// Orders, balances, reports.
    Viewer,
    /// Order look-up, review submissions.
    Support,
    /// Makes payin, payout and bulk requests.
    Maker,
    /// Approves or rejects others' requests, never their own.
    Approver,
    /// Holds the merchant key and executes approved requests.
    Signer,
    /// Members, roles, rules.
    Admin,
}

impl TeamRole {
    pub const ALL: [TeamRole; 6] = [
        Self::Viewer,
        Self::Support,
        Self::Maker,
        Self::Approver,
        Self::Signer,
        Self::Admin,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Viewer => "viewer",
            Self::Support => "support",
            Self::Maker => "maker",
            Self::Approver => "approver",
            Self::Signer => "signer",
            Self::Admin => "admin",
        }
    }

    pub fn parse(s: &str) -> CoreResult<Self> {
        Self::ALL
            .into_iter()
            .find(|r| r.as_str() == s.trim().to_ascii_lowercase())
            .ok_or_else(|| {
                CoreError::keyed(
                    "role",
                    format!(
                        "{s:?} is not a team role: one of viewer, support, maker, approver, signer, admin"
                    ),
                    "teamRole",
                    &[("got", s.to_string())],
                )
            })
    }
}

/// A member of the team: a database user and the team roles it holds.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    pub name: String,
    pub roles: Vec<TeamRole>,
    /// Who added the member (empty for the session's own user when not in the list).
    pub added_by: String,
    /// UTC millis; `None` when the member was not added through `team user add`.
    pub added_at: Option<i64>,
}

/// An approval rule: requests of `operation` (`payout`, `payin` or `*`) in `currency`
/// (or `*`) whose total is above `above` need `approvals` distinct approvers.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    pub id: i64,
    pub operation: String,
    pub currency: String,
    /// Decimal string.
    pub above: String,
    pub approvals: i32,
    pub created_by: String,
}

/// Where a request stands.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestState {
    Waiting,
    Approved,
    Rejected,
    Executing,
    Done,
}

impl RequestState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Waiting => "waiting",
            Self::Approved => "approved",
            Self::Rejected => "rejected",
            Self::Executing => "executing",
            Self::Done => "done",
        }
    }

    pub fn parse(s: &str) -> CoreResult<Self> {
        Ok(match s {
            "waiting" => Self::Waiting,
            "approved" => Self::Approved,
            "rejected" => Self::Rejected,
            "executing" => Self::Executing,
            "done" => Self::Done,
            other => {
                return Err(CoreError::storage(format!(
                    "a request in state {other:?}, which this desk does not know"
                )));
            }
        })
    }
}

/// An approval or a rejection.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    pub member: String,
    pub approve: bool,
    pub reason: Option<String>,
    pub decided_at: i64,
}

/// A request: one order, or a bulk file's rows as one batch.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    pub id: i64,
    /// `payout` or `payin`.
    pub operation: String,
    pub currency: String,
    /// Decimal string: the sum of the rows.
    pub total: String,
    pub row_count: i32,
    /// For people: the beneficiary (masked) or the file.
    pub summary: String,
    /// The bulk file (name and SHA-256), if any.
    pub source: Option<String>,
    pub maker: String,
    pub approvals_needed: i32,
    pub decisions: Vec<Decision>,
    pub state: RequestState,
    pub created_at: i64,
    pub decided_at: Option<i64>,
    /// The signer executing or who executed it.
    pub claimed_by: Option<String>,
    pub finished_at: Option<i64>,
    /// How it ended (rows accepted, rejected), or why it was rejected.
    pub outcome: Option<String>,
}

impl Request {
    /// Distinct approvals by members other than the maker.
    pub fn approvals(&self) -> usize {
        self.decisions
            .iter()
            .filter(|d| d.approve && d.member != self.maker)
            .count()
    }
}

/// What a row of a request came to.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowState {
    Waiting,
    Accepted,
    Rejected,
    Unknown,
    Failed,
}

impl RowState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Waiting => "waiting",
            Self::Accepted => "accepted",
            Self::Rejected => "rejected",
            Self::Unknown => "unknown",
            Self::Failed => "failed",
        }
    }

    /// Final: the signer has nothing more to do for the row.
    pub fn is_final(self) -> bool {
        matches!(self, Self::Accepted | Self::Rejected | Self::Failed)
    }

    pub fn parse(s: &str) -> Self {
        match s {
            "accepted" => Self::Accepted,
            "rejected" => Self::Rejected,
            "failed" => Self::Failed,
            "waiting" => Self::Waiting,
            _ => Self::Unknown,
        }
    }
}

/// One row of a request.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestRow {
    pub row_no: i32,
    pub mer_order_no: String,
    /// Decimal string.
    pub amount: String,
    /// Masked account and name, for people.
    pub beneficiary: String,
    /// The form the signer fills the order from (no card number).
    #[cfg_attr(feature = "specta", specta(skip))]
    #[serde(skip_serializing)]
    pub form: Value,
    pub state: RowState,
    pub trade_no: Option<String>,
    pub message: Option<String>,
    /// What the maker gave as the row's purpose (issue 35); every member who reads the
    /// rows reads it (approvers decide with it).
    #[serde(default)]
    pub purpose: Option<paydesk_model::purpose::Purpose>,
}

/// A row to request.
#[derive(Debug, Clone)]
pub struct NewRow<'a> {
    /// The bulk file's line the row comes from (named when the row is refused).
    pub line: Option<usize>,
    pub mer_order_no: &'a str,
    /// Decimal string.
    pub amount: &'a str,
    pub form: &'a Value,
    pub beneficiary: &'a str,
}

/// A request to make.
#[derive(Debug, Clone)]
pub struct NewRequest<'a> {
    pub operation: &'a str,
    pub currency: &'a str,
    /// Decimal string; the sum of the rows' amounts.
    pub total: &'a str,
    pub summary: &'a str,
    pub source: Option<&'a str>,
    pub rows: Vec<NewRow<'a>>,
}

/// A member's payout limits in one currency (issue 35), held by the team's database.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberLimit {
    pub member: String,
    pub currency: String,
    /// Decimal strings; `None`: no limit.
    pub per_payout: Option<String>,
    pub per_day: Option<String>,
    /// The zone of the day of `per_day` (a time zone name, or UTC).
    pub day_zone: String,
    /// The admin who set it (empty when setting).
    #[serde(default)]
    pub set_by: String,
}
