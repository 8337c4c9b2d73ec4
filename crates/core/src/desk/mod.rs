//! The desk: one open profile with its gateway client, cache, journal and audit log,
//! and the services every screen and CLI command uses: here opening, the journal's
//! submit and reconcile, and the audit trail; orders, money and queries in the
//! submodules.

mod money;
mod orders;
mod queries;

pub use money::{CardOperation, CardSummary, ReviewRequest, ReviewSubmission};
pub use queries::{BalanceSnapshot, Dashboard, DayFigures, Event, Reversal};

use std::sync::{Arc, Mutex};
use std::time::Instant;

use paydesk_gateway::wire::{self, MerNo, Operation};
use paydesk_gateway::{
    ClientConfig, Credentials, GatewayClient, GatewayError, NextStep, SignatureStatus,
    StateDictionary,
};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::audit::{self, Record};
use crate::builtin::BuiltinSandbox;
use crate::cache::{self, CachedOrder};
use crate::db::{self, Durability, now_ms};
use crate::error::{CoreError, CoreResult};
use crate::journal::{self, Begin, Entry, Status};
use crate::profile::{Home, Profile};
use crate::secrets::Secrets;

/// An operation that went through the journal: its entry, and the gateway's data when
/// this call got an answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Submitted<T> {
    pub entry: Entry,
    pub data: Option<T>,
    /// True when nothing was sent because the entry already existed.
    pub replayed: bool,
}

/// An order's detail: the cached row, its history, and a live query when reachable.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderDetail {
    pub order: Option<CachedOrder>,
    /// Each state the order was seen in: (state, UTC millis, how it was seen).
    pub history: Vec<(i64, i64, String)>,
    pub live: Option<wire::OrderRecord>,
    pub signature: Option<SignatureStatus>,
    /// Why the live query failed, if it did.
    pub live_error: Option<String>,
}

/// The gateway's transaction number in an answer, where it has one.
pub trait TradeNo {
    fn trade_no(&self) -> Option<String>;
}

macro_rules! trade_no_field {
    ($($t:ty),*) => {$(
        impl TradeNo for $t {
            fn trade_no(&self) -> Option<String> {
                Some(self.trade_no.clone())
            }
        }
    )*};
}
trade_no_field!(
    wire::V2PayinResult,
    wire::V1PayinResult,
    wire::VnBankPayinResult,
    wire::PayoutResult,
    wire::WithdrawResult
);

impl TradeNo for wire::NoData {
    fn trade_no(&self) -> Option<String> {
        None
    }
}

/// One open profile.
#[derive(Debug)]
pub struct Desk {
    pub profile: Profile,
    secrets: Secrets,
    client: GatewayClient,
    cache: Arc<Mutex<Connection>>,
    journal: Mutex<Connection>,
    dictionary: StateDictionary,
    sandbox: Option<BuiltinSandbox>,
    /// Journal entries this desk is sending right now. A `sending` entry not in here
    /// was left by a crash, and is reconciled.
    in_flight: Mutex<std::collections::HashSet<i64>>,
    /// Where notifications for orders made here go: the desk's own endpoint when it
    /// runs ([`crate::receiver`]), else the profile's `notifyUrl`.
    notify_url: Mutex<Option<String>>,
    /// Anchors for deep pages, per filter; dropped whenever this desk writes orders.
    anchors: Mutex<std::collections::HashMap<String, Arc<cache::Anchors>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A merchant order number that is new: the prefix, the UTC time to the millisecond,
/// and four digits from the process and a counter. The journal's unique key guards the
/// rest.
pub fn new_mer_order_no(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let now = chrono::Utc::now();
    let salt = (u64::from(std::process::id()).wrapping_mul(7919) + n) % 10_000;
    format!(
        "{prefix}{}{:03}{salt:04}",
        now.format("%y%m%d%H%M%S"),
        now.timestamp_subsec_millis()
    )
}

impl Desk {
    /// Opens `profile_name` (the built-in sandbox starts itself), then reconciles any
    /// outcome left unknown by an earlier run.
    pub async fn open(home: &Home, secrets: Secrets, profile_name: &str) -> CoreResult<Desk> {
        let started = Instant::now();
        let profile = home.get(profile_name)?;
        let sandbox = if profile.is_sandbox() {
            Some(BuiltinSandbox::start(home, &secrets, &profile).await?)
        } else {
            None
        };
        let sandbox_ms = started.elapsed().as_millis();
        let base = match (&sandbox, &profile.base_url) {
            (Some(sb), _) => sb.base_url(),
            (None, Some(url)) => {
                url::Url::parse(url).map_err(|e| CoreError::validation("baseUrl", e.to_string()))?
            }
            (None, None) => {
                return Err(CoreError::internal(
                    "a profile without a base URL is the sandbox",
                ));
            }
        };
        let mut config = ClientConfig::new(base, MerNo(profile.mer_no));
        config.referer = Some(profile.origin.clone());
        config.lang = Some(profile.lang.clone());
        config.order_type = profile.order_type.clone();
        config.sign_settings = profile.sign_settings.clone();
        let credentials = Credentials {
            private_key: Arc::new(secrets.merchant_key(&profile.name)?),
            gateway_key: secrets.gateway_key(&profile.name)?,
            bearer: secrets.bearer(&profile.name)?,
        };
        let client = GatewayClient::new(config, credentials)?;
        let secrets_ms = started.elapsed().as_millis();
        let path = home.database(&profile.name);
        let cache = Arc::new(Mutex::new(db::open(&path, Durability::Cache)?));
        let journal = Mutex::new(db::open(&path, Durability::Journal)?);
        let dictionary = profile.dictionary();
        let desk = Desk {
            profile,
            secrets,
            client,
            cache,
            journal,
            dictionary,
            sandbox,
            in_flight: Mutex::default(),
            anchors: Mutex::default(),
            notify_url: Mutex::default(),
        };
        let db_ms = started.elapsed().as_millis();
        desk.reconcile_all().await?;
        tracing::info!(
            profile = %desk.profile.name,
            sandbox_ms,
            secrets_ms,
            db_ms,
            total_ms = started.elapsed().as_millis(),
            "desk opened (cumulative times)"
        );
        Ok(desk)
    }

    /// The `notifyUrl` to put on payins and payouts made here.
    pub fn notify_url(&self) -> String {
        lock(&self.notify_url).clone().unwrap_or_else(|| {
            if self.profile.notify_url.is_empty() {
                format!("{}/notify", self.profile.origin.trim_end_matches('/'))
            } else {
                self.profile.notify_url.clone()
            }
        })
    }

    pub(crate) fn set_notify_url(&self, url: &str) {
        *lock(&self.notify_url) = Some(url.to_string());
    }

    /// Changes the time limit of every gateway call.
    pub fn set_timeout(&mut self, timeout: std::time::Duration) -> CoreResult<()> {
        self.client = self.client.with_timeout(timeout)?;
        Ok(())
    }

    pub fn client(&self) -> &GatewayClient {
        &self.client
    }

    pub fn dictionary(&self) -> &StateDictionary {
        &self.dictionary
    }

    pub fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    /// The in-process sandbox of the built-in profile.
    pub fn sandbox(&self) -> Option<&BuiltinSandbox> {
        self.sandbox.as_ref()
    }

    /// Hands SQLite's page caches (of the cache and the journal connections) back to the
    /// allocator: what an idle desktop app does so that its resident memory is not the
    /// high-water mark of its last big query. The next query reads from the OS cache.
    pub fn release_memory(&self) -> CoreResult<()> {
        lock(&self.cache).execute_batch("PRAGMA shrink_memory")?;
        lock(&self.journal).execute_batch("PRAGMA shrink_memory")?;
        Ok(())
    }

    /// Runs `f` on the cache connection.
    pub fn with_cache<R>(&self, f: impl FnOnce(&mut Connection) -> CoreResult<R>) -> CoreResult<R> {
        f(&mut lock(&self.cache))
    }

    fn audit(&self, operation: &str, identifiers: String, result: &str, started: Instant) {
        let r = Record {
            profile: &self.profile.name,
            operator: &self.profile.operator,
            operation,
            identifiers,
            result: result.to_string(),
            latency_ms: i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX),
        };
        if let Err(e) = audit::append(&mut lock(&self.journal), r) {
            tracing::error!(error = %e, operation, "audit log write failed");
        }
    }

    fn result_code<T>(r: &Result<T, GatewayError>) -> String {
        match r {
            Ok(_) => "ok".into(),
            Err(GatewayError::Rejected { code, .. }) => code.clone(),
            Err(GatewayError::Http { status, .. }) => format!("HTTP {status}"),
            Err(GatewayError::Invalid(f)) => format!("invalid {}", f.field),
            Err(GatewayError::NotSent { .. }) => "not_sent".into(),
            Err(GatewayError::OutcomeUnknown { .. }) => "outcome_unknown".into(),
            Err(GatewayError::BadResponse { .. }) => "bad_response".into(),
            Err(GatewayError::SignatureInvalid { .. }) => "signature_invalid".into(),
        }
    }

    /// A query (nothing moves): sent, audited, answered.
    pub async fn query<O: Operation>(
        &self,
        op: &O,
        identifiers: String,
    ) -> CoreResult<paydesk_gateway::Answer<O::Output>> {
        let started = Instant::now();
        let r = self.client.send(op).await;
        self.audit(O::NAME, identifiers, &Self::result_code(&r), started);
        Ok(r?)
    }

    /// Sends an operation that moves money or submits data, through the journal:
    /// the intent is committed before the request leaves, `mer_order_no` is the entry's
    /// fixed key, and an existing entry is never sent twice.
    pub async fn submit<O: Operation>(
        &self,
        op: &O,
        mer_order_no: &str,
        summary: &str,
    ) -> CoreResult<Submitted<O::Output>>
    where
        O::Output: TradeNo,
    {
        let prepared = self.client.prepare(op)?;
        let body = Value::Object(prepared.body.clone());
        let began = journal::begin(
            &mut lock(&self.journal),
            &self.profile.name,
            O::NAME,
            mer_order_no,
            &body,
            summary,
        )?;
        let entry = match began {
            Begin::Send(e) | Begin::Resend(e) => e,
            Begin::Exists(e) => {
                let in_flight = lock(&self.in_flight).contains(&e.id);
                let e = match e.status {
                    // Still on its way in this or another window: wait for its answer.
                    Status::Sending if in_flight => e,
                    // Not known: look it up before anything else.
                    Status::Unknown | Status::Sending => self.reconcile_entry(&e).await?,
                    _ => e,
                };
                return Ok(Submitted {
                    entry: e,
                    data: None,
                    replayed: true,
                });
            }
        };
        let started = Instant::now();
        lock(&self.in_flight).insert(entry.id);
        let r = self.client.send_prepared(op, &prepared).await;
        lock(&self.in_flight).remove(&entry.id);
        let ids = format!("merOrderNo={mer_order_no}");
        self.audit(O::NAME, ids, &Self::result_code(&r), started);
        let conn = lock(&self.journal);
        match r {
            Ok(a) => {
                let trade_no = a.data.trade_no();
                journal::finish(
                    &conn,
                    entry.id,
                    Status::Accepted,
                    trade_no.as_deref(),
                    Some(&a.code),
                    Some(&a.message),
                )?;
                let entry = journal::get(&conn, entry.id)?.unwrap_or(entry);
                Ok(Submitted {
                    entry,
                    data: Some(a.data),
                    replayed: false,
                })
            }
            Err(e) => {
                let (status, code) = match (&e, e.next_step()) {
                    (GatewayError::Rejected { code, .. }, _) => {
                        (Status::Rejected, Some(code.clone()))
                    }
                    (GatewayError::Http { status, .. }, NextStep::Stop) => {
                        (Status::Rejected, Some(format!("HTTP {status}")))
                    }
                    (_, NextStep::Retry) => (Status::Pending, None),
                    (_, _) => (Status::Unknown, None),
                };
                journal::finish(
                    &conn,
                    entry.id,
                    status,
                    None,
                    code.as_deref(),
                    Some(&e.to_string()),
                )?;
                drop(conn);
                Err(e.into())
            }
        }
    }

    /// Looks an entry up at the gateway (order list by `merOrderNos`): found means
    /// accepted; not found means it never arrived, and it may be sent again with the
    /// same `merOrderNo`. A failed lookup puts the next try off with backoff.
    pub async fn reconcile_entry(&self, e: &Entry) -> CoreResult<Entry> {
        if e.operation == wire::V1CardWithdraw::NAME
            || e.operation == wire::V1TransferOrderSubmit::NAME
        {
            // These calls carry no merchant order number the gateway can be asked about.
            let msg = "the gateway cannot be asked about this call: check the card's or the order's history before sending it again";
            journal::defer(&lock(&self.journal), e.id, i64::MAX, msg)?;
            return Ok(journal::get(&lock(&self.journal), e.id)?.unwrap_or_else(|| e.clone()));
        }
        let op = wire::V2OrderList {
            mer_no: MerNo(self.profile.mer_no),
            mer_order_nos: vec![e.mer_order_no.clone()],
            trade_nos: vec![],
            date_limit: None,
            page_num: 1,
            page_size: 10,
            version: wire::V2OrderList::VERSION.into(),
        };
        let started = Instant::now();
        let r = self.client.send(&op).await;
        self.audit(
            "reconcile",
            format!("merOrderNo={}", e.mer_order_no),
            &Self::result_code(&r),
            started,
        );
        let conn = lock(&self.journal);
        match r {
            Ok(a) => match a
                .data
                .list
                .iter()
                .find(|i| i.mer_order_no == e.mer_order_no)
            {
                Some(found) => {
                    journal::finish(
                        &conn,
                        e.id,
                        Status::Accepted,
                        Some(&found.trade_no),
                        Some("reconciled"),
                        Some("found at the gateway"),
                    )?;
                }
                None => {
                    journal::finish(
                        &conn,
                        e.id,
                        Status::Pending,
                        None,
                        Some("not_found"),
                        Some("not at the gateway: safe to send again with the same merOrderNo"),
                    )?;
                }
            },
            Err(err) => {
                let wait = 1000 * 2i64.pow(e.attempts.clamp(0, 8) as u32);
                journal::defer(
                    &conn,
                    e.id,
                    now_ms() + wait.min(300_000),
                    &format!("reconcile failed: {err}"),
                )?;
            }
        }
        Ok(journal::get(&conn, e.id)?.unwrap_or_else(|| e.clone()))
    }

    /// Reconciles every unknown outcome (at every start and on demand).
    pub async fn reconcile_all(&self) -> CoreResult<Vec<Entry>> {
        let pending = journal::unresolved(&lock(&self.journal), &self.profile.name)?;
        let mut out = Vec::new();
        let now = now_ms();
        for e in pending {
            let in_flight = lock(&self.in_flight).contains(&e.id);
            if in_flight || e.next_check_at.is_some_and(|t| t > now) {
                out.push(e);
                continue;
            }
            out.push(self.reconcile_entry(&e).await?);
        }
        Ok(out)
    }

    pub fn journal_entries(&self, statuses: &[Status], limit: i64) -> CoreResult<Vec<Entry>> {
        journal::list(
            &lock(&self.journal),
            &self.profile.name,
            statuses,
            &[],
            limit,
        )
    }

    /// The newest entries of these operations (e.g. `v2.payout`), whatever their status.
    pub fn journal_entries_of(&self, operations: &[&str], limit: i64) -> CoreResult<Vec<Entry>> {
        journal::list(
            &lock(&self.journal),
            &self.profile.name,
            &[],
            operations,
            limit,
        )
    }

    /// An operation's outcome as a receipt even when the call failed after its journal
    /// entry was written (refused, outcome unknown, not sent): the entry tells how it
    /// stands and what happens next. A failure before that (a broken rule) stays an error.
    pub fn receipt_or_error(
        &self,
        operation: &str,
        key: &str,
        r: CoreResult<crate::forms::Receipt>,
    ) -> CoreResult<crate::forms::Receipt> {
        match r {
            Err(e) if !matches!(e, CoreError::Validation { .. }) => {
                match journal::get_by_key(
                    &lock(&self.journal),
                    &self.profile.name,
                    operation,
                    key.trim(),
                )? {
                    Some(entry) => Ok(crate::forms::Receipt::new(entry, false)),
                    None => Err(e),
                }
            }
            other => other,
        }
    }

    pub fn journal_entry(&self, id: i64) -> CoreResult<Entry> {
        journal::get(&lock(&self.journal), id)?
            .ok_or_else(|| CoreError::not_found(format!("no journal entry {id}")))
    }
}
