//! The team's book of payees (issue 35; PG schema 0024): every member reads it (masked);
//! a maker or an admin adds a payee, its account sealed to the signers (as a card
//! payout's number is), never readable in the database; with the admin's setting on,
//! another approver, signer or admin approves it first. The database holds each rule.

use serde::{Deserialize, Serialize};

use super::{CARD_NO, Team, TeamRole};
use crate::beneficiaries::{self as book, Beneficiary, NewBeneficiary};
use crate::error::{CoreError, CoreResult};
use crate::forms::PayoutKind;
use crate::store::pg::AsPgLink;

/// A payee of the team's book: as every screen shows it, who added it, who approved it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TeamPayee {
    pub payee: Beneficiary,
    pub added_by: String,
    /// None while it waits for another member's approval.
    pub approved_by: Option<String>,
}

/// The form field a payee's account is sealed for: a card's as a card payout's number
/// (so a payout to it can carry that seal), a CLABE's as `clabe`.
fn sealed_field(kind: PayoutKind) -> &'static str {
    match kind {
        PayoutKind::Card => CARD_NO,
        PayoutKind::Clabe => "clabe",
    }
}

impl Team {
    /// The book, by nickname: a payee's names and bank blank for a viewer or support
    /// (schema 0028 hides a card's holder from them).
    pub fn payees(&self) -> CoreResult<Vec<TeamPayee>> {
        let rows = self.link.pg().query(
            "SELECT nickname, kind, first_name, last_name, account_masked, bank, country,
                    (extract(epoch FROM added_at) * 1000)::bigint, added_by, approved_by
               FROM paydesk.beneficiaries_shown WHERE mer_no = $1 ORDER BY nickname_key",
            &[&self.mer_no],
        )?;
        rows.iter()
            .map(|r| {
                let kind: String = r.get(1);
                Ok(TeamPayee {
                    payee: Beneficiary {
                        nickname: r.get(0),
                        kind: book::kind_of(&kind)
                            .ok_or_else(|| CoreError::storage(format!("payee kind {kind:?}")))?,
                        first_name: r.get(2),
                        last_name: r.get(3),
                        account: r.get(4),
                        bank: r.get(5),
                        country: r.get(6),
                        created_at: r.get(7),
                        awaiting_approval: r.get::<_, Option<String>>(9).is_none(),
                    },
                    added_by: r.get(8),
                    approved_by: r.get(9),
                })
            })
            .collect()
    }

    /// Adds a payee, its account sealed to the signers; it waits for another member's
    /// approval when the team's setting asks for one.
    pub fn add_payee(&self, new: &NewBeneficiary) -> CoreResult<TeamPayee> {
        let (shown, account) = book::check(new)?;
        let sealed = self.seal(sealed_field(shown.kind), &account)?;
        self.link.pg().query_one(
            "SELECT paydesk.add_beneficiary($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            &[
                &self.mer_no,
                &shown.nickname,
                &book::kind_name(shown.kind),
                &shown.first_name,
                &shown.last_name,
                &shown.account,
                &sealed,
                &shown.bank,
                &shown.country,
            ],
        )?;
        self.payees()?
            .into_iter()
            .find(|p| book::nickname_key(&p.payee.nickname) == book::nickname_key(&shown.nickname))
            .ok_or_else(|| {
                CoreError::not_found(format!("payee {} after adding it", shown.nickname))
            })
    }

    /// Approves a payee another member added.
    pub fn approve_payee(&self, nickname: &str) -> CoreResult<()> {
        self.link.pg().execute(
            "SELECT paydesk.approve_beneficiary($1, $2)",
            &[&self.mer_no, &nickname],
        )?;
        Ok(())
    }

    /// Removes a payee; false when the book has none of that nickname.
    pub fn remove_payee(&self, nickname: &str) -> CoreResult<bool> {
        let r = self.link.pg().query_one(
            "SELECT paydesk.remove_beneficiary($1, $2)",
            &[&self.mer_no, &nickname],
        )?;
        Ok(r.get(0))
    }

    /// Whether a new payee needs another member's approval now.
    pub fn payee_approval(&self) -> CoreResult<bool> {
        let r = self
            .link
            .pg()
            .query_one("SELECT payee_approval FROM paydesk.team WHERE id = 1", &[])?;
        Ok(r.get(0))
    }

    /// Whether adding a payee needs another member's approval (an admin's setting).
    pub fn set_payee_approval(&self, on: bool) -> CoreResult<()> {
        if !self.has_role(TeamRole::Admin) {
            return Err(CoreError::keyed(
                "payeeApproval",
                "only an admin changes whether a payee needs an approval",
                "payeeApprovalAdmin",
                &[],
            ));
        }
        self.link.pg().execute(
            "UPDATE paydesk.team SET payee_approval = $1 WHERE id = 1",
            &[&on],
        )?;
        Ok(())
    }

    /// A payee's sealed account as the book holds it (for a signer's desk to open).
    pub fn payee_sealed_account(&self, nickname: &str) -> CoreResult<Option<String>> {
        Ok(self
            .link
            .pg()
            .query_opt(
                "SELECT account_sealed FROM paydesk.beneficiaries
                  WHERE mer_no = $1 AND nickname_key = lower(btrim($2))",
                &[&self.mer_no, &nickname],
            )?
            .map(|r| r.get(0)))
    }
}
