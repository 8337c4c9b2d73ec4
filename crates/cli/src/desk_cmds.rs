//! The commands over `paydesk-core`: profiles, orders, money, queries, journal, audit.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use paydesk_core::cache::{OrderFilter, SortKey};
use paydesk_core::journal::Status;
use paydesk_core::sync::SyncOptions;
use paydesk_core::{
    CoreError, Desk, Home, KeyringStore, Profile, Secrets, builtin, new_mer_order_no,
};
use paydesk_gateway::wire::{self, MerNo};
use rust_decimal::Decimal;
use serde::Serialize;

use crate::Failure;

#[derive(Debug, Args)]
pub struct Global {
    /// The profile to use (default: the active one; the built-in sandbox on first use).
    #[arg(long, global = true, env = "PAYDESK_PROFILE")]
    profile: Option<String>,
    /// Print JSON for scripts instead of text.
    #[arg(long, global = true)]
    json: bool,
}

impl From<CoreError> for Failure {
    fn from(e: CoreError) -> Self {
        match e {
            CoreError::Validation { .. } => Failure::Input(e.to_string()),
            CoreError::Rejected { .. } | CoreError::SignatureInvalid { .. } => {
                Failure::Check(e.to_string())
            }
            CoreError::OutcomeUnknown { .. } | CoreError::BadResponse { .. } => {
                Failure::Unknown(e.to_string())
            }
            CoreError::KeyringUnavailable { .. } | CoreError::MissingSecret { .. } => {
                Failure::Keyring(e.to_string())
            }
            _ => Failure::Other(e.to_string()),
        }
    }
}

fn home() -> Result<Home, Failure> {
    Ok(Home::from_env()?)
}

fn secrets() -> Result<Secrets, Failure> {
    let service = std::env::var("PAYDESK_KEYRING_SERVICE")
        .unwrap_or_else(|_| paydesk_core::KEYRING_SERVICE.to_string());
    let store = KeyringStore::open(&service)?;
    Ok(Secrets::new(Arc::new(store)).with_service(&service))
}

/// The profile to open: the named one, the active one, or the built-in sandbox.
fn profile_name(home: &Home, secrets: &Secrets, g: &Global) -> Result<String, Failure> {
    if let Some(p) = &g.profile {
        return Ok(p.clone());
    }
    match home.active()? {
        Some(p) => Ok(p),
        None => Ok(builtin::ensure_profile(home, secrets)?.name),
    }
}

async fn open(g: &Global) -> Result<Desk, Failure> {
    let home = home()?;
    let secrets = secrets()?;
    let name = profile_name(&home, &secrets, g)?;
    if name == paydesk_core::profile::SANDBOX_PROFILE {
        builtin::ensure_profile(&home, &secrets)?;
    }
    Ok(Desk::open(&home, secrets, &name).await?)
}

fn print<T: Serialize>(
    g: &Global,
    value: &T,
    text: impl FnOnce() -> String,
) -> Result<(), Failure> {
    if g.json {
        println!(
            "{}",
            serde_json::to_string(value).map_err(|e| Failure::Other(e.to_string()))?
        );
    } else {
        println!("{}", text());
    }
    Ok(())
}

fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Other(e.to_string()))
}

fn decimal(field: &str, text: &str) -> Result<Decimal, Failure> {
    paydesk_gateway::money::parse_decimal(field, text).map_err(|e| Failure::Input(e.to_string()))
}

// ---- profile ----------------------------------------------------------------

#[derive(Debug, Subcommand)]
pub enum ProfileCmd {
    /// List profiles; the active one is marked.
    List,
    /// Add (or replace) a profile for a real gateway.
    Add(AddProfile),
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
        #[arg(long, default_value_t = 2048)]
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
}

#[derive(Debug, Args)]
pub struct AddProfile {
    name: String,
    /// The gateway's base URL (https).
    #[arg(long)]
    base_url: String,
    #[arg(long)]
    mer_no: u64,
    /// The origin registered with the gateway, sent as Referer.
    #[arg(long)]
    origin: String,
    #[arg(long, default_value = "en")]
    lang: String,
    #[arg(long, default_value = "")]
    notify_url: String,
    /// Who works at this desk (the audit log names them).
    #[arg(long)]
    operator: Option<String>,
}

pub fn profile(cmd: ProfileCmd, g: &Global) -> Result<(), Failure> {
    let home = home()?;
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
                mer_no: a.mer_no,
                origin: a.origin,
                lang: a.lang,
                order_type: None,
                sign_settings: Default::default(),
                state_overrides: Default::default(),
                operator: a
                    .operator
                    .unwrap_or_else(|| std::env::var("USER").unwrap_or_else(|_| "operator".into())),
                notify_url: a.notify_url,
            };
            home.put(p)?;
            print(g, &a.name, || {
                format!("profile {} saved; import or generate its key next", a.name)
            })
        }
        ProfileCmd::Use { name } => {
            home.activate(&name)?;
            print(g, &name, || format!("{name} is now the active profile"))
        }
        ProfileCmd::ImportKey { name, file } => {
            let name = which(name)?;
            let text = std::fs::read_to_string(&file)
                .map_err(|e| Failure::Input(format!("cannot read {}: {e}", file.display())))?;
            let info = secrets()?.import_merchant_key(&name, &text)?;
            print(g, &info, || {
                format!(
                    "imported a {}-bit key; public key fingerprint {}",
                    info.bits, info.fingerprint
                )
            })
        }
        ProfileCmd::GenerateKey { name, bits } => {
            let name = which(name)?;
            let info = secrets()?.generate_merchant_key(&name, bits)?;
            print(g, &info, || {
                format!("{}{}", info.public_pem, info.fingerprint)
            })
        }
        ProfileCmd::ShowKey { name } => {
            let name = which(name)?;
            let info = secrets()?
                .merchant_key_info(&name)?
                .ok_or_else(|| Failure::Keyring(format!("profile {name} has no key")))?;
            print(g, &info, || {
                format!(
                    "{}{} ({} bits)",
                    info.public_pem, info.fingerprint, info.bits
                )
            })
        }
        ProfileCmd::SetGatewayKey { name, file } => {
            let name = which(name)?;
            let text = std::fs::read_to_string(&file)
                .map_err(|e| Failure::Input(format!("cannot read {}: {e}", file.display())))?;
            let info = secrets()?.set_gateway_key(&name, &text)?;
            print(g, &info, || {
                format!("gateway key stored: {}", info.fingerprint)
            })
        }
        ProfileCmd::SetToken { name } => {
            let name = which(name)?;
            let mut token = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut token)
                .map_err(|e| Failure::Input(e.to_string()))?;
            secrets()?.set_bearer(&name, &token)?;
            print(g, &true, || "token stored in the keyring".into())
        }
    }
}

// ---- orders -----------------------------------------------------------------

#[derive(Debug, Subcommand)]
pub enum OrdersCmd {
    /// Pull the order list into the local cache.
    Sync {
        /// How many days back.
        #[arg(long, default_value_t = 90)]
        days: i64,
        /// Re-read windows an earlier sync completed.
        #[arg(long)]
        full: bool,
        #[arg(long, default_value_t = 24)]
        window_hours: i64,
    },
    /// List cached orders.
    List {
        #[command(flatten)]
        filter: FilterArgs,
        #[arg(long, default_value_t = 50)]
        limit: i64,
        #[arg(long, default_value_t = 0)]
        offset: i64,
    },
    /// One order: the cached row, its history, and a live query with its signature status.
    Show { trade_no: String },
    /// Export the filtered orders (all of them) to .csv or .xlsx.
    Export {
        path: PathBuf,
        #[command(flatten)]
        filter: FilterArgs,
        /// Time zone offset for the date column, e.g. +08:00 (default UTC).
        #[arg(long, default_value = "+00:00")]
        tz: String,
    },
}

#[derive(Debug, Args)]
pub struct FilterArgs {
    /// States, e.g. 5 or 2,5.
    #[arg(long, value_delimiter = ',')]
    state: Vec<i64>,
    #[arg(long, value_delimiter = ',')]
    currency: Vec<String>,
    #[arg(long, value_delimiter = ',')]
    method: Vec<String>,
    /// A fragment of the order or trade number.
    #[arg(long)]
    search: Option<String>,
    #[arg(long)]
    min_amount: Option<String>,
    #[arg(long)]
    max_amount: Option<String>,
    /// YYYY-MM-DD, inclusive.
    #[arg(long)]
    from: Option<String>,
    /// YYYY-MM-DD, inclusive.
    #[arg(long)]
    to: Option<String>,
    /// created, amount, state or trade-no.
    #[arg(long, default_value = "created")]
    sort: String,
    #[arg(long)]
    desc: bool,
}

fn day(field: &str, s: &str) -> Result<i64, Failure> {
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .map(|d| {
            d.and_hms_opt(0, 0, 0)
                .unwrap_or_default()
                .and_utc()
                .timestamp_millis()
        })
        .map_err(|_| Failure::Input(format!("--{field}: must be a date YYYY-MM-DD, got {s:?}")))
}

impl FilterArgs {
    fn filter(self) -> Result<OrderFilter, Failure> {
        let sort = match self.sort.as_str() {
            "created" => SortKey::Created,
            "amount" => SortKey::Amount,
            "state" => SortKey::State,
            "trade-no" => SortKey::TradeNo,
            other => {
                return Err(Failure::Input(format!(
                    "--sort: must be created, amount, state or trade-no, got {other:?}"
                )));
            }
        };
        Ok(OrderFilter {
            from: self.from.as_deref().map(|s| day("from", s)).transpose()?,
            to: self
                .to
                .as_deref()
                .map(|s| day("to", s).map(|t| t + 86_400_000))
                .transpose()?,
            states: self.state,
            currencies: self.currency,
            methods: self.method,
            min_amount: self.min_amount,
            max_amount: self.max_amount,
            search: self.search,
            sort,
            descending: self.desc,
        })
    }
}

fn bar(len: u64, what: &str) -> ProgressBar {
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template(
            "{spinner} {msg} [{bar:30}] {pos}/{len} ({per_sec}, eta {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb
}

pub fn orders(cmd: OrdersCmd, g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let desk = open(g).await?;
        match cmd {
            OrdersCmd::Sync { days, full, window_hours } => {
                let mut opts = SyncOptions::last_days(days);
                opts.full = full;
                opts.window_hours = window_hours;
                let pb = bar(0, "syncing windows");
                if g.json {
                    pb.set_draw_target(indicatif::ProgressDrawTarget::hidden());
                }
                let report = desk
                    .sync(&opts, Arc::new(AtomicBool::new(false)), |p| {
                        pb.set_length(p.windows_total);
                        pb.set_position(p.windows_done);
                        pb.set_message(format!("{} orders, {:.0}/s", p.orders, p.orders_per_second));
                    })
                    .await;
                pb.finish_and_clear();
                let report = report?;
                print(g, &report, || {
                    format!(
                        "synced {} orders in {} pages ({} windows, {} skipped as complete, {} changed) in {:.1} s",
                        report.progress.orders, report.progress.pages, report.progress.windows_total, report.windows_skipped, report.changed, report.seconds
                    )
                })
            }
            OrdersCmd::List { filter, limit, offset } => {
                let page = desk.orders(&filter.filter()?, offset, limit)?;
                let dict = desk.dictionary().clone();
                print(g, &page, || {
                    let mut out = vec![format!("{} orders match; showing {}", page.total, page.rows.len())];
                    for o in &page.rows {
                        let meaning = dict.meaning(paydesk_gateway::StateField::OrderState, &o.state.to_string()).map_or("unknown", |m| m.as_str());
                        out.push(format!("{:<22} {:<24} {:>14} {} {:<15} {}", o.trade_no, o.mer_order_no, o.source_amount, o.currency, meaning, o.method));
                    }
                    out.join("\n")
                })
            }
            OrdersCmd::Show { trade_no } => {
                let d = desk.order_detail(&trade_no).await?;
                print(g, &d, || serde_json::to_string_pretty(&d).unwrap_or_default())
            }
            OrdersCmd::Export { path, filter, tz } => {
                let offset: chrono::FixedOffset = tz.parse().map_err(|_| Failure::Input(format!("--tz: must be an offset such as +08:00, got {tz:?}")))?;
                let pb = bar(0, "exporting");
                if g.json {
                    pb.set_draw_target(indicatif::ProgressDrawTarget::hidden());
                }
                let n = desk.export(&filter.filter()?, &path, offset, |done, total| {
                    pb.set_length(total);
                    pb.set_position(done);
                });
                pb.finish_and_clear();
                let n = n?;
                print(g, &n, || format!("wrote {n} orders to {}", path.display()))
            }
        }
    })
}

// ---- money ------------------------------------------------------------------

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
}

fn notify(desk: &Desk, m: &MoneyArgs) -> String {
    m.notify_url
        .clone()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| {
            if desk.profile.notify_url.is_empty() {
                format!("{}/notify", desk.profile.origin.trim_end_matches('/'))
            } else {
                desk.profile.notify_url.clone()
            }
        })
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

pub fn payin(a: PayinArgs, g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let desk = open(g).await?;
        let mer_order_no = a
            .money
            .mer_order_no
            .clone()
            .unwrap_or_else(|| new_mer_order_no("PI"));
        let common = wire::PayinCommon {
            mer_no: MerNo(desk.profile.mer_no),
            mer_order_no,
            currency_code: a.money.currency.clone(),
            source_amount: decimal("sourceAmount", &a.money.amount)?,
            return_url: a.return_url.clone(),
            notify_url: notify(&desk, &a.money),
            ip_address: a.money.ip.clone(),
            user_id: a.user_id.clone(),
            email: a.email.clone(),
        };
        let browser = wire::Browser {
            screen_height: "1080".into(),
            screen_width: "1920".into(),
            time_zone_offset: "0".into(),
            user_agent: "PayDesk CLI".into(),
            visitor_id: "cli".into(),
        };
        let products = vec![wire::Product {
            price: common.source_amount,
            product_name: a.product.clone(),
            product_url: String::new(),
            quantity: "1".into(),
            sku: "SKU".into(),
        }];
        let (first, last) = a.name.split_once(' ').unwrap_or((a.name.as_str(), ""));
        let v1 = |method| wire::V1Payment {
            common: common.clone(),
            version: "V3.0.0".into(),
            method,
        };
        match a.method.as_str() {
            "WECHAT" => show_submitted(g, &desk.payin_v2(common).await?),
            "WECHAT-V1" => show_submitted(
                g,
                &desk
                    .payin_v1(v1(wire::V1Method::Wechat(wire::NoExtras {})))
                    .await?,
            ),
            "PIX" => show_submitted(
                g,
                &desk
                    .payin_v1(v1(wire::V1Method::Pix(wire::PixExtras {
                        name: a.name.clone(),
                        social_security_number: a.ssn.clone(),
                    })))
                    .await?,
            ),
            "APPLE_PAY" => show_submitted(
                g,
                &desk
                    .payin_v1(v1(wire::V1Method::ApplePay(wire::WalletExtras {
                        browser,
                        products,
                    })))
                    .await?,
            ),
            "CASH_APP" => show_submitted(
                g,
                &desk
                    .payin_v1(v1(wire::V1Method::CashApp(wire::WalletExtras {
                        browser,
                        products,
                    })))
                    .await?,
            ),
            "GCASH" => {
                let list = vec![wire::ProductInfo {
                    sku: "SKU".into(),
                    product_name: a.product.clone(),
                    price: common.source_amount,
                    quantity: "1".into(),
                }];
                show_submitted(
                    g,
                    &desk
                        .payin_v1(v1(wire::V1Method::Gcash(wire::GcashExtras {
                            os_type: "ANDROID".into(),
                            terminal: "APP".into(),
                            product_info_list: list,
                        })))
                        .await?,
                )
            }
            "SEPA" => show_submitted(
                g,
                &desk
                    .payin_v1(v1(wire::V1Method::Sepa(wire::SepaExtras {
                        user_agent: "PayDesk CLI".into(),
                        billing_first_name: first.into(),
                        billing_last_name: last.into(),
                    })))
                    .await?,
            ),
            "VN_BANK" => {
                let op = wire::V1VnBankPayment {
                    common,
                    version: "V3.0.0".into(),
                    payment_method_str: "BANK".into(),
                    product_name: a.product.clone(),
                    vn_bank_id: a.vn_bank_id,
                };
                show_submitted(g, &desk.payin_vn_bank(op).await?)
            }
            other => Err(Failure::Input(format!(
                "--method: unknown method {other:?}"
            ))),
        }
    })
}

pub fn payout(cmd: PayoutCmd, g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let desk = open(g).await?;
        match cmd {
            PayoutCmd::Clabe { money, clabe } => {
                let op = wire::V2Payout {
                    mer_no: MerNo(desk.profile.mer_no),
                    mer_order_no: money
                        .mer_order_no
                        .clone()
                        .unwrap_or_else(|| new_mer_order_no("PO")),
                    currency_code: money.currency.clone(),
                    source_amount: decimal("sourceAmount", &money.amount)?,
                    withdraw_type: "6".into(),
                    return_url: String::new(),
                    notify_url: notify(&desk, &money),
                    sign_type: "RSA256".into(),
                    version: "V2.0.0".into(),
                    ip_address: money.ip.clone(),
                    card_no: String::new(),
                    clabe,
                };
                show_submitted(g, &desk.payout_clabe(op).await?)
            }
            PayoutCmd::Card {
                money,
                card_no,
                first_name,
                last_name,
                country,
            } => {
                let op = wire::V1CardPayout {
                    mer_no: MerNo(desk.profile.mer_no),
                    mer_order_no: money
                        .mer_order_no
                        .clone()
                        .unwrap_or_else(|| new_mer_order_no("PO")),
                    currency_code: money.currency.clone(),
                    source_amount: decimal("sourceAmount", &money.amount)?,
                    withdraw_type: "1".into(),
                    return_url: String::new(),
                    notify_url: notify(&desk, &money),
                    version: "V3.0.0".into(),
                    ip_address: money.ip.clone(),
                    card_no,
                    ben_first_name: first_name,
                    ben_last_name: last_name,
                    mobile: String::new(),
                    address_line: String::new(),
                    address_line2: String::new(),
                    city: String::new(),
                    state: String::new(),
                    country_code: country,
                    post_code: String::new(),
                    email: String::new(),
                    beneficiary_type: "individual".into(),
                    browser: None,
                    products: vec![],
                };
                show_submitted(g, &desk.payout_card(op).await?)
            }
        }
    })
}

// ---- cards, queries, review, journal, audit ----------------------------------

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
        match cmd {
            CardCmd::Topup {
                card,
                sub_mer_no,
                amount,
                currency,
                mer_order_no,
                remark,
            } => {
                let op = wire::V2CardTopUp {
                    mer_no: MerNo(desk.profile.mer_no),
                    sub_mer_no: if sub_mer_no.is_empty() {
                        card.clone()
                    } else {
                        sub_mer_no
                    },
                    mer_order_no: mer_order_no.unwrap_or_else(|| new_mer_order_no("TU")),
                    apply_order_no: card,
                    amount: decimal("amount", &amount)?,
                    currency,
                    remark,
                    sign_type: "RSA256".into(),
                    version: "V2.0.0".into(),
                };
                show_submitted(g, &desk.card_top_up(op).await?)
            }
            CardCmd::Withdraw {
                card,
                amount,
                currency,
                reference,
            } => {
                let op = wire::V1CardWithdraw {
                    mer_no: MerNo(desk.profile.mer_no),
                    apply_order_no: card,
                    amount: decimal("amount", &amount)?,
                    currency,
                };
                let reference = reference.unwrap_or_else(|| new_mer_order_no("WD"));
                show_submitted(g, &desk.card_withdraw(op, &reference).await?)
            }
            CardCmd::History => {
                let ops = desk.card_operations()?;
                print(g, &ops, || {
                    ops.iter()
                        .map(|o| o.to_string())
                        .collect::<Vec<_>>()
                        .join("\n")
                })
            }
        }
    })
}

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
        .map(|s| pair("file", s).map(|(c, p)| (c, PathBuf::from(p))))
        .collect::<Result<Vec<_>, _>>()?;
    runtime()?.block_on(async {
        let desk = open(g).await?;
        show_submitted(g, &desk.submit_review(&a.trade_no, info, files).await?)
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
