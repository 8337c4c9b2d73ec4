//! The built-in sandbox profile, the embedded default: on first use it makes a merchant
//! key pair and token (in the keyring), starts the sandbox gateway in-process on
//! loopback with its state in the profile's data folder, registers the merchant there,
//! seeds demo data, and stores the sandbox's gateway key for answer verification.

use std::time::Duration;

use paydesk_sandbox::{Card, Running, Sandbox, SandboxConfig, SeedSpec, demo_merchant};
use rust_decimal::Decimal;
use sha2::{Digest, Sha256};

use paydesk_core::profile::SANDBOX_PROFILE;
use paydesk_core::{CoreError, CoreResult, Home, Profile, Secrets};

pub const SANDBOX_MER_NO: u64 = 10001;
pub const SANDBOX_ORIGIN: &str = "https://desk.paydesk.local";
/// Demo orders seeded on first start.
pub const DEMO_ORDERS: usize = 3000;

/// Creates the built-in profile and its secrets if missing; returns it.
pub fn ensure_profile(home: &Home, secrets: &Secrets) -> CoreResult<Profile> {
    let profile = match home.get(SANDBOX_PROFILE) {
        Ok(p) => p,
        Err(CoreError::NotFound { .. }) => {
            let p = Profile {
                name: SANDBOX_PROFILE.into(),
                base_url: None,
                mer_no: SANDBOX_MER_NO,
                origin: SANDBOX_ORIGIN.into(),
                lang: "en".into(),
                order_type: None,
                operator: std::env::var("USER")
                    .ok()
                    .map(|u| {
                        u.chars()
                            .filter(|c| !c.is_control())
                            .take(80)
                            .collect::<String>()
                    })
                    .filter(|u| !u.trim().is_empty())
                    .unwrap_or_else(|| "operator".into()),
                notify_url: String::new(),
                notify_at_desk: false,
                proxy: String::new(),
                safety: Default::default(),
                sync: Default::default(),
                team: None,
            };
            home.put(p.clone())?;
            p
        }
        Err(e) => return Err(e),
    };
    // The built-in sandbox's conventions: the sandbox's reading, and its demo
    // merchant's numbering (payins PI…, payouts PO…, card moves TU… and WD…), so a
    // statement tells its demo orders' kinds apart. A set someone changed is kept.
    if home.conventions(&profile.name)? == paydesk_gateway::Conventions::sandbox() {
        home.set_conventions(&profile.name, builtin_conventions())?;
    }
    if secrets.merchant_key_info(&profile.name)?.is_none() {
        secrets.generate_merchant_key(&profile.name, 2048)?;
    }
    if secrets.bearer(&profile.name)?.is_none() {
        let seed = format!(
            "{:?}{}",
            chrono::Utc::now().timestamp_nanos_opt(),
            std::process::id()
        );
        let token: String = Sha256::digest(seed.as_bytes())
            .iter()
            .take(16)
            .map(|b| format!("{b:02x}"))
            .collect();
        secrets.set_bearer(&profile.name, &format!("sbx_{token}"))?;
    }
    Ok(profile)
}

/// The built-in sandbox profile's conventions: the sandbox's reading with the demo
/// merchant's numbering as kind rules.
pub fn builtin_conventions() -> paydesk_gateway::Conventions {
    use paydesk_gateway::OrderKind;
    use paydesk_gateway::conventions::KindRule;
    let rule = |prefix: &str, kind| KindRule {
        prefix: prefix.into(),
        kind,
    };
    paydesk_gateway::Conventions {
        name: "built-in sandbox".into(),
        kind_rules: vec![
            rule("PI", OrderKind::Payin),
            rule("PO", OrderKind::Payout),
            rule("TU", OrderKind::TopUp),
            rule("WD", OrderKind::Withdraw),
        ],
        ..paydesk_gateway::Conventions::sandbox()
    }
}

/// How the built-in sandbox behaves where the interface is silent, from
/// `PAYDESK_SANDBOX_BEHAVIOUR` (JSON, e.g. `{"listLagMs": 15000, "acceptReusedOrderNo":
/// true}`): to try, or test, the desk against a gateway whose list shows new orders
/// late or that takes a reused order number as a new order. Unset: the default.
fn behaviour_from_env() -> CoreResult<paydesk_sandbox::Behaviour> {
    match std::env::var("PAYDESK_SANDBOX_BEHAVIOUR") {
        Ok(text) if !text.trim().is_empty() => serde_json::from_str(&text).map_err(|e| {
            CoreError::keyed(
                "PAYDESK_SANDBOX_BEHAVIOUR",
                format!("must be JSON such as {{\"listLagMs\": 15000}}: {e}"),
                "notJson",
                &[("detail", e.to_string())],
            )
        }),
        _ => Ok(paydesk_sandbox::Behaviour::default()),
    }
}

/// The running in-process sandbox of the built-in profile.
#[derive(Debug)]
pub struct BuiltinSandbox {
    running: Running,
}

impl BuiltinSandbox {
    pub async fn start(home: &Home, secrets: &Secrets, profile: &Profile) -> CoreResult<Self> {
        let db = home.dir().join("data").join("sandbox-gateway.sqlite");
        paydesk_core::private_fs::dir(&home.dir().join("data"))?;
        paydesk_core::private_fs::file(&db)?;
        let config = SandboxConfig {
            db: Some(db),
            auto_complete_after: Some(Duration::from_secs(5)),
            behaviour: behaviour_from_env()?,
            ..SandboxConfig::default()
        };
        let sandbox = Sandbox::new(config).map_err(|e| CoreError::storage(e.to_string()))?;
        let public = secrets.merchant_key(&profile.name)?.public_key();
        let token = secrets
            .bearer(&profile.name)?
            .ok_or_else(|| CoreError::MissingSecret {
                message: "the sandbox profile has no bearer token".into(),
            })?;
        let registered = sandbox.with_state(|s| s.merchants.get(&profile.mer_no).cloned());
        let fresh = registered.is_none();
        let current = registered.as_ref().is_some_and(|m| {
            m.public_key == public.to_base64()
                && m.has_token(token.expose())
                && m.origins.contains(&profile.origin)
        });
        if !current {
            // New, or the key, token or origin changed in Settings: register them again.
            let mut m = demo_merchant(profile.mer_no, &public, &profile.origin, token.expose());
            if let Some(old) = registered {
                m.opening = old.opening;
                m.card_notify_url = old.card_notify_url;
            }
            sandbox.add_merchant(m);
        }
        if fresh {
            for (no, sub, holder, cur, opening) in [
                (
                    "CARD-0001",
                    "SUB-0001",
                    "Ana Lima",
                    "USD",
                    Decimal::new(50_000, 2),
                ),
                (
                    "CARD-0002",
                    "SUB-0002",
                    "Wei Zhang",
                    "EUR",
                    Decimal::new(120_000, 2),
                ),
            ] {
                sandbox.add_card(Card {
                    mer_no: profile.mer_no,
                    apply_order_no: no.into(),
                    sub_mer_no: sub.into(),
                    holder: holder.into(),
                    currency: cur.into(),
                    opening,
                    balance: opening,
                });
            }
            sandbox.seed(&SeedSpec {
                mer_no: Some(profile.mer_no),
                ..SeedSpec::new(DEMO_ORDERS)
            });
        }
        secrets.set_gateway_key(&profile.name, &sandbox.gateway_public_key().to_pem())?;
        let running = sandbox
            .serve(
                "127.0.0.1:0"
                    .parse()
                    .map_err(|_| CoreError::internal("loopback address"))?,
            )
            .await
            .map_err(|e| CoreError::storage(format!("cannot start the sandbox gateway: {e}")))?;
        Ok(Self { running })
    }

    pub fn base_url(&self) -> url::Url {
        self.running.base_url()
    }

    pub fn sandbox(&self) -> &Sandbox {
        &self.running.sandbox
    }
}
