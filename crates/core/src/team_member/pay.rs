//! A team's payouts to a payee of the team's book (issue 35 item 2; schema 0029).
//!
//! The maker never holds a payee's full account (it is sealed to the signers): the
//! request's row names the payee by its id and the SHA-256 of its sealed account, and
//! carries no account. While the maker's desk checks the row by the payout's own rules,
//! a stand-in account stands for the payee's: one that passes the CLABE's (or card's)
//! rules and masks exactly as the payee's account does, so approvers read the payee's
//! masked account and bank; it never leaves the desk (the database refuses a row naming
//! a payee that carries an account). The database refuses the row unless that payee is
//! in the book, approved, with that very seal. The signer's worker opens the seal when
//! it pays and checks everything again: the payee is still there, approved, unchanged
//! since the maker chose it, and the account its seal opens to masks as the payee's
//! shown account; otherwise the row fails with the reason and nothing is sent.

use sha2::Digest as _;

use super::{TeamMember, book::sealed_field};
use crate::desk::Desk;
use crate::error::{CoreError, CoreResult};
use crate::forms::PayoutKind;
use crate::store::team::PayeeRef;
use paydesk_gateway::validate as v;

/// The form's fields that name a payee of the book.
pub const PAYEE_ID: &str = "payeeId";
pub const PAYEE_SHA256: &str = "payeeSealedSha256";

/// SHA-256 (hex) of a sealed account's text, as the database computes it.
pub fn seal_hash(sealed: &str) -> String {
    hex::encode(sha2::Sha256::digest(sealed.as_bytes()))
}

/// What a row paying a payee names for approvers: the account as any payout's row
/// names it, then the payee's nickname (after it, so what the schema hides of a card's
/// holder from viewers, everything after the card's mask, hides it here too).
pub fn payee_beneficiary(nickname: &str, account: &str) -> String {
    format!("{account}, payee {nickname}")
}

pub fn kind_of(p: &PayeeRef) -> CoreResult<PayoutKind> {
    crate::beneficiaries::kind_of(&p.kind)
        .ok_or_else(|| CoreError::storage(format!("payee kind {:?}", p.kind)))
}

/// An account that passes the rules of `kind` and masks as `masked` (first 6 and last 4
/// digits kept): the stand-in for a payee's account while the maker's desk checks a
/// row. `None` when no such account exists (a mask no account of the kind has).
pub fn stand_in(kind: PayoutKind, masked: &str) -> Option<String> {
    let n = masked.chars().count();
    if n < 12 || !masked.is_ascii() {
        return None;
    }
    let (head, tail) = (&masked[..6], &masked[n - 4..]);
    (0..10).find_map(|d| {
        let candidate = format!("{head}{d}{}{tail}", "0".repeat(n - 11));
        let ok = match kind {
            PayoutKind::Clabe => v::clabe("account", &candidate).is_ok(),
            PayoutKind::Card => v::card_number("account", &candidate).is_ok(),
        };
        (ok && v::mask_card(&candidate) == masked).then_some(candidate)
    })
}

/// The payee a bulk file's line names in its `beneficiary` column (`column`), if any:
/// refused, naming the line, while it waits for an approval.
pub fn payee_of_line<'p>(
    file: &crate::bulk::BulkFile,
    payees: &'p std::collections::HashMap<String, PayeeRef>,
    line: usize,
    column: usize,
) -> CoreResult<Option<&'p PayeeRef>> {
    let Some(nickname) = file
        .records
        .iter()
        .find(|(l, _)| *l == line)
        .and_then(|(_, cells)| cells.get(column))
        .map(|c| c.trim())
        .filter(|c| !c.is_empty())
    else {
        return Ok(None);
    };
    let Some(p) = payees.get(&crate::beneficiaries::nickname_key(nickname)) else {
        return Ok(None);
    };
    if p.approved_by.is_none() {
        return Err(CoreError::keyed(
            "beneficiary",
            format!(
                "line {line}: payee {:?} waits for another member's approval; it is not paid before",
                p.nickname
            ),
            "payeeAwaitingApprovalLine",
            &[("line", line.to_string()), ("nickname", p.nickname.clone())],
        ));
    }
    Ok(Some(p))
}

impl TeamMember {
    /// The team's book as a bulk file's rows read it on a maker's desk: each payee with a
    /// stand-in for its account, and the payees by nickname key.
    pub fn bulk_payees(
        &self,
    ) -> CoreResult<(
        crate::beneficiaries::Book,
        std::collections::HashMap<String, PayeeRef>,
    )> {
        let mut opened = Vec::new();
        let mut by_key = std::collections::HashMap::new();
        for r in self.tables().payees(self.mer_no)? {
            let Some(p) = self.tables().payee_to_pay(self.mer_no, &r.nickname)? else {
                continue;
            };
            let kind = kind_of(&p)?;
            let Some(account) = stand_in(kind, &p.account_masked) else {
                continue;
            };
            opened.push(crate::beneficiaries::Opened {
                nickname: p.nickname.clone(),
                kind,
                first_name: p.first_name.clone(),
                last_name: p.last_name.clone(),
                account,
                country: p.country.clone(),
            });
            by_key.insert(crate::beneficiaries::nickname_key(&p.nickname), p);
        }
        Ok((crate::beneficiaries::Book::new(opened), by_key))
    }

    /// A team desk's payout form that names a payee of the book, with a stand-in for its
    /// account, for the confirmation (a preview: nothing is written or sent).
    pub(crate) fn payout_form_for_preview(
        &self,
        form: &crate::forms::PayoutForm,
    ) -> CoreResult<crate::forms::PayoutForm> {
        let p = self.payee_for_request(&form.beneficiary)?;
        self.payee_form(form, &p)
    }

    /// What a team desk's confirmation says of a payout's payee: the payee it names; for
    /// an account typed in full, "new" when no payee of the team's book has an account
    /// that masks as it does. A typed account that masks like a payee's is not claimed
    /// known (a maker's desk cannot open the seals to compare): `None`, no note.
    pub(crate) fn payee_note(
        &self,
        form: &crate::forms::PayoutForm,
        op: &crate::forms::PayoutOp,
    ) -> CoreResult<Option<crate::beneficiaries::Payee>> {
        use crate::beneficiaries::Payee;
        let nickname = form.beneficiary.trim();
        if !nickname.is_empty() {
            let p = self.payee_for_request(nickname)?;
            let name = [p.first_name.trim(), p.last_name.trim()]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            return Ok(Some(Payee::Known {
                nickname: p.nickname,
                name,
            }));
        }
        let (kind, account) = match op {
            crate::forms::PayoutOp::Clabe(o) => (PayoutKind::Clabe, o.clabe.as_str()),
            crate::forms::PayoutOp::Card(o) => (PayoutKind::Card, o.card_no.as_str()),
        };
        let masked = v::mask_card(account);
        let kind = crate::beneficiaries::kind_name(kind);
        let alike = self
            .tables()
            .payees(self.mer_no)?
            .into_iter()
            .any(|p| p.kind == kind && p.account_masked == masked);
        Ok((!alike).then_some(Payee::New))
    }

    /// A payout form to payee `p`, for the maker's desk to check: the payee's kind, a
    /// stand-in for its account, a card's names and country from the book where the
    /// form gives none, and (unless given) a number made from the payee's id and seal
    /// with what the payout sends, as any request's number is made.
    pub fn payee_form(
        &self,
        form: &crate::forms::PayoutForm,
        p: &PayeeRef,
    ) -> CoreResult<crate::forms::PayoutForm> {
        let kind = kind_of(p)?;
        let given = crate::beneficiaries::normalized_account(if form.kind == PayoutKind::Card {
            &form.card_no
        } else {
            &form.clabe
        });
        if !given.is_empty() {
            return Err(CoreError::keyed(
                if form.kind == PayoutKind::Card {
                    "cardNo"
                } else {
                    "clabe"
                },
                format!(
                    "differs from the account the book holds for payee {:?} ({}): give one or the other",
                    p.nickname, p.account_masked
                ),
                "payeeAccountDiffers",
                &[
                    ("nickname", p.nickname.clone()),
                    ("account", p.account_masked.clone()),
                ],
            ));
        }
        let Some(account) = stand_in(kind, &p.account_masked) else {
            return Err(CoreError::storage(format!(
                "payee {:?}: its shown account {} is no account of its kind",
                p.nickname, p.account_masked
            )));
        };
        let mut out = form.clone();
        out.kind = kind;
        out.beneficiary = p.nickname.clone();
        match kind {
            PayoutKind::Clabe => out.clabe = account,
            PayoutKind::Card => {
                out.card_no = account;
                if out.first_name.trim().is_empty() && out.last_name.trim().is_empty() {
                    out.first_name = p.first_name.clone();
                    out.last_name = p.last_name.clone();
                }
                if out.country_code.trim().is_empty() {
                    out.country_code = p.country.clone();
                }
            }
        }
        let currency = out.currency.trim().to_ascii_uppercase();
        let bound = format!("payee {} {}", p.id, p.sealed_sha256);
        out.mer_order_no = self.number_of(
            &out.mer_order_no,
            &[
                "payout",
                out.amount.trim(),
                &currency,
                &bound,
                out.first_name.trim(),
                out.last_name.trim(),
            ],
        );
        Ok(out)
    }

    /// The payee of the book a maker's payout names, checked as the database will check
    /// it: in the book, approved, of the payout's kind.
    pub fn payee_for_request(&self, nickname: &str) -> CoreResult<PayeeRef> {
        let nickname = nickname.trim();
        let Some(p) = self.tables().payee_to_pay(self.mer_no, nickname)? else {
            return Err(CoreError::keyed(
                "beneficiary",
                format!(
                    "no payee {nickname:?} in the book (Beneficiaries): add it first, or give the account"
                ),
                "payeeUnknown",
                &[("nickname", nickname.to_string())],
            ));
        };
        if p.approved_by.is_none() {
            return Err(CoreError::keyed(
                "beneficiary",
                format!(
                    "payee {:?} waits for another member's approval; it is not paid before",
                    p.nickname
                ),
                "payeeAwaitingApproval",
                &[("nickname", p.nickname.clone())],
            ));
        }
        Ok(p)
    }
}

/// The payee a request row names and the account its seal opens to, checked again on
/// the signer's desk just before it pays: `Ok(None)` when the row names no payee; `Err`
/// with the reason the row is not sent.
pub fn payee_to_send(
    desk: &Desk,
    team: &TeamMember,
    claim: &super::ClaimedRequest,
    form: &serde_json::Value,
    kind: PayoutKind,
) -> Result<Option<(PayeeRef, String)>, String> {
    payee_of_row(desk, team, claim.mer_no, claim.request.id, form, kind)
}

/// [`payee_to_send`] for request `request` claimed for merchant `mer_no`: also the desk's
/// own resolution of the account a payee's row pays, within its scope (review r9 R9-3).
pub(crate) fn payee_of_row(
    desk: &Desk,
    team: &TeamMember,
    mer_no: i64,
    request: i64,
    form: &serde_json::Value,
    kind: PayoutKind,
) -> Result<Option<(PayeeRef, String)>, String> {
    let (id, hash) = match (form.get(PAYEE_ID), form.get(PAYEE_SHA256)) {
        (None, None) => return Ok(None),
        (Some(id), Some(hash)) => (id.as_i64(), hash.as_str()),
        _ => (None, None),
    };
    let (Some(id), Some(hash)) = (id, hash) else {
        return Err(
            "the row names a payee without its id or the hash of its sealed account: nothing was sent"
                .into(),
        );
    };
    let found = team
        .tables()
        .payee_by_id(team.mer_no, id)
        .map_err(|e| format!("the team's book could not be read ({e}): nothing was sent"))?;
    let Some((p, sealed)) = found else {
        return Err(format!(
            "payee #{id} is no longer in the team's book (removed after the request was made): nothing was sent"
        ));
    };
    if p.approved_by.is_none() {
        return Err(format!(
            "payee {:?} is not approved by another member: nothing was sent",
            p.nickname
        ));
    }
    if seal_hash(&sealed) != hash || p.sealed_sha256 != hash {
        return Err(format!(
            "payee {:?} changed since the request was made (its sealed account is not the one the maker chose): nothing was sent",
            p.nickname
        ));
    }
    let payee_kind = kind_of(&p).map_err(|e| e.to_string())?;
    if payee_kind != kind {
        return Err(format!(
            "payee {:?} is paid by {}, the row by {}: nothing was sent",
            p.nickname,
            p.kind,
            crate::beneficiaries::kind_name(kind)
        ));
    }
    let account =
        crate::team_member::unseal_for(desk, mer_no, request, sealed_field(payee_kind), &sealed)
        .map_err(|e| {
            format!(
                "the sealed account of payee {:?} cannot be opened with this signer's merchant key ({e}): nothing was sent",
                p.nickname
            )
        })?;
    let account = crate::beneficiaries::normalized_account(&account);
    // Approvers saw the mask: the account paid is the one the mask shows.
    if v::mask_card(&account) != p.account_masked {
        return Err(format!(
            "the account sealed for payee {:?} does not match its shown account {}: nothing was sent",
            p.nickname, p.account_masked
        ));
    }
    Ok(Some((p, account)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stand_in_passes_the_rules_and_masks_as_the_payee() {
        for real in ["002010077777777771", "012180001234567899"] {
            v::clabe("clabe", real).unwrap();
            let masked = v::mask_card(real);
            let s = stand_in(PayoutKind::Clabe, &masked).unwrap();
            assert_ne!(s, real);
            v::clabe("clabe", &s).unwrap();
            assert_eq!(v::mask_card(&s), masked);
        }
        let card = "4111111111111111";
        let s = stand_in(PayoutKind::Card, &v::mask_card(card)).unwrap();
        v::card_number("card", &s).unwrap();
        assert_eq!(v::mask_card(&s), v::mask_card(card));
        assert_eq!(stand_in(PayoutKind::Clabe, "0020**7771"), None);
    }

    #[test]
    fn the_hash_is_the_sha256_of_the_seals_text() {
        assert_eq!(
            seal_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
