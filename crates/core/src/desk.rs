//! The desk: one open profile with its gateway client, cache, journal and audit log,
//! and the services every screen and CLI command uses.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use paydesk_gateway::wire::{self, MerNo, Operation};
use paydesk_gateway::{
    ClientConfig, Credentials, GatewayClient, GatewayError, NextStep, SignatureStatus,
    StateDictionary,
};
use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::audit::{self, Record};
use crate::builtin::BuiltinSandbox;
use crate::cache::{self, CachedOrder, OrderFilter, OrderPage};
use crate::db::{self, Durability, now_ms};
use crate::error::{CoreError, CoreResult};
use crate::journal::{self, Begin, Entry, Status};
use crate::profile::{Home, Profile};
use crate::secrets::Secrets;
use crate::sync::{self, SyncOptions, SyncProgress, SyncReport, SyncTarget};

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
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderDetail {
    pub order: Option<CachedOrder>,
    pub history: Vec<(i64, i64, String)>,
    pub live: Option<wire::OrderRecord>,
    pub signature: Option<SignatureStatus>,
    /// Why the live query failed, if it did.
    pub live_error: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BalanceSnapshot {
    pub currency: String,
    pub balance: String,
    pub un_checked_balance: String,
    pub total_balance: String,
    pub taken_at: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DayFigures {
    /// UTC day start, millis.
    pub day: i64,
    pub currency: String,
    pub orders: i64,
    pub volume: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Dashboard {
    pub balances: Vec<BalanceSnapshot>,
    pub days: Vec<DayFigures>,
    pub unknown_outcomes: Vec<Entry>,
    pub pending_reviews: i64,
    pub sync_error: Option<(i64, String)>,
    pub last_sync: Option<i64>,
    pub cached_orders: i64,
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

/// A card operation as the Cards screen lists it.
struct CardOp<'a> {
    journal_id: i64,
    kind: &'a str,
    card: &'a str,
    amount: &'a str,
    currency: &'a str,
    fee: Option<&'a str>,
    trade_no: Option<&'a str>,
    outcome: &'a str,
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
        let profile = home.get(profile_name)?;
        let sandbox = if profile.is_sandbox() {
            Some(BuiltinSandbox::start(home, &secrets, &profile).await?)
        } else {
            None
        };
        let base = match (&sandbox, &profile.base_url) {
            (Some(sb), _) => sb.base_url(),
            (None, Some(url)) => {
                url::Url::parse(url).map_err(|e| CoreError::validation("baseUrl", e.to_string()))?
            }
            (None, None) => {
                return Err(CoreError::Internal(
                    "a profile without a base URL is the sandbox".into(),
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
        };
        desk.reconcile_all().await?;
        Ok(desk)
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
        journal::list(&lock(&self.journal), &self.profile.name, statuses, limit)
    }

    pub fn journal_entry(&self, id: i64) -> CoreResult<Entry> {
        journal::get(&lock(&self.journal), id)?
            .ok_or_else(|| CoreError::not_found(format!("no journal entry {id}")))
    }

    // ---- orders -------------------------------------------------------------

    pub async fn sync(
        &self,
        opts: &SyncOptions,
        cancel: Arc<AtomicBool>,
        progress: impl FnMut(&SyncProgress) + Send,
    ) -> CoreResult<SyncReport> {
        let target = SyncTarget {
            conn: self.cache.clone(),
            profile: self.profile.name.clone(),
            mer_no: self.profile.mer_no,
        };
        let started = Instant::now();
        let r = sync::run(&self.client, &target, opts, cancel, progress).await;
        self.orders_changed();
        let result = match &r {
            Ok(rep) => format!("ok {} orders", rep.progress.orders),
            Err(e) => format!("error {e}"),
        };
        self.audit(
            "sync",
            format!(
                "from={} to={}",
                opts.from.format("%F"),
                opts.to.format("%F")
            ),
            &result,
            started,
        );
        r
    }

    /// A page of the orders table. Pages past the first 10,000 rows are read after an
    /// anchor (computed once per filter, until the next sync), so scrolling anywhere in
    /// a million rows stays fast.
    pub fn orders(&self, filter: &OrderFilter, offset: i64, limit: i64) -> CoreResult<OrderPage> {
        let conn = lock(&self.cache);
        if offset < cache::ANCHOR_EVERY {
            return cache::query(&conn, filter, offset, limit);
        }
        let key = filter.cache_key();
        let cached = lock(&self.anchors).get(&key).cloned();
        let anchors = match cached {
            Some(a) => a,
            None => {
                let a = Arc::new(cache::anchors(&conn, filter)?);
                lock(&self.anchors).insert(key, a.clone());
                a
            }
        };
        cache::query_anchored(&conn, filter, &anchors, offset, limit)
    }

    /// Forgets the deep-page anchors (the orders changed).
    fn orders_changed(&self) {
        lock(&self.anchors).clear();
    }

    /// The cached order, its history, and a live V2 query with its signature status.
    pub async fn order_detail(&self, trade_no: &str) -> CoreResult<OrderDetail> {
        let (order, history) = {
            let conn = lock(&self.cache);
            (
                cache::get(&conn, trade_no)?,
                cache::history(&conn, trade_no)?,
            )
        };
        let op = wire::V2OrderQuery {
            version: "V4.0.0".into(),
            mer_no: MerNo(self.profile.mer_no),
            mer_order_no: order
                .as_ref()
                .map(|o| o.mer_order_no.clone())
                .unwrap_or_default(),
            trade_no: trade_no.to_string(),
            query_type: "sales".into(),
        };
        match self.query(&op, format!("tradeNo={trade_no}")).await {
            Ok(a) => Ok(OrderDetail {
                order,
                history,
                live: Some(a.data),
                signature: Some(a.signature),
                live_error: None,
            }),
            Err(e) if order.is_some() => Ok(OrderDetail {
                order,
                history,
                live: None,
                signature: None,
                live_error: Some(e.to_string()),
            }),
            Err(e) => Err(e),
        }
    }

    /// Exports the filtered orders, every row, to CSV or XLSX.
    pub fn export(
        &self,
        filter: &OrderFilter,
        path: &Path,
        tz: chrono::FixedOffset,
        progress: impl FnMut(u64, u64),
    ) -> CoreResult<u64> {
        let started = Instant::now();
        let r = crate::export::export(
            &lock(&self.cache),
            filter,
            path,
            tz,
            &self.dictionary,
            progress,
        );
        let result = match &r {
            Ok(n) => format!("ok {n} rows"),
            Err(e) => format!("error {e}"),
        };
        self.audit(
            "export",
            format!(
                "file={}",
                path.file_name()
                    .and_then(|f| f.to_str())
                    .unwrap_or_default()
            ),
            &result,
            started,
        );
        r
    }

    // ---- money --------------------------------------------------------------

    fn remember_method(&self, trade_no: Option<&str>, method: &str) {
        if let Some(t) = trade_no {
            let _ = cache::set_method(&lock(&self.cache), t, method);
            self.orders_changed();
        }
    }

    /// A payin or payout through the journal; its method is remembered for the orders
    /// table (the order list does not carry it).
    async fn order<O: Operation>(
        &self,
        op: &O,
        mer_order_no: &str,
        method: &str,
        summary: String,
    ) -> CoreResult<Submitted<O::Output>>
    where
        O::Output: TradeNo,
    {
        let r = self.submit(op, mer_order_no, &summary).await?;
        self.remember_method(r.entry.trade_no.as_deref(), method);
        Ok(r)
    }

    pub async fn payin_v2(
        &self,
        common: wire::PayinCommon,
    ) -> CoreResult<Submitted<wire::V2PayinResult>> {
        let summary = format!(
            "payin WECHAT {} {}",
            common.source_amount, common.currency_code
        );
        let no = common.mer_order_no.clone();
        self.order(&wire::V2Payment { common }, &no, "WECHAT", summary)
            .await
    }

    pub async fn payin_v1(
        &self,
        op: wire::V1Payment,
    ) -> CoreResult<Submitted<wire::V1PayinResult>> {
        let method = op.method.payment_type();
        let summary = format!(
            "payin {method} {} {}",
            op.common.source_amount, op.common.currency_code
        );
        self.order(&op, &op.common.mer_order_no, method, summary)
            .await
    }

    pub async fn payin_vn_bank(
        &self,
        op: wire::V1VnBankPayment,
    ) -> CoreResult<Submitted<wire::VnBankPayinResult>> {
        let summary = format!(
            "payin VN_BANK {} {}",
            op.common.source_amount, op.common.currency_code
        );
        self.order(&op, &op.common.mer_order_no, "VN_BANK", summary)
            .await
    }

    pub async fn payout_clabe(
        &self,
        op: wire::V2Payout,
    ) -> CoreResult<Submitted<wire::PayoutResult>> {
        let account = paydesk_gateway::validate::mask_card(&op.clabe);
        let summary = format!(
            "payout CLABE {} {} to {account}",
            op.source_amount, op.currency_code
        );
        self.order(&op, &op.mer_order_no, "CLABE", summary).await
    }

    pub async fn payout_card(
        &self,
        op: wire::V1CardPayout,
    ) -> CoreResult<Submitted<wire::PayoutResult>> {
        let account = paydesk_gateway::validate::mask_card(&op.card_no);
        let summary = format!(
            "payout CARD {} {} to {} {} {account}",
            op.source_amount, op.currency_code, op.ben_first_name, op.ben_last_name
        );
        self.order(&op, &op.mer_order_no, "CARD", summary).await
    }

    fn card_op(&self, op: CardOp<'_>) -> CoreResult<()> {
        lock(&self.cache).execute(
            "INSERT INTO card_operations (journal_id, kind, card, amount, currency, fee, trade_no, outcome, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![op.journal_id, op.kind, op.card, op.amount, op.currency, op.fee, op.trade_no, op.outcome, now_ms()],
        )?;
        Ok(())
    }

    pub async fn card_top_up(&self, op: wire::V2CardTopUp) -> CoreResult<Submitted<wire::NoData>> {
        let summary = format!(
            "card top-up {} {} to {}",
            op.amount, op.currency, op.apply_order_no
        );
        let no = op.mer_order_no.clone();
        let r = self.submit(&op, &no, &summary).await;
        if let Ok(s) = &r
            && !s.replayed
        {
            let amount = op.amount.to_string();
            self.card_op(CardOp {
                journal_id: s.entry.id,
                kind: "top_up",
                card: &op.apply_order_no,
                amount: &amount,
                currency: &op.currency,
                fee: None,
                trade_no: None,
                outcome: s.entry.status.as_str(),
            })?;
        }
        r
    }

    /// `reference` is this desk's own number for the withdrawal (the interface gives it
    /// none), the journal's key.
    pub async fn card_withdraw(
        &self,
        op: wire::V1CardWithdraw,
        reference: &str,
    ) -> CoreResult<Submitted<wire::WithdrawResult>> {
        let summary = format!(
            "card withdraw {} {} from {}",
            op.amount, op.currency, op.apply_order_no
        );
        let r = self.submit(&op, reference, &summary).await;
        if let Ok(s) = &r
            && let (false, Some(d)) = (s.replayed, &s.data)
        {
            let amount = op.amount.to_string();
            self.card_op(CardOp {
                journal_id: s.entry.id,
                kind: "withdraw",
                card: &op.apply_order_no,
                amount: &amount,
                currency: &op.currency,
                fee: Some(&d.fee),
                trade_no: Some(&d.trade_no),
                outcome: s.entry.status.as_str(),
            })?;
        }
        r
    }

    pub fn card_operations(&self) -> CoreResult<Vec<Value>> {
        let conn = lock(&self.cache);
        let mut stmt = conn.prepare("SELECT kind, card, amount, currency, fee, trade_no, outcome, at FROM card_operations ORDER BY id DESC LIMIT 1000")?;
        let rows = stmt.query_map([], |r| {
            Ok(serde_json::json!({
                "kind": r.get::<_, String>(0)?, "card": r.get::<_, String>(1)?, "amount": r.get::<_, String>(2)?,
                "currency": r.get::<_, String>(3)?, "fee": r.get::<_, Option<String>>(4)?, "tradeNo": r.get::<_, Option<String>>(5)?,
                "outcome": r.get::<_, String>(6)?, "at": r.get::<_, i64>(7)?,
            }))
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    // ---- queries ------------------------------------------------------------

    /// A balance query; every answer is kept as a snapshot for the history chart.
    pub async fn balance(&self, currency: &str) -> CoreResult<BalanceSnapshot> {
        let a = self
            .query(
                &wire::V2BalanceQuery {
                    mer_no: MerNo(self.profile.mer_no),
                    currency: currency.to_string(),
                },
                format!("currency={currency}"),
            )
            .await?;
        let s = BalanceSnapshot {
            currency: a.data.currency.clone(),
            balance: a.data.balance.to_string(),
            un_checked_balance: a.data.un_checked_balance.to_string(),
            total_balance: a.data.total_balance.to_string(),
            taken_at: now_ms(),
        };
        lock(&self.cache).execute(
            "INSERT INTO balance_snapshots (currency, balance, un_checked_balance, total_balance, taken_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![s.currency, s.balance, s.un_checked_balance, s.total_balance, s.taken_at],
        )?;
        Ok(s)
    }

    pub fn balance_history(&self, currency: &str) -> CoreResult<Vec<BalanceSnapshot>> {
        let conn = lock(&self.cache);
        let mut stmt = conn.prepare(
            "SELECT currency, balance, un_checked_balance, total_balance, taken_at FROM balance_snapshots WHERE currency = ?1 ORDER BY taken_at",
        )?;
        let rows = stmt.query_map([currency], |r| {
            Ok(BalanceSnapshot {
                currency: r.get(0)?,
                balance: r.get(1)?,
                un_checked_balance: r.get(2)?,
                total_balance: r.get(3)?,
                taken_at: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The V2 order query of one type (`sales`, `refund`, `chargeback`, or another the
    /// gateway knows); refund and chargeback records are cached.
    pub async fn query_order(
        &self,
        trade_no: &str,
        query_type: &str,
    ) -> CoreResult<paydesk_gateway::Answer<wire::OrderRecord>> {
        paydesk_gateway::validate::required("queryType", query_type)?;
        let op = wire::V2OrderQuery {
            version: "V4.0.0".into(),
            mer_no: MerNo(self.profile.mer_no),
            mer_order_no: String::new(),
            trade_no: trade_no.to_string(),
            query_type: query_type.to_string(),
        };
        let a = self
            .query(&op, format!("tradeNo={trade_no} queryType={query_type}"))
            .await?;
        let d = &a.data;
        let s = |v: Option<rust_decimal::Decimal>| v.map(|v| v.to_string());
        let conn = lock(&self.cache);
        if d.chargeback_amount.is_some() {
            conn.execute(
                "INSERT INTO chargebacks (trade_no, chargeback_amount, chargeback_currency, actual_chargeback_amount, actual_chargeback_currency, status, fetched_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (trade_no) DO UPDATE SET chargeback_amount = excluded.chargeback_amount, chargeback_currency = excluded.chargeback_currency,
                   actual_chargeback_amount = excluded.actual_chargeback_amount, actual_chargeback_currency = excluded.actual_chargeback_currency,
                   status = excluded.status, fetched_at = excluded.fetched_at",
                params![trade_no, s(d.chargeback_amount), d.chargeback_currency, s(d.actual_chargeback_amount), d.actual_chargeback_currency, d.status, now_ms()],
            )?;
        }
        if !d.refund_no.is_empty() {
            conn.execute(
                "INSERT INTO refunds (trade_no, refund_no, state, refund_amount, refund_currency, settle, fetched_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (trade_no, refund_no) DO UPDATE SET state = excluded.state, refund_amount = excluded.refund_amount, fetched_at = excluded.fetched_at",
                params![trade_no, d.refund_no, d.state, s(d.refund_amount), d.refund_currency, d.settle, now_ms()],
            )?;
        }
        drop(conn);
        Ok(a)
    }

    /// Records a notification received at this desk's endpoint, with its signature
    /// checked against the gateway's key.
    pub fn record_notification(&self, body: &str) -> CoreResult<crate::events::Received> {
        let received = crate::events::check(
            body,
            self.client.credentials_gateway_key(),
            &self.profile.sign_settings,
        )?;
        lock(&self.cache).execute(
            "INSERT INTO notifications (received_at, kind, trade_no, body, signature_ok) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![now_ms(), received.kind, received.trade_no, body, received.signature_ok],
        )?;
        Ok(received)
    }

    /// Notifications received, newest first.
    pub fn notifications(&self, limit: i64) -> CoreResult<Vec<crate::events::Stored>> {
        crate::events::list(&lock(&self.cache), limit)
    }

    /// Checks a pasted notification body's signature without storing it.
    pub fn verify_notification(&self, body: &str) -> CoreResult<crate::events::Received> {
        crate::events::check(
            body,
            self.client.credentials_gateway_key(),
            &self.profile.sign_settings,
        )
    }

    /// The V1 refund query; the record is cached.
    pub async fn refund(&self, trade_no: &str, refund_no: &str) -> CoreResult<wire::RefundRecord> {
        let op = wire::V1RefundQuery {
            mer_no: MerNo(self.profile.mer_no),
            mer_order_no: String::new(),
            version: "V3.0.0".into(),
            trade_no: trade_no.to_string(),
            query_type: "refund".into(),
            refund_no: refund_no.to_string(),
            sing_variant: false,
        };
        let a = self
            .query(&op, format!("tradeNo={trade_no} refundNo={refund_no}"))
            .await?;
        let d = &a.data;
        lock(&self.cache).execute(
            "INSERT INTO refunds (trade_no, refund_no, state, refund_amount, refund_currency, trade_fee, settle, receive_amount, fetched_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
             ON CONFLICT (trade_no, refund_no) DO UPDATE SET state = excluded.state, refund_amount = excluded.refund_amount,
               trade_fee = excluded.trade_fee, settle = excluded.settle, receive_amount = excluded.receive_amount, fetched_at = excluded.fetched_at",
            params![trade_no, d.refund_no, d.state, d.refund_amount.map(|v| v.to_string()), d.refund_currency, d.trade_fee.map(|v| v.to_string()), d.settle, d.receive_amount.map(|v| v.to_string()), now_ms()],
        )?;
        Ok(a.data)
    }

    /// Submits review information and files for a bank-transfer order. Files are read,
    /// checked (type by content, size) and base64-encoded here.
    pub async fn submit_review(
        &self,
        trade_no: &str,
        info: Vec<(String, String)>,
        files: Vec<(String, std::path::PathBuf)>,
    ) -> CoreResult<Submitted<wire::NoData>> {
        let mut file_list = Vec::new();
        let mut names = Vec::new();
        for (i, (code, path)) in files.iter().enumerate() {
            let item = crate::review::read_file(i, code, path)?;
            names.push(item.file_name.clone());
            file_list.push(item);
        }
        let op = wire::V1TransferOrderSubmit {
            mer_no: MerNo(self.profile.mer_no),
            trade_no: trade_no.to_string(),
            info_list: info
                .into_iter()
                .map(|(t, c)| wire::InfoItem {
                    info_type: t,
                    info_content: c,
                })
                .collect(),
            file_list,
        };
        let key = format!("REVIEW-{trade_no}-{}", now_ms());
        let summary = format!(
            "review for {trade_no}: {} information items, files {}",
            op.info_list.len(),
            names.join(", ")
        );
        let r = self.submit(&op, &key, &summary).await;
        let outcome = match &r {
            Ok(s) => s.entry.status.as_str().to_string(),
            Err(e) => format!("error: {e}"),
        };
        lock(&self.cache).execute(
            "INSERT INTO review_submissions (journal_id, trade_no, info_count, files, outcome, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![r.as_ref().ok().map(|s| s.entry.id), trade_no, op.info_list.len() as i64, names.join(", "), outcome, now_ms()],
        )?;
        r
    }

    // ---- audit and dashboard ------------------------------------------------

    pub fn audit_verify(&self) -> CoreResult<audit::ChainCheck> {
        audit::verify(&lock(&self.journal))
    }

    pub fn audit_list(&self, f: &audit::AuditFilter) -> CoreResult<Vec<audit::AuditEntry>> {
        audit::list(&lock(&self.journal), f)
    }

    pub fn dashboard(&self) -> CoreResult<Dashboard> {
        let (balances, days, pending_reviews, cached_orders, sync_error, last_sync) =
            self.dashboard_figures()?;
        let unknown_outcomes = journal::list(
            &lock(&self.journal),
            &self.profile.name,
            &[Status::Unknown, Status::Sending],
            100,
        )?;
        Ok(Dashboard {
            balances,
            days,
            unknown_outcomes,
            pending_reviews,
            sync_error,
            last_sync,
            cached_orders,
        })
    }

    #[allow(clippy::type_complexity)]
    fn dashboard_figures(
        &self,
    ) -> CoreResult<(
        Vec<BalanceSnapshot>,
        Vec<DayFigures>,
        i64,
        i64,
        Option<(i64, String)>,
        Option<i64>,
    )> {
        let conn = lock(&self.cache);
        let mut stmt = conn.prepare(
            "SELECT currency, balance, un_checked_balance, total_balance, MAX(taken_at) FROM balance_snapshots GROUP BY currency ORDER BY currency",
        )?;
        let balances = stmt
            .query_map([], |r| {
                Ok(BalanceSnapshot {
                    currency: r.get(0)?,
                    balance: r.get(1)?,
                    un_checked_balance: r.get(2)?,
                    total_balance: r.get(3)?,
                    taken_at: r.get(4)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let since = now_ms() - 30 * 86_400_000;
        let mut stmt = conn.prepare(
            "SELECT (created_at / 86400000) * 86400000 AS day, currency, COUNT(*), SUM(amount_e4) FROM orders
             WHERE created_at >= ?1 GROUP BY day, currency ORDER BY day, currency",
        )?;
        let days = stmt
            .query_map([since], |r| {
                let e4: i64 = r.get(3)?;
                Ok(DayFigures {
                    day: r.get(0)?,
                    currency: r.get(1)?,
                    orders: r.get(2)?,
                    volume: rust_decimal::Decimal::new(e4, 4).normalize().to_string(),
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let pending_reviews: i64 = conn.query_row(
            "SELECT COUNT(*) FROM review_submissions WHERE outcome NOT IN ('accepted', 'rejected')",
            [],
            |r| r.get(0),
        )?;
        let cached_orders: i64 = conn.query_row("SELECT COUNT(*) FROM orders", [], |r| r.get(0))?;
        let sync_error = sync::last_error(&conn, &self.profile.name)?;
        let last_sync = sync::last_synced(&conn, &self.profile.name)?;
        Ok((
            balances,
            days,
            pending_reviews,
            cached_orders,
            sync_error,
            last_sync,
        ))
    }
}
