//! Commands that read: refunds, balances, the journal, the audit log.

use super::*;

pub fn refund(trade_no: String, refund_no: String, g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let desk = open(g).await?;
        let r = desk.money().refund(&trade_no, &refund_no).await?;
        let dict = desk.dictionary().clone();
        print(g, &r, || {
            let meaning = dict
                .meaning(paydesk_gateway::StateField::RefundState, &r.state)
                .map_or("unknown", |m| m.as_str());
            format!(
                "refund {} of {}: {} {} state {} ({meaning}), fee {}",
                r.refund_no,
                r.trade_no,
                r.refund_amount.map(|d| d.to_string()).unwrap_or_default(),
                r.refund_currency,
                r.state,
                r.trade_fee.map(|d| d.to_string()).unwrap_or_default()
            )
        })
    })
}

pub fn balance(currency: Vec<String>, g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let desk = open(g).await?;
        let out = desk.money().balances(&currency).await?;
        if out.is_empty() {
            return Err(Failure::Input(
                "no currency to ask about: the cache has no orders yet; name one with --currency"
                    .into(),
            ));
        }
        print(g, &out, || {
            out.iter()
                .map(|r| match (&r.snapshot, &r.error) {
                    (Some(b), _) => format!(
                        "{:<4} balance {:>16}  unchecked {:>16}  total {:>16}",
                        b.currency, b.balance, b.un_checked_balance, b.total_balance
                    ),
                    (None, Some(e)) => format!("{:<4} not answered: {e}", r.currency),
                    (None, None) => format!("{:<4} not answered", r.currency),
                })
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        // Every currency is shown; a failed one still fails the command.
        match out.into_iter().find_map(|r| r.error) {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    })
}

#[derive(Debug, Subcommand)]
pub enum JournalCmd {
    /// Entries of the journal, newest first.
    List {
        /// Only these statuses (pending, sending, accepted, rejected, unknown).
        #[arg(long, value_delimiter = ',')]
        status: Vec<String>,
        /// Rows to show (1 to 10000).
        #[arg(long, default_value_t = 50, allow_negative_numbers = true,
              value_parser = clap::value_parser!(i64).range(1..=10_000))]
        limit: i64,
    },
    /// Look up unknown outcomes at the gateway now (all, or one); exit 3 while any is
    /// still unknown. Nothing is ever sent again by this command.
    Reconcile {
        /// Only the entry with this order number (or reference).
        #[arg(long)]
        mer_order_no: Option<String>,
        /// Only the entry with this journal number.
        #[arg(long, conflicts_with = "mer_order_no")]
        id: Option<i64>,
    },
    /// Resolve by hand an unknown outcome the gateway's order list cannot prove: a card
    /// withdrawal, a review submission, or an operation whose orders the gateway's list
    /// does not show (conventions `listShows`), after checking with the gateway.
    Resolve {
        /// The journal number (`journal list` shows it).
        #[arg(allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..))]
        id: i64,
        /// It went through: mark it done.
        #[arg(long, conflicts_with = "retry", required_unless_present = "retry")]
        done: bool,
        /// It did not: make it sendable again with the same reference.
        #[arg(long)]
        retry: bool,
        /// What you checked (kept on the entry and in the audit log).
        #[arg(long)]
        reason: String,
    },
    /// What waits for a person, oldest first, each with the action that resolves it:
    /// send again under the same number (`journal resend`), look up now (`journal
    /// reconcile`), resolve with a reason (`journal resolve`).
    Attention,
    /// Send again, under its own number, a payout or payin the journal knows did not
    /// reach the gateway. A payout's account is kept masked, so it is given again
    /// (`--account`) and must be the payout's own; a PIX payin's payer CPF is read from
    /// stdin (or asked for without echo) and must be the payin's own. Nothing is sent
    /// otherwise.
    Resend {
        /// The journal number (`journal attention` shows it).
        #[arg(allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..))]
        id: i64,
        /// A payout's CLABE or card number, as first sent (payins take none).
        #[arg(long)]
        account: Option<String>,
    },
}

pub fn journal(cmd: JournalCmd, g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let desk = open(g).await?;
        let entries = match cmd {
            JournalCmd::List { status, limit } => {
                let statuses = status
                    .iter()
                    .map(|s| {
                        serde_json::from_value::<Status>(serde_json::Value::String(s.clone()))
                            .map_err(|_| Failure::Input(format!("--status: unknown status {s:?}")))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                desk.journal().entries(&statuses, limit)?
            }
            JournalCmd::Reconcile { mer_order_no, id } => {
                let one = match (mer_order_no, id) {
                    (Some(no), _) => Some(desk.journal().entry_by_number(&no)?.ok_or_else(|| {
                        Failure::Input(format!("--mer-order-no: no journal entry {no:?}"))
                    })?),
                    (None, Some(id)) => Some(desk.journal().entry(id)?),
                    (None, None) => None,
                };
                let entries = match one {
                    Some(e) => vec![desk.journal().reconcile_entry(&e, true).await?],
                    None => desk.journal().reconcile_all(true).await?,
                };
                return show_reconciled(g, &entries);
            }
            JournalCmd::Resolve {
                id,
                done,
                retry: _,
                reason,
            } => vec![desk.journal().resolve_entry(id, done, &reason)?],
            JournalCmd::Attention => {
                let items = desk.journal().needs_attention(1000)?;
                return print(g, &items, || {
                    if items.is_empty() {
                        return "nothing needs attention".into();
                    }
                    items
                        .iter()
                        .map(|a| {
                            format!(
                                "{}
       {}",
                                entry_line(&a.entry),
                                attention_step(a)
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                });
            }
            JournalCmd::Resend { id, account } => {
                let e = desk.journal().entry(id)?;
                if is_payin(e.operation) {
                    if account.is_some() {
                        return Err(Failure::Input(format!(
                            "--account: journal #{id} is a payin ({}): it is sent again without one",
                            e.mer_order_no
                        )));
                    }
                    // A PIX payer's CPF: never an argument (it would show in `ps`).
                    let tax_id = if e.request.get(paydesk_core::desk::PAYIN_TAX_ID).is_some() {
                        Some(super::money::read_private(
                            paydesk_core::desk::PAYIN_TAX_ID,
                            "The payer's CPF (not shown): ",
                        )?)
                    } else {
                        None
                    };
                    vec![
                        desk.journal().resend_payin(id, tax_id.as_deref().map(String::as_str))
                            .await?
                            .entry,
                    ]
                } else {
                    let account = account.unwrap_or_default();
                    vec![
                        paydesk_api::money::payout_resend(
                            desk.desk(),
                            id,
                            &account,
                            paydesk_api::money::After::Wait,
                        )
                        .await?
                        .entry,
                    ]
                }
            }
        };
        print(g, &entries, || {
            entries
                .iter()
                .map(entry_line)
                .collect::<Vec<_>>()
                .join("\n")
        })
    })
}

/// Whether the journal's operation is a payin (sent again by `journal resend` without an
/// account).
fn is_payin(op: paydesk_core::journal::JournalOperation) -> bool {
    use paydesk_core::journal::JournalOperation as Op;
    matches!(op, Op::V2Payment | Op::V1Payment | Op::V1VnBankPayment)
}

/// The command that resolves an entry needing a person.
fn attention_step(a: &paydesk_core::Attention) -> String {
    let id = a.entry.id;
    match a.action {
        paydesk_core::AttentionAction::SendAgain => match &a.account_field {
            Some(_) => format!(
                "not sent: send it again under {} with `paydesk journal resend {id} --account <the account>`",
                a.entry.mer_order_no
            ),
            None if is_payin(a.entry.operation) => format!(
                "not sent: send it again under {} with `paydesk journal resend {id}`{}",
                a.entry.mer_order_no,
                if a.entry
                    .request
                    .get(paydesk_core::desk::PAYIN_TAX_ID)
                    .is_some()
                {
                    " (the payer's CPF on stdin)"
                } else {
                    ""
                }
            ),
            None => format!(
                "not sent: run the same command again with --mer-order-no {}",
                a.entry.mer_order_no
            ),
        },
        paydesk_core::AttentionAction::LookUp => {
            format!("outcome unknown: `paydesk journal reconcile --id {id}` looks it up now")
        }
        paydesk_core::AttentionAction::Resolve => format!(
            "outcome unknown, and the gateway cannot prove it: check, then `paydesk journal resolve {id} --done|--retry --reason <what you checked>`"
        ),
    }
}

fn entry_line(e: &paydesk_core::journal::Entry) -> String {
    format!(
        "#{:<5} {:<10} {:<26} {:<22} {}{}",
        e.id,
        e.status.as_str(),
        e.mer_order_no,
        e.trade_no.clone().unwrap_or_default(),
        e.summary,
        super::money::purpose_words(e)
    )
}

/// Each looked-up entry with how it stands and why; exit 3 while any is unknown.
fn show_reconciled(g: &Global, entries: &[paydesk_core::journal::Entry]) -> Result<(), Failure> {
    print(g, &entries, || {
        if entries.is_empty() {
            return "no unknown outcomes".into();
        }
        entries
            .iter()
            .map(|e| {
                format!(
                    "{}\n       {}",
                    entry_line(e),
                    e.message.clone().unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    let unknown: Vec<&str> = entries
        .iter()
        .filter(|e| matches!(e.status, Status::Unknown | Status::Sending))
        .map(|e| e.mer_order_no.as_str())
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(Failure::Unknown(format!(
            "still unknown: {}; looked up again by the next `paydesk journal reconcile` (never sent again before the gateway proves it does not have them)",
            unknown.join(", ")
        )))
    }
}

#[derive(Debug, Subcommand)]
pub enum AuditCmd {
    /// Check the hash chain; exit 1 if a row was edited, deleted or cut off.
    Verify,
    /// Recent rows.
    List {
        #[arg(long)]
        operation: Option<String>,
        /// Rows to show (1 to 10000).
        #[arg(long, default_value_t = 50, allow_negative_numbers = true,
              value_parser = clap::value_parser!(i64).range(1..=10_000))]
        limit: i64,
    },
    /// When this profile's audit key was lost from the keyring while its log holds rows
    /// sealed with it: set the old log aside (its rows kept, readable with `audit
    /// archived`) and start a new chain under a new key. Refused while the key is there.
    NewLog,
    /// The logs set aside after their key was lost, or the rows of one (`--archive N`).
    Archived {
        #[arg(long)]
        archive: Option<i64>,
        /// Rows to show (1 to 10000).
        #[arg(long, default_value_t = 50, allow_negative_numbers = true,
              value_parser = clap::value_parser!(i64).range(1..=10_000))]
        limit: i64,
    },
    /// Write the log to a CSV file.
    Export {
        path: PathBuf,
        #[arg(long)]
        operation: Option<String>,
        /// Replace the file if it exists (otherwise an existing file is refused).
        #[arg(long)]
        force: bool,
    },
}

/// What `audit verify` checked, one line each.
fn checked_lines(c: &paydesk_core::audit::ChainCheck) -> Vec<String> {
    let mut lines = vec![format!(
        "  - {} rows read, numbered 1 to {} without a gap, each linked to the row before",
        c.rows, c.rows
    )];
    lines.push(match c.keyed_from {
        Some(1) => "  - every row's seal (HMAC-SHA-256 under this profile's key in the OS keyring)".into(),
        Some(k) => format!(
            "  - rows {k} on: their seal (HMAC-SHA-256 under this profile's key in the OS keyring); rows before {k}, written by an older version, by plain SHA-256 only"
        ),
        None => "  - no row is sealed with the keyring's key yet: rows are checked by plain SHA-256 only".into(),
    });
    lines.push(match c.anchored_rows {
        Some(n) => format!(
            "  - nothing cut from the end: the keyring recorded {n} rows and the last one's seal at the last write"
        ),
        None => "  - truncation NOT checked: the keyring holds no record of this log yet (it is made at the next write)".into(),
    });
    lines.push("  - the database's head record (row count and last seal)".into());
    lines.push(match &c.alert {
        Some(why) => format!("  - an entry could NOT be written (recorded in the keyring): {why}"),
        None => "  - no failed write recorded in the keyring".into(),
    });
    lines
}

pub fn audit(cmd: AuditCmd, g: &Global) -> Result<(), Failure> {
    if let AuditCmd::NewLog = cmd {
        // The desk does not open while its key is lost: this works without it.
        let session = session()?;
        let name = match &g.profile {
            Some(p) => p.clone(),
            None => session.active_profile()?,
        };
        let new =
            paydesk_core::desk::start_new_audit_log(session.home(), &session.secrets()?, &name)?;
        return print(g, &new, || {
            format!(
                "started a new audit log for {name}: the old log's {} rows ({} sealed with the lost key) are kept as archive {} (`paydesk audit archived --archive {}`); the new chain starts at row {} ({})",
                new.archive.rows,
                new.archive.sealed_rows,
                new.archive.archive,
                new.archive.archive,
                new.first_row.id,
                new.first_row.operation
            )
        });
    }
    runtime()?.block_on(async {
        let desk = open(g).await?;
        match cmd {
            AuditCmd::NewLog => Ok(()),
            AuditCmd::Archived { archive: None, .. } => {
                let list = desk.journal().audit_archives()?;
                print(g, &list, || {
                    if list.is_empty() {
                        return "no audit log was set aside".into();
                    }
                    list.iter()
                        .map(|a| {
                            format!(
                                "archive {}: {} rows ({} sealed with a lost key, not checkable), set aside at {}: {}",
                                a.archive, a.rows, a.sealed_rows, a.archived_at, a.reason
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                })
            }
            AuditCmd::Archived {
                archive: Some(n),
                limit,
            } => {
                let rows = desk.journal().audit_archived_rows(n, limit)?;
                print(g, &rows, || {
                    let mut lines = vec![format!(
                        "archive {n}: sealed with a lost key, kept as written but not checkable"
                    )];
                    lines.extend(rows.iter().map(audit_line));
                    lines.join("\n")
                })
            }
            AuditCmd::Verify => {
                let check = desk.journal().audit_verify()?;
                // On a team desk: what the check against this desk's keyring anchor found
                // when it connected (a cut or rewritten team chain), said here too.
                let team_problem = desk.journal().team_chain_problem();
                print(g, &check, || {
                    let head = match &check.problem {
                        None => format!("audit chain intact: {} rows", check.rows),
                        Some(p) => format!("audit chain BROKEN: {p}"),
                    };
                    let team = team_problem
                        .map(|why| format!("\nthe team's audit chain FAILED this desk's check when it connected: {why}"))
                        .unwrap_or_default();
                    format!(
                        "{head}{team}\nchecked:\n{}",
                        checked_lines(&check).join("\n")
                    )
                })?;
                if team_problem.is_some() {
                    Err(Failure::Check(
                        "the team's audit chain was cut or rewritten".into(),
                    ))
                } else if check.ok {
                    Ok(())
                } else {
                    Err(Failure::Check("the audit log was tampered with".into()))
                }
            }
            AuditCmd::Export {
                path,
                operation,
                force,
            } => {
                let n = desk.journal().export_audit(
                    &paydesk_core::audit::AuditFilter {
                        operation,
                        ..Default::default()
                    },
                    &path,
                    paydesk_core::output::Existing::replace_if(force),
                )?;
                print(g, &n, || {
                    format!("wrote {n} audit rows to {}", path.display())
                })
            }
            AuditCmd::List { operation, limit } => {
                let rows = desk.journal().audit_list(&paydesk_core::audit::AuditFilter {
                    operation,
                    limit: Some(limit),
                    ..Default::default()
                })?;
                print(g, &rows, || {
                    rows.iter()
                        .map(audit_line)
                        .collect::<Vec<_>>()
                        .join("\n")
                })
            }
        }
    })
}

pub fn reversals(trade_no: Option<String>, g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let desk = open(g).await?;
        let rows = desk.orders().reversals(trade_no.as_deref())?;
        print(g, &rows, || {
            rows.iter()
                .map(|r| {
                    format!(
                        "{:<10} {:<22} {:<24} {:>12} {:<4} state {}",
                        r.kind,
                        r.trade_no,
                        r.refund_no,
                        r.amount.clone().unwrap_or_default(),
                        r.currency,
                        r.state
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
    })
}

#[derive(Debug, Subcommand)]
pub enum EventsCmd {
    /// Notifications received at this desk, newest first.
    List {
        /// Rows to show (1 to 10000).
        #[arg(long, default_value_t = 50, allow_negative_numbers = true,
              value_parser = clap::value_parser!(i64).range(1..=10_000))]
        limit: i64,
    },
    /// Check a notification body read from stdin against the gateway's key (exit 1 if
    /// the signature is not valid).
    Verify,
}

pub fn events(cmd: EventsCmd, g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let desk = open(g).await?;
        match cmd {
            EventsCmd::List { limit } => {
                let rows = desk.records().notifications(limit)?;
                print(g, &rows, || {
                    rows.iter()
                        .map(|n| {
                            format!(
                                "#{:<5} {:<11} {:<22} signature {}",
                                n.id,
                                n.kind,
                                n.trade_no,
                                if n.signature_ok { "valid" } else { "INVALID" }
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                })
            }
            EventsCmd::Verify => {
                let body = paydesk_core::input::read_stdin(paydesk_core::input::MAX_DOCUMENT_BYTES)
                    .map_err(Failure::Input)?;
                let r = desk.records().verify_notification(&body)?;
                print(g, &r, || match &r.problem {
                    None => format!("valid: {} notification for {}", r.kind, r.trade_no),
                    Some(p) => format!("invalid: {p}"),
                })?;
                if r.signature_ok {
                    Ok(())
                } else {
                    Err(Failure::Check(
                        "the notification's signature is not valid".into(),
                    ))
                }
            }
        }
    })
}

/// The review queue: bank-transfer orders that need or have review documents, what waits
/// for a person first and oldest first.
pub fn review_queue(g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let desk = open(g).await?;
        let rows = desk.records().review_queue()?;
        print(g, &rows, || {
            if rows.is_empty() {
                return "no bank-transfer order needs or has review documents".into();
            }
            rows.iter()
                .map(|r| {
                    format!(
                        "{:<22} {:<26} {:<16} waiting {:>8} {} submission(s), {} file(s) in the last",
                        r.trade_no,
                        r.mer_order_no,
                        serde_json::to_value(r.status)
                            .ok()
                            .and_then(|v| v.as_str().map(str::to_string))
                            .unwrap_or_default(),
                        age(r.age_secs),
                        r.submissions,
                        r.files
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
    })
}

/// Seconds as the two largest units: `45s`, `12m`, `3h05m`, `2d04h`.
fn age(s: i64) -> String {
    match s {
        ..60 => format!("{s}s"),
        60..3_600 => format!("{}m", s / 60),
        3_600..86_400 => format!("{}h{:02}m", s / 3_600, s % 3_600 / 60),
        _ => format!("{}d{:02}h", s / 86_400, s % 86_400 / 3_600),
    }
}

/// Files for several orders matched to the queue's orders by the order number in their
/// names (a whole token: see the README); exit 1 when one is ambiguous or unmatched.
pub fn review_match(paths: Vec<String>, g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let desk = open(g).await?;
        let rows = desk.records().review_match(&paths)?;
        print(g, &rows, || {
            rows.iter()
                .map(|m| match (&m.trade_no, m.status) {
                    (Some(t), _) => format!("{t:<22} {}", m.path),
                    (None, paydesk_core::review_match::MatchStatus::Ambiguous) => {
                        format!(
                            "{:<22} {} (orders {})",
                            "ambiguous",
                            m.path,
                            m.candidates.join(", ")
                        )
                    }
                    _ => format!("{:<22} {}", "unmatched", m.path),
                })
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        let left = rows.iter().filter(|m| m.trade_no.is_none()).count();
        if left > 0 {
            return Err(Failure::Check(format!(
                "{left} file(s) not matched to exactly one order"
            )));
        }
        Ok(())
    })
}

/// One audit row as `audit list` prints it: one line, whatever its text holds. A line
/// break, an escape sequence or a direction-changing character in a row (a team member
/// may write any text in their own rows) is printed escaped (`\n`, `\u{1b}`,
/// `\u{202e}`), so no row prints as lines of another operator's.
fn audit_line(r: &paydesk_core::audit::AuditEntry) -> String {
    use paydesk_api::records::escaped;
    format!(
        "#{:<6} {} {:<10} {:<24} {:<30} {:<18} {} ms",
        r.id,
        r.at,
        escaped(&r.operator),
        escaped(&r.operation),
        escaped(&r.identifiers),
        escaped(&r.result),
        r.latency_ms
    )
}

#[cfg(test)]
mod tests {
    use super::audit_line;

    /// A row whose identifiers carry a forged second line and whose result carries an
    /// ANSI erase and a right-to-left override prints as one line of plain text, the
    /// forged text visible, escaped; a payee's letters print as they are.
    #[test]
    fn an_audit_row_prints_as_one_line_of_visible_text() {
        let row = paydesk_core::audit::AuditEntry {
            id: 8,
            at: 1_764_201_000_000,
            profile: "desk".into(),
            operator: "vic".into(),
            operation: "export".into(),
            identifiers: "x\n#9      1764201000000 apo        team.request.approved    request=2"
                .into(),
            result: "ok\u{1b}[2K\r\u{202e}José".into(),
            latency_ms: 0,
            prev_hash: String::new(),
            hash: String::new(),
            db_user: None,
        };
        let line = audit_line(&row);
        assert_eq!(line.lines().count(), 1, "{line}");
        assert!(
            !line
                .chars()
                .any(|c| c.is_control() || ('\u{2028}'..='\u{202e}').contains(&c)),
            "{line:?}"
        );
        assert!(line.contains(r"x\n#9"), "{line}");
        assert!(line.contains(r"ok\u{1b}[2K\r\u{202e}José"), "{line}");
        assert!(line.starts_with("#8      1764201000000 vic "), "{line}");
    }
}
