//! The sandbox gateway: a stateful local implementation of every documented operation
//! of the gateway interface, with the checks a real gateway makes, signed answers,
//! notifications with retries, a simulation API under `/__sandbox/`, fault injection,
//! and optional SQLite persistence. Tests start it in-process on a free loopback port.

pub mod codes;
mod dialect;
mod extract;
mod faults;
mod gateway;
pub mod model;
pub mod notify;
mod seed;
mod sim;
mod store;
mod traffic;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use axum::Router;
use paydesk_gateway::{PrivateKey, PublicKey};
use rust_decimal::Decimal;
use tokio::sync::oneshot;

pub use extract::{MAX_DRAIN_BYTES, MAX_SIM_BODY_BYTES};
pub use faults::{Armed, Fault, Injected, MAX_FAULT_MS};
pub use gateway::{MAX_BODY_BYTES, MAX_FILE_BYTES, MAX_TOTAL_FILE_BYTES};
// `Behaviour` is defined below, next to the configuration that carries it.
pub use model::{Balance, Card, Merchant, Order, State, token_digest};
pub use notify::{Notification, NotifyKind, RetryPolicy};
pub use seed::{MAX_SEED_COUNT, SeedSpec};
pub use sim::SIMULATION_ROUTES;
use store::{Store, Touched};
pub use traffic::{TRAFFIC_WINDOW, Traffic};

/// How a sandbox starts.
#[derive(Debug, Clone, Default)]
pub struct SandboxConfig {
    /// Keep the state in this SQLite file (created if missing) instead of memory only.
    pub db: Option<PathBuf>,
    /// The gateway's signing key; generated (or loaded from `db`) when absent.
    pub gateway_key: Option<Arc<PrivateKey>>,
    /// Complete pending payins and payouts after this delay (per the magic amounts);
    /// `None` leaves them to the simulation API.
    pub auto_complete_after: Option<Duration>,
    pub retry: RetryPolicy,
    pub behaviour: Behaviour,
}

/// Ways a real gateway may behave that the interface does not rule out, for tests of a
/// desk that must not rely on the gateway to save it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Behaviour {
    /// Take a reused `merOrderNo` as a new order (a second payment) instead of
    /// refusing it with E1011. The order list by `merOrderNos` shows the first.
    pub accept_reused_order_no: bool,
    /// The order list shows a new order only this many milliseconds after it was made.
    pub list_lag_ms: u64,
    /// Speak another gateway's conventions instead of the project's reading: requests
    /// are read in them (signing, `dateLimit`'s zone, the largest page, `queryType`
    /// names, which orders the list shows) and answers and notifications written in them
    /// (state values; success, duplicate and not-found codes). The same file format as a
    /// profile's conventions (`paydesk profile conventions export`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speaks: Option<paydesk_gateway::Conventions>,
}

/// The longest list lag the simulation API takes: one hour.
pub const MAX_LIST_LAG_MS: u64 = 3_600_000;

impl Behaviour {
    /// The bounds the simulation API enforces (`listLagMs` at most [`MAX_LIST_LAG_MS`]).
    pub fn check(&self) -> Result<(), String> {
        if self.list_lag_ms > MAX_LIST_LAG_MS {
            return Err(format!(
                "listLagMs: must be an integer from 0 to {MAX_LIST_LAG_MS} (milliseconds)"
            ));
        }
        if let Some(c) = &self.speaks {
            c.check()
                .map_err(|e| format!("speaks.{}: {}", e.field, e.rule))?;
        }
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("sandbox database: {0}")]
    Db(#[from] rusqlite::Error),
    #[error("sandbox gateway key: {0}")]
    Key(#[from] paydesk_gateway::KeyError),
    #[error("sandbox: {0}")]
    Io(#[from] std::io::Error),
}

/// The state shared by every handler.
#[derive(Debug)]
pub(crate) struct Shared {
    pub state: RwLock<State>,
    pub notifications: Mutex<Vec<Notification>>,
    pub faults: Mutex<BTreeMap<String, faults::Armed>>,
    pub store: Option<Mutex<Store>>,
    pub gateway_key: Arc<PrivateKey>,
    pub auto_complete_after: Option<Duration>,
    pub retry: RetryPolicy,
    pub behaviour: RwLock<Behaviour>,
    /// The `payUrl` every new payin is answered with instead of the sandbox's own (a
    /// hostile gateway's: `javascript:`, a megabyte), for tests of what a desk shows.
    pub pay_url: RwLock<Option<String>>,
    /// What reached the server (see [`Sandbox::traffic`]).
    pub traffic: Mutex<traffic::Log>,
}

impl Shared {
    pub(crate) fn behaviour(&self) -> Behaviour {
        self.behaviour.read().unwrap_or_else(poisoned).clone()
    }

    /// Runs `f` with the reading the sandbox speaks now.
    pub(crate) fn with_dialect<R>(&self, f: impl FnOnce(&dialect::Dialect<'_>) -> R) -> R {
        let b = self.behaviour.read().unwrap_or_else(poisoned);
        f(&dialect::Dialect {
            conventions: b.speaks.as_ref(),
        })
    }
}

fn poisoned<T>(e: std::sync::PoisonError<T>) -> T {
    // A handler that panicked mid-update cannot leave half a balance behind: updates
    // go through `State::update_order`, which is not interrupted by anything that panics.
    e.into_inner()
}

impl Shared {
    pub fn read(&self) -> std::sync::RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(poisoned)
    }

    pub fn write(&self) -> std::sync::RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(poisoned)
    }

    /// Persists what changed (when a database is configured). Called with the state
    /// lock held, so the file and the memory never disagree.
    pub fn persist(&self, state: &State, touched: &Touched) {
        if let Some(store) = &self.store {
            let mut store = store.lock().unwrap_or_else(poisoned);
            if let Err(e) = store.save(state, touched) {
                tracing::error!(error = %e, "sandbox could not persist a change");
            }
        }
    }

    pub fn with_notification<R>(&self, id: u64, f: impl FnOnce(&Notification) -> R) -> Option<R> {
        let notes = self.notifications.lock().unwrap_or_else(poisoned);
        notes.iter().find(|n| n.id == id).map(f)
    }

    pub fn update_notification(&self, id: u64, f: impl FnOnce(&mut Notification)) {
        let saved = {
            let mut notes = self.notifications.lock().unwrap_or_else(poisoned);
            let Some(n) = notes.iter_mut().find(|n| n.id == id) else {
                return;
            };
            f(n);
            n.clone()
        };
        let state = self.read();
        self.persist(
            &state,
            &Touched {
                notifications: vec![saved],
                ..Touched::default()
            },
        );
    }
}

/// A sandbox gateway; cheap to clone.
#[derive(Debug, Clone)]
pub struct Sandbox {
    shared: Arc<Shared>,
}

/// A sandbox serving on a loopback port. Dropping it stops the server.
#[derive(Debug)]
pub struct Running {
    pub addr: SocketAddr,
    pub sandbox: Sandbox,
    shutdown: Option<oneshot::Sender<()>>,
    join: Option<tokio::task::JoinHandle<()>>,
}

impl Running {
    /// `http://127.0.0.1:PORT/`
    pub fn base_url(&self) -> url::Url {
        url::Url::parse(&format!("http://{}/", self.addr))
            .unwrap_or_else(|_| unreachable!("a socket address is a valid URL host"))
    }

    /// Stops serving and waits for the server task to end.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(join) = self.join.take() {
            let _ = join.await;
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

impl Sandbox {
    pub fn new(config: SandboxConfig) -> Result<Self, SandboxError> {
        let store = config.db.as_deref().map(Store::open).transpose()?;
        let (state, notes, stored_key) = match &store {
            Some(s) => {
                let (state, notes) = s.load()?;
                (state, notes, s.meta("gateway_key")?)
            }
            None => (State::default(), Vec::new(), None),
        };
        let gateway_key = match (config.gateway_key, stored_key) {
            (Some(k), _) => k,
            (None, Some(text)) => Arc::new(PrivateKey::from_text(&text)?),
            (None, None) => Arc::new(PrivateKey::generate(2048)?),
        };
        if let Some(s) = &store {
            use base64::Engine as _;
            let b64 = base64::engine::general_purpose::STANDARD.encode(gateway_key.pkcs8_der());
            s.set_meta("gateway_key", &b64)?;
        }
        Ok(Self {
            shared: Arc::new(Shared {
                state: RwLock::new(state),
                notifications: Mutex::new(notes),
                faults: Mutex::new(BTreeMap::new()),
                store: store.map(Mutex::new),
                gateway_key,
                auto_complete_after: config.auto_complete_after,
                retry: config.retry,
                behaviour: RwLock::new(config.behaviour),
                pay_url: RwLock::default(),
                traffic: Mutex::default(),
            }),
        })
    }

    /// The gateway's public key, which merchants use to verify answers and notifications.
    pub fn gateway_public_key(&self) -> PublicKey {
        self.shared.gateway_key.public_key()
    }

    /// Registers (or replaces) a merchant.
    pub fn add_merchant(&self, m: Merchant) {
        let mut state = self.shared.write();
        let mer_no = m.mer_no;
        state.add_merchant(m);
        self.shared.persist(
            &state,
            &Touched {
                merchants: vec![mer_no],
                ..Touched::default()
            },
        );
    }

    /// Registers (or replaces) a card; its balance is the opening balance moved by the
    /// card's orders so far (see [`State::put_card`]).
    pub fn add_card(&self, c: Card) {
        let mut state = self.shared.write();
        let key = (c.mer_no, c.apply_order_no.clone());
        state.put_card(c);
        self.shared.persist(
            &state,
            &Touched {
                cards: vec![key],
                ..Touched::default()
            },
        );
    }

    /// Seeds realistic orders (see [`SeedSpec`]); returns how many were added.
    pub fn seed(&self, spec: &SeedSpec) -> usize {
        seed::seed(&self.shared, spec)
    }

    /// Reads the state (for tests and the simulation API).
    pub fn with_state<R>(&self, f: impl FnOnce(&State) -> R) -> R {
        f(&self.shared.read())
    }

    pub fn notifications(&self) -> Vec<Notification> {
        self.shared
            .notifications
            .lock()
            .unwrap_or_else(poisoned)
            .clone()
    }

    pub fn set_fault(&self, route: &str, fault: Fault) {
        self.shared
            .faults
            .lock()
            .unwrap_or_else(poisoned)
            .insert(route.to_string(), fault.arm());
    }

    /// Changes how the sandbox behaves where the interface leaves it open.
    pub fn set_behaviour(&self, b: Behaviour) {
        *self.shared.behaviour.write().unwrap_or_else(poisoned) = b;
    }

    pub fn behaviour(&self) -> Behaviour {
        self.shared.behaviour()
    }

    /// How many orders the merchant has under this `merOrderNo` (more than one only
    /// when reused numbers are accepted).
    pub fn orders_numbered(&self, mer_no: u64, mer_order_no: &str) -> usize {
        self.with_state(|s| {
            s.orders
                .iter()
                .filter(|o| o.mer_no == mer_no && o.mer_order_no == mer_order_no)
                .count()
        })
    }

    /// Changes the merchant's order under `mer_order_no` through `f` (a gateway whose
    /// record disagrees with what the merchant sent: another amount or currency), for
    /// tests of what a desk believes. Returns false when there is no such order.
    pub fn alter_order(
        &self,
        mer_no: u64,
        mer_order_no: &str,
        f: impl FnOnce(&mut model::Order),
    ) -> bool {
        let mut state = self.shared.write();
        let Some(idx) = state
            .by_mer_order(mer_no, mer_order_no)
            .and_then(|o| state.index_of(&o.trade_no))
        else {
            return false;
        };
        state.update_order(idx, f);
        true
    }

    /// Answers every new payin with `pay_url` (`None`: the sandbox's own link again).
    pub fn set_pay_url(&self, pay_url: Option<String>) {
        *self.shared.pay_url.write().unwrap_or_else(poisoned) = pay_url;
    }

    pub fn clear_faults(&self) {
        self.shared.faults.lock().unwrap_or_else(poisoned).clear();
    }

    /// The gateway traffic since the start or the last [`Sandbox::reset_traffic`]:
    /// requests to the operations, the most in any one second, per path, and the TCP
    /// connections accepted.
    pub fn traffic(&self) -> Traffic {
        self.shared.traffic().snapshot()
    }

    /// Zeroes the traffic counters; returns what they were.
    pub fn reset_traffic(&self) -> Traffic {
        self.shared.take_traffic()
    }

    /// Every route: the 11 operations and the simulation API. A path that is neither
    /// is answered 404 in the shape of its neighbours: `{"error"}` under
    /// `/__sandbox/`, an envelope elsewhere.
    pub fn router(&self) -> Router {
        gateway::routes(self.shared.clone())
            .merge(sim::routes(self.shared.clone()))
            .fallback(not_found)
            .layer(axum::middleware::from_fn(extract::whole_body))
            // Outermost: a request is counted as it arrives, before its body is read.
            .layer(axum::middleware::from_fn_with_state(
                self.shared.clone(),
                traffic::count,
            ))
    }

    /// The gateway operations' paths (every one is a POST).
    pub fn gateway_paths() -> &'static [&'static str] {
        &gateway::PATHS
    }

    /// Serves on `addr` (use port 0 for a free port), counting the connections it
    /// accepts in [`Sandbox::traffic`].
    pub async fn serve(self, addr: SocketAddr) -> Result<Running, SandboxError> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let listener = traffic::CountingListener::new(listener, self.shared.clone());
        let (tx, rx) = oneshot::channel::<()>();
        let app = self.router();
        let join = tokio::spawn(async move {
            let served = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await;
            if let Err(e) = served {
                tracing::error!(error = %e, "sandbox server stopped");
            }
        });
        Ok(Running {
            addr,
            sandbox: self,
            shutdown: Some(tx),
            join: Some(join),
        })
    }
}

/// No route: `{"error"}` for a path under `/__sandbox/` (in any case, with any
/// number of leading slashes), the gateway's envelope for any other.
async fn not_found(method: axum::http::Method, uri: axum::http::Uri) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    let path = uri.path();
    if extract::under_sandbox(path) {
        sim::not_found(method, uri).await.into_response()
    } else {
        gateway::not_found(&method, path)
    }
}

/// The demo merchant that `paydesk sandbox` and the app's built-in profile use.
pub fn demo_merchant(mer_no: u64, public_key: &PublicKey, origin: &str, token: &str) -> Merchant {
    let d = |s: &str| s.parse::<Decimal>().unwrap_or_default();
    Merchant {
        mer_no,
        public_key: public_key.to_base64(),
        origins: vec![origin.to_string()],
        tokens: vec![token.to_string()],
        fee_rate: d("0.025"),
        fixed_fee: d("0.30"),
        reserve_rate: d("0.05"),
        payout_fee: d("1.00"),
        withdraw_fee_rate: d("0.01"),
        opening: [
            ("USD", "250000.00"),
            ("EUR", "120000.00"),
            ("MXN", "6000000.00"),
            ("CNY", "800000.00"),
            ("BRL", "300000.00"),
        ]
        .into_iter()
        .map(|(c, a)| (c.to_string(), d(a)))
        .collect(),
        card_notify_url: String::new(),
    }
}
