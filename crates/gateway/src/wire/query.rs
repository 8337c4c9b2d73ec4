//! Queries: V2 order query, V2 order list, V2 balance, V1 refund query.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{Generation, HeaderSpec, MerNo, Operation, SUCCESS, SignField};
use crate::validate::{self as v, FieldError};

/// Operation 4: `POST /v2/order/query`, an order, refund or chargeback by `tradeNo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct V2OrderQuery {
    /// `V4.0.0`.
    pub version: String,
    pub mer_no: MerNo,
    #[serde(default)]
    pub mer_order_no: String,
    pub trade_no: String,
    /// `sales` in the interface; other values are passed through.
    pub query_type: String,
}

impl V2OrderQuery {
    pub const VERSION: &'static str = "V4.0.0";
    /// The interface's query type: the order itself.
    pub const SALES: &'static str = "sales";

    /// A query of `trade_no` of `query_type` (`sales`, `refund`, `chargeback`, or
    /// another the gateway knows), without a merchant order number.
    pub fn new(mer_no: MerNo, trade_no: String, query_type: String) -> Self {
        Self {
            version: Self::VERSION.into(),
            mer_no,
            mer_order_no: String::new(),
            trade_no,
            query_type,
        }
    }
}

/// The record of a V2 order query (`data`). Only `tradeNo` is sure to be present.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderRecord {
    #[serde(default)]
    pub state: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub refund_no: String,
    pub trade_no: String,
    #[serde(default)]
    pub mer_no: String,
    #[serde(default)]
    pub mer_order_no: String,
    #[serde(default)]
    pub message: String,
    #[serde(default, with = "super::serde_util::opt_dec")]
    #[cfg_attr(feature = "specta", specta(type = String))]
    pub refund_amount: Option<Decimal>,
    #[serde(default)]
    pub refund_currency: String,
    #[serde(default, with = "super::serde_util::opt_dec")]
    #[cfg_attr(feature = "specta", specta(type = String))]
    pub chargeback_amount: Option<Decimal>,
    #[serde(default)]
    pub chargeback_currency: String,
    #[serde(default, with = "super::serde_util::opt_dec")]
    #[cfg_attr(feature = "specta", specta(type = String))]
    pub actual_chargeback_amount: Option<Decimal>,
    #[serde(default)]
    pub actual_chargeback_currency: String,
    #[serde(default, with = "super::serde_util::opt_dec")]
    #[cfg_attr(feature = "specta", specta(type = String))]
    pub transaction_fixed_fee: Option<Decimal>,
    #[serde(default)]
    pub settle: Option<i64>,
    #[serde(default, with = "super::serde_util::opt_dec")]
    #[cfg_attr(feature = "specta", specta(type = String))]
    pub gas_fee: Option<Decimal>,
    #[serde(default)]
    pub transaction_hash: String,
    #[serde(default, with = "super::serde_util::opt_dec")]
    #[cfg_attr(feature = "specta", specta(type = String))]
    pub receive_amount: Option<Decimal>,
    #[serde(default)]
    pub currency_code: String,
    #[serde(default, with = "super::serde_util::opt_dec")]
    #[cfg_attr(feature = "specta", specta(type = String))]
    pub source_amount: Option<Decimal>,
}

impl Operation for V2OrderQuery {
    type Output = OrderRecord;
    const NAME: &'static str = "v2.order.query";
    const PATH: &'static str = "/v2/order/query";
    const GENERATION: Generation = Generation::V2;
    const SUCCESS_CODES: &'static [&'static str] = &[SUCCESS, "200"];
    const RESPONSE_SIGNED: bool = true;

    fn headers(&self) -> HeaderSpec {
        HeaderSpec::PLAIN
    }

    fn validate(&self) -> Result<(), FieldError> {
        v::order_no("tradeNo", &self.trade_no)?;
        v::required("queryType", &self.query_type)?;
        v::required("version", &self.version)
    }
}

/// `dateLimit` of the order list, both ends `YYYY-MM-DD HH:MM:SS`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DateLimit {
    pub from: String,
    pub to: String,
}

/// Operation 5: `POST /v2/order/queryOrderList`, a page of orders.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct V2OrderList {
    pub mer_no: MerNo,
    #[serde(default)]
    pub mer_order_nos: Vec<String>,
    #[serde(default)]
    pub trade_nos: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_limit: Option<DateLimit>,
    pub page_num: i64,
    pub page_size: i64,
    /// Must be `V2.0.0`.
    pub version: String,
}

impl V2OrderList {
    pub const VERSION: &'static str = "V2.0.0";
}

/// One item of `data.list`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderListItem {
    pub state: i64,
    pub mer_order_no: String,
    pub trade_no: String,
    #[serde(default, with = "super::serde_util::opt_dec")]
    pub handling_fee: Option<Decimal>,
    #[serde(default, with = "super::serde_util::opt_dec")]
    pub receive_amount: Option<Decimal>,
    #[serde(default, with = "super::serde_util::opt_dec")]
    pub settle_amount: Option<Decimal>,
    #[serde(default, with = "super::serde_util::opt_dec")]
    pub rolling_reserve: Option<Decimal>,
    #[serde(default, with = "super::serde_util::opt_dec")]
    pub transaction_fixed_fee: Option<Decimal>,
    #[serde(default, with = "super::serde_util::opt_dec")]
    pub exception_handling_fee: Option<Decimal>,
    #[serde(default, with = "super::serde_util::opt_dec")]
    pub refund_amount: Option<Decimal>,
    #[serde(with = "super::serde_util::dec")]
    pub source_amount: Decimal,
    #[serde(default)]
    pub settlement_currency: String,
    #[serde(default)]
    pub refund_currency: String,
    pub source_currency: String,
    #[serde(default)]
    pub rolling_reserve_status: Option<i64>,
    #[serde(default)]
    pub settle: Option<i64>,
    #[serde(default)]
    pub refusal_pay_reason: String,
    #[serde(default)]
    pub message: String,
}

/// `data` of the order list.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderListPage {
    pub page_num: i64,
    pub page_size: i64,
    pub total_page: i64,
    pub total: i64,
    #[serde(default)]
    pub list: Vec<OrderListItem>,
}

impl Operation for V2OrderList {
    type Output = OrderListPage;
    const NAME: &'static str = "v2.order.queryOrderList";
    const PATH: &'static str = "/v2/order/queryOrderList";
    const GENERATION: Generation = Generation::V2;
    const RESPONSE_SIGNED: bool = true;

    fn headers(&self) -> HeaderSpec {
        HeaderSpec::PLAIN
    }

    fn validate(&self) -> Result<(), FieldError> {
        if self.version != Self::VERSION {
            return Err(FieldError::new("version", "must be V2.0.0"));
        }
        if self.date_limit.is_none() && self.mer_order_nos.is_empty() && self.trade_nos.is_empty() {
            return Err(FieldError::new(
                "dateLimit",
                "at least one of dateLimit, merOrderNos or tradeNos is required",
            ));
        }
        if let Some(d) = &self.date_limit {
            let from = v::date_time("dateLimit.from", &d.from)?;
            let to = v::date_time("dateLimit.to", &d.to)?;
            if from > to {
                return Err(FieldError::new(
                    "dateLimit.to",
                    "must not be before dateLimit.from",
                ));
            }
        }
        v::page_num("pageNum", self.page_num)?;
        v::page_size("pageSize", self.page_size)
    }
}

/// Operation 6: `POST /v2/balance/query`, the balance in one currency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct V2BalanceQuery {
    pub mer_no: MerNo,
    pub currency: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BalanceRecord {
    pub currency: String,
    #[serde(with = "super::serde_util::dec")]
    pub balance: Decimal,
    #[serde(with = "super::serde_util::dec")]
    pub un_checked_balance: Decimal,
    #[serde(with = "super::serde_util::dec")]
    pub total_balance: Decimal,
}

impl Operation for V2BalanceQuery {
    type Output = BalanceRecord;
    const NAME: &'static str = "v2.balance.query";
    const PATH: &'static str = "/v2/balance/query";
    const GENERATION: Generation = Generation::V2;

    fn headers(&self) -> HeaderSpec {
        HeaderSpec::PLAIN
    }

    fn validate(&self) -> Result<(), FieldError> {
        v::currency("currency", &self.currency)
    }
}

/// Operation 9: `POST /order/query`, a refund (V1). One variant of the gateway spells
/// the signature field `sing`; set `sing_variant` for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct V1RefundQuery {
    pub mer_no: MerNo,
    #[serde(default)]
    pub mer_order_no: String,
    /// `V3.0.0`.
    pub version: String,
    pub trade_no: String,
    /// `refund`.
    pub query_type: String,
    #[serde(default)]
    pub refund_no: String,
    #[serde(skip)]
    pub sing_variant: bool,
}

impl V1RefundQuery {
    pub const VERSION: &'static str = "V3.0.0";
    /// The interface's query type of a refund.
    pub const REFUND: &'static str = "refund";
}

/// The V1 refund record (`data`).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RefundRecord {
    #[serde(default)]
    pub state: String,
    #[serde(default)]
    pub refund_no: String,
    #[serde(default)]
    pub trade_no: String,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub mer_no: String,
    #[serde(default)]
    pub mer_order_no: String,
    #[serde(default, with = "super::serde_util::opt_dec")]
    #[cfg_attr(feature = "specta", specta(type = Option<String>))]
    pub refund_amount: Option<Decimal>,
    #[serde(default)]
    pub refund_currency: String,
    #[serde(default, with = "super::serde_util::opt_dec")]
    #[cfg_attr(feature = "specta", specta(type = Option<String>))]
    pub refuse_amount: Option<Decimal>,
    #[serde(default)]
    pub refuse_currency: String,
    #[serde(default, with = "super::serde_util::opt_dec")]
    #[cfg_attr(feature = "specta", specta(type = Option<String>))]
    pub actual_refuse_amount: Option<Decimal>,
    #[serde(default)]
    pub actual_refuse_currency: String,
    #[serde(default, with = "super::serde_util::opt_dec")]
    #[cfg_attr(feature = "specta", specta(type = Option<String>))]
    pub trade_fee: Option<Decimal>,
    #[serde(default)]
    pub settle: Option<i64>,
    #[serde(default, with = "super::serde_util::opt_dec")]
    #[cfg_attr(feature = "specta", specta(type = Option<String>))]
    pub gas_fee: Option<Decimal>,
    #[serde(default)]
    pub transaction_hash: String,
    #[serde(default, with = "super::serde_util::opt_dec")]
    #[cfg_attr(feature = "specta", specta(type = Option<String>))]
    pub receive_amount: Option<Decimal>,
}

impl Operation for V1RefundQuery {
    type Output = RefundRecord;
    const NAME: &'static str = "v1.order.query";
    const PATH: &'static str = "/order/query";
    const GENERATION: Generation = Generation::V1;

    fn headers(&self) -> HeaderSpec {
        HeaderSpec::PLAIN
    }

    fn sign_field(&self) -> SignField {
        if self.sing_variant {
            SignField::Sing
        } else {
            SignField::Sign
        }
    }

    fn validate(&self) -> Result<(), FieldError> {
        v::order_no("tradeNo", &self.trade_no)?;
        v::required("queryType", &self.query_type)
    }
}
