//! A team desk's member, as the desk itself needs it (issue 32): the member's connection
//! to the team's database ([`TeamMember`]), how a desk's store on it is opened
//! ([`open_store`]), the team's book of payees ([`TeamPayee`]), a maker's own payout
//! limits checked before a request is made ([`TeamMember::check_my_limit`]), and the
//! seal of card numbers, tax ids and payees' accounts to the signers ([`unseal`]).
//!
//! The team's workflow (requests, approvals, the admin's members and rules, and the
//! signer's worker that executes approved requests) is `paydesk-team`'s, which builds
//! on this module; the engine never depends on it. The desk uses this module on a team
//! profile for its own operations (its store, the Beneficiaries screen, a payout's
//! confirmation, the alerts); the only way into the desk's money path for the worker is
//! [`executing_approved`].
//!
//! What a role may do is decided by the database (roles, grants, row-level security,
//! the schema's triggers), not here: this module checks fields so a mistake gets a clear
//! error before it reaches the database, and passes the database's refusals on.

mod book;
mod open;
mod pay;
pub use book::TeamPayee;
pub use open::{Initialized, Links, check_password, init, member_password, open_store};
pub(crate) use pay::payee_of_row;
pub use pay::{
    PAYEE_ID, PAYEE_SHA256, kind_of, payee_beneficiary, payee_of_line, payee_to_send, seal_hash,
    stand_in,
};

use std::sync::Arc;

use rust_decimal::Decimal;
use sha2::Digest;

use crate::error::{CoreError, CoreResult};
use crate::store::team::{Member, RequestRow, TeamConfig, TeamDb, TeamRole, TeamStore};

/// An approved request the team's database claimed for this member, a signer
/// ([`TeamMember::claim_next`]), with its rows as the database held them when it was
/// claimed: the key to the desk's money path for the signer's worker, one row at a time
/// ([`executing_approved`]), and to the seals a maker's desk made to the signers
/// ([`unseal_for_team`], [`payee_to_send`]). Its fields are private, and only a claim in
/// the database, taken on a connection the engine opened itself, makes one (review r8
/// R8-4: a member made with [`TeamMember::on`] on a connection of the caller's own claims
/// nothing). What holds (review r9): a claim opens only a desk whose team profile names
/// the server, database and member it was claimed on (R9-4: a claim on another database
/// of the same merchant opens nothing), only the rows still open (waiting or unknown)
/// when it was claimed (R9-5), and each only as its operation to its account (R9-3). It
/// is a snapshot: the team's database, not the claim, refuses a payout journaled under a
/// row that is no longer open or no longer this login's to execute (schema 0039, 0040).
/// Code in the signer's process that holds the merchant key can still build a gateway
/// client of its own (review r7 R7-5): that is beyond what a claim guards.
///
/// A front end or the API cannot open the money path with a request number of its own:
///
/// ```compile_fail
/// async fn front_end() {
///     paydesk_core::team_member::executing_approved(0, 0, async {}).await;
/// }
/// ```
///
/// nor make a claim without the database:
///
/// ```compile_fail
/// fn front_end(r: paydesk_core::store::team::Request) {
///     let _ = paydesk_core::team_member::ClaimedRequest { request: r, signer: String::new(), rows: Vec::new() };
/// }
/// ```
///
/// nor a scope of a claim for a row it names itself (the scope is the claim's own row):
///
/// ```compile_fail
/// fn front_end() {
///     let _ = paydesk_core::desk::APPROVED_REQUEST;
/// }
/// ```
///
/// The signer's worker claims one, and sends each of its rows within it:
///
/// ```no_run
/// # async fn worker(team: &paydesk_core::team_member::TeamMember) -> paydesk_core::error::CoreResult<()> {
/// if let Some(claim) = team.claim_next(60)? {
///     for row in claim.rows() {
///         paydesk_core::team_member::executing_approved(&claim, row, async {}).await;
///     }
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct ClaimedRequest {
    request: crate::store::team::Request,
    signer: String,
    /// The team's merchant (a claim opens only a desk of that merchant).
    mer_no: i64,
    /// Where the connection that claimed it goes: a claim opens only a desk whose team
    /// profile names that server, database and member (review r9 R9-4).
    opened: Opened,
    /// The request's rows, forms included, read when it was claimed.
    rows: Vec<RequestRow>,
}

impl ClaimedRequest {
    /// The signer the database claimed the request for (this member).
    pub fn signer(&self) -> &str {
        &self.signer
    }

    /// The request's rows as the database held them when it was claimed: the only rows
    /// [`executing_approved`] opens the money path for.
    pub fn rows(&self) -> &[RequestRow] {
        &self.rows
    }
}

impl std::ops::Deref for ClaimedRequest {
    type Target = crate::store::team::Request;

    fn deref(&self) -> &Self::Target {
        &self.request
    }
}

/// Whether `amount` in `currency` is what a row was approved for (`approved_amount` of
/// the request's `approved_currency`): equal as decimals, the currency's case aside. The
/// one comparison of money the signer's worker makes before it builds a row's order and
/// the desk makes again when that order is sent ([`executing_approved`]).
pub fn same_money(
    amount: &str,
    currency: &str,
    approved_amount: &str,
    approved_currency: &str,
) -> bool {
    let dec = |s: &str| s.trim().parse::<Decimal>().ok();
    dec(amount).is_some()
        && dec(amount) == dec(approved_amount)
        && !currency.trim().is_empty()
        && currency
            .trim()
            .eq_ignore_ascii_case(approved_currency.trim())
}

/// The row of a team request a signer's worker is executing, for the duration of `fut`:
/// the desk's money operations called within it pass the team's rule that money moves
/// only as an approved request (`Desk::approved_if_team`), and only for what `row` was
/// approved for: the order's number, amount and currency (and a typed CLABE payout's
/// account) must be the row's as the database held them when `claim` was claimed (review
/// r8 R8-5), or the desk refuses it
/// before anything is journaled or sent. `row` picks the claim's row by its number; a row
/// that is not one of the claim's, or was already final (accepted, rejected, failed) when
/// the request was claimed, opens nothing (review r9 R9-5; the team's database refuses a
/// payout journaled under a row no longer open too, schema 0040). Only with a request the database
/// claimed for this signer ([`ClaimedRequest`]); for the worker of `paydesk-team`
/// (`tests/layers.rs` also checks no front end names it).
///
/// Returns `fut`'s output and the refusals the gateway gave within the scope, as this
/// desk recorded them ([`Refusals`]): a journal entry found `rejected` that is not one of
/// them was not refused in this call (review r8 R8-8).
pub async fn executing_approved<F: std::future::Future>(
    claim: &ClaimedRequest,
    row: &RequestRow,
    fut: F,
) -> (F::Output, Refusals) {
    let approved = claim
        .rows
        .iter()
        .find(|r| r.row_no == row.row_no && r.mer_order_no == row.mer_order_no)
        // A row already final when the request was claimed (accepted, refused, failed:
        // its maker may have requested it again under a new number) opens nothing (review
        // r9 R9-5).
        .filter(|r| !r.state.is_final())
        .map(|r| crate::desk::ApprovedRow {
            mer_order_no: r.mer_order_no.clone(),
            amount: r.amount.clone(),
            currency: claim.request.currency.clone(),
            operation: claim.request.operation.clone(),
            form: r.form.clone(),
            clabe: r
                .form
                .get("clabe")
                .and_then(serde_json::Value::as_str)
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_string),
        });
    let refused = Arc::new(std::sync::Mutex::new(Vec::new()));
    let scope = crate::desk::ApprovedScope {
        request: claim.request.id,
        mer_no: claim.mer_no,
        opened: claim.opened.clone(),
        row: approved,
        refused: refused.clone(),
    };
    let out = crate::desk::APPROVED_REQUEST.scope(scope, fut).await;
    let seen = refused.lock().map(|v| v.clone()).unwrap_or_default();
    (out, Refusals(seen))
}

/// The journal entries a desk recorded refused on the gateway's own answer within an
/// approved scope ([`executing_approved`]).
#[derive(Debug, Clone, Default)]
pub struct Refusals(Vec<(i64, String)>);

impl Refusals {
    /// Whether `entry`'s refusal is one the gateway gave within the scope (its id and
    /// code as the desk recorded them), not one found in the journal.
    pub fn saw(&self, entry: &crate::journal::Entry) -> bool {
        self.0
            .iter()
            .any(|(id, code)| *id == entry.id && entry.code.as_deref() == Some(code.as_str()))
    }

    /// Both scopes' refusals (a row sent twice within one execution).
    pub fn and(mut self, other: Refusals) -> Refusals {
        self.0.extend(other.0);
        self
    }
}

/// Where a connection the engine opened itself goes: the team's server, its database and
/// the member (review r9 R9-4: a claim taken there opens only a desk whose team profile
/// names the same, never a real desk for a database of the caller's choosing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Opened {
    host: String,
    port: u16,
    database: String,
    user: String,
}

impl Opened {
    pub(crate) fn of(cfg: &TeamConfig) -> Opened {
        Opened {
            host: cfg.host.trim().to_ascii_lowercase(),
            port: cfg.port,
            database: cfg.database.trim().to_string(),
            user: cfg.user.trim().to_string(),
        }
    }
}

impl std::fmt::Display for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}@{}:{}/{}",
            self.user, self.host, self.port, self.database
        )
    }
}

/// A member's open connection to the team.
#[derive(Debug, Clone)]
pub struct TeamMember {
    link: Arc<dyn TeamDb>,
    mer_no: i64,
    idle_lock_minutes: i32,
    salt: String,
    me: Member,
    /// Where the seal key's fingerprint is pinned (a profile's keyring), if anywhere.
    seal_pin: Option<(crate::secrets::Secrets, String)>,
    /// Whether the engine opened this member's connection itself ([`TeamMember::connect`],
    /// a desk's own): only such a member claims requests (review r8 R8-4). A connection
    /// given to [`TeamMember::on`] may be anything that implements `TeamDb`, a wrapper
    /// whose `claim_next` answers without the database included.
    /// Where it goes (review r9 R9-4); `None` on a connection given to [`TeamMember::on`].
    claims: Option<Opened>,
}

impl TeamMember {
    /// Connects as the member `cfg.user`.
    pub fn connect(cfg: &TeamConfig, password: &str) -> CoreResult<TeamMember> {
        Self::opened(
            crate::store::team::connect(cfg, password)?,
            Some(Opened::of(cfg)),
        )
    }

    /// A team on a connection already open (an owner's, a test's): everything a member
    /// does through it but claiming a request for the signer's worker, which only a
    /// connection the engine opened itself does ([`TeamMember::connect`], `Desk::team`).
    pub fn on(link: Arc<dyn TeamDb>) -> CoreResult<TeamMember> {
        Self::opened(link, None)
    }

    /// A team on a connection the engine opened itself (`claims`) or was given.
    pub(crate) fn opened(link: Arc<dyn TeamDb>, claims: Option<Opened>) -> CoreResult<TeamMember> {
        let (mer_no, idle_lock_minutes, salt, me) = {
            let tables = link.tables();
            let (mer_no, idle_lock_minutes, salt) = tables.settings()?;
            (mer_no, idle_lock_minutes, salt, tables.me()?)
        };
        Ok(TeamMember {
            link,
            mer_no,
            idle_lock_minutes,
            salt,
            me,
            seal_pin: None,
            claims,
        })
    }

    /// Pins the key this member's secrets are sealed to in `profile`'s keyring: nothing
    /// is sealed until the member trusts a key ([`TeamMember::trust_seal_key`], having
    /// compared its fingerprint with the one a signer or the database's owner gives
    /// them: a key published first by a puppet signer an admin made is not trusted by
    /// being first), and a seal to another key than the trusted one is refused.
    pub fn pinning_seal_key(
        mut self,
        secrets: crate::secrets::Secrets,
        profile: &str,
    ) -> TeamMember {
        self.seal_pin = Some((secrets, profile.to_string()));
        self
    }

    /// The fingerprint (SHA-256 of its SPKI DER, hex) of the key the team's database
    /// holds for sealing card numbers and tax ids; `None` before any signer published one.
    pub fn seal_key_fingerprint(&self) -> CoreResult<Option<String>> {
        use sha2::Digest as _;
        Ok(self
            .tables()
            .seal_key()?
            .map(|spki| hex::encode(sha2::Sha256::digest(&spki))))
    }

    /// Trusts on this desk the seal key the team's database holds now: its fingerprint
    /// is pinned in the keyring and returned. `expected`, when given, is the fingerprint
    /// (or its first 16 hex digits at least; `:`, spaces and a leading `SHA256:` as a
    /// signer's `profile key show` prints it ignored) the member was told: another key
    /// is refused, naming both.
    pub fn trust_seal_key(&self, expected: Option<&str>) -> CoreResult<String> {
        let Some((secrets, profile)) = &self.seal_pin else {
            return Err(CoreError::keyed(
                "profile",
                "this connection keeps no pin (a desk's team connection does)",
                "teamNoPin",
                &[],
            ));
        };
        let Some(now) = self.seal_key_fingerprint()? else {
            return Err(CoreError::keyed(
                "sealKey",
                "no signer's desk has published the key yet: have a signer open their desk first",
                "sealKeyUnpublished",
                &[],
            ));
        };
        if let Some(expected) = expected {
            let want: String = expected
                .chars()
                .filter(|c| !c.is_whitespace() && *c != ':')
                .collect::<String>()
                .to_ascii_lowercase();
            // As `paydesk profile key show` prints a key's: `SHA256:` and hex pairs.
            let want = want.strip_prefix("sha256").unwrap_or(&want).to_string();
            if want.len() < 16 || !want.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(CoreError::keyed(
                    "fingerprint",
                    "the key's SHA-256 fingerprint in hex, 16 digits at least",
                    "sealFingerprint",
                    &[],
                ));
            }
            if !now.starts_with(&want) {
                return Err(CoreError::keyed(
                    "fingerprint",
                    format!(
                        "the team's database holds key {now}, not the {want} you were given: nothing trusted; ask the database's owner"
                    ),
                    "sealFingerprintDiffers",
                    &[("now", now.clone()), ("want", want.clone())],
                ));
            }
        }
        secrets.set_seal_key_pin(profile, &now)?;
        Ok(now)
    }

    /// The member's connection to the team.
    pub fn link(&self) -> &Arc<dyn TeamDb> {
        &self.link
    }

    /// The team's tables on the member's connection.
    pub fn tables(&self) -> Box<dyn TeamStore + '_> {
        self.link.tables()
    }

    /// Claims the next approved request for this member's worker (the database decides
    /// which, and refuses a member who is not a signer), as the [`ClaimedRequest`] that
    /// opens the desk's money path for its rows, read now. Refused on a member made with
    /// [`TeamMember::on`]: only a connection the engine opened claims (review r8 R8-4).
    pub fn claim_next(&self, retry_after_secs: i32) -> CoreResult<Option<ClaimedRequest>> {
        let Some(opened) = self.claims.clone() else {
            return Err(CoreError::keyed(
                "team",
                "a request is claimed for the signer's worker only on a connection PayDesk opened itself (the desk's, or TeamMember::connect), never on one given to TeamMember::on",
                "teamClaimForeignLink",
                &[],
            ));
        };
        let tables = self.tables();
        let Some(request) = tables.claim_next(retry_after_secs)? else {
            return Ok(None);
        };
        let rows = tables.rows_with_forms(request.id)?;
        Ok(Some(ClaimedRequest {
            request,
            signer: self.me.name.clone(),
            mer_no: self.mer_no,
            opened,
            rows,
        }))
    }

    /// The merchant the team works for.
    pub fn mer_no(&self) -> i64 {
        self.mer_no
    }

    /// Minutes without activity after which a team desk locks.
    pub fn idle_lock_minutes(&self) -> i32 {
        self.idle_lock_minutes
    }

    /// This member: name and roles, as the database says.
    pub fn me(&self) -> &Member {
        &self.me
    }

    pub fn has_role(&self, role: TeamRole) -> bool {
        self.me.roles.contains(&role)
    }

    /// A bulk row's number from its content and the team's salt.
    pub fn bulk_number(&self, content: &str) -> String {
        let mut h = sha2::Sha256::new();
        h.update(self.salt.as_bytes());
        h.update([0x1f]);
        h.update(content.as_bytes());
        let d = hex::encode(h.finalize());
        format!("T{}", &d[..24])
    }

    /// A request's number: the one given, or, when none is, one made from what it sends
    /// and today's date (UTC) with the team's salt, as a bulk file's rows get theirs. So
    /// the same request made twice in a day (a command run again after an "unknown", a
    /// script run twice) is refused by the database as a number already requested,
    /// naming the first, instead of waiting beside it for an approver to pass both; two
    /// identical requests on purpose on one day are given numbers of their own.
    pub fn number_of(&self, given: &str, content: &[&str]) -> String {
        match given.trim() {
            "" => {
                let day = chrono::Utc::now().format("%Y-%m-%d").to_string();
                self.bulk_number(&format!("{day}\u{1f}{}", content.join("\u{1f}")))
            }
            n => n.to_string(),
        }
    }

    /// `value` of form field `field` sealed to the signers (see `seal_to_signers`);
    /// refused, naming the field, before any signer's desk published the key.
    pub fn seal(&self, field: &str, value: &str) -> CoreResult<String> {
        let Some(spki) = self.tables().seal_key()? else {
            return Err(CoreError::keyed(
                field,
                "this is sealed to the signers, and no signer's desk has connected to the team yet: have a signer open their desk first",
                "sealNoSigner",
                &[],
            ));
        };
        if let Some((secrets, profile)) = &self.seal_pin {
            use sha2::Digest as _;
            let now = hex::encode(sha2::Sha256::digest(&spki));
            match secrets.seal_key_pin(profile)? {
                None => {
                    return Err(CoreError::keyed(
                        field,
                        format!(
                            "no seal key is trusted on this desk yet: nothing was sealed. The team's database holds key {now}; compare it with the fingerprint a signer or the database's owner gives you, then trust it (Team screen, or `paydesk team trust-seal-key --fingerprint {}`)",
                            &now[..16]
                        ),
                        "sealUntrusted",
                        &[("now", now.to_string()), ("short", now[..16].to_string())],
                    ));
                }
                Some(pinned) if pinned == now => {}
                Some(pinned) => {
                    return Err(CoreError::keyed(
                        field,
                        format!(
                            "the key this is sealed to has changed since this desk last sealed (pinned {}…, now {}…): nothing was sealed. Only the database's owner replaces it, when the merchant key is rotated; if they did, run `paydesk team trust-seal-key`",
                            &pinned[..pinned.len().min(16)],
                            &now[..16]
                        ),
                        "sealKeyChanged",
                        &[
                            ("pinned", pinned[..pinned.len().min(16)].to_string()),
                            ("now", now[..16].to_string()),
                        ],
                    ));
                }
            }
        }
        seal_to_signers(&spki, &seal_label(self.mer_no, field), value)
    }
}

/// The name of a sealed field in a stored form, and what its seal is bound to.
pub const SEALED_TAX_ID: &str = "sealedSocialSecurityNumber";
pub const TAX_ID: &str = "socialSecurityNumber";
pub const SEALED_CARD_NO: &str = "sealedCardNo";
pub const CARD_NO: &str = "cardNo";

/// What a sealed value is bound to: the team's merchant and the field (a value sealed
/// for another field or merchant does not open).
pub(crate) fn seal_label(mer_no: i64, field: &str) -> Vec<u8> {
    format!("paydesk team seal v1, merchant {mer_no}, {field}").into_bytes()
}

/// Seals `plain` to the signers: RSA-OAEP (SHA-256) to the merchant's public key
/// (`spki`, DER), whose private half only the signers' desks hold. Base64.
fn seal_to_signers(spki: &[u8], label: &[u8], plain: &str) -> CoreResult<String> {
    use aws_lc_rs::rsa::{OAEP_SHA256_MGF1SHA256, OaepPublicEncryptingKey, PublicEncryptingKey};
    use base64::Engine as _;
    let key = PublicEncryptingKey::from_der(spki)
        .ok()
        .and_then(|k| OaepPublicEncryptingKey::new(k).ok())
        .ok_or_else(|| CoreError::storage("the team's seal key is not an RSA public key"))?;
    if plain.len() > key.max_plaintext_size(&OAEP_SHA256_MGF1SHA256) {
        return Err(CoreError::keyed(
            "socialSecurityNumber",
            "too long",
            "sealTooLong",
            &[],
        ));
    }
    let mut out = vec![0_u8; key.ciphertext_size()];
    let sealed = key
        .encrypt(
            &OAEP_SHA256_MGF1SHA256,
            plain.as_bytes(),
            &mut out,
            Some(label),
        )
        .map_err(|_| CoreError::internal("sealing failed"))?;
    Ok(base64::engine::general_purpose::STANDARD.encode(sealed))
}

/// Opens a value `seal_to_signers` sealed, with the merchant's private key (PKCS#8).
pub(crate) fn unseal(pkcs8: &[u8], label: &[u8], sealed: &str) -> CoreResult<String> {
    use aws_lc_rs::rsa::{OAEP_SHA256_MGF1SHA256, OaepPrivateDecryptingKey, PrivateDecryptingKey};
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(sealed)
        .map_err(|_| {
            CoreError::keyed(
                "form",
                "a sealed value is not base64",
                "sealedNotBase64",
                &[],
            )
        })?;
    let key = PrivateDecryptingKey::from_pkcs8(pkcs8)
        .ok()
        .and_then(|k| OaepPrivateDecryptingKey::new(k).ok())
        .ok_or_else(|| CoreError::internal("the merchant key cannot decrypt"))?;
    let mut out = zeroize::Zeroizing::new(vec![0_u8; key.min_output_size()]);
    let n = key
        .decrypt(&OAEP_SHA256_MGF1SHA256, &bytes, &mut out, Some(label))
        .map_err(|_| {
            CoreError::keyed(
                "form",
                "sealed to another key, or for another field",
                "sealedOtherKey",
                &[],
            )
        })?
        .len();
    String::from_utf8(out[..n].to_vec())
        .map_err(|_| CoreError::keyed("form", "a sealed value is not text", "sealedNotText", &[]))
}

// What a maker's desk checks before it submits a request (issue 35 item 1): the
// member's own payout limits, which the team's database enforces (schema 0025/0028),
// read first so the desk says which limit a payout would pass, naming it, before
// anything is written. The database still decides (a request made meanwhile by the
// same member on another desk counts there).
impl TeamMember {
    /// Refuses payouts of `amounts` in `currency` that would pass this member's limit
    /// per payout or per day, naming the limit; nothing when the member has none, or
    /// makes no requests (an approver's, a signer's or an admin's preview: the database
    /// keeps `my_payout_limit` to makers, and only a maker's requests are limited).
    pub fn check_my_limit(&self, currency: &str, amounts: &[&str]) -> CoreResult<()> {
        if !self.has_role(TeamRole::Maker) {
            return Ok(());
        }
        let currency = currency.trim().to_ascii_uppercase();
        let Some(l) = self.tables().my_payout_limit(&currency)? else {
            return Ok(());
        };
        let dec = |s: &str| s.trim().parse::<Decimal>().ok();
        let amounts: Vec<Decimal> = amounts.iter().filter_map(|a| dec(a)).collect();
        if let Some(max) = l.per_payout.as_deref().and_then(dec)
            && let Some((i, over)) = amounts.iter().enumerate().find(|(_, a)| **a > max)
        {
            let row = if amounts.len() > 1 {
                format!("row {}: ", i + 1)
            } else {
                String::new()
            };
            return Err(CoreError::keyed(
                "amount",
                format!(
                    "{row}{} {currency} is over your limit per payout of {} {currency} (set by the team's admin)",
                    over.normalize(),
                    max.normalize()
                ),
                "memberLimitPerPayout",
                &[
                    ("amount", over.normalize().to_string()),
                    ("limit", max.normalize().to_string()),
                    ("currency", currency.clone()),
                ],
            ));
        }
        if let Some(day) = l.per_day.as_deref().and_then(dec) {
            let used = dec(&l.used_today).unwrap_or_default();
            let asked: Decimal = amounts.iter().sum();
            if used + asked > day {
                let left = (day - used).max(Decimal::ZERO).normalize().to_string();
                return Err(CoreError::keyed(
                    "amount",
                    format!(
                        "{} {currency} would take your payouts today over your limit per day of {} {currency} ({} {currency} requested today, {} {currency} left; the day is {}'s)",
                        asked.normalize(),
                        day.normalize(),
                        used.normalize(),
                        left,
                        l.day_zone
                    ),
                    "memberLimitPerDay",
                    &[
                        ("amount", asked.normalize().to_string()),
                        ("limit", day.normalize().to_string()),
                        ("used", used.normalize().to_string()),
                        ("left", left.clone()),
                        ("currency", currency.clone()),
                        ("zone", l.day_zone.clone()),
                    ],
                ));
            }
        }
        Ok(())
    }
}

/// Opens a value a maker's desk sealed to the team's signers for `field` (`cardNo`,
/// `socialSecurityNumber`, a payee's account), with `desk`'s merchant key (a signer's
/// desk; the others hold no key and are refused), for a row of the request `claim` the
/// database claimed for this signer: only the signer's worker holds one.
pub fn unseal_for_team(
    desk: &crate::desk::Desk,
    claim: &ClaimedRequest,
    field: &str,
    sealed: &str,
) -> CoreResult<String> {
    if !desk_opens(desk, &claim.opened) {
        return Err(CoreError::keyed(
            "team",
            format!(
                "request {} was claimed on {}, not on this desk's team: nothing opened",
                claim.request.id, claim.opened
            ),
            "teamClaimOtherDatabase",
            &[("request", claim.request.id.to_string())],
        ));
    }
    unseal_for(desk, claim.mer_no, claim.request.id, field, sealed)
}

/// Whether `desk`'s team profile names where `opened` goes (review r9 R9-4).
pub(crate) fn desk_opens(desk: &crate::desk::Desk, opened: &Opened) -> bool {
    desk.profile.team.as_ref().map(Opened::of).as_ref() == Some(opened)
}

impl TeamMember {
    /// Whether this member's connection goes where `desk`'s team profile says (its
    /// server, database and member): only then do its claims open that desk (review r9
    /// R9-4). A connection given to [`TeamMember::on`] is no desk's.
    pub fn is_desks_team(&self, desk: &crate::desk::Desk) -> bool {
        self.claims.as_ref().is_some_and(|o| desk_opens(desk, o))
    }
}

/// [`unseal_for_team`] for request `request` claimed for merchant `mer_no` (the desk's
/// own check of a row's account within its scope, review r9 R9-3).
pub(crate) fn unseal_for(
    desk: &crate::desk::Desk,
    mer_no: i64,
    request: i64,
    field: &str,
    sealed: &str,
) -> CoreResult<String> {
    if mer_no != desk.profile.mer_no as i64 {
        return Err(CoreError::keyed(
            "merNo",
            format!(
                "request {request} was claimed for merchant {mer_no}, not this desk's {}: nothing opened",
                desk.profile.mer_no
            ),
            "teamClaimOtherMerchant",
            &[
                ("request", request.to_string()),
                ("team", mer_no.to_string()),
                ("desk", desk.profile.mer_no.to_string()),
            ],
        ));
    }
    unseal(
        desk.client()?.private_key().pkcs8_der(),
        &seal_label(desk.profile.mer_no as i64, field),
        sealed,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Review r8 R8-4, the review's forging code: a connection of the caller's own whose
    /// tables say a request was claimed, with no database behind it at all. Given to the
    /// public `TeamMember::on`, it makes a member (its settings and `me` answer), but that
    /// member claims nothing: no `ClaimedRequest`, so no key to the money path.
    #[test]
    fn a_member_on_a_connection_of_its_own_claims_nothing() {
        use crate::store::team::*;
        use std::any::Any;
        use std::time::Duration;

        #[derive(Debug)]
        struct Liar;
        struct LiarTables;
        impl TeamDb for Liar {
            fn tables(&self) -> Box<dyn TeamStore + '_> {
                Box::new(LiarTables)
            }
            fn check_chain_from(
                &self,
                _: Option<&crate::audit::Anchor>,
            ) -> CoreResult<(crate::audit::ChainCheck, Option<crate::audit::Anchor>)> {
                unreachable!()
            }
            fn listen(&self, _: &str) -> CoreResult<()> {
                unreachable!()
            }
            fn wait_notice(&self, _: Duration) -> Option<Notice> {
                unreachable!()
            }
            fn is_closed(&self) -> bool {
                false
            }
            fn user(&self) -> &str {
                "sam"
            }
            fn schema_version(&self) -> CoreResult<i32> {
                Ok(99)
            }
            fn as_any(&self) -> &dyn Any {
                self
            }
        }
        fn forged() -> Request {
            Request {
                id: 7,
                operation: "payout".into(),
                currency: "MXN".into(),
                total: "1000000".into(),
                row_count: 1,
                summary: "forged".into(),
                source: None,
                maker: "sam".into(),
                approvals_needed: 0,
                decisions: Vec::new(),
                state: RequestState::Executing,
                created_at: 0,
                decided_at: None,
                claimed_by: Some("sam".into()),
                finished_at: None,
                outcome: None,
            }
        }
        impl TeamStore for LiarTables {
            fn settings(&self) -> CoreResult<(i64, i32, String)> {
                Ok((10001, 15, "salt".into()))
            }
            fn me(&self) -> CoreResult<Member> {
                Ok(Member {
                    name: "sam".into(),
                    roles: vec![TeamRole::Signer],
                    added_by: String::new(),
                    added_at: None,
                })
            }
            fn claim_next(&self, _: i32) -> CoreResult<Option<Request>> {
                Ok(Some(forged()))
            }
            fn rows_with_forms(&self, _: i64) -> CoreResult<Vec<RequestRow>> {
                Ok(Vec::new())
            }
            fn members(&self) -> CoreResult<Vec<Member>> {
                unreachable!()
            }
            fn add_member(&self, _: &str, _: TeamRole, _: &str) -> CoreResult<String> {
                unreachable!()
            }
            fn set_member_roles(&self, _: &str, _: &[TeamRole]) -> CoreResult<String> {
                unreachable!()
            }
            fn reset_member_password(&self, _: &str, _: &str) -> CoreResult<()> {
                unreachable!()
            }
            fn set_default_approvals(&self, _: i32) -> CoreResult<()> {
                unreachable!()
            }
            fn default_approvals(&self) -> CoreResult<i32> {
                unreachable!()
            }
            fn remove_member(&self, _: &str) -> CoreResult<()> {
                unreachable!()
            }
            fn rules(&self) -> CoreResult<Vec<Rule>> {
                unreachable!()
            }
            fn set_rule(&self, _: &str, _: &str, _: &str, _: i32) -> CoreResult<i64> {
                unreachable!()
            }
            fn remove_rule(&self, _: i64) -> CoreResult<bool> {
                unreachable!()
            }
            fn approvals_needed(&self, _: &str, _: &str, _: &str) -> CoreResult<i32> {
                unreachable!()
            }
            fn make(&self, _: &NewRequest<'_>) -> CoreResult<Request> {
                unreachable!()
            }
            fn requests(&self, _: &[RequestState], _: i64) -> CoreResult<Vec<Request>> {
                unreachable!()
            }
            fn request(&self, _: i64) -> CoreResult<Option<Request>> {
                unreachable!()
            }
            fn rows(&self, _: i64) -> CoreResult<Vec<RequestRow>> {
                unreachable!()
            }
            fn decide(&self, _: i64, _: bool, _: Option<&str>) -> CoreResult<Request> {
                unreachable!()
            }
            fn number_requested(&self, _: &str) -> CoreResult<bool> {
                unreachable!()
            }
            fn seal_key(&self) -> CoreResult<Option<Vec<u8>>> {
                unreachable!()
            }
            fn publish_seal_key(&self, _: &[u8]) -> CoreResult<()> {
                unreachable!()
            }
            fn end_stalls(&self) -> CoreResult<i32> {
                unreachable!()
            }
            fn row_outcome(
                &self,
                _: i64,
                _: i32,
                _: RowState,
                _: Option<&str>,
                _: Option<&str>,
            ) -> CoreResult<()> {
                unreachable!()
            }
            fn finish(&self, _: i64, _: bool, _: &str) -> CoreResult<()> {
                unreachable!()
            }
            fn member_limits(&self) -> CoreResult<Vec<MemberLimit>> {
                unreachable!()
            }
            fn set_member_limit(
                &self,
                _: &str,
                _: &str,
                _: Option<&str>,
                _: Option<&str>,
                _: &str,
            ) -> CoreResult<()> {
                unreachable!()
            }
            fn payees(&self, _: i64) -> CoreResult<Vec<PayeeRecord>> {
                unreachable!()
            }
            fn add_payee(&self, _: i64, _: &PayeeRecord, _: &str) -> CoreResult<()> {
                unreachable!()
            }
            fn approve_payee(&self, _: i64, _: i64, _: &str) -> CoreResult<()> {
                unreachable!()
            }
            fn remove_payee(&self, _: i64, _: &str) -> CoreResult<bool> {
                unreachable!()
            }
            fn payee_approval(&self) -> CoreResult<bool> {
                unreachable!()
            }
            fn set_payee_approval(&self, _: bool) -> CoreResult<()> {
                unreachable!()
            }
            fn payee_sealed_account(&self, _: i64, _: &str) -> CoreResult<Option<String>> {
                unreachable!()
            }
            fn payee_to_pay(&self, _: i64, _: &str) -> CoreResult<Option<PayeeRef>> {
                unreachable!()
            }
            fn payee_by_id(&self, _: i64, _: i64) -> CoreResult<Option<(PayeeRef, String)>> {
                unreachable!()
            }
            fn my_payout_limit(&self, _: &str) -> CoreResult<Option<MyPayoutLimit>> {
                unreachable!()
            }
            fn worker_beat(&self, _: bool, _: bool) -> CoreResult<()> {
                unreachable!()
            }
            fn worker_beats(&self) -> CoreResult<Vec<WorkerBeat>> {
                unreachable!()
            }
        }

        // The member is made (a front end reads who it is through any connection)...
        let member = TeamMember::on(Arc::new(Liar)).unwrap();
        assert_eq!(member.me().name, "sam");
        assert_eq!(member.mer_no(), 10001);
        // ... and its "claim" is refused, naming the rule, with no claim minted.
        match member.claim_next(0) {
            Err(CoreError::Validation { field, rule }) => {
                assert_eq!(field, "team");
                assert!(rule.text.contains("opened itself"), "{}", rule.text);
            }
            other => panic!("a claim through a connection of the caller's own: {other:?}"),
        }
        // A clone of it (or a `paydesk_team::Team` made from it) claims nothing either.
        assert!(member.clone().claim_next(0).is_err());
    }

    /// A sealed value opens with the merchant key it was sealed to, for the field and
    /// merchant it was sealed for, and with nothing else.
    #[test]
    fn a_sealed_value_opens_only_with_its_key_for_its_field() {
        let key = paydesk_gateway::PrivateKey::generate(2048).unwrap();
        let other = paydesk_gateway::PrivateKey::generate(2048).unwrap();
        let spki = key.public_key().spki_der().to_vec();
        let sealed =
            seal_to_signers(&spki, &seal_label(10001, CARD_NO), "4111111111111111").unwrap();
        assert!(!sealed.contains("4111"));
        assert_eq!(
            unseal(key.pkcs8_der(), &seal_label(10001, CARD_NO), &sealed).unwrap(),
            "4111111111111111"
        );
        for (pkcs8, label) in [
            (other.pkcs8_der(), seal_label(10001, CARD_NO)),
            (key.pkcs8_der(), seal_label(10001, TAX_ID)),
            (key.pkcs8_der(), seal_label(10002, CARD_NO)),
        ] {
            assert!(unseal(pkcs8, &label, &sealed).is_err());
        }
        // Each sealing is new (OAEP is randomized): equal values are not seen as equal.
        assert_ne!(
            sealed,
            seal_to_signers(&spki, &seal_label(10001, CARD_NO), "4111111111111111").unwrap()
        );
    }
}
