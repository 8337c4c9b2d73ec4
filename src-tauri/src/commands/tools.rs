//! Settings → Signing tools: `paydesk verify` and `paydesk sign` in the window (the same
//! `paydesk_api::tools`). A key pair is made in the keyring by `key_generate` (Settings,
//! the profile's keys); a private key never crosses IPC, only signatures do.

use serde::Serialize;
use specta::Type;
use tauri::State;

use super::CmdResult;
use crate::state::AppState;

/// What a signature check found.
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct VerifyResult {
    pub valid: bool,
    /// The canonical string the signature was checked over.
    pub canonical: String,
    /// The SHA-256 fingerprint of the key it was checked with.
    pub key_fingerprint: String,
}

/// A body signed with the active profile's merchant key.
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SignResult {
    pub canonical: String,
    /// Standard base64.
    pub sign: String,
    /// The profile whose key signed.
    pub profile: String,
}

/// Checks `signature` over the JSON object `body` with `publicKey` (PEM or base64 DER),
/// or with the active profile's gateway key when none is given. `exclude`: the top-level
/// keys left out (none: `sign`, `sing`, `signType`); `keepEmpty`: empty values stay in.
#[tauri::command]
#[specta::specta]
pub async fn tools_verify(
    state: State<'_, AppState>,
    body: String,
    signature: String,
    public_key: Option<String>,
    exclude: Option<Vec<String>>,
    keep_empty: bool,
) -> CmdResult<VerifyResult> {
    state.unlocked()?;
    let map = paydesk_api::tools::body("body", &body)?;
    let key = match public_key
        .as_deref()
        .map(str::trim)
        .filter(|k| !k.is_empty())
    {
        Some(text) => paydesk_api::tools::public_key("publicKey", text)?,
        None => paydesk_api::tools::gateway_key(&state.secrets()?, &state.active_profile()?)?,
    };
    let settings = paydesk_api::tools::settings(exclude, keep_empty);
    let v = paydesk_api::tools::verify(&map, &settings, &key, &signature)?;
    Ok(VerifyResult {
        valid: v.valid,
        canonical: v.canonical,
        key_fingerprint: v.key_fingerprint,
    })
}

/// Signs the JSON object `body` with the active profile's merchant key (kept in the
/// keyring); answers the canonical string and the signature.
#[tauri::command]
#[specta::specta]
pub async fn tools_sign(
    state: State<'_, AppState>,
    body: String,
    exclude: Option<Vec<String>>,
    keep_empty: bool,
) -> CmdResult<SignResult> {
    let secrets = state.secrets()?;
    let profile = state.active_profile()?;
    let map = paydesk_api::tools::body("body", &body)?;
    let settings = paydesk_api::tools::settings(exclude, keep_empty);
    let signed = tokio::task::spawn_blocking({
        let profile = profile.clone();
        move || paydesk_api::tools::sign_with_profile(&secrets, &profile, &map, &settings)
    })
    .await
    .map_err(crate::state::internal)??;
    Ok(SignResult {
        canonical: signed.canonical,
        sign: signed.sign,
        profile,
    })
}
