//! Commands that move money or submit data, through the journal: payins, payouts,
//! cards, review submissions.

use super::*;
use paydesk_api::money::After;
use paydesk_core::ReviewRequest;
use paydesk_core::forms::{
    BrowserForm, CardForm, CardMove, PayinForm, PayinMethod, PayoutForm, PayoutKind, ProductLine,
    Receipt,
};

/// Why the money moves (issue 35): kept with the journal entry, the audit row, the
/// order's timeline, the exports and the statement (never sent to the gateway, but as a
/// top-up's remark when it has none). Required when the profile says so.
#[derive(Debug, Args, Default)]
pub struct PurposeArgs {
    /// What the money is for ("March payroll"): printable text, at most 140 characters.
    #[arg(long, default_value = "")]
    pub purpose: String,
    /// A ticket or invoice number for it, at most 64 characters.
    #[arg(long, default_value = "", visible_alias = "purpose-ref")]
    pub reference: String,
}

impl PurposeArgs {
    pub fn purpose(&self) -> paydesk_core::purpose::Purpose {
        paydesk_core::purpose::Purpose::new(self.purpose.as_str(), self.reference.as_str())
    }
}

#[derive(Debug, Args)]
pub struct MoneyArgs {
    /// A positive decimal with at most the currency's minor digits.
    #[arg(long, allow_hyphen_values = true)]
    amount: String,
    #[arg(long)]
    currency: String,
    /// Fixed once; give the same one to retry the same order (default: a new one).
    #[arg(long)]
    mer_order_no: Option<String>,
    /// The `ipAddress` sent: a payin's customer's IP; by default the requester's IP of
    /// the profile's conventions (`requesterIp`).
    #[arg(long, default_value = "")]
    ip: String,
    #[arg(long)]
    notify_url: Option<String>,
    /// Send although the same payment is in the journal under another number
    /// (unresolved, or accepted within the profile's window): a second one on purpose.
    /// Written to the audit log.
    #[arg(long)]
    allow_duplicate: bool,
    #[command(flatten)]
    pub why: PurposeArgs,
}

#[derive(Debug, Args)]
pub struct PayinArgs {
    /// WECHAT (V2), or for V1: WECHAT-V1, PIX, APPLE_PAY, CASH_APP, GCASH, SEPA, VN_BANK.
    #[arg(long)]
    method: String,
    #[command(flatten)]
    money: MoneyArgs,
    #[arg(long, default_value = "")]
    email: String,
    #[arg(long, default_value = "")]
    user_id: String,
    #[arg(long, default_value = "")]
    return_url: String,
    /// PIX: payer name; SEPA: billing first and last name separated by a space.
    #[arg(long, default_value = "")]
    name: String,
    /// Refused: a CPF given as an argument shows in `ps` and the shell's history. PIX
    /// reads it from stdin, or asks for it without echo.
    #[arg(long, hide = true)]
    ssn: Option<String>,
    /// VN_BANK: bank id.
    #[arg(long, default_value_t = 970436, allow_negative_numbers = true,
          value_parser = clap::value_parser!(i64).range(1..))]
    vn_bank_id: i64,
    #[arg(long, default_value = "Order")]
    product: String,
}

// Parsed once per run: the card variant's size costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum PayoutCmd {
    /// V2 payout to a CLABE (withdrawType 6).
    Clabe {
        #[command(flatten)]
        money: MoneyArgs,
        #[arg(long, required_unless_present = "beneficiary", default_value = "")]
        clabe: String,
        /// A payee of the book by nickname (`paydesk beneficiaries list`): its account.
        #[arg(long)]
        beneficiary: Option<String>,
    },
    /// V1 payout to a card (withdrawType 1).
    Card {
        #[command(flatten)]
        money: MoneyArgs,
        /// Refused: a card number given as an argument shows in `ps` and the shell's
        /// history. It is read from stdin (one line), or asked for without echo.
        #[arg(long, hide = true)]
        card_no: Option<String>,
        /// A payee of the book by nickname: its card number, names and country.
        #[arg(long)]
        beneficiary: Option<String>,
        #[arg(long, required_unless_present = "beneficiary", default_value = "")]
        first_name: String,
        #[arg(long, required_unless_present = "beneficiary", default_value = "")]
        last_name: String,
        #[arg(long, default_value = "")]
        country: String,
        #[arg(long, default_value = "")]
        address_line: String,
        #[arg(long, default_value = "")]
        address_line2: String,
        #[arg(long, default_value = "")]
        city: String,
        /// The beneficiary's state or province.
        #[arg(long, default_value = "")]
        state: String,
        #[arg(long, default_value = "")]
        post_code: String,
        /// individual (the default) or company.
        #[arg(long, default_value = "individual")]
        beneficiary_type: String,
    },
    /// Payouts from a CSV file (columns: type, amount, currency, account, firstName,
    /// lastName, country, merOrderNo; for cards optionally addressLine, addressLine2,
    /// city, state, postCode, beneficiaryType); every row is checked first, and the same
    /// file run again pays nothing twice.
    Bulk {
        file: PathBuf,
        /// Where to write each row's outcome (default: FILE with .result.csv, which a
        /// later run of the same file replaces when it is that run's earlier result).
        /// Checked before anything is sent.
        #[arg(long)]
        result: Option<PathBuf>,
        /// Replace the --result file if it exists (otherwise an existing file is refused).
        #[arg(long)]
        force: bool,
        /// Only check the file and say what a run would do; send nothing.
        #[arg(long)]
        check: bool,
        /// Also send the rows held back (changed since they were sent, or the same as
        /// an earlier payout): each is a new payout, written to the audit log.
        #[arg(long)]
        include_held: bool,
        /// Do not ask for the confirmation (scripts): the plan is printed, then sent.
        #[arg(long, short = 'y')]
        yes: bool,
        /// The run's purpose and reference: for the rows whose `purpose` column is
        /// empty (a row's own reference is kept).
        #[command(flatten)]
        why: PurposeArgs,
    },
    /// The profile's payout limits per currency: the most one payout may be, and the
    /// most one business day's payouts may add up to. Shows them; with --currency, sets
    /// that currency's (`none` clears one).
    Limits {
        #[arg(long)]
        currency: Option<String>,
        #[arg(long)]
        per_payout: Option<String>,
        #[arg(long)]
        per_day: Option<String>,
    },
}

/// Card numbers and tax ids never come as arguments (`ps`, shell history): `flag` was given.
fn refuse_argument(flag: &str, what: &str) -> Failure {
    Failure::Input(format!(
        "--{flag}: a {what} is not taken as an argument (arguments show in `ps` and in the \
         shell's history); leave --{flag} out, then type it when asked (no echo) or give it \
         on stdin, one line"
    ))
}

/// A card number or tax id: typed at a prompt that does not echo it when stdin is a
/// terminal, otherwise the first line of stdin. Zeroized when dropped.
pub(crate) fn read_private(
    field: &str,
    prompt: &str,
) -> Result<zeroize::Zeroizing<String>, Failure> {
    use std::io::IsTerminal;
    let raw = zeroize::Zeroizing::new(if std::io::stdin().is_terminal() {
        rpassword::prompt_password(prompt)
            .map_err(|e| Failure::Input(format!("{field}: cannot read it at the prompt: {e}")))?
    } else {
        // One line, bounded: an endless stream without a newline is cut and refused.
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::Read::take(std::io::stdin().lock(), 1024),
            &mut line,
        )
        .map_err(|e| Failure::Input(format!("{field}: cannot read stdin: {e}")))?;
        if line.len() >= 1024 {
            zeroize::Zeroize::zeroize(&mut line);
            return Err(Failure::Input(format!(
                "{field}: the line on stdin is longer than 1024 bytes"
            )));
        }
        line
    });
    let value = zeroize::Zeroizing::new(raw.trim().to_string());
    if value.is_empty() {
        return Err(Failure::Input(format!(
            "{field}: is required; type it when asked, or give it on stdin (one line)"
        )));
    }
    Ok(value)
}

/// The next step after an outcome, naming the order number: how to look it up, and how
/// to retry that same order (never under a new number).
fn next_step(e: &paydesk_core::journal::Entry) -> String {
    let no = &e.mer_order_no;
    // Card withdrawals and review submissions are keyed by this desk's own reference:
    // the gateway cannot be asked about them.
    let lookup_possible = e.operation.can_be_looked_up();
    let flag = if lookup_possible {
        "--mer-order-no"
    } else {
        "--reference"
    };
    let detail = e.message.clone().unwrap_or_default();
    match e.status {
        Status::Unknown | Status::Sending if lookup_possible => format!(
            "{no} (journal #{}): {detail}. Look it up: `paydesk journal reconcile --mer-order-no {no}`; to retry this same order, run the same command with {flag} {no} (it is looked up first and sent again only if the gateway does not have it); never under a new number",
            e.id
        ),
        Status::Unknown | Status::Sending => format!(
            "{no} (journal #{}): the gateway cannot be asked about this call. Check the card's or the order's history, then `paydesk journal resolve {} --done --reason \"...\"` if it went through, or `--retry --reason \"...\"` and run the same command with {flag} {no}",
            e.id, e.id
        ),
        Status::Pending => format!(
            "{no} (journal #{}) was not sent ({detail}); safe to run the same command again with {flag} {no}",
            e.id
        ),
        _ => String::new(),
    }
}

/// ` — purpose: <text> (ref <reference>)` for an entry with a purpose; empty without.
pub(crate) fn purpose_words(e: &paydesk_core::journal::Entry) -> String {
    match &e.purpose {
        Some(p) => format!(
            " — purpose: {}",
            paydesk_gateway::redact::terminal_safe(&p.line(), 300)
        ),
        None => String::new(),
    }
}

fn show_submitted<T: Serialize>(g: &Global, s: &paydesk_core::Submitted<T>) -> Result<(), Failure> {
    print(g, s, || {
        let e = &s.entry;
        let mut line = format!(
            "journal #{} merOrderNo {} {}: {}",
            e.id,
            e.mer_order_no,
            e.status.as_str(),
            e.summary
        );
        if let Some(t) = &e.trade_no {
            line.push_str(&format!(" (tradeNo {t})"));
        }
        line.push_str(&purpose_words(e));
        if s.replayed {
            line.push_str(" — already in the journal, nothing sent again");
        }
        line
    })?;
    let e = &s.entry;
    match e.status {
        Status::Accepted => Ok(()),
        Status::Rejected => Err(Failure::Check(format!(
            "{} rejected: {} {}",
            e.mer_order_no,
            e.code.clone().unwrap_or_default(),
            e.message.clone().unwrap_or_default()
        ))),
        Status::Unknown | Status::Sending => Err(Failure::Unknown(next_step(e))),
        Status::Pending => Err(Failure::Other(next_step(e))),
    }
}

/// Prints a receipt and turns its journal status into the exit status.
fn show_receipt(g: &Global, r: &Receipt) -> Result<(), Failure> {
    show_submitted(
        g,
        &paydesk_core::Submitted {
            entry: r.entry.clone(),
            data: Some(r),
            replayed: r.replayed,
        },
    )
}

/// Prints an operation's outcome (the core answers with a receipt even when the call
/// failed after its journal entry was written, so the order number is always named) and
/// turns its journal status into the exit status.
fn finish(g: &Global, r: paydesk_core::CoreResult<Receipt>) -> Result<(), Failure> {
    show_receipt(g, &r?)
}

pub fn payin(a: PayinArgs, g: &Global) -> Result<(), Failure> {
    let form = payin_form(&a, true)?;
    let allow = a.money.allow_duplicate;
    runtime()?.block_on(async {
        let desk = open(g).await?;
        // The balance snapshot after it, before the command ends (`paydesk_api::money`).
        let r = paydesk_api::money::payin(desk.desk(), &form, allow, After::Wait).await;
        finish(g, r)
    })
}

impl PayinArgs {
    /// Whether the order number was given (else one is made).
    pub fn has_number(&self) -> bool {
        self.money.mer_order_no.is_some()
    }
}

/// The payin the arguments describe. `ask_tax_id`: a PIX payer's CPF is read from stdin
/// (never an argument); a team's request never carries one.
pub fn payin_form(a: &PayinArgs, ask_tax_id: bool) -> Result<PayinForm, Failure> {
    let method = PayinMethod::parse(&a.method).map_err(|e| Failure::Input(format!("--{e}")))?;
    if a.ssn.is_some() {
        return Err(refuse_argument("ssn", "CPF"));
    }
    let ssn = if method == PayinMethod::Pix && ask_tax_id {
        read_private("socialSecurityNumber", "The payer's CPF (not shown): ")?
    } else {
        zeroize::Zeroizing::new(String::new())
    };
    let (first, last) = a.name.split_once(' ').unwrap_or((a.name.as_str(), ""));
    let product = ProductLine {
        name: a.product.clone(),
        quantity: "1".into(),
        sku: "SKU".into(),
        ..ProductLine::default()
    };
    Ok(PayinForm {
        method,
        mer_order_no: a
            .money
            .mer_order_no
            .clone()
            .unwrap_or_else(|| new_mer_order_no("PI")),
        amount: a.money.amount.clone(),
        currency: a.money.currency.clone(),
        email: a.email.clone(),
        user_id: a.user_id.clone(),
        return_url: a.return_url.clone(),
        ip_address: a.money.ip.clone(),
        notify_url: a.money.notify_url.clone().unwrap_or_default(),
        name: a.name.clone(),
        social_security_number: ssn.to_string(),
        first_name: first.into(),
        last_name: last.into(),
        user_agent: "PayDesk CLI".into(),
        browser: BrowserForm {
            screen_height: "1080".into(),
            screen_width: "1920".into(),
            time_zone_offset: "0".into(),
            user_agent: "PayDesk CLI".into(),
            visitor_id: "cli".into(),
        },
        products: vec![product],
        os_type: "ANDROID".into(),
        terminal: "APP".into(),
        payment_method_str: "BANK".into(),
        product_name: a.product.clone(),
        vn_bank_id: a.vn_bank_id.to_string(),
        purpose: a.money.why.purpose(),
    })
}

pub fn payout(cmd: PayoutCmd, g: &Global) -> Result<(), Failure> {
    let form = |kind, money: &MoneyArgs| PayoutForm {
        ip_address: money.ip.clone(),
        notify_url: money.notify_url.clone().unwrap_or_default(),
        purpose: money.why.purpose(),
        ..PayoutForm::new(
            kind,
            &money
                .mer_order_no
                .clone()
                .unwrap_or_else(|| new_mer_order_no("PO")),
            &money.amount,
            &money.currency,
        )
    };
    // Refused, or read from stdin, before anything else: a card number never waits for
    // the keyring.
    let card_no = match &cmd {
        PayoutCmd::Card {
            card_no: Some(_), ..
        } => {
            return Err(refuse_argument("card-no", "card number"));
        }
        PayoutCmd::Card {
            card_no: None,
            beneficiary: None,
            ..
        } => Some(read_private("cardNo", "Card number (not shown): ")?),
        _ => None,
    };
    if let PayoutCmd::Limits {
        currency,
        per_payout,
        per_day,
    } = cmd
    {
        return limits(currency, per_payout, per_day, g);
    }
    runtime()?.block_on(async {
        let desk = open(g).await?;
        let allow;
        let form = match cmd {
            PayoutCmd::Limits { .. } => unreachable!("answered above"),
            PayoutCmd::Bulk {
                file,
                result,
                force,
                check,
                include_held,
                yes,
                why,
            } => {
                let how = BulkRun {
                    check,
                    include_held,
                    yes,
                    force,
                    purpose: why.purpose(),
                };
                return bulk(&desk, g, &file, result, how).await;
            }
            PayoutCmd::Clabe {
                money,
                clabe,
                beneficiary,
            } => {
                allow = money.allow_duplicate;
                PayoutForm {
                    clabe,
                    beneficiary: beneficiary.unwrap_or_default(),
                    ..form(PayoutKind::Clabe, &money)
                }
            }
            PayoutCmd::Card {
                money,
                first_name,
                last_name,
                country,
                address_line,
                address_line2,
                city,
                state,
                post_code,
                beneficiary_type,
                beneficiary,
                ..
            } => {
                allow = money.allow_duplicate;
                PayoutForm {
                    card_no: card_no.as_deref().cloned().unwrap_or_default(),
                    beneficiary: beneficiary.unwrap_or_default(),
                    first_name,
                    last_name,
                    country_code: country,
                    address_line,
                    address_line2,
                    city,
                    state,
                    post_code,
                    beneficiary_type,
                    ..form(PayoutKind::Card, &money)
                }
            }
        };
        new_payee_note(&desk, &form);
        let r = paydesk_api::money::payout(&desk, &form, allow, false, After::Wait).await;
        finish(g, r)
    })
}

#[derive(Debug, Subcommand)]
pub enum CardCmd {
    /// Load funds onto a card (V2 top-up).
    Topup {
        /// The card's application number.
        #[arg(long)]
        card: String,
        #[arg(long, default_value = "")]
        sub_mer_no: String,
        #[arg(long, allow_hyphen_values = true)]
        amount: String,
        #[arg(long)]
        currency: String,
        #[arg(long)]
        mer_order_no: Option<String>,
        /// Sent to the gateway; without one, the purpose is sent as the remark.
        #[arg(long, default_value = "")]
        remark: String,
        /// Send although the same request is in the journal under another number.
        #[arg(long)]
        allow_duplicate: bool,
        #[command(flatten)]
        why: PurposeArgs,
    },
    /// Take funds off a card (V1 withdraw).
    Withdraw {
        #[arg(long)]
        card: String,
        #[arg(long, allow_hyphen_values = true)]
        amount: String,
        #[arg(long)]
        currency: String,
        /// This desk's number for the withdrawal (default: a new one).
        #[arg(long)]
        reference: Option<String>,
        /// Send although the same request is in the journal under another number.
        #[arg(long)]
        allow_duplicate: bool,
        /// What the money is for: printable text, at most 140 characters.
        #[arg(long, default_value = "")]
        purpose: String,
        /// A ticket or invoice number for it (`--reference` is the withdrawal's own
        /// number here), at most 64 characters.
        #[arg(long, default_value = "")]
        purpose_ref: String,
    },
    /// Card operations made from this desk.
    History,
}

pub fn card(cmd: CardCmd, g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let desk = open(g).await?;
        let allow;
        let form = match cmd {
            CardCmd::Topup {
                card,
                sub_mer_no,
                amount,
                currency,
                mer_order_no,
                remark,
                allow_duplicate,
                why,
            } => {
                allow = allow_duplicate;
                CardForm {
                    kind: CardMove::TopUp,
                    card,
                    reference: mer_order_no.unwrap_or_else(|| new_mer_order_no("TU")),
                    amount,
                    currency,
                    sub_mer_no,
                    remark,
                    purpose: why.purpose(),
                }
            }
            CardCmd::Withdraw {
                card,
                amount,
                currency,
                reference,
                allow_duplicate,
                purpose,
                purpose_ref,
            } => {
                allow = allow_duplicate;
                CardForm {
                    kind: CardMove::Withdraw,
                    card,
                    reference: reference.unwrap_or_else(|| new_mer_order_no("WD")),
                    amount,
                    currency,
                    sub_mer_no: String::new(),
                    remark: String::new(),
                    purpose: paydesk_core::purpose::Purpose::new(purpose, purpose_ref),
                }
            }
            CardCmd::History => {
                let ops = desk.money().card_operations()?;
                return print(g, &ops, || {
                    ops.iter()
                        .map(|o| {
                            format!(
                                "{} {} {} {} {}{}",
                                o.kind,
                                o.card,
                                o.amount,
                                o.currency,
                                o.outcome,
                                o.fee
                                    .as_ref()
                                    .map(|f| format!(" (fee {f})"))
                                    .unwrap_or_default()
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                });
            }
        };
        let r = paydesk_api::money::card(desk.desk(), &form, allow, After::Wait).await;
        finish(g, r)
    })
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    #[arg(long)]
    trade_no: String,
    /// CODE=TEXT, e.g. 1="Invoice 55"; repeatable.
    #[arg(long = "info", value_name = "CODE=TEXT")]
    info: Vec<String>,
    /// CODE=PATH, e.g. 21=passport.png; repeatable.
    #[arg(long = "file", value_name = "CODE=PATH")]
    file: Vec<String>,
    /// The submission's reference: give the one printed before to send a queued
    /// submission again (default: a new one).
    #[arg(long)]
    reference: Option<String>,
    /// Send although the same submission is in the journal under another reference.
    #[arg(long)]
    allow_duplicate: bool,
}

fn pair(flag: &str, s: &str) -> Result<(String, String), Failure> {
    s.split_once('=')
        .map(|(a, b)| (a.trim().to_string(), b.to_string()))
        .filter(|(a, _)| !a.is_empty())
        .ok_or_else(|| Failure::Input(format!("--{flag}: must be CODE=VALUE, got {s:?}")))
}

pub fn review(a: ReviewArgs, g: &Global) -> Result<(), Failure> {
    let info = a
        .info
        .iter()
        .map(|s| pair("info", s))
        .collect::<Result<Vec<_>, _>>()?;
    let files = a
        .file
        .iter()
        .map(|s| pair("file", s))
        .collect::<Result<Vec<_>, _>>()?;
    runtime()?.block_on(async {
        let desk = open(g).await?;
        let reference = a
            .reference
            .clone()
            .unwrap_or_else(|| new_mer_order_no("RV"));
        if a.allow_duplicate {
            desk.journal().allow_duplicate_once(&reference);
        }
        let r = desk
            .money()
            .review(
                &reference,
                &ReviewRequest {
                    trade_no: a.trade_no.clone(),
                    info,
                    files,
                },
            )
            .await;
        finish(g, r)?;
        // The evidence kept of each file sent (text only: `--json` prints the receipt).
        if !g.json
            && let Some(s) = desk
                .money()
                .review_submissions(Some(a.trade_no.trim()))?
                .into_iter()
                .find(|s| s.reference == reference)
        {
            for f in &s.evidence {
                println!(
                    "sent {} ({}, code {}): {} bytes, sha256 {}",
                    f.name, f.media_type, f.file_type, f.size, f.sha256
                );
            }
        }
        Ok(())
    })
}

/// `paydesk payout limits`: shows the profile's limits, or sets one currency's.
fn limits(
    currency: Option<String>,
    per_payout: Option<String>,
    per_day: Option<String>,
    g: &Global,
) -> Result<(), Failure> {
    let s = session()?;
    let name = match g.profile.as_deref() {
        Some(p) => p.to_string(),
        None => s.active_profile()?,
    };
    let mut l = s.home().limits(&name)?;
    if let Some(c) = currency {
        let value = |v: Option<String>, old: Option<String>| match v {
            Some(v) if v.trim().eq_ignore_ascii_case("none") => None,
            Some(v) => Some(v),
            None => old,
        };
        let old = l
            .currencies
            .iter()
            .position(|x| x.currency.eq_ignore_ascii_case(c.trim()))
            .map(|i| l.currencies.remove(i))
            .unwrap_or_default();
        l.currencies.push(paydesk_core::limits::CurrencyLimit {
            currency: c,
            per_payout: value(per_payout, old.per_payout),
            per_day: value(per_day, old.per_day),
        });
        l = s.home().set_limits(&name, l)?;
    } else if per_payout.is_some() || per_day.is_some() {
        return Err(Failure::Input(
            "--currency: required with --per-payout or --per-day".into(),
        ));
    }
    print(g, &l, || {
        if l.currencies.is_empty() {
            return format!("{name}: no payout limits");
        }
        l.currencies
            .iter()
            .map(|c| {
                format!(
                    "{name}: {} per payout {}, per day {}",
                    c.currency,
                    c.per_payout.as_deref().unwrap_or("none"),
                    c.per_day.as_deref().unwrap_or("none")
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// How a bulk command runs.
#[derive(Debug, Clone)]
struct BulkRun {
    check: bool,
    include_held: bool,
    yes: bool,
    /// Replace an existing --result file.
    force: bool,
    /// The run's purpose, for rows without one.
    purpose: paydesk_core::purpose::Purpose,
}

async fn bulk(
    desk: &OpenDesk,
    g: &Global,
    file: &std::path::Path,
    result: Option<PathBuf>,
    how: BulkRun,
) -> Result<(), Failure> {
    use paydesk_core::bulk;
    let mut checked = desk.money().bulk_read(file)?;
    checked.with_default_purpose(&how.purpose, desk.profile.safety.purpose_required)?;
    for e in &checked.errors {
        eprintln!(
            "line {}: {}: {}",
            e.line,
            e.field,
            paydesk_gateway::redact::terminal_safe(&e.rule, 1_000)
        );
    }
    let plan = desk.money().bulk_plan_fresh(&checked).await?;
    new_payee_rows(&plan);
    for r in plan
        .rows
        .iter()
        .filter(|r| r.action == bulk::RowAction::Held)
    {
        eprintln!(
            "line {}: held: {}",
            r.line,
            paydesk_gateway::redact::terminal_safe(&r.reason, 1_000)
        );
    }
    let totals = |t: &[bulk::CurrencyTotal]| {
        t.iter()
            .map(|t| {
                format!(
                    "{} {} in {} payouts, fees {}",
                    t.amount,
                    t.currency,
                    t.count,
                    match (&t.fee_estimate, &t.fee_from) {
                        (Some(fee), Some(from)) =>
                            format!("about {fee} {} (as on payout {from})", t.currency),
                        _ => "not given before sending".into(),
                    }
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    // Rows held firm (over a limit, beyond the balance) are never sent by a run; of the
    // repeats, those the money left after the rows that go reaches (`held_totals`).
    let held_sent = if how.include_held {
        plan.held_totals.iter().map(|t| t.count).sum()
    } else {
        0
    };
    for f in &plan.funds {
        let fees = if f.fee_known {
            "with the fees this desk knows"
        } else {
            "fees not known"
        };
        match (&f.balance, &f.left, f.age_secs) {
            (Some(b), Some(left), Some(age)) => eprintln!(
                "{}: {} goes ({fees}), balance {b} ({}), {left} left; {} rows held beyond the balance",
                f.currency,
                f.total,
                if f.fresh {
                    "asked just now".to_string()
                } else {
                    format!("cached, {} min old", age / 60)
                },
                f.held_beyond_balance
            ),
            _ => eprintln!(
                "{}: {} goes ({fees}); balance not known, no row held for it",
                f.currency, f.total
            ),
        }
    }
    let mut sent_totals = totals(&plan.totals);
    if held_sent > 0 {
        sent_totals = format!(
            "{}{}held rows: {}",
            sent_totals,
            if sent_totals.is_empty() { "" } else { "; " },
            totals(&plan.held_totals)
        );
    }
    let summary = format!(
        "{} rows to send ({}), {} already paid, {} to look up (sent before, outcome unknown; looked up, not sent), {} held{}, {} invalid",
        plan.to_send + held_sent,
        if sent_totals.is_empty() {
            "nothing".to_string()
        } else {
            sent_totals
        },
        plan.paid,
        plan.look_up,
        plan.held,
        if plan.held > plan.held_firm && !how.include_held {
            " (not sent: add --include-held to send those held as repeats as new payouts; rows over a limit or beyond the balance are never sent)"
        } else if plan.held > plan.held_firm {
            " (those held as repeats sent as new payouts; rows over a limit or beyond the balance are not sent)"
        } else if plan.held > 0 {
            " (over a limit or beyond the balance: not sent)"
        } else {
            ""
        },
        plan.errors.len()
    );
    if how.check {
        print(g, &plan, || summary.clone())?;
        if !plan.errors.is_empty() {
            return Err(Failure::Input(format!(
                "{} rows are invalid (listed above by line, field and rule); a run sends none of them",
                plan.errors.len()
            )));
        }
        return Ok(());
    }
    // Where the outcomes go, proven writable before anything is sent: after the payouts
    // have left is no time to find the path is a folder, a pipe or another file.
    let (out, existing) = bulk::result_target(
        file,
        result.as_deref(),
        paydesk_core::output::Existing::replace_if(how.force),
    )?;
    if !how.yes {
        use std::io::IsTerminal;
        if !std::io::stdin().is_terminal() {
            return Err(Failure::Input(format!(
                "{summary}. Sending needs a confirmation: run it in a terminal, or add --yes"
            )));
        }
        eprint!("{summary}.\nSend them? Type yes to send: ");
        let mut answer = String::new();
        std::io::stdin()
            .read_line(&mut answer)
            .map_err(|e| Failure::Other(e.to_string()))?;
        if answer.trim() != "yes" {
            return Err(Failure::Check("nothing sent".into()));
        }
    } else if !g.json {
        eprintln!("{summary}");
    }
    let expected = if how.include_held {
        &plan.digest_with_held
    } else {
        &plan.digest
    };
    let pb = bar(
        u64::from(plan.to_send + held_sent + plan.look_up),
        "paying out",
    );
    if g.json {
        pb.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let results = desk
        .money()
        .bulk_payouts(&checked, how.include_held, Some(expected), |done, _| {
            pb.set_position(done as u64)
        })
        .await;
    pb.finish_and_clear();
    let results = results?;
    paydesk_api::money::after_bulk(desk.desk(), After::Wait).await;
    // The rows this run held wait on the app's Dashboard until a run of the file sends
    // them.
    if let Ok(s) = session()
        && let Err(e) = s.home().note_bulk_run(
            &desk.profile.name,
            file,
            Some(&out),
            &results,
            chrono::Utc::now().timestamp_millis(),
        )
    {
        eprintln!("note: the held rows were not kept for the app's Dashboard: {e}");
    }
    let count = |s: &str| results.iter().filter(|r| r.status.as_str() == s).count();
    if let Err(e) = bulk::write_results(&out, existing, &checked, &results) {
        // The money moved: say so, and where the outcomes are.
        let sent = count("accepted") + count("unknown") + count("sending");
        return Err(Failure::Unknown(format!(
            "the payouts WERE SENT ({} accepted, {} rejected, {} unknown, {} not sent), but the result file could not be written: {e}. Every row's outcome is in the journal: `paydesk journal list` (its merOrderNo, status and tradeNo); do not send this file again before checking it ({sent} rows reached the gateway or may have)",
            count("accepted"),
            count("rejected"),
            count("unknown") + count("sending"),
            count("pending"),
        )));
    }
    // What THIS run did: a row paid by an earlier run reads "accepted" in the results,
    // but was not sent now.
    let now = |s: &str| {
        results
            .iter()
            .filter(|r| r.this_run && r.status.as_str() == s)
            .count()
    };
    let paid_before = results
        .iter()
        .filter(|r| !r.this_run && r.status == bulk::RowStatus::Accepted)
        .count();
    print(g, &results, || {
        format!(
            "this run: {} sent ({} accepted, {} rejected, {} unknown, {} not sent); already paid: {paid_before}; held: {}; invalid: {}; results (with each row's merOrderNo, to fix and send again) in {}",
            results.iter().filter(|r| r.this_run).count(),
            now("accepted"),
            now("rejected"),
            now("unknown") + now("sending"),
            now("pending"),
            count("held"),
            count("invalid"),
            out.display()
        )
    })?;
    let unknown = count("unknown") + count("sending");
    if unknown > 0 {
        return Err(Failure::Unknown(format!(
            "{unknown} rows have an unknown outcome: `paydesk journal reconcile` looks them up, and running the same file again sends only what the gateway proves it does not have"
        )));
    }
    if count("pending") > 0 {
        return Err(Failure::Other(format!(
            "{} rows were not sent (see the result file); running the same file again sends them under the same numbers",
            count("pending")
        )));
    }
    Ok(())
}
