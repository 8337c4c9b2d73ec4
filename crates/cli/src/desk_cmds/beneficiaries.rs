//! `paydesk beneficiaries`: the book of payees (the app's Beneficiaries): list, add (the
//! account read from stdin or asked for without echo, never an argument), remove. A
//! payout names one with `--beneficiary NICK`; a bulk file with a `beneficiary` column.

use super::*;
use paydesk_core::beneficiaries::{Beneficiary, NewBeneficiary, Payee, TeamPayeeRow};
use paydesk_core::forms::{PayoutForm, PayoutKind};

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum PayeeKindArg {
    Clabe,
    Card,
}

#[derive(Debug, Subcommand)]
pub enum BeneficiariesCmd {
    /// The book: nickname, name, account (masked), bank, country.
    List,
    /// Adds a payee. Its account (a CLABE or a card number) is read from stdin (one
    /// line) or asked for without echo: never an argument, which `ps` and the shell's
    /// history would show.
    Add {
        /// Its nickname, unique in the book (any case).
        nickname: String,
        #[arg(long)]
        first_name: String,
        /// Required for a card payee.
        #[arg(long, default_value = "")]
        last_name: String,
        /// Two letters (MX for a CLABE when left out).
        #[arg(long, default_value = "")]
        country: String,
        /// clabe or card (default: 18 digits is a CLABE).
        #[arg(long, value_enum)]
        kind: Option<PayeeKindArg>,
    },
    /// Removes a payee (payouts already made to it stay as they are).
    Remove { nickname: String },
    /// On a team: approves a payee another member added (an approver, signer or admin):
    /// the row `list` showed, by its id and the hash of its sealed account (`seal=`), so
    /// a payee removed and added again meanwhile under the same nickname is not approved.
    Approve {
        /// The payee's id (`id=` in `list`).
        id: i64,
        /// The hash of its sealed account (`seal=` in `list`, 64 hex digits).
        seal: String,
    },
    /// On a team (an admin): whether a new payee needs another member's approval.
    RequireApproval {
        #[arg(value_parser = ["on", "off"])]
        state: String,
    },
}

fn line(b: &Beneficiary) -> String {
    format!(
        "{}\t{}\t{}\t{}\t{}{}",
        b.nickname,
        b.name(),
        b.account,
        b.bank.as_deref().unwrap_or("-"),
        b.country,
        match (&b.team_row, b.awaiting_approval) {
            (Some(r), true) => format!("\tawaiting approval\tid={} seal={}", r.id, r.sealed_sha256),
            _ => String::new(),
        }
    )
}

pub fn beneficiaries(cmd: BeneficiariesCmd, g: &Global) -> Result<(), Failure> {
    // Read before anything else: an account never waits for the keyring.
    let account = match &cmd {
        BeneficiariesCmd::Add { .. } => Some(read_private(
            "account",
            "Account (CLABE or card number, not shown): ",
        )?),
        _ => None,
    };
    runtime()?.block_on(async {
        let desk = open(g).await?;
        match cmd {
            BeneficiariesCmd::List => {
                let all = desk.records().beneficiaries()?;
                print(g, &all, || {
                    if all.is_empty() {
                        "The book of payees is empty (`paydesk beneficiaries add NICK`).".into()
                    } else {
                        all.iter().map(line).collect::<Vec<_>>().join("\n")
                    }
                })
            }
            BeneficiariesCmd::Add {
                nickname,
                first_name,
                last_name,
                country,
                kind,
            } => {
                let added = desk.records().add_beneficiary(&NewBeneficiary {
                    nickname,
                    kind: kind.map(|k| match k {
                        PayeeKindArg::Clabe => PayoutKind::Clabe,
                        PayeeKindArg::Card => PayoutKind::Card,
                    }),
                    first_name,
                    last_name,
                    account: account.as_deref().cloned().unwrap_or_default(),
                    country,
                })?;
                print(g, &added, || format!("added: {}", line(&added)))
            }
            BeneficiariesCmd::Approve { id, seal } => {
                desk.records().approve_beneficiary(&TeamPayeeRow {
                    id,
                    sealed_sha256: seal.trim().to_ascii_lowercase(),
                })?;
                print(g, &serde_json::json!({ "approved": id }), || {
                    format!("approved: payee id={id}")
                })
            }
            BeneficiariesCmd::RequireApproval { state } => {
                let on = state == "on";
                desk.records().set_payee_approval(on)?;
                print(g, &serde_json::json!({ "payeeApproval": on }), || {
                    format!("a new payee needs another member's approval: {state}")
                })
            }
            BeneficiariesCmd::Remove { nickname } => {
                desk.records().remove_beneficiary(&nickname)?;
                print(
                    g,
                    &serde_json::json!({ "removed": nickname.trim() }),
                    || format!("removed: {}", nickname.trim()),
                )
            }
        }
    })
}

/// Says on stderr when a payout's account is one the book has never seen.
pub(super) fn new_payee_note(desk: &Desk, form: &PayoutForm) {
    if let Ok(p) = desk.money().payout_preview(form)
        && p.payee == Some(Payee::New)
    {
        eprintln!(
            "note: {} is not in the book of payees (never paid from the book); `paydesk beneficiaries add` keeps it",
            p.account
        );
    }
}

/// Says on stderr which rows of a bulk plan pay accounts the book has never seen.
pub(super) fn new_payee_rows(plan: &paydesk_core::bulk::BulkPlan) {
    let lines: Vec<String> = plan
        .rows
        .iter()
        .filter(|r| r.payout.payee == Some(Payee::New))
        .map(|r| r.line.to_string())
        .collect();
    if !lines.is_empty() {
        eprintln!(
            "{} rows pay accounts the book of payees has never seen: lines {}",
            lines.len(),
            lines.join(", ")
        );
    }
}
