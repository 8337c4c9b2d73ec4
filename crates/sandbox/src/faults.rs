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
    /// A random extra on top of `latency_ms`, uniform from 0 to this many
    /// milliseconds, drawn per request from the seed.
    pub latency_jitter_ms: u64,
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
    /// Commit the operation, then answer as a proxy in front of the gateway would:
    /// `proxyStatus` (400 by default) with `proxyBody` instead of the gateway's answer.
    pub proxy_rate: f64,
    /// The proxy's status; 400 when 0.
    pub proxy_status: u16,
    /// The proxy's body: an HTML page (the default), an empty body, or a JSON
    /// `{"code": "<status>", "message": ...}` that looks like an envelope.
    pub proxy_body: ProxyBody,
    /// How long a hung answer is held; 30 s when 0.
    pub hang_ms: u64,
    pub seed: u64,
}

/// What a proxy answers (see [`Fault::proxy_rate`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ProxyBody {
    #[default]
    Html,
    Empty,
    Envelope,
}

/// The longest `latencyMs`, `latencyJitterMs` and `hangMs` the simulation API takes
/// (each): two minutes.
pub const MAX_FAULT_MS: u64 = 120_000;

/// The settings of [`Fault`] that are durations in milliseconds, as the JSON names them.
pub(crate) const DURATION_FIELDS: [&str; 3] = ["latencyMs", "latencyJitterMs", "hangMs"];
/// The settings of [`Fault`] that are rates, as the JSON names them.
pub(crate) const RATE_FIELDS: [&str; 7] = [
    "errorRate",
    "dropRate",
    "malformedRate",
    "badSignatureRate",
    "hangRate",
    "blankTradeNoRate",
    "proxyRate",
];

impl Fault {
    /// The bounds the simulation API enforces: durations at most [`MAX_FAULT_MS`],
    /// rates from 0 to 1 (NaN refused). The message names the field and the rule.
    pub fn check(&self) -> Result<(), String> {
        let durations = [self.latency_ms, self.latency_jitter_ms, self.hang_ms];
        for (field, ms) in DURATION_FIELDS.iter().zip(durations) {
            if ms > MAX_FAULT_MS {
                return Err(format!(
                    "{field}: must be an integer from 0 to {MAX_FAULT_MS} (milliseconds)"
                ));
            }
        }
        let rates = [
            self.error_rate,
            self.drop_rate,
            self.malformed_rate,
            self.bad_signature_rate,
            self.hang_rate,
            self.blank_trade_no_rate,
            self.proxy_rate,
        ];
        for (field, rate) in RATE_FIELDS.iter().zip(rates) {
            if !(0.0..=1.0).contains(&rate) {
                return Err(format!("{field}: must be a number from 0 to 1"));
            }
        }
        if self.proxy_status != 0 && !(100..=599).contains(&self.proxy_status) {
            return Err("proxyStatus: must be an HTTP status from 100 to 599 (0: 400)".into());
        }
        Ok(())
    }
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
    /// A proxy's answer after the commit: its status and body.
    Proxy {
        status: u16,
        body: ProxyBody,
    },
}

/// Mixed into the seed for the jitter's own sequence (any odd constant would do).
const JITTER_STREAM: u64 = 0x9E37_79B9_7F4A_7C15;

impl Fault {
    /// The fault with its random sequences started from its seed.
    pub fn arm(self) -> Armed {
        let rng = fastrand::Rng::with_seed(self.seed);
        let jitter = fastrand::Rng::with_seed(self.seed ^ JITTER_STREAM);
        Armed {
            fault: self,
            rng,
            jitter,
        }
    }
}

/// A fault in force on a route, with its random sequences: one for what happens to
/// each request, one for its latency's jitter. Kept apart, so adding a jitter to a
/// fault leaves which requests fail as it was for the same seed.
#[derive(Debug, Clone)]
pub struct Armed {
    pub fault: Fault,
    rng: fastrand::Rng,
    jitter: fastrand::Rng,
}

impl Armed {
    /// The delay before the next request is handled: `latencyMs` plus a uniform draw
    /// from 0 to `latencyJitterMs` (none drawn when that is 0).
    pub fn latency(&mut self) -> Duration {
        let extra = match self.fault.latency_jitter_ms {
            0 => 0,
            max => self.jitter.u64(0..=max),
        };
        Duration::from_millis(self.fault.latency_ms.saturating_add(extra))
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
            (
                f.proxy_rate,
                Injected::Proxy {
                    status: if f.proxy_status == 0 {
                        400
                    } else {
                        f.proxy_status
                    },
                    body: f.proxy_body,
                },
            ),
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
