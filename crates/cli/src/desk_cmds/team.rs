//! `paydesk team` and `paydesk approvals`: a team's database, its members and rules,
//! requests, approvals, and the signer's worker.

use paydesk_api::team::PgConfig;
use paydesk_api::team::{self, Request, RequestState, RuleInput, Team, TeamRole};
use paydesk_core::forms::CardMove;

use super::*;

#[derive(Debug, Subcommand)]
pub enum TeamCmd {
    /// Create or update the team's schema, roles and policies in a database, as its
    /// owner: a role with CREATEROLE that owns the database and is not a superuser (a
    /// superuser is refused). The password is read from PAYDESK_TEAM_PASSWORD or asked
    /// for.
    Init {
        #[command(flatten)]
        db: DbArgs,
        /// The merchant the team works for.
        #[arg(long, value_parser = clap::value_parser!(i64).range(1..))]
        mer_no: i64,
    },
    /// The team's members.
    #[command(subcommand)]
    User(UserCmd),
    /// Approval rules.
    #[command(subcommand)]
    Rules(RulesCmd),
    /// Members' payout limits per currency, held by the team's database (issue 35).
    #[command(subcommand)]
    Limits(LimitsCmd),
    /// Make a request for approval (makers).
    #[command(subcommand)]
    Request(RequestCmd),
    /// Who this profile's team user is, and its roles.
    Whoami,
    /// Trust the key the team's database now holds for sealing card numbers and tax
    /// ids: a maker's desk seals nothing before (a key published first is not trusted
    /// for that). Compare its fingerprint with the one a signer or the database's owner
    /// gives you; again after the owner replaced it (the merchant key rotated).
    TrustSealKey {
        /// The key's SHA-256 fingerprint (hex, 16 digits at least) you were given:
        /// another key is refused. Required: trusting whatever key the database holds
        /// would let whoever can write it read what the desk seals.
        #[arg(long)]
        fingerprint: String,
    },
    /// Execute approved requests as they come (signers; the key stays in this
    /// machine's keyring). Stops on Ctrl-C.
    Worker {
        /// Execute what is waiting now, then stop.
        #[arg(long)]
        once: bool,
        /// Look for approved requests at least this often (seconds), besides the
        /// database's notifications.
        #[arg(long, default_value_t = paydesk_api::team::POLL_SECS, value_parser = clap::value_parser!(u64).range(1..=paydesk_api::team::POLL_SECS_MAX))]
        poll_secs: u64,
        /// Between requests, sync the team's orders from the gateway and snapshot the
        /// balances this often (minutes; 0: never), so members' desks show them.
        #[arg(long, default_value_t = paydesk_api::team::UPKEEP_EVERY_MINS, value_parser = clap::value_parser!(u64).range(0..=paydesk_api::team::UPKEEP_EVERY_MINS_MAX))]
        sync_every_mins: u64,
        /// The days each of those syncs covers (windows already complete are skipped).
        #[arg(long, default_value_t = paydesk_api::team::UPKEEP_DAYS, value_parser = clap::value_parser!(i64).range(1..=paydesk_api::team::UPKEEP_DAYS_MAX))]
        sync_days: i64,
    },
}

/// Where the team's database is.
#[derive(Debug, Args)]
pub struct DbArgs {
    #[arg(long)]
    host: String,
    #[arg(long, default_value_t = 5432)]
    port: u16,
    #[arg(long)]
    database: String,
    #[arg(long)]
    user: String,
    /// A PEM file of the certificate authorities of a private PKI that signs the server's
    /// certificate (default: the system's roots; any certificate on loopback).
    #[arg(long, default_value = "")]
    ca_file: String,
}

#[derive(Debug, Subcommand)]
pub enum UserCmd {
    /// Add a new member with a role (admins). The password is read from
    /// PAYDESK_NEW_PASSWORD or asked for. An existing member, the database's owner, a
    /// superuser or any other role of the server the team did not make is refused.
    Add {
        name: String,
        #[arg(long)]
        role: String,
    },
    /// Give a member exactly these roles (comma-separated): the roles held before and
    /// not listed are taken away (admins).
    Role {
        name: String,
        #[arg(long, value_delimiter = ',', required = true)]
        role: Vec<String>,
    },
    /// Set a member's password (admins; audited). Read from PAYDESK_NEW_PASSWORD or
    /// asked for.
    Password { name: String },
    /// List the members and their roles.
    List,
    /// Remove a member (their login is disabled; what they did stays in the log).
    Remove { name: String },
}

#[derive(Debug, Subcommand)]
pub enum RulesCmd {
    List,
    /// Add a rule or change the approvals of an existing one (admins).
    Set {
        /// payout, payin, top_up, withdraw or * (any).
        #[arg(long, default_value = "payout")]
        operation: String,
        /// An ISO 4217 code or * (any).
        #[arg(long)]
        currency: String,
        /// The rule applies to requests whose total is above this amount.
        #[arg(long, allow_hyphen_values = true)]
        above: String,
        /// Distinct approvers other than the maker (1 to 5).
        #[arg(long, allow_negative_numbers = true)]
        approvals: i32,
    },
    Remove {
        id: i64,
    },
    /// The approvals a request needs when no rule names its operation and currency
    /// (admins; 1 unless set).
    Default {
        #[arg(long, value_parser = clap::value_parser!(i32).range(0..=5))]
        approvals: i32,
    },
}

#[derive(Debug, Subcommand)]
pub enum LimitsCmd {
    List,
    /// Set a member's limits in a currency (admins): the most one payout row may be,
    /// and the most the member's payout rows of one day may add up to. Neither given:
    /// the member's limits in that currency are cleared.
    Set {
        #[arg(long)]
        member: String,
        #[arg(long)]
        currency: String,
        #[arg(long)]
        per_payout: Option<String>,
        #[arg(long)]
        per_day: Option<String>,
        /// The zone of the day (a time zone name such as America/Mexico_City, or UTC).
        #[arg(long, default_value = "UTC")]
        day_zone: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum RequestCmd {
    /// A CLABE payout.
    Payout {
        #[arg(long, allow_hyphen_values = true)]
        amount: String,
        #[arg(long)]
        currency: String,
        #[arg(long, required_unless_present = "beneficiary", default_value = "")]
        clabe: String,
        /// A payee of the team's book by nickname, instead of the CLABE: the request
        /// names the payee; its account stays sealed to the signers.
        #[arg(long, conflicts_with = "clabe", default_value = "")]
        beneficiary: String,
        /// Fixed now if not given.
        #[arg(long)]
        mer_order_no: Option<String>,
        #[command(flatten)]
        why: super::money::PurposeArgs,
    },
    /// A bulk payout file (CSV), approved as one batch.
    Bulk {
        file: PathBuf,
        /// The batch's purpose and reference, for rows without a `purpose` column's.
        #[command(flatten)]
        why: super::money::PurposeArgs,
    },
    /// A payout to a card. The card number is read from stdin (one line) or asked for
    /// without echo, and sealed to the signers: the team's database never holds it
    /// readable.
    CardPayout {
        #[arg(long, allow_hyphen_values = true)]
        amount: String,
        #[arg(long)]
        currency: String,
        #[arg(long)]
        first_name: String,
        #[arg(long)]
        last_name: String,
        #[arg(long, default_value = "")]
        country: String,
        #[arg(long, default_value = "")]
        address_line: String,
        #[arg(long, default_value = "")]
        city: String,
        /// The beneficiary's state or province.
        #[arg(long, default_value = "")]
        state: String,
        #[arg(long, default_value = "")]
        post_code: String,
        /// Fixed now if not given.
        #[arg(long)]
        mer_order_no: Option<String>,
        #[command(flatten)]
        why: super::money::PurposeArgs,
    },
    /// A payin: once a signer creates it, `approvals show` gives its payment link. A
    /// PIX payer's tax id is read from stdin or asked for, and sealed to the signers.
    Payin(Box<super::money::PayinArgs>),
    /// A card's top-up.
    TopUp {
        /// The card's application number.
        #[arg(long)]
        card: String,
        #[arg(long, allow_hyphen_values = true)]
        amount: String,
        #[arg(long)]
        currency: String,
        /// Fixed now if not given.
        #[arg(long)]
        reference: Option<String>,
        /// What the money is for.
        #[arg(long, default_value = "")]
        purpose: String,
        /// A ticket or invoice number for it (`--reference` is the top-up's own number).
        #[arg(long, default_value = "")]
        purpose_ref: String,
    },
    /// A card's withdrawal.
    Withdraw {
        #[arg(long)]
        card: String,
        #[arg(long, allow_hyphen_values = true)]
        amount: String,
        #[arg(long)]
        currency: String,
        /// Fixed now if not given.
        #[arg(long)]
        reference: Option<String>,
        /// What the money is for.
        #[arg(long, default_value = "")]
        purpose: String,
        /// A ticket or invoice number for it (`--reference` is the withdrawal's own number).
        #[arg(long, default_value = "")]
        purpose_ref: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum ApprovalsCmd {
    /// Requests (default: those waiting for approval).
    List {
        /// waiting, approved, rejected, executing, done, or all.
        #[arg(long, default_value = "waiting")]
        state: String,
    },
    /// A request and its rows.
    Show {
        id: i64,
    },
    Approve {
        id: i64,
    },
    Reject {
        id: i64,
        #[arg(long)]
        reason: String,
    },
}

/// A password from an environment variable, or asked for on the terminal.
fn password(var: &str, prompt: &str) -> Result<zeroize::Zeroizing<String>, Failure> {
    if let Ok(p) = std::env::var(var) {
        return Ok(zeroize::Zeroizing::new(p));
    }
    rpassword::prompt_password(prompt)
        .map(zeroize::Zeroizing::new)
        .map_err(|e| Failure::Input(format!("cannot read the password: {e}")))
}

/// The team of the profile asked for (its database user's password in the keyring).
fn connect(g: &Global) -> Result<Team, Failure> {
    let session = session()?;
    let name = match &g.profile {
        Some(n) => n.clone(),
        None => session.active_profile()?,
    };
    Ok(paydesk_api::team::connect(
        session.home(),
        session.secrets()?,
        &name,
    )?)
}

fn request_line(r: &Request) -> String {
    format!(
        "#{:<5} {:<9} {:<7} {:>14} {} {:>5} rows  by {:<12} {}/{} approvals  {}",
        r.id,
        r.state.as_str(),
        r.operation,
        r.total,
        r.currency,
        r.row_count,
        r.maker,
        r.approvals(),
        r.approvals_needed,
        r.summary
    )
}

pub fn team(cmd: TeamCmd, g: &Global) -> Result<(), Failure> {
    match cmd {
        TeamCmd::Init { db, mer_no } => {
            let cfg = PgConfig {
                host: db.host,
                port: db.port,
                database: db.database,
                user: db.user,
                ca_file: db.ca_file,
                cert_file: String::new(),
                key_file: String::new(),
            };
            let pw = password("PAYDESK_TEAM_PASSWORD", "the database owner's password: ")?;
            let paydesk_api::team::Initialized {
                applied,
                missing_grants: missing,
            } = paydesk_api::team::init(&cfg, &pw, mer_no)?;
            if !missing.is_empty() {
                eprintln!(
                    "warning: the owner {user} lacks {list}, so no member's stalling session can be ended: a step another member's open transaction holds up waits its bound (30 s) and fails. As a superuser run: GRANT {list} TO {user}",
                    user = cfg.user,
                    list = missing.join(", ")
                );
            }
            print(g, &applied, || {
                format!(
                    "the team schema of merchant {mer_no} is ready in {} ({applied} migration(s) applied); add members with `paydesk team user add`",
                    cfg.database
                )
            })
        }
        TeamCmd::TrustSealKey { fingerprint } => {
            let t = connect(g)?;
            let trusted = t.trust_seal_key(Some(fingerprint.as_str()))?;
            print(g, &trusted, || {
                format!(
                    "this desk now seals card numbers and tax ids to the key with SHA-256 fingerprint {trusted}"
                )
            })
        }
        TeamCmd::Whoami => {
            let t = connect(g)?;
            let me = t.me().clone();
            print(g, &me, || {
                let roles: Vec<&str> = me.roles.iter().map(|r| r.as_str()).collect();
                format!(
                    "{} ({}) in the team of merchant {}",
                    me.name,
                    if roles.is_empty() {
                        "no team role".to_string()
                    } else {
                        roles.join(", ")
                    },
                    t.mer_no()
                )
            })
        }
        TeamCmd::User(UserCmd::Add { name, role }) => {
            let role = TeamRole::parse(&role)?;
            let t = connect(g)?;
            let pw = password("PAYDESK_NEW_PASSWORD", &format!("{name}'s new password: "))?;
            let holds = t.add_member(&name, role, &pw)?;
            print(g, &true, || {
                format!("{name} is a member of the team: {holds}")
            })
        }
        TeamCmd::User(UserCmd::Role { name, role }) => {
            let roles = role
                .iter()
                .map(|r| TeamRole::parse(r))
                .collect::<Result<Vec<_>, _>>()?;
            let holds = connect(g)?.set_member_roles(&name, &roles)?;
            print(g, &holds, || format!("{name} now holds: {holds}"))
        }
        TeamCmd::User(UserCmd::Password { name }) => {
            let t = connect(g)?;
            let pw = password("PAYDESK_NEW_PASSWORD", &format!("{name}'s new password: "))?;
            t.reset_member_password(&name, &pw)?;
            print(g, &true, || format!("{name}'s password was set"))
        }
        TeamCmd::User(UserCmd::List) => {
            let members = connect(g)?.members()?;
            print(g, &members, || {
                members
                    .iter()
                    .map(|m| {
                        let roles: Vec<&str> = m.roles.iter().map(|r| r.as_str()).collect();
                        format!(
                            "{:<20} {:<30} added by {}",
                            m.name,
                            roles.join(","),
                            m.added_by
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
        TeamCmd::User(UserCmd::Remove { name }) => {
            connect(g)?.remove_member(&name)?;
            print(g, &true, || format!("{name} was removed from the team"))
        }
        TeamCmd::Rules(RulesCmd::Default { approvals }) => {
            connect(g)?.set_default_approvals(approvals)?;
            print(g, &approvals, || {
                format!("a request no rule names needs {approvals} approval(s)")
            })
        }
        TeamCmd::Rules(RulesCmd::List) => {
            let t = connect(g)?;
            let rules = t.rules()?;
            let default = t.default_approvals()?;
            print(g, &rules, || {
                if rules.is_empty() {
                    return format!(
                        "no rules: every request needs the team's default, {default} approval(s)"
                    );
                }
                rules
                    .iter()
                    .map(|r| {
                        format!(
                            "#{:<4} {:<7} {:<4} above {:>14}: {} approver(s)",
                            r.id, r.operation, r.currency, r.above, r.approvals
                        )
                    })
                    .chain([format!(
                        "otherwise (no rule names the operation and currency): {default} approver(s)"
                    )])
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
        TeamCmd::Rules(RulesCmd::Set {
            operation,
            currency,
            above,
            approvals,
        }) => {
            let input = RuleInput {
                operation,
                currency,
                above,
                approvals,
            };
            // Its own rules first: a wrong threshold is named before any connection.
            input.check()?;
            let rule = connect(g)?.set_rule(&input)?;
            print(g, &rule, || {
                format!(
                    "rule #{}: {} {} above {} needs {} approver(s)",
                    rule.id, rule.operation, rule.currency, rule.above, rule.approvals
                )
            })
        }
        TeamCmd::Limits(LimitsCmd::List) => {
            let limits = connect(g)?.member_limits()?;
            print(g, &limits, || {
                if limits.is_empty() {
                    return "no member has payout limits".into();
                }
                limits
                    .iter()
                    .map(|l| {
                        format!(
                            "{} {}: per payout {}, per day {} (days in {}), set by {}",
                            l.member,
                            l.currency,
                            l.per_payout.as_deref().unwrap_or("none"),
                            l.per_day.as_deref().unwrap_or("none"),
                            l.day_zone,
                            l.set_by
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
        TeamCmd::Limits(LimitsCmd::Set {
            member,
            currency,
            per_payout,
            per_day,
            day_zone,
        }) => {
            let limit = team::MemberLimit {
                member,
                currency,
                per_payout,
                per_day,
                day_zone,
                set_by: String::new(),
            };
            connect(g)?.set_member_limit(&limit)?;
            print(g, &true, || {
                format!(
                    "{} {}: per payout {}, per day {}",
                    limit.member,
                    limit.currency.to_ascii_uppercase(),
                    limit.per_payout.as_deref().unwrap_or("none"),
                    limit.per_day.as_deref().unwrap_or("none")
                )
            })
        }
        TeamCmd::Rules(RulesCmd::Remove { id }) => {
            connect(g)?.remove_rule(id)?;
            print(g, &true, || format!("rule #{id} removed"))
        }
        TeamCmd::Request(RequestCmd::Payout {
            amount,
            currency,
            clabe,
            beneficiary,
            mer_order_no,
            why,
        }) => {
            let mut form = paydesk_core::forms::PayoutForm::new(
                paydesk_core::forms::PayoutKind::Clabe,
                &mer_order_no.unwrap_or_default(),
                &amount,
                &currency,
            );
            form.clabe = clabe;
            form.beneficiary = beneficiary;
            form.purpose = why.purpose();
            // The amount's rules first (a negative amount is named as such), before any
            // connection.
            paydesk_gateway::validate::currency("currency", form.currency.trim())
                .and_then(|()| {
                    paydesk_gateway::validate::amount(
                        "amount",
                        form.amount.trim(),
                        form.currency.trim(),
                    )
                })
                .map_err(CoreError::from)?;
            let r = connect(g)?.request_payout(&form)?;
            print(g, &r, || request_line(&r))
        }
        TeamCmd::Request(RequestCmd::Bulk { file, why }) => {
            let bytes =
                paydesk_core::input::read_file(&file, paydesk_core::input::MAX_DOCUMENT_BYTES)
                    .map_err(|rule| Failure::Input(format!("file: {rule}")))?;
            let r =
                connect(g)?.request_bulk_for(&file.to_string_lossy(), &bytes, &why.purpose())?;
            print(g, &r, || request_line(&r))
        }
        TeamCmd::Request(RequestCmd::CardPayout {
            amount,
            currency,
            first_name,
            last_name,
            country,
            address_line,
            city,
            state,
            post_code,
            mer_order_no,
            why,
        }) => {
            let card_no = super::money::read_private("cardNo", "Card number (not shown): ")?;
            let form = paydesk_core::forms::PayoutForm {
                purpose: why.purpose(),
                card_no: card_no.to_string(),
                first_name,
                last_name,
                country_code: country,
                address_line,
                city,
                state,
                post_code,
                ..paydesk_core::forms::PayoutForm::new(
                    paydesk_core::forms::PayoutKind::Card,
                    &mer_order_no.unwrap_or_default(),
                    &amount,
                    &currency,
                )
            };
            let r = connect(g)?.request_payout(&form)?;
            print(g, &r, || request_line(&r))
        }
        TeamCmd::Request(RequestCmd::Payin(a)) => {
            let mut form = super::money::payin_form(&a, true)?;
            if !a.has_number() {
                // The team makes the number (a CLI default would be a desk's).
                form.mer_order_no.clear();
            }
            let r = connect(g)?.request_payin(&form)?;
            print(g, &r, || request_line(&r))
        }
        TeamCmd::Request(RequestCmd::TopUp {
            card,
            amount,
            currency,
            reference,
            purpose,
            purpose_ref,
        }) => card_request(
            g,
            CardMove::TopUp,
            (card, amount, currency, reference),
            paydesk_core::purpose::Purpose::new(purpose, purpose_ref),
        ),
        TeamCmd::Request(RequestCmd::Withdraw {
            card,
            amount,
            currency,
            reference,
            purpose,
            purpose_ref,
        }) => card_request(
            g,
            CardMove::Withdraw,
            (card, amount, currency, reference),
            paydesk_core::purpose::Purpose::new(purpose, purpose_ref),
        ),
        TeamCmd::Worker {
            once,
            poll_secs,
            sync_every_mins,
            sync_days,
        } => {
            let options = paydesk_api::team::WorkerOptions {
                poll_secs,
                sync_every_mins,
                sync_days,
            };
            options.check()?;
            worker(g, once, options)
        }
    }
}

fn card_request(
    g: &Global,
    kind: CardMove,
    (card, amount, currency, reference): (String, String, String, Option<String>),
    purpose: paydesk_core::purpose::Purpose,
) -> Result<(), Failure> {
    let form = paydesk_core::forms::CardForm {
        purpose,
        kind,
        card,
        reference: reference.unwrap_or_default(),
        amount,
        currency,
        sub_mer_no: String::new(),
        remark: String::new(),
    };
    let r = connect(g)?.request_card(&form)?;
    print(g, &r, || request_line(&r))
}

fn worker(
    g: &Global,
    once: bool,
    options: paydesk_api::team::WorkerOptions,
) -> Result<(), Failure> {
    let rt = runtime()?;
    rt.block_on(async {
        let desk = open(g).await?;
        let t = paydesk_api::team::of_desk(&desk)?;
        if !t.has_role(TeamRole::Signer) {
            return Err(Failure::Input(format!(
                "{} is not a signer of the team: only signers execute requests",
                t.me().name
            )));
        }
        if once {
            let mut done = Vec::new();
            while let Some(e) = team::execute_next(&desk, &t).await? {
                let finished = e.done;
                done.push(e);
                if !finished {
                    break;
                }
            }
            return print(g, &done, || {
                if done.is_empty() {
                    return "nothing to execute".into();
                }
                done.iter()
                    .map(executed_line)
                    .collect::<Vec<_>>()
                    .join("\n")
            });
        }
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                s.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        });
        eprintln!(
            "working for merchant {} as {}; Ctrl-C stops",
            t.mer_no(),
            t.me().name
        );
        // The profile's background duties run while the worker does, as in the app: its
        // scheduled reports (this machine's schedules: `paydesk schedule add`) and its
        // scheduled balance snapshot; stopped with the desk.
        let schedules = paydesk_api::duties::keep_running(
            desk.desk(),
            session()?.home().clone(),
            paydesk_api::duties::By::Worker,
            paydesk_api::duties::TICK,
            |run| eprintln!("scheduled report: {}", super::schedule::run_line(run)),
        );
        let json = g.json;
        let worked = team::work(
            &desk,
            &t,
            &stop,
            options.poll(),
            options.upkeep(),
            |event| match event {
                team::WorkEvent::Executed(e) if json => {
                    println!("{}", serde_json::to_string(e).unwrap_or_default());
                }
                team::WorkEvent::Executed(e) => println!("{}", executed_line(e)),
                team::WorkEvent::Upkeep(line) => eprintln!("{line}"),
                team::WorkEvent::Error(e) => eprintln!(
                    "{}",
                    paydesk_gateway::redact::terminal_safe(&e.to_string(), LINE_MAX)
                ),
            },
        )
        .await;
        schedules.abort();
        worked?;
        Ok(())
    })
}

fn executed_line(e: &team::Executed) -> String {
    format!(
        "request #{}: {} accepted, {} rejected, {} failed, {} unknown{}",
        e.request,
        e.accepted,
        e.rejected,
        e.failed,
        e.unknown,
        if e.done {
            ""
        } else {
            " (taken up again later)"
        }
    )
}

pub fn approvals(cmd: ApprovalsCmd, g: &Global) -> Result<(), Failure> {
    let t = connect(g)?;
    match cmd {
        ApprovalsCmd::List { state } => {
            let states = match state.as_str() {
                "all" => vec![],
                "waiting" => vec![RequestState::Waiting],
                "approved" => vec![RequestState::Approved],
                "rejected" => vec![RequestState::Rejected],
                "executing" => vec![RequestState::Executing],
                "done" => vec![RequestState::Done],
                other => {
                    return Err(Failure::Input(format!(
                        "--state {other:?}: waiting, approved, rejected, executing, done or all"
                    )));
                }
            };
            let list = t.requests(&states, 500)?;
            print(g, &list, || {
                if list.is_empty() {
                    return "no requests".into();
                }
                list.iter().map(request_line).collect::<Vec<_>>().join("\n")
            })
        }
        ApprovalsCmd::Show { id } => {
            let r = t.request(id)?;
            let rows = t.rows(id)?;
            #[derive(Serialize)]
            struct Shown<'a> {
                request: &'a Request,
                rows: &'a [team::RequestRow],
            }
            print(
                g,
                &Shown {
                    request: &r,
                    rows: &rows,
                },
                || {
                    let mut out = vec![request_line(&r)];
                    for d in &r.decisions {
                        out.push(format!(
                            "  {} by {}{}",
                            if d.approve { "approved" } else { "rejected" },
                            d.member,
                            d.reason
                                .as_deref()
                                .map(|x| format!(": {x}"))
                                .unwrap_or_default()
                        ));
                    }
                    if let Some(o) = &r.outcome {
                        out.push(format!("  outcome: {o}"));
                    }
                    for row in &rows {
                        out.push(format!(
                            "  {:>5} {:<28} {:>14} {:<30} {:<9} {}",
                            row.row_no,
                            row.mer_order_no,
                            row.amount,
                            row.beneficiary,
                            row.state.as_str(),
                            row.trade_no
                                .as_deref()
                                .or(row.message.as_deref())
                                .unwrap_or("")
                        ));
                    }
                    out.join("\n")
                },
            )
        }
        ApprovalsCmd::Approve { id } => {
            let r = t.approve(id)?;
            print(g, &r, || request_line(&r))
        }
        ApprovalsCmd::Reject { id, reason } => {
            let r = t.reject(id, &reason)?;
            print(g, &r, || request_line(&r))
        }
    }
}
