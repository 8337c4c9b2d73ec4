//! Where the store reads "now" (UTC millis) for the times it writes and the windows it
//! measures (the journal's times, its claims' leases, the duplicate window): the desk's
//! clock, handed over by `Desk::set_clock` ([`super::Store::set_clock`]); the system's
//! clock until then.

use std::sync::Arc;

/// A source of "now", UTC millis.
#[derive(Clone)]
pub struct Now(Arc<dyn Fn() -> i64 + Send + Sync>);

impl Now {
    /// The system's clock.
    pub fn system() -> Self {
        Now(Arc::new(crate::now_ms))
    }

    /// Now from `f` (a desk's clock).
    pub fn of(f: impl Fn() -> i64 + Send + Sync + 'static) -> Self {
        Now(Arc::new(f))
    }

    /// Now, UTC millis.
    pub fn ms(&self) -> i64 {
        (self.0)()
    }
}

impl Default for Now {
    fn default() -> Self {
        Now::system()
    }
}

impl std::fmt::Debug for Now {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Now")
    }
}
