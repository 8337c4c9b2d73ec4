//! The team's requests, decisions, approval rules and members, as the database keeps
//! them. Every statement runs as the member's own database user: what a role may not
//! do, the database refuses (grants, row-level security, the schema's triggers), and
//! the refusal comes back as a validation error naming the team's rule.

use serde_json::Value;
use tokio_postgres::Row;

use super::{PgLink, Tx};
use paydesk_store::error::{CoreError, CoreResult};

/// The team's records are the store's (`paydesk-store`); kept at this path.
pub use paydesk_store::team::{
    Decision, Member, NewRequest, NewRow, Request, RequestRow, RequestState, RowState, Rule,
    TeamRole,
};

/// A request as the connected member may read it: the summary through
/// `paydesk.shown_summary` (a card payout's holder only to its approvers, signers and
/// maker; the column itself is refused every other role).
const REQUEST_COLUMNS: &str = "id, operation, currency, total::text, row_count, paydesk.shown_summary(id), source, maker, \
     approvals_needed, state, (extract(epoch FROM created_at) * 1000)::bigint, \
     (extract(epoch FROM decided_at) * 1000)::bigint, claimed_by, \
     (extract(epoch FROM finished_at) * 1000)::bigint, outcome";

fn request_row(r: &Row) -> CoreResult<Request> {
    Ok(Request {
        id: r.get(0),
        operation: r.get(1),
        currency: r.get(2),
        total: trim_decimal(r.get(3)),
        row_count: r.get(4),
        summary: r.get(5),
        source: r.get(6),
        maker: r.get(7),
        approvals_needed: r.get(8),
        state: RequestState::parse(r.get(9))?,
        created_at: r.get(10),
        decided_at: r.get(11),
        claimed_by: r.get(12),
        finished_at: r.get(13),
        outcome: r.get(14),
        decisions: Vec::new(),
    })
}

/// `numeric(24, 6)` as text without the trailing zeros of its scale.
fn trim_decimal(s: String) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The team's tables as one member sees them.
#[derive(Debug, Clone, Copy)]
pub struct TeamTables<'a> {
    link: &'a PgLink,
}

impl<'a> TeamTables<'a> {
    pub fn on(link: &'a PgLink) -> Self {
        TeamTables { link }
    }

    /// The merchant the team works for, its idle lock (minutes) and the salt of bulk
    /// rows' numbers.
    pub fn settings(&self) -> CoreResult<(i64, i32, String)> {
        let r = self.link.query_opt(
            "SELECT mer_no, idle_lock_minutes, number_salt FROM paydesk.team WHERE id = 1",
            &[],
        )?;
        let r = r.ok_or_else(|| {
            CoreError::keyed(
                "team",
                "this database has no team yet: run `paydesk team init` as its owner",
                "teamNotInit",
                &[],
            )
        })?;
        Ok((r.get(0), r.get(1), r.get(2)))
    }

    /// The session's user and its roles.
    pub fn me(&self) -> CoreResult<Member> {
        let r = self.link.query_one(
            "SELECT session_user::text, paydesk.roles_of(session_user), m.added_by,
                    (extract(epoch FROM m.added_at) * 1000)::bigint
             FROM (SELECT 1) one LEFT JOIN paydesk.members m ON m.name = session_user::text",
            &[],
        )?;
        member_row(&r)
    }

    pub fn members(&self) -> CoreResult<Vec<Member>> {
        let rows = self.link.query(
            "SELECT name, paydesk.roles_of(name::name), added_by,
                    (extract(epoch FROM added_at) * 1000)::bigint
             FROM paydesk.members ORDER BY name",
            &[],
        )?;
        rows.iter().map(member_row).collect()
    }

    /// Adds a new member with one role: `verifier` is the password's SCRAM-SHA-256
    /// verifier, never the password, and it reaches the server as COPY data (which no
    /// statement log shows). The database refuses an existing member, and any role of
    /// the cluster the team did not make (the owner, a superuser, another login).
    /// Returns the roles the member holds.
    pub fn add_member(&self, name: &str, role: TeamRole, verifier: &str) -> CoreResult<String> {
        self.link.atomic(|tx| {
            give_verifier(tx, name, verifier)?;
            let r = tx.query_one(
                "SELECT paydesk.add_member($1, $2)",
                &[&name, &role.as_str()],
            )?;
            Ok(r.get(0))
        })
    }

    /// Replaces a member's team roles with `roles` (the others are revoked); returns
    /// what the member holds now.
    pub fn set_member_roles(&self, name: &str, roles: &[TeamRole]) -> CoreResult<String> {
        let roles: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
        let r = self.link.query_one(
            "SELECT paydesk.set_member_roles($1, $2::text[])",
            &[&name, &roles],
        )?;
        Ok(r.get(0))
    }

    /// Sets a member's password (its own audited step), as [`TeamTables::add_member`]
    /// passes the verifier.
    pub fn reset_member_password(&self, name: &str, verifier: &str) -> CoreResult<()> {
        self.link.atomic(|tx| {
            give_verifier(tx, name, verifier)?;
            tx.execute("SELECT paydesk.reset_member_password($1)", &[&name])?;
            Ok(())
        })
    }

    /// Sets the approvals a request needs when no rule names its operation and currency
    /// (admins only).
    pub fn set_default_approvals(&self, approvals: i32) -> CoreResult<()> {
        self.link.execute(
            "UPDATE paydesk.team SET default_approvals = $1 WHERE id = 1",
            &[&approvals],
        )?;
        Ok(())
    }

    /// The approvals a request needs when no rule names its operation and currency.
    pub fn default_approvals(&self) -> CoreResult<i32> {
        let r = self.link.query_one(
            "SELECT default_approvals FROM paydesk.team WHERE id = 1",
            &[],
        )?;
        Ok(r.get(0))
    }

    pub fn remove_member(&self, name: &str) -> CoreResult<()> {
        self.link
            .execute("SELECT paydesk.remove_member($1)", &[&name])?;
        Ok(())
    }

    pub fn rules(&self) -> CoreResult<Vec<Rule>> {
        let rows = self.link.query(
            "SELECT id, operation, currency, above::text, approvals, created_by
             FROM paydesk.rules ORDER BY operation, currency, above",
            &[],
        )?;
        Ok(rows
            .iter()
            .map(|r| Rule {
                id: r.get(0),
                operation: r.get(1),
                currency: r.get(2),
                above: trim_decimal(r.get(3)),
                approvals: r.get(4),
                created_by: r.get(5),
            })
            .collect())
    }

    /// Sets the approvals a rule asks (adding the rule if it is new).
    pub fn set_rule(
        &self,
        operation: &str,
        currency: &str,
        above: &str,
        approvals: i32,
    ) -> CoreResult<i64> {
        let r = self.link.query_one(
            "INSERT INTO paydesk.rules (operation, currency, above, approvals)
             VALUES ($1, $2, $3::text::numeric, $4)
             ON CONFLICT (operation, currency, above) DO UPDATE SET approvals = excluded.approvals
             RETURNING id",
            &[&operation, &currency, &above, &approvals],
        )?;
        Ok(r.get(0))
    }

    pub fn remove_rule(&self, id: i64) -> CoreResult<bool> {
        // Through the database's function: an admin holds no table-level DELETE on
        // the rules (enough to lock the table every request reads).
        Ok(self
            .link
            .query_one("SELECT paydesk.delete_rule($1)", &[&id])?
            .get(0))
    }

    /// Every member's payout limits (issue 35), by member and currency.
    pub fn member_limits(&self) -> CoreResult<Vec<paydesk_store::team::MemberLimit>> {
        let rows = self.link.query(
            "SELECT member, currency, per_payout::text, per_day::text, day_zone, set_by
             FROM paydesk.member_limits ORDER BY member, currency",
            &[],
        )?;
        Ok(rows
            .iter()
            .map(|r| paydesk_store::team::MemberLimit {
                member: r.get(0),
                currency: r.get(1),
                per_payout: r.get::<_, Option<String>>(2).map(trim_decimal),
                per_day: r.get::<_, Option<String>>(3).map(trim_decimal),
                day_zone: r.get(4),
                set_by: r.get(5),
            })
            .collect())
    }

    /// Sets (both limits `None`: clears) a member's payout limits in a currency, through
    /// the database's function (an admin's only way; it audits the change).
    pub fn set_member_limit(
        &self,
        member: &str,
        currency: &str,
        per_payout: Option<&str>,
        per_day: Option<&str>,
        day_zone: &str,
    ) -> CoreResult<()> {
        self.link.query_one(
            "SELECT paydesk.set_member_limit($1, $2, $3::text::numeric, $4::text::numeric, $5)",
            &[&member, &currency, &per_payout, &per_day, &day_zone],
        )?;
        Ok(())
    }

    /// The team's book of payees, by nickname: a payee's names and bank blank for a
    /// viewer or support (schema 0028 hides a card's holder from them).
    pub fn payees(&self, mer_no: i64) -> CoreResult<Vec<paydesk_store::team::PayeeRecord>> {
        let rows = self.link.query(
            "SELECT nickname, kind, first_name, last_name, account_masked, bank, country,
                    (extract(epoch FROM added_at) * 1000)::bigint, added_by, approved_by,
                    id, account_sealed_sha256
               FROM paydesk.beneficiaries_shown WHERE mer_no = $1 ORDER BY nickname_key",
            &[&mer_no],
        )?;
        Ok(rows
            .iter()
            .map(|r| paydesk_store::team::PayeeRecord {
                nickname: r.get(0),
                kind: r.get(1),
                first_name: r.get(2),
                last_name: r.get(3),
                account_masked: r.get(4),
                bank: r.get(5),
                country: r.get(6),
                added_at: r.get(7),
                added_by: r.get(8),
                approved_by: r.get(9),
                id: r.get(10),
                sealed_sha256: r.get(11),
            })
            .collect())
    }

    /// Adds a payee through `paydesk.add_beneficiary` (the database checks who may).
    pub fn add_payee(
        &self,
        mer_no: i64,
        p: &paydesk_store::team::PayeeRecord,
        sealed: &str,
    ) -> CoreResult<()> {
        self.link.query_one(
            "SELECT paydesk.add_beneficiary($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            &[
                &mer_no,
                &p.nickname,
                &p.kind,
                &p.first_name,
                &p.last_name,
                &p.account_masked,
                &sealed,
                &p.bank,
                &p.country,
            ],
        )?;
        Ok(())
    }

    pub fn approve_payee(&self, mer_no: i64, id: i64, sealed_sha256: &str) -> CoreResult<()> {
        self.link.execute(
            "SELECT paydesk.approve_beneficiary($1, $2::bigint, $3::text)",
            &[&mer_no, &id, &sealed_sha256],
        )?;
        Ok(())
    }

    pub fn remove_payee(&self, mer_no: i64, nickname: &str) -> CoreResult<bool> {
        let r = self.link.query_one(
            "SELECT paydesk.remove_beneficiary($1, $2)",
            &[&mer_no, &nickname],
        )?;
        Ok(r.get(0))
    }

    pub fn payee_approval(&self) -> CoreResult<bool> {
        let r = self
            .link
            .query_one("SELECT payee_approval FROM paydesk.team WHERE id = 1", &[])?;
        Ok(r.get(0))
    }

    pub fn set_payee_approval(&self, on: bool) -> CoreResult<()> {
        self.link.execute(
            "UPDATE paydesk.team SET payee_approval = $1 WHERE id = 1",
            &[&on],
        )?;
        Ok(())
    }

    pub fn payee_sealed_account(&self, mer_no: i64, nickname: &str) -> CoreResult<Option<String>> {
        Ok(self
            .link
            .query_opt(
                "SELECT account_sealed FROM paydesk.beneficiaries
                  WHERE mer_no = $1 AND nickname_key = lower(btrim($2))",
                &[&mer_no, &nickname],
            )?
            .map(|r| r.get(0)))
    }

    /// The approvals the rules ask of a request like this one.
    pub fn approvals_needed(
        &self,
        operation: &str,
        currency: &str,
        total: &str,
    ) -> CoreResult<i32> {
        let r = self.link.query_one(
            "SELECT paydesk.approvals_needed($1, $2, $3::text::numeric)",
            &[&operation, &currency, &total],
        )?;
        Ok(r.get(0))
    }

    /// Makes a request with its rows in one transaction (the database checks the rows
    /// add up to it, and sets its maker, state and approvals). A number already in a
    /// live row (its request waiting, approved, executing or done) or in the signers'
    /// journal is refused, naming where it is; only a rejected request's numbers are
    /// free again. The database's unique index over live rows is what holds this when
    /// makers race: the check before the insert only makes the refusal clear.
    pub fn make(&self, new: &NewRequest<'_>) -> CoreResult<Request> {
        let row_count = i32::try_from(new.rows.len()).map_err(|_| {
            CoreError::keyed(
                "rows",
                "too many rows for one request",
                "requestTooManyRows",
                &[],
            )
        })?;
        repeated_number(new)?;
        let numbers: Vec<&str> = new.rows.iter().map(|r| r.mer_order_no).collect();
        let made = self.link.atomic(|tx| {
            let holders = tx.query(NUMBER_HOLDERS, &[&numbers])?;
            if let Some(e) = numbers_taken(new, &holders) {
                return Err(e);
            }
            let r = tx.query_one(
                "INSERT INTO paydesk.requests (operation, currency, total, row_count, summary, source)
                 VALUES ($1, $2, $3::text::numeric, $4, $5, $6) RETURNING id",
                &[
                    &new.operation,
                    &new.currency,
                    &new.total,
                    &row_count,
                    &new.summary,
                    &new.source,
                ],
            )?;
            let id: i64 = r.get(0);
            for (i, row) in new.rows.iter().enumerate() {
                let row_no = i as i32 + 1;
                tx.execute(
                    "INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary)
                     VALUES ($1, $2, $3, $4::text::numeric, $5, $6)",
                    &[&id, &row_no, &row.mer_order_no, &row.amount, &row.form, &row.beneficiary],
                )?;
            }
            Ok(id)
        });
        let id = match made {
            // Another maker's request took a number between the check and the insert;
            // the index made this one wait until it was committed, so it is seen now.
            Err(CoreError::Validation { field, rule }) if field == "merOrderNo" => {
                let holders = self.link.query(NUMBER_HOLDERS, &[&numbers])?;
                return Err(
                    numbers_taken(new, &holders).unwrap_or(CoreError::Validation { field, rule })
                );
            }
            made => made?,
        };
        self.request(id)?
            .ok_or_else(|| CoreError::internal("the request just made is not readable"))
    }

    /// Requests, newest first, of some states (all when empty).
    pub fn requests(&self, states: &[RequestState], limit: i64) -> CoreResult<Vec<Request>> {
        let states: Vec<&str> = states.iter().map(|s| s.as_str()).collect();
        let rows = self.link.query(
            &format!(
                "SELECT {REQUEST_COLUMNS} FROM paydesk.requests
                 WHERE cardinality($1::text[]) = 0 OR state = ANY($1)
                 ORDER BY id DESC LIMIT $2"
            ),
            &[&states, &limit],
        )?;
        let mut out = rows
            .iter()
            .map(request_row)
            .collect::<CoreResult<Vec<_>>>()?;
        let ids: Vec<i64> = out.iter().map(|r| r.id).collect();
        let decisions = self.link.query(
            "SELECT request_id, member, decision = 'approve', reason,
                    (extract(epoch FROM decided_at) * 1000)::bigint
             FROM paydesk.decisions WHERE request_id = ANY($1) ORDER BY decided_at",
            &[&ids],
        )?;
        for d in &decisions {
            let id: i64 = d.get(0);
            if let Some(r) = out.iter_mut().find(|r| r.id == id) {
                r.decisions.push(decision_row(d));
            }
        }
        Ok(out)
    }

    pub fn request(&self, id: i64) -> CoreResult<Option<Request>> {
        let Some(r) = self.link.query_opt(
            &format!("SELECT {REQUEST_COLUMNS} FROM paydesk.requests WHERE id = $1"),
            &[&id],
        )?
        else {
            return Ok(None);
        };
        let mut request = request_row(&r)?;
        let decisions = self.link.query(
            "SELECT request_id, member, decision = 'approve', reason,
                    (extract(epoch FROM decided_at) * 1000)::bigint
             FROM paydesk.decisions WHERE request_id = $1 ORDER BY decided_at",
            &[&id],
        )?;
        request.decisions = decisions.iter().map(decision_row).collect();
        Ok(Some(request))
    }

    /// A request's rows as every member may read them: without their forms (which carry
    /// the full account; only a signer reads them, see [`TeamTables::rows_with_forms`]).
    pub fn rows(&self, id: i64) -> CoreResult<Vec<RequestRow>> {
        self.rows_with(id, "NULL::jsonb")
    }

    /// A request's rows with the forms a signer executes them from (signers only: the
    /// database refuses the forms to every other role).
    pub fn rows_with_forms(&self, id: i64) -> CoreResult<Vec<RequestRow>> {
        self.rows_with(id, "form")
    }

    fn rows_with(&self, id: i64, form: &str) -> CoreResult<Vec<RequestRow>> {
        let rows = self.link.query(
            &format!(
                // The beneficiary as the member may read it (a card payout's holder
                // only to its approvers, signers and maker).
                "SELECT row_no, mer_order_no, amount::text, paydesk.shown_beneficiary(request_id, row_no),
                        {form}, status, trade_no, message, purpose
                 FROM paydesk.request_rows WHERE request_id = $1 ORDER BY row_no"
            ),
            &[&id],
        )?;
        Ok(rows
            .iter()
            .map(|r| RequestRow {
                row_no: r.get(0),
                mer_order_no: r.get(1),
                amount: trim_decimal(r.get(2)),
                beneficiary: r.get(3),
                form: r.get::<_, Option<Value>>(4).unwrap_or(Value::Null),
                state: RowState::parse(r.get(5)),
                trade_no: r.get(6),
                message: r.get(7),
                purpose: r
                    .get::<_, Option<Value>>(8)
                    .and_then(|v| serde_json::from_value::<paydesk_model::purpose::Purpose>(v).ok())
                    .filter(|p| !p.is_empty()),
            })
            .collect())
    }

    /// Approves (`reason` optional) or rejects (`reason` required) a waiting request.
    pub fn decide(&self, id: i64, approve: bool, reason: Option<&str>) -> CoreResult<Request> {
        let decision = if approve { "approve" } else { "reject" };
        let decide = || {
            self.link.execute(
                "INSERT INTO paydesk.decisions (request_id, decision, reason) VALUES ($1, $2, $3)",
                &[&id, &decision, &reason],
            )
        };
        if let Err(e) = decide() {
            // Waited its bound for a lock another member holds: an idle session holding
            // what another member waits for is ended by the database
            // (`paydesk.end_stalls`), then the step is taken once more.
            if !is_lock_timeout(&e) || self.end_stalls()? == 0 {
                return Err(e);
            }
            decide()?;
        }
        self.request(id)?
            .ok_or_else(|| CoreError::not_found(format!("request {id}")))
    }

    /// Whether a request row holds merchant order number `no` (live or freed).
    pub fn number_requested(&self, no: &str) -> CoreResult<bool> {
        let r = self.link.query_one(
            "SELECT EXISTS (SELECT 1 FROM paydesk.request_rows WHERE mer_order_no = $1)",
            &[&no],
        )?;
        Ok(r.get(0))
    }

    /// The key requests' secrets are sealed to (the merchant's public key, SPKI DER), as
    /// a signer's desk published it; `None` before any signer's desk connected.
    pub fn seal_key(&self) -> CoreResult<Option<Vec<u8>>> {
        use base64::Engine as _;
        let Some(row) = self
            .link
            .query_opt("SELECT spki FROM paydesk.seal_key WHERE id = 1", &[])?
        else {
            return Ok(None);
        };
        let text: String = row.get(0);
        base64::engine::general_purpose::STANDARD
            .decode(text)
            .map(Some)
            .map_err(|e| CoreError::storage(format!("the team's seal key is not base64: {e}")))
    }

    /// Publishes this signer's merchant public key (SPKI DER) as the key requests'
    /// secrets are sealed to (audited when it changes).
    pub fn publish_seal_key(&self, spki: &[u8]) -> CoreResult<()> {
        use base64::Engine as _;
        let text = base64::engine::general_purpose::STANDARD.encode(spki);
        self.link
            .execute("SELECT paydesk.publish_seal_key($1)", &[&text])
            .map(drop)
    }

    /// Ends the sessions of members idle 5 s or more (no statement running) that hold
    /// what another member's session has waited 5 s or more for, never the caller's own
    /// waiter, never a busy session (each one audited); how many were ended.
    pub fn end_stalls(&self) -> CoreResult<i32> {
        Ok(self
            .link
            .query_one("SELECT paydesk.end_stalls()", &[])?
            .get(0))
    }

    /// A signer takes the oldest approved request no other signer holds, or one whose
    /// signer died (its connection is gone) or gave it back a while ago. The claim
    /// names this connection's server process by number and start time, and its role
    /// (the database writes them): it dies with the connection, even when another
    /// member's session gets the number later.
    pub fn claim_next(&self, retry_after_secs: i32) -> CoreResult<Option<Request>> {
        let r = self.link.atomic(|tx: &Tx<'_>| {
            tx.query_opt(
                &format!(
                    "UPDATE paydesk.requests SET state = 'executing', claimed_pid = pg_backend_pid()
                     WHERE id = (
                         SELECT id FROM paydesk.requests q
                         WHERE q.state = 'approved'
                            OR (q.state = 'executing' AND q.claimed_pid IS NOT NULL
                                AND NOT paydesk.claim_alive(q.claimed_pid, q.claimed_backend_start, q.claimed_by))
                            OR (q.state = 'executing' AND q.claimed_pid IS NULL
                                AND q.claimed_at < now() - make_interval(secs => $1))
                         ORDER BY id
                         FOR UPDATE SKIP LOCKED
                         LIMIT 1)
                     RETURNING {REQUEST_COLUMNS}"
                ),
                &[&f64::from(retry_after_secs)],
            )
        })?;
        r.map(|r| request_row(&r)).transpose()
    }

    /// Records a row's outcome (while its request is executing).
    pub fn row_outcome(
        &self,
        id: i64,
        row_no: i32,
        state: RowState,
        trade_no: Option<&str>,
        message: Option<&str>,
    ) -> CoreResult<()> {
        self.link.execute(
            "UPDATE paydesk.request_rows SET status = $3, trade_no = COALESCE($4, trade_no), message = $5
             WHERE request_id = $1 AND row_no = $2",
            &[&id, &row_no, &state.as_str(), &trade_no, &message],
        )?;
        Ok(())
    }

    /// Records the outcomes of several rows in one statement (a signer's worker's group:
    /// one commit, not one a row).
    pub fn row_outcomes(
        &self,
        id: i64,
        rows: &[paydesk_store::team::RowOutcome],
    ) -> CoreResult<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let row_nos: Vec<i32> = rows.iter().map(|r| r.0).collect();
        let states: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
        let trade_nos: Vec<Option<&str>> = rows.iter().map(|r| r.2.as_deref()).collect();
        let messages: Vec<Option<&str>> = rows.iter().map(|r| r.3.as_deref()).collect();
        self.link.execute(
            "UPDATE paydesk.request_rows r
                SET status = u.status, trade_no = COALESCE(u.trade_no, r.trade_no), message = u.message
               FROM unnest($2::int[], $3::text[], $4::text[], $5::text[]) AS u(row_no, status, trade_no, message)
              WHERE r.request_id = $1 AND r.row_no = u.row_no",
            &[&id, &row_nos, &states, &trade_nos, &messages],
        )?;
        Ok(())
    }

    /// Ends an execution: done with its outcome, or given back (rows still unknown) to
    /// be taken up again later.
    pub fn finish(&self, id: i64, done: bool, outcome: &str) -> CoreResult<()> {
        let n = if done {
            self.link.execute(
                "UPDATE paydesk.requests SET state = 'done', outcome = $2
                 WHERE id = $1 AND state = 'executing' AND claimed_pid = pg_backend_pid()",
                &[&id, &outcome],
            )?
        } else {
            self.link.execute(
                "UPDATE paydesk.requests SET claimed_pid = NULL, outcome = $2
                 WHERE id = $1 AND state = 'executing' AND claimed_pid = pg_backend_pid()",
                &[&id, &outcome],
            )?
        };
        if n == 0 {
            return Err(CoreError::storage(format!(
                "request {id} is no longer held by this signer"
            )));
        }
        Ok(())
    }
}

/// Where numbers are taken: live request rows (with their request and its state), then
/// the signers' journal (with the entry's status, no request).
const NUMBER_HOLDERS: &str = "SELECT rr.mer_order_no, rr.request_id, q.state
       FROM paydesk.request_rows rr JOIN paydesk.requests q ON q.id = rr.request_id
      WHERE rr.live AND rr.mer_order_no = ANY($1::text[])
     UNION ALL
     SELECT j.mer_order_no, NULL::bigint, j.status
       FROM paydesk.journal j
      WHERE j.mer_no = (SELECT mer_no FROM paydesk.team WHERE id = 1)
        AND j.mer_order_no = ANY($1::text[])";

/// Where a row is, for people: its line in the file, or nothing for a single order.
fn row_place(row: &NewRow<'_>) -> String {
    row.line.map(|l| format!("line {l}: ")).unwrap_or_default()
}

/// What a maker does next about a number already taken.
fn taken_hint(new: &NewRequest<'_>) -> &'static str {
    if new.source.is_some() {
        "a file sent again is refused (only a rejected request's rows may be requested again)"
    } else {
        "an order number is requested once (only a rejected request's number may be requested again)"
    }
}

/// The refusal of a request some of whose numbers `holders` ([`NUMBER_HOLDERS`]) hold:
/// the first such row (in the request's order), where its number is, and how many rows
/// are refused in all. `None` when no row is.
fn numbers_taken(new: &NewRequest<'_>, holders: &[Row]) -> Option<CoreError> {
    let held = |no: &str| {
        let mut found: Vec<(Option<i64>, String)> = holders
            .iter()
            .filter(|h| h.get::<_, &str>(0) == no)
            .map(|h| (h.get(1), h.get(2)))
            .collect();
        // A request names the holder better than the journal does.
        found.sort_by_key(|(id, _)| id.is_none());
        found.into_iter().next()
    };
    let mut refused = new
        .rows
        .iter()
        .filter_map(|r| held(r.mer_order_no).map(|h| (r, h)));
    let (row, (request, state)) = refused.next()?;
    let more = refused.count();
    let place = match request {
        Some(id) => format!("request #{id} ({state})"),
        None => format!("the signers' journal ({state}): it was sent before"),
    };
    let first = format!(
        "{}merOrderNo {} is already in {place}; {}",
        row_place(row),
        row.mer_order_no,
        taken_hint(new)
    );
    let rule = if more == 0 {
        first
    } else {
        format!(
            "{} rows have numbers already requested; the first, {first}",
            more + 1
        )
    };
    let rows = (more + 1).to_string();
    let line = row.line.map(|l| l.to_string()).unwrap_or_default();
    let no = row.mer_order_no.to_string();
    Some(match request {
        Some(id) => CoreError::keyed(
            "merOrderNo",
            rule,
            "orderNoInRequest",
            &[
                ("orderNo", no),
                ("request", id.to_string()),
                ("state", state),
                ("rows", rows),
                ("line", line),
            ],
        ),
        None => CoreError::keyed(
            "merOrderNo",
            rule,
            "orderNoSentBefore",
            &[("orderNo", no), ("rows", rows), ("line", line)],
        ),
    })
}

/// A number given to two rows of the same request.
fn repeated_number(new: &NewRequest<'_>) -> CoreResult<()> {
    let mut seen = std::collections::HashMap::new();
    for row in &new.rows {
        if let Some(earlier) = seen.insert(row.mer_order_no, row) {
            let earlier = earlier
                .line
                .map(|l| format!("line {l}'s"))
                .unwrap_or_else(|| "another row's".into());
            return Err(CoreError::keyed(
                "merOrderNo",
                format!(
                    "{}merOrderNo {} is also {earlier}: one number per payout",
                    row_place(row),
                    row.mer_order_no
                ),
                "orderNoRepeatedInRequest",
                &[("orderNo", row.mer_order_no.to_string())],
            ));
        }
    }
    Ok(())
}

/// Writes a verifier for `name` where the team's functions take it, as COPY data.
fn give_verifier(tx: &Tx<'_>, name: &str, verifier: &str) -> CoreResult<()> {
    let row: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = vec![&name, &verifier];
    tx.copy_in(
        "COPY paydesk.new_passwords (member, verifier) FROM STDIN (FORMAT binary)",
        &[
            tokio_postgres::types::Type::TEXT,
            tokio_postgres::types::Type::TEXT,
        ],
        std::iter::once(row),
    )?;
    Ok(())
}

fn member_row(r: &Row) -> CoreResult<Member> {
    let roles: Vec<String> = r.get(1);
    Ok(Member {
        name: r.get(0),
        roles: roles
            .iter()
            .filter_map(|s| TeamRole::parse(s).ok())
            .collect(),
        added_by: r.get::<_, Option<String>>(2).unwrap_or_default(),
        added_at: r.get(3),
    })
}

fn decision_row(r: &Row) -> Decision {
    Decision {
        member: r.get(1),
        approve: r.get(2),
        reason: r.get(3),
        decided_at: r.get(4),
    }
}

/// Whether `e` is a step that waited its bound for a lock (PostgreSQL 55P03).
fn is_lock_timeout(e: &CoreError) -> bool {
    matches!(e, CoreError::Storage { message, .. } if message.starts_with("PostgreSQL 55P03"))
}

mod paid;
