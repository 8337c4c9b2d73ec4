//! Orders: sync, the cached table (with anchored deep pages), detail, export.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use paydesk_gateway::wire::{self, MerNo};

use crate::desk::{Desk, OrderDetail, lock};
use crate::error::{CoreError, CoreResult};
use crate::store::orders::{self, OrderFilter, OrderPage};
use crate::sync::{self, SyncOptions, SyncProgress, SyncReport, SyncTarget};

/// Clears the desk's running sync when the sync ends (or its future is dropped).
struct SyncSlot<'a>(&'a std::sync::Mutex<Option<Arc<AtomicBool>>>);

impl Drop for SyncSlot<'_> {
    fn drop(&mut self) {
        lock(self.0).take();
    }
}

impl Desk {
    /// A sync without the one-at-a-time rule: the desk's own re-read of one order's day,
    /// which may run beside the operator's sync.
    async fn sync_unguarded(
        &self,
        opts: &SyncOptions,
        cancel: Arc<AtomicBool>,
        progress: impl FnMut(&SyncProgress) + Send,
    ) -> CoreResult<SyncReport> {
        let target = SyncTarget {
            store: self.store.clone(),
            profile: self.profile.name.clone(),
            mer_no: self.profile.mer_no,
            open_states: self.open_states(),
            clock: self.clock.clone(),
        };
        let started = Instant::now();
        // Never more a page than the gateway takes, nor a longer dateLimit (its
        // conventions' maxPageSize and maxSpanHours).
        let most = i64::from(self.conventions.max_page_size);
        let span = i64::from(self.conventions.max_span_hours);
        let capped;
        let opts = if opts.page_size > most || (span > 0 && opts.window_hours > span) {
            capped = SyncOptions {
                page_size: opts.page_size.min(most),
                window_hours: if span > 0 {
                    opts.window_hours.min(span)
                } else {
                    opts.window_hours
                },
                ..opts.clone()
            };
            &capped
        } else {
            opts
        };
        let r = sync::run(self.client()?, &target, opts, cancel, progress)
            .await
            .map_err(|e| self.list_refusal_named(e, opts));
        self.label_listed_made();
        self.label_by_rules();
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

    /// A refusal of the order list during a sync, with the settings that may cause it
    /// named: the page size and the span of `dateLimit` are limits the interface does
    /// not give, and a gateway's refusal of either is otherwise only its own code. The
    /// named error is also the sync's recorded failure, which the dashboard shows.
    fn list_refusal_named(&self, e: CoreError, opts: &SyncOptions) -> CoreError {
        match e {
            CoreError::Rejected {
                gateway_code,
                message,
            } => {
                let named = CoreError::Rejected {
                    message: format!(
                        "{message} (the order list was refused while syncing with pages of {} orders and windows of {} hours read in the gateway's zone {}: if the gateway limits these, set them in the profile's conventions, `paydesk profile conventions set maxPageSize N` or `maxSpanHours N`, then check with `paydesk profile check`)",
                        opts.page_size, opts.window_hours, self.conventions.time_zone
                    ),
                    gateway_code,
                };
                if let Err(w) = self
                    .store
                    .sync_state()
                    .record_error(&self.profile.name, &named.to_string())
                {
                    tracing::warn!(error = %w, "sync failure not recorded");
                }
                named
            }
            other => other,
        }
    }

    /// The order states the profile's dictionary does not call final (the raw values
    /// that are numbers; the order list's `state` is one).
    pub(in crate::desk) fn open_states(&self) -> Vec<i64> {
        self.dictionary
            .entries(paydesk_gateway::StateField::OrderState)
            .filter(|(_, meaning)| !meaning.is_final())
            .filter_map(|(raw, _)| raw.parse().ok())
            .collect()
    }

    /// Forgets the deep-page anchors (the orders changed).
    pub(in crate::desk) fn orders_changed(&self) {
        lock(&self.anchors).clear();
    }
}

impl<'d> super::Orders<'d> {
    /// A sync of the last `days` days with this profile's page size and requests in
    /// flight.
    pub fn sync_options(&self, days: i64) -> SyncOptions {
        SyncOptions {
            page_size: i64::from(self.desk.profile.sync.page_size),
            in_flight: self.desk.profile.sync.in_flight as usize,
            ..SyncOptions::last_days(days)
        }
    }

    /// Syncs the order cache, one sync at a time on this desk (a second is refused while
    /// one runs); [`Orders::cancel_sync`] or `cancel` stops it between pages.
    pub async fn sync(
        self,
        opts: &SyncOptions,
        cancel: Arc<AtomicBool>,
        progress: impl FnMut(&SyncProgress) + Send,
    ) -> CoreResult<SyncReport> {
        {
            let mut running = lock(&self.desk.sync_running);
            if running.is_some() {
                return Err(CoreError::keyed(
                    "sync",
                    "a sync is already running",
                    "syncRunning",
                    &[],
                ));
            }
            *running = Some(cancel.clone());
        }
        let _slot = SyncSlot(&self.desk.sync_running);
        self.desk.sync_unguarded(opts, cancel, progress).await
    }

    /// Asks the running sync to stop; false when none runs.
    pub fn cancel_sync(&self) -> bool {
        lock(&self.desk.sync_running).as_ref().is_some_and(|c| {
            c.store(true, std::sync::atomic::Ordering::Relaxed);
            true
        })
    }

    /// Whether a sync runs on this desk.
    pub fn syncing(&self) -> bool {
        lock(&self.desk.sync_running).is_some()
    }

    /// A page of the orders table. Pages past the first 10,000 rows are read after an
    /// anchor (computed once per filter, until the next sync), so scrolling anywhere in
    /// a million rows stays fast.
    pub fn page(&self, filter: &OrderFilter, offset: i64, limit: i64) -> CoreResult<OrderPage> {
        let cached_orders = self.desk.store.orders();
        if offset < orders::ANCHOR_EVERY {
            return cached_orders.query(filter, offset, limit);
        }
        let key = filter.cache_key();
        let cached = lock(&self.desk.anchors).get(&key).cloned();
        let anchors = match cached {
            Some(a) => a,
            None => {
                let a = Arc::new(cached_orders.anchors(filter)?);
                lock(&self.desk.anchors).insert(key, a.clone());
                a
            }
        };
        cached_orders.query_anchored(filter, &anchors, offset, limit)
    }

    /// Streams every cached order matching `filter`, in its order, to `f`.
    pub fn for_each_order(
        &self,
        filter: &OrderFilter,
        mut f: impl FnMut(&crate::store::orders::CachedOrder) -> CoreResult<()>,
    ) -> CoreResult<()> {
        self.desk.store.orders().for_each(filter, &mut f)
    }

    /// The trade number of the order numbered `number` (a trade number or a merchant
    /// order number, whole): from the cache, else from the gateway's order list (one
    /// request per kind of number). `None` when neither knows it, so nothing opens an
    /// order that does not exist.
    pub async fn find_order(self, number: &str) -> CoreResult<Option<String>> {
        let number = number.trim();
        paydesk_gateway::validate::required("number", number)?;
        if number.chars().count() > 64 || number.chars().any(char::is_control) {
            return Err(crate::CoreError::keyed(
                "number",
                "must be an order or trade number: at most 64 characters, no control characters",
                "orderOrTradeNo",
                &[],
            ));
        }
        let cached = self.desk.store.orders();
        if let Some(o) = cached.get(number)?.or(cached.by_mer_order_no(number)?) {
            return Ok(Some(o.trade_no));
        }
        drop(cached);
        for by_trade_no in [true, false] {
            // A number that cannot be of this kind is not asked about.
            let fits = if by_trade_no {
                paydesk_gateway::validate::trade_no("tradeNo", number).is_ok()
            } else {
                paydesk_gateway::validate::order_no("merOrderNo", number).is_ok()
            };
            if !fits {
                continue;
            }
            let op = wire::V2OrderList {
                mer_no: MerNo(self.desk.profile.mer_no),
                mer_order_nos: if by_trade_no {
                    vec![]
                } else {
                    vec![number.to_string()]
                },
                trade_nos: if by_trade_no {
                    vec![number.to_string()]
                } else {
                    vec![]
                },
                date_limit: None,
                page_num: 1,
                page_size: 10,
                version: wire::V2OrderList::VERSION.into(),
            };
            let key = if by_trade_no { "tradeNo" } else { "merOrderNo" };
            let a = self.desk.query(&op, format!("{key}={number}")).await?;
            crate::answers::order_page(&a.data, 10)?;
            let (items, _refused) = crate::answers::usable_items(a.data.list);
            // Only an item that is the order asked for: a list may answer with others.
            if let Some(i) = items.into_iter().find(|i| {
                if by_trade_no {
                    i.trade_no == number
                } else {
                    i.mer_order_no == number
                }
            }) {
                return Ok(Some(i.trade_no));
            }
        }
        Ok(None)
    }

    /// The cached order under a trade number, if the cache holds it (no request).
    pub fn cached_order(
        &self,
        trade_no: &str,
    ) -> CoreResult<Option<crate::store::orders::CachedOrder>> {
        self.desk.store.orders().get(trade_no.trim())
    }

    /// The cached order, its timeline, and a live V2 query with its signature status.
    /// The cached row is read again from the gateway's list at the same time, so that
    /// what the page shows live and cached agree (a failed re-read leaves it as it was).
    pub async fn order_detail(self, trade_no: &str) -> CoreResult<OrderDetail> {
        let mer_order_no = self
            .desk
            .store
            .orders()
            .get(trade_no)?
            .map(|o| o.mer_order_no)
            .unwrap_or_default();
        let op = wire::V2OrderQuery {
            mer_order_no,
            ..wire::V2OrderQuery::new(
                MerNo(self.desk.profile.mer_no),
                trade_no.to_string(),
                // The gateway's name of a sale's query (its conventions).
                self.desk.conventions.query_types.sales.clone(),
            )
        };
        let (relisted, queried) = tokio::join!(
            self.desk.relist(trade_no),
            self.desk.query(&op, format!("tradeNo={trade_no}"))
        );
        if let Err(e) = relisted {
            tracing::info!(error = %e, trade_no, "order not read again from the list");
        }
        let order = self.desk.store.orders().get(trade_no)?;
        let timeline = self.order_timeline(trade_no)?;
        let live = queried.and_then(|a| {
            crate::answers::order_record(trade_no, "sales", &a.data)?;
            // The signature covers our request, not the record: the record must be
            // the order the cache knows under this trade number.
            if let Some(o) = &order
                && !a.data.mer_order_no.is_empty()
                && a.data.mer_order_no != o.mer_order_no
            {
                return Err(crate::CoreError::BadResponse {
                    message: format!(
                        "the gateway's order record: merOrderNo is {}, but order {trade_no} is {}",
                        paydesk_gateway::redact::terminal_safe(&a.data.mer_order_no, 80),
                        o.mer_order_no
                    ),
                });
            }
            Ok(a)
        });
        match live {
            Ok(a) => Ok(OrderDetail {
                order,
                live: Some(a.data),
                signature: Some(a.signature),
                live_error: None,
                timeline,
            }),
            Err(e) if order.is_some() => Ok(OrderDetail {
                order,
                live: None,
                signature: None,
                live_error: Some(e.to_string()),
                timeline,
            }),
            Err(e) => Err(e),
        }
    }

    /// A step taken on one order outside the gateway's interface by the layer that runs
    /// the gateway (a simulation action of the built-in sandbox): audited as `operation`
    /// with `identifiers`, then, when it went through, the order's day is read again so
    /// that the cache shows its new state.
    pub async fn order_step(
        self,
        operation: &str,
        trade_no: &str,
        identifiers: String,
        step: impl Future<Output = CoreResult<()>>,
    ) -> CoreResult<()> {
        let started = Instant::now();
        let r = step.await;
        self.desk.audit(
            operation,
            identifiers,
            if r.is_ok() { "ok" } else { "refused" },
            started,
        );
        r?;
        let created = self.desk.store.orders().created_at(trade_no)?;
        if let Some(at) = created.and_then(chrono::DateTime::from_timestamp_millis) {
            let opts = SyncOptions {
                from: at,
                to: at + chrono::Duration::days(1),
                full: true,
                ..self.sync_options(1)
            };
            self.desk
                .sync_unguarded(&opts, Arc::default(), |_| {})
                .await?;
        }
        Ok(())
    }
}
