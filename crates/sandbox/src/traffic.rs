//! Counting what reaches the gateway: requests to the operations, the most of them
//! that arrived within any one second, requests per path, and TCP connections
//! accepted. A test reads it to prove that a desk keeps to its rate limit and reuses
//! its connections (HTTP keep-alive) instead of opening one per request.

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::extract::{Request, State as AxState};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse as _, Response};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::net::{TcpListener, TcpStream};

use crate::Shared;

/// The length of the sliding window of [`Traffic::max_per_second`].
pub const TRAFFIC_WINDOW: Duration = Duration::from_secs(1);

/// The traffic since the sandbox started or its counters were last reset.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Traffic {
    /// Requests POSTed to the 11 operations' paths, whatever their answer. The
    /// simulation API, other methods and unknown paths are not counted.
    pub requests: u64,
    /// The most of those requests that arrived within one second: the largest number
    /// whose arrival instants fit in a window `[t, t + 1 s)` for some `t`, that is,
    /// whose first and last arrivals are less than a second apart.
    pub max_per_second: u64,
    /// Requests per operation path; a path that had none is absent.
    pub by_path: BTreeMap<String, u64>,
    /// TCP connections the server accepted, for any path (the simulation API's too).
    pub connections: u64,
}

/// The counters behind [`Traffic`]. Memory stays bounded: of the arrival instants
/// only those of the last second are kept, with the running maximum.
#[derive(Debug, Default)]
pub(crate) struct Log {
    requests: u64,
    max_per_second: u64,
    by_path: BTreeMap<&'static str, u64>,
    /// Arrivals less than [`TRAFFIC_WINDOW`] before the newest one, oldest first.
    recent: VecDeque<Instant>,
    connections: u64,
}

impl Log {
    /// A request to `path` arrived at `at`. Instants come in order (the caller reads
    /// the clock under the lock); one that does not counts as the newest's instant.
    pub fn request(&mut self, path: &'static str, at: Instant) {
        let at = self.recent.back().map_or(at, |&newest| at.max(newest));
        while self
            .recent
            .front()
            .is_some_and(|&oldest| at.duration_since(oldest) >= TRAFFIC_WINDOW)
        {
            self.recent.pop_front();
        }
        self.recent.push_back(at);
        self.requests = self.requests.saturating_add(1);
        let n = self.by_path.entry(path).or_default();
        *n = n.saturating_add(1);
        // Every window holding the most arrivals can be slid to end at one of them, so
        // the windows ending at each arrival are the only ones to look at.
        let in_window = u64::try_from(self.recent.len()).unwrap_or(u64::MAX);
        self.max_per_second = self.max_per_second.max(in_window);
    }

    /// The server accepted a TCP connection.
    pub fn connection(&mut self) {
        self.connections = self.connections.saturating_add(1);
    }

    pub fn snapshot(&self) -> Traffic {
        Traffic {
            requests: self.requests,
            max_per_second: self.max_per_second,
            by_path: self
                .by_path
                .iter()
                .map(|(path, n)| ((*path).to_string(), *n))
                .collect(),
            connections: self.connections,
        }
    }
}

impl Shared {
    pub(crate) fn traffic(&self) -> MutexGuard<'_, Log> {
        self.traffic.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The counters as they were, and from now on zero.
    pub(crate) fn take_traffic(&self) -> Traffic {
        std::mem::take(&mut *self.traffic()).snapshot()
    }
}

/// Middleware outside every other: counts a POST to an operation's path as it
/// arrives, before its body is read or any fault delays it.
pub(crate) async fn count(AxState(s): AxState<Arc<Shared>>, req: Request, next: Next) -> Response {
    if req.method() == Method::POST
        && let Some(path) = crate::gateway::PATHS
            .iter()
            .copied()
            .find(|p| *p == req.uri().path())
    {
        let mut log = s.traffic();
        log.request(path, Instant::now());
    }
    next.run(req).await
}

/// `GET /__sandbox/traffic`: the counters.
pub(crate) async fn show(AxState(s): AxState<Arc<Shared>>) -> Response {
    axum::Json(s.traffic().snapshot()).into_response()
}

/// `DELETE /__sandbox/traffic`: zero the counters; answers what they were, so a test
/// can read and reset in one call.
pub(crate) async fn reset(AxState(s): AxState<Arc<Shared>>) -> Response {
    axum::Json(json!({"cleared": s.take_traffic()})).into_response()
}

/// A TCP listener that counts the connections it accepts.
#[derive(Debug)]
pub(crate) struct CountingListener {
    inner: TcpListener,
    shared: Arc<Shared>,
}

impl CountingListener {
    pub fn new(inner: TcpListener, shared: Arc<Shared>) -> Self {
        Self { inner, shared }
    }
}

impl axum::serve::Listener for CountingListener {
    type Io = TcpStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        // axum's own accept retries on errors (after logging them): only connections
        // handed to the server come back here.
        let accepted = axum::serve::Listener::accept(&mut self.inner).await;
        self.shared.traffic().connection();
        accepted
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log fed with arrivals `offsets_ms` after one instant.
    fn fed(offsets_ms: &[u64]) -> Traffic {
        let t0 = Instant::now();
        let mut log = Log::default();
        for ms in offsets_ms {
            log.request("/v2/order/queryOrderList", t0 + Duration::from_millis(*ms));
        }
        log.snapshot()
    }

    #[test]
    fn the_window_is_half_open() {
        // 12 arrivals 100 ms apart: the 1st and the 11th are exactly 1 s apart, so no
        // window of one second holds both.
        let paced: Vec<u64> = (0..12).map(|i| i * 100).collect();
        assert_eq!(fed(&paced).max_per_second, 10);
        // 1 ms closer together, 11 fit (0 to 990 ms).
        let tighter: Vec<u64> = (0..12).map(|i| i * 99).collect();
        assert_eq!(fed(&tighter).max_per_second, 11);
        assert_eq!(fed(&[0, 999]).max_per_second, 2);
        assert_eq!(fed(&[0, 1000]).max_per_second, 1);
        assert_eq!(fed(&[]).max_per_second, 0);
    }

    #[test]
    fn the_busiest_second_is_kept_after_it_passed() {
        // A burst of 5, a quiet 3 s, then 3 spread out: the burst stays the maximum.
        let t = fed(&[0, 1, 2, 3, 4, 3000, 3500, 3999]);
        assert_eq!((t.requests, t.max_per_second), (8, 5));
        // Bursts that overlap a window's edge: 3 at 0..2, 3 at 998..1000.
        let t = fed(&[0, 1, 2, 998, 999, 1000]);
        assert_eq!(t.max_per_second, 5, "1..=1000 holds five");
    }

    #[test]
    fn memory_holds_only_the_last_second() {
        let t0 = Instant::now();
        let mut log = Log::default();
        for i in 0..10_000u64 {
            log.request("/v2/payout", t0 + Duration::from_millis(i * 10));
        }
        assert_eq!(log.recent.len(), 100);
        assert_eq!(log.snapshot().max_per_second, 100);
        assert_eq!(log.snapshot().by_path["/v2/payout"], 10_000);
    }

    #[test]
    fn an_instant_out_of_order_counts_as_the_newest() {
        let t0 = Instant::now();
        let mut log = Log::default();
        log.request("/v2/payout", t0 + Duration::from_millis(500));
        log.request("/v2/payout", t0);
        log.request("/v2/payout", t0 + Duration::from_millis(1499));
        assert_eq!(log.snapshot().max_per_second, 3);
    }
}
