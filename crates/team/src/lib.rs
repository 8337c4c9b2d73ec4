//! The team's workflow (`paydesk-team`): what each role does through a member's
//! connection to the team's database ([`Team`]: makers request, approvers decide, admins
//! keep members and rules), and the signer's worker ([`execute_next`], [`work`]) that
//! executes approved requests through the journal, exactly once, whoever else is
//! working.
//!
//! # The seam with the engine
//!
//! This crate builds on the engine (`paydesk-core`); the engine never depends on it
//! (`tests/layers.rs`). What a team desk itself needs stays in the engine, as code over
//! the store's team tables (`paydesk_core::team_member`): opening the desk's store on
//! the team's database, the member's connection ([`TeamMember`], which [`Team`]
//! derefs to), the team's book of payees, the maker's own limits checked at a payout's
//! confirmation, the alerts, and the seals to the signers. The worker reaches the desk's
//! money path through one door, `paydesk_core::team_member::executing_approved`, which
//! it opens only around a request its database claimed as approved; the front ends
//! never name it. The front ends reach this crate through `paydesk-api`.
//!
//! What a role may do is decided by the database (roles, grants, row-level security,
//! the schema's triggers), not here: this module checks a request's fields so a
//! mistake gets a clear error before it reaches the database, and passes the
//! database's refusals on.

/// A member's payout limits are a record of the store's team tables; kept at this path.
pub use paydesk_core::store::team::MemberLimit;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::{FutureExt as _, StreamExt as _};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use sha2::Digest;

use paydesk_gateway::wire::Operation as _;

use paydesk_core::desk::Desk;
use paydesk_core::error::{CoreError, CoreResult};
use paydesk_core::forms::{
    CardForm, CardMove, Filler, PayinForm, PayoutForm, PayoutKind, PayoutOp,
};
use paydesk_core::journal::Status;
/// Where a team's database is (a team profile's connection settings).
pub use paydesk_core::store::team::TeamConfig as PgConfig;
pub use paydesk_core::store::team::{
    Decision, Member, Request, RequestRow, RequestState, RowState, Rule, TeamRole,
};
use paydesk_core::store::team::{NewRequest, NewRow, TeamConfig, TeamDb};

mod precheck;
use paydesk_core::team_member as pay;
use paydesk_core::team_member::{
    CARD_NO, ClaimedRequest, SEALED_CARD_NO, SEALED_TAX_ID, TAX_ID, executing_approved,
};
pub use paydesk_core::team_member::{
    Initialized, Links, TeamMember, TeamPayee, check_password, init, member_password, open_store,
};

/// The member's team for a team profile (its password from the keyring), the seal key
/// pinned in that profile's keyring.
pub fn connect_profile(
    cfg: &TeamConfig,
    secrets: paydesk_core::secrets::Secrets,
    profile: &str,
) -> CoreResult<Team> {
    let password = member_password(cfg, &secrets, profile)?;
    Ok(Team::connect(cfg, password.expose())?.pinning_seal_key(secrets, profile))
}

/// What a connection test finds: the member, and the team schema's version.
#[derive(Debug)]
pub struct Probe {
    pub team: Team,
    pub schema_version: i32,
}

/// Tests settings before they are saved: connects, reads the schema's version, and who
/// the database says the member is. A database without a team is said so.
pub fn probe(cfg: &TeamConfig, password: &str) -> CoreResult<Probe> {
    let link = paydesk_core::store::team::connect(cfg, password)?;
    let schema_version = link.schema_version()?;
    if schema_version == 0 {
        return Err(CoreError::validation(
            "team.database",
            "has no PayDesk team in it: the owner runs `paydesk team init` first",
        ));
    }
    Ok(Probe {
        team: Team::on(link)?,
        schema_version,
    })
}

/// A member's open connection to the team, with what each role does through it; what a
/// team desk itself needs of it is the engine's [`TeamMember`], which it derefs to.
#[derive(Debug, Clone)]
pub struct Team {
    member: TeamMember,
}

impl std::ops::Deref for Team {
    type Target = TeamMember;
    fn deref(&self) -> &TeamMember {
        &self.member
    }
}

impl From<TeamMember> for Team {
    fn from(member: TeamMember) -> Team {
        Team { member }
    }
}

impl Team {
    /// Connects as the member `cfg.user`.
    pub fn connect(cfg: &TeamConfig, password: &str) -> CoreResult<Team> {
        TeamMember::connect(cfg, password).map(Team::from)
    }

    /// A team on a connection already open.
    pub fn on(link: Arc<dyn TeamDb>) -> CoreResult<Team> {
        TeamMember::on(link).map(Team::from)
    }

    /// [`TeamMember::pinning_seal_key`].
    pub fn pinning_seal_key(self, secrets: paydesk_core::secrets::Secrets, profile: &str) -> Team {
        Team::from(self.member.pinning_seal_key(secrets, profile))
    }

    /// The member's team on `desk`'s connection, on a team profile (the seal key pinned in
    /// its profile's keyring, as `Desk::team` gives it).
    pub fn of(desk: &Desk) -> CoreResult<Option<Team>> {
        Ok(desk.team()?.map(Team::from))
    }
}

/// A rule as an admin sets it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleInput {
    /// `payout`, `payin` or `*`.
    pub operation: String,
    /// An ISO 4217 code or `*`.
    pub currency: String,
    /// Decimal string: the rule applies to totals above it.
    pub above: String,
    /// Distinct approvers other than the maker: 1 to 5.
    pub approvals: i32,
}

impl Team {
    /// Requests a payout (CLABE, or card with its number sealed to the signers): its
    /// number fixed now, executed by a signer once the approvals the rules ask are in.
    pub fn request_payout(&self, form: &PayoutForm) -> CoreResult<Request> {
        // A payee of the team's book: the row names it (its id and its seal's hash), the
        // account stays sealed to the signers (`paydesk_core::team_member::pay`).
        let payee = match form.beneficiary.trim() {
            "" => None,
            nickname => Some(self.payee_for_request(nickname)?),
        };
        let form = match &payee {
            None => self.checked_form(form)?,
            Some(p) => self.checked_form(&self.payee_form(form, p)?)?,
        };
        let op = form
            .build(&self.checking_filler())
            .map_err(|e| e.in_terms(paydesk_core::forms::payout_field))?;
        match &op {
            PayoutOp::Card(o) => o.validate(),
            PayoutOp::Clabe(o) => o.validate(),
        }
        .map_err(|e| CoreError::from(e).in_terms(paydesk_core::forms::payout_field))?;
        let preview = op.preview();
        // A card number is sealed to the signers: the stored form never carries it.
        let mut stored = form.clone();
        stored.card_no.clear();
        if payee.is_some() {
            // The stand-in never leaves this desk: the signer pays the payee's seal.
            stored.clabe.clear();
        }
        let mut form_json = form_value(&stored)?;
        if let (Some(p), serde_json::Value::Object(fields)) = (&payee, &mut form_json) {
            fields.insert(pay::PAYEE_ID.into(), p.id.into());
            fields.insert(pay::PAYEE_SHA256.into(), p.sealed_sha256.clone().into());
        } else if form.kind == PayoutKind::Card
            && let serde_json::Value::Object(fields) = &mut form_json
        {
            let card_no: String = form
                .card_no
                .chars()
                .filter(|c| !c.is_whitespace() && *c != '-')
                .collect();
            fields.insert(
                SEALED_CARD_NO.into(),
                serde_json::Value::String(self.seal(CARD_NO, &card_no)?),
            );
        }
        let mut beneficiary = beneficiary(&preview, &form);
        if let Some(p) = &payee {
            beneficiary = pay::payee_beneficiary(&p.nickname, &beneficiary);
        }
        let summary = format!("{} {} to {}", preview.amount, preview.currency, beneficiary);
        self.check_my_limit(&preview.currency, &[preview.amount.as_str()])?;
        self.tables().make(&NewRequest {
            operation: "payout",
            currency: &preview.currency,
            total: &preview.amount,
            summary: &summary,
            source: None,
            rows: vec![NewRow {
                line: None,
                mer_order_no: &form.mer_order_no,
                amount: &preview.amount,
                form: &form_json,
                beneficiary: &beneficiary,
            }],
        })
    }

    /// Requests a payin (its number fixed now): the signer creates it once approved, and
    /// the row's message then carries the payment link for the customer. A PIX payer's
    /// tax id is sealed to the signers (encrypted to the merchant's public key, which a
    /// signer's desk publishes): never readable in the team's database, opened by the
    /// signer's worker only when it sends the payin.
    pub fn request_payin(&self, form: &PayinForm) -> CoreResult<Request> {
        // A payer's tax id is sealed to the signers: never readable in the database.
        let sealed_tax_id = match form.social_security_number.trim() {
            "" => None,
            tax_id => Some(self.seal(TAX_ID, tax_id)?),
        };
        let mut form = form.clone();
        form.purpose = paydesk_core::purpose::check(&form.purpose, false)?.unwrap_or_default();
        form.mer_order_no = self.number_of(
            &form.mer_order_no,
            &[
                "payin",
                form.method.name(),
                form.amount.trim(),
                &form.currency.trim().to_ascii_uppercase(),
                form.email.trim(),
                form.user_id.trim(),
                form.name.trim(),
            ],
        );
        form.notify_url.clear();
        form.return_url.clear();
        form.ip_address.clear();
        let op = form
            .build(&self.checking_filler())
            .map_err(|e| e.in_terms(paydesk_core::forms::payin_field))?;
        match &op {
            paydesk_core::forms::PayinOp::V2(o) => o.validate(),
            paydesk_core::forms::PayinOp::V1(o) => o.validate(),
            paydesk_core::forms::PayinOp::VnBank(o) => o.validate(),
        }
        .map_err(|e| CoreError::from(e).in_terms(paydesk_core::forms::payin_field))?;
        let (amount, currency) = money_of(&form.amount, &form.currency)?;
        let beneficiary = payin_beneficiary(&form);
        form.social_security_number.clear();
        let mut stored = to_value(&form)?;
        if let (Some(sealed), serde_json::Value::Object(fields)) = (sealed_tax_id, &mut stored) {
            fields.insert(SEALED_TAX_ID.into(), serde_json::Value::String(sealed));
        }
        self.tables().make(&NewRequest {
            operation: "payin",
            currency: &currency,
            total: &amount,
            summary: &format!("{amount} {currency} to {beneficiary}"),
            source: None,
            rows: vec![NewRow {
                line: None,
                mer_order_no: &form.mer_order_no,
                amount: &amount,
                form: &stored,
                beneficiary: &beneficiary,
            }],
        })
    }

    /// Requests a card's top-up or withdrawal (its reference fixed now).
    pub fn request_card(&self, form: &CardForm) -> CoreResult<Request> {
        let mut form = form.clone();
        form.purpose = paydesk_core::purpose::check(&form.purpose, false)?.unwrap_or_default();
        form.reference = self.number_of(
            &form.reference,
            &[
                card_beneficiary(&form).0,
                form.card.trim(),
                form.amount.trim(),
                &form.currency.trim().to_ascii_uppercase(),
            ],
        );
        let op = form
            .build(&self.checking_filler())
            .map_err(|e| e.in_terms(paydesk_core::forms::card_field))?;
        match &op {
            paydesk_core::forms::CardOp::TopUp(o) => o.validate(),
            paydesk_core::forms::CardOp::Withdraw(o, _) => o.validate(),
        }
        .map_err(|e| CoreError::from(e).in_terms(paydesk_core::forms::card_field))?;
        let (amount, currency) = money_of(&form.amount, &form.currency)?;
        let (operation, beneficiary) = card_beneficiary(&form);
        self.tables().make(&NewRequest {
            operation,
            currency: &currency,
            total: &amount,
            summary: &format!("{amount} {currency} to {beneficiary}"),
            source: None,
            rows: vec![NewRow {
                line: None,
                mer_order_no: &form.reference,
                amount: &amount,
                form: &to_value(&form)?,
                beneficiary: &beneficiary,
            }],
        })
    }

    /// Requests a bulk payout file as one batch: every row checked first (a file with
    /// an error is refused whole, each error naming its line and field), one currency
    /// per batch. Rows without a `merOrderNo` get one made from their content, so the
    /// same file sent again is refused by the database instead of paid twice, while a
    /// file fixed after its request was rejected goes again, its unchanged rows under
    /// the same numbers (a rejected request's numbers are free: it was never sent).
    pub fn request_bulk(&self, name: &str, bytes: &[u8]) -> CoreResult<Request> {
        self.request_bulk_for(name, bytes, &paydesk_core::purpose::Purpose::default())
    }

    /// [`Team::request_bulk`] with the batch's purpose for the rows whose `purpose`
    /// column is empty (issue 35); each row's purpose travels in its form.
    pub fn request_bulk_for(
        &self,
        name: &str,
        bytes: &[u8],
        purpose: &paydesk_core::purpose::Purpose,
    ) -> CoreResult<Request> {
        let ctx = paydesk_core::bulk::BulkContext {
            mer_no: self.mer_no() as u64,
            // Checked here, not kept: the signer's desk sends its own notification URL.
            notify_url: "https://signer.invalid/notify".into(),
            ip_address: "127.0.0.1".into(),
        };
        // A row naming a payee of the team's book is checked with a stand-in for its
        // account, then names the payee instead (`paydesk_core::team_member::pay`).
        let (book, payees) = self.bulk_payees()?;
        let mut file = paydesk_core::bulk::parse_with_book(bytes, &ctx, &book)?;
        let payee_column = file.headers.iter().position(|h| h == "beneficiary");
        file.with_default_purpose(purpose, false)?;
        if let Some(e) = file.errors.first() {
            return Err(CoreError::validation(
                "file",
                paydesk_core::error::Rule::keyed(
                    format!(
                        "{} row(s) have errors; the first, line {}: {} {}",
                        file.errors.len(),
                        e.line,
                        e.field,
                        e.rule
                    ),
                    "batchRowErrors",
                    &[
                        ("rows", file.errors.len().to_string()),
                        ("line", e.line.to_string()),
                        ("field", e.field.clone()),
                        ("rule", e.rule.text.clone()),
                    ],
                )
                .quoting("rule", &e.rule),
            ));
        }
        if file.rows.is_empty() {
            return Err(CoreError::keyed(
                "file",
                "the file has no payout rows",
                "batchNoRows",
                &[],
            ));
        }
        let mut currency = None::<String>;
        let mut total = Decimal::ZERO;
        let mut forms = Vec::with_capacity(file.rows.len());
        for (line, op) in &file.rows {
            let p = match op {
                PayoutOp::Clabe(p) => p,
                PayoutOp::Card(_) => {
                    return Err(CoreError::keyed(
                        "type",
                        format!(
                            "line {line}: card payouts are not requested through a team (a card number is never stored in the team's database); send them from a single desk"
                        ),
                        "batchCard",
                        &[("line", line.to_string())],
                    ));
                }
            };
            match &currency {
                None => currency = Some(p.currency_code.clone()),
                Some(c) if *c != p.currency_code => {
                    return Err(CoreError::keyed(
                        "currency",
                        format!(
                            "line {line}: {} in a batch of {c}: one currency per batch",
                            p.currency_code
                        ),
                        "batchCurrency",
                        &[
                            ("line", line.to_string()),
                            ("currency", p.currency_code.clone()),
                            ("batch", c.to_string()),
                        ],
                    ));
                }
                Some(_) => {}
            }
            total += p.source_amount;
            let payee = match payee_column {
                Some(i) => pay::payee_of_line(&file, &payees, *line, i)?,
                None => None,
            };
            let number = match (file.derived.get(line), payee) {
                (Some(content), Some(payee)) => self.bulk_number(&content.replace(
                    &p.clabe,
                    &format!("payee {} {}", payee.id, payee.sealed_sha256),
                )),
                (Some(content), None) => self.bulk_number(content),
                (None, _) => p.mer_order_no.clone(),
            };
            let mut op = op.clone();
            op.set_mer_order_no(&number);
            let mut form = PayoutForm::new(
                PayoutKind::Clabe,
                &number,
                &p.source_amount.normalize().to_string(),
                &p.currency_code,
            );
            form.purpose = file.purposes.get(line).cloned().unwrap_or_default();
            let preview = op.preview();
            let json = match payee {
                None => {
                    form.clabe = p.clabe.clone();
                    form_value(&form)?
                }
                // The stand-in account never leaves this desk.
                Some(payee) => {
                    form.beneficiary = payee.nickname.clone();
                    let mut json = form_value(&form)?;
                    if let serde_json::Value::Object(fields) = &mut json {
                        fields.insert(pay::PAYEE_ID.into(), payee.id.into());
                        fields.insert(pay::PAYEE_SHA256.into(), payee.sealed_sha256.clone().into());
                    }
                    json
                }
            };
            forms.push((
                json,
                preview,
                form,
                *line,
                payee.map(|p| p.nickname.clone()),
            ));
        }
        let currency = currency.unwrap_or_default();
        let digest = hex::encode(sha2::Sha256::digest(bytes));
        let source = format!("{} (SHA-256 {})", file_name(name), &digest[..16]);
        let total_text = total.normalize().to_string();
        let summary = format!(
            "{} payouts, {} {} from {}",
            forms.len(),
            total_text,
            currency,
            file_name(name)
        );
        let beneficiaries: Vec<String> = forms
            .iter()
            .map(|(_, p, f, _, payee)| match payee {
                Some(nickname) => pay::payee_beneficiary(nickname, &beneficiary(p, f)),
                None => beneficiary(p, f),
            })
            .collect();
        let amounts: Vec<&str> = forms
            .iter()
            .map(|(_, _, f, _, _)| f.amount.as_str())
            .collect();
        self.check_my_limit(&currency, &amounts)?;
        let rows = forms
            .iter()
            .zip(&beneficiaries)
            .map(|((json, _, form, line, _), b)| NewRow {
                line: Some(*line),
                mer_order_no: &form.mer_order_no,
                amount: &form.amount,
                form: json,
                beneficiary: b,
            })
            .collect();
        self.tables().make(&NewRequest {
            operation: "payout",
            currency: &currency,
            total: &total_text,
            summary: &summary,
            source: Some(&source),
            rows,
        })
    }

    /// What a request's form is checked with, by the wire's own rules, when it is made:
    /// the signer's desk sends its own notification URL, so a stand-in fills that field
    /// here (the form keeps none).
    fn checking_filler(&self) -> Filler<'static> {
        Filler {
            mer_no: self.mer_no() as u64,
            notify_url: "https://signer.invalid/notify",
            requester_ip: "127.0.0.1",
        }
    }

    /// A payout form a team may carry: CLABE only, its number given or made now.
    fn checked_form(&self, form: &PayoutForm) -> CoreResult<PayoutForm> {
        if form.kind != PayoutKind::Card && !form.card_no.trim().is_empty() {
            return Err(CoreError::keyed(
                "cardNo",
                "a CLABE payout carries no card number",
                "clabeNoCard",
                &[],
            ));
        }
        let mut form = form.clone();
        let currency = form.currency.trim().to_ascii_uppercase();
        let mut content = vec![
            "payout",
            form.amount.trim(),
            &currency,
            form.clabe.trim(),
            form.first_name.trim(),
            form.last_name.trim(),
        ];
        // A card's number made from its mask, never from the full number: the salt is
        // every member's to read, and the full number hashed with it could be searched
        // from a row's mask and amount by anyone who can read the rows' numbers.
        let digits: String = form
            .card_no
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-')
            .collect();
        let mask = paydesk_gateway::validate::mask_card(&digits);
        let mut legacy = None;
        if form.kind == PayoutKind::Card {
            let mut old = content.clone();
            old.push(form.card_no.trim());
            legacy = Some(self.number_of(&form.mer_order_no, &old));
            content.push(&mask);
        }
        form.mer_order_no = self.number_of(&form.mer_order_no, &content);
        // Made today before the card's number was left out of it: the number it was
        // requested under then, so the database refuses it as already requested (naming
        // the first) instead of taking a second request, paid a second time.
        if let Some(legacy) = legacy
            && legacy != form.mer_order_no
            && self.tables().number_requested(&legacy)?
        {
            form.mer_order_no = legacy;
        }
        form.notify_url.clear();
        form.ip_address.clear();
        // The maker's purpose, bounded and printable (what approvers see and the signer
        // journals; a profile that requires one refuses the row when it is executed).
        form.purpose = paydesk_core::purpose::check(&form.purpose, false)?.unwrap_or_default();
        Ok(form)
    }

    /// Requests, newest first (all states when `states` is empty).
    pub fn requests(&self, states: &[RequestState], limit: i64) -> CoreResult<Vec<Request>> {
        self.tables().requests(states, limit.clamp(1, 10_000))
    }

    pub fn request(&self, id: i64) -> CoreResult<Request> {
        self.tables()
            .request(id)?
            .ok_or_else(|| CoreError::not_found(format!("request {id}")))
    }

    pub fn rows(&self, id: i64) -> CoreResult<Vec<RequestRow>> {
        self.tables().rows(id)
    }

    /// Approves a waiting request (not one's own: the database refuses it).
    pub fn approve(&self, id: i64) -> CoreResult<Request> {
        self.tables().decide(id, true, None)
    }

    /// Rejects a waiting request, with the reason (3 characters at least).
    pub fn reject(&self, id: i64, reason: &str) -> CoreResult<Request> {
        let reason = reason.trim();
        if reason.chars().count() < 3 {
            return Err(CoreError::keyed(
                "reason",
                "a rejection says why, in 3 characters at least",
                "rejectReason",
                &[],
            ));
        }
        self.tables().decide(id, false, Some(reason))
    }

    pub fn rules(&self) -> CoreResult<Vec<Rule>> {
        self.tables().rules()
    }

    /// Adds a rule or changes the approvals of an existing one (admins only).
    pub fn set_rule(&self, rule: &RuleInput) -> CoreResult<Rule> {
        let (operation, currency, above) = rule.check()?;
        let id = self
            .tables()
            .set_rule(&operation, &currency, &above, rule.approvals)?;
        self.rules()?
            .into_iter()
            .find(|r| r.id == id)
            .ok_or_else(|| CoreError::internal("the rule just set is not readable"))
    }
}

impl RuleInput {
    /// The rule's own checks, made before any database is asked (a front end may call
    /// it before it connects): its operation, currency and threshold as kept.
    pub fn check(&self) -> CoreResult<(String, String, String)> {
        let rule = self;
        let operation = rule.operation.trim().to_ascii_lowercase();
        if !["payout", "payin", "top_up", "withdraw", "*"].contains(&operation.as_str()) {
            return Err(CoreError::keyed(
                "operation",
                "payout, payin, top_up, withdraw or * (any)",
                "ruleOperation",
                &[],
            ));
        }
        let currency = rule.currency.trim().to_ascii_uppercase();
        if currency != "*" {
            paydesk_gateway::money::Currency::parse(&currency).map_err(|e| {
                CoreError::validation(
                    "currency",
                    paydesk_core::error::Rule::currency(&currency, e),
                )
            })?;
        }
        let above: Decimal = rule.above.trim().parse().map_err(|_| {
            CoreError::keyed(
                "above",
                "a decimal amount such as 10000 or 10000.50",
                "ruleAbove",
                &[],
            )
        })?;
        if above.is_sign_negative() {
            return Err(CoreError::keyed(
                "above",
                format!("must be 0 or more, got {}", rule.above.trim()),
                "ruleAboveNegative",
                &[("got", rule.above.trim().to_string())],
            ));
        }
        if !(1..=5).contains(&rule.approvals) {
            return Err(CoreError::keyed(
                "approvals",
                format!("must be 1 to 5 approvers, got {}", rule.approvals),
                "ruleApprovals",
                &[("got", rule.approvals.to_string())],
            ));
        }
        Ok((operation, currency, above.normalize().to_string()))
    }
}

impl Team {
    /// The rule that asks a request's approvals, among `rules` as they are now: the
    /// matching rule (operation and currency, or `*`; total above its threshold) with
    /// the most approvers, the highest threshold among equals. `None` when no rule
    /// applies, or when the rules changed since the request was made and none asks what
    /// it was given (its `approvals_needed` is fixed when it is made).
    pub fn rule_for<'r>(rules: &'r [Rule], request: &Request) -> Option<&'r Rule> {
        let total: Decimal = request.total.parse().ok()?;
        rules
            .iter()
            .filter(|r| r.operation == request.operation || r.operation == "*")
            .filter(|r| r.currency == request.currency || r.currency == "*")
            .filter_map(|r| Some((r, r.above.parse::<Decimal>().ok()?)))
            .filter(|(_, above)| total > *above)
            .max_by(|(a, a_above), (b, b_above)| {
                a.approvals.cmp(&b.approvals).then(a_above.cmp(b_above))
            })
            .map(|(r, _)| r)
            .filter(|r| r.approvals == request.approvals_needed)
    }

    /// Every member's payout limits (issue 35): what the database refuses a member's
    /// payout rows beyond.
    pub fn member_limits(&self) -> CoreResult<Vec<MemberLimit>> {
        self.tables().member_limits()
    }

    /// Sets a member's payout limits in a currency (an admin; both `None` clears them),
    /// checked here first for a clear error; the database holds them whatever writes.
    pub fn set_member_limit(&self, limit: &MemberLimit) -> CoreResult<()> {
        let checked = paydesk_core::limits::Limits {
            currencies: vec![paydesk_core::limits::CurrencyLimit {
                currency: limit.currency.clone(),
                per_payout: limit.per_payout.clone(),
                per_day: limit.per_day.clone(),
            }],
        };
        checked.validate()?;
        let c = &checked.currencies[0];
        let zone = if limit.day_zone.trim().is_empty() {
            "UTC".to_string()
        } else {
            paydesk_core::period::parse_zone("dayZone", &limit.day_zone)?;
            limit.day_zone.trim().to_string()
        };
        self.tables().set_member_limit(
            limit.member.trim(),
            &c.currency.trim().to_ascii_uppercase(),
            c.per_payout
                .as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty()),
            c.per_day
                .as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty()),
            &zone,
        )
    }

    pub fn remove_rule(&self, id: i64) -> CoreResult<()> {
        if self.tables().remove_rule(id)? {
            Ok(())
        } else {
            Err(CoreError::not_found(format!("rule {id}")))
        }
    }

    pub fn members(&self) -> CoreResult<Vec<Member>> {
        self.tables().members()
    }

    /// Adds a new member with one role (admins, or the owner for the first admin). Only
    /// the password's SCRAM verifier reaches the database, never in a statement's text
    /// or parameters. An existing member, or any role of the cluster the team did not
    /// make (the owner, a superuser), is refused by the database. Returns the roles the
    /// member holds.
    pub fn add_member(&self, name: &str, role: TeamRole, password: &str) -> CoreResult<String> {
        check_member_name(name)?;
        let verifier = verifier_of(password)?;
        self.tables().add_member(name, role, &verifier)
    }

    /// Gives a member exactly `roles`: the roles held before and not listed are revoked
    /// (admins). Returns what the member holds now, as the database says.
    pub fn set_member_roles(&self, name: &str, roles: &[TeamRole]) -> CoreResult<String> {
        check_member_name(name)?;
        if roles.is_empty() {
            return Err(CoreError::keyed(
                "role",
                "at least one role (to take every role away, remove the member)",
                "memberRoles",
                &[],
            ));
        }
        self.tables().set_member_roles(name, roles)
    }

    /// Sets a member's password: a step of its own, in the audit log (admins).
    pub fn reset_member_password(&self, name: &str, password: &str) -> CoreResult<()> {
        check_member_name(name)?;
        let verifier = verifier_of(password)?;
        self.tables().reset_member_password(name, &verifier)
    }

    /// The approvals a request needs when no rule names its operation and currency.
    pub fn default_approvals(&self) -> CoreResult<i32> {
        self.tables().default_approvals()
    }

    /// Sets the approvals a request needs when no rule names its operation and currency
    /// (admins; 0 to 5).
    pub fn set_default_approvals(&self, approvals: i32) -> CoreResult<()> {
        if !(0..=5).contains(&approvals) {
            return Err(CoreError::keyed(
                "approvals",
                "the team's default approvals: 0 to 5",
                "defaultApprovals",
                &[],
            ));
        }
        self.tables().set_default_approvals(approvals)
    }

    pub fn remove_member(&self, name: &str) -> CoreResult<()> {
        self.tables().remove_member(name)
    }
}

fn check_member_name(name: &str) -> CoreResult<()> {
    if paydesk_core::store::team::valid_user_name(name) {
        Ok(())
    } else {
        Err(CoreError::keyed(
            "name",
            paydesk_core::store::team::USER_NAME_RULE,
            "memberName",
            &[],
        ))
    }
}

/// A new password's SCRAM-SHA-256 verifier (the password never leaves this process).
fn verifier_of(password: &str) -> CoreResult<String> {
    if password.chars().count() < 12 {
        return Err(CoreError::keyed(
            "password",
            "12 characters at least",
            "passwordLength",
            &[],
        ));
    }
    Ok(paydesk_core::store::team::scram_verifier(password))
}

fn file_name(name: &str) -> &str {
    std::path::Path::new(name)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(name)
}

/// Who a payout row pays, as approvers see it and the signer checks it: a CLABE's
/// account and bank; a card's masked number with its holder (name, country, e-mail), so
/// four-eyes binds the payee, not the mask and the amount only.
fn beneficiary(p: &paydesk_core::forms::PayoutPreview, f: &PayoutForm) -> String {
    if p.kind == PayoutKind::Card {
        let mut b = format!("card {} of {}", p.account, p.beneficiary.trim());
        for extra in [f.country_code.trim(), f.email.trim()] {
            if !extra.is_empty() {
                b.push_str(", ");
                b.push_str(extra);
            }
        }
        return b;
    }
    match &p.bank {
        Some(bank) => format!("CLABE {} ({bank})", p.account),
        None => format!("CLABE {}", p.account),
    }
}

/// How a card payout's row named its payee before the holder was part of it (the mask
/// only): such a row is executed only if its number is already in the journal (sent
/// then: looked up, never sent again).
fn legacy_card_beneficiary(p: &paydesk_core::forms::PayoutPreview) -> String {
    format!("CLABE {}", p.account)
}

fn form_value(form: &PayoutForm) -> CoreResult<serde_json::Value> {
    to_value(form)
}

/// Who a payin's row names: the method and the payer, masked.
fn payin_beneficiary(form: &PayinForm) -> String {
    let who = [form.name.trim(), form.email.trim()]
        .into_iter()
        .find(|s| !s.is_empty())
        .map(mask_person)
        .unwrap_or_else(|| "a customer".into());
    format!("{} payin from {who}", form.method.name())
}

/// A card move's operation and what its row names.
fn card_beneficiary(form: &CardForm) -> (&'static str, String) {
    match form.kind {
        CardMove::TopUp => ("top_up", format!("top-up of card {}", form.card.trim())),
        CardMove::Withdraw => (
            "withdraw",
            format!("withdrawal from card {}", form.card.trim()),
        ),
    }
}

/// Whether a row's form sends what the approvers saw: the row's amount, the request's
/// currency and the row's beneficiary (the signer checks again what the database checks
/// when the row is made: a maker could write a row by hand).
fn same_as_approved(
    amount: &str,
    currency: &str,
    beneficiary: &str,
    row: &RequestRow,
    request: &Request,
) -> bool {
    // The money compared as the desk compares it again when the order is sent within
    // the claimed row's scope (`executing_approved`): one comparison.
    paydesk_core::team_member::same_money(amount, currency, &row.amount, &request.currency)
        && beneficiary == row.beneficiary
}

fn to_value(form: &impl Serialize) -> CoreResult<serde_json::Value> {
    serde_json::to_value(form).map_err(|e| CoreError::internal(e.to_string()))
}

/// An amount and its currency as a request keeps them (checked by the form's own rules
/// before this): the decimal as written.
fn money_of(amount: &str, currency: &str) -> CoreResult<(String, String)> {
    let value: Decimal = amount.trim().parse().map_err(|_| {
        CoreError::keyed(
            "amount",
            "a decimal amount such as 100 or 100.50",
            "requestAmount",
            &[],
        )
    })?;
    if value <= Decimal::ZERO {
        return Err(CoreError::keyed(
            "amount",
            "more than 0",
            "requestAmountPositive",
            &[],
        ));
    }
    let currency = currency.trim().to_uppercase();
    paydesk_gateway::money::Currency::parse(&currency).map_err(|e| {
        CoreError::validation(
            "currency",
            paydesk_core::error::Rule::currency(&currency, e),
        )
    })?;
    Ok((value.to_string(), currency))
}

/// A payer as the team's members see them: the first two characters of a name or an
/// email's local part, the rest hidden (the domain of an email stays).
fn mask_person(who: &str) -> String {
    let (local, domain) = who
        .split_once('@')
        .map_or((who, None), |(l, d)| (l, Some(d)));
    let shown: String = local.chars().take(2).collect();
    let hidden = local.chars().count().saturating_sub(2).min(8);
    let masked = format!("{shown}{}", "*".repeat(hidden));
    match domain {
        Some(d) => format!("{masked}@{d}"),
        None => masked,
    }
}

/// What one execution of a request came to.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Executed {
    pub request: i64,
    pub accepted: u32,
    pub rejected: u32,
    pub failed: u32,
    /// Rows whose outcome is not known yet: the request is taken up again later.
    pub unknown: u32,
    pub done: bool,
}

/// Seconds before a request given back with rows still unknown is taken up again.
pub const RETRY_AFTER_SECS: i32 = 30;

/// A signer executes the oldest approved request nobody else holds (or one whose
/// signer died): each row through the journal (`Money::payout`), with its number fixed
/// when the request was made. A row already in the journal is never sent again: a
/// lost answer is looked up. `None` when nothing waits.
pub async fn execute_next(desk: &Desk, team: &Team) -> CoreResult<Option<Executed>> {
    execute_next_beating(desk, team, false).await
}

/// [`execute_next`]; a running worker (`beating`) also writes its heartbeat between the
/// rows of a long request, every [`BEAT_EVERY`] (review r6 R6-7).
async fn execute_next_beating(
    desk: &Desk,
    team: &Team,
    beating: bool,
) -> CoreResult<Option<Executed>> {
    if desk.profile.mer_no as i64 != team.mer_no() {
        return Err(CoreError::keyed(
            "merNo",
            format!(
                "this desk signs for merchant {}, the team works for {}",
                desk.profile.mer_no,
                team.mer_no()
            ),
            "signerMerchant",
            &[
                ("desk", desk.profile.mer_no.to_string()),
                ("team", team.mer_no().to_string()),
            ],
        ));
    }
    // Review r9 R9-4: the team is the desk's own (its profile's server, database and
    // member), never another database of the same merchant (a staging team's, a copy).
    if !team.is_desks_team(desk) {
        return Err(CoreError::keyed(
            "team",
            format!(
                "this team connection is not the one desk {}'s profile names: its worker executes only its own team's requests",
                desk.profile.name
            ),
            "signerTeamDatabase",
            &[("profile", desk.profile.name.clone())],
        ));
    }
    // A desk that found the team's history rewritten when it connected sends nothing for
    // the team: the rules it would act on may have been rewritten with it.
    // Checked again each round: history cut after the desk connected is seen here.
    if let Some(why) = desk.journal().recheck_team_chain()? {
        return Err(CoreError::keyed(
            "audit",
            format!("this desk does not sign for the team: {why}"),
            "signerAudit",
            &[("why", why.to_string())],
        ));
    }
    let tables = team.tables();
    let Some(request) = team.claim_next(RETRY_AFTER_SECS)? else {
        return Ok(None);
    };
    let mut out = Executed {
        request: request.id,
        accepted: 0,
        rejected: 0,
        failed: 0,
        unknown: 0,
        done: false,
    };
    let mut open = Vec::new();
    // The rows as the database held them when it claimed the request: the only ones the
    // claim opens the desk's money path for (`executing_approved`).
    for row in request.rows().iter().cloned() {
        if row.state.is_final() {
            match row.state {
                RowState::Accepted => out.accepted += 1,
                RowState::Rejected => out.rejected += 1,
                _ => out.failed += 1,
            }
        } else {
            open.push(row);
        }
    }
    // The rows not final yet, a bounded number at once (the profile's payouts in flight,
    // never more than a second's worth under its rate limit, as a bulk run sends): each
    // goes its own way through the journal (its intent committed and claimed before its
    // request leaves, its audit row), and its outcome is recorded as soon as it is
    // known. The request stays claimed by this signer meanwhile.
    let at_once = rows_at_once(&desk.profile.sync);
    // Rows the balance does not reach are not sent (precheck.rs).
    let held = precheck::rows_beyond_balance(desk, &request, &open).await;
    let mut waiting = open.iter();
    let mut out_now = futures_util::stream::FuturesUnordered::new();
    // A row's outcome that cannot be written (the database gone) stops no row already
    // out: every one is waited for, and the first such error is said at the end (the
    // request, still claimed, is taken up again and its rows found in the journal).
    let mut unrecorded = None;
    // Rows recorded since the team's audit chain was last checked: the worker's calls
    // append their audit rows unchecked (`Desk::audit`), and the chain is checked (and
    // the keyring's anchor moved) once a group of rows instead.
    let mut unchecked = 0;
    let mut last_beat = std::time::Instant::now();
    loop {
        if beating && last_beat.elapsed() >= BEAT_EVERY {
            if let Err(e) = tables.worker_beat(false, false) {
                tracing::warn!(error = %e, "the worker's heartbeat was not written");
            }
            last_beat = std::time::Instant::now();
        }
        while unrecorded.is_none() && out_now.len() < at_once {
            let Some(row) = waiting.next() else { break };
            out_now.push(execute_numbered(
                desk,
                team,
                &request,
                row,
                held.get(&row.row_no),
            ));
        }
        let Some(first) = out_now.next().await else {
            break;
        };
        // With it, every other row already answered: their outcomes in one statement.
        let mut done = vec![first];
        while let Some(Some(more)) = out_now.next().now_or_never() {
            done.push(more);
        }
        if unrecorded.is_some() {
            continue;
        }
        let outcomes: Vec<paydesk_core::store::team::RowOutcome> = done
            .into_iter()
            .map(|(row, (state, trade_no, message))| (row.row_no, state, trade_no, message))
            .collect();
        if let Err(e) = tables.row_outcomes(request.id, &outcomes) {
            unrecorded = Some(e);
            continue;
        }
        for (_, state, _, _) in &outcomes {
            match state {
                RowState::Accepted => out.accepted += 1,
                RowState::Rejected => out.rejected += 1,
                RowState::Failed => out.failed += 1,
                RowState::Unknown | RowState::Waiting => out.unknown += 1,
            }
        }
        unchecked += outcomes.len();
        if unchecked >= at_once {
            unchecked = 0;
            recheck_after_rows(desk);
        }
    }
    if unchecked > 0 {
        recheck_after_rows(desk);
    }
    if let Some(e) = unrecorded {
        return Err(e);
    }
    out.done = out.unknown == 0;
    let outcome = format!(
        "{} accepted, {} rejected, {} failed, {} unknown",
        out.accepted, out.rejected, out.failed, out.unknown
    );
    tables.finish(request.id, out.done, &outcome)?;
    Ok(Some(out))
}

/// The team's audit chain checked again after a group of rows (their calls' audit rows
/// included) and the keyring's anchor moved to the head it verified: a problem found is
/// kept by the desk, and the next round sends nothing (`execute_next`).
fn recheck_after_rows(desk: &Desk) {
    if let Err(e) = desk.journal().recheck_team_chain() {
        tracing::warn!(error = %e, "the team's audit chain not checked again after a group of rows");
    }
}

/// [`execute_row`], with the row it executed.
async fn execute_numbered<'a>(
    desk: &Desk,
    team: &Team,
    request: &ClaimedRequest,
    row: &'a RequestRow,
    held: Option<&String>,
) -> (&'a RequestRow, (RowState, Option<String>, Option<String>)) {
    if let Some(why) = held {
        return (row, (RowState::Failed, None, Some(why.clone())));
    }
    (row, execute_row(desk, team, request, row).await)
}

/// Rows of a request a signer's worker sends at once: the profile's payouts in flight,
/// never more than its rate limit allows in a second (as a bulk run sends), at least 1.
fn rows_at_once(sync: &paydesk_core::profile::SyncSettings) -> usize {
    let n = match sync.rate_limit {
        0 => sync.payouts_in_flight,
        rate => sync.payouts_in_flight.min(rate),
    };
    n.clamp(1, paydesk_core::profile::MAX_PAYOUTS_IN_FLIGHT) as usize
}

// What the signer sends of a row is what its request was approved for, field by field:
// each form is rebuilt from the fields a maker may set, and what says where the answer
// goes or who asks (notifyUrl, returnUrl, ipAddress) is the signer's desk's own, never
// the form's (a maker writing SQL could put any there). A struct literal, not `..`, so a
// field added to a form is a compile error here until someone decides.

/// A payout row as approved: its number, amount and currency, and a CLABE payout's
/// account, or a card payout's beneficiary and address (its card number comes from its
/// seal, never from the form).
fn approved_payout(f: &PayoutForm) -> PayoutForm {
    let card = f.kind == PayoutKind::Card;
    let for_card = |v: &String| if card { v.clone() } else { String::new() };
    PayoutForm {
        kind: f.kind,
        mer_order_no: f.mer_order_no.clone(),
        amount: f.amount.clone(),
        currency: f.currency.clone(),
        clabe: if card { String::new() } else { f.clabe.clone() },
        card_no: String::new(),
        beneficiary: String::new(),
        first_name: for_card(&f.first_name),
        last_name: for_card(&f.last_name),
        country_code: for_card(&f.country_code),
        email: for_card(&f.email),
        mobile: for_card(&f.mobile),
        ip_address: String::new(),
        notify_url: String::new(),
        address_line: for_card(&f.address_line),
        address_line2: for_card(&f.address_line2),
        city: for_card(&f.city),
        state: for_card(&f.state),
        post_code: for_card(&f.post_code),
        beneficiary_type: for_card(&f.beneficiary_type),
        purpose: f.purpose.clone(),
    }
}

/// A payin row as approved: what the customer and the method need; no URL, no address.
fn approved_payin(f: PayinForm) -> PayinForm {
    PayinForm {
        method: f.method,
        mer_order_no: f.mer_order_no,
        amount: f.amount,
        currency: f.currency,
        email: f.email,
        user_id: f.user_id,
        return_url: String::new(),
        ip_address: String::new(),
        notify_url: String::new(),
        name: f.name,
        social_security_number: String::new(),
        first_name: f.first_name,
        last_name: f.last_name,
        user_agent: f.user_agent,
        browser: f.browser,
        products: f.products,
        os_type: f.os_type,
        terminal: f.terminal,
        payment_method_str: f.payment_method_str,
        product_name: f.product_name,
        vn_bank_id: f.vn_bank_id,
        purpose: f.purpose,
    }
}

/// A card move as approved (card moves carry no URL).
fn approved_card(f: CardForm) -> CardForm {
    CardForm {
        kind: f.kind,
        card: f.card,
        reference: f.reference,
        amount: f.amount,
        currency: f.currency,
        sub_mer_no: f.sub_mer_no,
        remark: f.remark,
        purpose: f.purpose,
    }
}

/// The kind of order a request's operation makes.
fn row_kind(operation: &str) -> paydesk_core::store::orders::OrderKind {
    use paydesk_core::store::orders::OrderKind;
    match operation {
        "payin" => OrderKind::Payin,
        "top_up" => OrderKind::TopUp,
        "withdraw" => OrderKind::Withdraw,
        _ => OrderKind::Payout,
    }
}

/// One row through the journal, by its request's operation: the order's number is the
/// row's, fixed when the request was made. What it came to, the trade number, and a
/// message (the gateway's refusal, a payin's payment link, why it is not known yet).
async fn execute_row(
    desk: &Desk,
    team: &Team,
    request: &ClaimedRequest,
    row: &RequestRow,
) -> (RowState, Option<String>, Option<String>) {
    let operation = request.operation.as_str();
    let mismatch = || {
        (
            RowState::Failed,
            None,
            Some(
                "the row's form does not send what was approved (its number, amount, currency or beneficiary differ): not sent"
                    .to_string(),
            ),
        )
    };
    let unreadable = |e: serde_json::Error| {
        (
            RowState::Failed,
            None,
            Some(format!("the request's row cannot be read: {e}")),
        )
    };
    let filler = Filler {
        mer_no: desk.profile.mer_no,
        notify_url: "https://signer.invalid/notify",
        requester_ip: &desk.conventions().requester_ip,
    };
    let form = row.form.clone();
    // The refusals the gateway gave within this row's scopes, as the desk recorded them.
    let mut seen: paydesk_core::team_member::Refusals;
    let sent = match operation {
        "payout" => match serde_json::from_value::<PayoutForm>(form) {
            Err(e) => return unreadable(e),
            Ok(f) => {
                let mut f = approved_payout(&f);
                // A payee of the team's book: its seal opened and checked (`paydesk_core::team_member::pay`).
                let payee = match pay::payee_to_send(desk, team, request, &row.form, f.kind) {
                    Ok(p) => p,
                    // Sent before under its number (a request taken up again): never
                    // refused now, its journal entry says what it came to.
                    Err(why) => {
                        return match desk
                            .journal()
                            .entry_numbered(&row.mer_order_no, row_kind(operation))
                        {
                            Ok(Some(entry)) => journaled_outcome(desk, &entry, &why).await,
                            _ => (RowState::Failed, None, Some(why)),
                        };
                    }
                };
                if let Some((_, account)) = &payee {
                    if !f.clabe.is_empty() || row.form.get(SEALED_CARD_NO).is_some() {
                        return mismatch();
                    }
                    match f.kind {
                        PayoutKind::Clabe => f.clabe = account.clone(),
                        PayoutKind::Card => f.card_no = account.clone(),
                    }
                } else if f.kind == PayoutKind::Card {
                    // A card payout's number, sealed to the signers by the maker's desk.
                    let Some(sealed) = row
                        .form
                        .get(SEALED_CARD_NO)
                        .and_then(serde_json::Value::as_str)
                    else {
                        return mismatch();
                    };
                    match paydesk_core::team_member::unseal_for_team(desk, request, CARD_NO, sealed)
                    {
                        Ok(card_no) => f.card_no = card_no,
                        Err(e) => {
                            return (
                                RowState::Failed,
                                None,
                                Some(format!(
                                    "the sealed card number cannot be opened with this signer's merchant key ({e}); nothing was sent"
                                )),
                            );
                        }
                    }
                }
                let preview = f.build(&filler).map(|op| op.preview());
                let named = |p: &paydesk_core::forms::PayoutPreview| match &payee {
                    Some((payee, _)) => {
                        pay::payee_beneficiary(&payee.nickname, &beneficiary(p, &f))
                    }
                    None => beneficiary(p, &f),
                };
                let same = preview.as_ref().is_ok_and(|p| {
                    same_as_approved(&f.amount, &f.currency, &named(p), row, request)
                });
                // A card row made before its holder was named to approvers: only what was
                // already sent under its number goes on (looked up, never sent again).
                let sent_before = || {
                    f.kind == PayoutKind::Card
                        && preview.as_ref().is_ok_and(|p| {
                            same_as_approved(
                                &f.amount,
                                &f.currency,
                                &legacy_card_beneficiary(p),
                                row,
                                request,
                            )
                        })
                        && desk
                            .journal()
                            .entry_by_number(&row.mer_order_no)
                            .is_ok_and(|e| e.is_some())
                };
                if f.mer_order_no != row.mer_order_no || !(same || sent_before()) {
                    return mismatch();
                }
                let (sent, refused) =
                    executing_approved(request, row, desk.money().payout(&f)).await;
                seen = refused;
                // Review r6 R6-4: the same money to the same account as another row of
                // this very request (two invoices of one supplier) is what its approvers
                // approved, row by row: it goes as a deliberate second payout, whichever
                // row happened to be journaled first, never failed for its sibling.
                match &sent {
                    Err(CoreError::Duplicate {
                        earlier_mer_order_no,
                        ..
                    }) if team.rows(request.id).is_ok_and(|rows| {
                        rows.iter().any(|r| {
                            r.row_no != row.row_no && r.mer_order_no == *earlier_mer_order_no
                        })
                    }) =>
                    {
                        desk.journal().allow_duplicate_once(&row.mer_order_no);
                        let (again, refused) =
                            executing_approved(request, row, desk.money().payout(&f)).await;
                        seen = seen.and(refused);
                        // Still refused before anything was written (its sibling's
                        // outcome not known yet): taken up again later, never failed.
                        if let Err(e) = &again
                            && desk
                                .journal()
                                .entry_numbered(&row.mer_order_no, row_kind(operation))
                                .is_ok_and(|entry| entry.is_none())
                        {
                            return (
                                RowState::Unknown,
                                None,
                                Some(format!(
                                    "waits for its sibling row {earlier_mer_order_no} of this request: {e}"
                                )),
                            );
                        }
                        again
                    }
                    _ => sent,
                }
            }
        },
        "payin" => match serde_json::from_value::<PayinForm>(form) {
            Err(e) => return unreadable(e),
            Ok(f) => {
                let mut f = approved_payin(f);
                // The payer's tax id, sealed to the signers by the maker's desk.
                if let Some(sealed) = row
                    .form
                    .get(SEALED_TAX_ID)
                    .and_then(serde_json::Value::as_str)
                {
                    match paydesk_core::team_member::unseal_for_team(desk, request, TAX_ID, sealed)
                    {
                        Ok(tax_id) => f.social_security_number = tax_id,
                        Err(e) => {
                            return (
                                RowState::Failed,
                                None,
                                Some(format!(
                                    "the payer's sealed tax id cannot be opened with this signer's merchant key ({e}); nothing was sent"
                                )),
                            );
                        }
                    }
                }
                let same =
                    same_as_approved(&f.amount, &f.currency, &payin_beneficiary(&f), row, request);
                if f.mer_order_no != row.mer_order_no || !same {
                    return mismatch();
                }
                let (sent, refused) =
                    executing_approved(request, row, desk.money().payin(&f)).await;
                seen = refused;
                sent
            }
        },
        "top_up" | "withdraw" => match serde_json::from_value::<CardForm>(form) {
            Err(e) => return unreadable(e),
            Ok(f) => {
                let f = approved_card(f);
                let (op, named) = card_beneficiary(&f);
                let same = same_as_approved(&f.amount, &f.currency, &named, row, request);
                if f.reference != row.mer_order_no || op != operation || !same {
                    return mismatch();
                }
                let (sent, refused) = executing_approved(request, row, desk.money().card(&f)).await;
                seen = refused;
                sent
            }
        },
        other => {
            return (
                RowState::Failed,
                None,
                Some(format!("this signer does not know the operation {other:?}")),
            );
        }
    };

    match sent {
        Ok(r) => match r.entry.status {
            Status::Accepted => (
                RowState::Accepted,
                r.entry.trade_no.clone().or(r.trade_no.clone()),
                r.pay_url.map(|u| format!("payment link: {u}")),
            ),
            // Refused by the gateway in this very call: the desk's own finish wrote it.
            Status::Rejected if seen.saw(&r.entry) => {
                (RowState::Rejected, None, Some(refusal_of(&r.entry)))
            }
            // Refused in the journal, but not by an answer this call saw (a row taken up
            // again, or marked so by hand while it was out: review r8 R8-8): looked up,
            // never final by itself.
            Status::Rejected => refused_outcome(desk, &r.entry).await,
            Status::Pending | Status::Sending | Status::Unknown => {
                (RowState::Unknown, None, r.entry.message.clone())
            }
        },
        Err(e) => match desk
            .journal()
            .entry_numbered(&row.mer_order_no, row_kind(operation))
        {
            // Refused before anything was written: the row cannot go as approved.
            Ok(None)
                if matches!(
                    e,
                    CoreError::Validation { .. } | CoreError::Duplicate { .. }
                ) =>
            {
                (RowState::Failed, None, Some(e.to_string()))
            }
            // Review r6 R6-6: an entry proved never sent (`pending`, e.g. a signer killed
            // before sending it, its lookups finding nothing) that a rule refuses now (the
            // day's limit, the per-payout limit, the balance): the approved row is refused
            // for good, naming the rule, never taken up and sent by itself another day.
            Ok(Some(entry))
                if entry.status == Status::Pending && matches!(e, CoreError::Validation { .. }) =>
            {
                (
                    RowState::Failed,
                    None,
                    Some(format!("refused before sending, not sent: {e}")),
                )
            }
            // The row's journal entry exists (made by this signer or another, perhaps
            // under an intent key of before): what it says is the row's outcome, and
            // anything not settled is unknown, given back and looked up, never final.
            Ok(Some(entry)) if entry.status == Status::Accepted => {
                (RowState::Accepted, entry.trade_no.clone(), None)
            }
            // Refused by the gateway in this very call: the desk's own finish wrote the
            // entry's refusal with the gateway's code.
            Ok(Some(entry)) if entry.status == Status::Rejected && seen.saw(&entry) => {
                (RowState::Rejected, None, Some(refusal_of(&entry)))
            }
            // Refused in the journal, but not by an answer this call saw (review r8 R8-8:
            // marked so by hand while it was out, say): looked up, never final by itself.
            Ok(Some(entry)) if entry.status == Status::Rejected => {
                refused_outcome(desk, &entry).await
            }
            _ => (RowState::Unknown, None, Some(e.to_string())),
        },
    }
}

/// A row's outcome as its journal entry says it, when the row was sent before and the
/// worker cannot send it again now (`why`): settled as the entry is (a refusal only as
/// [`refused_outcome`] proves it), unknown (given back, looked up) while it is not.
async fn journaled_outcome(
    desk: &Desk,
    entry: &paydesk_core::journal::Entry,
    why: &str,
) -> (RowState, Option<String>, Option<String>) {
    match entry.status {
        Status::Accepted => (RowState::Accepted, entry.trade_no.clone(), None),
        Status::Rejected => refused_outcome(desk, entry).await,
        _ => (
            RowState::Unknown,
            None,
            Some(format!(
                "sent before under this number, outcome not known yet (looked up); not sent again: {why}"
            )),
        ),
    }
}

/// The gateway's refusal as a row's message: its code and message.
fn refusal_of(entry: &paydesk_core::journal::Entry) -> String {
    [entry.code.clone(), entry.message.clone()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A row whose journal entry says refused, when the worker did not see the gateway refuse
/// it in this call (review r8 R8-8): a member can mark an entry `rejected` by hand while
/// its request is out, and a row recorded refused is final (its maker may request it
/// again under a new number, and the money could go twice). So the refusal is the
/// gateway's or a person's to prove ([`paydesk_core::desk::Journal::recheck_refused`]):
/// the row is accepted when the gateway has the order, refused when the gateway lists it
/// failed or closed or the team database's owner voided the entry, and unknown (given
/// back, looked up again with backoff, never sent again) otherwise: what the entry's
/// columns say (attempts, code, resolution: a signer may write them all) never makes it
/// final (review r9 R9-1, R9-2, R9-6, R9-7).
async fn refused_outcome(
    desk: &Desk,
    entry: &paydesk_core::journal::Entry,
) -> (RowState, Option<String>, Option<String>) {
    use paydesk_core::desk::Rechecked;
    let unproven = |why: String| {
        (
            RowState::Unknown,
            None,
            Some(format!(
                "the journal says refused ({}), but the gateway did not refuse it in this worker's call and {why}",
                refusal_of(entry)
            )),
        )
    };
    match desk.journal().recheck_refused(entry).await {
        Ok((now, Rechecked::Accepted)) => (RowState::Accepted, now.trade_no.clone(), None),
        Ok((now, Rechecked::Refused(why))) => (
            RowState::Rejected,
            None,
            Some(format!("{} ({why})", refusal_of(&now))),
        ),
        Ok((_, Rechecked::Unproven(why))) => unproven(format!("nothing proves it: {why}")),
        Err(e) => unproven(format!(
            "its lookup failed ({e}); looked up again later, never sent again"
        )),
    }
}

/// What the signer's worker keeps up besides executing requests: the team's read model
/// synced from the gateway (the last `days` days; windows a sync completed are skipped)
/// and a balance snapshot of every currency, every `every`, so that every member's desk
/// shows orders and balances without the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Upkeep {
    pub every: Duration,
    pub days: i64,
}

/// One round of upkeep: a sync, then the balances. Says what it did in one line.
pub async fn upkeep(desk: &Desk, days: i64) -> CoreResult<String> {
    let cancel = Arc::new(AtomicBool::new(false));
    // Sync, then the balances (the rule every sync keeps: `Orders::sync_then_snapshot`);
    // the worker's desk holds the key, so they are asked.
    let synced = desk
        .orders()
        .sync_then_snapshot(&desk.orders().sync_options(days), cancel, |_| {})
        .await?;
    let report = synced.report;
    let balances = synced.balances.transpose()?.unwrap_or_default();
    let taken = balances.iter().filter(|b| b.snapshot.is_some()).count();
    let failed: Vec<String> = balances
        .iter()
        .filter_map(|b| b.error.as_ref().map(|e| format!("{}: {e}", b.currency)))
        .collect();
    let mut line = format!(
        "synced {} orders ({} changed) in {:.1} s; balances of {taken} currencies",
        report.progress.orders, report.changed, report.seconds
    );
    if !failed.is_empty() {
        line.push_str(&format!("; not read: {}", failed.join(", ")));
    }
    Ok(line)
}

/// A thread calling `paydesk.end_stalls` every 3 s on a link, until dropped.
struct StallWatch {
    stop: Arc<AtomicBool>,
}

impl StallWatch {
    fn start(link: Arc<dyn TeamDb>) -> StallWatch {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let spawned = std::thread::Builder::new()
            .name("paydesk-stall-watch".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    for _ in 0..30 {
                        if flag.load(Ordering::Relaxed) {
                            return;
                        }
                        std::thread::sleep(Duration::from_millis(100));
                    }
                    if link.is_closed() {
                        return;
                    }
                    if let Err(e) = link.tables().end_stalls() {
                        tracing::warn!(error = %e, "stalled members' sessions not checked");
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "the stall watch did not start");
        }
        StallWatch { stop }
    }
}

impl Drop for StallWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// What the signer's loop reports as it goes.
#[derive(Debug)]
pub enum WorkEvent<'a> {
    /// A request executed (or given back with rows still unknown).
    Executed(&'a Executed),
    /// A round of upkeep, in one line.
    Upkeep(&'a str),
    /// A round failed; the loop goes on.
    Error(&'a CoreError),
}

/// The signer's loop: executes approved requests as they come (woken by the
/// database's notifications, and every `poll` at the latest), and between them keeps
/// the read model and the balances up (`keep`), until `stop` is set. Errors of one
/// round are reported and the loop goes on.
pub async fn work(
    desk: &Desk,
    team: &Team,
    stop: &AtomicBool,
    poll: Duration,
    keep: Option<Upkeep>,
    mut on_event: impl FnMut(WorkEvent<'_>),
) -> CoreResult<()> {
    team.link().listen("paydesk_requests")?;
    // While the loop runs, the desk's second connection ends every 3 s the idle
    // sessions of members that hold what this worker's own steps have waited 5 s for
    // (its waiting connection cannot ask; `paydesk.end_stalls` lets a signer's other
    // session ask for it).
    let _watch = desk.team_cache_link().cloned().map(StallWatch::start);
    let mut last_upkeep: Option<std::time::Instant> = None;
    // The worker's heartbeat (schema 0029): every member's alerts read it.
    let mut last_beat: Option<std::time::Instant> = None;
    while !stop.load(Ordering::Relaxed) {
        if last_beat.is_none_or(|t| t.elapsed() >= BEAT_EVERY) {
            if let Err(e) = team.tables().worker_beat(last_beat.is_none(), false) {
                tracing::warn!(error = %e, "the worker's heartbeat was not written");
            }
            last_beat = Some(std::time::Instant::now());
        }
        // A member's transaction holding what others wait for, too long, is ended.
        if let Err(e) = team.tables().end_stalls() {
            tracing::warn!(error = %e, "stalled members' sessions not checked");
        }
        match execute_next_beating(desk, team, true).await {
            Ok(Some(done)) => {
                on_event(WorkEvent::Executed(&done));
                continue;
            }
            Ok(None) => {}
            Err(e) => on_event(WorkEvent::Error(&e)),
        }
        if let Some(k) = keep
            && last_upkeep.is_none_or(|t| t.elapsed() >= k.every)
        {
            last_upkeep = Some(std::time::Instant::now());
            match upkeep(desk, k.days).await {
                Ok(line) => on_event(WorkEvent::Upkeep(&line)),
                Err(e) => on_event(WorkEvent::Error(&e)),
            }
            // Requests approved meanwhile go first.
            continue;
        }
        if team.link().is_closed() {
            return Err(CoreError::NotSent {
                message: "the connection to the team's database was lost".into(),
            });
        }
        // Wait for a notification (on a blocking thread: the link's wait blocks).
        let link = team.link().clone();
        let step = poll.min(Duration::from_millis(500));
        let mut waited = Duration::ZERO;
        while waited < poll && !stop.load(Ordering::Relaxed) {
            let l = link.clone();
            let got = tokio::task::spawn_blocking(move || l.wait_notice(step))
                .await
                .map_err(|e| CoreError::internal(e.to_string()))?;
            if got.is_some() {
                break;
            }
            waited += step;
        }
    }
    // Stopped on purpose: the alerts say so only when approved requests wait.
    if let Err(e) = team.tables().worker_beat(false, true) {
        tracing::warn!(error = %e, "the worker's stop was not written");
    }
    Ok(())
}

/// How often the signer's worker writes its heartbeat (at most; between rounds, and
/// between the rows of a long request).
pub const BEAT_EVERY: Duration = Duration::from_secs(10);

/// Every signer's worker's last heartbeat, the latest first (schema 0029).
pub fn worker_beats(team: &Team) -> CoreResult<Vec<paydesk_core::store::team::WorkerBeat>> {
    team.tables().worker_beats()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(id: i64, operation: &str, currency: &str, above: &str, approvals: i32) -> Rule {
        Rule {
            id,
            operation: operation.into(),
            currency: currency.into(),
            above: above.into(),
            approvals,
            created_by: "ana".into(),
        }
    }

    fn request(total: &str, needed: i32) -> Request {
        Request {
            id: 1,
            operation: "payout".into(),
            currency: "MXN".into(),
            total: total.into(),
            row_count: 1,
            summary: "s".into(),
            source: None,
            maker: "mia".into(),
            approvals_needed: needed,
            decisions: vec![],
            state: RequestState::Waiting,
            created_at: 0,
            decided_at: None,
            claimed_by: None,
            finished_at: None,
            outcome: None,
        }
    }

    #[test]
    fn the_rule_that_applies_is_the_one_that_asks_the_most() {
        let rules = [
            rule(1, "payout", "MXN", "10000", 1),
            rule(2, "payout", "MXN", "100000", 2),
            rule(3, "*", "*", "50000", 1),
            rule(4, "payin", "MXN", "0", 3),
            rule(5, "payout", "USD", "0", 3),
        ];
        let id = |total: &str, needed: i32| {
            Team::rule_for(&rules, &request(total, needed)).map(|r| r.id)
        };
        assert_eq!(id("5000", 0), None, "under every threshold");
        assert_eq!(id("10000", 0), None, "a threshold is 'above', not 'from'");
        assert_eq!(id("10000.01", 1), Some(1));
        // 1 and 3 both ask one approver: the higher threshold says why.
        assert_eq!(id("60000", 1), Some(3));
        assert_eq!(id("100000.5", 2), Some(2));
        // Made when the rules asked something else: no current rule explains it.
        assert_eq!(id("100000.5", 1), None);
    }
}

/// Review r8 (R8-5, R8-8, L4) against a real PostgreSQL server (`paydesk-testpg`) and the
/// sandbox gateway on loopback: a claim pays only its own rows, each as approved; a row
/// whose journal entry was marked refused by hand is settled by what the gateway says.
/// Here, not in `tests/team/`, because the claimed row's scope is opened through the
/// worker's one door, which only this file names (`tests/layers.rs`).
#[cfg(test)]
mod review_r8_claim {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use paydesk_core::{Endpoint, Home, MemoryStore, Profile, Secrets};
    use paydesk_sandbox::{Running, Sandbox, SandboxConfig, demo_merchant};
    // A scratch server for the test (not a database driver; named through an alias, as
    // `tests/layers.rs` reads this file for driver paths).
    use paydesk_testpg as scratch;
    use scratch::TestPg;

    const MER: u64 = 10001;
    const ORIGIN: &str = "https://r8.local";
    const TOKEN: &str = "r8-token";
    const DB: &str = "team";
    const PROFILE: &str = "signer";
    const PASSWORD: &str = "correct-horse-battery";
    const CLABE: &str = "002010077777777771";

    fn cfg(pg: &TestPg, user: &str) -> TeamConfig {
        TeamConfig {
            host: pg.host().into(),
            port: pg.port(),
            database: DB.into(),
            user: user.into(),
            ca_file: String::new(),
            cert_file: String::new(),
            key_file: String::new(),
        }
    }

    fn member(pg: &TestPg, user: &str) -> Team {
        Team::connect(&cfg(pg, user), PASSWORD).unwrap()
    }

    /// A team (admin alice, maker mark, approver ann, signer sam; every MXN payout needs
    /// one approval), the sandbox with the merchant, and signer sam's desk on it.
    struct World {
        pg: TestPg,
        running: Running,
        desk: Desk,
        _dir: tempfile::TempDir,
    }

    async fn world() -> World {
        let pg = TestPg::start().unwrap();
        pg.create_database(DB).unwrap();
        // The team's schema and its admin, by the database's owner (through the engine's
        // facade: this crate names no database driver).
        let owner = cfg(&pg, pg.owner());
        paydesk_core::store::team::init(&owner, pg.owner_password(), MER as i64).unwrap();
        Team::connect(&owner, pg.owner_password())
            .unwrap()
            .add_member("alice", TeamRole::Admin, PASSWORD)
            .unwrap();
        let admin = member(&pg, "alice");
        for (name, role) in [
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("sam", TeamRole::Signer),
        ] {
            admin.add_member(name, role, PASSWORD).unwrap();
        }
        admin
            .set_rule(&RuleInput {
                operation: "payout".into(),
                currency: "MXN".into(),
                above: "0".into(),
                approvals: 1,
            })
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        let secrets = Secrets::new(Arc::new(MemoryStore::default()));
        let info = secrets.generate_merchant_key(PROFILE, 2048).unwrap();
        let public = paydesk_gateway::PublicKey::from_text(&info.public_pem).unwrap();
        let sb = Sandbox::new(SandboxConfig::default()).unwrap();
        sb.add_merchant(demo_merchant(MER, &public, ORIGIN, TOKEN));
        let running = sb.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
        secrets
            .set_gateway_key(PROFILE, &running.sandbox.gateway_public_key().to_pem())
            .unwrap();
        secrets.set_bearer(PROFILE, TOKEN).unwrap();
        secrets.set_team_password(PROFILE, PASSWORD).unwrap();
        home.put(Profile {
            name: PROFILE.into(),
            base_url: Some(running.base_url().to_string()),
            mer_no: MER,
            origin: ORIGIN.into(),
            lang: "en".into(),
            order_type: None,
            operator: "r8".into(),
            notify_url: "http://127.0.0.1:9/notify".into(),
            notify_at_desk: false,
            proxy: String::new(),
            safety: Default::default(),
            sync: Default::default(),
            team: Some(cfg(&pg, "sam")),
        })
        .unwrap();
        let desk = Desk::open(&home, secrets, PROFILE, Endpoint::Profile).unwrap();
        World {
            pg,
            running,
            desk,
            _dir: dir,
        }
    }

    fn clabe_payout(no: &str, amount: &str, currency: &str) -> PayoutForm {
        let mut form = PayoutForm::new(PayoutKind::Clabe, no, amount, currency);
        form.clabe = CLABE.into();
        form
    }

    /// Request `no` of `amount` MXN made by mark and approved by ann: its id.
    fn approved(pg: &TestPg, no: &str, amount: &str) -> i64 {
        let id = member(pg, "mark")
            .request_payout(&clabe_payout(no, amount, "MXN"))
            .unwrap()
            .id;
        member(pg, "ann").approve(id).unwrap();
        id
    }

    /// The journal's entries, counted with plain SQL.
    fn journaled(pg: &TestPg) -> i64 {
        pg.psql_super(DB, "SELECT count(*) FROM paydesk.journal")
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }

    /// Payout calls the sandbox received.
    fn payouts_at_gateway(running: &Running) -> u64 {
        running
            .sandbox
            .traffic()
            .by_path
            .iter()
            .filter(|(path, _)| path.contains("payout"))
            .map(|(_, n)| n)
            .sum()
    }

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
            .block_on(f)
    }

    /// Refused by the claimed row's rule, naming it.
    fn refused<T: std::fmt::Debug>(r: CoreResult<T>, what: &str) {
        match r {
            Err(CoreError::Validation { field, rule }) => {
                assert_eq!(field, "team", "{what}: {}", rule.text);
                assert_eq!(rule.key.as_deref(), Some("teamApprovedRow"), "{what}");
                assert!(rule.text.contains("nothing journaled or sent"), "{what}");
            }
            other => panic!("{what}: not refused by the claimed row's rule: {other:?}"),
        }
    }

    /// R8-5 and L4: within a real claim's scope for its row, an order of another amount,
    /// another number or to another account is refused by the desk (another currency is compared by the same
    /// `same_money`, tested below; a CLABE payout in another currency is refused by its
    /// form first), naming the rule, before
    /// anything is journaled or sent, as is the scope of a row the claim does not hold;
    /// the row as approved still pays.
    #[test]
    fn a_claim_pays_only_its_own_row_as_approved() {
        block_on(async {
            let w = world().await;
            let id = approved(&w.pg, "T-R8-5", "100");
            let sam = Team::of(&w.desk).unwrap().unwrap();
            let claim = sam.claim_next(30).unwrap().unwrap();
            assert_eq!(claim.id, id);
            assert_eq!(claim.signer(), "sam");
            let row = claim.rows()[0].clone();
            assert_eq!(row.mer_order_no, "T-R8-5");
            let (journal_before, gateway_before) =
                (journaled(&w.pg), payouts_at_gateway(&w.running));
            for (what, form) in [
                ("another amount", clabe_payout("T-R8-5", "1000000", "MXN")),
                ("another number", clabe_payout("T-R8-OTHER", "100", "MXN")),
                ("another account", {
                    let mut f = clabe_payout("T-R8-5", "100", "MXN");
                    f.clabe = "012180001234567899".into();
                    f
                }),
            ] {
                refused(
                    executing_approved(&claim, &row, w.desk.money().payout(&form))
                        .await
                        .0,
                    what,
                );
            }
            // A row the claim does not hold (its number is another request's to be).
            let mut foreign = row.clone();
            foreign.row_no = 2;
            refused(
                executing_approved(
                    &claim,
                    &foreign,
                    w.desk.money().payout(&clabe_payout("T-R8-5", "100", "MXN")),
                )
                .await
                .0,
                "a row not of the claim",
            );
            assert_eq!(journaled(&w.pg), journal_before, "nothing journaled");
            assert_eq!(
                payouts_at_gateway(&w.running),
                gateway_before,
                "nothing reached the gateway"
            );
            assert_eq!(w.running.sandbox.orders_numbered(MER, "T-R8-5"), 0);
            assert_eq!(w.running.sandbox.orders_numbered(MER, "T-R8-OTHER"), 0);
            // The row as approved pays, once.
            let paid = executing_approved(
                &claim,
                &row,
                w.desk
                    .money()
                    .payout(&clabe_payout("T-R8-5", "100.00", "mxn")),
            )
            .await
            .0
            .unwrap();
            assert_eq!(paid.entry.status, Status::Accepted);
            assert_eq!(journaled(&w.pg), journal_before + 1);
            assert_eq!(w.running.sandbox.orders_numbered(MER, "T-R8-5"), 1);
        });
    }

    /// The one comparison of money the worker and the desk make: equal decimals, the
    /// currency's case aside; another amount or currency, or nothing, is not the row's.
    #[test]
    fn the_money_of_a_row_is_compared_once_and_whole() {
        use paydesk_core::team_member::same_money;
        assert!(same_money("100.00", "mxn", "100.000000", "MXN"));
        assert!(same_money(" 100 ", "MXN ", "100", "MXN"));
        assert!(!same_money("100.01", "MXN", "100", "MXN"));
        assert!(!same_money("100", "USD", "100", "MXN"));
        assert!(!same_money("100", "", "100", "MXN"));
        assert!(!same_money("", "MXN", "100", "MXN"));
        assert!(!same_money("abc", "MXN", "abc", "MXN"));
    }

    /// R8-8, the honest path: a payout the gateway refuses in the worker's own call (the
    /// whole balance asked, its fee not left: the gateway refuses) is a final Rejected
    /// row at once, with the gateway's code, as before; nothing made at the gateway.
    #[test]
    fn a_refusal_the_worker_saw_is_final() {
        block_on(async {
            let w = world().await;
            let id = approved(&w.pg, "T-R8-8R", "6000000");
            let sam = Team::of(&w.desk).unwrap().unwrap();
            let done = execute_next(&w.desk, &sam).await.unwrap().unwrap();
            let row = &sam.rows(id).unwrap()[0];
            assert_eq!(
                (done.request, done.rejected, done.unknown),
                (id, 1, 0),
                "{done:?} {row:?}"
            );
            assert_eq!(row.state, RowState::Rejected, "{row:?}");
            assert_eq!(w.running.sandbox.orders_numbered(MER, "T-R8-8R"), 0);
        });
    }

    /// R8-8: a payout the worker sent (the gateway has it) whose journal entry was
    /// `sending` when its worker died, then marked `rejected` by hand with plain SQL: the
    /// worker that takes the request up again looks the order up, and the row ends as
    /// the gateway says (accepted, with its trade number), never refused (final, and
    /// requestable again by its maker).
    #[test]
    fn a_refusal_written_by_hand_is_the_gateways_to_prove() {
        block_on(async {
            let w = world().await;
            let id = approved(&w.pg, "T-R8-8", "100");
            let sam = Team::of(&w.desk).unwrap().unwrap();
            let done = execute_next(&w.desk, &sam).await.unwrap().unwrap();
            assert_eq!((done.request, done.accepted), (id, 1));
            assert_eq!(w.running.sandbox.orders_numbered(MER, "T-R8-8"), 1);
            let trade_no = sam.rows(id).unwrap()[0].trade_no.clone().unwrap();
            // As if the worker had died with the order out: the entry `sending`, the row
            // waiting, the request claimed by no live worker (the database's superuser,
            // the schema's triggers off for this session).
            w.pg.psql_super(
                DB,
                &format!(
                    "SET session_replication_role = replica;
                     UPDATE paydesk.journal SET status = 'sending', trade_no = NULL, code = NULL, message = NULL
                      WHERE mer_order_no = 'T-R8-8';
                     UPDATE paydesk.request_rows SET status = 'waiting', trade_no = NULL, message = NULL
                      WHERE request_id = {id};
                     UPDATE paydesk.requests SET state = 'approved', claimed_by = NULL, claimed_pid = NULL,
                            claimed_at = NULL, finished_at = NULL, outcome = NULL
                      WHERE id = {id};"
                ),
            )
            .unwrap();
            // The hand flip: the entry in flight marked refused, with a code and a message.
            w.pg.psql_super(
                DB,
                "SET session_replication_role = replica;
                 UPDATE paydesk.journal SET status = 'rejected', code = 'E_X', message = 'refused'
                  WHERE mer_order_no = 'T-R8-8' AND status = 'sending'",
            )
            .unwrap();
            let again = execute_next(&w.desk, &sam).await.unwrap().unwrap();
            assert_eq!(again.request, id);
            assert_eq!(
                (again.accepted, again.rejected, again.unknown),
                (1, 0, 0),
                "{again:?}"
            );
            let row = &sam.rows(id).unwrap()[0];
            assert_eq!(row.state, RowState::Accepted, "{row:?}");
            assert_eq!(row.trade_no.as_deref(), Some(trade_no.as_str()));
            let status =
                w.pg.psql_super(
                    DB,
                    "SELECT status FROM paydesk.journal WHERE mer_order_no = 'T-R8-8'",
                )
                .unwrap();
            assert_eq!(status.trim(), "accepted");
            // Paid once: nothing went again.
            assert_eq!(w.running.sandbox.orders_numbered(MER, "T-R8-8"), 1);
        });
    }

    /// Review r9 R9-5: a row already final (here failed, as a row held beyond the balance
    /// or over a limit is, with nothing journaled) opens nothing: not from a later claim
    /// of its request, which holds the row as final (the desk refuses it, naming the
    /// rule), and not from the claim taken before it failed (the team's database refuses
    /// its payout journaled under a row no longer open, schema 0040). Nothing is
    /// journaled or sent either way.
    #[test]
    fn a_row_already_final_is_paid_by_no_claim() {
        block_on(async {
            let w = world().await;
            let id = approved(&w.pg, "T-R9-5", "100");
            let sam = Team::of(&w.desk).unwrap().unwrap();
            let first = sam.claim_next(30).unwrap().unwrap();
            let open_row = first.rows()[0].clone();
            assert_eq!((first.id, open_row.state), (id, RowState::Waiting));
            // The worker's own outcome for it, and the request given back.
            sam.tables()
                .row_outcome(
                    id,
                    1,
                    RowState::Failed,
                    None,
                    Some("held: beyond the balance"),
                )
                .unwrap();
            sam.tables()
                .finish(id, false, "0 accepted, 1 failed")
                .unwrap();
            let again = sam.claim_next(0).unwrap().unwrap();
            let final_row = again.rows()[0].clone();
            assert_eq!((again.id, final_row.state), (id, RowState::Failed));
            let (journal_before, gateway_before) =
                (journaled(&w.pg), payouts_at_gateway(&w.running));
            let form = clabe_payout("T-R9-5", "100", "MXN");
            refused(
                executing_approved(&again, &final_row, w.desk.money().payout(&form))
                    .await
                    .0,
                "a row final when its request was claimed",
            );
            match executing_approved(&first, &open_row, w.desk.money().payout(&form))
                .await
                .0
            {
                Err(e) => assert!(
                    e.to_string().contains("not a row of an approved request"),
                    "the database's refusal: {e}"
                ),
                Ok(r) => panic!("a row failed since its claim was paid: {r:?}"),
            }
            assert_eq!(journaled(&w.pg), journal_before, "nothing journaled");
            assert_eq!(payouts_at_gateway(&w.running), gateway_before);
            assert_eq!(w.running.sandbox.orders_numbered(MER, "T-R9-5"), 0);
        });
    }

    /// Review r9 R9-3: within a CLABE row's scope, the row's number, amount and currency
    /// sent as a card payout (`v1.payout`, to any card), or as `v2.payout` to the row's
    /// CLABE with a card number besides, are refused by the desk, naming the rule, before
    /// anything is journaled or sent; the row as approved still pays.
    #[test]
    fn a_claim_sends_its_row_only_as_its_operation_to_its_account() {
        block_on(async {
            let w = world().await;
            let id = approved(&w.pg, "T-R9-3", "100");
            let sam = Team::of(&w.desk).unwrap().unwrap();
            let claim = sam.claim_next(30).unwrap().unwrap();
            assert_eq!(claim.id, id);
            let row = claim.rows()[0].clone();
            let (journal_before, gateway_before) =
                (journaled(&w.pg), payouts_at_gateway(&w.running));
            let card = PayoutForm {
                card_no: "4111111111111111".into(),
                first_name: "Ana".into(),
                last_name: "Lopez".into(),
                ..PayoutForm::new(PayoutKind::Card, "T-R9-3", "100", "MXN")
            };
            refused(
                executing_approved(&claim, &row, w.desk.money().payout(&card))
                    .await
                    .0,
                "a card payout under a CLABE row",
            );
            let filler = Filler {
                mer_no: MER,
                notify_url: "https://signer.invalid/notify",
                requester_ip: &w.desk.conventions().requester_ip,
            };
            let PayoutOp::Clabe(mut op) =
                clabe_payout("T-R9-3", "100", "MXN").build(&filler).unwrap()
            else {
                panic!("a CLABE form builds a v2 payout")
            };
            op.card_no = "4111111111111111".into();
            refused(
                executing_approved(&claim, &row, w.desk.money().payout_clabe(op))
                    .await
                    .0,
                "a v2 payout to the row's CLABE with a card number",
            );
            assert_eq!(journaled(&w.pg), journal_before, "nothing journaled");
            assert_eq!(payouts_at_gateway(&w.running), gateway_before);
            assert_eq!(w.running.sandbox.orders_numbered(MER, "T-R9-3"), 0);
            let paid = executing_approved(
                &claim,
                &row,
                w.desk.money().payout(&clabe_payout("T-R9-3", "100", "MXN")),
            )
            .await
            .0
            .unwrap();
            assert_eq!(paid.entry.status, Status::Accepted);
            assert_eq!(w.running.sandbox.orders_numbered(MER, "T-R9-3"), 1);
        });
    }

    /// Review r9 R9-4: a team of the same merchant on another database (a second scratch
    /// server here: a copy, a staging team, one of the caller's own), connected to with
    /// `Team::connect`, pays nothing through the real desk: its worker refuses it before
    /// claiming, and a claim taken there opens no scope of the desk (refused by the desk,
    /// naming the rule, before anything is journaled or sent). The desk's own team still
    /// pays, through a connection of its own (as the app's worker opens one).
    #[test]
    fn a_claim_on_another_database_pays_nothing_through_the_desk() {
        block_on(async {
            let w = world().await;
            let other = TestPg::start().unwrap();
            other.create_database(DB).unwrap();
            let owner = cfg(&other, other.owner());
            paydesk_core::store::team::init(&owner, other.owner_password(), MER as i64).unwrap();
            Team::connect(&owner, other.owner_password())
                .unwrap()
                .add_member("alice", TeamRole::Admin, PASSWORD)
                .unwrap();
            for (name, role) in [
                ("mark", TeamRole::Maker),
                ("ann", TeamRole::Approver),
                ("sam", TeamRole::Signer),
            ] {
                member(&other, "alice")
                    .add_member(name, role, PASSWORD)
                    .unwrap();
            }
            let made = member(&other, "mark")
                .request_payout(&clabe_payout("T-R9-4", "100", "MXN"))
                .unwrap();
            // Approved there (when its default asks an approval at all).
            let _ = member(&other, "ann").approve(made.id);
            let fake = member(&other, "sam");
            assert_eq!(fake.mer_no(), MER as i64);
            match execute_next(&w.desk, &fake).await {
                Err(CoreError::Validation { rule, .. }) => {
                    assert_eq!(
                        rule.key.as_deref(),
                        Some("signerTeamDatabase"),
                        "{}",
                        rule.text
                    )
                }
                other => panic!("another database's worker round: {other:?}"),
            }
            let claim = fake.claim_next(30).unwrap().unwrap();
            assert_eq!(claim.id, made.id);
            let row = claim.rows()[0].clone();
            refused(
                executing_approved(
                    &claim,
                    &row,
                    w.desk.money().payout(&clabe_payout("T-R9-4", "100", "MXN")),
                )
                .await
                .0,
                "a claim on another database",
            );
            assert_eq!(journaled(&w.pg), 0, "nothing journaled");
            assert_eq!(payouts_at_gateway(&w.running), 0);
            assert_eq!(w.running.sandbox.orders_numbered(MER, "T-R9-4"), 0);
            // The desk's own team, on a connection of its own to the profile's database.
            let id = approved(&w.pg, "T-R9-4B", "100");
            let own = member(&w.pg, "sam");
            assert!(own.is_desks_team(&w.desk));
            let done = execute_next(&w.desk, &own).await.unwrap().unwrap();
            assert_eq!((done.request, done.accepted), (id, 1), "{done:?}");
            assert_eq!(w.running.sandbox.orders_numbered(MER, "T-R9-4B"), 1);
        });
    }
}
