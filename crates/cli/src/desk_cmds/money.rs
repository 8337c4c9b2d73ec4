//! Commands that move money or submit data, through the journal: payins, payouts,
//! cards, review submissions.

use super::*;
use paydesk_core::ReviewRequest;
use paydesk_core::forms::{
    BrowserForm, CardForm, CardMove, PayinForm, PayinMethod, PayoutForm, PayoutKind, ProductLine,
    Receipt,
};

#[derive(Debug, Args)]
pub struct MoneyArgs {
    #[arg(long)]
    amount: String,
    #[arg(long)]
    currency: String,
    /// Fixed once; give the same one to retry the same order (default: a new one).
    #[arg(long)]
    mer_order_no: Option<String>,
    #[arg(long, default_value = "127.0.0.1")]
    ip: String,
    #[arg(long)]
    notify_url: Option<String>,
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
    /// PIX: CPF.
    #[arg(long, default_value = "")]
    ssn: String,
    /// VN_BANK: bank id.
    #[arg(long, default_value_t = 970436)]
    vn_bank_id: i64,
    #[arg(long, default_value = "Order")]
    product: String,
}

#[derive(Debug, Subcommand)]
pub enum PayoutCmd {
    /// V2 payout to a CLABE (withdrawType 6).
    Clabe {
        #[command(flatten)]
        money: MoneyArgs,
        #[arg(long)]
        clabe: String,
    },
    /// V1 payout to a card (withdrawType 1).
    Card {
        #[command(flatten)]
        money: MoneyArgs,
        #[arg(long)]
        card_no: String,
        #[arg(long)]
        first_name: String,
        #[arg(long)]
        last_name: String,
        #[arg(long, default_value = "")]
        country: String,
    },
    /// Payouts from a CSV file (columns: type, amount, currency, account, firstName,
    /// lastName, country, merOrderNo); every row is checked first, and the same file
    /// run again pays nothing twice.
    Bulk {
        file: PathBuf,
        /// Where to write each row's outcome (default: FILE with .result.csv).
        #[arg(long)]
        result: Option<PathBuf>,
        /// Only check the file; send nothing.
        #[arg(long)]
        check: bool,
    },
}

fn show_submitted<T: Serialize>(g: &Global, s: &paydesk_core::Submitted<T>) -> Result<(), Failure> {
    print(g, s, || {
        let e = &s.entry;
        let mut line = format!(
            "journal #{} {} {}: {}",
            e.id,
            e.mer_order_no,
            e.status.as_str(),
            e.summary
        );
        if let Some(t) = &e.trade_no {
            line.push_str(&format!(" (tradeNo {t})"));
        }
        if s.replayed {
            line.push_str(" — already in the journal, nothing sent again");
        }
        line
    })?;
    match s.entry.status {
        Status::Accepted => Ok(()),
        Status::Rejected => Err(Failure::Check(format!(
            "rejected: {} {}",
            s.entry.code.clone().unwrap_or_default(),
            s.entry.message.clone().unwrap_or_default()
        ))),
        Status::Unknown | Status::Sending => Err(Failure::Unknown(
            "outcome unknown; run `paydesk journal reconcile`".into(),
        )),
        Status::Pending => Err(Failure::Other(
            "not sent; safe to run again with the same --mer-order-no".into(),
        )),
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

pub fn payin(a: PayinArgs, g: &Global) -> Result<(), Failure> {
    let method = PayinMethod::parse(&a.method).map_err(|e| Failure::Input(format!("--{e}")))?;
    let (first, last) = a.name.split_once(' ').unwrap_or((a.name.as_str(), ""));
    let product = ProductLine {
        name: a.product.clone(),
        quantity: "1".into(),
        sku: "SKU".into(),
        ..ProductLine::default()
    };
    let form = PayinForm {
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
        social_security_number: a.ssn.clone(),
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
    };
    runtime()?.block_on(async {
        let desk = open(g).await?;
        show_receipt(g, &desk.payin(&form).await?)
    })
}

pub fn payout(cmd: PayoutCmd, g: &Global) -> Result<(), Failure> {
    let form = |kind, money: &MoneyArgs| PayoutForm {
        ip_address: money.ip.clone(),
        notify_url: money.notify_url.clone().unwrap_or_default(),
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
    runtime()?.block_on(async {
        let desk = open(g).await?;
        let form = match cmd {
            PayoutCmd::Bulk {
                file,
                result,
                check,
            } => return bulk(&desk, g, &file, result, check).await,
            PayoutCmd::Clabe { money, clabe } => PayoutForm {
                clabe,
                ..form(PayoutKind::Clabe, &money)
            },
            PayoutCmd::Card {
                money,
                card_no,
                first_name,
                last_name,
                country,
            } => PayoutForm {
                card_no,
                first_name,
                last_name,
                country_code: country,
                ..form(PayoutKind::Card, &money)
            },
        };
        show_receipt(g, &desk.payout(&form).await?)
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
        #[arg(long)]
        amount: String,
        #[arg(long)]
        currency: String,
        #[arg(long)]
        mer_order_no: Option<String>,
        #[arg(long, default_value = "")]
        remark: String,
    },
    /// Take funds off a card (V1 withdraw).
    Withdraw {
        #[arg(long)]
        card: String,
        #[arg(long)]
        amount: String,
        #[arg(long)]
        currency: String,
        /// This desk's number for the withdrawal (default: a new one).
        #[arg(long)]
        reference: Option<String>,
    },
    /// Card operations made from this desk.
    History,
}

pub fn card(cmd: CardCmd, g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let desk = open(g).await?;
        let form = match cmd {
            CardCmd::Topup {
                card,
                sub_mer_no,
                amount,
                currency,
                mer_order_no,
                remark,
            } => CardForm {
                kind: CardMove::TopUp,
                card,
                reference: mer_order_no.unwrap_or_else(|| new_mer_order_no("TU")),
                amount,
                currency,
                sub_mer_no,
                remark,
            },
            CardCmd::Withdraw {
                card,
                amount,
                currency,
                reference,
            } => CardForm {
                kind: CardMove::Withdraw,
                card,
                reference: reference.unwrap_or_else(|| new_mer_order_no("WD")),
                amount,
                currency,
                sub_mer_no: String::new(),
                remark: String::new(),
            },
            CardCmd::History => {
                let ops = desk.card_operations()?;
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
        show_receipt(g, &desk.card(&form).await?)
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
        show_submitted(
            g,
            &desk
                .submit_review(
                    &reference,
                    &ReviewRequest {
                        trade_no: a.trade_no.clone(),
                        info,
                        files,
                    },
                )
                .await?,
        )
    })
}

async fn bulk(
    desk: &Desk,
    g: &Global,
    file: &std::path::Path,
    result: Option<PathBuf>,
    check: bool,
) -> Result<(), Failure> {
    use paydesk_core::bulk;
    let notify_url = desk.notify_url();
    let ctx = bulk::BulkContext {
        mer_no: desk.profile.mer_no,
        notify_url,
        ip_address: "127.0.0.1".into(),
    };
    let checked = bulk::read(file, &ctx)?;
    for e in &checked.errors {
        eprintln!("line {}: {}: {}", e.line, e.field, e.rule);
    }
    if check {
        return print(g, &checked.errors, || {
            format!(
                "{} rows ready to send, {} invalid",
                checked.rows.len(),
                checked.errors.len()
            )
        });
    }
    let pb = bar(checked.rows.len() as u64, "paying out");
    if g.json {
        pb.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let results = desk
        .bulk_payouts(&checked, |done, _| pb.set_position(done as u64))
        .await;
    pb.finish_and_clear();
    let results = results?;
    let out = result.unwrap_or_else(|| file.with_extension("result.csv"));
    bulk::write_results(&out, &results)?;
    let count = |s: &str| results.iter().filter(|r| r.status == s).count();
    print(g, &results, || {
        format!(
            "{} accepted, {} rejected, {} unknown, {} not sent, {} invalid; results in {}",
            count("accepted"),
            count("rejected"),
            count("unknown"),
            count("pending"),
            count("invalid"),
            out.display()
        )
    })
}
