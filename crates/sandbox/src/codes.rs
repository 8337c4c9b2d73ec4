//! The sandbox's business error codes. Every check a real gateway makes fails with its
//! own code; the README has this table.

use paydesk_gateway::wire::Envelope;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    BadSignature,
    UnknownMerchant,
    OriginNotRegistered,
    BadToken,
    NotJsonObject,
    MissingField,
    BadFormat,
    BadVersion,
    ListNeedsFilter,
    PageSizeOutOfBounds,
    DuplicateOrder,
    InsufficientBalance,
    InsufficientCardBalance,
    FileTooLarge,
    FileTypeNotAllowed,
    OrderNotFound,
    UnsupportedPaymentType,
    NotAllowedInState,
    CardNotFound,
    RefundNotFound,
}

impl Code {
    pub const ALL: [Code; 20] = [
        Code::BadSignature,
        Code::UnknownMerchant,
        Code::OriginNotRegistered,
        Code::BadToken,
        Code::NotJsonObject,
        Code::MissingField,
        Code::BadFormat,
        Code::BadVersion,
        Code::ListNeedsFilter,
        Code::PageSizeOutOfBounds,
        Code::DuplicateOrder,
        Code::InsufficientBalance,
        Code::InsufficientCardBalance,
        Code::FileTooLarge,
        Code::FileTypeNotAllowed,
        Code::OrderNotFound,
        Code::UnsupportedPaymentType,
        Code::NotAllowedInState,
        Code::CardNotFound,
        Code::RefundNotFound,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Code::BadSignature => "E1001",
            Code::UnknownMerchant => "E1002",
            Code::OriginNotRegistered => "E1003",
            Code::BadToken => "E1004",
            Code::NotJsonObject => "E1005",
            Code::MissingField => "E1006",
            Code::BadFormat => "E1007",
            Code::BadVersion => "E1008",
            Code::ListNeedsFilter => "E1009",
            Code::PageSizeOutOfBounds => "E1010",
            Code::DuplicateOrder => "E1011",
            Code::InsufficientBalance => "E1012",
            Code::InsufficientCardBalance => "E1013",
            Code::FileTooLarge => "E1014",
            Code::FileTypeNotAllowed => "E1015",
            Code::OrderNotFound => "E1016",
            Code::UnsupportedPaymentType => "E1017",
            Code::NotAllowedInState => "E1018",
            Code::CardNotFound => "E1019",
            Code::RefundNotFound => "E1020",
        }
    }

    /// What the code means, as the README's table says it.
    pub fn meaning(self) -> &'static str {
        match self {
            Code::BadSignature => {
                "the signature does not verify with the merchant's registered public key"
            }
            Code::UnknownMerchant => "merNo is not a registered merchant",
            Code::OriginNotRegistered => "the Referer origin is not registered for the merchant",
            Code::BadToken => "the bearer token is missing or not the merchant's",
            Code::NotJsonObject => "the body is not a JSON object",
            Code::MissingField => "a required field is missing or empty",
            Code::BadFormat => "a field has the wrong type or format (the message names it)",
            Code::BadVersion => "the version tag is not the one this operation accepts",
            Code::ListNeedsFilter => "the order list needs dateLimit, merOrderNos or tradeNos",
            Code::PageSizeOutOfBounds => "pageSize is outside 1..=500 or pageNum below 1",
            Code::DuplicateOrder => "the merOrderNo was already used by this merchant",
            Code::InsufficientBalance => "the merchant's balance in that currency is too low",
            Code::InsufficientCardBalance => "the card's balance is too low",
            Code::FileTooLarge => "a review file is larger than 5 MiB, or all together over 20 MiB",
            Code::FileTypeNotAllowed => "a review file's suffix or content is not an allowed type",
            Code::OrderNotFound => "no order with that tradeNo (or merOrderNo) for the merchant",
            Code::UnsupportedPaymentType => {
                "the paymentType header names no method this path serves"
            }
            Code::NotAllowedInState => "the order's state does not allow this action",
            Code::CardNotFound => "no card with that number for the merchant",
            Code::RefundNotFound => "no refund with that refundNo for the order",
        }
    }
}

/// A business failure: a code and a message that names the field or the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: Code,
    pub message: String,
}

impl Failure {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    pub fn envelope<T>(&self) -> Envelope<T> {
        Envelope::error(self.code.as_str(), self.message.clone())
    }
}

pub type Outcome<T> = Result<T, Failure>;
