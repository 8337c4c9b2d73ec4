//! Cards: V2 top-up (`/v2/card/topUp`) and V1 withdraw (`/card/withdraw`).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{Bearer, Generation, HeaderSpec, MerNo, NoData, Operation};
use crate::validate::{self as v, FieldError};

/// Operation 3: `POST /v2/card/topUp`, load funds onto a card (`paymentType: CARD`).
/// `merNo` is a string here, unlike everywhere else.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct V2CardTopUp {
    #[serde(with = "super::serde_util::mer_no_string")]
    pub mer_no: MerNo,
    /// The card (sub-merchant account) being loaded.
    pub sub_mer_no: String,
    pub mer_order_no: String,
    pub apply_order_no: String,
    #[serde(with = "super::serde_util::dec")]
    pub amount: Decimal,
    pub currency: String,
    #[serde(default)]
    pub remark: String,
    pub sign_type: String,
    pub version: String,
}

impl V2CardTopUp {
    pub const SIGN_TYPE: &'static str = "RSA256";
    pub const VERSION: &'static str = "V2.0.0";

    /// A top-up with the protocol's constants set.
    pub fn new(
        mer_no: MerNo,
        sub_mer_no: String,
        mer_order_no: String,
        apply_order_no: String,
        amount: Decimal,
        currency: String,
        remark: String,
    ) -> Self {
        Self {
            mer_no,
            sub_mer_no,
            mer_order_no,
            apply_order_no,
            amount,
            currency,
            remark,
            sign_type: Self::SIGN_TYPE.into(),
            version: Self::VERSION.into(),
        }
    }
}

impl Operation for V2CardTopUp {
    type Output = NoData;
    const NAME: &'static str = "v2.card.topUp";
    const PATH: &'static str = "/v2/card/topUp";
    const GENERATION: Generation = Generation::V2;
    const MOVES_MONEY: bool = true;

    fn headers(&self) -> HeaderSpec {
        HeaderSpec {
            payment_type: Some("CARD"),
            referer: true,
            bearer: Bearer::Required,
            lang_and_order_type: true,
        }
    }

    fn validate(&self) -> Result<(), FieldError> {
        v::order_no("subMerNo", &self.sub_mer_no)?;
        v::order_no("merOrderNo", &self.mer_order_no)?;
        v::order_no("applyOrderNo", &self.apply_order_no)?;
        v::currency("currency", &self.currency)?;
        v::amount("amount", &self.amount.to_string(), &self.currency)?;
        if self.version != Self::VERSION {
            return Err(FieldError::new("version", "must be V2.0.0"));
        }
        Ok(())
    }
}

/// Operation 11: `POST /card/withdraw`, take funds off a card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct V1CardWithdraw {
    pub mer_no: MerNo,
    /// The withdrawal's own number, fixed once like a `merOrderNo`.
    pub apply_order_no: String,
    #[serde(with = "super::serde_util::dec")]
    pub amount: Decimal,
    pub currency: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WithdrawResult {
    pub trade_no: String,
    pub fee: String,
}

impl Operation for V1CardWithdraw {
    type Output = WithdrawResult;
    const NAME: &'static str = "v1.card.withdraw";
    const PATH: &'static str = "/card/withdraw";
    const GENERATION: Generation = Generation::V1;
    const MOVES_MONEY: bool = true;

    fn headers(&self) -> HeaderSpec {
        HeaderSpec::PLAIN
    }

    fn validate(&self) -> Result<(), FieldError> {
        v::order_no("applyOrderNo", &self.apply_order_no)?;
        v::currency("currency", &self.currency)?;
        v::amount("amount", &self.amount.to_string(), &self.currency)
    }
}
