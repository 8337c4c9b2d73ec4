//! Notifications: signed JSON POSTed to an order's `notifyUrl`, retried with growing
//! delays until the receiver answers HTTP 200 with the body `SUCCESS`.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Shared;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotifyKind {
    /// Payin and payout results.
    Pay,
    Refund,
    Chargeback,
    /// Card top-up and withdraw.
    Card,
    /// Review outcome of a bank-transfer order (EDD/KYC).
    Edd,
}

impl NotifyKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pay => "pay",
            Self::Refund => "refund",
            Self::Chargeback => "chargeback",
            Self::Card => "card",
            Self::Edd => "edd",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    pub at: DateTime<Utc>,
    /// HTTP status, if an answer came.
    pub status: Option<u16>,
    /// The start of the answer's body, or the transport error.
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    pub id: u64,
    pub kind: NotifyKind,
    pub mer_no: u64,
    pub trade_no: String,
    pub url: String,
    /// The signed body as sent.
    pub body: Map<String, Value>,
    pub attempts: Vec<Attempt>,
    pub delivered: bool,
    /// All attempts used up without `SUCCESS`.
    pub gave_up: bool,
}

/// Retry policy: the n-th retry waits `base * 2^n`, at most `max_attempts` tries.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    pub base: Duration,
    pub max_attempts: u32,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            base: Duration::from_secs(2),
            max_attempts: 8,
        }
    }
}

/// Delivers notification `id` until it is acknowledged or the attempts run out.
pub(crate) async fn deliver(shared: Arc<Shared>, id: u64) {
    // A gateway on this machine: the operator's proxy variables are not its own (and
    // must never see loopback traffic). No redirects: a receiver answering 307 to the
    // simulation API would otherwise get the signed POST replayed there.
    let client = match reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .build()
    {
        Ok(c) => c,
        Err(e) => {
            tracing::error!(error = %e, "notification client");
            return;
        }
    };
    let policy = shared.retry;
    for n in 0..policy.max_attempts {
        let Some((url, body)) =
            shared.with_notification(id, |note| (note.url.clone(), note.body.clone()))
        else {
            return;
        };
        // Never its own simulation API (a notifyUrl of `.../__sandbox/reset` would wipe
        // its orders): such a notification is given up at once.
        if is_simulation_api(&url) {
            shared.update_notification(id, |note| {
                note.attempts.push(Attempt {
                    at: Utc::now(),
                    status: None,
                    detail: "not sent: the notifyUrl is the sandbox's simulation API".into(),
                });
                note.gave_up = true;
            });
            return;
        }
        let result = client.post(&url).json(&body).send().await;
        let attempt = match result {
            Ok(resp) => {
                let status = resp.status().as_u16();
                let text = resp.text().await.unwrap_or_default();
                Attempt {
                    at: Utc::now(),
                    status: Some(status),
                    detail: text.chars().take(200).collect(),
                }
            }
            Err(e) => Attempt {
                at: Utc::now(),
                status: None,
                detail: e.to_string(),
            },
        };
        let ok = attempt.status == Some(200) && attempt.detail.trim() == "SUCCESS";
        tracing::info!(id, attempt = n + 1, url = %url, status = ?attempt.status, ok, "notification attempt");
        let last = n + 1 == policy.max_attempts;
        shared.update_notification(id, |note| {
            note.attempts.push(attempt);
            note.delivered = ok;
            note.gave_up = !ok && last;
        });
        if ok {
            return;
        }
        if !last {
            tokio::time::sleep(policy.base.saturating_mul(2u32.saturating_pow(n))).await;
        }
    }
}

/// True for a URL that may reach the simulation API (`/__sandbox/`), on any host: a
/// path segment starting with `__sandbox` (any case) once the path is read the way a
/// server might read it. The `url` crate has already resolved `.` and `..` (also
/// `%2e`) and backslashes; on top of that percent-escapes are decoded (repeatedly, for
/// `%255F`), empty segments (`//`) dropped and dot segments the decoding revealed
/// resolved. A URL that does not parse is not one (it is never sent either).
pub fn is_simulation_api(url: &str) -> bool {
    let Ok(u) = url::Url::parse(url) else {
        return false;
    };
    let mut path = u.path().to_string();
    for _ in 0..8 {
        let decoded = percent_decode(&path);
        if decoded == path {
            break;
        }
        path = decoded;
    }
    let mut segments: Vec<&str> = Vec::new();
    for seg in path.split(['/', '\\']) {
        match seg.trim() {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    segments
        .iter()
        .any(|s| s.to_ascii_lowercase().starts_with("__sandbox"))
}

/// `%XX` escapes decoded (invalid UTF-8 replaced); a `%` without two hex digits kept.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
