//! The built-in sandbox's control, keyed by types rather than routes: what the desk may
//! read of it ([`SandboxControl`]), the simulation actions on an order, and lost answers
//! on a gateway operation.

use std::fmt;
use std::str::FromStr;

use paydesk_core::store::orders::{CachedOrder, OrderKind};
use paydesk_core::{CardBalance, CoreError, CoreResult, Delivery, SandboxControl};
use paydesk_gateway::wire::Operation;
use paydesk_gateway::{Meaning, StateDictionary, StateField};
use serde::{Deserialize, Serialize};

use crate::builtin::BuiltinSandbox;

/// A simulation action of the built-in sandbox on one order (its simulation API's
/// `/__sandbox/orders/{tradeNo}/{action}`).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SimulateAction {
    Pay,
    Fail,
    Close,
    Settle,
    ReleaseReserve,
    /// All of what is left of a paid payin, or the amount given.
    Refund,
    /// All of what is left of a paid payin, or the amount given.
    Chargeback,
}

impl SimulateAction {
    pub const ALL: [SimulateAction; 7] = [
        Self::Pay,
        Self::Fail,
        Self::Close,
        Self::Settle,
        Self::ReleaseReserve,
        Self::Refund,
        Self::Chargeback,
    ];

    /// The action's name in the sandbox's simulation API.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pay => "pay",
            Self::Fail => "fail",
            Self::Close => "close",
            Self::Settle => "settle",
            Self::ReleaseReserve => "release-reserve",
            Self::Refund => "refund",
            Self::Chargeback => "chargeback",
        }
    }
}

impl SimulateAction {
    /// Whether the built-in sandbox takes this action on `order`, as the cache knows
    /// it: its state read with `dictionary`, its kind where the journal knows it (an
    /// order of unknown kind may be a payin). Pay, fail and close move an open order;
    /// settle and release the reserve, a paid payin not yet settled or released; refund
    /// and chargeback, a paid payin not wholly refunded.
    pub fn applies_to(self, order: &CachedOrder, dictionary: &StateDictionary) -> bool {
        use Meaning::*;
        let meaning = dictionary.meaning(StateField::OrderState, &order.state.to_string());
        let payin = matches!(order.kind, None | Some(OrderKind::Payin));
        let paid = matches!(
            meaning,
            Some(Success | PartlyRefunded | Refunded | ChargedBack)
        );
        match self {
            Self::Pay | Self::Fail | Self::Close => matches!(meaning, Some(Created | Pending)),
            Self::Settle => payin && paid && order.settle != Some(1),
            Self::ReleaseReserve => payin && paid && order.rolling_reserve_status != Some(1),
            Self::Refund | Self::Chargeback => {
                payin && matches!(meaning, Some(Success | PartlyRefunded))
            }
        }
    }
}

impl fmt::Display for SimulateAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SimulateAction {
    type Err = CoreError;

    fn from_str(s: &str) -> CoreResult<Self> {
        Self::ALL
            .into_iter()
            .find(|a| a.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|a| a.as_str()).collect();
                CoreError::keyed(
                    "action",
                    format!("must be one of {}", names.join(", ")),
                    "methodOneOf",
                    &[("names", names.join(", "))],
                )
            })
    }
}

impl SandboxControl for BuiltinSandbox {
    fn cards(&self, mer_no: u64) -> Vec<CardBalance> {
        self.sandbox().with_state(|s| {
            s.cards
                .values()
                .filter(|c| c.mer_no == mer_no)
                .map(|c| CardBalance {
                    card: c.apply_order_no.clone(),
                    currency: c.currency.clone(),
                    holder: c.holder.clone(),
                    balance: c.balance,
                })
                .collect()
        })
    }

    fn deliveries(&self) -> Vec<Delivery> {
        self.sandbox()
            .notifications()
            .into_iter()
            .map(|n| Delivery {
                sign: n
                    .body
                    .get("sign")
                    .and_then(|s| s.as_str())
                    .map(str::to_string),
                attempts: u32::try_from(n.attempts.len()).unwrap_or(u32::MAX),
                delivered: n.delivered,
            })
            .collect()
    }
}

impl BuiltinSandbox {
    /// From now on, every request of the operation `O` is committed and its connection
    /// dropped without an answer: what a lost answer does is then seen for real.
    pub fn lose_answers<O: Operation>(&self) {
        self.sandbox().set_fault(
            O::PATH,
            paydesk_sandbox::Fault {
                drop_rate: 1.0,
                ..Default::default()
            },
        );
    }

    /// Every operation answers normally again.
    pub fn clear_faults(&self) {
        self.sandbox().clear_faults();
    }

    /// Runs a simulation action on one order through the sandbox's simulation API.
    /// `amount` (refund and chargeback; blank is all that is left) is sent as typed.
    pub async fn act(
        &self,
        trade_no: &str,
        action: SimulateAction,
        amount: Option<&str>,
    ) -> CoreResult<()> {
        let mut url = self.base_url();
        url.path_segments_mut()
            .map_err(|()| CoreError::internal("sandbox URL"))?
            .extend(["__sandbox", "orders", trade_no, action.as_str()]);
        let body = serde_json::json!({ "amount": amount.filter(|a| !a.trim().is_empty()) });
        // The built-in sandbox is on loopback: never through a proxy.
        let client = reqwest::Client::builder()
            .no_proxy()
            .build()
            .map_err(|e| CoreError::internal(format!("HTTP client: {e}")))?;
        match client.post(url).json(&body).send().await {
            Ok(resp) if resp.status().is_success() => Ok(()),
            Ok(resp) => {
                let status = resp.status();
                let v: serde_json::Value = resp.json().await.unwrap_or_default();
                Err(CoreError::Rejected {
                    gateway_code: format!("HTTP {}", status.as_u16()),
                    message: v["error"].as_str().unwrap_or("refused").to_string(),
                })
            }
            Err(e) => Err(CoreError::NotSent {
                message: e.to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SimulateAction;

    #[test]
    fn actions_read_and_print_as_the_simulation_api_names_them() {
        for a in SimulateAction::ALL {
            assert_eq!(a.as_str().parse::<SimulateAction>().ok(), Some(a));
            assert_eq!(
                serde_json::to_value(a).ok(),
                Some(serde_json::Value::from(a.as_str()))
            );
        }
        match "explode".parse::<SimulateAction>() {
            Err(paydesk_core::CoreError::Validation { field, .. }) => assert_eq!(field, "action"),
            other => panic!("{other:?}"),
        }
    }
}
