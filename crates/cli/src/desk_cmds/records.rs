//! Commands that read: refunds, balances, the journal, the audit log.

use super::*;

pub fn refund(trade_no: String, refund_no: String, g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let desk = open(g).await?;
        let r = desk.refund(&trade_no, &refund_no).await?;
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
        let currencies = if currency.is_empty() {
            let seen = desk.with_cache(|c| paydesk_core::cache::distinct_currencies(c))?;
            if seen.is_empty() {
                vec!["USD".to_string()]
            } else {
                seen
            }
        } else {
            currency
        };
        let mut out = Vec::new();
        for c in currencies {
            out.push(desk.balance(&c).await?);
        }
        print(g, &out, || {
            out.iter()
                .map(|b| {
                    format!(
                        "{:<4} balance {:>16}  unchecked {:>16}  total {:>16}",
                        b.currency, b.balance, b.un_checked_balance, b.total_balance
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
    })
}

#[derive(Debug, Subcommand)]
pub enum JournalCmd {
    /// Entries of the journal, newest first.
    List {
        /// Only these statuses (pending, sending, accepted, rejected, unknown).
        #[arg(long, value_delimiter = ',')]
        status: Vec<String>,
        #[arg(long, default_value_t = 50)]
        limit: i64,
    },
    /// Look up every unknown outcome at the gateway.
    Reconcile,
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
                desk.journal_entries(&statuses, limit)?
            }
            JournalCmd::Reconcile => desk.reconcile_all().await?,
        };
        print(g, &entries, || {
            entries
                .iter()
                .map(|e| {
                    format!(
                        "#{:<5} {:<10} {:<26} {:<22} {}",
                        e.id,
                        e.status.as_str(),
                        e.mer_order_no,
                        e.trade_no.clone().unwrap_or_default(),
                        e.summary
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
    })
}

#[derive(Debug, Subcommand)]
pub enum AuditCmd {
    /// Check the hash chain; exit 1 if a row was edited, deleted or cut off.
    Verify,
    /// Recent rows.
    List {
        #[arg(long)]
        operation: Option<String>,
        #[arg(long, default_value_t = 50)]
        limit: i64,
    },
    /// Write the log to a CSV file.
    Export {
        path: PathBuf,
        #[arg(long)]
        operation: Option<String>,
    },
}

pub fn audit(cmd: AuditCmd, g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let desk = open(g).await?;
        match cmd {
            AuditCmd::Verify => {
                let check = desk.audit_verify()?;
                print(g, &check, || match &check.problem {
                    None => format!("audit chain intact: {} rows", check.rows),
                    Some(p) => format!("audit chain BROKEN: {p}"),
                })?;
                if check.ok {
                    Ok(())
                } else {
                    Err(Failure::Check("the audit log was tampered with".into()))
                }
            }
            AuditCmd::Export { path, operation } => {
                let n = desk.export_audit(
                    &paydesk_core::audit::AuditFilter {
                        operation,
                        ..Default::default()
                    },
                    &path,
                )?;
                print(g, &n, || {
                    format!("wrote {n} audit rows to {}", path.display())
                })
            }
            AuditCmd::List { operation, limit } => {
                let rows = desk.audit_list(&paydesk_core::audit::AuditFilter {
                    operation,
                    limit: Some(limit),
                    ..Default::default()
                })?;
                print(g, &rows, || {
                    rows.iter()
                        .map(|r| {
                            format!(
                                "#{:<6} {} {:<10} {:<24} {:<30} {:<18} {} ms",
                                r.id,
                                r.at,
                                r.operator,
                                r.operation,
                                r.identifiers,
                                r.result,
                                r.latency_ms
                            )
                        })
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
        let rows = desk.reversals(trade_no.as_deref())?;
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
        #[arg(long, default_value_t = 50)]
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
                let rows = desk.notifications(limit)?;
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
                let mut body = String::new();
                std::io::Read::read_to_string(&mut std::io::stdin(), &mut body)
                    .map_err(|e| Failure::Input(e.to_string()))?;
                let r = desk.verify_notification(&body)?;
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
