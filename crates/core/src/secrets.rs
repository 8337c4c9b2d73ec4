//! Secrets live only in the OS keyring: the merchant's private key (PKCS#8 DER bytes,
//! so a 4096-bit key fits Windows' 2,560-byte limit), the gateway's public key, and the
//! bearer token. Values come back wrapped in `Sensitive`, which never prints.

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};

use paydesk_gateway::{PrivateKey, PublicKey, Sensitive};

use crate::error::{CoreError, CoreResult};

/// The shortest desk password.
pub const DESK_PASSWORD_MIN: usize = 10;
/// PBKDF2-HMAC-SHA256 rounds of a desk password's verifier (OWASP's 600,000).
const DESK_PASSWORD_ROUNDS: std::num::NonZeroU32 = match std::num::NonZeroU32::new(600_000) {
    Some(n) => n,
    None => unreachable!(),
};

/// A place for secrets. The real one is the OS keyring; tests of logic that does not
/// concern the keyring use [`MemoryStore`].
pub trait SecretStore: Send + Sync + Debug {
    fn set(&self, name: &str, bytes: &[u8]) -> CoreResult<()>;
    fn get(&self, name: &str) -> CoreResult<Option<Sensitive<Vec<u8>>>>;
    fn delete(&self, name: &str) -> CoreResult<()>;
}

fn unavailable(e: keyring::Error) -> CoreError {
    CoreError::KeyringUnavailable {
        message: match e {
            keyring::Error::NoStorageAccess(inner) => {
                format!("the keyring is locked or refused access ({inner})")
            }
            keyring::Error::PlatformFailure(inner) => format!(
                "the keyring service failed ({inner}); is a Secret Service (gnome-keyring, KWallet) running and unlocked?"
            ),
            other => other.to_string(),
        },
    }
}

/// The OS keyring (Secret Service on Linux, Keychain on macOS, Credential Manager on
/// Windows), under one service name.
#[derive(Debug, Clone)]
pub struct KeyringStore {
    service: String,
}

impl KeyringStore {
    /// Opens the store after a probe that writes, reads back through a second handle,
    /// and deletes a test entry. It refuses a store that is missing, locked, or keeps
    /// nothing (keyring's in-memory mock, where a second handle sees no entry).
    pub fn open(service: &str) -> CoreResult<Self> {
        let store = Self {
            service: service.to_string(),
        };
        // A Secret Service that is still starting (or restarting) fails the first call:
        // try once more before giving up.
        if store.probe().is_err() {
            std::thread::sleep(std::time::Duration::from_millis(300));
            store.probe()?;
        }
        Ok(store)
    }

    fn entry(&self, name: &str) -> CoreResult<keyring::Entry> {
        keyring::Entry::new(&self.service, name).map_err(unavailable)
    }

    fn probe(&self) -> CoreResult<()> {
        let name = format!(
            "probe-{}-{}",
            std::process::id(),
            chrono::Utc::now().timestamp_nanos_opt().unwrap_or_default()
        );
        let marker = b"paydesk keyring probe";
        self.entry(&name)?.set_secret(marker).map_err(unavailable)?;
        let read = self.entry(&name)?.get_secret();
        let cleanup = self.entry(&name)?.delete_credential();
        match read {
            Ok(bytes) if bytes == marker => {}
            Ok(_) => {
                return Err(CoreError::KeyringUnavailable {
                    message: "the keyring returned something other than what was stored".into(),
                });
            }
            Err(keyring::Error::NoEntry) => {
                return Err(CoreError::KeyringUnavailable {
                    message: "the keyring keeps nothing between handles (an in-memory mock, not the OS store)".into(),
                });
            }
            Err(e) => return Err(unavailable(e)),
        }
        cleanup.map_err(unavailable)
    }
}

/// Runs a keyring call again, twice at most, when the Secret Service dropped it (a
/// daemon restarting, a D-Bus hiccup): every call here is idempotent.
fn retried<T>(mut call: impl FnMut() -> keyring::Result<T>) -> keyring::Result<T> {
    let mut tries = 0;
    loop {
        match call() {
            Err(keyring::Error::PlatformFailure(_) | keyring::Error::NoStorageAccess(_))
                if tries < 2 =>
            {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(250 * tries));
            }
            other => return other,
        }
    }
}

impl SecretStore for KeyringStore {
    fn set(&self, name: &str, bytes: &[u8]) -> CoreResult<()> {
        if bytes.len() > MAX_SECRET_BYTES {
            return Err(CoreError::KeyringUnavailable {
                message: format!(
                    "{name} is {} bytes; a keyring credential holds at most {MAX_SECRET_BYTES}",
                    bytes.len()
                ),
            });
        }
        let entry = self.entry(name)?;
        retried(|| entry.set_secret(bytes)).map_err(unavailable)
    }

    fn get(&self, name: &str) -> CoreResult<Option<Sensitive<Vec<u8>>>> {
        let entry = self.entry(name)?;
        match retried(|| entry.get_secret()) {
            Ok(bytes) => Ok(Some(Sensitive::new(bytes))),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(unavailable(e)),
        }
    }

    fn delete(&self, name: &str) -> CoreResult<()> {
        let entry = self.entry(name)?;
        match retried(|| entry.delete_credential()) {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(unavailable(e)),
        }
    }
}

/// The most a stored secret may hold: Windows' Credential Manager keeps at most 2,560
/// bytes per credential (`CRED_MAX_CREDENTIAL_BLOB_SIZE`). A 4096-bit key as PKCS#8 DER
/// is about 2,375 bytes; PEM would not fit, so keys are stored as DER.
pub const MAX_SECRET_BYTES: usize = 2560;

/// Secrets in memory, for unit tests only.
#[derive(Debug, Default)]
pub struct MemoryStore {
    map: Mutex<HashMap<String, Vec<u8>>>,
}

impl SecretStore for MemoryStore {
    fn set(&self, name: &str, bytes: &[u8]) -> CoreResult<()> {
        self.map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(name.to_string(), bytes.to_vec());
        Ok(())
    }

    fn get(&self, name: &str) -> CoreResult<Option<Sensitive<Vec<u8>>>> {
        Ok(self
            .map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(name)
            .cloned()
            .map(Sensitive::new))
    }

    fn delete(&self, name: &str) -> CoreResult<()> {
        self.map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(name);
        Ok(())
    }
}

/// A profile's secrets.
#[derive(Debug, Clone)]
pub struct Secrets {
    store: Arc<dyn SecretStore>,
    service: Option<String>,
}

/// What the UI may show of a key: never the private half.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KeyInfo {
    pub bits: usize,
    pub public_pem: String,
    pub public_base64: String,
    pub fingerprint: String,
}

impl KeyInfo {
    pub fn of(public: &PublicKey) -> Self {
        Self {
            bits: public.bits(),
            public_pem: public.to_pem(),
            public_base64: public.to_base64(),
            fingerprint: public.fingerprint(),
        }
    }
}

impl Secrets {
    pub fn new(store: Arc<dyn SecretStore>) -> Self {
        Self {
            store,
            service: None,
        }
    }

    /// Labels the store with its keyring service name (shown in Settings).
    pub fn with_service(mut self, service: &str) -> Self {
        self.service = Some(service.to_string());
        self
    }

    pub fn service(&self) -> Option<&str> {
        self.service.as_deref()
    }

    fn name(profile: &str, what: &str) -> String {
        format!("{profile}/{what}")
    }

    pub fn set_merchant_key(&self, profile: &str, key: &PrivateKey) -> CoreResult<KeyInfo> {
        self.store
            .set(&Self::name(profile, "merchant-key"), key.pkcs8_der())?;
        Ok(KeyInfo::of(&key.public_key()))
    }

    /// Imports PEM PKCS#8, PEM PKCS#1 or bare base64 DER.
    /// The public half of a private key's text, read and checked as an import would,
    /// nothing kept: what a form shows (or refuses) before asking to replace a key.
    pub fn private_key_info(text: &str) -> CoreResult<KeyInfo> {
        let key = PrivateKey::from_text(text).map_err(|e| {
            CoreError::keyed(
                "privateKey",
                e.to_string(),
                "keyUnreadable",
                &[("detail", e.to_string())],
            )
        })?;
        Ok(KeyInfo::of(&key.public_key()))
    }

    pub fn import_merchant_key(&self, profile: &str, text: &str) -> CoreResult<KeyInfo> {
        let key = PrivateKey::from_text(text).map_err(|e| {
            CoreError::keyed(
                "privateKey",
                e.to_string(),
                "keyUnreadable",
                &[("detail", e.to_string())],
            )
        })?;
        self.set_merchant_key(profile, &key)
    }

    /// Generates a merchant key of `bits` (2048, 3072 or 4096) and keeps it.
    pub fn generate_merchant_key(&self, profile: &str, bits: usize) -> CoreResult<KeyInfo> {
        if ![2048, 3072, 4096].contains(&bits) {
            return Err(CoreError::keyed(
                "bits",
                "must be 2048, 3072 or 4096",
                "keyBits",
                &[],
            ));
        }
        let key = PrivateKey::generate(bits).map_err(|e| {
            CoreError::keyed(
                "bits",
                e.to_string(),
                "keyNotMade",
                &[("detail", e.to_string())],
            )
        })?;
        self.set_merchant_key(profile, &key)
    }

    pub fn merchant_key(&self, profile: &str) -> CoreResult<PrivateKey> {
        let bytes = self
            .store
            .get(&Self::name(profile, "merchant-key"))?
            .ok_or_else(|| CoreError::MissingSecret {
                message: format!(
                    "profile {profile:?} has no merchant private key; import or generate one"
                ),
            })?;
        PrivateKey::from_pkcs8_der(bytes.expose())
            .map_err(|e| CoreError::storage(format!("the stored merchant key is unreadable: {e}")))
    }

    pub fn merchant_key_info(&self, profile: &str) -> CoreResult<Option<KeyInfo>> {
        match self.merchant_key(profile) {
            Ok(k) => Ok(Some(KeyInfo::of(&k.public_key()))),
            Err(CoreError::MissingSecret { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub fn set_gateway_key(&self, profile: &str, text: &str) -> CoreResult<KeyInfo> {
        let key = PublicKey::from_text(text).map_err(|e| {
            CoreError::keyed(
                "gatewayPublicKey",
                e.to_string(),
                "keyUnreadable",
                &[("detail", e.to_string())],
            )
        })?;
        // The merchant's own public key (the one given to the gateway) pasted here would
        // make the desk accept answers signed by itself, and refuse the gateway's.
        if let Ok(own) = self.merchant_key(profile)
            && own.public_key().spki_der() == key.spki_der()
        {
            return Err(CoreError::keyed(
                "gatewayPublicKey",
                "is your own public key (the one you give the gateway); enter the public key the gateway gives you",
                "gatewayKeyIsOwn",
                &[],
            ));
        }
        self.store
            .set(&Self::name(profile, "gateway-key"), key.spki_der())?;
        Ok(KeyInfo::of(&key))
    }

    pub fn gateway_key(&self, profile: &str) -> CoreResult<Option<PublicKey>> {
        match self.store.get(&Self::name(profile, "gateway-key"))? {
            Some(der) => PublicKey::from_der(der.expose()).map(Some).map_err(|e| {
                CoreError::storage(format!("the stored gateway key is unreadable: {e}"))
            }),
            None => Ok(None),
        }
    }

    pub fn set_bearer(&self, profile: &str, token: &str) -> CoreResult<()> {
        if token.trim().is_empty() {
            return Err(CoreError::keyed(
                "bearerToken",
                "must not be empty",
                "notEmpty",
                &[],
            ));
        }
        if !token.trim().bytes().all(|b| b.is_ascii_graphic()) {
            return Err(CoreError::keyed(
                "bearerToken",
                "must be printable ASCII without spaces or line breaks (it is sent in a header)",
                "tokenAscii",
                &[],
            ));
        }
        if token.trim().len() > MAX_SECRET_BYTES {
            return Err(CoreError::keyed(
                "bearerToken",
                format!(
                    "must be at most {MAX_SECRET_BYTES} bytes (what a system keyring credential holds on Windows)"
                ),
                "secretTooLong",
                &[("count", MAX_SECRET_BYTES.to_string())],
            ));
        }
        self.store.set(
            &Self::name(profile, "bearer-token"),
            token.trim().as_bytes(),
        )
    }

    pub fn bearer(&self, profile: &str) -> CoreResult<Option<Sensitive<String>>> {
        Ok(self
            .store
            .get(&Self::name(profile, "bearer-token"))?
            .map(|b| Sensitive::new(String::from_utf8_lossy(b.expose()).into_owned())))
    }

    /// The password of a team profile's database user.
    pub fn set_team_password(&self, profile: &str, password: &str) -> CoreResult<()> {
        if password.is_empty() {
            return Err(CoreError::keyed(
                "team.password",
                "must not be empty",
                "notEmpty",
                &[],
            ));
        }
        if password.len() > MAX_SECRET_BYTES {
            return Err(CoreError::keyed(
                "team.password",
                format!("must be at most {MAX_SECRET_BYTES} bytes"),
                "secretTooLong",
                &[("count", MAX_SECRET_BYTES.to_string())],
            ));
        }
        self.store
            .set(&Self::name(profile, "team-password"), password.as_bytes())
    }

    pub fn team_password(&self, profile: &str) -> CoreResult<Sensitive<String>> {
        self.store
            .get(&Self::name(profile, "team-password"))?
            .map(|b| Sensitive::new(String::from_utf8_lossy(b.expose()).into_owned()))
            .ok_or_else(|| CoreError::MissingSecret {
                message: format!(
                    "the team database's password of profile {profile} is not in the keyring"
                ),
            })
    }

    /// The profile's key for intent fingerprints and bulk row numbers (32 random bytes,
    /// made on first use): what the journal stores of a request's full account is an
    /// HMAC under this key, so the database alone cannot give the card number back.
    pub fn intent_key(&self, profile: &str) -> CoreResult<Sensitive<Vec<u8>>> {
        self.random_key(profile, "intent-key")
    }

    /// The profile's key that seals its audit chain (32 random bytes, made on first use):
    /// whoever can write the database but not read the keyring cannot forge a row.
    pub fn audit_key(&self, profile: &str) -> CoreResult<Sensitive<Vec<u8>>> {
        self.random_key(profile, "audit-key")
    }

    /// The fingerprint (SHA-256 of the SPKI, hex) of the team's seal key this desk last
    /// sealed a secret to: a maker's desk refuses to seal to another key than the one it
    /// pinned (the owner rotating the merchant key is confirmed with `clear_seal_key_pin`).
    pub fn seal_key_pin(&self, profile: &str) -> CoreResult<Option<String>> {
        Ok(self
            .store
            .get(&Self::name(profile, "seal-key-pin"))?
            .map(|b| String::from_utf8_lossy(b.expose()).into_owned()))
    }

    pub fn set_seal_key_pin(&self, profile: &str, fingerprint: &str) -> CoreResult<()> {
        self.store
            .set(&Self::name(profile, "seal-key-pin"), fingerprint.as_bytes())
    }

    /// Forgets the pinned seal key: the next secret is sealed to (and pins) the key the
    /// team's database holds then.
    pub fn clear_seal_key_pin(&self, profile: &str) -> CoreResult<()> {
        self.store.delete(&Self::name(profile, "seal-key-pin"))
    }

    /// The audit key if the keyring holds it (none made): a desk whose sealed rows need
    /// it must not silently start another.
    pub fn audit_key_kept(&self, profile: &str) -> CoreResult<Option<Sensitive<Vec<u8>>>> {
        Ok(self
            .store
            .get(&Self::name(profile, "audit-key"))?
            .filter(|k| k.expose().len() == 32))
    }

    /// Puts a new audit key in place for a new log, and forgets what the keyring recorded
    /// of the old one (its anchor and its alert).
    pub fn replace_audit_key(&self, profile: &str, key: &[u8]) -> CoreResult<()> {
        if key.len() != 32 {
            return Err(CoreError::internal("an audit key is 32 bytes"));
        }
        self.store.delete(&Self::name(profile, "audit-anchor"))?;
        self.store.delete(&Self::name(profile, "audit-alert"))?;
        self.store.delete(&Self::name(profile, "audit-checked"))?;
        self.store.set(&Self::name(profile, "audit-key"), key)
    }

    /// Removes the audit key alone (tests of a lost key use it).
    pub fn delete_audit_key(&self, profile: &str) -> CoreResult<()> {
        self.store.delete(&Self::name(profile, "audit-key"))
    }

    /// What the keyring recorded of the audit chain at its last append.
    pub fn audit_anchor(&self, profile: &str) -> CoreResult<Option<crate::audit::Anchor>> {
        match self.store.get(&Self::name(profile, "audit-anchor"))? {
            Some(bytes) => serde_json::from_slice(bytes.expose())
                .map(Some)
                .map_err(|e| {
                    CoreError::storage(format!("the keyring's audit anchor is unreadable: {e}"))
                }),
            None => Ok(None),
        }
    }

    pub fn set_audit_anchor(&self, profile: &str, anchor: &crate::audit::Anchor) -> CoreResult<()> {
        let bytes = serde_json::to_vec(anchor).map_err(|e| CoreError::internal(e.to_string()))?;
        self.store.set(&Self::name(profile, "audit-anchor"), &bytes)
    }

    /// How far the audit chain was last found sealed ([`AuditChecked`]), if it was.
    /// Unreadable: as if never checked (the whole chain is checked again).
    pub fn audit_checked(&self, profile: &str) -> CoreResult<Option<AuditChecked>> {
        Ok(self
            .store
            .get(&Self::name(profile, "audit-checked"))?
            .and_then(|b| serde_json::from_slice(b.expose()).ok()))
    }

    /// Forgets how far the chain was checked: the next check reads the whole chain.
    pub fn forget_audit_checked(&self, profile: &str) -> CoreResult<()> {
        self.store.delete(&Self::name(profile, "audit-checked"))
    }

    pub fn set_audit_checked(&self, profile: &str, checked: &AuditChecked) -> CoreResult<()> {
        let bytes = serde_json::to_vec(checked).map_err(|e| CoreError::internal(e.to_string()))?;
        self.store
            .set(&Self::name(profile, "audit-checked"), &bytes)
    }

    /// Records, once, that an audit entry could not be written (the first reason stays).
    pub fn set_audit_alert(&self, profile: &str, why: &str) -> CoreResult<()> {
        let name = Self::name(profile, "audit-alert");
        if self.store.get(&name)?.is_none() {
            let text: String = why.chars().take(1000).collect();
            self.store.set(&name, text.as_bytes())?;
        }
        Ok(())
    }

    /// Why an audit entry could not be written, if one ever could not.
    pub fn audit_alert(&self, profile: &str) -> CoreResult<Option<String>> {
        Ok(self
            .store
            .get(&Self::name(profile, "audit-alert"))?
            .map(|b| String::from_utf8_lossy(b.expose()).into_owned()))
    }

    fn random_key(&self, profile: &str, what: &str) -> CoreResult<Sensitive<Vec<u8>>> {
        let name = Self::name(profile, what);
        if let Some(k) = self.store.get(&name)?.filter(|k| k.expose().len() == 32) {
            return Ok(k);
        }
        let mut key = vec![0u8; 32];
        aws_lc_rs::rand::fill(&mut key)
            .map_err(|_| CoreError::internal("no random bytes for a key"))?;
        self.store.set(&name, &key)?;
        // Two desks opening at once may both make one: whichever the keyring kept is
        // the key, for both.
        let kept = self.store.get(&name)?.filter(|k| k.expose().len() == 32);
        let mine = Sensitive::new(key);
        Ok(kept.unwrap_or(mine))
    }

    /// Removes every secret of a profile.
    pub fn forget(&self, profile: &str) -> CoreResult<()> {
        for what in [
            "merchant-key",
            "gateway-key",
            "bearer-token",
            "team-password",
            "intent-key",
            "audit-key",
            "audit-anchor",
            "audit-alert",
            "audit-checked",
            "desk-password",
            "seal-key-pin",
        ] {
            self.store.delete(&Self::name(profile, what))?;
        }
        Ok(())
    }

    /// Sets the password that unlocks a single desk holding a live key after its idle
    /// lock: only a PBKDF2-HMAC-SHA256 verifier (random salt) is kept, in the keyring.
    pub fn set_desk_password(&self, profile: &str, password: &str) -> CoreResult<()> {
        if password.chars().count() < DESK_PASSWORD_MIN {
            return Err(CoreError::keyed(
                "password",
                format!("{DESK_PASSWORD_MIN} characters at least"),
                "passwordMin",
                &[("min", DESK_PASSWORD_MIN.to_string())],
            ));
        }
        if password.len() > MAX_SECRET_BYTES {
            return Err(CoreError::keyed(
                "password",
                format!("must be at most {MAX_SECRET_BYTES} bytes"),
                "secretTooLong",
                &[("count", MAX_SECRET_BYTES.to_string())],
            ));
        }
        let mut kept = vec![0u8; 16 + 32];
        aws_lc_rs::rand::fill(&mut kept[..16])
            .map_err(|_| CoreError::internal("no random bytes for a salt"))?;
        let (salt, hash) = kept.split_at_mut(16);
        aws_lc_rs::pbkdf2::derive(
            aws_lc_rs::pbkdf2::PBKDF2_HMAC_SHA256,
            DESK_PASSWORD_ROUNDS,
            salt,
            password.as_bytes(),
            hash,
        );
        self.store.set(&Self::name(profile, "desk-password"), &kept)
    }

    /// Whether a desk password is set for the profile.
    pub fn has_desk_password(&self, profile: &str) -> CoreResult<bool> {
        Ok(self
            .store
            .get(&Self::name(profile, "desk-password"))?
            .is_some_and(|k| k.expose().len() == 48))
    }

    /// Whether `password` is the profile's desk password (false when none is set).
    pub fn check_desk_password(&self, profile: &str, password: &str) -> CoreResult<bool> {
        let Some(kept) = self
            .store
            .get(&Self::name(profile, "desk-password"))?
            .filter(|k| k.expose().len() == 48)
        else {
            return Ok(false);
        };
        let (salt, hash) = kept.expose().split_at(16);
        Ok(aws_lc_rs::pbkdf2::verify(
            aws_lc_rs::pbkdf2::PBKDF2_HMAC_SHA256,
            DESK_PASSWORD_ROUNDS,
            salt,
            password.as_bytes(),
            hash,
        )
        .is_ok())
    }

    pub fn delete_merchant_key(&self, profile: &str) -> CoreResult<()> {
        self.store.delete(&Self::name(profile, "merchant-key"))
    }
}

/// How far the audit chain was found sealed, kept in the keyring (beside the anchor, out
/// of reach of whoever can write the database): the last row checked and its hash, and
/// when the whole chain was last checked. Activity's check reads only the rows after it
/// ([`crate::desk::Journal::audit_check`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditChecked {
    pub last_id: i64,
    pub last_hash: String,
    /// When the whole chain was last checked and found sealed (UTC millis).
    pub whole_at: i64,
}
