//! The audit log's rows: an entry of the keyed hash chain, the anchor the keyring keeps
//! of it, a record to append, a chain's check, a log set aside, the Activity screen's
//! filter (`audit_log`).

use serde::{Deserialize, Serialize};

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    pub id: i64,
    pub at: i64,
    pub profile: String,
    pub operator: String,
    pub operation: String,
    /// `merOrderNo=...`, `tradeNo=...` and the like; never secrets or full card numbers.
    pub identifiers: String,
    /// `ok`, a gateway code, or an error kind.
    pub result: String,
    pub latency_ms: i64,
    pub prev_hash: String,
    pub hash: String,
    /// The database user who wrote the row, on a team's log (the database sets it, and
    /// seals it into the row); none on a desk's own log.
    #[serde(default)]
    pub db_user: Option<String>,
}

/// What the keyring records of a profile's chain after each append.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Anchor {
    /// The first row sealed with the keyring's key (rows before it are older).
    pub first_keyed: i64,
    /// Rows in the log after the append.
    pub count: i64,
    pub last_id: i64,
    pub last_hash: String,
}

/// What to record.
#[derive(Debug, Clone)]
pub struct Record<'a> {
    pub profile: &'a str,
    pub operator: &'a str,
    pub operation: &'a str,
    pub identifiers: String,
    pub result: String,
    pub latency_ms: i64,
}

/// The result of checking the chain, with what was checked.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChainCheck {
    /// Rows read from the database.
    pub rows: i64,
    pub ok: bool,
    /// The first row where the chain breaks, and why.
    pub broken_at: Option<i64>,
    pub problem: Option<String>,
    /// The first row sealed with the keyring's key; rows before it (written by an
    /// older version) are checked by plain SHA-256 only. `None`: no keyed row yet.
    pub keyed_from: Option<i64>,
    /// The row count the keyring recorded at the last append (the truncation check);
    /// `None` when the keyring holds no record for this log yet.
    pub anchored_rows: Option<i64>,
    /// An entry that could not be written (the log is incomplete since), as the keyring
    /// recorded it when it happened: when, and why.
    pub alert: Option<String>,
}

impl ChainCheck {
    /// The check with an entry the desk could not write (the keyring's `audit-alert`):
    /// the log is broken from that point, incomplete; the alert is reported as recorded.
    pub fn with_alert(mut self, alert: Option<String>) -> Self {
        if let Some(why) = alert {
            if self.ok {
                self.ok = false;
                self.broken_at = Some(self.rows + 1);
                self.problem = Some(format!(
                    "an entry could not be written, so the log is incomplete: {why}"
                ));
            }
            self.alert = Some(why);
        }
        self
    }
}

/// An audit log set aside: its rows are kept as written, but the key that sealed them is
/// lost, so they cannot be checked.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditArchive {
    pub archive: i64,
    pub archived_at: i64,
    pub rows: i64,
    /// Rows sealed with the lost key (the others are plain SHA-256 rows of an older version).
    pub sealed_rows: i64,
    pub reason: String,
}

/// Filters of the Activity screen and `paydesk audit list`.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AuditFilter {
    pub operation: Option<String>,
    pub text: Option<String>,
    pub from: Option<i64>,
    pub to: Option<i64>,
    pub limit: Option<i64>,
}
