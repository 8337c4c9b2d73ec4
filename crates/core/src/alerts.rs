//! Alerts that find the user (issue 35): what needs a person now, computed from the
//! desk's store with the profile's thresholds, for the app's inbox, the operating
//! system's notifications and `paydesk alerts`.
//!
//! - [`Records::current_alerts`] reads the store (and, on a team, the team's requests) and
//!   says which conditions hold now: an approval waiting for me, an outcome still
//!   unknown after a set time, a balance under its threshold, a chargeback or a refusal
//!   lately, a sync that failed or has not run for a set time, approved requests no
//!   signer's worker takes.
//! - [`Home::alerts`] adds what this person did about them (read, dismissed) and what was
//!   notified, kept per profile in the home (`data/<profile>.alerts.json`): the marks are
//!   the person's, on their own machine, so on a team each member has their own, whatever
//!   the desk's backend. A mark is forgotten once its condition no longer holds, so an
//!   alert whose condition comes back is new again (unread, notified again).
//! - [`Home::alerts_to_notify`] hands out, once each, what the system's notifications
//!   show, nothing in the quiet hours (the inbox fills all the same), which are read in the
//!   profile's business zone (Settings, Reporting).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Mutex;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::desk::Desk;
use crate::error::{CoreError, CoreResult};
use crate::journal::Status;
use crate::profile::Home;

/// What an alert is about.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlertKind {
    /// A team request waits for my approval (I approve, I did not make it, not decided).
    ApprovalWaiting,
    /// A journal entry's outcome is still unknown after the set time.
    OutcomeUnknown,
    /// A currency's available balance is under its threshold.
    BalanceLow,
    /// A chargeback came in lately.
    Chargeback,
    /// The gateway refused a request lately.
    Refused,
    /// The last sync failed.
    SyncFailed,
    /// No sync has run for the set time.
    SyncStale,
    /// Approved team requests wait longer than the set time: no signer's worker takes them.
    WorkerStopped,
    /// A signer's worker that was running has not written its heartbeat for the set
    /// time (it died, or its machine or connection did), and no other worker runs.
    WorkerSilent,
}

impl AlertKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ApprovalWaiting => "approval_waiting",
            Self::OutcomeUnknown => "outcome_unknown",
            Self::BalanceLow => "balance_low",
            Self::Chargeback => "chargeback",
            Self::Refused => "refused",
            Self::SyncFailed => "sync_failed",
            Self::SyncStale => "sync_stale",
            Self::WorkerStopped => "worker_stopped",
            Self::WorkerSilent => "worker_silent",
        }
    }
}

/// What opening an alert shows.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "to", rename_all = "camelCase")]
pub enum AlertTarget {
    /// A journal entry (its order too, when the gateway gave it a number).
    #[serde(rename_all = "camelCase")]
    Entry { id: i64, trade_no: Option<String> },
    /// An order of the cache.
    #[serde(rename_all = "camelCase")]
    Order { trade_no: String },
    /// The balances, at a currency.
    Balances { currency: String },
    /// The sync's state (the Dashboard's sync panel).
    Sync,
    /// A team request, on the Approvals screen.
    Request { id: i64 },
}

/// One alert: a condition that holds now, with this person's marks.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Alert {
    /// Stable while the condition holds (`outcome_unknown:12`, `balance_low:MXN`).
    pub key: String,
    pub kind: AlertKind,
    /// When the thing it is about happened (UTC ms): the entry sent, the balance read,
    /// the chargeback seen, the sync failed.
    pub at: i64,
    /// In English, one line (the CLI, the system's notification when no window words it).
    pub text: String,
    /// What the window words it with (`alerts.<kind>` in the catalogues).
    pub params: BTreeMap<String, String>,
    pub target: AlertTarget,
    /// This person marked it read.
    pub read: bool,
    /// A system notification was shown for it.
    pub notified: bool,
}

/// The hours in which no system notification is shown (the inbox still fills), `HH:MM`
/// to `HH:MM` in the profile's business zone; across midnight when `from` is later.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuietHours {
    pub from: String,
    pub to: String,
}

/// A profile's alert thresholds.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AlertSettings {
    /// An outcome still unknown this many minutes after it was sent is an alert.
    pub unknown_after_minutes: u32,
    /// Per currency, the available balance under which it is an alert (decimal strings).
    pub low_balance: BTreeMap<String, String>,
    /// No sync for this many hours is an alert.
    pub sync_stale_hours: u32,
    /// Chargebacks and refusals of the last this many days are alerts.
    pub recent_days: u32,
    /// Approved team requests waiting this many minutes for a signer's worker are an alert.
    pub worker_wait_minutes: u32,
    /// Whether the system's notifications are shown at all.
    pub system_notifications: bool,
    pub quiet_hours: Option<QuietHours>,
}

impl Default for AlertSettings {
    fn default() -> Self {
        AlertSettings {
            unknown_after_minutes: 60,
            low_balance: BTreeMap::new(),
            sync_stale_hours: 24,
            recent_days: 7,
            worker_wait_minutes: 15,
            system_notifications: true,
            quiet_hours: None,
        }
    }
}

fn range(field: &str, value: u32, max: u32) -> CoreResult<()> {
    if (1..=max).contains(&value) {
        return Ok(());
    }
    Err(CoreError::keyed(
        field,
        format!("must be 1 to {max}"),
        "alertRange",
        &[("max", max.to_string())],
    ))
}

/// `HH:MM` as minutes of the day.
fn minutes_of(field: &str, text: &str) -> CoreResult<u32> {
    let bad = || {
        CoreError::keyed(
            field,
            "must be a time of day as HH:MM (00:00 to 23:59)",
            "alertTimeOfDay",
            &[],
        )
    };
    let (h, m) = text.trim().split_once(':').ok_or_else(bad)?;
    let (h, m): (u32, u32) = (h.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?);
    if h > 23 || m > 59 || text.trim().len() != 5 {
        return Err(bad());
    }
    Ok(h * 60 + m)
}

impl AlertSettings {
    /// Checked member by member, naming the field.
    pub fn validate(&self) -> CoreResult<()> {
        range("unknownAfterMinutes", self.unknown_after_minutes, 10_080)?;
        range("syncStaleHours", self.sync_stale_hours, 720)?;
        range("recentDays", self.recent_days, 90)?;
        range("workerWaitMinutes", self.worker_wait_minutes, 10_080)?;
        for (currency, threshold) in &self.low_balance {
            let field = format!("lowBalance.{currency}");
            if currency.len() != 3 || !currency.chars().all(|c| c.is_ascii_uppercase()) {
                return Err(CoreError::keyed(
                    field,
                    "must be a currency's three capital letters (MXN, USD)",
                    "alertCurrency",
                    &[],
                ));
            }
            match Decimal::from_str(threshold.trim()) {
                Ok(d) if d >= Decimal::ZERO => {}
                _ => {
                    return Err(CoreError::keyed(
                        field,
                        "must be an amount of 0 or more (1000.00)",
                        "alertThreshold",
                        &[],
                    ));
                }
            }
        }
        if let Some(q) = &self.quiet_hours {
            minutes_of("quietFrom", &q.from)?;
            minutes_of("quietTo", &q.to)?;
        }
        Ok(())
    }

    /// Whether the moment `now_ms` is in the quiet hours, read in `zone`.
    pub fn is_quiet(&self, zone: &crate::period::Zone, now_ms: i64) -> bool {
        let Some(q) = &self.quiet_hours else {
            return false;
        };
        let (Ok(from), Ok(to)) = (
            minutes_of("quietFrom", &q.from),
            minutes_of("quietTo", &q.to),
        ) else {
            return false;
        };
        let hm = zone.format(now_ms, "%H:%M");
        let Ok(now) = minutes_of("now", &hm) else {
            return false;
        };
        match from.cmp(&to) {
            std::cmp::Ordering::Less => from <= now && now < to,
            std::cmp::Ordering::Greater => now >= from || now < to,
            std::cmp::Ordering::Equal => false,
        }
    }
}

/// What this person did about an alert, while its condition holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Mark {
    first_seen: i64,
    notified_at: Option<i64>,
    read_at: Option<i64>,
    dismissed_at: Option<i64>,
}

/// A profile's alert file: its thresholds and the marks.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct AlertFile {
    settings: AlertSettings,
    marks: BTreeMap<String, Mark>,
}

/// One writer at a time per process (the app's loop and its commands).
static FILE_LOCK: Mutex<()> = Mutex::new(());

const MINUTE: i64 = 60_000;
const LIST_LIMIT: i64 = 500;

fn alert(
    key: String,
    kind: AlertKind,
    at: i64,
    text: String,
    params: &[(&str, String)],
    target: AlertTarget,
) -> Alert {
    Alert {
        key,
        kind,
        at,
        text,
        params: params
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        target,
        read: false,
        notified: false,
    }
}

impl Desk {
    /// Every condition that is an alert now, by `settings`, oldest first. On a team desk
    /// also the team's (approvals waiting for me, requests no worker takes).
    pub(crate) fn alerts_now(&self, settings: &AlertSettings) -> CoreResult<Vec<Alert>> {
        let now = self.now_ms();
        let profile = self.profile.name.clone();
        let mut out = Vec::new();

        // Outcomes still unknown after the set time.
        let unknown_after = i64::from(settings.unknown_after_minutes) * MINUTE;
        for e in self.store().journal().unresolved(&profile)? {
            let since = e.sent_at.unwrap_or(e.created_at);
            if now - since < unknown_after {
                continue;
            }
            let minutes = (now - since) / MINUTE;
            out.push(alert(
                format!("outcome_unknown:{}", e.id),
                AlertKind::OutcomeUnknown,
                since,
                format!(
                    "outcome of {} (journal #{}) still unknown after {minutes} min: {}",
                    e.mer_order_no, e.id, e.summary
                ),
                &[
                    ("number", e.mer_order_no.clone()),
                    ("id", e.id.to_string()),
                    ("minutes", minutes.to_string()),
                    ("summary", e.summary.clone()),
                ],
                AlertTarget::Entry {
                    id: e.id,
                    trade_no: e.trade_no.clone(),
                },
            ));
        }

        // Refusals lately.
        let recent = now - i64::from(settings.recent_days) * 24 * 60 * MINUTE;
        for e in self
            .store()
            .journal()
            .list(&profile, &[Status::Rejected], &[], LIST_LIMIT)?
        {
            if e.updated_at < recent {
                continue;
            }
            let why = [e.code.as_deref(), e.message.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
            out.push(alert(
                format!("refused:{}", e.id),
                AlertKind::Refused,
                e.updated_at,
                format!(
                    "refused by the gateway: {} (journal #{}) {why}: {}",
                    e.mer_order_no, e.id, e.summary
                ),
                &[
                    ("number", e.mer_order_no.clone()),
                    ("id", e.id.to_string()),
                    ("why", why.clone()),
                    ("summary", e.summary.clone()),
                ],
                AlertTarget::Entry {
                    id: e.id,
                    trade_no: e.trade_no.clone(),
                },
            ));
        }

        // Payouts the gateway accepted that its order list shows failed since (a sync
        // read them failed): a refusal that came later, alerted like one.
        let dictionary = self.dictionary();
        for e in self.store().journal().list(
            &profile,
            &[Status::Accepted],
            &["v2.payout", "v1.payout"],
            LIST_LIMIT,
        )? {
            let Some(trade_no) = e.trade_no.as_deref().filter(|t| !t.is_empty()) else {
                continue;
            };
            let Some(order) = self.store().orders().get(trade_no)? else {
                continue;
            };
            let failed = dictionary.meaning(
                paydesk_gateway::dictionary::StateField::OrderState,
                &order.state.to_string(),
            ) == Some(paydesk_gateway::dictionary::Meaning::Failed);
            if !failed {
                continue;
            }
            // When the list was seen saying so (its state change), else when last read.
            let at = self
                .store()
                .orders()
                .state_changes(trade_no)?
                .iter()
                .rev()
                .find(|(state, _, _)| *state == order.state)
                .map(|(_, at, _)| *at)
                .or(order.synced_at)
                .unwrap_or(e.updated_at);
            if at < recent {
                continue;
            }
            let why = [
                "failed at the gateway after it was accepted",
                order.refusal_pay_reason.as_str(),
                order.message.as_str(),
            ]
            .into_iter()
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join(": ");
            out.push(alert(
                format!("failed:{}", e.id),
                AlertKind::Refused,
                at,
                format!(
                    "refused by the gateway: {} (journal #{}) {why}: {}",
                    e.mer_order_no, e.id, e.summary
                ),
                &[
                    ("number", e.mer_order_no.clone()),
                    ("id", e.id.to_string()),
                    ("why", why.clone()),
                    ("summary", e.summary.clone()),
                ],
                AlertTarget::Entry {
                    id: e.id,
                    trade_no: e.trade_no.clone(),
                },
            ));
        }

        // Chargebacks lately.
        for r in self.store().reversals().list(None)? {
            if r.kind != "chargeback" || r.fetched_at < recent {
                continue;
            }
            let amount = r.amount.clone().unwrap_or_default();
            out.push(alert(
                format!("chargeback:{}", r.trade_no),
                AlertKind::Chargeback,
                r.fetched_at,
                format!(
                    "chargeback on order {}: {amount} {} ({})",
                    r.trade_no, r.currency, r.state
                ),
                &[
                    ("tradeNo", r.trade_no.clone()),
                    ("amount", amount.clone()),
                    ("currency", r.currency.clone()),
                    ("state", r.state.clone()),
                ],
                AlertTarget::Order {
                    trade_no: r.trade_no.clone(),
                },
            ));
        }

        // Balances under their thresholds.
        for b in self.store().balances().latest()? {
            let Some(threshold) = settings.low_balance.get(&b.currency) else {
                continue;
            };
            let (Ok(threshold), Ok(balance)) = (
                Decimal::from_str(threshold.trim()),
                Decimal::from_str(b.balance.trim()),
            ) else {
                continue;
            };
            if balance >= threshold {
                continue;
            }
            out.push(alert(
                format!("balance_low:{}", b.currency),
                AlertKind::BalanceLow,
                b.taken_at,
                format!(
                    "{} balance {balance} is under its threshold {threshold}",
                    b.currency
                ),
                &[
                    ("currency", b.currency.clone()),
                    ("balance", balance.to_string()),
                    ("threshold", threshold.to_string()),
                ],
                AlertTarget::Balances {
                    currency: b.currency.clone(),
                },
            ));
        }

        // The sync: failed, or not run for the set time.
        let sync = self.store().sync_state();
        if let Some((at, why)) = sync.last_error(&profile)? {
            out.push(alert(
                format!("sync_failed:{at}"),
                AlertKind::SyncFailed,
                at,
                format!("the last sync failed: {why}"),
                &[("why", why.clone())],
                AlertTarget::Sync,
            ));
        } else if let Some(at) = sync.last_synced(&profile)? {
            let stale = i64::from(settings.sync_stale_hours) * 60 * MINUTE;
            if now - at >= stale {
                let hours = (now - at) / (60 * MINUTE);
                out.push(alert(
                    "sync_stale".into(),
                    AlertKind::SyncStale,
                    at,
                    format!("no sync has run for {hours} h"),
                    &[("hours", hours.to_string())],
                    AlertTarget::Sync,
                ));
            }
        }

        if let Some(team) = self.team()? {
            out.extend(team_alerts(&team, settings, now)?);
        }
        out.sort_by(|a, b| (a.at, &a.key).cmp(&(b.at, &b.key)));
        Ok(out)
    }
}

/// A team's alerts for its member `team.me()` at `now`: the requests waiting for my
/// approval, and approved requests no signer's worker took for the set time (part of
/// [`Records::current_alerts`] on a team desk).
pub fn team_alerts(
    team: &crate::team_member::TeamMember,
    settings: &AlertSettings,
    now: i64,
) -> CoreResult<Vec<Alert>> {
    use crate::store::team::{RequestState, TeamRole};
    let mut out = Vec::new();
    let me = team.me().name.clone();
    if team.has_role(TeamRole::Approver) {
        for r in team
            .tables()
            .requests(&[RequestState::Waiting], LIST_LIMIT)?
        {
            if r.maker == me || r.decisions.iter().any(|d| d.member == me) {
                continue;
            }
            out.push(alert(
                format!("approval_waiting:{}", r.id),
                AlertKind::ApprovalWaiting,
                r.created_at,
                format!(
                    "request #{} by {} waits for your approval: {} {} {} ({})",
                    r.id, r.maker, r.operation, r.total, r.currency, r.summary
                ),
                &[
                    ("id", r.id.to_string()),
                    ("maker", r.maker.clone()),
                    ("operation", r.operation.clone()),
                    ("total", r.total.clone()),
                    ("currency", r.currency.clone()),
                    ("summary", r.summary.clone()),
                ],
                AlertTarget::Request { id: r.id },
            ));
        }
    }
    let wait = i64::from(settings.worker_wait_minutes) * MINUTE;
    let waiting: Vec<_> = team
        .tables()
        .requests(&[RequestState::Approved], LIST_LIMIT)?
        .into_iter()
        .filter(|r| now - r.decided_at.unwrap_or(r.created_at) >= wait)
        .collect();
    if let Some(oldest) = waiting
        .iter()
        .min_by_key(|r| (r.decided_at.unwrap_or(r.created_at), r.id))
    {
        let since = oldest.decided_at.unwrap_or(oldest.created_at);
        let minutes = (now - since) / MINUTE;
        out.push(alert(
            format!("worker_stopped:{}", oldest.id),
            AlertKind::WorkerStopped,
            since,
            format!(
                "no signer's worker is taking approved requests: {} waiting, request #{} for {minutes} min",
                waiting.len(),
                oldest.id
            ),
            &[
                ("count", waiting.len().to_string()),
                ("id", oldest.id.to_string()),
                ("minutes", minutes.to_string()),
            ],
            AlertTarget::Request { id: oldest.id },
        ));
    }
    out.extend(worker_silent(team, &waiting, wait)?);
    Ok(out)
}

/// The signer's worker that stopped answering (issue 35 item 4): its heartbeat (schema
/// 0029) older than the set time while it did not stop on purpose, and no other
/// signer's worker answering. Opens the oldest approved request waiting, or the sync
/// (the worker keeps the team's sync too) when none waits.
fn worker_silent(
    team: &crate::team_member::TeamMember,
    waiting: &[crate::store::team::Request],
    wait: i64,
) -> CoreResult<Option<Alert>> {
    // Ages on the database's clock, as the beats are written (review r6 R6-7).
    let beats = team.tables().worker_beats()?;
    if beats
        .iter()
        .any(|b| b.stopped_at.is_none() && b.age_ms < wait)
    {
        return Ok(None);
    }
    let Some(last) = beats
        .iter()
        .filter(|b| b.stopped_at.is_none())
        .max_by_key(|b| b.seen_at)
    else {
        return Ok(None);
    };
    let minutes = last.age_ms / MINUTE;
    let target = match waiting
        .iter()
        .min_by_key(|r| (r.decided_at.unwrap_or(r.created_at), r.id))
    {
        Some(r) => AlertTarget::Request { id: r.id },
        None => AlertTarget::Sync,
    };
    Ok(Some(alert(
        format!("worker_silent:{}:{}", last.signer, last.started_at),
        AlertKind::WorkerSilent,
        last.seen_at,
        format!(
            "the signer's worker of {} has not answered for {minutes} min; {} approved request(s) waiting",
            last.signer,
            waiting.len()
        ),
        &[
            ("signer", last.signer.clone()),
            ("minutes", minutes.to_string()),
            ("count", waiting.len().to_string()),
        ],
        target,
    )))
}

impl Home {
    fn alert_file_path(&self, profile: &str) -> PathBuf {
        self.dir()
            .join("data")
            .join(format!("{profile}.alerts.json"))
    }

    fn load_alerts(&self, profile: &str) -> CoreResult<AlertFile> {
        let path = self.alert_file_path(profile);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                CoreError::storage(format!("{}: cannot be read ({e})", path.display()))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(AlertFile::default()),
            Err(e) => Err(e.into()),
        }
    }

    fn save_alerts(&self, profile: &str, file: &AlertFile) -> CoreResult<()> {
        let path = self.alert_file_path(profile);
        let dir = path
            .parent()
            .ok_or_else(|| CoreError::internal("the alert file has no folder"))?;
        crate::private_fs::dir(dir)?;
        let tmp = path.with_extension("json.tmp");
        let text =
            serde_json::to_vec_pretty(file).map_err(|e| CoreError::internal(e.to_string()))?;
        crate::private_fs::write(&tmp, &text)?;
        std::fs::rename(&tmp, &path)?;
        Ok(())
    }

    fn with_alerts<R>(
        &self,
        profile: &str,
        f: impl FnOnce(&mut AlertFile) -> CoreResult<R>,
    ) -> CoreResult<R> {
        let _one = FILE_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        let mut file = self.load_alerts(profile)?;
        let before = serde_json::to_value(&file).ok();
        let r = f(&mut file)?;
        // The inbox is read every few seconds: the file is written only when it changed.
        if before != serde_json::to_value(&file).ok() {
            self.save_alerts(profile, &file)?;
        }
        Ok(r)
    }

    /// A profile's alert thresholds (the defaults until set).
    pub fn alert_settings(&self, profile: &str) -> CoreResult<AlertSettings> {
        Ok(self.load_alerts(profile)?.settings)
    }

    /// Sets a profile's alert thresholds, checked member by member.
    pub fn set_alert_settings(&self, profile: &str, settings: AlertSettings) -> CoreResult<()> {
        settings.validate()?;
        self.with_alerts(profile, |f| {
            f.settings = settings;
            Ok(())
        })
    }

    /// The desk's alerts now, with this person's marks, newest first; dismissed ones
    /// left out. Marks of conditions that no longer hold are forgotten (so a condition
    /// that comes back is a new alert).
    pub fn alerts(&self, desk: &Desk) -> CoreResult<Vec<Alert>> {
        let profile = desk.profile.name.clone();
        let settings = self.alert_settings(&profile)?;
        let current = desk.records().current_alerts(&settings)?;
        let now = desk.now_ms();
        self.with_alerts(&profile, |f| Ok(merge(f, current, now)))
    }

    /// The alerts the system's notifications show now, each once: those not yet notified
    /// (nor dismissed), marked notified as they are handed out; none in the quiet hours
    /// or when the profile turned the system's notifications off (they wait, unread, in
    /// the inbox; once the quiet hours end, those still unread are notified).
    pub fn alerts_to_notify(&self, desk: &Desk) -> CoreResult<Vec<Alert>> {
        let profile = desk.profile.name.clone();
        let settings = self.alert_settings(&profile)?;
        let current = desk.records().current_alerts(&settings)?;
        let now = desk.now_ms();
        let quiet = !settings.system_notifications
            || settings.is_quiet(&desk.orders().reporting().zone(), now);
        self.with_alerts(&profile, |f| {
            let shown = merge(f, current, now);
            if quiet {
                return Ok(Vec::new());
            }
            let mut out = Vec::new();
            for a in shown {
                if a.notified || a.read {
                    continue;
                }
                if let Some(m) = f.marks.get_mut(&a.key) {
                    m.notified_at = Some(now);
                }
                out.push(Alert {
                    notified: true,
                    ..a
                });
            }
            Ok(out)
        })
    }

    /// Marks alerts read (`keys`), or dismissed (they leave the inbox while their
    /// condition holds). A key no longer current is ignored.
    pub fn mark_alerts(
        &self,
        profile: &str,
        keys: &[String],
        dismiss: bool,
        now: i64,
    ) -> CoreResult<()> {
        self.with_alerts(profile, |f| {
            for k in keys {
                if let Some(m) = f.marks.get_mut(k) {
                    m.read_at.get_or_insert(now);
                    if dismiss {
                        m.dismissed_at.get_or_insert(now);
                    }
                }
            }
            Ok(())
        })
    }
}

/// The current alerts with the file's marks; the marks of conditions gone are dropped,
/// new ones added. Newest first, dismissed left out.
fn merge(f: &mut AlertFile, current: Vec<Alert>, now: i64) -> Vec<Alert> {
    let keys: std::collections::BTreeSet<&str> = current.iter().map(|a| a.key.as_str()).collect();
    f.marks.retain(|k, _| keys.contains(k.as_str()));
    let mut out = Vec::new();
    for mut a in current {
        let m = f.marks.entry(a.key.clone()).or_insert_with(|| Mark {
            first_seen: now,
            ..Mark::default()
        });
        if m.dismissed_at.is_some() {
            continue;
        }
        a.read = m.read_at.is_some();
        a.notified = m.notified_at.is_some();
        out.push(a);
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quiet(from: &str, to: &str) -> AlertSettings {
        AlertSettings {
            quiet_hours: Some(QuietHours {
                from: from.into(),
                to: to.into(),
            }),
            ..AlertSettings::default()
        }
    }

    fn at(text: &str) -> i64 {
        chrono::DateTime::parse_from_rfc3339(text)
            .unwrap()
            .timestamp_millis()
    }

    #[test]
    fn quiet_hours_across_midnight_in_the_business_zone() {
        let s = quiet("22:00", "07:00");
        let berlin = crate::period::parse_zone("z", "Europe/Berlin").unwrap();
        // 21:30 UTC in winter is 22:30 in Berlin: quiet there, not in UTC.
        assert!(s.is_quiet(&berlin, at("2026-01-10T21:30:00Z")));
        assert!(!s.is_quiet(&crate::period::Zone::UTC, at("2026-01-10T21:30:00Z")));
        // 06:59 Berlin quiet, 07:00 not.
        assert!(s.is_quiet(&berlin, at("2026-01-10T05:59:00Z")));
        assert!(!s.is_quiet(&berlin, at("2026-01-10T06:00:00Z")));
        // Within a day.
        let day = quiet("12:00", "13:00");
        assert!(day.is_quiet(&crate::period::Zone::UTC, at("2026-01-10T12:00:00Z")));
        assert!(!day.is_quiet(&crate::period::Zone::UTC, at("2026-01-10T13:00:00Z")));
        assert!(!AlertSettings::default().is_quiet(&berlin, at("2026-01-10T23:00:00Z")));
    }

    #[test]
    fn settings_name_the_field_they_break() {
        let field = |s: AlertSettings| match s.validate() {
            Err(CoreError::Validation { field, .. }) => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(field(quiet("24:00", "07:00")), "quietFrom");
        assert_eq!(field(quiet("22:00", "7")), "quietTo");
        let mut s = AlertSettings {
            unknown_after_minutes: 0,
            ..AlertSettings::default()
        };
        assert_eq!(field(s.clone()), "unknownAfterMinutes");
        s.unknown_after_minutes = 5;
        s.low_balance.insert("MXN".into(), "-1".into());
        assert_eq!(field(s.clone()), "lowBalance.MXN");
        s.low_balance.clear();
        s.low_balance.insert("mxn".into(), "1".into());
        assert_eq!(field(s.clone()), "lowBalance.mxn");
        s.low_balance.clear();
        s.low_balance.insert("MXN".into(), "1000.50".into());
        s.validate().unwrap();
    }
}
