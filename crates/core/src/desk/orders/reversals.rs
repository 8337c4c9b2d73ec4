//! An order's refunds and chargebacks, looked up as its page opens.

use crate::desk::OrderReversals;
use crate::error::CoreResult;

impl<'d> crate::desk::Orders<'d> {
    /// Looks up an order's refund and chargeback at the gateway (the V2 order query of
    /// each type, and the V1 refund query for a refund's own state), caches them, and
    /// answers with every refund and chargeback the cache holds for it.
    pub async fn order_reversals(self, trade_no: &str) -> CoreResult<OrderReversals> {
        let trade_no = trade_no.trim();
        paydesk_gateway::validate::required("tradeNo", trade_no)?;
        let mut not_looked_up = Vec::new();
        if self.desk.holds_key() {
            for kind in ["refund", "chargeback"] {
                match self.query_order(trade_no, kind).await {
                    // The gateway answered that there is none.
                    Ok(_) | Err(crate::CoreError::Rejected { .. }) => {}
                    Err(e) => not_looked_up.push(format!("{kind}: {e}")),
                }
            }
            // The V2 record carries the order's state, not the refund's: each refund's
            // own state comes from the V1 refund query.
            let stateless: Vec<String> = self
                .reversals(Some(trade_no))?
                .into_iter()
                .filter(|r| r.kind == "refund" && r.state.is_empty() && !r.refund_no.is_empty())
                .map(|r| r.refund_no)
                .collect();
            for refund_no in stateless {
                if let Err(e) = self.desk.money().refund(trade_no, &refund_no).await
                    && !matches!(e, crate::CoreError::Rejected { .. })
                {
                    not_looked_up.push(format!("refund {refund_no}: {e}"));
                }
            }
        }
        Ok(OrderReversals {
            reversals: self.reversals(Some(trade_no))?,
            not_looked_up,
        })
    }
}
