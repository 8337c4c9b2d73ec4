//! The team's tables for paying a payee of the book, the maker's limit read before a
//! request, and the signer's worker's heartbeat (issue 35, schema 0029).

use super::TeamTables;
use paydesk_store::error::CoreResult;
use paydesk_store::team::{MyPayoutLimit, PayeeRef, WorkerBeat};

const PAYEE_COLUMNS: &str =
    "id, nickname, kind, first_name, last_name, account_masked, bank, country, approved_by";

fn payee_row(r: &tokio_postgres::Row, sha256: String) -> PayeeRef {
    PayeeRef {
        id: r.get(0),
        nickname: r.get(1),
        kind: r.get(2),
        first_name: r.get(3),
        last_name: r.get(4),
        account_masked: r.get(5),
        bank: r.get(6),
        country: r.get(7),
        approved_by: r.get(8),
        sealed_sha256: sha256,
    }
}

impl TeamTables<'_> {
    /// A payee of the book by nickname, with the hash of its sealed account (what a
    /// request row names), as the member may read it.
    pub fn payee_to_pay(&self, mer_no: i64, nickname: &str) -> CoreResult<Option<PayeeRef>> {
        Ok(self
            .link
            .query_opt(
                &format!(
                    "SELECT {PAYEE_COLUMNS}, account_sealed_sha256 FROM paydesk.beneficiaries_shown
                      WHERE mer_no = $1 AND nickname_key = lower(btrim($2))"
                ),
                &[&mer_no, &nickname],
            )?
            .map(|r| payee_row(&r, r.get(9))))
    }

    /// A payee by its id, with its sealed account (a signer's read: the seal is theirs).
    /// A payee approved as added after approval was turned on (schema 0036) reads as not
    /// approved.
    pub fn payee_by_id(&self, mer_no: i64, id: i64) -> CoreResult<Option<(PayeeRef, String)>> {
        Ok(self
            .link
            .query_opt(
                "SELECT id, nickname, kind, first_name, last_name, account_masked, bank, country,
                        CASE WHEN paydesk.payee_approved_late(id) THEN NULL ELSE approved_by END,
                        paydesk.payee_seal_hash(account_sealed), account_sealed
                   FROM paydesk.beneficiaries WHERE mer_no = $1 AND id = $2",
                &[&mer_no, &id],
            )?
            .map(|r| (payee_row(&r, r.get(9)), r.get(10))))
    }

    /// The session member's payout limit in `currency` and what today already counts.
    pub fn my_payout_limit(&self, currency: &str) -> CoreResult<Option<MyPayoutLimit>> {
        Ok(self
            .link
            .query_opt(
                "SELECT per_payout::text, per_day::text, day_zone, used_today::text
                   FROM paydesk.my_payout_limit($1)",
                &[&currency],
            )?
            .map(|r| MyPayoutLimit {
                per_payout: r.get(0),
                per_day: r.get(1),
                day_zone: r.get(2),
                used_today: r.get(3),
            }))
    }

    /// The signer's worker says it is alive (starting: a new run; stopping: it ends).
    pub fn worker_beat(&self, starting: bool, stopping: bool) -> CoreResult<()> {
        self.link.execute(
            "SELECT paydesk.worker_beat($1, $2)",
            &[&starting, &stopping],
        )?;
        Ok(())
    }

    /// Every signer's worker's last heartbeat, the latest first.
    pub fn worker_beats(&self) -> CoreResult<Vec<WorkerBeat>> {
        let rows = self.link.query(
            "SELECT signer, (extract(epoch FROM started_at) * 1000)::bigint,
                    (extract(epoch FROM seen_at) * 1000)::bigint,
                    (extract(epoch FROM stopped_at) * 1000)::bigint,
                    (extract(epoch FROM now() - seen_at) * 1000)::bigint
               FROM paydesk.worker_beats ORDER BY seen_at DESC, signer",
            &[],
        )?;
        Ok(rows
            .iter()
            .map(|r| WorkerBeat {
                signer: r.get(0),
                started_at: r.get(1),
                seen_at: r.get(2),
                stopped_at: r.get(3),
                age_ms: r.get(4),
            })
            .collect())
    }
}
