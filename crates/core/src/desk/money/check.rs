//! The connection check: with no money moved, what works with a profile's gateway and
//! what to change, each finding naming the setting (`paydesk profile check`, Settings'
//! *Check connection*).

use chrono::{Duration, Utc};
use paydesk_gateway::wire::{self, DateLimit, MerNo, V2OrderList};
use paydesk_gateway::{GatewayError, SignatureStatus};
use serde::Serialize;

use crate::desk::ask;
use crate::error::CoreResult;

/// One finding of the check.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckItem {
    /// What was tried (`balance`, `orderList`, `pageSize`, `signature`, `origin`,
    /// `token`, `timeZone`).
    pub what: String,
    pub outcome: CheckOutcome,
    /// In words: what happened and, where something is to change, what.
    pub detail: String,
    /// The setting to change, where one is named (`gatewayKey`, `merchantKey`,
    /// `conventions.maxPageSize`, ...).
    pub setting: Option<String>,
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckOutcome {
    Works,
    /// Works, with something to know (answers not verified, not tried).
    Note,
    Fails,
}

/// The findings of a connection check, in the order they were tried.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionCheck {
    pub profile: String,
    pub base_url: String,
    pub items: Vec<CheckItem>,
    /// True when nothing failed.
    pub ok: bool,
}

fn item(what: &str, outcome: CheckOutcome, detail: String, setting: Option<&str>) -> CheckItem {
    CheckItem {
        what: what.into(),
        outcome,
        detail,
        setting: setting.map(str::to_string),
    }
}

/// A failed signed call in words, with the setting a person would change.
fn failure(what: &str, e: &GatewayError) -> CheckItem {
    use CheckOutcome::Fails;
    match e {
        GatewayError::NotSent { reason } => item(
            what,
            Fails,
            format!(
                "the gateway could not be reached: {reason}. Check the base URL and the proxy."
            ),
            Some("baseUrl"),
        ),
        GatewayError::SignatureInvalid { reason } => item(
            what,
            Fails,
            format!(
                "the gateway answered, but its answer's signature does not verify ({reason}): the stored gateway public key is not the gateway's, or the gateway signs another way (conventions.signing)"
            ),
            Some("gatewayKey"),
        ),
        GatewayError::Rejected { code, message } => {
            let text = message.to_lowercase();
            let (why, setting) = if text.contains("sign") {
                (
                    "the gateway does not accept this desk's signature: give the gateway this profile's public key (`paydesk profile show-key`), or its signing differs (conventions.signing: excluded keys, empty values)",
                    "merchantKey",
                )
            } else if text.contains("merno") || text.contains("merchant") {
                ("the gateway does not know this merchant number", "merNo")
            } else if text.contains("page") {
                (
                    "the gateway refused the page size: set conventions.maxPageSize to the largest it takes",
                    "conventions.maxPageSize",
                )
            } else if text.contains("date") || text.contains("span") || text.contains("range") {
                (
                    "the gateway refused the date range: set conventions.maxSpanHours to the longest it takes, and conventions.timeZone to the zone it reads dateLimit in",
                    "conventions.maxSpanHours",
                )
            } else if text.contains("version") {
                (
                    "the gateway expects another version tag than the interface's",
                    "",
                )
            } else {
                (
                    "the gateway refused; its code and message say why (if it is a success code this desk does not know, add it to conventions.successCodes)",
                    "conventions.successCodes",
                )
            };
            item(
                what,
                Fails,
                format!("refused with {code} {message}: {why}"),
                (!setting.is_empty()).then_some(setting),
            )
        }
        GatewayError::Http { status, message } => item(
            what,
            Fails,
            format!("refused with HTTP {status}: {message}"),
            None,
        ),
        GatewayError::OutcomeUnknown { reason } | GatewayError::BadResponse { reason } => item(
            what,
            Fails,
            format!(
                "no readable answer: {reason}. Check the base URL (it must be the interface's base, without /v2), the proxy, and that the gateway answers JSON envelopes"
            ),
            Some("baseUrl"),
        ),
        GatewayError::Invalid(f) => item(
            what,
            Fails,
            format!("not sent: {}: {}", f.field, f.rule),
            None,
        ),
    }
}

fn verified(what: &str, s: SignatureStatus, desk_has_key: bool) -> Option<CheckItem> {
    match s {
        SignatureStatus::Verified => Some(item(
            what,
            CheckOutcome::Works,
            "the answer's signature verifies with the stored gateway public key".into(),
            None,
        )),
        SignatureStatus::Unchecked if !desk_has_key => Some(item(
            what,
            CheckOutcome::Note,
            "no gateway public key is stored, so signed answers are not verified: store it with `paydesk profile set-gateway-key`".into(),
            Some("gatewayKey"),
        )),
        _ => None,
    }
}

impl<'d> super::Money<'d> {
    /// Checks the connection with no money moved: a signed balance query of `currency`
    /// (the first the desk knows, else USD), and a signed order-list query of the last
    /// day in the gateway's zone at the page size a sync would use; the answers'
    /// signatures verified. Each finding names the setting to change.
    pub async fn check_connection(self, currency: Option<&str>) -> CoreResult<ConnectionCheck> {
        let client = self.desk.client()?;
        let mut items = Vec::new();
        let has_gateway_key = self.desk.gateway_key.is_some();
        let currency = match currency {
            Some(c) => c.trim().to_uppercase(),
            None => self
                .currencies()?
                .into_iter()
                .next()
                .unwrap_or_else(|| "USD".into()),
        };
        let balance = ask(
            client,
            &wire::V2BalanceQuery {
                mer_no: MerNo(self.desk.profile.mer_no),
                currency: currency.clone(),
            },
        )
        .await;
        // The gateway's clock, where its answer gives a time (HTTP Date, to the second).
        if let Ok(a) = &balance
            && let Some(at) = a.date
        {
            let skew = (self.desk.clock.now_ms() - at.timestamp_millis()) / 1000;
            if skew.abs() > 120 {
                items.push(item(
                    "clock",
                    CheckOutcome::Fails,
                    format!(
                        "this machine's clock is {} s {} the gateway's ({} UTC by its answer): set the system clock right (NTP), or the windows of the sync and the dates the desk writes are off by as much",
                        skew.abs(),
                        if skew > 0 { "ahead of" } else { "behind" },
                        at.format("%Y-%m-%d %H:%M:%S")
                    ),
                    Some("systemClock"),
                ));
            }
        }
        match &balance {
            Ok(a) => items.push(item(
                "balance",
                CheckOutcome::Works,
                format!(
                    "a signed balance query of {currency} was accepted (code {}): the gateway knows merchant {} and accepts this desk's signature",
                    a.code, self.desk.profile.mer_no
                ),
                None,
            )),
            Err(e) => items.push(failure("balance", e)),
        }
        let zone = self.desk.conventions.gateway_zone();
        let now = Utc::now();
        let fmt = |t: chrono::DateTime<Utc>| {
            t.with_timezone(&zone)
                .format("%Y-%m-%d %H:%M:%S")
                .to_string()
        };
        // The last day, or the longest span the conventions say the list takes.
        let hours = match self.desk.conventions.max_span_hours {
            0 => 24,
            h => i64::from(h).min(24),
        };
        let since = now - Duration::hours(hours) + Duration::seconds(1);
        let page_size = i64::from(
            self.desk
                .profile
                .sync
                .page_size
                .min(self.desk.conventions.max_page_size),
        );
        let list = |size: i64| V2OrderList {
            mer_no: MerNo(self.desk.profile.mer_no),
            mer_order_nos: vec![],
            trade_nos: vec![],
            date_limit: Some(DateLimit {
                from: fmt(since),
                to: fmt(now),
            }),
            page_num: 1,
            page_size: size,
            version: V2OrderList::VERSION.into(),
        };
        match ask(client, &list(page_size)).await {
            Ok(a) => {
                items.push(item(
                    "orderList",
                    CheckOutcome::Works,
                    format!(
                        "the order list of the last {hours} hours ({} to {}, read in the gateway's zone {}) answered {} orders in pages of {page_size}",
                        fmt(since),
                        fmt(now),
                        self.desk.conventions.time_zone,
                        a.data.total
                    ),
                    None,
                ));
                items.extend(verified("signature", a.signature, has_gateway_key));
            }
            Err(e) => {
                // Refused at this page size: does a small page go through?
                let small = if matches!(e, GatewayError::Rejected { .. }) && page_size > 10 {
                    ask(client, &list(10)).await.ok()
                } else {
                    None
                };
                match small {
                    Some(_) => items.push(item(
                        "pageSize",
                        CheckOutcome::Fails,
                        format!(
                            "the order list is refused with pages of {page_size} orders ({e}) and answers with pages of 10: set conventions.maxPageSize to the largest page the gateway takes (ask its support)"
                        ),
                        Some("conventions.maxPageSize"),
                    )),
                    None => items.push(failure("orderList", &e)),
                }
            }
        }
        if let Ok(a) = &balance
            && !items.iter().any(|i| i.what == "signature")
        {
            items.extend(verified("signature", a.signature, has_gateway_key));
        }
        items.push(item(
            "origin",
            CheckOutcome::Note,
            format!(
                "the registered origin ({}) and the access token are sent only with payins, payouts and top-ups, which move money: not tried here. A first payin of a small amount proves them",
                self.desk.profile.origin
            ),
            Some("origin"),
        ));
        if self.desk.secrets.bearer(&self.desk.profile.name)?.is_none() {
            items.push(item(
                "token",
                CheckOutcome::Note,
                "no access token is stored: the V2 payin and the card top-up need one (`paydesk profile set-token`)".into(),
                Some("token"),
            ));
        }
        let ok = !items.iter().any(|i| i.outcome == CheckOutcome::Fails);
        self.desk.audit(
            "connection_check",
            format!("currency={currency}"),
            if ok { "ok" } else { "problems" },
            std::time::Instant::now(),
        );
        Ok(ConnectionCheck {
            profile: self.desk.profile.name.clone(),
            base_url: self.desk.base_url.to_string(),
            items,
            ok,
        })
    }
}
