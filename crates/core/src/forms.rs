//! What a person fills in to move money (payin, payout, card top-up or withdraw), as
//! the desktop app's forms and the CLI's arguments give it, and the one receipt every
//! such operation answers with. Turning a form into its wire operation happens here,
//! once; the wire operation's own `validate` names the field of any broken rule.

use paydesk_gateway::money::parse_decimal;
use paydesk_gateway::validate as v;
use paydesk_gateway::wire::{self, MerNo};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::error::{CoreError, CoreResult};
use crate::journal::Entry;
use crate::purpose::Purpose;

/// Every payin method of the interface; `WechatV1` is WECHAT through the V1 path.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PayinMethod {
    Wechat,
    WechatV1,
    Pix,
    ApplePay,
    CashApp,
    Gcash,
    Sepa,
    VnBank,
}

impl PayinMethod {
    pub const ALL: [PayinMethod; 8] = [
        Self::Wechat,
        Self::WechatV1,
        Self::Pix,
        Self::ApplePay,
        Self::CashApp,
        Self::Gcash,
        Self::Sepa,
        Self::VnBank,
    ];

    /// The name used on the command line and in the UI (`WECHAT-V1` for the V1 path).
    pub fn name(self) -> &'static str {
        match self {
            Self::Wechat => "WECHAT",
            Self::WechatV1 => "WECHAT-V1",
            Self::Pix => "PIX",
            Self::ApplePay => "APPLE_PAY",
            Self::CashApp => "CASH_APP",
            Self::Gcash => "GCASH",
            Self::Sepa => "SEPA",
            Self::VnBank => "VN_BANK",
        }
    }

    /// The journal's name of the operation this method is sent with.
    pub fn operation(self) -> &'static str {
        use paydesk_gateway::wire::Operation;
        match self {
            Self::Wechat => wire::V2Payment::NAME,
            Self::VnBank => wire::V1VnBankPayment::NAME,
            _ => wire::V1Payment::NAME,
        }
    }

    pub fn parse(s: &str) -> CoreResult<Self> {
        Self::ALL
            .into_iter()
            .find(|m| m.name() == s || (s == "WECHAT_V1" && *m == Self::WechatV1))
            .ok_or_else(|| {
                let names: Vec<_> = Self::ALL.iter().map(|m| m.name()).collect();
                CoreError::keyed(
                    "method",
                    format!("must be one of {}", names.join(", ")),
                    "methodOneOf",
                    &[("names", names.join(", "))],
                )
            })
    }
}

/// One product line of a wallet or GCASH payin.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ProductLine {
    pub name: String,
    /// Decimal string; empty means the payin's amount.
    pub price: String,
    pub quantity: String,
    pub sku: String,
    pub url: String,
}

/// The payer's browser, for APPLE_PAY and CASH_APP.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BrowserForm {
    pub screen_height: String,
    pub screen_width: String,
    pub time_zone_offset: String,
    pub user_agent: String,
    pub visitor_id: String,
}

/// A payin as filled in. Fields a method does not use are ignored.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PayinForm {
    pub method: PayinMethod,
    /// Fixed once per order: the same number sent twice is one order.
    pub mer_order_no: String,
    pub amount: String,
    pub currency: String,
    #[serde(default)]
    pub email: String,
    #[serde(default)]
    pub user_id: String,
    #[serde(default)]
    pub return_url: String,
    /// Empty: 127.0.0.1.
    #[serde(default)]
    pub ip_address: String,
    /// Empty: the desk's notification endpoint (its loopback receiver on the sandbox).
    #[serde(default)]
    pub notify_url: String,
    /// PIX: the payer's name.
    #[serde(default)]
    pub name: String,
    /// PIX: the payer's CPF.
    #[serde(default)]
    pub social_security_number: String,
    /// SEPA: billing names.
    #[serde(default)]
    pub first_name: String,
    #[serde(default)]
    pub last_name: String,
    /// SEPA: the payer's user agent.
    #[serde(default)]
    pub user_agent: String,
    #[serde(default)]
    pub browser: BrowserForm,
    /// APPLE_PAY, CASH_APP, GCASH.
    #[serde(default)]
    pub products: Vec<ProductLine>,
    /// GCASH: `ANDROID`, `IOS`, ...
    #[serde(default)]
    pub os_type: String,
    /// GCASH: `APP`, `WAP`, ...
    #[serde(default)]
    pub terminal: String,
    /// VN_BANK.
    #[serde(default)]
    pub payment_method_str: String,
    #[serde(default)]
    pub product_name: String,
    #[serde(default)]
    pub vn_bank_id: String,
    /// Why the money moves, and a reference (issue 35); kept in PayDesk's records.
    #[serde(default)]
    pub purpose: Purpose,
}

/// The payout channels are the model's (`paydesk-model`); kept at this path.
pub use paydesk_model::beneficiaries::PayoutKind;

/// The payin form's name of a wire field: an error names what the operator filled in.
pub fn payin_field(wire: &str) -> &str {
    match wire {
        "sourceAmount" => "amount",
        "currencyCode" => "currency",
        "billingFirstName" => "firstName",
        "billingLastName" => "lastName",
        other => other,
    }
}

/// The payout form's name of a wire field (also the bulk file's, through
/// [`crate::bulk`]'s column names).
pub fn payout_field(wire: &str) -> &str {
    match wire {
        "sourceAmount" => "amount",
        "currencyCode" => "currency",
        "benFirstName" => "firstName",
        "benLastName" => "lastName",
        other => other,
    }
}

/// The card form's name of a wire field.
pub fn card_field(wire: &str) -> &str {
    match wire {
        "applyOrderNo" => "card",
        "merOrderNo" => "reference",
        other => other,
    }
}

/// A payout as filled in.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PayoutForm {
    pub kind: PayoutKind,
    pub mer_order_no: String,
    pub amount: String,
    pub currency: String,
    #[serde(default)]
    pub clabe: String,
    #[serde(default)]
    pub card_no: String,
    /// A payee of the book by nickname (issue 35): the desk fills the account (and a
    /// card's names and country) from it; an account given too must be the payee's.
    #[serde(default)]
    pub beneficiary: String,
    #[serde(default)]
    pub first_name: String,
    #[serde(default)]
    pub last_name: String,
    #[serde(default)]
    pub country_code: String,
    #[serde(default)]
    pub email: String,
    #[serde(default)]
    pub mobile: String,
    #[serde(default)]
    pub ip_address: String,
    #[serde(default)]
    pub notify_url: String,
    /// A card payout's beneficiary address (the interface's `addressLine`,
    /// `addressLine2`, `city`, `state`, `postCode`), each optional.
    #[serde(default)]
    pub address_line: String,
    #[serde(default)]
    pub address_line2: String,
    #[serde(default)]
    pub city: String,
    #[serde(default)]
    pub state: String,
    #[serde(default)]
    pub post_code: String,
    /// `individual` (when empty) or `company`.
    #[serde(default)]
    pub beneficiary_type: String,
    /// Why the money moves, and a reference (issue 35); kept in PayDesk's records.
    #[serde(default)]
    pub purpose: Purpose,
}

/// The beneficiary types a card payout takes.
pub const BENEFICIARY_TYPES: [&str; 2] = ["individual", "company"];

/// What the confirmation step shows before a payout leaves: nothing unmasked.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PayoutPreview {
    pub kind: PayoutKind,
    pub mer_order_no: String,
    /// Normalised decimal string.
    pub amount: String,
    pub currency: String,
    /// Empty for a CLABE payout (the interface carries no beneficiary name).
    pub beneficiary: String,
    /// First 6 and last 4 digits.
    pub account: String,
    /// The CLABE's bank, from its first three digits.
    pub bank: Option<String>,
    /// Whether the book of payees holds this account (none: the book was not asked).
    #[serde(default)]
    pub payee: Option<crate::beneficiaries::Payee>,
    /// The fee this payout will likely cost, as the last cached payout in its currency
    /// shows it; `None` when not known (the gateway states no fee before a payout).
    pub estimated_fee: Option<String>,
    /// The payout (merchant order number) the fee estimate is taken from.
    pub estimated_fee_from: Option<String>,
    /// The amount plus the estimated fee: what the balance likely goes down by.
    pub estimated_total: Option<String>,
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CardMove {
    /// V2 top-up: loads funds onto the card.
    TopUp,
    /// V1 withdraw: takes funds off the card, for a fee.
    Withdraw,
}

impl CardMove {
    /// The journal's name of the operation.
    pub fn operation(self) -> &'static str {
        use paydesk_gateway::wire::Operation;
        match self {
            Self::TopUp => wire::V2CardTopUp::NAME,
            Self::Withdraw => wire::V1CardWithdraw::NAME,
        }
    }
}

/// A card top-up or withdraw as filled in.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardForm {
    pub kind: CardMove,
    /// The card's application number (`applyOrderNo`).
    pub card: String,
    /// The journal's key: the top-up's `merOrderNo`, or this desk's own number for a
    /// withdrawal (the interface gives it none).
    pub reference: String,
    pub amount: String,
    pub currency: String,
    /// Top-up: the sub-merchant account; empty means the card number.
    #[serde(default)]
    pub sub_mer_no: String,
    #[serde(default)]
    pub remark: String,
    /// Why the money moves, and a reference (issue 35); a top-up without a remark of
    /// its own sends the purpose as its `remark`.
    #[serde(default)]
    pub purpose: Purpose,
}

/// Bank details a SEPA payin answers with, for the payer's transfer.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BankDetails {
    pub reference: String,
    pub iban: String,
    pub beneficiary: String,
    pub bank_name: String,
    pub bank_address: String,
    pub bic: String,
}

/// What every money operation answers with: its journal entry (the record of what was
/// sent and how it ended) and what the gateway gave back this time.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Receipt {
    pub entry: Entry,
    /// True when nothing was sent because the entry already existed (a second click,
    /// a retry): `entry` tells how the first one ended.
    pub replayed: bool,
    pub trade_no: Option<String>,
    /// Where the payer pays (payins other than SEPA).
    pub pay_url: Option<String>,
    /// SEPA payins.
    pub bank: Option<BankDetails>,
    /// Card withdrawals.
    pub fee: Option<String>,
    /// The gateway's message, when it sent one with its data (VN_BANK).
    pub message: Option<String>,
}

impl Receipt {
    pub fn new(entry: Entry, replayed: bool) -> Self {
        Self {
            trade_no: entry.trade_no.clone(),
            entry,
            replayed,
            pay_url: None,
            bank: None,
            fee: None,
            message: None,
        }
    }
}

/// Who the desk is when it fills in the rest of a form.
#[derive(Debug)]
pub struct Filler<'a> {
    pub mer_no: u64,
    pub notify_url: &'a str,
    /// The requester's `ipAddress` when a form gives none (the profile's conventions).
    pub requester_ip: &'a str,
}

fn or<'a>(value: &'a str, default: &'a str) -> &'a str {
    if value.trim().is_empty() {
        default
    } else {
        value.trim()
    }
}

fn amount(field: &str, text: &str) -> CoreResult<Decimal> {
    v::required(field, text.trim())?;
    Ok(parse_decimal(field, text.trim())?)
}

/// The order number a form carries; it must be there (the UI fixes one when the form
/// opens, the CLI when it starts) so that a second send is the same order.
fn order_no(field: &str, value: &str) -> CoreResult<String> {
    v::required(field, value.trim())?;
    v::order_no(field, value.trim())?;
    Ok(value.trim().to_string())
}

/// A product line with its price read.
struct Line {
    name: String,
    price: Decimal,
    quantity: String,
    sku: String,
    url: String,
}

/// A payin's wire operation.
#[derive(Debug)]
pub enum PayinOp {
    V2(wire::V2Payment),
    V1(wire::V1Payment),
    VnBank(wire::V1VnBankPayment),
}

impl PayinForm {
    /// A payin with only what every method needs; the rest empty.
    pub fn new(method: PayinMethod, mer_order_no: &str, amount: &str, currency: &str) -> Self {
        Self {
            method,
            mer_order_no: mer_order_no.to_string(),
            amount: amount.to_string(),
            currency: currency.to_string(),
            email: String::new(),
            user_id: String::new(),
            return_url: String::new(),
            ip_address: String::new(),
            notify_url: String::new(),
            name: String::new(),
            social_security_number: String::new(),
            first_name: String::new(),
            last_name: String::new(),
            user_agent: String::new(),
            browser: BrowserForm::default(),
            products: vec![],
            os_type: String::new(),
            terminal: String::new(),
            payment_method_str: String::new(),
            product_name: String::new(),
            vn_bank_id: String::new(),
            purpose: Purpose::default(),
        }
    }

    pub fn build(&self, who: &Filler<'_>) -> CoreResult<PayinOp> {
        let source_amount = amount("sourceAmount", &self.amount)?;
        let common = wire::PayinCommon {
            mer_no: MerNo(who.mer_no),
            mer_order_no: order_no("merOrderNo", &self.mer_order_no)?,
            currency_code: self.currency.trim().to_uppercase(),
            source_amount,
            return_url: self.return_url.trim().to_string(),
            notify_url: or(&self.notify_url, who.notify_url).to_string(),
            ip_address: or(&self.ip_address, who.requester_ip).to_string(),
            user_id: self.user_id.trim().to_string(),
            email: self.email.trim().to_string(),
        };
        let lines = |field: &str| -> CoreResult<Vec<Line>> {
            self.products
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let price = if p.price.trim().is_empty() {
                        source_amount
                    } else {
                        amount(&format!("{field}[{i}].price"), &p.price)?
                    };
                    Ok(Line {
                        name: p.name.trim().to_string(),
                        price,
                        quantity: or(&p.quantity, "1").to_string(),
                        sku: p.sku.trim().to_string(),
                        url: p.url.trim().to_string(),
                    })
                })
                .collect()
        };
        let v1 = |method| wire::V1Payment {
            common: common.clone(),
            version: wire::V1Payment::VERSION.into(),
            method,
        };
        let wallet = || -> CoreResult<wire::WalletExtras> {
            let b = &self.browser;
            Ok(wire::WalletExtras {
                browser: wire::Browser {
                    screen_height: b.screen_height.trim().to_string(),
                    screen_width: b.screen_width.trim().to_string(),
                    time_zone_offset: b.time_zone_offset.trim().to_string(),
                    user_agent: b.user_agent.trim().to_string(),
                    visitor_id: b.visitor_id.trim().to_string(),
                },
                products: lines("products")?
                    .into_iter()
                    .map(|l| wire::Product {
                        price: l.price,
                        product_name: l.name,
                        product_url: l.url,
                        quantity: l.quantity,
                        sku: l.sku,
                    })
                    .collect(),
            })
        };
        Ok(match self.method {
            PayinMethod::Wechat => PayinOp::V2(wire::V2Payment { common }),
            PayinMethod::WechatV1 => PayinOp::V1(v1(wire::V1Method::Wechat(wire::NoExtras {}))),
            PayinMethod::Pix => PayinOp::V1(v1(wire::V1Method::Pix(wire::PixExtras {
                name: self.name.trim().to_string(),
                social_security_number: self.social_security_number.trim().to_string(),
            }))),
            PayinMethod::ApplePay => PayinOp::V1(v1(wire::V1Method::ApplePay(wallet()?))),
            PayinMethod::CashApp => PayinOp::V1(v1(wire::V1Method::CashApp(wallet()?))),
            PayinMethod::Gcash => PayinOp::V1(v1(wire::V1Method::Gcash(wire::GcashExtras {
                os_type: self.os_type.trim().to_string(),
                terminal: self.terminal.trim().to_string(),
                product_info_list: lines("productInfoList")?
                    .into_iter()
                    .map(|l| wire::ProductInfo {
                        sku: l.sku,
                        product_name: l.name,
                        price: l.price,
                        quantity: l.quantity,
                    })
                    .collect(),
            }))),
            PayinMethod::Sepa => PayinOp::V1(v1(wire::V1Method::Sepa(wire::SepaExtras {
                user_agent: self.user_agent.trim().to_string(),
                billing_first_name: self.first_name.trim().to_string(),
                billing_last_name: self.last_name.trim().to_string(),
            }))),
            PayinMethod::VnBank => {
                v::required("vnBankId", self.vn_bank_id.trim())?;
                let vn_bank_id = self.vn_bank_id.trim().parse::<i64>().map_err(|_| {
                    CoreError::keyed(
                        "vnBankId",
                        "must be a whole number (the bank's id)",
                        "vnBankId",
                        &[],
                    )
                })?;
                PayinOp::VnBank(wire::V1VnBankPayment {
                    common,
                    version: wire::V1VnBankPayment::VERSION.into(),
                    payment_method_str: self.payment_method_str.trim().to_string(),
                    product_name: self.product_name.trim().to_string(),
                    vn_bank_id,
                })
            }
        })
    }
}

/// A payout's wire operation: a single payout as filled in, or a row of a bulk file,
/// built by [`PayoutForm::build`] either way. (A bulk file holds thousands of rows at
/// most: boxing the larger variant would buy nothing.)
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum PayoutOp {
    Card(wire::V1CardPayout),
    Clabe(wire::V2Payout),
}

impl PayoutForm {
    /// A payout with its money fields; account and beneficiary empty.
    pub fn new(kind: PayoutKind, mer_order_no: &str, amount: &str, currency: &str) -> Self {
        Self {
            kind,
            mer_order_no: mer_order_no.to_string(),
            amount: amount.to_string(),
            currency: currency.to_string(),
            clabe: String::new(),
            card_no: String::new(),
            beneficiary: String::new(),
            first_name: String::new(),
            last_name: String::new(),
            country_code: String::new(),
            email: String::new(),
            mobile: String::new(),
            ip_address: String::new(),
            notify_url: String::new(),
            address_line: String::new(),
            address_line2: String::new(),
            city: String::new(),
            state: String::new(),
            post_code: String::new(),
            beneficiary_type: String::new(),
            purpose: Purpose::default(),
        }
    }

    pub fn build(&self, who: &Filler<'_>) -> CoreResult<PayoutOp> {
        let mer_order_no = order_no("merOrderNo", &self.mer_order_no)?;
        let source_amount = amount("sourceAmount", &self.amount)?;
        let currency_code = self.currency.trim().to_uppercase();
        let notify_url = or(&self.notify_url, who.notify_url).to_string();
        let ip_address = or(&self.ip_address, who.requester_ip).to_string();
        Ok(match self.kind {
            PayoutKind::Clabe => {
                let clabe: String = self.clabe.chars().filter(|c| !c.is_whitespace()).collect();
                v::required("clabe", &clabe)?;
                if currency_code != "MXN" {
                    return Err(CoreError::keyed(
                        "currency",
                        format!(
                            "a CLABE payout is in MXN (a CLABE is a Mexican bank account), not {currency_code}"
                        ),
                        "clabeCurrency",
                        &[("currency", currency_code.to_string())],
                    ));
                }
                PayoutOp::Clabe(wire::V2Payout::new(
                    MerNo(who.mer_no),
                    mer_order_no,
                    currency_code,
                    source_amount,
                    clabe,
                    notify_url,
                    ip_address,
                ))
            }
            PayoutKind::Card => {
                let card_no: String = self
                    .card_no
                    .chars()
                    .filter(|c| !c.is_whitespace() && *c != '-')
                    .collect();
                v::required("cardNo", &card_no)?;
                v::required("benFirstName", self.first_name.trim())?;
                v::required("benLastName", self.last_name.trim())?;
                let beneficiary_type = match self.beneficiary_type.trim() {
                    "" => BENEFICIARY_TYPES[0].to_string(),
                    t if BENEFICIARY_TYPES.contains(&t.to_ascii_lowercase().as_str()) => {
                        t.to_ascii_lowercase()
                    }
                    _ => {
                        return Err(CoreError::keyed(
                            "beneficiaryType",
                            "must be individual or company",
                            "beneficiaryType",
                            &[],
                        ));
                    }
                };
                let address = [
                    ("addressLine", &self.address_line),
                    ("addressLine2", &self.address_line2),
                    ("city", &self.city),
                    ("state", &self.state),
                    ("postCode", &self.post_code),
                ];
                for (field, value) in address {
                    if value.chars().count() > 128 || value.chars().any(char::is_control) {
                        return Err(CoreError::keyed(
                            field,
                            "must be at most 128 characters without control characters",
                            "addressLine",
                            &[],
                        ));
                    }
                }
                PayoutOp::Card(wire::V1CardPayout {
                    mobile: self.mobile.trim().to_string(),
                    country_code: self.country_code.trim().to_uppercase(),
                    email: self.email.trim().to_string(),
                    address_line: self.address_line.trim().to_string(),
                    address_line2: self.address_line2.trim().to_string(),
                    city: self.city.trim().to_string(),
                    state: self.state.trim().to_string(),
                    post_code: self.post_code.trim().to_string(),
                    beneficiary_type,
                    ..wire::V1CardPayout::new(
                        MerNo(who.mer_no),
                        mer_order_no,
                        currency_code,
                        source_amount,
                        card_no,
                        self.first_name.trim().to_string(),
                        self.last_name.trim().to_string(),
                        notify_url,
                        ip_address,
                    )
                })
            }
        })
    }
}

impl PayoutOp {
    /// What a person checks before it is sent (account masked).
    pub fn preview(&self) -> PayoutPreview {
        match self {
            Self::Clabe(p) => clabe_preview(p),
            Self::Card(p) => card_preview(p),
        }
    }

    pub fn mer_order_no(&self) -> &str {
        match self {
            Self::Clabe(p) => &p.mer_order_no,
            Self::Card(p) => &p.mer_order_no,
        }
    }

    pub fn set_mer_order_no(&mut self, no: &str) {
        match self {
            Self::Clabe(p) => p.mer_order_no = no.to_string(),
            Self::Card(p) => p.mer_order_no = no.to_string(),
        }
    }

    /// The currency and the amount.
    pub fn money(&self) -> (&str, rust_decimal::Decimal) {
        match self {
            Self::Clabe(p) => (&p.currency_code, p.source_amount),
            Self::Card(p) => (&p.currency_code, p.source_amount),
        }
    }
}

pub fn clabe_preview(p: &wire::V2Payout) -> PayoutPreview {
    PayoutPreview {
        kind: PayoutKind::Clabe,
        mer_order_no: p.mer_order_no.clone(),
        amount: p.source_amount.to_string(),
        currency: p.currency_code.clone(),
        beneficiary: String::new(),
        account: v::mask_card(&p.clabe),
        bank: p.clabe.get(..3).and_then(v::clabe_bank).map(str::to_string),
        payee: None,
        estimated_fee: None,
        estimated_fee_from: None,
        estimated_total: None,
    }
}

pub fn card_preview(p: &wire::V1CardPayout) -> PayoutPreview {
    PayoutPreview {
        kind: PayoutKind::Card,
        mer_order_no: p.mer_order_no.clone(),
        amount: p.source_amount.to_string(),
        currency: p.currency_code.clone(),
        beneficiary: format!("{} {}", p.ben_first_name, p.ben_last_name),
        account: v::mask_card(&p.card_no),
        bank: None,
        payee: None,
        estimated_fee: None,
        estimated_fee_from: None,
        estimated_total: None,
    }
}

/// A card operation's wire form.
#[derive(Debug)]
pub enum CardOp {
    TopUp(wire::V2CardTopUp),
    Withdraw(wire::V1CardWithdraw, String),
}

impl CardForm {
    pub fn build(&self, who: &Filler<'_>) -> CoreResult<CardOp> {
        let card = self.card.trim().to_string();
        v::required("card", &card)?;
        let reference = order_no("reference", &self.reference)?;
        let value = amount("amount", &self.amount)?;
        let currency = self.currency.trim().to_uppercase();
        Ok(match self.kind {
            CardMove::TopUp => CardOp::TopUp(wire::V2CardTopUp::new(
                MerNo(who.mer_no),
                or(&self.sub_mer_no, &card).to_string(),
                reference,
                card,
                value,
                currency,
                if self.remark.trim().is_empty() {
                    self.purpose.line().trim().to_string()
                } else {
                    self.remark.trim().to_string()
                },
            )),
            CardMove::Withdraw => CardOp::Withdraw(
                wire::V1CardWithdraw {
                    mer_no: MerNo(who.mer_no),
                    apply_order_no: card,
                    amount: value,
                    currency,
                },
                reference,
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use paydesk_gateway::wire::Operation;

    const WHO: Filler<'static> = Filler {
        mer_no: 10001,
        notify_url: "http://127.0.0.1:9/notify",
        requester_ip: "127.0.0.1",
    };

    fn payin(method: PayinMethod) -> PayinForm {
        PayinForm::new(method, "PI1", "12.50", "usd")
    }

    fn field_of(r: CoreResult<()>) -> String {
        match r {
            Err(CoreError::Validation { field, .. }) => field,
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    fn check(op: PayinOp) -> CoreResult<()> {
        match op {
            PayinOp::V2(o) => o.validate()?,
            PayinOp::V1(o) => o.validate()?,
            PayinOp::VnBank(o) => o.validate()?,
        }
        Ok(())
    }

    #[test]
    fn a_clabe_payout_is_in_mxn_and_the_error_names_the_currency() {
        let mut form = PayoutForm::new(PayoutKind::Clabe, "PO1", "200000", "usd");
        form.clabe = "002010077777777771".into();
        match form.build(&WHO) {
            Err(CoreError::Validation { field, rule }) => {
                assert_eq!(field, "currency");
                assert!(rule.contains("a CLABE payout is in MXN"), "{rule}");
                assert!(rule.contains("USD"), "{rule}");
            }
            other => panic!("a CLABE payout in USD was built: {other:?}"),
        }
        form.currency = "mxn".into();
        assert!(matches!(form.build(&WHO), Ok(PayoutOp::Clabe(_))));
    }

    #[test]
    fn a_payin_form_fills_in_the_desk_and_the_defaults() {
        let PayinOp::V2(op) = payin(PayinMethod::Wechat).build(&WHO).unwrap() else {
            panic!("WECHAT is the V2 payin");
        };
        assert_eq!(op.common.currency_code, "USD");
        assert_eq!(op.common.notify_url, WHO.notify_url);
        assert_eq!(op.common.ip_address, "127.0.0.1");
        assert_eq!(op.common.source_amount.to_string(), "12.50");
        op.validate().unwrap();
    }

    #[test]
    fn each_method_names_its_own_missing_field() {
        assert_eq!(
            field_of(check(payin(PayinMethod::Pix).build(&WHO).unwrap())),
            "name"
        );
        // SEPA: the payer's name; their browser is optional (the desk does not know it).
        assert_eq!(
            field_of(check(payin(PayinMethod::Sepa).build(&WHO).unwrap())),
            "billingFirstName"
        );
        assert_eq!(
            field_of(check(payin(PayinMethod::ApplePay).build(&WHO).unwrap())),
            "browser.userAgent"
        );
        assert_eq!(
            field_of(payin(PayinMethod::VnBank).build(&WHO).map(|_| ())),
            "vnBankId"
        );
        let mut bad_amount = payin(PayinMethod::Wechat);
        bad_amount.amount = "12,5".into();
        assert_eq!(field_of(bad_amount.build(&WHO).map(|_| ())), "sourceAmount");
        let mut no_number = payin(PayinMethod::Wechat);
        no_number.mer_order_no = " ".into();
        assert_eq!(field_of(no_number.build(&WHO).map(|_| ())), "merOrderNo");
    }

    #[test]
    fn a_payout_preview_masks_the_account_and_names_the_clabe_bank() {
        let form = PayoutForm {
            clabe: "002 010 077777777771".into(),
            ..PayoutForm::new(PayoutKind::Clabe, "PO1", "100", "MXN")
        };
        let op = form.build(&WHO).unwrap();
        let p = op.preview();
        assert_eq!(p.account, "002010********7771");
        assert_eq!(p.bank.as_deref(), Some("BANAMEX"));
        let card = PayoutForm {
            kind: PayoutKind::Card,
            card_no: "4111 1111 1111 1111".into(),
            first_name: "Ana".into(),
            last_name: "Lima".into(),
            ..form
        };
        let p = card.clone().build(&WHO).unwrap().preview();
        assert_eq!(p.account, "411111******1111");
        assert_eq!(p.beneficiary, "Ana Lima");

        // The beneficiary's address and type travel as the interface names them.
        let company = PayoutForm {
            address_line: " Av. Reforma 222 ".into(),
            address_line2: "Piso 3".into(),
            city: "CDMX".into(),
            state: "CDMX".into(),
            post_code: "06600".into(),
            beneficiary_type: "Company".into(),
            ..card.clone()
        };
        let PayoutOp::Card(op) = company.build(&WHO).unwrap() else {
            panic!("a card payout")
        };
        assert_eq!(op.address_line, "Av. Reforma 222");
        assert_eq!(op.address_line2, "Piso 3");
        assert_eq!((op.city.as_str(), op.state.as_str()), ("CDMX", "CDMX"));
        assert_eq!(op.post_code, "06600");
        assert_eq!(op.beneficiary_type, "company");
        let PayoutOp::Card(op) = card.clone().build(&WHO).unwrap() else {
            panic!("a card payout")
        };
        assert_eq!(op.beneficiary_type, "individual", "the default");
        let e = PayoutForm {
            beneficiary_type: "trust".into(),
            ..card.clone()
        }
        .build(&WHO)
        .unwrap_err();
        assert!(e.to_string().starts_with("beneficiaryType:"), "{e}");
        let e = PayoutForm {
            city: "a\u{0}b".into(),
            ..card
        }
        .build(&WHO)
        .unwrap_err();
        assert!(e.to_string().starts_with("city:"), "{e}");
    }
}

paydesk_gateway::masked_debug!(PayoutForm, PayinForm);
