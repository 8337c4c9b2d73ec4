//! Profiles: which gateway, which merchant, how to sign. Kept as one JSON file in the
//! OS config directory (`PAYDESK_HOME` overrides it); secrets are not in it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use paydesk_gateway::Conventions;
use paydesk_gateway::dictionary::{Meaning, StateField};
use serde::{Deserialize, Serialize};

use crate::error::{CoreError, CoreResult, Rule};

/// The name of the built-in sandbox profile.
pub const SANDBOX_PROFILE: &str = "sandbox";

/// Why the built-in sandbox profile takes no gateway address.
pub const SANDBOX_HAS_NO_BASE_URL: &str =
    "the built-in sandbox has no gateway address; add a new profile for a real gateway";

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub name: String,
    /// The gateway's `{base_url}`; `None` is the built-in sandbox.
    #[serde(default)]
    pub base_url: Option<String>,
    pub mer_no: u64,
    /// The registered origin sent as `Referer`.
    pub origin: String,
    #[serde(default = "default_lang")]
    pub lang: String,
    #[serde(default)]
    pub order_type: Option<String>,
    /// Who works at this desk; written into the audit log.
    #[serde(default = "default_operator")]
    pub operator: String,
    /// Where the gateway sends notifications for orders made here (the merchant's
    /// backend, or a tunnel to this desk). Required for a real gateway unless
    /// `notifyAtDesk` is chosen.
    #[serde(default)]
    pub notify_url: String,
    /// Notifications go to this desk's own receiver on loopback
    /// (`http://127.0.0.1:<port>/notify`, running while the app is open) instead of
    /// `notifyUrl`: for a gateway on this machine, such as `paydesk sandbox serve`. The
    /// built-in sandbox always uses it.
    #[serde(default)]
    pub notify_at_desk: bool,
    /// An explicit HTTP(S) proxy to the gateway (`http://proxy.corp:3128`), where a
    /// company requires one. Empty: the environment's proxy variables apply to a
    /// remote gateway; a gateway on loopback is always reached directly.
    #[serde(default)]
    pub proxy: String,
    /// How this desk keeps from paying one intent twice.
    #[serde(default)]
    pub safety: Safety,
    /// How this desk reads the gateway's order list.
    #[serde(default)]
    pub sync: SyncSettings,
    /// A team profile: the team's PostgreSQL database (the password in the keyring).
    /// `None`: a single desk on its own SQLite file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<crate::store::team::TeamConfig>,
}

/// How a desk reads the gateway's order list, and how fast it may ask (the interface
/// gives no page size limit and no rate limit; a real gateway has both).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SyncSettings {
    /// Orders asked for a page: the largest the gateway accepts reads fastest.
    pub page_size: u32,
    /// Requests to the gateway in flight at once during a sync.
    pub in_flight: u32,
    /// The gateway's rate limit in requests per second, kept by every request of this
    /// desk; 0: none.
    pub rate_limit: u32,
    /// While the desk runs, a balance snapshot of every currency when the last one is
    /// this old (minutes; 0: only on request, after a sync and after money moves).
    pub balances_every_mins: u32,
    /// Payouts of a bulk run in flight at once: 1 sends one row after another. Never
    /// more than `rate_limit` (a second's worth), and each request still leaves no
    /// sooner than the rate limit allows.
    #[cfg_attr(feature = "specta", specta(optional))]
    pub payouts_in_flight: u32,
}

/// Payouts of a bulk run in flight at once unless the profile says otherwise.
pub const DEFAULT_PAYOUTS_IN_FLIGHT: u32 = 16;
/// The most a profile may set.
pub const MAX_PAYOUTS_IN_FLIGHT: u32 = 64;

/// Minutes between scheduled balance snapshots unless the profile says otherwise.
pub const DEFAULT_BALANCES_EVERY_MINS: u32 = 60;

impl Default for SyncSettings {
    fn default() -> Self {
        Self {
            page_size: crate::sync::DEFAULT_PAGE_SIZE as u32,
            in_flight: crate::sync::DEFAULT_IN_FLIGHT as u32,
            rate_limit: 0,
            balances_every_mins: DEFAULT_BALANCES_EVERY_MINS,
            payouts_in_flight: DEFAULT_PAYOUTS_IN_FLIGHT,
        }
    }
}

/// The highest rate limit a profile may set, in requests per second.
pub const MAX_RATE_LIMIT: u32 = 10_000;

impl SyncSettings {
    /// Checks the values a user types.
    pub fn validate(&self) -> CoreResult<()> {
        let most = paydesk_gateway::validate::MAX_PAGE_SIZE;
        if !(1..=most).contains(&self.page_size) {
            return Err(CoreError::keyed(
                "sync.pageSize",
                format!("must be between 1 and {most} orders"),
                "pageSizeRange",
                &[("count", most.to_string())],
            ));
        }
        let most = crate::sync::MAX_IN_FLIGHT as u32;
        if !(1..=most).contains(&self.in_flight) {
            return Err(CoreError::keyed(
                "sync.inFlight",
                format!("must be between 1 and {most} requests"),
                "inFlightRange",
                &[("max", most.to_string())],
            ));
        }
        if self.rate_limit > MAX_RATE_LIMIT {
            return Err(CoreError::keyed(
                "sync.rateLimit",
                format!("must be between 0 (no limit) and {MAX_RATE_LIMIT} requests per second"),
                "rateLimitRange",
                &[("max", MAX_RATE_LIMIT.to_string())],
            ));
        }
        if !(1..=MAX_PAYOUTS_IN_FLIGHT).contains(&self.payouts_in_flight) {
            return Err(CoreError::keyed(
                "sync.payoutsInFlight",
                format!("must be between 1 and {MAX_PAYOUTS_IN_FLIGHT} payouts"),
                "payoutsInFlightRange",
                &[("count", MAX_PAYOUTS_IN_FLIGHT.to_string())],
            ));
        }
        if self.balances_every_mins > 24 * 60 {
            return Err(CoreError::keyed(
                "sync.balancesEveryMins",
                "must be between 0 (not on a schedule) and 1440 minutes (a day)",
                "balancesEveryRange",
                &[],
            ));
        }
        Ok(())
    }
}

/// The money-safety settings of a profile (the README's "One payout per intent" says
/// what each costs a user).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Safety {
    /// A new order number for an intent accepted within this many hours (or still
    /// unresolved) is refused unless the operator confirms a second one.
    pub duplicate_window_hours: u32,
    /// After a lost answer, "not found" counts as "not found yet" for this many seconds
    /// since the request left (a gateway's order list may show a new order late).
    pub not_found_grace_secs: u32,
    /// ...and for at least this many lookups.
    pub not_found_lookups: u32,
    /// Every payout, payin, card move and bulk row needs a purpose (issue 35): one
    /// without is refused before anything is journaled, naming the field.
    pub purpose_required: bool,
}

impl Default for Safety {
    fn default() -> Self {
        Self {
            duplicate_window_hours: 24,
            not_found_grace_secs: 300,
            not_found_lookups: 3,
            purpose_required: false,
        }
    }
}

impl Safety {
    /// Checks the values a user types.
    pub fn validate(&self) -> CoreResult<()> {
        if self.duplicate_window_hours == 0 || self.duplicate_window_hours > 24 * 90 {
            return Err(CoreError::keyed(
                "safety.duplicateWindowHours",
                "must be between 1 and 2160 hours (90 days)",
                "duplicateWindowRange",
                &[],
            ));
        }
        if self.not_found_grace_secs > 7 * 24 * 3600 {
            return Err(CoreError::keyed(
                "safety.notFoundGraceSecs",
                "must be at most 604800 seconds (7 days)",
                "notFoundGraceRange",
                &[],
            ));
        }
        if self.not_found_lookups == 0 || self.not_found_lookups > 100 {
            return Err(CoreError::keyed(
                "safety.notFoundLookups",
                "must be between 1 and 100",
                "notFoundLookupsRange",
                &[],
            ));
        }
        Ok(())
    }
}

fn default_lang() -> String {
    "en".into()
}

fn default_operator() -> String {
    std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_else(|_| "operator".into())
}

/// A new profile may not take the built-in sandbox's name.
fn sandbox_reserved() -> Rule {
    Rule::keyed(
        format!(
            "{SANDBOX_PROFILE:?} is reserved for the built-in sandbox; choose another name for a profile of a gateway"
        ),
        "sandboxReserved",
        &[("name", SANDBOX_PROFILE.to_string())],
    )
}

/// A profile is never renamed (`old` is its name before the edit).
fn no_rename(old: &str) -> Rule {
    if old == SANDBOX_PROFILE {
        Rule::keyed(
            "the built-in sandbox cannot be renamed",
            "renameSandbox",
            &[],
        )
    } else {
        Rule::keyed(
            "cannot change: its keys and cache are kept under it (add a new profile instead)",
            "renameProfile",
            &[],
        )
    }
}

/// Why a real gateway's profile needs a notification URL.
pub const NOTIFY_URL_RULE: &str = "is required for a real gateway: the URL where the merchant's \
     backend receives the gateway's notifications (or choose to receive them at this desk)";

/// Where the gateway is told to send notifications about orders made at a desk.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum NotifyTarget {
    /// This desk's loopback receiver (the built-in sandbox, or `notifyAtDesk`).
    /// `url` is `None` where no receiver runs (the CLI).
    Desk { url: Option<String> },
    /// The profile's `notifyUrl`.
    Profile { url: String },
    /// A real gateway's profile without a `notifyUrl` (saved by an older version).
    Missing,
}

impl Profile {
    /// Whether notifications for this profile go to the desk's own receiver.
    pub fn notifies_desk(&self) -> bool {
        self.notify_at_desk || (self.is_sandbox() && self.notify_url.is_empty())
    }

    pub fn is_sandbox(&self) -> bool {
        self.base_url.is_none()
    }

    /// Checks the fields a user types; the first problem found (see [`Profile::problems`]).
    pub fn validate(&self) -> CoreResult<()> {
        match self.problems().into_iter().next() {
            Some(p) => Err(CoreError::validation(p.field, p.rule)),
            None => Ok(()),
        }
    }

    /// Every field's problem at once, in the form's order, each naming its field and the
    /// rule: a form shows them all while the user types, not one per Save.
    pub fn problems(&self) -> Vec<FieldProblem> {
        let mut out = Vec::new();
        let mut add = |field: &str, rule: Rule| {
            if !out.iter().any(|p: &FieldProblem| p.field == field) {
                out.push(FieldProblem {
                    field: field.to_string(),
                    rule,
                });
            }
        };
        let name_ok = !self.name.is_empty()
            && self.name.len() <= 40
            && self
                .name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !name_ok {
            add(
                "name",
                Rule::keyed(
                    "must be 1 to 40 letters, digits, - or _",
                    "profileName",
                    &[],
                ),
            );
        }
        if let Some(url) = &self.base_url {
            match url::Url::parse(url) {
                Err(e) => add(
                    "baseUrl",
                    Rule::keyed(
                        format!("is not a URL ({e})"),
                        "notUrl",
                        &[("reason", e.to_string())],
                    )
                    .quoting("reason", &Rule::url_reason(e)),
                ),
                Ok(parsed) => {
                    if let Err(e) = paydesk_gateway::client::check_base_url(&parsed) {
                        add("baseUrl", e.to_string().into());
                    } else if !parsed.username().is_empty() || parsed.password().is_some() {
                        add(
                            "baseUrl",
                            Rule::keyed(
                                "must not carry a user name or password (the token is kept in the keyring)",
                                "baseUrlCredentials",
                                &[],
                            ),
                        );
                    } else if parsed.query().is_some() || parsed.fragment().is_some() {
                        add(
                            "baseUrl",
                            Rule::keyed(
                                "must not have a query (?...) or a fragment (#...): operations are added to its path",
                                "baseUrlQuery",
                                &[],
                            ),
                        );
                    }
                    if self.notify_at_desk && !paydesk_gateway::client::is_loopback(&parsed) {
                        add(
                            "notifyAtDesk",
                            Rule::keyed(
                                "is only for a gateway on this machine (a loopback base URL): a remote gateway cannot reach this desk's receiver; give the notifyUrl of your backend",
                                "notifyAtDeskRemote",
                                &[],
                            ),
                        );
                    }
                }
            }
        }
        if self.mer_no == 0 {
            add(
                "merNo",
                Rule::keyed(
                    "must be the merchant number the gateway gave you",
                    "merNo",
                    &[],
                ),
            );
        }
        if let Err(e) = paydesk_gateway::validate::url("origin", &self.origin) {
            add("origin", e.into());
        }
        // Sent as headers or written in the audit log: no control characters.
        let tag_ok = |s: &str| {
            (1..=35).contains(&s.len())
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        };
        if !tag_ok(&self.lang) {
            add(
                "lang",
                Rule::keyed(
                    "must be a language tag such as en or zh-CN (letters, digits, -)",
                    "langTag",
                    &[],
                ),
            );
        }
        if let Some(t) = &self.order_type
            && !(t.len() <= 64 && t.bytes().all(|b| b.is_ascii_graphic()))
        {
            add(
                "orderType",
                Rule::keyed(
                    "must be up to 64 printable ASCII characters without spaces",
                    "orderType",
                    &[],
                ),
            );
        }
        if self.operator.trim().is_empty()
            || self.operator.chars().count() > 80
            || self.operator.chars().any(char::is_control)
        {
            add(
                "operator",
                Rule::keyed(
                    "must be 1 to 80 characters without control characters",
                    "operatorName",
                    &[],
                ),
            );
        }
        if !self.notify_url.is_empty() {
            if let Err(e) = paydesk_gateway::validate::notify_url("notifyUrl", &self.notify_url) {
                add("notifyUrl", e.into());
            } else if !self.is_sandbox()
                && let Ok(u) = url::Url::parse(&self.notify_url)
                && u.scheme() == "http"
                && !paydesk_gateway::client::is_loopback(&u)
            {
                // Payment results would cross the network readable and changeable.
                add(
                    "notifyUrl",
                    Rule::keyed(NOTIFY_URL_HTTPS_RULE, "notifyUrlHttps", &[]),
                );
            }
        } else if !self.is_sandbox() && !self.notify_at_desk {
            add(
                "notifyUrl",
                Rule::keyed(NOTIFY_URL_RULE, "notifyUrlRequired", &[]),
            );
        }
        if !self.proxy.is_empty() {
            match url::Url::parse(&self.proxy) {
                Err(e) => add(
                    "proxy",
                    Rule::keyed(
                        format!("is not a URL ({e})"),
                        "notUrl",
                        &[("reason", e.to_string())],
                    )
                    .quoting("reason", &Rule::url_reason(e)),
                ),
                Ok(parsed) => {
                    if let Err(rule) = paydesk_gateway::client::check_proxy(&parsed) {
                        add("proxy", rule.to_string().into());
                    }
                }
            }
        }
        for check in [self.safety.validate(), self.sync.validate()] {
            if let Err(CoreError::Validation { field, rule }) = check {
                add(&field, rule);
            }
        }
        out
    }

    /// What the base URL makes of a request, for the form to show: the full URL of a
    /// payout, and the version the address already ends in (`v2`), which PayDesk adds
    /// itself, so `/v2` at the end makes every request `/v2/v2/...`.
    pub fn base_url_preview(base_url: &str) -> Option<BaseUrlPreview> {
        let parsed = url::Url::parse(base_url.trim()).ok()?;
        parsed.host()?;
        let request_url = paydesk_gateway::client::endpoint(&parsed, "/v2/payout")
            .ok()?
            .to_string();
        let last = parsed
            .path_segments()
            .and_then(|mut s| s.rfind(|x| !x.is_empty()))
            .unwrap_or_default();
        let is_version = last.len() >= 2
            && last[..1].eq_ignore_ascii_case("v")
            && last[1..].bytes().all(|b| b.is_ascii_digit());
        Some(BaseUrlPreview {
            request_url,
            version_suffix: is_version.then(|| format!("/{last}")),
        })
    }
}

/// One field's problem: the field (as the form and the CLI name it) and its rule.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldProblem {
    pub field: String,
    /// The rule's English words (`rule`) and, for a rule a window translates, its
    /// message key and parameters (`ruleKey`, `ruleParams`).
    #[serde(flatten)]
    pub rule: Rule,
}

/// See [`Profile::base_url_preview`].
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BaseUrlPreview {
    /// A payout's full URL under this base URL.
    pub request_url: String,
    /// `/v2` (as written) when the base URL's path ends in a version.
    pub version_suffix: Option<String>,
}

/// A live profile's notifications carry payment results: never over plain http across
/// the network.
pub const NOTIFY_URL_HTTPS_RULE: &str = "must use https:// for a real gateway: plain http:// is only allowed to this machine (localhost), since a notification carries payment results";

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProfilesFile {
    active: Option<String>,
    profiles: Vec<Profile>,
    /// Each profile's gateway conventions, by profile name: kept apart from the profile's
    /// other settings, so no edit of those (`profile add --replace`, Settings' form)
    /// ever resets them. A profile without an entry has the sandbox's reading.
    #[serde(default)]
    conventions: BTreeMap<String, Conventions>,
    /// Each profile's reporting settings (business time zone, change horizon), kept
    /// apart as the conventions are. A profile without an entry: UTC, 120 days.
    #[serde(default)]
    reporting: BTreeMap<String, Reporting>,
    /// Each profile's live set-up marks (what the desk cannot read back from the keyring
    /// or the gateway), kept apart as the conventions are.
    #[serde(default)]
    setup: BTreeMap<String, SetupMarks>,
    /// Each profile's payout limits per currency (issue 35), kept apart as the
    /// conventions are. A profile without an entry has none.
    #[serde(default)]
    limits: BTreeMap<String, crate::limits::Limits>,
}

/// What a person said about a live set-up that the desk cannot check itself, kept with
/// the profile (so every window and desk of the profile shows it): the fingerprint of
/// the public key they gave the gateway (a new key is not "given" until said again),
/// and whether the profile's last connection check passed.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SetupMarks {
    /// The fingerprint (`SHA256:` and hex, as the keys panel shows it) of the merchant
    /// public key given to the gateway.
    pub public_key_given: Option<String>,
    pub check_passed: Option<bool>,
}

impl SetupMarks {
    /// A fingerprint is what the keys panel shows: letters, digits and colons, at most 128.
    pub fn validate(&self) -> CoreResult<()> {
        if let Some(f) = &self.public_key_given
            && (f.is_empty()
                || f.len() > 128
                || !f.chars().all(|c| c.is_ascii_alphanumeric() || c == ':'))
        {
            return Err(CoreError::keyed(
                "publicKeyGiven",
                "must be a key's fingerprint (SHA256: and hexadecimal, at most 128 characters)",
                "fingerprint",
                &[],
            ));
        }
        Ok(())
    }
}

/// How a profile's statements and reconciliations are made.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Reporting {
    /// The business's time zone, a name of the time zone database (`Europe/Berlin`,
    /// `America/Mexico_City`: daylight saving honoured), or `UTC`: the days statements,
    /// exports and charts are in.
    pub business_zone: String,
    /// Days back within which refunds, chargebacks, settlements and reserve releases
    /// still come to finished orders: their windows are read again on a schedule while
    /// the desk runs, and before a reconciliation up to now.
    pub change_horizon_days: u32,
}

impl Default for Reporting {
    fn default() -> Self {
        Reporting {
            business_zone: "UTC".into(),
            change_horizon_days: 120,
        }
    }
}

impl Reporting {
    /// Checked member by member: a zone the time zone database names, 1 to 3650 days.
    pub fn validate(&self) -> CoreResult<()> {
        crate::period::parse_zone("businessZone", &self.business_zone)?;
        if !(1..=3650).contains(&self.change_horizon_days) {
            return Err(CoreError::keyed(
                "changeHorizonDays",
                "must be 1 to 3650 days",
                "changeHorizonRange",
                &[],
            ));
        }
        Ok(())
    }

    /// The business zone, parsed (checked when set).
    pub fn zone(&self) -> crate::period::Zone {
        crate::period::parse_zone("businessZone", &self.business_zone)
            .unwrap_or(crate::period::Zone::UTC)
    }
}

/// The conventions an older profiles file spelled in each profile (`signSettings`,
/// `stateOverrides`, `safety.duplicateCodes`), as one set.
fn legacy_conventions(profile: &serde_json::Value) -> Option<Conventions> {
    let signing = profile.get("signSettings");
    let overrides = profile.get("stateOverrides");
    let duplicates = profile.get("safety").and_then(|s| s.get("duplicateCodes"));
    if signing.is_none() && overrides.is_none() && duplicates.is_none() {
        return None;
    }
    let mut c = Conventions::sandbox();
    c.name = "from an older profile".into();
    if let Some(s) = signing.and_then(|v| serde_json::from_value(v.clone()).ok()) {
        c.signing = s;
    }
    if let Some(o) = overrides.and_then(|v| {
        serde_json::from_value::<BTreeMap<StateField, BTreeMap<String, Meaning>>>(v.clone()).ok()
    }) {
        for (field, values) in o {
            c.states.entry(field).or_default().extend(values);
        }
    }
    if let Some(d) = duplicates.and_then(|v| serde_json::from_value(v.clone()).ok()) {
        c.duplicate_codes = d;
    }
    Some(c)
}

/// The profiles file and the data directory next to it.
#[derive(Debug, Clone)]
pub struct Home {
    dir: PathBuf,
}

impl Home {
    /// `PAYDESK_HOME`, or the OS config directory's `PayDesk`.
    pub fn from_env() -> CoreResult<Self> {
        if let Ok(dir) = std::env::var("PAYDESK_HOME") {
            return Ok(Self::at(dir));
        }
        let base = dirs::config_dir().ok_or_else(|| {
            CoreError::storage("no configuration directory on this system; set PAYDESK_HOME")
        })?;
        Ok(Self::at(base.join("PayDesk")))
    }

    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn file(&self) -> PathBuf {
        self.dir.join("profiles.json")
    }

    /// The profile's database.
    pub fn database(&self, profile: &str) -> PathBuf {
        self.dir.join("data").join(format!("{profile}.sqlite"))
    }

    fn load(&self) -> CoreResult<ProfilesFile> {
        let unreadable =
            |e: serde_json::Error| CoreError::storage(format!("{}: {e}", self.file().display()));
        match std::fs::read_to_string(self.file()) {
            Ok(text) => {
                let raw: serde_json::Value = serde_json::from_str(&text).map_err(unreadable)?;
                let mut file: ProfilesFile =
                    serde_json::from_value(raw.clone()).map_err(unreadable)?;
                // A file written before conventions: each profile's settings become its set.
                for p in raw
                    .get("profiles")
                    .and_then(serde_json::Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let Some(name) = p.get("name").and_then(serde_json::Value::as_str) else {
                        continue;
                    };
                    if !file.conventions.contains_key(name)
                        && let Some(c) = legacy_conventions(p)
                    {
                        file.conventions.insert(name.to_string(), c);
                    }
                }
                Ok(file)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ProfilesFile::default()),
            Err(e) => Err(e.into()),
        }
    }

    /// A profile's gateway conventions (the sandbox's reading until set).
    pub fn conventions(&self, name: &str) -> CoreResult<Conventions> {
        let f = self.load()?;
        if !f.profiles.iter().any(|p| p.name == name) {
            return Err(CoreError::not_found(format!("no profile named {name:?}")));
        }
        Ok(f.conventions.get(name).cloned().unwrap_or_default())
    }

    /// Sets a profile's gateway conventions, checked member by member.
    pub fn set_conventions(&self, name: &str, conventions: Conventions) -> CoreResult<()> {
        let _writing = self.writing()?;
        conventions.check().map_err(CoreError::from)?;
        let mut f = self.load()?;
        if !f.profiles.iter().any(|p| p.name == name) {
            return Err(CoreError::not_found(format!("no profile named {name:?}")));
        }
        f.conventions.insert(name.to_string(), conventions);
        self.save(&f)
    }

    /// A profile's reporting settings (UTC and 120 days until set).
    pub fn reporting(&self, name: &str) -> CoreResult<Reporting> {
        let f = self.load()?;
        if !f.profiles.iter().any(|p| p.name == name) {
            return Err(CoreError::not_found(format!("no profile named {name:?}")));
        }
        Ok(f.reporting.get(name).cloned().unwrap_or_default())
    }

    /// Sets a profile's reporting settings, checked member by member.
    pub fn set_reporting(&self, name: &str, reporting: Reporting) -> CoreResult<()> {
        let _writing = self.writing()?;
        reporting.validate()?;
        let mut f = self.load()?;
        if !f.profiles.iter().any(|p| p.name == name) {
            return Err(CoreError::not_found(format!("no profile named {name:?}")));
        }
        f.reporting.insert(name.to_string(), reporting);
        self.save(&f)
    }

    /// A profile's payout limits (none until set).
    pub fn limits(&self, name: &str) -> CoreResult<crate::limits::Limits> {
        let f = self.load()?;
        if !f.profiles.iter().any(|p| p.name == name) {
            return Err(CoreError::not_found(format!("no profile named {name:?}")));
        }
        Ok(f.limits.get(name).cloned().unwrap_or_default())
    }

    /// Sets a profile's payout limits, checked; returns them as kept.
    pub fn set_limits(
        &self,
        name: &str,
        limits: crate::limits::Limits,
    ) -> CoreResult<crate::limits::Limits> {
        let limits = limits.normalised()?;
        let _writing = self.writing()?;
        let mut f = self.load()?;
        if !f.profiles.iter().any(|p| p.name == name) {
            return Err(CoreError::not_found(format!("no profile named {name:?}")));
        }
        f.limits.insert(name.to_string(), limits.clone());
        self.save(&f)?;
        Ok(limits)
    }

    /// A profile's live set-up marks (none until said).
    pub fn setup_marks(&self, name: &str) -> CoreResult<SetupMarks> {
        let f = self.load()?;
        if !f.profiles.iter().any(|p| p.name == name) {
            return Err(CoreError::not_found(format!("no profile named {name:?}")));
        }
        Ok(f.setup.get(name).cloned().unwrap_or_default())
    }

    /// Sets a profile's live set-up marks.
    pub fn set_setup_marks(&self, name: &str, marks: SetupMarks) -> CoreResult<()> {
        let _writing = self.writing()?;
        marks.validate()?;
        let mut f = self.load()?;
        if !f.profiles.iter().any(|p| p.name == name) {
            return Err(CoreError::not_found(format!("no profile named {name:?}")));
        }
        f.setup.insert(name.to_string(), marks);
        self.save(&f)
    }

    /// Held while one load-modify-save of the profiles file runs: another window, desk or
    /// the CLI saving at the same moment waits, so neither write is lost (an advisory
    /// lock on `profiles.json.lock`, released when dropped).
    fn writing(&self) -> CoreResult<std::fs::File> {
        crate::private_fs::dir(&self.dir)?;
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.dir.join("profiles.json.lock"))?;
        lock.lock()?;
        Ok(lock)
    }

    fn save(&self, f: &ProfilesFile) -> CoreResult<()> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        crate::private_fs::dir(&self.dir)?;
        // Every save runs under the home's lock (`writing`): another save's temporary
        // file found now is one a crash left (review r6), removed so none pile up.
        if let Ok(entries) = std::fs::read_dir(&self.dir) {
            for e in entries.flatten() {
                if e.file_name().to_str().is_some_and(left_by_a_save) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        // A name of this save's own: two saves never write one temporary file.
        let tmp = self.dir.join(format!(
            "profiles.json.{}-{}.tmp",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let text =
            serde_json::to_string_pretty(f).map_err(|e| CoreError::internal(e.to_string()))?;
        crate::private_fs::write(&tmp, text.as_bytes())?;
        // Rename is atomic: a crash leaves the old file or the new one, never half.
        std::fs::rename(&tmp, self.file())?;
        Ok(())
    }

    pub fn profiles(&self) -> CoreResult<Vec<Profile>> {
        Ok(self.load()?.profiles)
    }

    pub fn get(&self, name: &str) -> CoreResult<Profile> {
        self.load()?
            .profiles
            .into_iter()
            .find(|p| p.name == name)
            .ok_or_else(|| CoreError::not_found(format!("no profile named {name:?}")))
    }

    /// Adds a profile (`previous` is `None`) or edits one (`previous` is its name
    /// before the edit), by the desk's rules, for every front end alike: the built-in
    /// sandbox has no gateway address and keeps its name; every other profile has one;
    /// a name is taken once; a profile is never renamed (its keys and cache are kept
    /// under its name).
    pub fn save_profile(&self, profile: Profile, previous: Option<&str>) -> CoreResult<()> {
        // A new profile under the built-in sandbox's name: the name is what is wrong.
        if previous.is_none() && profile.name == SANDBOX_PROFILE {
            return Err(CoreError::validation("name", sandbox_reserved()));
        }
        if profile.name == SANDBOX_PROFILE && profile.base_url.is_some() {
            return Err(CoreError::keyed(
                "baseUrl",
                SANDBOX_HAS_NO_BASE_URL,
                "sandboxNoBaseUrl",
                &[],
            ));
        }
        if profile.name != SANDBOX_PROFILE && profile.base_url.is_none() {
            return Err(CoreError::keyed("baseUrl", "is required", "required", &[]));
        }
        profile.validate()?;
        if let Some((field, rule)) = profile.team.iter().flat_map(|t| t.file_problems()).next() {
            return Err(CoreError::validation(field, rule));
        }
        let renamed = previous.filter(|p| *p != profile.name);
        let exists = self.get(&profile.name).is_ok();
        if exists && (previous.is_none() || renamed.is_some()) {
            return Err(CoreError::keyed(
                "name",
                "is already taken",
                "nameTaken",
                &[],
            ));
        }
        if let Some(old) = renamed {
            return Err(CoreError::validation("name", no_rename(old)));
        }
        if previous.is_some() && !exists {
            return Err(CoreError::not_found(format!(
                "no profile named {:?}",
                profile.name
            )));
        }
        self.put(profile)
    }

    /// Every problem [`Home::save_profile`] would refuse `profile` for, at once and each on
    /// its field: the name's (reserved, taken, renamed) and the address's first, then the
    /// profile's own ([`Profile::problems`]). What a form shows as it is typed.
    pub fn profile_problems(&self, profile: &Profile, previous: Option<&str>) -> Vec<FieldProblem> {
        let mut out: Vec<FieldProblem> = Vec::new();
        let mut add = |field: &str, rule: Rule| {
            if !out.iter().any(|p| p.field == field) {
                out.push(FieldProblem {
                    field: field.to_string(),
                    rule,
                });
            }
        };
        if previous.is_none() && profile.name == SANDBOX_PROFILE {
            add("name", sandbox_reserved());
        }
        let renamed = previous.filter(|p| *p != profile.name);
        if !profile.name.is_empty()
            && self.get(&profile.name).is_ok()
            && (previous.is_none() || renamed.is_some())
        {
            add("name", Rule::keyed("is already taken", "nameTaken", &[]));
        }
        if let Some(old) = renamed {
            add("name", no_rename(old));
        }
        if profile.name == SANDBOX_PROFILE && profile.base_url.is_some() {
            add(
                "baseUrl",
                Rule::keyed(SANDBOX_HAS_NO_BASE_URL, "sandboxNoBaseUrl", &[]),
            );
        }
        if profile.name != SANDBOX_PROFILE && profile.base_url.is_none() {
            add("baseUrl", Rule::keyed("is required", "required", &[]));
        }
        for p in profile.problems() {
            add(&p.field, p.rule);
        }
        for (field, rule) in profile.team.iter().flat_map(|t| t.file_problems()) {
            add(field, rule);
        }
        // In the form's order: the name first, the rest as the profile lists them.
        out.sort_by_key(|p| p.field != "name");
        out
    }

    /// Removes a profile and its secrets, by the desk's rules: not the active one, never
    /// the built-in sandbox. Its database is kept aside (see [`Home::remove`]).
    pub fn remove_profile(&self, secrets: &crate::Secrets, name: &str) -> CoreResult<()> {
        if self.active()?.as_deref() == Some(name) {
            return Err(CoreError::keyed(
                "name",
                "is the active profile; switch to another first",
                "removeActive",
                &[],
            ));
        }
        if name == SANDBOX_PROFILE {
            return Err(CoreError::keyed(
                "name",
                "the built-in sandbox cannot be removed",
                "removeSandbox",
                &[],
            ));
        }
        self.get(name)?;
        secrets.forget(name)?;
        self.remove(name)
    }

    /// Adds or replaces a profile, with no rule but the profile's own checks: the
    /// built-in profile's set-up writes it; people's edits go through
    /// [`Home::save_profile`].
    pub fn put(&self, profile: Profile) -> CoreResult<()> {
        let _writing = self.writing()?;
        profile.validate()?;
        let mut f = self.load()?;
        f.profiles.retain(|p| p.name != profile.name);
        if f.active.is_none() {
            f.active = Some(profile.name.clone());
        }
        f.profiles.push(profile);
        f.profiles.sort_by(|a, b| a.name.cmp(&b.name));
        self.save(&f)
    }

    /// Removes a profile. Its database is kept, renamed `NAME.removed-<time>.sqlite`:
    /// its journal and audit log stay readable, and a new profile of the same name
    /// starts afresh (its audit chain under a new key).
    pub fn remove(&self, name: &str) -> CoreResult<()> {
        let _writing = self.writing()?;
        let mut f = self.load()?;
        f.profiles.retain(|p| p.name != name);
        f.conventions.remove(name);
        f.reporting.remove(name);
        f.setup.remove(name);
        f.limits.remove(name);
        if f.active.as_deref() == Some(name) {
            f.active = f.profiles.first().map(|p| p.name.clone());
        }
        self.save(&f)?;
        // Its scheduled reports stop with it; a new profile of the same name has none.
        let schedules = self.dir.join("data").join(format!("{name}.schedules.json"));
        if schedules.exists() {
            let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
            let aside = self
                .dir
                .join("data")
                .join(format!("{name}.removed-{stamp}.schedules.json"));
            std::fs::rename(&schedules, &aside).map_err(|e| {
                CoreError::storage(format!("cannot move {} aside: {e}", schedules.display()))
            })?;
        }
        let db = self.database(name);
        if db.exists() {
            let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
            for suffix in ["", "-wal", "-shm"] {
                let from = PathBuf::from(format!("{}{suffix}", db.display()));
                let to = self
                    .dir
                    .join("data")
                    .join(format!("{name}.removed-{stamp}.sqlite{suffix}"));
                if from.exists() {
                    std::fs::rename(&from, &to).map_err(|e| {
                        CoreError::storage(format!("cannot move {} aside: {e}", from.display()))
                    })?;
                }
            }
        }
        Ok(())
    }

    pub fn activate(&self, name: &str) -> CoreResult<()> {
        let _writing = self.writing()?;
        let mut f = self.load()?;
        if !f.profiles.iter().any(|p| p.name == name) {
            return Err(CoreError::not_found(format!("no profile named {name:?}")));
        }
        f.active = Some(name.to_string());
        self.save(&f)
    }

    /// The active profile's name, if any.
    pub fn active(&self) -> CoreResult<Option<String>> {
        Ok(self.load()?.active)
    }
}

/// Whether `name` is a temporary file of [`Home::save`] (`profiles.json.<pid>-<n>.tmp`).
fn left_by_a_save(name: &str) -> bool {
    name.strip_prefix("profiles.json.")
        .and_then(|r| r.strip_suffix(".tmp"))
        .and_then(|r| r.split_once('-'))
        .is_some_and(|(pid, n)| {
            [pid, n]
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn real(name: &str) -> Profile {
        Profile {
            name: name.into(),
            base_url: Some("https://gw.example".into()),
            mer_no: 10001,
            origin: "https://shop.example".into(),
            lang: "en".into(),
            order_type: None,
            operator: "tester".into(),
            notify_url: "https://shop.example/notify".into(),
            notify_at_desk: false,
            proxy: String::new(),
            safety: Default::default(),
            sync: Default::default(),
            team: None,
        }
    }

    /// Two handles on one home saving at the same moment (the app's settings and the
    /// CLI's `payout limits`): each save is load-modify-save under the home's lock, so
    /// neither loses the other's write (review-money-r5 F7).
    #[test]
    fn saves_at_the_same_moment_keep_both_writes() {
        let dir = tempfile::tempdir().unwrap();
        Home::at(dir.path()).put(real("desk")).unwrap();
        let limits = |n: u32| crate::limits::Limits {
            currencies: vec![crate::limits::CurrencyLimit {
                currency: "MXN".into(),
                per_payout: None,
                per_day: Some(n.to_string()),
            }],
        };
        let cli = {
            let home = Home::at(dir.path());
            std::thread::spawn(move || {
                for n in 1..=60 {
                    home.set_limits("desk", limits(n)).unwrap();
                    // Whatever the other handle saved meanwhile carried this value.
                    assert_eq!(home.limits("desk").unwrap(), limits(n), "lost at {n}");
                }
            })
        };
        let app = Home::at(dir.path());
        for days in 1..=60 {
            let r = Reporting {
                change_horizon_days: days,
                ..Reporting::default()
            };
            app.set_reporting("desk", r.clone()).unwrap();
            assert_eq!(app.reporting("desk").unwrap(), r, "lost at {days}");
        }
        cli.join().unwrap();
        assert_eq!(app.limits("desk").unwrap(), limits(60));
        assert_eq!(app.reporting("desk").unwrap().change_horizon_days, 60);
    }

    /// A save's temporary file left by a crash (a save killed between writing it and
    /// renaming it) is removed by the next save, so they never pile up in the home; the
    /// home's other files stay.
    #[test]
    fn a_temporary_file_a_crashed_save_left_is_removed_by_the_next_save() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        home.put(real("desk")).unwrap();
        let left = dir.path().join("profiles.json.4242-7.tmp");
        std::fs::write(&left, "{").unwrap();
        let others = ["profiles.json.tmp", "notes-1.tmp", "profiles.json.x-1.tmp"];
        for o in others {
            std::fs::write(dir.path().join(o), "keep").unwrap();
        }
        home.set_reporting("desk", Reporting::default()).unwrap();
        assert!(!left.exists(), "left in the home");
        for o in others {
            assert!(dir.path().join(o).exists(), "{o} removed");
        }
        let tmp: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| left_by_a_save(n))
            .collect();
        assert!(tmp.is_empty(), "{tmp:?}");
        assert_eq!(home.get("desk").unwrap().name, "desk");
    }

    fn field(e: CoreError) -> (String, String) {
        match e {
            CoreError::Validation { field, rule } => (field, rule.text),
            other => panic!("{other}"),
        }
    }

    /// The live set-up's marks are the profile's: read back by another handle on the same
    /// home (another window, another desk), kept across edits of the profile, refused
    /// when not a fingerprint, dropped with the profile.
    #[test]
    fn set_up_marks_are_kept_with_the_profile() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        home.put(real("live")).unwrap();
        assert_eq!(home.setup_marks("live").unwrap(), SetupMarks::default());
        let given = "SHA256:0a:1b:2c";
        home.set_setup_marks(
            "live",
            SetupMarks {
                public_key_given: Some(given.into()),
                check_passed: Some(true),
            },
        )
        .unwrap();
        home.put(real("live")).unwrap();
        let other = Home::at(dir.path());
        let marks = other.setup_marks("live").unwrap();
        assert_eq!(marks.public_key_given.as_deref(), Some(given));
        assert_eq!(marks.check_passed, Some(true));
        let (f, _) = field(
            home.set_setup_marks(
                "live",
                SetupMarks {
                    public_key_given: Some("<script>".into()),
                    check_passed: None,
                },
            )
            .unwrap_err(),
        );
        assert_eq!(f, "publicKeyGiven");
        assert!(
            home.set_setup_marks("nobody", SetupMarks::default())
                .is_err()
        );
        home.remove("live").unwrap();
        home.put(real("live")).unwrap();
        assert_eq!(home.setup_marks("live").unwrap(), SetupMarks::default());
    }

    /// The rules every front end gets from here (the app's form and `paydesk profile`).
    #[test]
    fn profiles_are_saved_and_removed_by_one_set_of_rules() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        let secrets = crate::Secrets::new(std::sync::Arc::new(crate::MemoryStore::default()));
        home.put(Profile {
            base_url: None,
            ..real(SANDBOX_PROFILE)
        })
        .unwrap();
        // A new profile under the sandbox's name: the name is refused, not the address.
        let e = home.save_profile(real(SANDBOX_PROFILE), None).unwrap_err();
        let (f, rule) = field(e);
        assert_eq!(f, "name");
        assert!(rule.contains("reserved for the built-in sandbox"), "{rule}");
        // The built-in sandbox is never given a gateway address (the CLI once replaced it).
        let e = home
            .save_profile(real(SANDBOX_PROFILE), Some(SANDBOX_PROFILE))
            .unwrap_err();
        assert_eq!(field(e).0, "baseUrl");
        assert!(home.get(SANDBOX_PROFILE).unwrap().is_sandbox(), "unchanged");
        // A real gateway's profile needs its address; a name is taken once.
        let e = home
            .save_profile(
                Profile {
                    base_url: None,
                    ..real("live")
                },
                None,
            )
            .unwrap_err();
        assert_eq!(field(e), ("baseUrl".into(), "is required".into()));
        home.save_profile(real("live"), None).unwrap();
        let e = home.save_profile(real("live"), None).unwrap_err();
        assert_eq!(field(e), ("name".into(), "is already taken".into()));
        // Edited in place, never renamed.
        home.save_profile(
            Profile {
                mer_no: 10002,
                ..real("live")
            },
            Some("live"),
        )
        .unwrap();
        assert_eq!(home.get("live").unwrap().mer_no, 10002);
        let e = home.save_profile(real("live2"), Some("live")).unwrap_err();
        assert_eq!(field(e).0, "name");
        assert!(home.get("live2").is_err());
        // Removed: never the active one, never the sandbox.
        home.activate("live").unwrap();
        assert_eq!(
            field(home.remove_profile(&secrets, "live").unwrap_err()).0,
            "name"
        );
        home.activate(SANDBOX_PROFILE).unwrap();
        assert_eq!(
            field(home.remove_profile(&secrets, SANDBOX_PROFILE).unwrap_err()).0,
            "name"
        );
        home.remove_profile(&secrets, "live").unwrap();
        assert!(home.get("live").is_err());
    }

    /// A profile's conventions are its own: no edit of its other settings resets them,
    /// and a profiles file of an older version keeps what it said.
    #[test]
    fn conventions_survive_every_edit_and_older_files() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        home.save_profile(real("live"), None).unwrap();
        assert_eq!(home.conventions("live").unwrap(), Conventions::sandbox());
        let mut c = Conventions::sandbox();
        c.set("timeZone", "Asia/Shanghai").unwrap();
        c.set("duplicateCodes", r#"["D01"]"#).unwrap();
        home.set_conventions("live", c.clone()).unwrap();
        // `profile add --replace` and the Settings form save the profile again.
        home.save_profile(
            Profile {
                mer_no: 10009,
                ..real("live")
            },
            Some("live"),
        )
        .unwrap();
        home.put(real("live")).unwrap();
        assert_eq!(home.conventions("live").unwrap(), c);
        let e = home
            .set_conventions(
                "live",
                Conventions {
                    time_zone: "Nowhere".into(),
                    ..c.clone()
                },
            )
            .unwrap_err();
        assert_eq!(field(e).0, "conventions.timeZone");
        assert!(home.conventions("nobody").is_err());

        // An older file: signing, state overrides and duplicate codes in the profile.
        let older = serde_json::json!({
            "active": "old",
            "profiles": [{
                "name": "old", "baseUrl": "https://gw.example", "merNo": 7,
                "origin": "https://shop.example", "notifyUrl": "https://shop.example/n",
                "signSettings": {"excludedKeys": ["sign"], "skipEmpty": false},
                "stateOverrides": {"orderState": {"9": "processing"}},
                "safety": {"duplicateWindowHours": 24, "notFoundGraceSecs": 300,
                           "notFoundLookups": 3, "duplicateCodes": ["X9"]}
            }]
        });
        std::fs::write(dir.path().join("profiles.json"), older.to_string()).unwrap();
        let c = home.conventions("old").unwrap();
        assert!(!c.signing.skip_empty);
        assert_eq!(c.signing.excluded_keys, ["sign"]);
        assert_eq!(c.duplicate_codes, ["X9"]);
        let d = c.dictionary();
        assert_eq!(
            d.meaning(StateField::OrderState, "9"),
            Some(Meaning::Processing)
        );
        assert_eq!(
            d.meaning(StateField::OrderState, "5"),
            Some(Meaning::Success)
        );
    }

    /// A live set-up's form shows every problem at once, each on its field.
    #[test]
    fn every_problem_of_a_form_is_named_at_once() {
        let mut p = real("");
        p.mer_no = 0;
        p.origin = "not a url".into();
        p.notify_url = "http://shop.example/notify".into();
        p.sync.page_size = 0;
        let fields: Vec<String> = p.problems().into_iter().map(|x| x.field).collect();
        assert_eq!(
            fields,
            ["name", "merNo", "origin", "notifyUrl", "sync.pageSize"],
            "{:?}",
            p.problems()
        );
        // The first is what a Save (and the CLI) reports.
        assert_eq!(field(p.validate().unwrap_err()).0, "name");
        assert!(real("ok").problems().is_empty());
    }

    #[test]
    fn a_live_profile_takes_no_plain_http_notification_url_to_another_machine() {
        let mut p = real("live");
        p.notify_url = "http://shop.example/notify".into();
        let (f, rule) = field(p.validate().unwrap_err());
        assert_eq!(
            (f.as_str(), rule.as_str()),
            ("notifyUrl", NOTIFY_URL_HTTPS_RULE)
        );
        // To this machine (a tunnel or a local backend) it may.
        p.notify_url = "http://127.0.0.1:8080/notify".into();
        p.validate().unwrap();
        p.notify_url = "https://shop.example/notify".into();
        p.validate().unwrap();
    }

    #[test]
    fn a_base_url_ending_in_a_version_is_shown_with_the_request_it_makes() {
        let v = Profile::base_url_preview("https://gw.example/api/v2").unwrap();
        assert_eq!(v.request_url, "https://gw.example/api/v2/v2/payout");
        assert_eq!(v.version_suffix.as_deref(), Some("/v2"));
        let v = Profile::base_url_preview("https://gw.example/V1/").unwrap();
        assert_eq!(v.version_suffix.as_deref(), Some("/V1"));
        let v = Profile::base_url_preview("https://gw.example/api").unwrap();
        assert_eq!(v.request_url, "https://gw.example/api/v2/payout");
        assert_eq!(v.version_suffix, None);
        assert_eq!(
            Profile::base_url_preview("https://gw.example/vault")
                .unwrap()
                .version_suffix,
            None
        );
        assert_eq!(Profile::base_url_preview("https://"), None);
    }

    #[test]
    fn a_team_file_that_cannot_be_read_is_named_when_typed_and_when_saved() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        let ca = dir.path().join("ca.pem");
        std::fs::write(&ca, "-----BEGIN CERTIFICATE-----\n").unwrap();
        let key = dir.path().join("member.key");
        // Only whether the file can be read is checked here: no key is needed in it.
        std::fs::write(&key, "a member's key file\n").unwrap();
        let missing = dir.path().join("member.crt");
        let p = |cert: &std::path::Path| Profile {
            team: Some(crate::store::team::TeamConfig {
                host: "db.team.example".into(),
                port: 5432,
                database: "team".into(),
                user: "ann".into(),
                ca_file: ca.display().to_string(),
                cert_file: cert.display().to_string(),
                key_file: key.display().to_string(),
            }),
            ..real("acme")
        };
        // A missing client certificate: named at once, by its field, with its path.
        let problems = home.profile_problems(&p(&missing), None);
        let names: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(names, ["team.certFile"], "{problems:?}");
        assert!(problems[0].rule.contains("no such file"), "{problems:?}");
        assert!(problems[0].rule.contains("member.crt"), "{problems:?}");
        let (f, _) = field(home.save_profile(p(&missing), None).unwrap_err());
        assert_eq!(f, "team.certFile");
        // A folder is not a file.
        let (f, rule) = field(home.save_profile(p(dir.path()), None).unwrap_err());
        assert_eq!(f, "team.certFile");
        assert!(rule.contains("not a file"), "{rule}");
        // Every file there and readable: saved.
        std::fs::write(&missing, "-----BEGIN CERTIFICATE-----\n").unwrap();
        assert!(home.profile_problems(&p(&missing), None).is_empty());
        home.save_profile(p(&missing), None).unwrap();
        assert_eq!(
            home.get("acme").unwrap().team.unwrap().cert_file,
            missing.display().to_string()
        );
    }

    #[test]
    fn a_form_names_the_reserved_or_taken_name_with_every_other_problem() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        let mut p = real(SANDBOX_PROFILE);
        p.operator = String::new();
        let fields: Vec<String> = home
            .profile_problems(&p, None)
            .into_iter()
            .map(|x| x.field)
            .collect();
        assert_eq!(fields, ["name", "baseUrl", "operator"]);
        let problems = home.profile_problems(&p, None);
        assert!(
            problems[0]
                .rule
                .contains("reserved for the built-in sandbox")
        );
        home.save_profile(real("acme"), None).unwrap();
        let again = home.profile_problems(&real("acme"), None);
        assert_eq!(again.len(), 1);
        assert_eq!(
            (again[0].field.as_str(), &*again[0].rule),
            ("name", "is already taken")
        );
        assert!(
            home.profile_problems(&real("acme"), Some("acme"))
                .is_empty()
        );
    }
}
