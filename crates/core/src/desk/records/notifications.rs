//! Notifications kept at the desk (recorded, listed with their delivery, checked
//! without storing) and the alerts of the moment.

use crate::desk::Event;
use crate::error::CoreResult;

impl<'d> crate::desk::Records<'d> {
    /// Records a notification received at this desk's endpoint, with its signature
    /// checked against the gateway's key.
    pub fn record_notification(&self, body: &str) -> CoreResult<crate::events::Received> {
        let received = crate::events::check(
            body,
            self.desk.gateway_key.as_ref(),
            &self.desk.conventions.signing,
        )?;
        self.desk.store.notifications().add(
            &received.kind,
            &received.trade_no,
            body,
            received.signature_ok,
        )?;
        Ok(received)
    }

    /// Notifications received, newest first.
    pub fn notifications(&self, limit: i64) -> CoreResult<Vec<crate::events::Stored>> {
        self.desk.store.notifications().latest(limit)
    }

    /// Notifications received, newest first, each with the gateway's record of its
    /// delivery (attempts, delivered) when the caller runs that gateway (the built-in
    /// sandbox).
    pub fn events(&self, limit: i64) -> CoreResult<Vec<Event>> {
        let stored = self.notifications(limit)?;
        let sent = self
            .desk
            .control
            .as_ref()
            .map(|c| c.deliveries())
            .unwrap_or_default();
        Ok(stored
            .into_iter()
            .map(|n| {
                let sign = serde_json::from_str::<serde_json::Value>(&n.body)
                    .ok()
                    .and_then(|v| v.get("sign").and_then(|s| s.as_str()).map(str::to_string));
                let delivery = sent.iter().find(|x| sign.is_some() && x.sign == sign);
                Event {
                    attempts: delivery.map(|d| d.attempts),
                    delivered: delivery.map(|d| d.delivered),
                    stored: n,
                }
            })
            .collect())
    }

    /// Checks a pasted notification body's signature without storing it.
    pub fn verify_notification(&self, body: &str) -> CoreResult<crate::events::Received> {
        crate::events::check(
            body,
            self.desk.gateway_key.as_ref(),
            &self.desk.conventions.signing,
        )
    }
}

impl crate::desk::Records<'_> {
    /// Every condition that is an alert now, by `settings`, oldest first. On a team desk
    /// also the team's (approvals waiting for me, requests no worker takes).
    pub fn current_alerts(
        &self,
        settings: &crate::alerts::AlertSettings,
    ) -> CoreResult<Vec<crate::alerts::Alert>> {
        self.desk.alerts_now(settings)
    }
}
