//! Time, passed into the logic that depends on it (the not-found grace, lookup backoff,
//! duplicate windows): the system's clock at a desk, a clock moved by hand in tests, so
//! no test sleeps to let a grace period pass.

use std::sync::atomic::{AtomicI64, Ordering};

/// Where "now" comes from.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// UTC millis.
    fn now_ms(&self) -> i64;
}

/// The system's clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        crate::store::now_ms()
    }
}

/// The system's clock moved forward by hand: what a test uses to be "later" at once.
/// (The journal's times and the sync's read times follow the desk's clock; other
/// records keep the system's, so only forward moves are meaningful.)
#[derive(Debug, Default)]
pub struct ShiftedClock {
    ahead_ms: AtomicI64,
}

impl ShiftedClock {
    /// Moves this clock forward.
    pub fn advance(&self, by: std::time::Duration) {
        let ms = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        self.ahead_ms.fetch_add(ms, Ordering::Relaxed);
    }
}

impl Clock for ShiftedClock {
    fn now_ms(&self) -> i64 {
        crate::store::now_ms() + self.ahead_ms.load(Ordering::Relaxed)
    }
}
