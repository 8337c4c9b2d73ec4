//! The team's book of payees (issue 35; PG schema 0024): every member reads it (masked);
//! a maker or an admin adds a payee, its account sealed to the signers (as a card
//! payout's number is), never readable in the database; with the admin's setting on,
//! another approver, signer or admin approves it first. The database holds each rule.

use serde::{Deserialize, Serialize};

use super::{CARD_NO, TeamMember, TeamRole};
use crate::beneficiaries::{self as book, Beneficiary, NewBeneficiary, TeamPayeeRow};
use crate::error::{CoreError, CoreResult};
use crate::forms::PayoutKind;
use crate::store::team::PayeeRecord;

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
pub(super) fn sealed_field(kind: PayoutKind) -> &'static str {
    match kind {
        PayoutKind::Card => CARD_NO,
        PayoutKind::Clabe => "clabe",
    }
}

impl TeamMember {
    /// The book, by nickname.
    pub fn payees(&self) -> CoreResult<Vec<TeamPayee>> {
        self.tables()
            .payees(self.mer_no)?
            .into_iter()
            .map(|r| {
                Ok(TeamPayee {
                    payee: Beneficiary {
                        nickname: r.nickname,
                        kind: book::kind_of(&r.kind).ok_or_else(|| {
                            CoreError::storage(format!("payee kind {:?}", r.kind))
                        })?,
                        first_name: r.first_name,
                        last_name: r.last_name,
                        account: r.account_masked,
                        bank: r.bank,
                        country: r.country,
                        created_at: r.added_at,
                        awaiting_approval: r.approved_by.is_none(),
                        team_row: Some(TeamPayeeRow {
                            id: r.id,
                            sealed_sha256: r.sealed_sha256,
                        }),
                    },
                    added_by: r.added_by,
                    approved_by: r.approved_by,
                })
            })
            .collect()
    }

    /// Adds a payee, its account sealed to the signers; it waits for another member's
    /// approval when the team's setting asks for one.
    pub fn add_payee(&self, new: &NewBeneficiary) -> CoreResult<TeamPayee> {
        let (shown, account) = book::check(new)?;
        let sealed = self.seal(sealed_field(shown.kind), &account)?;
        let record = PayeeRecord {
            nickname: shown.nickname.clone(),
            kind: book::kind_name(shown.kind).to_string(),
            first_name: shown.first_name.clone(),
            last_name: shown.last_name.clone(),
            account_masked: shown.account.clone(),
            bank: shown.bank.clone(),
            country: shown.country.clone(),
            added_at: 0,
            added_by: String::new(),
            approved_by: None,
            id: 0,
            sealed_sha256: String::new(),
        };
        self.tables().add_payee(self.mer_no, &record, &sealed)?;
        self.payees()?
            .into_iter()
            .find(|p| book::nickname_key(&p.payee.nickname) == book::nickname_key(&shown.nickname))
            .ok_or_else(|| {
                CoreError::not_found(format!("payee {} after adding it", shown.nickname))
            })
    }

    /// Approves a payee another member added: the row the approver was shown (its id
    /// and the hash of its sealed account), refused when the book's row is another.
    pub fn approve_payee(&self, row: &TeamPayeeRow) -> CoreResult<()> {
        self.tables()
            .approve_payee(self.mer_no, row.id, &row.sealed_sha256)
    }

    /// Removes a payee; false when the book has none of that nickname.
    pub fn remove_payee(&self, nickname: &str) -> CoreResult<bool> {
        self.tables().remove_payee(self.mer_no, nickname)
    }

    /// Whether a new payee needs another member's approval now.
    pub fn payee_approval(&self) -> CoreResult<bool> {
        self.tables().payee_approval()
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
        self.tables().set_payee_approval(on)
    }

    /// A payee's sealed account as the book holds it (for a signer's desk to open).
    pub fn payee_sealed_account(&self, nickname: &str) -> CoreResult<Option<String>> {
        self.tables().payee_sealed_account(self.mer_no, nickname)
    }
}
