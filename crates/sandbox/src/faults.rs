//! Fault injection per route, reproducible from a seed.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Faults for one route (a path such as `/v2/payout`, or `*` for every operation).
/// Rates are probabilities in 0..=1; at most one of the four happens per request.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Fault {
    /// Added before the request is handled.
    pub latency_ms: u64,
    /// Answer HTTP 503 before doing anything.
    pub error_rate: f64,
    /// Commit the operation, then drop the connection without an answer.
    pub drop_rate: f64,
    /// Commit the operation, then answer with truncated JSON.
    pub malformed_rate: f64,
    /// Answer with a wrong `sign` (signed answers only).
    pub bad_signature_rate: f64,
    /// Commit the operation, then hold the answer back for `hang_ms` (a client times out).
    pub hang_rate: f64,
    /// Commit the operation, then answer success with its `tradeNo` blank (a gateway
    /// that says yes without saying under which number).
    pub blank_trade_no_rate: f64,
    /// How long a hung answer is held; 30 s when 0.
    pub hang_ms: u64,
    pub seed: u64,
}

/// What happens to one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Injected {
    None,
    Error,
    Drop,
    Malformed,
    BadSignature,
    Hang,
    BlankTradeNo,
}

impl Fault {
    /// The fault with its random sequence started from its seed.
    pub fn arm(self) -> Armed {
        let rng = fastrand::Rng::with_seed(self.seed);
        Armed { fault: self, rng }
    }
}

/// A fault in force on a route, with its random sequence.
#[derive(Debug, Clone)]
pub struct Armed {
    pub fault: Fault,
    rng: fastrand::Rng,
}

impl Armed {
    pub fn latency(&self) -> Duration {
        Duration::from_millis(self.fault.latency_ms)
    }

    pub fn hang(&self) -> Duration {
        Duration::from_millis(if self.fault.hang_ms == 0 {
            30_000
        } else {
            self.fault.hang_ms
        })
    }

    /// What happens to the next request.
    pub fn roll(&mut self) -> Injected {
        let r = self.rng.f64();
        let f = &self.fault;
        let outcomes = [
            (f.error_rate, Injected::Error),
            (f.drop_rate, Injected::Drop),
            (f.malformed_rate, Injected::Malformed),
            (f.bad_signature_rate, Injected::BadSignature),
            (f.hang_rate, Injected::Hang),
            (f.blank_trade_no_rate, Injected::BlankTradeNo),
        ];
        let mut edge = 0.0;
        for (rate, outcome) in outcomes {
            edge += rate;
            if r < edge {
                return outcome;
            }
        }
        Injected::None
    }
}
