//! The async HTTP client: validates, signs and sends one operation, then reads and
//! checks the answer. Transport errors are sorted into what the caller may do next
//! (see [`GatewayError`]).

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use url::Url;

use crate::conventions::Conventions;
use crate::error::GatewayError;
use crate::keys::{PrivateKey, PublicKey};
use crate::sensitive::Sensitive;
use crate::signing;
use crate::wire::{Bearer, MerNo, Operation};

/// Everything but the secrets.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// `{base_url}` of the interface; `https` unless the host is loopback.
    pub base_url: Url,
    pub mer_no: MerNo,
    /// The merchant's registered origin, sent as `Referer` on payin and payout calls.
    pub referer: Option<String>,
    pub lang: Option<String>,
    pub order_type: Option<String>,
    pub user_agent: String,
    pub connect_timeout: Duration,
    /// Whole-call limit; past it the outcome is unknown.
    pub timeout: Duration,
    /// Answers larger than this are refused unread.
    pub max_response_bytes: usize,
    /// What the interface leaves open about this gateway: signing details, success
    /// codes, the HTTP statuses it answers as refusals.
    pub conventions: Conventions,
    /// An explicit HTTP(S) proxy for a remote gateway (a company's egress proxy). Without
    /// one the usual `HTTPS_PROXY`/`ALL_PROXY`/`NO_PROXY` variables apply to a remote
    /// gateway. A loopback gateway is always reached directly.
    pub proxy: Option<Url>,
    /// The gateway's rate limit in requests per second, if it has one: requests leave
    /// at most this often, evenly spaced (see [`Pacer`]). `None`: no limit.
    pub rate_limit: Option<std::num::NonZeroU32>,
}

impl ClientConfig {
    pub fn new(base_url: Url, mer_no: MerNo) -> Self {
        Self {
            base_url,
            mer_no,
            referer: None,
            lang: None,
            order_type: None,
            user_agent: concat!("PayDesk/", env!("CARGO_PKG_VERSION")).to_string(),
            connect_timeout: Duration::from_secs(5),
            timeout: Duration::from_secs(30),
            max_response_bytes: 16 * 1024 * 1024,
            conventions: Conventions::sandbox(),
            proxy: None,
            rate_limit: None,
        }
    }
}

/// The URL of an operation: `{base_url}` keeps its path whether or not it ends in `/`
/// (`https://gw.example/api` + `/v2/payout` is `https://gw.example/api/v2/payout`).
pub fn endpoint(base: &Url, path: &str) -> Result<Url, url::ParseError> {
    let mut base = base.clone();
    if !base.path().ends_with('/') {
        let with_slash = format!("{}/", base.path());
        base.set_path(&with_slash);
    }
    base.set_query(None);
    base.set_fragment(None);
    base.join(path.trim_start_matches('/'))
}

/// Checks an explicit proxy: http or https, a host, and no user name or password (they
/// would be kept in the profiles file, outside the keyring).
pub fn check_proxy(url: &Url) -> Result<(), String> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err("must be an http:// or https:// proxy URL".into());
    }
    if url.host().is_none() {
        return Err("must name the proxy's host".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(
            "must not carry a user name or password (they would be stored outside the keyring)"
                .into(),
        );
    }
    Ok(())
}

/// Keys and token. The private key signs requests; the gateway's public key, when
/// known, verifies signed answers.
#[derive(Debug, Clone)]
pub struct Credentials {
    pub private_key: Arc<PrivateKey>,
    pub gateway_key: Option<PublicKey>,
    pub bearer: Option<Sensitive<String>>,
}

/// Whether a signed answer's `sign` was checked.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignatureStatus {
    /// The answer's `sign` verified with the gateway's public key.
    Verified,
    /// The operation's answers are not signed.
    NotSigned,
    /// No gateway public key is configured, so the `sign` was not checked.
    Unchecked,
}

/// A successful answer.
#[derive(Debug)]
pub struct Answer<T> {
    pub data: T,
    pub code: String,
    pub message: String,
    pub signature: SignatureStatus,
    pub latency: Duration,
    /// The answer's HTTP `Date` header, where the gateway (or what answered for it)
    /// gives one: the connection check compares it with this machine's clock.
    pub date: Option<chrono::DateTime<chrono::Utc>>,
}

/// True for `localhost`, 127.0.0.0/8 and ::1.
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

/// Refuses a base URL that is not https, unless it points at this machine.
pub fn check_base_url(url: &Url) -> Result<(), GatewayError> {
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(url) => Ok(()),
        "http" => Err(GatewayError::not_sent(format!(
            "base URL {url} must use https: plain http is only allowed to a loopback address"
        ))),
        other => Err(GatewayError::not_sent(format!(
            "base URL scheme {other:?} is not supported; use https"
        ))),
    }
}

#[derive(Debug, Clone)]
pub struct GatewayClient {
    http: reqwest::Client,
    config: ClientConfig,
    credentials: Credentials,
    /// Shared by every clone, so a desk's requests together keep the rate limit.
    pacer: Option<Arc<Pacer>>,
}

/// Keeps requests under a rate limit of `n` per second: each leaves at least
/// `1.02 / n` seconds after the one before it (the 2% leave room for the way to the
/// gateway being a little faster for one request than for the one `n` before it, so
/// that no second ever sees more than `n` arrive). Waiters are served in turn, so a
/// request waits behind those already waiting: a caller that sends many at once (the
/// sync) keeps few of them waiting (the journal's time a request left is taken before
/// this wait, so a lost answer's grace counts from up to that wait too early). A request
/// that must open a connection first reaches the gateway later than its turn; the 2%
/// cover the jitter of open connections, not a slow handshake.
#[derive(Debug)]
pub struct Pacer {
    gap: Duration,
    last: tokio::sync::Mutex<Option<tokio::time::Instant>>,
}

impl Pacer {
    pub fn new(per_second: std::num::NonZeroU32) -> Self {
        Pacer {
            gap: Duration::from_secs_f64(1.02 / f64::from(per_second.get())),
            last: tokio::sync::Mutex::new(None),
        }
    }

    /// Waits until the next request may leave, and takes that moment.
    pub async fn wait(&self) {
        let mut last = self.last.lock().await;
        if let Some(at) = *last {
            tokio::time::sleep_until(at + self.gap).await;
        }
        *last = Some(tokio::time::Instant::now());
    }
}

/// A request ready to go: the signed body and the canonical string it was signed over.
/// Its `Debug` masks card numbers and leaves the signature and canonical string out.
#[derive(Clone)]
pub struct Prepared {
    pub body: Map<String, Value>,
    pub canonical: String,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::redact::debug_masked("Prepared", &self.body, f)
    }
}

impl GatewayClient {
    pub fn new(config: ClientConfig, credentials: Credentials) -> Result<Self, GatewayError> {
        check_base_url(&config.base_url)?;
        let mut builder = reqwest::Client::builder()
            .user_agent(config.user_agent.clone())
            .connect_timeout(config.connect_timeout)
            .timeout(config.timeout)
            .redirect(reqwest::redirect::Policy::none());
        if is_loopback(&config.base_url) {
            // Plain http with the bearer token never goes to a proxy from the environment.
            builder = builder.no_proxy();
        } else if let Some(proxy) = &config.proxy {
            check_proxy(proxy).map_err(|rule| GatewayError::not_sent(format!("proxy {rule}")))?;
            // An explicit proxy replaces the environment's.
            let proxy = reqwest::Proxy::all(proxy.as_str())
                .map_err(|e| GatewayError::not_sent(format!("proxy: {e}")))?;
            builder = builder.proxy(proxy);
        }
        let http = builder
            .build()
            .map_err(|e| GatewayError::not_sent(format!("HTTP client: {e}")))?;
        let pacer = config.rate_limit.map(|n| Arc::new(Pacer::new(n)));
        Ok(Self {
            http,
            config,
            credentials,
            pacer,
        })
    }

    /// The same client with another whole-call time limit (sharing this one's pace).
    pub fn with_timeout(&self, timeout: Duration) -> Result<Self, GatewayError> {
        let mut config = self.config.clone();
        config.timeout = timeout;
        let mut client = Self::new(config, self.credentials.clone())?;
        client.pacer = self.pacer.clone();
        Ok(client)
    }

    /// The same client with another configuration (sharing this one's pace).
    pub fn with_config(&self, config: ClientConfig) -> Result<Self, GatewayError> {
        let mut client = Self::new(config, self.credentials.clone())?;
        client.pacer = self.pacer.clone();
        Ok(client)
    }

    /// The merchant's private key this client signs with.
    pub fn private_key(&self) -> &PrivateKey {
        &self.credentials.private_key
    }

    /// The gateway's public key, if configured (verifies answers and notifications).
    pub fn credentials_gateway_key(&self) -> Option<&PublicKey> {
        self.credentials.gateway_key.as_ref()
    }

    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    pub fn mer_no(&self) -> MerNo {
        self.config.mer_no
    }

    /// Validates and signs `op` without sending it.
    pub fn prepare<O: Operation>(&self, op: &O) -> Result<Prepared, GatewayError> {
        op.validate()?;
        let mut body = match serde_json::to_value(op) {
            Ok(Value::Object(m)) => m,
            Ok(_) => return Err(GatewayError::not_sent("request body is not a JSON object")),
            Err(e) => return Err(GatewayError::not_sent(format!("request body: {e}"))),
        };
        crate::validate::request_texts(&body)?;
        let signed = signing::sign_body(
            &body,
            &self.config.conventions.signing,
            &self.credentials.private_key,
        )
        .map_err(|e| GatewayError::not_sent(format!("signing: {e}")))?;
        body.insert(
            op.sign_field().key().to_string(),
            Value::String(signed.sign),
        );
        Ok(Prepared {
            body,
            canonical: signed.canonical,
        })
    }

    fn request<O: Operation>(
        &self,
        op: &O,
        body: &Map<String, Value>,
    ) -> Result<reqwest::RequestBuilder, GatewayError> {
        let url = endpoint(&self.config.base_url, O::PATH)
            .map_err(|e| GatewayError::not_sent(format!("URL for {}: {e}", O::PATH)))?;
        let spec = op.headers();
        let mut req = self
            .http
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(serde_json::to_vec(body).map_err(|e| GatewayError::not_sent(e.to_string()))?);
        if let Some(pt) = spec.payment_type {
            req = req.header("paymentType", pt);
        }
        if spec.referer {
            let origin = self.config.referer.as_deref().ok_or_else(|| {
                GatewayError::not_sent(
                    "no registered origin (Referer) is configured for this profile",
                )
            })?;
            req = req.header(reqwest::header::REFERER, origin);
        }
        match (spec.bearer, &self.credentials.bearer) {
            (Bearer::Required | Bearer::IfAvailable, Some(token)) => {
                req = req.bearer_auth(token.expose());
            }
            (Bearer::Required, None) => {
                return Err(GatewayError::not_sent(format!(
                    "{} needs a bearer access token and this profile has none",
                    O::NAME
                )));
            }
            _ => {}
        }
        if spec.lang_and_order_type {
            if let Some(lang) = &self.config.lang {
                req = req.header("lang", lang);
            }
            if let Some(ot) = &self.config.order_type {
                req = req.header("orderType", ot);
            }
        }
        Ok(req)
    }

    /// Validates, signs and sends `op`; reads, checks and decodes the answer.
    pub async fn send<O: Operation>(&self, op: &O) -> Result<Answer<O::Output>, GatewayError> {
        let prepared = self.prepare(op)?;
        self.send_prepared(op, &prepared).await
    }

    /// Sends a body made by [`prepare`](Self::prepare) for `op`.
    pub async fn send_prepared<O: Operation>(
        &self,
        op: &O,
        prepared: &Prepared,
    ) -> Result<Answer<O::Output>, GatewayError> {
        let req = self.request(op, &prepared.body)?;
        if let Some(pacer) = &self.pacer {
            pacer.wait().await;
        }
        let started = Instant::now();
        let result = self.exchange(req).await;
        let latency = started.elapsed();
        let outcome = result
            .and_then(|(status, bytes, date)| {
                self.read_answer::<O>(status, &bytes, &prepared.body, latency)
                    .map(|a| Answer { date, ..a })
            })
            .map_err(GatewayError::shown_safely);
        match &outcome {
            Ok(a) => tracing::debug!(op = O::NAME, code = %a.code, ?latency, "gateway answered"),
            Err(e) => tracing::warn!(op = O::NAME, error = %e, ?latency, "gateway call failed"),
        }
        outcome
    }

    async fn exchange(
        &self,
        req: reqwest::RequestBuilder,
    ) -> Result<(u16, Vec<u8>, Option<chrono::DateTime<chrono::Utc>>), GatewayError> {
        let mut resp = req.send().await.map_err(classify)?;
        let status = resp.status().as_u16();
        let date = resp
            .headers()
            .get(reqwest::header::DATE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| chrono::DateTime::parse_from_rfc2822(v).ok())
            .map(|d| d.with_timezone(&chrono::Utc));
        let cap = self.config.max_response_bytes;
        if resp.content_length().is_some_and(|n| n > cap as u64) {
            return Err(GatewayError::BadResponse {
                reason: format!("answer larger than {cap} bytes"),
            });
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = resp
            .chunk()
            .await
            .map_err(|e| GatewayError::OutcomeUnknown {
                reason: format!("the answer was cut off: {e}"),
            })?
        {
            if bytes.len() + chunk.len() > cap {
                return Err(GatewayError::BadResponse {
                    reason: format!("answer larger than {cap} bytes"),
                });
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok((status, bytes, date))
    }

    fn read_answer<O: Operation>(
        &self,
        status: u16,
        bytes: &[u8],
        request: &Map<String, Value>,
        latency: Duration,
    ) -> Result<Answer<O::Output>, GatewayError> {
        if !(200..300).contains(&status) {
            return Err(self.status_answer::<O>(status, bytes));
        }
        // One pass over the bytes: the envelope's members, with `data` kept raw and
        // decoded straight into the operation's type.
        let envelope = match serde_json::from_slice::<RawEnvelope<'_>>(bytes) {
            Ok(e) => e,
            Err(e) => return Err(unreadable(bytes, &e)),
        };
        let code = match envelope.code {
            Some(Value::String(s)) => s,
            Some(Value::Number(n)) => n.to_string(),
            Some(other) => {
                return Err(GatewayError::BadResponse {
                    reason: format!("code must be a string, got {}", json_kind(&other)),
                });
            }
            None => {
                return Err(GatewayError::BadResponse {
                    reason: "code is missing".into(),
                });
            }
        };
        let message = match envelope.message {
            Some(Value::String(s)) => {
                crate::redact::admitted_text(&s, crate::redact::MAX_ANSWER_TEXT).unwrap_or(s)
            }
            _ => String::new(),
        };
        if !self.config.conventions.is_success(&code, O::SUCCESS_CODES) {
            return Err(GatewayError::Rejected { code, message });
        }
        let signature = if O::RESPONSE_SIGNED {
            self.check_signature(envelope.sign.as_deref(), request)?
        } else {
            SignatureStatus::NotSigned
        };
        let raw = envelope
            .data
            .map(|d| d.get())
            .filter(|d| !matches!(d.trim(), "null" | "\"\""));
        let was_missing = raw.is_none();
        let text = raw.unwrap_or("null");
        // The one place an answer's data is admitted: every text in it, whatever the
        // member, escaped (control, NUL, bidi) and bounded before any type holds it, so
        // nothing the desk caches or shows carries them raw.
        let mut value: Value =
            serde_json::from_str(text).map_err(|e| GatewayError::BadResponse {
                reason: format!("data: {e}"),
            })?;
        crate::redact::admit_json(&mut value, crate::redact::MAX_ANSWER_TEXT);
        let data: O::Output = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            GatewayError::BadResponse {
                reason: if was_missing {
                    "data is missing".to_string()
                } else if path == "." {
                    format!("data: {}", e.inner())
                } else {
                    format!("data.{path}: {}", e.inner())
                },
            }
        })?;
        Ok(Answer {
            data,
            code,
            message,
            signature,
            latency,
            date: None,
        })
    }

    /// What an answer under a status other than 2xx is. A refusal (nothing done) only
    /// where the interface documents the status for this operation, or the profile's
    /// conventions say the gateway uses it, *and* the body is the gateway's JSON
    /// envelope: a proxy's HTML page, an empty body or any other status may come after
    /// the gateway committed, so the outcome is unknown and looked up, never resent.
    fn status_answer<O: Operation>(&self, status: u16, bytes: &[u8]) -> GatewayError {
        let documented = O::DOCUMENTED_HTTP_ERRORS.contains(&status)
            || self
                .config
                .conventions
                .refusal_statuses(O::NAME)
                .contains(&status);
        let envelope = serde_json::from_slice::<Value>(bytes).ok().filter(|v| {
            v.get("code")
                .is_some_and(|c| c.is_string() || c.is_number())
        });
        let body = if bytes.iter().all(u8::is_ascii_whitespace) {
            "an empty body".to_string()
        } else if envelope.is_some() {
            "the gateway's envelope".to_string()
        } else if looks_like_html(bytes) {
            "an HTML page (a proxy or load balancer answered, not the gateway)".to_string()
        } else {
            format!(
                "a body that is not the gateway's envelope ({})",
                snippet(bytes)
            )
        };
        match envelope {
            Some(v) if documented => GatewayError::Http {
                status,
                message: v
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_default(),
            },
            _ => {
                let why = if documented {
                    format!(
                        "{status} is a refusal of {} only with the gateway's envelope",
                        O::NAME
                    )
                } else {
                    format!(
                        "{} does not answer {status} as a refusal (the interface documents it for none but the Vietnam bank payin's 400 and 404; a profile's conventions can add statuses)",
                        O::NAME
                    )
                };
                GatewayError::OutcomeUnknown {
                    reason: format!(
                        "HTTP {status} with {body}: {why}; the request may have been acted on"
                    ),
                }
            }
        }
    }

    fn check_signature(
        &self,
        sign: Option<&str>,
        request: &Map<String, Value>,
    ) -> Result<SignatureStatus, GatewayError> {
        let Some(key) = &self.credentials.gateway_key else {
            return Ok(SignatureStatus::Unchecked);
        };
        let sign = match sign {
            Some(s) if !s.is_empty() => s,
            _ => {
                return Err(GatewayError::SignatureInvalid {
                    reason: "the answer carries no sign".into(),
                });
            }
        };
        // The signed content is the original request parameters (signing.md).
        let mut original = request.clone();
        original.remove("sign");
        original.remove("sing");
        signing::verify_body(&original, &self.config.conventions.signing, key, sign)
            .map(|()| SignatureStatus::Verified)
            .map_err(|e| GatewayError::SignatureInvalid {
                reason: e.to_string(),
            })
    }
}

/// The envelope as read in one pass: `data` stays raw until its type is known.
#[derive(serde::Deserialize)]
struct RawEnvelope<'a> {
    code: Option<Value>,
    message: Option<Value>,
    #[serde(borrow)]
    data: Option<&'a serde_json::value::RawValue>,
    sign: Option<String>,
}

/// Why a body is not a readable envelope.
fn unreadable(bytes: &[u8], e: &serde_json::Error) -> GatewayError {
    let reason = if bytes.iter().all(u8::is_ascii_whitespace) {
        "empty body".to_string()
    } else {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(other) if !other.is_object() => {
                format!("expected a JSON object, got {}", json_kind(&other))
            }
            Ok(_) => format!("not an answer envelope ({e})"),
            Err(e) => format!("not JSON ({e}): {}", snippet(bytes)),
        }
    };
    GatewayError::BadResponse { reason }
}

fn classify(e: reqwest::Error) -> GatewayError {
    if e.is_builder() || e.is_connect() {
        GatewayError::not_sent(format!("could not connect: {}", error_chain(&e)))
    } else if e.is_timeout() {
        GatewayError::OutcomeUnknown {
            reason: format!("timed out waiting for the answer: {}", error_chain(&e)),
        }
    } else {
        GatewayError::OutcomeUnknown {
            reason: error_chain(&e),
        }
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(inner) = src {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        src = inner.source();
    }
    s
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Whether a body is an HTML page (what proxies and load balancers answer).
fn looks_like_html(bytes: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(512)]).to_ascii_lowercase();
    let head = head.trim_start();
    head.starts_with("<!doctype html") || head.starts_with("<html") || head.contains("<body")
}

/// The start of a body, for error messages, with control characters removed.
fn snippet(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(120)]);
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}
