//! Notifications from the gateway: their signature checked with the gateway's key over
//! the canonical string of the body without its `sign` (signing.md), then kept.

use paydesk_gateway::{PublicKey, SignSettings};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{CoreError, CoreResult};

/// A notification as read.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Received {
    /// `notifyType` (pay, refund, chargeback, card, edd), raw.
    pub kind: String,
    pub trade_no: String,
    pub signature_ok: bool,
    /// Why the signature did not verify, or that there is no key to check it with.
    pub problem: Option<String>,
}

pub use crate::store::notifications::Stored;

/// Reads a body and checks its signature.
pub fn check(body: &str, key: Option<&PublicKey>, settings: &SignSettings) -> CoreResult<Received> {
    let map: Map<String, Value> = match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(m)) => m,
        Ok(_) => {
            return Err(CoreError::keyed(
                "body",
                "must be a JSON object",
                "jsonObject",
                &[],
            ));
        }
        Err(e) => {
            return Err(CoreError::keyed(
                "body",
                format!("is not JSON ({e})"),
                "notJson",
                &[("detail", e.to_string())],
            ));
        }
    };
    let text = |k: &str| {
        map.get(k)
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string())
            })
            .unwrap_or_default()
    };
    let (signature_ok, problem) = match (key, map.get("sign").and_then(Value::as_str)) {
        (None, _) => (
            false,
            Some("no gateway public key is configured for this profile".to_string()),
        ),
        (Some(_), None) => (false, Some("the body has no sign".to_string())),
        (Some(k), Some(sign)) => match paydesk_gateway::verify_body(&map, settings, k, sign) {
            Ok(()) => (true, None),
            Err(e) => (false, Some(e.to_string())),
        },
    };
    // Kept and shown: escaped and bounded, whatever the body (signed or not) says.
    Ok(Received {
        kind: paydesk_gateway::redact::terminal_safe(&text("notifyType"), 64),
        trade_no: paydesk_gateway::redact::terminal_safe(&text("tradeNo"), 64),
        signature_ok,
        problem,
    })
}
