//! Refunds and chargebacks: the table's trait, which each backend implements.

/// The table's types are the model's (`paydesk-model`: no I/O); kept at this path.
pub use paydesk_model::reversals::*;

use crate::error::CoreResult;

/// Refunds and chargebacks as last queried.
pub trait ReversalStore {
    /// A refund from the V2 order query: its fee, settlement and received amount, when
    /// cached already, stay as the refund query gave them; an empty `state` (the V2
    /// record's `state` is the order's) keeps the state the refund query gave, or none.
    fn refund_from_order_query(&self, r: RefundSeen<'_>) -> CoreResult<()>;

    /// A refund from the refund query, with every field it carries.
    fn refund(&self, r: RefundSeen<'_>) -> CoreResult<()>;

    fn chargeback(&self, c: ChargebackSeen<'_>) -> CoreResult<()>;

    /// Refunds and chargebacks, newest first; `trade_no` narrows to one order.
    fn list(&self, trade_no: Option<&str>) -> CoreResult<Vec<Reversal>>;
}
