//! The audit log: the table's trait, which each backend implements.

/// The table's types are the model's (`paydesk-model`: no I/O); kept at this path.
pub use paydesk_model::audit::*;

use crate::error::CoreResult;

/// The audit log: a keyed hash chain of every operation.
pub trait AuditStore {
    /// Appends a row to the chain, sealed with `key`, atomically. `anchor` is what the
    /// keyring holds now: a database that no longer reaches it is not continued (the
    /// append fails, so a cut end cannot be papered over by the next row). Returns the
    /// row and the anchor to record in the keyring once it is committed.
    ///
    /// A failed append leaves the log incomplete; the desk records that in the keyring
    /// (`audit-alert`) and [`AuditLog::verify`] reports it.
    fn append(
        &self,
        r: Record<'_>,
        key: &[u8],
        anchor: Option<&Anchor>,
    ) -> CoreResult<(AuditEntry, Anchor)>;

    /// [`AuditStore::append`] of several rows in order, in one transaction where the
    /// backend can (a bulk run's group). Returns the anchor after the last one.
    fn append_many(
        &self,
        records: Vec<Record<'_>>,
        key: &[u8],
        anchor: Option<&Anchor>,
    ) -> CoreResult<Option<Anchor>> {
        let mut anchor = anchor.cloned();
        for r in records {
            anchor = Some(self.append(r, key, anchor.as_ref())?.1);
        }
        Ok(anchor)
    }

    /// Walks the whole chain: ids without gaps, each row linked to the one before, each
    /// row's seal (keyed from `anchor.first_keyed`), the database's head record, and the
    /// keyring's `anchor` (count and last hash: nothing cut from the end).
    fn verify(&self, key: &[u8], anchor: Option<&Anchor>) -> CoreResult<ChainCheck>;

    /// The rows after `since` (a row an earlier check found sealed: its id and hash)
    /// checked as [`AuditStore::verify`] checks every row, and the rest of what it
    /// checks (the keyring's anchor, the head record); the rows up to `since` are not
    /// read again. `None` when this log cannot check so (the row `since` names is not
    /// there with that hash, or the backend checks only the whole chain): then only the
    /// whole chain's check says anything. A row changed at or before `since` after it
    /// was checked is found by the whole chain's check, not by this one.
    fn verify_since(
        &self,
        _key: &[u8],
        _anchor: Option<&Anchor>,
        _since_id: i64,
        _since_hash: &str,
    ) -> CoreResult<Option<ChainCheck>> {
        Ok(None)
    }

    /// [`AuditLog::verify`], and an entry the desk could not write (the keyring's
    /// `audit-alert`) makes the log broken from that point: it is incomplete
    /// ([`ChainCheck::with_alert`]; the same on every backend).
    fn verify_with_alert(
        &self,
        key: &[u8],
        anchor: Option<&Anchor>,
        alert: Option<String>,
    ) -> CoreResult<ChainCheck> {
        Ok(self.verify(key, anchor)?.with_alert(alert))
    }

    /// Rows matching `f`, newest first (500 unless `f.limit` says).
    fn list(&self, f: &AuditFilter) -> CoreResult<Vec<AuditEntry>>;
}
