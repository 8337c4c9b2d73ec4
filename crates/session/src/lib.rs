//! The layer both front ends (the desktop app and the `paydesk` CLI) stand on, above the
//! engine: where profiles live, the keyring, the active profile, and opening a desk,
//! which for the built-in sandbox profile means starting the sandbox gateway in-process
//! and handing the desk its address. Here too is what runs beside an open desk (the
//! notification receiver, the start-up reconcile) and the sandbox's control: simulation
//! actions, lost answers, card balances and notification deliveries.

pub mod builtin;
mod control;
pub mod lock;
pub mod receiver;

use std::ops::Deref;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use paydesk_core::forms::{PayoutForm, PayoutKind, Receipt};
use paydesk_core::profile::SANDBOX_PROFILE;
use paydesk_core::{CoreError, CoreResult, Desk, Endpoint, Home, KeyringStore, Secrets};
use paydesk_gateway::wire;

pub use builtin::BuiltinSandbox;
pub use control::SimulateAction;
pub use receiver::Receiver;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Where profiles live and the keyring their secrets are kept in.
#[derive(Debug)]
pub struct Session {
    home: Home,
    service: String,
    /// The keyring, probed on first use; a failed probe is tried again next time.
    secrets: Mutex<Option<Secrets>>,
}

impl Session {
    /// `PAYDESK_HOME` (or the user's data folder) and `PAYDESK_KEYRING_SERVICE` (or
    /// `PayDesk`).
    pub fn from_env() -> CoreResult<Self> {
        let service = std::env::var("PAYDESK_KEYRING_SERVICE")
            .unwrap_or_else(|_| paydesk_core::KEYRING_SERVICE.to_string());
        Ok(Self::new(Home::from_env()?, &service))
    }

    pub fn new(home: Home, service: &str) -> Self {
        Self {
            home,
            service: service.to_string(),
            secrets: Mutex::default(),
        }
    }

    pub fn home(&self) -> &Home {
        &self.home
    }

    /// The keyring service name secrets are stored under.
    pub fn service(&self) -> &str {
        &self.service
    }

    /// The keyring, probed on first use; a failed probe is tried again next time.
    pub fn secrets(&self) -> CoreResult<Secrets> {
        let mut slot = lock(&self.secrets);
        if let Some(s) = slot.as_ref() {
            return Ok(s.clone());
        }
        let store = KeyringStore::open(&self.service)?;
        let s = Secrets::new(Arc::new(store)).with_service(&self.service);
        *slot = Some(s.clone());
        Ok(s)
    }

    /// The active profile's name; on first start, the built-in sandbox (created then).
    pub fn active_profile(&self) -> CoreResult<String> {
        match self.home.active()? {
            Some(p) => Ok(p),
            None => Ok(builtin::ensure_profile(&self.home, &self.secrets()?)?.name),
        }
    }

    /// Opens `profile` (default: the active one; the built-in sandbox on first use),
    /// starting the built-in sandbox's gateway when the profile is the sandbox. Nothing
    /// goes over the network and nothing is started beside the desk: outcomes an
    /// earlier run left unknown are not reconciled here (see [`Session::start`] and
    /// [`Journal::reconcile_all`]).
    pub async fn open(&self, profile: Option<&str>) -> CoreResult<OpenDesk> {
        let started = Instant::now();
        let secrets = self.secrets()?;
        let name = match profile {
            Some(p) => p.to_string(),
            None => self.active_profile()?,
        };
        if name == SANDBOX_PROFILE {
            builtin::ensure_profile(&self.home, &secrets)?;
        }
        let profile = self.home.get(&name)?;
        let sandbox = if profile.is_sandbox() {
            Some(Arc::new(
                BuiltinSandbox::start(&self.home, &secrets, &profile).await?,
            ))
        } else {
            None
        };
        let sandbox_ms = started.elapsed().as_millis();
        let endpoint = match &sandbox {
            Some(sb) => Endpoint::Local {
                base_url: sb.base_url(),
                control: sb.clone(),
            },
            None => Endpoint::Profile,
        };
        let desk = Desk::open(&self.home, secrets, &name, endpoint)?;
        tracing::info!(
            profile = %name,
            sandbox_ms,
            total_ms = started.elapsed().as_millis(),
            "desk opened"
        );
        Ok(OpenDesk {
            desk: Arc::new(desk),
            sandbox,
            receiver: None,
            fresh: None,
            fresh_rounds: Arc::default(),
            chain_watch: None,
        })
    }

    /// Opens `profile` as a long-running front end (the app) keeps it: with the
    /// notification receiver where the profile's notifications come to the desk, and
    /// the start-up reconcile of unknown outcomes running in the background (see
    /// [`OpenDesk::reconcile_in_background`]).
    pub async fn start(&self, profile: Option<&str>) -> CoreResult<OpenDesk> {
        let mut open = self.open(profile).await?;
        if open.desk.profile.notifies_desk() {
            open.receiver = Some(receiver::serve(open.desk.clone()).await?);
        }
        tracing::info!(
            profile = %open.desk.profile.name,
            notify = ?open.desk.records().notify_target(),
            "desk open"
        );
        open.reconcile_in_background();
        open.fresh = Some(open.keep_fresh_in_background(FRESH_FIRST, FRESH_EVERY));
        // A team desk checks the team's audit chain on its own while it is open, so an
        // idle one sees history cut or rewritten (every minute unless set otherwise).
        let every = paydesk_core::desk::team_chain_check_every(
            std::env::var(paydesk_core::desk::TEAM_CHAIN_CHECK_ENV)
                .ok()
                .as_deref(),
        );
        open.chain_watch = open.desk.watch_team_chain(every);
        Ok(open)
    }
}

/// An open desk and what runs for it: the built-in sandbox's gateway, and the
/// notification receiver when one was started. Dropping it stops the receiver; the
/// sandbox stops with the last user of the desk.
#[derive(Debug)]
pub struct OpenDesk {
    desk: Arc<Desk>,
    sandbox: Option<Arc<BuiltinSandbox>>,
    receiver: Option<Receiver>,
    /// The schedule that keeps finished orders fresh (stopped with the desk).
    fresh: Option<tokio::task::JoinHandle<()>>,
    /// Rounds of that schedule finished (read through or failed), for whoever watches.
    fresh_rounds: Arc<std::sync::atomic::AtomicU64>,
    /// A team desk's own check of the team's audit chain ([`Desk::watch_team_chain`]).
    chain_watch: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for OpenDesk {
    fn drop(&mut self) {
        if let Some(f) = self.fresh.take() {
            f.abort();
        }
        if let Some(w) = self.chain_watch.take() {
            w.abort();
        }
    }
}

/// When a running desk first reads its change horizon again, and how often after.
pub const FRESH_FIRST: std::time::Duration = std::time::Duration::from_secs(15 * 60);
pub const FRESH_EVERY: std::time::Duration = std::time::Duration::from_secs(6 * 3600);

impl Deref for OpenDesk {
    type Target = Desk;

    fn deref(&self) -> &Desk {
        &self.desk
    }
}

impl OpenDesk {
    pub fn desk(&self) -> &Arc<Desk> {
        &self.desk
    }

    /// The in-process gateway of the built-in sandbox profile.
    pub fn sandbox(&self) -> Option<&BuiltinSandbox> {
        self.sandbox.as_deref()
    }

    /// The desk's notification endpoint, when it runs.
    pub fn receiver(&self) -> Option<&Receiver> {
        self.receiver.as_ref()
    }

    /// Reconciles every unknown outcome that is due (what every start does) without
    /// holding up the caller. A failure is logged; the entries stay unknown, shown as
    /// such, and are looked up again later or when an operator asks.
    pub fn reconcile_in_background(&self) -> tokio::task::JoinHandle<()> {
        let desk = self.desk.clone();
        tokio::spawn(async move {
            match desk.journal().reconcile_all(false).await {
                Ok(entries) => tracing::info!(
                    profile = %desk.profile.name,
                    entries = entries.len(),
                    "start-up reconcile done"
                ),
                Err(e) => tracing::error!(
                    profile = %desk.profile.name,
                    error = %e,
                    "start-up reconcile failed; unknown outcomes stay unknown"
                ),
            }
        })
    }

    /// Reads the change horizon's windows again (finished orders too: refunds,
    /// chargebacks, settlements and reserve releases come to them later), cheapest
    /// stretch first ([`Orders::horizon_plan`]), `first` after now and every `every` after
    /// that, while the desk is open (the app: [`FRESH_FIRST`], [`FRESH_EVERY`]; a test:
    /// milliseconds). The horizon is the desk's at each round. A sync already running
    /// (the operator's) is left alone: that round is skipped.
    pub fn keep_fresh_in_background(
        &self,
        first: std::time::Duration,
        every: std::time::Duration,
    ) -> tokio::task::JoinHandle<()> {
        let desk = Arc::downgrade(&self.desk);
        let rounds = self.fresh_rounds.clone();
        tokio::spawn(async move {
            tokio::time::sleep(first).await;
            loop {
                let Some(d) = desk.upgrade() else { return };
                let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
                match d.orders().refresh_horizon(cancel, |_| {}).await {
                    Ok(r) => tracing::info!(
                        profile = %d.profile.name,
                        changed = r.changed,
                        "change horizon read again"
                    ),
                    Err(e) => tracing::warn!(
                        profile = %d.profile.name,
                        error = %e,
                        "change horizon not read again this round"
                    ),
                }
                drop(d);
                rounds.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                tokio::time::sleep(every).await;
            }
        })
    }

    /// Rounds of the change horizon's scheduled re-read finished so far (read through
    /// or failed; see [`OpenDesk::keep_fresh_in_background`]).
    pub fn fresh_rounds(&self) -> u64 {
        self.fresh_rounds.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The simulation actions the built-in sandbox takes on a cached order now (none on
    /// any other profile, or for an order the cache does not hold).
    pub fn simulation_actions(&self, trade_no: &str) -> CoreResult<Vec<SimulateAction>> {
        if self.sandbox.is_none() {
            return Ok(Vec::new());
        }
        let Some(order) = self.desk.orders().cached_order(trade_no)? else {
            return Ok(Vec::new());
        };
        let dictionary = self.desk.dictionary();
        Ok(SimulateAction::ALL
            .into_iter()
            .filter(|a| a.applies_to(&order, dictionary))
            .collect())
    }

    /// Adds `count` realistic orders of this profile's merchant to the built-in sandbox,
    /// over the last 90 days (what `paydesk sandbox --seed-orders` does for the sandbox it
    /// serves); how many were added. A sync then brings them into the cache.
    pub fn seed_sandbox(&self, count: u32) -> CoreResult<usize> {
        let sandbox = self.sandbox.as_ref().ok_or_else(|| {
            CoreError::keyed(
                "profile",
                "simulation actions exist only on the sandbox",
                "sandboxOnly",
                &[],
            )
        })?;
        let max = paydesk_sandbox::MAX_SEED_COUNT;
        let count = usize::try_from(count).unwrap_or(usize::MAX);
        if !(1..=max).contains(&count) {
            return Err(CoreError::keyed(
                "count",
                format!("must be between 1 and {max}"),
                "seedCountRange",
                &[("max", max.to_string())],
            ));
        }
        let n = sandbox.sandbox().seed(&paydesk_sandbox::SeedSpec {
            mer_no: Some(self.desk.profile.mer_no),
            seed: u64::try_from(self.desk.now_ms()).unwrap_or(1),
            ..paydesk_sandbox::SeedSpec::new(count)
        });
        self.desk.journal().audit_event(
            "sandbox.seed",
            format!("count={count}"),
            &format!("added {n}"),
        );
        Ok(n)
    }

    /// A simulation action on one order (built-in sandbox only), audited; then the
    /// order's day is read again so that the cache shows its new state. An action the
    /// cached order's kind and state do not allow is refused before the sandbox is asked.
    /// A refund or chargeback is then looked up through the gateway's interface, as a
    /// user would, and cached: the answer is the refund's number (the V1 refund query
    /// needs it), `None` for other actions or when the lookup failed.
    pub async fn simulate(
        &self,
        trade_no: &str,
        action: SimulateAction,
        amount: Option<&str>,
    ) -> CoreResult<Option<String>> {
        let sandbox = self.sandbox.as_ref().ok_or_else(|| {
            CoreError::keyed(
                "profile",
                "simulation actions exist only on the sandbox",
                "sandboxOnly",
                &[],
            )
        })?;
        paydesk_gateway::validate::required("tradeNo", trade_no)?;
        if let Some(order) = self.desk.orders().cached_order(trade_no)?
            && !action.applies_to(&order, self.desk.dictionary())
        {
            return Err(CoreError::keyed(
                "action",
                format!(
                    "{action} does not apply to order {} in its state ({}) and kind ({})",
                    order.trade_no,
                    self.desk
                        .dictionary()
                        .meaning(
                            paydesk_gateway::StateField::OrderState,
                            &order.state.to_string()
                        )
                        .map_or("unknown", |m| m.as_str()),
                    order.kind.map_or("not given", |k| k.as_str()),
                ),
                "actionNotApplicable",
                &[
                    ("action", action.to_string()),
                    ("order", order.trade_no.clone()),
                ],
            ));
        }
        self.desk
            .orders()
            .order_step(
                "sandbox.simulate",
                trade_no,
                format!("tradeNo={trade_no} action={action}"),
                sandbox.act(trade_no, action, amount),
            )
            .await?;
        let query_type = match action {
            SimulateAction::Refund => "refund",
            SimulateAction::Chargeback => "chargeback",
            _ => return Ok(None),
        };
        match self.desk.orders().query_order(trade_no, query_type).await {
            Ok(a) => Ok(Some(a.data.refund_no).filter(|n| !n.is_empty())),
            Err(e) => {
                tracing::info!(error = %e, trade_no, "the reversal was not looked up");
                Ok(None)
            }
        }
    }

    /// Sends a confirmed payout that the built-in sandbox commits and then drops the
    /// connection of without an answer, to see a lost answer handled for real; refused
    /// on any other profile.
    pub async fn payout_losing_answer(&self, form: &PayoutForm) -> CoreResult<Receipt> {
        let sandbox = self.sandbox.as_ref().ok_or_else(|| {
            CoreError::keyed(
                "profile",
                "lost answers can be simulated only on the sandbox",
                "sandboxOnly",
                &[],
            )
        })?;
        match form.kind {
            PayoutKind::Card => sandbox.lose_answers::<wire::V1CardPayout>(),
            PayoutKind::Clabe => sandbox.lose_answers::<wire::V2Payout>(),
        }
        let r = self.desk.money().payout(form).await;
        sandbox.clear_faults();
        r
    }
}

#[cfg(test)]
mod tests {
    /// The desktop app keeps its open desk in its managed state, shared across threads.
    #[test]
    fn an_open_desk_can_be_shared_across_threads() {
        fn shared<T: Send + Sync + 'static>() {}
        shared::<crate::OpenDesk>();
        shared::<crate::Session>();
    }
}
