//! A notification as the desk's own endpoint receives it: when its signature verifies and
//! it names an order the cache holds, that order is read again from the gateway's list
//! before the notification is kept, so its state and timeline are current the moment
//! the screens learn of it (they watch the newest notification).

use std::time::Duration;

use crate::error::CoreResult;
use crate::events::{Received, Stored};

/// How long a notification's answer waits for its order to be read again: the sender
/// is answered (and the notification kept) after that in any case.
const RELIST_WAIT: Duration = Duration::from_secs(10);

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

impl<'d> super::Records<'d> {
    /// Checks a notification, reads its order again from the gateway when it verifies
    /// (an order the cache holds, on a desk that talks to the gateway), and keeps it.
    pub async fn receive_notification(self, body: &str) -> CoreResult<Received> {
        let received = crate::events::check(
            body,
            self.desk.gateway_key.as_ref(),
            &self.desk.conventions.signing,
        )?;
        let about_an_order = received.signature_ok
            && !received.trade_no.is_empty()
            && self.desk.holds_key()
            && self.desk.store.orders().get(&received.trade_no)?.is_some();
        if about_an_order {
            match tokio::time::timeout(RELIST_WAIT, self.desk.relist(&received.trade_no)).await {
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
        self.desk.store.notifications().add(
            &received.kind,
            &received.trade_no,
            body,
            received.signature_ok,
        )?;
        Ok(received)
    }

    /// The newest notification kept (what the screens watch to refresh what it changed).
    pub fn latest_notification(&self) -> CoreResult<Option<Stored>> {
        Ok(self
            .desk
            .store
            .notifications()
            .latest(1)?
            .into_iter()
            .next())
    }
}
