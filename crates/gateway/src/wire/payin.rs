//! Payins: V2 wallet payin (`/v2/payment`), V1 payin for every method (`/payment`),
//! and the Vietnam-bank variant of the V1 payin, whose answer is spelled and signed
//! differently.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{Bearer, Generation, HeaderSpec, MerNo, Operation, optional};
use crate::validate::{self as v, FieldError};

/// Fields every payin carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PayinCommon {
    pub mer_no: MerNo,
    pub mer_order_no: String,
    pub currency_code: String,
    #[serde(with = "super::serde_util::dec")]
    pub source_amount: Decimal,
    #[serde(default)]
    pub return_url: String,
    pub notify_url: String,
    pub ip_address: String,
    #[serde(default)]
    pub user_id: String,
    #[serde(default)]
    pub email: String,
}

impl PayinCommon {
    pub fn validate(&self) -> Result<(), FieldError> {
        v::order_no("merOrderNo", &self.mer_order_no)?;
        v::currency("currencyCode", &self.currency_code)?;
        v::amount(
            "sourceAmount",
            &self.source_amount.to_string(),
            &self.currency_code,
        )?;
        optional(&self.return_url, |s| v::url("returnUrl", s))?;
        v::required("notifyUrl", &self.notify_url)?;
        v::url("notifyUrl", &self.notify_url)?;
        v::required("ipAddress", &self.ip_address)?;
        v::ip_address("ipAddress", &self.ip_address)?;
        optional(&self.email, |s| v::email("email", s))?;
        Ok(())
    }
}

const PAYIN_V2_HEADERS: HeaderSpec = HeaderSpec {
    payment_type: Some("WECHAT"),
    referer: true,
    bearer: Bearer::Required,
    lang_and_order_type: true,
};

/// Operation 1: `POST /v2/payment`, a wallet payin (`paymentType: WECHAT`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct V2Payment {
    #[serde(flatten)]
    pub common: PayinCommon,
}

/// `data` of the V2 payin answer (spelled `merOrderNo`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct V2PayinResult {
    pub pay_code: i64,
    pub trade_no: String,
    pub mer_order_no: String,
    #[serde(default)]
    pub pay_url: String,
}

impl Operation for V2Payment {
    type Output = V2PayinResult;
    const NAME: &'static str = "v2.payment";
    const PATH: &'static str = "/v2/payment";
    const GENERATION: Generation = Generation::V2;
    const MOVES_MONEY: bool = true;

    fn headers(&self) -> HeaderSpec {
        PAYIN_V2_HEADERS
    }

    fn validate(&self) -> Result<(), FieldError> {
        self.common.validate()
    }
}

/// `browser` object of APPLE_PAY and CASH_APP payins; every member is a string.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Browser {
    pub screen_height: String,
    pub screen_width: String,
    pub time_zone_offset: String,
    pub user_agent: String,
    pub visitor_id: String,
}

/// A `products` item (APPLE_PAY, CASH_APP).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Product {
    #[serde(with = "super::serde_util::dec")]
    pub price: Decimal,
    pub product_name: String,
    #[serde(default)]
    pub product_url: String,
    pub quantity: String,
    #[serde(default)]
    pub sku: String,
}

/// A `productInfoList` item (GCASH).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProductInfo {
    pub sku: String,
    pub product_name: String,
    #[serde(with = "super::serde_util::dec")]
    pub price: Decimal,
    pub quantity: String,
}

fn check_quantity(field: &str, q: &str) -> Result<(), FieldError> {
    match q.parse::<u32>() {
        Ok(n) if n >= 1 && !q.starts_with('+') => Ok(()),
        _ => Err(FieldError::new(
            field,
            "must be a whole number of 1 or more",
        )),
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct NoExtras {}

#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PixExtras {
    pub name: String,
    pub social_security_number: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WalletExtras {
    pub browser: Browser,
    pub products: Vec<Product>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GcashExtras {
    pub os_type: String,
    pub terminal: String,
    pub product_info_list: Vec<ProductInfo>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SepaExtras {
    /// The payer's browser, when the merchant knows it (a back office entering a bank
    /// transfer for a payer does not): the interface names the field, not whether it is
    /// required, so an empty one is left out rather than filled with the desk's own.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub user_agent: String,
    pub billing_first_name: String,
    pub billing_last_name: String,
}

/// The method of a V1 payin and its extra fields; the method goes in `paymentType`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum V1Method {
    Wechat(NoExtras),
    Pix(PixExtras),
    ApplePay(WalletExtras),
    CashApp(WalletExtras),
    Gcash(GcashExtras),
    Sepa(SepaExtras),
}

impl V1Method {
    pub fn payment_type(&self) -> &'static str {
        match self {
            Self::Wechat(_) => "WECHAT",
            Self::Pix(_) => "PIX",
            Self::ApplePay(_) => "APPLE_PAY",
            Self::CashApp(_) => "CASH_APP",
            Self::Gcash(_) => "GCASH",
            Self::Sepa(_) => "SEPA",
        }
    }

    /// Reads the extras of `payment_type` from a request body (what a gateway does).
    pub fn from_body(
        payment_type: &str,
        body: &serde_json::Value,
    ) -> Result<Self, serde_json::Error> {
        let b = body.clone();
        Ok(match payment_type {
            "PIX" => Self::Pix(serde_json::from_value(b)?),
            "APPLE_PAY" => Self::ApplePay(serde_json::from_value(b)?),
            "CASH_APP" => Self::CashApp(serde_json::from_value(b)?),
            "GCASH" => Self::Gcash(serde_json::from_value(b)?),
            "SEPA" => Self::Sepa(serde_json::from_value(b)?),
            _ => Self::Wechat(NoExtras {}),
        })
    }

    pub fn validate(&self) -> Result<(), FieldError> {
        match self {
            Self::Wechat(_) => Ok(()),
            Self::Pix(p) => {
                v::required("name", &p.name)?;
                v::required("socialSecurityNumber", &p.social_security_number)?;
                if !p
                    .social_security_number
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-')
                {
                    return Err(FieldError::new(
                        "socialSecurityNumber",
                        "may only contain digits, dots and dashes",
                    ));
                }
                Ok(())
            }
            Self::ApplePay(w) | Self::CashApp(w) => {
                v::required("browser.userAgent", &w.browser.user_agent)?;
                if w.products.is_empty() {
                    return Err(FieldError::new(
                        "products",
                        "must list at least one product",
                    ));
                }
                for (i, p) in w.products.iter().enumerate() {
                    v::required(&format!("products[{i}].productName"), &p.product_name)?;
                    check_quantity(&format!("products[{i}].quantity"), &p.quantity)?;
                    if p.price <= Decimal::ZERO {
                        return Err(FieldError::new(
                            format!("products[{i}].price"),
                            "must be greater than zero",
                        ));
                    }
                }
                Ok(())
            }
            Self::Gcash(g) => {
                v::required("osType", &g.os_type)?;
                v::required("terminal", &g.terminal)?;
                if g.product_info_list.is_empty() {
                    return Err(FieldError::new(
                        "productInfoList",
                        "must list at least one product",
                    ));
                }
                for (i, p) in g.product_info_list.iter().enumerate() {
                    v::required(
                        &format!("productInfoList[{i}].productName"),
                        &p.product_name,
                    )?;
                    check_quantity(&format!("productInfoList[{i}].quantity"), &p.quantity)?;
                    if p.price <= Decimal::ZERO {
                        return Err(FieldError::new(
                            format!("productInfoList[{i}].price"),
                            "must be greater than zero",
                        ));
                    }
                }
                Ok(())
            }
            Self::Sepa(s) => {
                v::required("billingFirstName", &s.billing_first_name)?;
                v::required("billingLastName", &s.billing_last_name)
            }
        }
    }
}

/// Operation 7: `POST /payment`, a V1 payin whose method is chosen by `paymentType`
/// (every method but VN_BANK, which is [`V1VnBankPayment`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct V1Payment {
    #[serde(flatten)]
    pub common: PayinCommon,
    /// `V3.0.0` in the interface.
    pub version: String,
    #[serde(flatten)]
    pub method: V1Method,
}

impl V1Payment {
    /// The interface's version of the V1 payin.
    pub const VERSION: &'static str = "V3.0.0";
}

/// `data` of a V1 payin answer (spelled `merorderNo`). SEPA answers carry bank
/// details instead of `payUrl`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct V1PayinResult {
    #[serde(rename = "payCode")]
    pub pay_code: i64,
    #[serde(rename = "tradeNo")]
    pub trade_no: String,
    #[serde(rename = "merorderNo")]
    pub mer_order_no: String,
    #[serde(rename = "payUrl", default, skip_serializing_if = "Option::is_none")]
    pub pay_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    #[serde(rename = "IBAN", default, skip_serializing_if = "Option::is_none")]
    pub iban: Option<String>,
    #[serde(
        rename = "beneficialName",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub beneficial_name: Option<String>,
    #[serde(rename = "bankName", default, skip_serializing_if = "Option::is_none")]
    pub bank_name: Option<String>,
    #[serde(
        rename = "bankAddress",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub bank_address: Option<String>,
    #[serde(rename = "BIC", default, skip_serializing_if = "Option::is_none")]
    pub bic: Option<String>,
}

impl Operation for V1Payment {
    type Output = V1PayinResult;
    const NAME: &'static str = "v1.payment";
    const PATH: &'static str = "/payment";
    const GENERATION: Generation = Generation::V1;
    const MOVES_MONEY: bool = true;

    fn headers(&self) -> HeaderSpec {
        HeaderSpec {
            payment_type: Some(self.method.payment_type()),
            referer: true,
            bearer: Bearer::No,
            lang_and_order_type: false,
        }
    }

    fn validate(&self) -> Result<(), FieldError> {
        self.common.validate()?;
        self.method.validate()
    }
}

/// Operation 7, Vietnam-bank variant: `POST /payment` with `paymentType: VN_BANK`.
/// Its answer spells `merOrderNo`, carries `sign`, and uses HTTP 400 and 404.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct V1VnBankPayment {
    #[serde(flatten)]
    pub common: PayinCommon,
    pub version: String,
    pub payment_method_str: String,
    pub product_name: String,
    pub vn_bank_id: i64,
}

impl V1VnBankPayment {
    pub const VERSION: &'static str = "V3.0.0";
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VnBankPayinResult {
    pub pay_code: i64,
    pub trade_no: String,
    pub mer_order_no: String,
    #[serde(default)]
    pub message: String,
}

impl Operation for V1VnBankPayment {
    type Output = VnBankPayinResult;
    const NAME: &'static str = "v1.payment.vn_bank";
    const PATH: &'static str = "/payment";
    const GENERATION: Generation = Generation::V1;
    const MOVES_MONEY: bool = true;
    const RESPONSE_SIGNED: bool = true;
    const DOCUMENTED_HTTP_ERRORS: &'static [u16] = &[400, 404];

    fn headers(&self) -> HeaderSpec {
        HeaderSpec {
            payment_type: Some("VN_BANK"),
            referer: true,
            bearer: Bearer::No,
            lang_and_order_type: false,
        }
    }

    fn validate(&self) -> Result<(), FieldError> {
        self.common.validate()?;
        v::required("paymentMethodStr", &self.payment_method_str)?;
        v::required("productName", &self.product_name)?;
        if self.vn_bank_id <= 0 {
            return Err(FieldError::new("vnBankId", "must be a positive bank id"));
        }
        Ok(())
    }
}

crate::masked_debug!(PixExtras);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sepa_payin_without_the_payers_browser_leaves_the_field_out() {
        let extras = |ua: &str| SepaExtras {
            user_agent: ua.into(),
            billing_first_name: "Ana".into(),
            billing_last_name: "Lima".into(),
        };
        let unknown = serde_json::to_value(extras("")).unwrap();
        assert_eq!(
            unknown,
            serde_json::json!({"billingFirstName": "Ana", "billingLastName": "Lima"})
        );
        assert!(V1Method::Sepa(extras("")).validate().is_ok());
        let known = serde_json::to_value(extras("Mozilla/5.0")).unwrap();
        assert_eq!(known["userAgent"], "Mozilla/5.0");
    }
}
