//! The book of payees at the desk (issue 35): listed, added (from the Beneficiaries
//! screen, a payout's confirmation or the CLI), removed; a payout naming a payee by
//! nickname gets its account from the book; a confirmation and each row of a bulk plan
//! say whether the book knows the account. Every change is in the audit log.

use std::borrow::Cow;

use crate::beneficiaries::{
    self as book, Beneficiary, Book, NewBeneficiary, Opened, Payee, RowCells, StoredBeneficiary,
    TeamPayeeRow,
};
use crate::bulk;
use crate::desk::Desk;
use crate::error::{CoreError, CoreResult};
use crate::forms::{PayoutForm, PayoutKind, PayoutOp};

impl Desk {
    fn opened(&self, b: StoredBeneficiary) -> CoreResult<Opened> {
        let account = book::unseal(
            self.intent_key.expose(),
            &b.account_digest,
            &b.sealed_account,
            &b.shown.nickname,
        )?;
        // The digest is the account's: a row whose columns were exchanged does not pass.
        if book::account_digest(self.intent_key.expose(), b.shown.kind, &account)
            != b.account_digest
        {
            return Err(CoreError::keyed(
                "beneficiary",
                format!(
                    "the account of payee {:?} does not match its record; add the payee again",
                    b.shown.nickname
                ),
                "payeeSealUnreadable",
                &[("nickname", b.shown.nickname.clone())],
            ));
        }
        Ok(Opened {
            nickname: b.shown.nickname,
            kind: b.shown.kind,
            first_name: b.shown.first_name,
            last_name: b.shown.last_name,
            account,
            country: b.shown.country,
        })
    }

    /// The form with its payee's account (and a card's names and country) filled in from
    /// the book, when it names one; refused when the book has no such payee, or the form
    /// gives another type or account than the payee's.
    pub(crate) fn with_beneficiary<'a>(
        &self,
        form: &'a PayoutForm,
    ) -> CoreResult<Cow<'a, PayoutForm>> {
        let nickname = form.beneficiary.trim();
        if nickname.is_empty() {
            return Ok(Cow::Borrowed(form));
        }
        // A team's payee: its account stays sealed to the signers; the confirmation
        // shows its mask (team_member/pay.rs).
        if let Some(team) = self.team()? {
            return Ok(Cow::Owned(team.payout_form_for_preview(form)?));
        }
        let store = self.store.beneficiaries()?;
        let found = store.by_nickname(nickname)?;
        drop(store);
        let payees = match found {
            Some(b) => vec![self.opened(b)?],
            None => Vec::new(),
        };
        let mut out = form.clone();
        let mut kind = book::kind_name(form.kind).to_string();
        let account = match form.kind {
            PayoutKind::Clabe => &mut out.clabe,
            PayoutKind::Card => &mut out.card_no,
        };
        let filled = Book::new(payees).fill_row(
            nickname,
            RowCells {
                kind: &mut kind,
                account,
                first_name: &mut out.first_name,
                last_name: &mut out.last_name,
                country: &mut out.country_code,
            },
        );
        if let Err((field, rule)) = filled {
            let field = match (field.as_str(), form.kind) {
                ("account", PayoutKind::Clabe) => "clabe",
                ("account", PayoutKind::Card) => "cardNo",
                ("type", _) => "kind",
                _ => "beneficiary",
            };
            return Err(CoreError::validation(field, rule));
        }
        if form.kind == PayoutKind::Clabe {
            // A CLABE payout sends no name: the form keeps what it was given.
            out.first_name = form.first_name.clone();
            out.last_name = form.last_name.clone();
        }
        Ok(Cow::Owned(out))
    }

    /// [`Desk::with_beneficiary`] for the send path (review r6 R6-8). On a team desk a
    /// form naming a payee is never sent from here: the confirmation's form carries a
    /// stand-in account (one that passes the rules and masks like the payee's, so likely
    /// a stranger's), and the signer's worker pays the approved row by its payee's seal,
    /// with no nickname in the form it sends. Refused before anything is asked.
    pub(crate) fn with_beneficiary_to_send<'a>(
        &self,
        form: &'a PayoutForm,
    ) -> CoreResult<Cow<'a, PayoutForm>> {
        if self.profile.team.is_some() && !form.beneficiary.trim().is_empty() {
            return Err(CoreError::keyed(
                "beneficiary",
                "a team pays a payee of its book through an approved request, its account opened by the signer's worker; this desk never sends a payout naming a payee",
                "teamPayeeSentOnlyByRequest",
                &[],
            ));
        }
        self.with_beneficiary(form)
    }

    /// Whether the book holds a payout's account; none when this desk keeps no book.
    pub(crate) fn payee_of(&self, op: &PayoutOp) -> Option<Payee> {
        let (kind, account) = match op {
            PayoutOp::Clabe(p) => (PayoutKind::Clabe, p.clabe.as_str()),
            PayoutOp::Card(p) => (PayoutKind::Card, p.card_no.as_str()),
        };
        let digest = book::account_digest(self.intent_key.expose(), kind, account);
        let store = self.store.beneficiaries().ok()?;
        match store.by_digest(&digest) {
            Ok(Some(b)) => Some(Payee::Known {
                name: b.shown.name(),
                nickname: b.shown.nickname,
            }),
            Ok(None) => Some(Payee::New),
            Err(e) => {
                tracing::warn!(error = %e, "the book of payees could not be read");
                None
            }
        }
    }

    /// What a payout's confirmation says of its payee: on a team desk from the team's
    /// book ([`crate::team_member::TeamMember::payee_note`]), else from this desk's own.
    pub(crate) fn payee_of_payout(&self, form: &PayoutForm, op: &PayoutOp) -> Option<Payee> {
        match self.team() {
            Ok(Some(team)) => team.payee_note(form, op).unwrap_or_else(|e| {
                tracing::warn!(error = %e, "the team's book of payees could not be read");
                None
            }),
            _ => self.payee_of(op),
        }
    }

    /// Notes on each planned row whether the book knows its account (`rows[i]` is
    /// `planned[i]`'s).
    pub(crate) fn note_payees(&self, rows: &mut [bulk::PlannedRow], planned: &[bulk::Planned]) {
        let Ok(store) = self.store.beneficiaries() else {
            return;
        };
        let Ok(all) = store.list() else {
            return;
        };
        drop(store);
        let known: std::collections::HashMap<String, &Beneficiary> = all
            .iter()
            .map(|b| (b.account_digest.clone(), &b.shown))
            .collect();
        for (row, p) in rows.iter_mut().zip(planned) {
            let (kind, account) = match &p.payout {
                PayoutOp::Clabe(o) => (PayoutKind::Clabe, o.clabe.as_str()),
                PayoutOp::Card(o) => (PayoutKind::Card, o.card_no.as_str()),
            };
            let digest = book::account_digest(self.intent_key.expose(), kind, account);
            row.payout.payee = Some(match known.get(&digest) {
                Some(b) => Payee::Known {
                    nickname: b.nickname.clone(),
                    name: b.name(),
                },
                None => Payee::New,
            });
        }
    }

    /// The book opened, for a bulk file's `beneficiary` column; empty when this desk
    /// keeps no book.
    pub(in crate::desk) fn bulk_book(&self) -> CoreResult<Book> {
        let Ok(store) = self.store.beneficiaries() else {
            return Ok(Book::default());
        };
        let all = store.list()?;
        drop(store);
        let mut opened = Vec::new();
        let mut unreadable = Vec::new();
        for b in all {
            let nickname = b.shown.nickname.clone();
            match self.opened(b) {
                Ok(o) => opened.push(o),
                Err(e) => {
                    tracing::warn!(error = %e, "a payee's account does not open");
                    unreadable.push(nickname);
                }
            }
        }
        let mut book = Book::new(opened);
        for n in unreadable {
            book.unreadable(&n);
        }
        Ok(book)
    }
}

impl<'d> super::Records<'d> {
    /// The book, by nickname; nothing unmasked. On a team, the team's book.
    pub fn beneficiaries(&self) -> CoreResult<Vec<Beneficiary>> {
        if let Some(team) = self.desk.team()? {
            return Ok(team.payees()?.into_iter().map(|p| p.payee).collect());
        }
        Ok(self
            .desk
            .store
            .beneficiaries()?
            .list()?
            .into_iter()
            .map(|b| b.shown)
            .collect())
    }

    /// Adds a payee: checked (nickname unique in the book, the CLABE's or card's rules),
    /// its account kept masked and sealed, never in clear.
    pub fn add_beneficiary(&self, new: &NewBeneficiary) -> CoreResult<Beneficiary> {
        // A team's payee: sealed to the signers, audited by the team's database.
        if let Some(team) = self.desk.team()? {
            return Ok(team.add_payee(new)?.payee);
        }
        let (shown, account) = book::check(new)?;
        // Review r6 R6-1: a nickname that reads like one already in the book (the team's
        // database refuses the same: schema 0031).
        let skeleton = book::nickname_skeleton(&shown.nickname);
        let key = book::nickname_key(&shown.nickname);
        if let Some(alike) = self
            .desk
            .store
            .beneficiaries()?
            .list()?
            .into_iter()
            .find(|b| {
                book::nickname_key(&b.shown.nickname) != key
                    && book::nickname_skeleton(&b.shown.nickname) == skeleton
            })
        {
            return Err(CoreError::keyed(
                "nickname",
                format!(
                    "reads like payee {:?} already in the book: choose a nickname that does not",
                    alike.shown.nickname
                ),
                "payeeNicknameLookAlike",
                &[("alike", alike.shown.nickname)],
            ));
        }
        let key = self.desk.intent_key.expose();
        let digest = book::account_digest(key, shown.kind, &account);
        let stored = StoredBeneficiary {
            sealed_account: book::seal(key, &digest, &account)?,
            account_digest: digest,
            shown,
        };
        let added = self.desk.store.beneficiaries()?.add(&stored)?;
        self.desk.journal().audit_event(
            "beneficiary_add",
            format!(
                "nickname={} account={} kind={}",
                added.nickname,
                added.account,
                book::kind_name(added.kind)
            ),
            "ok",
        );
        Ok(added)
    }

    /// Removes the payee of `nickname` (payouts already made to it stay as they are).
    pub fn remove_beneficiary(&self, nickname: &str) -> CoreResult<()> {
        if let Some(team) = self.desk.team()? {
            if !team.remove_payee(nickname)? {
                return Err(CoreError::keyed(
                    "nickname",
                    format!("no payee {:?} in the book", nickname.trim()),
                    "payeeUnknown",
                    &[("nickname", nickname.trim().to_string())],
                ));
            }
            return Ok(());
        }
        let store = self.desk.store.beneficiaries()?;
        let Some(b) = store.by_nickname(nickname)? else {
            return Err(CoreError::keyed(
                "nickname",
                format!("no payee {:?} in the book", nickname.trim()),
                "payeeUnknown",
                &[("nickname", nickname.trim().to_string())],
            ));
        };
        store.remove(nickname)?;
        drop(store);
        self.desk.journal().audit_event(
            "beneficiary_remove",
            format!("nickname={} account={}", b.shown.nickname, b.shown.account),
            "ok",
        );
        Ok(())
    }

    /// Approves a payee another member of the team added: the row the approver was
    /// shown (its id and sealed account's hash, from [`Beneficiary::team_row`]), never a
    /// nickname another payee could take meanwhile. The team's database holds who may;
    /// a solo desk's payees need none.
    pub fn approve_beneficiary(&self, row: &TeamPayeeRow) -> CoreResult<()> {
        match self.desk.team()? {
            Some(team) => team.approve_payee(row),
            None => Err(CoreError::keyed(
                "nickname",
                "a payee of this desk's own book needs no approval",
                "payeeNoApproval",
                &[],
            )),
        }
    }

    /// Whether a team's new payees need another member's approval; none on a solo desk.
    pub fn payee_approval(&self) -> CoreResult<Option<bool>> {
        self.desk.team()?.map(|t| t.payee_approval()).transpose()
    }

    /// Whether a team's new payees need another member's approval (an admin's setting).
    pub fn set_payee_approval(&self, on: bool) -> CoreResult<()> {
        match self.desk.team()? {
            Some(team) => team.set_payee_approval(on),
            None => Err(CoreError::keyed(
                "payeeApproval",
                "only a team's payees can need an approval",
                "payeeApprovalTeamOnly",
                &[],
            )),
        }
    }
}
