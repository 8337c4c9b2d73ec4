//! A notification as the desk's own endpoint receives it: when its signature verifies and
//! it names an order the cache holds, that order is read again from the gateway's list
//! before the notification is kept, so its state and timeline are current the moment
//! the screens learn of it (they watch the newest notification).

use std::time::Duration;

use super::Desk;
use crate::error::CoreResult;
use crate::events::{Received, Stored};

/// How long a notification's answer waits for its order to be read again: the sender
/// is answered (and the notification kept) after that in any case.
const RELIST_WAIT: Duration = Duration::from_secs(10);

impl Desk {
    /// Checks a notification, reads its order again from the gateway when it verifies
    /// (an order the cache holds, on a desk that talks to the gateway), and keeps it.
    pub async fn receive_notification(&self, body: &str) -> CoreResult<Received> {
        let received =
            crate::events::check(body, self.gateway_key.as_ref(), &self.conventions.signing)?;
        let about_an_order = received.signature_ok
            && !received.trade_no.is_empty()
            && self.holds_key()
            && self.store.orders().get(&received.trade_no)?.is_some();
        if about_an_order {
            match tokio::time::timeout(RELIST_WAIT, self.relist(&received.trade_no)).await {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => tracing::info!(
                    error = %e,
                    trade_no = %received.trade_no,
                    "a notified order was not read again"
                ),
                Err(_) => tracing::info!(
                    trade_no = %received.trade_no,
                    "a notified order was not read again in time"
                ),
            }
        }
        self.store.notifications().add(
            &received.kind,
            &received.trade_no,
            body,
            received.signature_ok,
        )?;
        Ok(received)
    }

    /// The newest notification kept (what the screens watch to refresh what it changed).
    pub fn latest_notification(&self) -> CoreResult<Option<Stored>> {
        Ok(self.store.notifications().latest(1)?.into_iter().next())
    }
}

/// An order's refunds and chargebacks, as the gateway gave them when its page opened.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderReversals {
    /// The cached refunds and chargebacks of the order, newest first.
    pub reversals: Vec<crate::store::reversals::Reversal>,
    /// Lookups that could not be made (the gateway unreachable, an unreadable answer),
    /// in words; a gateway saying there is none is not one of them.
    pub not_looked_up: Vec<String>,
}

impl Desk {
    /// Looks up an order's refund and chargeback at the gateway (the V2 order query of
    /// each type, and the V1 refund query for a refund's own state), caches them, and
    /// answers with every refund and chargeback the cache holds for it.
    pub async fn order_reversals(&self, trade_no: &str) -> CoreResult<OrderReversals> {
        let trade_no = trade_no.trim();
        paydesk_gateway::validate::required("tradeNo", trade_no)?;
        let mut not_looked_up = Vec::new();
        if self.holds_key() {
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
                if let Err(e) = self.refund(trade_no, &refund_no).await
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
