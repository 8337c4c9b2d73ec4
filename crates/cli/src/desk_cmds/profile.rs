//! `paydesk profile`: profiles and their keys.

use super::*;

#[derive(Debug, Subcommand)]
pub enum ProfileCmd {
    /// List profiles; the active one is marked.
    List,
    /// Add a profile for a real gateway (`--replace` to change one; its keys stay).
    Add(Box<AddProfile>),
    /// Remove a profile and its keyring secrets (not the active one, never the built-in
    /// sandbox); its database is kept aside.
    Remove { name: String },
    /// Make a profile the active one.
    Use { name: String },
    /// Import the merchant private key (PEM PKCS#8, PEM PKCS#1, or bare base64 DER) into the keyring.
    ImportKey {
        /// The profile (default: the active one).
        name: Option<String>,
        #[arg(long, value_name = "FILE")]
        file: PathBuf,
    },
    /// Generate a merchant key pair in the keyring; prints the public key to register.
    GenerateKey {
        name: Option<String>,
        /// 2048, 3072 or 4096.
        #[arg(long, default_value_t = 2048, allow_negative_numbers = true)]
        bits: usize,
    },
    /// Show the public key and its fingerprint (never the private key).
    ShowKey { name: Option<String> },
    /// Store the gateway's public key (verifies signed answers).
    SetGatewayKey {
        name: Option<String>,
        #[arg(long, value_name = "FILE")]
        file: PathBuf,
    },
    /// Store the bearer access token, read from stdin.
    SetToken { name: Option<String> },
    /// Store a team profile's database password, read from stdin.
    SetTeamPassword { name: Option<String> },
    /// The gateway's conventions: everything the interface leaves open (state values,
    /// codes, signing, time zone, limits, which orders the list shows). See the README's
    /// "Connecting a live gateway".
    #[command(subcommand)]
    Conventions(ConventionsCmd),
    /// Whether every payout, payin, card move and bulk row needs a purpose (`on`) or
    /// not (`off`): one without is refused before anything is journaled.
    RequirePurpose {
        #[arg(value_parser = ["on", "off"])]
        state: String,
        /// The profile (default: the active one).
        #[arg(long = "of")]
        name: Option<String>,
    },
    /// Check the connection with no money moved: a signed balance query and a signed
    /// order-list query of the last day, their signatures verified; says what works and
    /// which setting to change. Exits 1 when something fails.
    Check {
        name: Option<String>,
        /// The currency of the balance query (default: the first the desk knows, else USD).
        #[arg(long)]
        currency: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum ConventionsCmd {
    /// Print the profile's conventions as the JSON file they are kept as.
    Show { name: Option<String> },
    /// Set one member: `timeZone Asia/Shanghai`, `maxPageSize 100`,
    /// `listShows.topUps false`, `duplicateCodes '["E1011","D01"]'`,
    /// `states.orderState.9 processing` (or `-` to remove a value),
    /// `refusalStatuses.v2.payout '[409]'`.
    Set {
        key: String,
        #[arg(allow_hyphen_values = true)]
        value: String,
        /// The profile (default: the active one).
        #[arg(long = "of")]
        name: Option<String>,
    },
    /// Replace the profile's conventions with a JSON file (as `export` writes it; every
    /// member may be left out, taking the sandbox's reading).
    Import {
        file: PathBuf,
        #[arg(long = "of")]
        name: Option<String>,
    },
    /// Write the profile's conventions to a JSON file (to share with a team).
    Export {
        file: PathBuf,
        #[arg(long = "of")]
        name: Option<String>,
        /// Replace the file if it exists.
        #[arg(long)]
        force: bool,
    },
    /// Go back to the sandbox's reading.
    Reset {
        #[arg(long = "of")]
        name: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct AddProfile {
    name: String,
    /// The gateway's base URL (https).
    #[arg(long)]
    base_url: String,
    /// The merchant number the gateway gave you (1 or more).
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..))]
    mer_no: i64,
    /// The origin registered with the gateway, sent as Referer.
    #[arg(long)]
    origin: String,
    #[arg(long, default_value = "en")]
    lang: String,
    /// Where the merchant's backend receives the gateway's notifications (required
    /// unless --notify-at-desk).
    #[arg(long, default_value = "")]
    notify_url: String,
    /// Send notifications to the desk app's own loopback receiver instead (for a
    /// gateway on this machine, such as `paydesk sandbox serve`).
    #[arg(long)]
    notify_at_desk: bool,
    /// An explicit HTTP(S) proxy to the gateway (default: the environment's proxy
    /// variables; a gateway on loopback is always reached directly).
    #[arg(long, default_value = "")]
    proxy: String,
    /// A new order number for the same payment accepted within this many hours (or
    /// still unresolved) is refused unless --allow-duplicate is given.
    #[arg(long, default_value_t = 24, allow_negative_numbers = true,
          value_parser = clap::value_parser!(u32).range(1..=2160))]
    duplicate_window_hours: u32,
    /// After a lost answer, "not found" at the gateway counts as "not found yet" for
    /// this many seconds (its order list may show a new order late).
    #[arg(long, default_value_t = 300, allow_negative_numbers = true,
          value_parser = clap::value_parser!(u32).range(0..=604_800))]
    not_found_grace_secs: u32,
    /// ...and for at least this many lookups.
    #[arg(long, default_value_t = 3, allow_negative_numbers = true,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    not_found_lookups: u32,
    /// Every payout, payin, card move and bulk row needs a purpose (`--purpose`).
    #[arg(long)]
    purpose_required: bool,
    /// Orders asked for in one page of the order list: the largest the gateway
    /// accepts reads fastest.
    #[arg(long, default_value_t = 500, allow_negative_numbers = true,
          value_parser = clap::value_parser!(u32).range(1..=500))]
    page_size: u32,
    /// Requests to the gateway in flight at once during a sync.
    #[arg(long, default_value_t = 8, allow_negative_numbers = true,
          value_parser = clap::value_parser!(u32).range(1..=64))]
    in_flight: u32,
    /// The gateway's rate limit in requests per second, kept by every request of
    /// this desk (0: no limit).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true,
          value_parser = clap::value_parser!(u32).range(0..=10_000))]
    rate_limit: u32,
    /// Payouts of a bulk run in flight at once (never more than --rate-limit, a
    /// second's worth; each request still kept under it).
    #[arg(long, default_value_t = paydesk_core::profile::DEFAULT_PAYOUTS_IN_FLIGHT,
          allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=64))]
    payouts_in_flight: u32,
    /// Who works at this desk (the audit log names them).
    #[arg(long)]
    operator: Option<String>,
    /// Replace the profile of this name (its keys and cache stay under it).
    /// While a desk runs, a balance snapshot of every currency this often (minutes; 0:
    /// only on request, after a sync and after money moves).
    #[arg(long, default_value_t = paydesk_core::profile::DEFAULT_BALANCES_EVERY_MINS,
          allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(0..=1440))]
    balances_every_mins: u32,
    #[arg(long)]
    replace: bool,
    /// A team profile: the host of the team's PostgreSQL database (TLS is required
    /// unless it is this machine). The password goes to the keyring with
    /// `profile set-team-password`.
    #[arg(long, requires_all = ["team_database", "team_user"])]
    team_host: Option<String>,
    #[arg(long, default_value_t = 5432)]
    team_port: u16,
    #[arg(long)]
    team_database: Option<String>,
    /// This desk's database user (a member of the team).
    #[arg(long)]
    team_user: Option<String>,
    /// A PEM file of the certificate authorities of the team's private PKI (default:
    /// the system's roots; on loopback any certificate is taken).
    #[arg(long, default_value = "")]
    team_ca_file: String,
    /// This member's client certificate (PEM), for a team whose server authenticates
    /// members by certificate (PostgreSQL's `cert` method); with --team-key-file.
    #[arg(long, default_value = "", requires = "team_key_file")]
    team_cert_file: String,
    /// The private key of --team-cert-file (PEM).
    #[arg(long, default_value = "", requires = "team_cert_file")]
    team_key_file: String,
}

pub fn profile(cmd: ProfileCmd, g: &Global) -> Result<(), Failure> {
    let session = session()?;
    let home = session.home();
    let which = |n: Option<String>| -> Result<String, Failure> {
        n.or(home.active()?)
            .ok_or_else(|| Failure::Input("no profile given and none is active".into()))
    };
    match cmd {
        ProfileCmd::List => {
            let active = home.active()?;
            let profiles = home.profiles()?;
            print(g, &profiles, || {
                profiles
                    .iter()
                    .map(|p| {
                        let mark = if active.as_deref() == Some(&p.name) {
                            "*"
                        } else {
                            " "
                        };
                        let url = p
                            .base_url
                            .clone()
                            .unwrap_or_else(|| "built-in sandbox".into());
                        format!("{mark} {:<16} merNo {:<8} {url}", p.name, p.mer_no)
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
        ProfileCmd::Add(a) => {
            let p = Profile {
                name: a.name.clone(),
                base_url: Some(a.base_url),
                mer_no: u64::try_from(a.mer_no).unwrap_or_default(),
                origin: a.origin,
                lang: a.lang,
                order_type: None,
                operator: a
                    .operator
                    .unwrap_or_else(|| std::env::var("USER").unwrap_or_else(|_| "operator".into())),
                notify_url: a.notify_url,
                notify_at_desk: a.notify_at_desk,
                proxy: a.proxy,
                safety: paydesk_core::profile::Safety {
                    duplicate_window_hours: a.duplicate_window_hours,
                    not_found_grace_secs: a.not_found_grace_secs,
                    not_found_lookups: a.not_found_lookups,
                    purpose_required: a.purpose_required,
                },
                sync: paydesk_core::profile::SyncSettings {
                    page_size: a.page_size,
                    in_flight: a.in_flight,
                    rate_limit: a.rate_limit,
                    balances_every_mins: a.balances_every_mins,
                    payouts_in_flight: a.payouts_in_flight,
                },
                team: match a.team_host {
                    Some(host) => {
                        let cfg = paydesk_api::team::PgConfig {
                            host,
                            port: a.team_port,
                            database: a.team_database.unwrap_or_default(),
                            user: a.team_user.unwrap_or_default(),
                            ca_file: a.team_ca_file,
                            cert_file: a.team_cert_file,
                            key_file: a.team_key_file,
                        };
                        cfg.validate()?;
                        Some(cfg)
                    }
                    None => None,
                },
            };
            home.save_profile(p, a.replace.then_some(a.name.as_str()))?;
            print(g, &a.name, || {
                format!("profile {} saved; import or generate its key next", a.name)
            })
        }
        ProfileCmd::Remove { name } => {
            home.remove_profile(&session.secrets()?, &name)?;
            print(g, &name, || {
                format!(
                    "profile {name} removed; its secrets are deleted and its database kept aside"
                )
            })
        }
        ProfileCmd::Use { name } => {
            home.activate(&name)?;
            print(g, &name, || format!("{name} is now the active profile"))
        }
        ProfileCmd::ImportKey { name, file } => {
            let name = which(name)?;
            let text = zeroize::Zeroizing::new(
                paydesk_core::input::read_text(&file, paydesk_core::input::MAX_KEY_BYTES)
                    .map_err(Failure::Input)?,
            );
            let info = session.secrets()?.import_merchant_key(&name, &text)?;
            print(g, &info, || {
                format!(
                    "imported a {}-bit key; public key fingerprint {}",
                    info.bits, info.fingerprint
                )
            })
        }
        ProfileCmd::GenerateKey { name, bits } => {
            let name = which(name)?;
            let info = session.secrets()?.generate_merchant_key(&name, bits)?;
            print(g, &info, || {
                format!("{}{}", info.public_pem, info.fingerprint)
            })
        }
        ProfileCmd::ShowKey { name } => {
            let name = which(name)?;
            let info = session
                .secrets()?
                .merchant_key_info(&name)?
                .ok_or_else(|| Failure::Keyring(format!("profile {name} has no key")))?;
            print(g, &info, || {
                format!(
                    "{}{} ({} bits)",
                    info.public_pem, info.fingerprint, info.bits
                )
            })
        }
        ProfileCmd::RequirePurpose { state, name } => {
            let name = which(name)?;
            let mut p = home.get(&name)?;
            p.safety.purpose_required = state == "on";
            home.save_profile(p, Some(&name))?;
            let said = if state == "on" {
                "a purpose is now required on every movement"
            } else {
                "a purpose is now optional"
            };
            print(g, &state, || format!("{name}: {said}"))
        }
        ProfileCmd::SetGatewayKey { name, file } => {
            let name = which(name)?;
            let text = paydesk_core::input::read_text(&file, paydesk_core::input::MAX_KEY_BYTES)
                .map_err(Failure::Input)?;
            let info = session.secrets()?.set_gateway_key(&name, &text)?;
            print(g, &info, || {
                format!("gateway key stored: {}", info.fingerprint)
            })
        }
        ProfileCmd::SetToken { name } => {
            let name = which(name)?;
            let token = zeroize::Zeroizing::new(
                paydesk_core::input::read_stdin(paydesk_core::input::MAX_KEY_BYTES)
                    .map_err(Failure::Input)?,
            );
            session.secrets()?.set_bearer(&name, &token)?;
            print(g, &true, || "token stored in the keyring".into())
        }
        ProfileCmd::Conventions(c) => conventions(c, g, &which),
        ProfileCmd::Check { name, currency } => {
            let name = which(name)?;
            let report = runtime()?.block_on(async {
                let desk = session.open(Some(&name)).await?;
                desk.money()
                    .check_connection(currency.as_deref())
                    .await
                    .map_err(Failure::from)
            })?;
            print(g, &report, || {
                let mut lines = vec![format!(
                    "connection check of {} ({}):",
                    report.profile, report.base_url
                )];
                for i in &report.items {
                    let mark = match i.outcome {
                        paydesk_core::desk::CheckOutcome::Works => "ok  ",
                        paydesk_core::desk::CheckOutcome::Note => "note",
                        paydesk_core::desk::CheckOutcome::Fails => "FAIL",
                    };
                    let setting = i
                        .setting
                        .as_deref()
                        .map(|s| format!(" [setting: {s}]"))
                        .unwrap_or_default();
                    lines.push(format!("{mark} {:<10} {}{setting}", i.what, i.detail));
                }
                lines.push(if report.ok {
                    "everything tried works".into()
                } else {
                    "something failed: change the named setting and check again".into()
                });
                lines.join("\n")
            })?;
            if report.ok {
                Ok(())
            } else {
                Err(Failure::Check("the connection check found problems".into()))
            }
        }
        ProfileCmd::SetTeamPassword { name } => {
            let name = which(name)?;
            let password = zeroize::Zeroizing::new(
                paydesk_core::input::read_stdin(paydesk_core::input::MAX_KEY_BYTES)
                    .map_err(Failure::Input)?,
            );
            session
                .secrets()?
                .set_team_password(&name, password.trim_end_matches(['\r', '\n']))?;
            print(g, &true, || {
                "the team database's password is stored in the keyring".into()
            })
        }
    }
}

fn conventions(
    cmd: ConventionsCmd,
    g: &Global,
    which: &dyn Fn(Option<String>) -> Result<String, Failure>,
) -> Result<(), Failure> {
    use paydesk_gateway::Conventions;
    let session = session()?;
    let home = session.home();
    let named = |e: paydesk_gateway::conventions::ConventionsError| {
        Failure::Input(format!("conventions.{}: {}", e.field, e.rule))
    };
    match cmd {
        ConventionsCmd::Show { name } => {
            let c = home.conventions(&which(name)?)?;
            print(g, &c, || c.to_json())
        }
        ConventionsCmd::Set { key, value, name } => {
            let name = which(name)?;
            let mut c = home.conventions(&name)?;
            c.set(&key, &value).map_err(named)?;
            home.set_conventions(&name, c)?;
            print(g, &key, || {
                format!("{key} set for profile {name}; it applies from the desk's next opening")
            })
        }
        ConventionsCmd::Import { file, name } => {
            let name = which(name)?;
            let text =
                paydesk_core::input::read_text(&file, 1024 * 1024).map_err(Failure::Input)?;
            let c = Conventions::from_json(&text).map_err(named)?;
            home.set_conventions(&name, c.clone())?;
            print(g, &c.name, || {
                format!("conventions {:?} imported into profile {name}", c.name)
            })
        }
        ConventionsCmd::Export { file, name, force } => {
            let name = which(name)?;
            let c = home.conventions(&name)?;
            paydesk_core::output::write(
                &file,
                paydesk_core::output::Existing::replace_if(force),
                (c.to_json() + "\n").as_bytes(),
            )?;
            print(g, &file, || {
                format!("conventions of {name} written to {}", file.display())
            })
        }
        ConventionsCmd::Reset { name } => {
            let name = which(name)?;
            home.set_conventions(&name, Conventions::sandbox())?;
            print(g, &name, || {
                format!("profile {name} now reads its gateway as the sandbox does")
            })
        }
    }
}
