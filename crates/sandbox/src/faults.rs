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
    pub seed: u64,
    #[serde(skip)]
    rng: Option<fastrand::Rng>,
}

/// What happens to one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Injected {
    None,
    Error,
    Drop,
    Malformed,
    BadSignature,
}

impl Fault {
    pub fn latency(&self) -> Duration {
        Duration::from_millis(self.latency_ms)
    }

    pub fn roll(&mut self) -> Injected {
        let seed = self.seed;
        let r = self
            .rng
            .get_or_insert_with(|| fastrand::Rng::with_seed(seed))
            .f64();
        let mut edge = self.error_rate;
        if r < edge {
            return Injected::Error;
        }
        edge += self.drop_rate;
        if r < edge {
            return Injected::Drop;
        }
        edge += self.malformed_rate;
        if r < edge {
            return Injected::Malformed;
        }
        edge += self.bad_signature_rate;
        if r < edge {
            return Injected::BadSignature;
        }
        Injected::None
    }
}
