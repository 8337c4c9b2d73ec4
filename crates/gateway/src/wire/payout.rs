//! Payouts: V2 bank-CLABE payout (`/v2/payout`) and V1 card payout (`/payout`).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{Bearer, Browser, Generation, HeaderSpec, MerNo, Operation, Product, optional};
use crate::validate::{self as v, FieldError};

/// `data` of both payout answers (spelled `merorderNo`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PayoutResult {
    #[serde(rename = "payCode")]
    pub pay_code: i64,
    #[serde(rename = "tradeNo")]
    pub trade_no: String,
    #[serde(rename = "merorderNo")]
    pub mer_order_no: String,
}

fn check_money_fields(
    mer_order_no: &str,
    currency_code: &str,
    source_amount: Decimal,
    return_url: &str,
    notify_url: &str,
    ip_address: &str,
) -> Result<(), FieldError> {
    v::order_no("merOrderNo", mer_order_no)?;
    v::currency("currencyCode", currency_code)?;
    v::amount("sourceAmount", &source_amount.to_string(), currency_code)?;
    optional(return_url, |s| v::url("returnUrl", s))?;
    v::required("notifyUrl", notify_url)?;
    v::url("notifyUrl", notify_url)?;
    v::required("ipAddress", ip_address)?;
    v::ip_address("ipAddress", ip_address)
}

/// Operation 2: `POST /v2/payout`, a bank-CLABE payout (`withdrawType` `6`).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct V2Payout {
    pub mer_no: MerNo,
    pub mer_order_no: String,
    pub currency_code: String,
    #[serde(with = "super::serde_util::dec")]
    pub source_amount: Decimal,
    pub withdraw_type: String,
    #[serde(default)]
    pub return_url: String,
    pub notify_url: String,
    /// `RSA256`; sent, but left out of the canonical string.
    pub sign_type: String,
    /// `V2.0.0`.
    pub version: String,
    pub ip_address: String,
    #[serde(default)]
    pub card_no: String,
    pub clabe: String,
}

impl V2Payout {
    /// `withdrawType` of a CLABE payout.
    pub const WITHDRAW_TYPE: &'static str = "6";
    pub const SIGN_TYPE: &'static str = "RSA256";
    pub const VERSION: &'static str = "V2.0.0";

    /// A CLABE payout with the protocol's constants set and no return URL or card.
    pub fn new(
        mer_no: MerNo,
        mer_order_no: String,
        currency_code: String,
        source_amount: Decimal,
        clabe: String,
        notify_url: String,
        ip_address: String,
    ) -> Self {
        Self {
            mer_no,
            mer_order_no,
            currency_code,
            source_amount,
            withdraw_type: Self::WITHDRAW_TYPE.into(),
            return_url: String::new(),
            notify_url,
            sign_type: Self::SIGN_TYPE.into(),
            version: Self::VERSION.into(),
            ip_address,
            card_no: String::new(),
            clabe,
        }
    }
}

impl Operation for V2Payout {
    type Output = PayoutResult;
    const NAME: &'static str = "v2.payout";
    const PATH: &'static str = "/v2/payout";
    const GENERATION: Generation = Generation::V2;
    const MOVES_MONEY: bool = true;

    fn headers(&self) -> HeaderSpec {
        HeaderSpec {
            payment_type: Some("PAYOUT"),
            referer: true,
            bearer: Bearer::IfAvailable,
            lang_and_order_type: true,
        }
    }

    fn validate(&self) -> Result<(), FieldError> {
        check_money_fields(
            &self.mer_order_no,
            &self.currency_code,
            self.source_amount,
            &self.return_url,
            &self.notify_url,
            &self.ip_address,
        )?;
        if self.withdraw_type != Self::WITHDRAW_TYPE {
            return Err(FieldError::new(
                "withdrawType",
                "must be 6 for a CLABE payout",
            ));
        }
        if self.version != Self::VERSION {
            return Err(FieldError::new("version", "must be V2.0.0"));
        }
        optional(&self.card_no, |s| {
            if s.bytes().all(|b| b.is_ascii_digit()) && s.len() <= 19 {
                Ok(())
            } else {
                Err(FieldError::new("cardNo", "must be up to 19 digits"))
            }
        })?;
        v::clabe("clabe", &self.clabe)
    }
}

/// Operation 8: `POST /payout`, a card payout (`withdrawType` `1`).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct V1CardPayout {
    pub mer_no: MerNo,
    pub mer_order_no: String,
    pub currency_code: String,
    #[serde(with = "super::serde_util::dec")]
    pub source_amount: Decimal,
    pub withdraw_type: String,
    #[serde(default)]
    pub return_url: String,
    pub notify_url: String,
    /// `V3.0.0`.
    pub version: String,
    pub ip_address: String,
    pub card_no: String,
    pub ben_first_name: String,
    pub ben_last_name: String,
    #[serde(default)]
    pub mobile: String,
    #[serde(default)]
    pub address_line: String,
    #[serde(default)]
    pub address_line2: String,
    #[serde(default)]
    pub city: String,
    #[serde(default)]
    pub state: String,
    #[serde(default)]
    pub country_code: String,
    #[serde(default)]
    pub post_code: String,
    #[serde(default)]
    pub email: String,
    /// For example `individual`.
    pub beneficiary_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser: Option<Browser>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub products: Vec<Product>,
}

impl V1CardPayout {
    /// `withdrawType` of a card payout.
    pub const WITHDRAW_TYPE: &'static str = "1";
    pub const VERSION: &'static str = "V3.0.0";
    /// The beneficiary type this desk sends: a person.
    pub const INDIVIDUAL: &'static str = "individual";

    /// A card payout to a person with the protocol's constants set; the beneficiary's
    /// optional details (mobile, address, email, country) empty.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        mer_no: MerNo,
        mer_order_no: String,
        currency_code: String,
        source_amount: Decimal,
        card_no: String,
        ben_first_name: String,
        ben_last_name: String,
        notify_url: String,
        ip_address: String,
    ) -> Self {
        Self {
            mer_no,
            mer_order_no,
            currency_code,
            source_amount,
            withdraw_type: Self::WITHDRAW_TYPE.into(),
            return_url: String::new(),
            notify_url,
            version: Self::VERSION.into(),
            ip_address,
            card_no,
            ben_first_name,
            ben_last_name,
            mobile: String::new(),
            address_line: String::new(),
            address_line2: String::new(),
            city: String::new(),
            state: String::new(),
            country_code: String::new(),
            post_code: String::new(),
            email: String::new(),
            beneficiary_type: Self::INDIVIDUAL.into(),
            browser: None,
            products: vec![],
        }
    }
}

impl Operation for V1CardPayout {
    type Output = PayoutResult;
    const NAME: &'static str = "v1.payout";
    const PATH: &'static str = "/payout";
    const GENERATION: Generation = Generation::V1;
    const MOVES_MONEY: bool = true;

    fn headers(&self) -> HeaderSpec {
        HeaderSpec {
            payment_type: Some("PAYOUT"),
            referer: true,
            bearer: Bearer::No,
            lang_and_order_type: false,
        }
    }

    fn validate(&self) -> Result<(), FieldError> {
        check_money_fields(
            &self.mer_order_no,
            &self.currency_code,
            self.source_amount,
            &self.return_url,
            &self.notify_url,
            &self.ip_address,
        )?;
        if self.withdraw_type != Self::WITHDRAW_TYPE {
            return Err(FieldError::new(
                "withdrawType",
                "must be 1 for a card payout",
            ));
        }
        v::card_number("cardNo", &self.card_no)?;
        v::required("benFirstName", &self.ben_first_name)?;
        v::required("benLastName", &self.ben_last_name)?;
        optional(&self.email, |s| v::email("email", s))?;
        optional(&self.country_code, |s| {
            if s.len() == 2 && s.bytes().all(|b| b.is_ascii_uppercase()) {
                Ok(())
            } else {
                Err(FieldError::new(
                    "countryCode",
                    "must be a 2-letter ISO 3166 code such as MX",
                ))
            }
        })?;
        optional(&self.mobile, |s| {
            let digits = s.strip_prefix('+').unwrap_or(s);
            if (6..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) {
                Ok(())
            } else {
                Err(FieldError::new(
                    "mobile",
                    "must be 6 to 15 digits with an optional leading +",
                ))
            }
        })?;
        v::required("beneficiaryType", &self.beneficiary_type)
    }
}

crate::masked_debug!(V2Payout, V1CardPayout);
