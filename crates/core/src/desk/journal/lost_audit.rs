//! A desk whose audit key is gone from the keyring (a reset, a copied folder, a new
//! machine) while its log holds rows sealed with it: the desk does not open (a new key
//! made in silence would make the old chain read as broken), and offers to set the old
//! log aside (kept, readable, marked as sealed with a lost key) and start a new one.

use serde::{Deserialize, Serialize};

use crate::audit::{AuditArchive, AuditEntry, Record};
use crate::error::{CoreError, CoreResult};
use crate::profile::Home;
use crate::secrets::Secrets;
use crate::store::Store;

/// What a desk's audit log holds that its lost key sealed.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LostAuditKey {
    pub profile: String,
    /// Rows in the log.
    pub rows: i64,
    /// Rows sealed with the key that is missing (they can no longer be checked).
    pub sealed_rows: i64,
}

/// The new log: the archive the old rows went to, and the new chain's first row.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewAuditLog {
    pub archive: AuditArchive,
    pub first_row: AuditEntry,
}

/// The operation of the new log's first row.
pub const NEW_LOG_OPERATION: &str = "audit.new_log";

/// The error a desk opens with when its audit key is lost: names what is missing and
/// the way on.
pub(crate) fn lost_key_error(lost: &LostAuditKey) -> CoreError {
    CoreError::MissingSecret {
        message: format!(
            "the audit key of profile {} is not in this computer's keyring, but its audit log \
             holds {} rows sealed with it, which can no longer be checked. Start a new audit \
             log (the old rows are kept, marked as sealed with a lost key): `paydesk audit \
             new-log`, or \"Start a new audit log\" in the app",
            lost.profile, lost.sealed_rows
        ),
    }
}

/// Whether the desk's own audit log has sealed rows whose key the keyring no longer
/// holds. `None` when the key is there, the log holds no sealed row, or the log is a
/// team's (the team's database keeps it).
pub(crate) fn lost_in(
    store: &Store,
    secrets: &Secrets,
    profile: &str,
) -> CoreResult<Option<LostAuditKey>> {
    if secrets.audit_key_kept(profile)?.is_some() {
        return Ok(None);
    }
    Ok(match store.audit_sealed_rows()? {
        Some((rows, sealed)) if sealed > 0 => Some(LostAuditKey {
            profile: profile.to_string(),
            rows,
            sealed_rows: sealed,
        }),
        _ => None,
    })
}

fn own_store(home: &Home, profile: &str) -> CoreResult<std::sync::Arc<Store>> {
    let p = home.get(profile)?;
    if p.team.is_some() {
        return Err(CoreError::keyed(
            "profile",
            "a team's audit log is kept in the team's database and cannot be set aside from one desk",
            "teamAuditNotAside",
            &[],
        ));
    }
    Store::open_sqlite(&home.database(profile))
}

/// Whether profile `profile`'s audit key is lost while its log holds rows it sealed
/// (what the missing-secrets screen asks before offering a new log).
pub fn audit_key_lost(
    home: &Home,
    secrets: &Secrets,
    profile: &str,
) -> CoreResult<Option<LostAuditKey>> {
    if home.get(profile)?.team.is_some() {
        return Ok(None);
    }
    let store = own_store(home, profile)?;
    lost_in(&store, secrets, profile)
}

/// Sets the old audit log aside (its rows kept as written, readable, marked as sealed
/// with a lost key) and starts a new chain under a new key, whose first row records the
/// archive. Refused while the keyring still holds the key: a log that can be checked is
/// never set aside.
pub fn start_new_audit_log(
    home: &Home,
    secrets: &Secrets,
    profile: &str,
) -> CoreResult<NewAuditLog> {
    let p = home.get(profile)?;
    let store = own_store(home, profile)?;
    let Some(lost) = lost_in(&store, secrets, profile)? else {
        return Err(CoreError::keyed(
            "profile",
            format!(
                "the audit log of profile {profile} can still be checked (its key is in the \
                 keyring, or no row is sealed): it is not set aside"
            ),
            "auditNotLost",
            &[("profile", profile.to_string())],
        ));
    };
    let mut key = zeroize::Zeroizing::new(vec![0u8; 32]);
    aws_lc_rs::rand::fill(&mut key)
        .map_err(|_| CoreError::internal("no random bytes for a key"))?;
    let started = std::time::Instant::now();
    let reason = format!(
        "the audit key was missing from the keyring; {} of {} rows were sealed with it",
        lost.sealed_rows, lost.rows
    );
    // The database first: should the keyring write fail after it, the new first row is
    // itself a sealed row without its key, and the next open offers a new log again.
    let (archive, first_row, anchor) = store.audit_archive_and_restart(
        Record {
            profile,
            operator: &p.operator,
            operation: NEW_LOG_OPERATION,
            identifiers: String::new(),
            result: "ok".into(),
            latency_ms: started.elapsed().as_millis() as i64,
        },
        &reason,
        &key,
    )?;
    secrets.replace_audit_key(profile, &key)?;
    secrets.set_audit_anchor(profile, &anchor)?;
    tracing::warn!(
        profile,
        archive = archive.archive,
        rows = archive.rows,
        "audit log set aside: its key was lost"
    );
    Ok(NewAuditLog { archive, first_row })
}

impl<'d> super::Journal<'d> {
    /// The audit logs set aside because their key was lost, newest first.
    pub fn audit_archives(&self) -> CoreResult<Vec<AuditArchive>> {
        self.desk.store.audit_archives()
    }

    /// The rows of a log set aside, as written (newest first, at most `limit`): kept and
    /// readable, but sealed with a lost key, so not checkable.
    pub fn audit_archived_rows(&self, archive: i64, limit: i64) -> CoreResult<Vec<AuditEntry>> {
        self.desk
            .store
            .audit_archived_rows(archive, limit.clamp(1, 10_000))
    }
}
