//! Settings: the app's status, profiles and their keys. No command returns key
//! material but public keys and fingerprints.

use paydesk_core::Profile;
use paydesk_core::profile::NotifyTarget;
use paydesk_core::secrets::KeyInfo;
use serde::Serialize;
use specta::Type;
use tauri::State;

use super::CmdResult;
use crate::state::AppState;

/// What the banner and the status bar show.
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AppStatus {
    pub profile: Profile,
    /// The built-in sandbox: no real money moves.
    pub sandbox: bool,
    /// The gateway's address this desk talks to.
    pub base_url: String,
    pub keyring_service: String,
    /// Where the gateway is told to send notifications about orders made here.
    pub notify: NotifyTarget,
    pub version: String,
}

#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Profiles {
    pub active: String,
    pub profiles: Vec<Profile>,
}

/// A profile's keys as the UI may see them.
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Keys {
    pub merchant: Option<KeyInfo>,
    pub gateway: Option<KeyInfo>,
    pub has_token: bool,
}

#[tauri::command]
#[specta::specta]
pub async fn app_status(state: State<'_, AppState>) -> CmdResult<AppStatus> {
    let desk = state.desk().await?;
    Ok(AppStatus {
        profile: desk.profile.clone(),
        sandbox: desk.profile.is_sandbox(),
        base_url: desk.base_url().to_string(),
        keyring_service: state.service().to_string(),
        notify: desk.records().notify_target(),
        version: env!("CARGO_PKG_VERSION").to_string(),
    })
}

#[tauri::command]
#[specta::specta]
pub async fn profiles(state: State<'_, AppState>) -> CmdResult<Profiles> {
    state.unlocked()?;
    Ok(Profiles {
        active: state.active_profile()?,
        profiles: state.home().profiles()?,
    })
}

/// Adds or edits a profile (`previous` is its name before an edit). The built-in
/// sandbox's gateway address cannot be set.
#[tauri::command]
#[specta::specta]
pub async fn profile_save(
    state: State<'_, AppState>,
    profile: Profile,
    previous: Option<String>,
) -> CmdResult<()> {
    state.unlocked()?;
    let name = profile.name.clone();
    state.home().save_profile(profile, previous.as_deref())?;
    state.close_if(&name).await;
    Ok(())
}

/// A profile's form checked as it is typed: every field's problem at once, and what its
/// base URL makes of a request.
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ProfileFields {
    pub problems: Vec<paydesk_core::profile::FieldProblem>,
    pub base_url: Option<paydesk_core::profile::BaseUrlPreview>,
}

#[tauri::command]
#[specta::specta]
pub async fn profile_fields(
    state: State<'_, AppState>,
    profile: Profile,
    previous: Option<String>,
) -> CmdResult<ProfileFields> {
    Ok(ProfileFields {
        problems: state.home().profile_problems(&profile, previous.as_deref()),
        base_url: profile
            .base_url
            .as_deref()
            .and_then(Profile::base_url_preview),
    })
}

#[tauri::command]
#[specta::specta]
pub async fn profile_switch(state: State<'_, AppState>, name: String) -> CmdResult<AppStatus> {
    state.unlocked()?;
    state.home().get(&name)?;
    state.home().activate(&name)?;
    state.close().await;
    app_status(state).await
}

/// Removes a profile and its secrets (its cache file stays on disk).
#[tauri::command]
#[specta::specta]
pub async fn profile_delete(state: State<'_, AppState>, name: String) -> CmdResult<()> {
    state.home().remove_profile(&state.secrets()?, &name)
}

#[tauri::command]
#[specta::specta]
pub async fn keys(state: State<'_, AppState>, profile: String) -> CmdResult<Keys> {
    let secrets = state.secrets()?;
    Ok(Keys {
        merchant: secrets.merchant_key_info(&profile)?,
        gateway: secrets.gateway_key(&profile)?.map(|k| KeyInfo::of(&k)),
        has_token: secrets.bearer(&profile)?.is_some(),
    })
}

/// Imports the merchant's private key (PEM PKCS#8 or PKCS#1, or bare base64 DER);
/// answers with its public half.
#[tauri::command]
#[specta::specta]
pub async fn key_import(
    state: State<'_, AppState>,
    profile: String,
    text: String,
) -> CmdResult<KeyInfo> {
    let text = zeroize::Zeroizing::new(text);
    state.home().get(&profile)?;
    let info = state.secrets()?.import_merchant_key(&profile, &text)?;
    state.close_if(&profile).await;
    Ok(info)
}

/// Reads a private key's text as an import would and answers with its public half;
/// nothing is kept (the form checks the text before asking to replace a key).
#[tauri::command]
#[specta::specta]
pub async fn key_check(text: String) -> CmdResult<KeyInfo> {
    let text = zeroize::Zeroizing::new(text);
    paydesk_core::Secrets::private_key_info(&text)
}

#[tauri::command]
#[specta::specta]
pub async fn key_generate(
    state: State<'_, AppState>,
    profile: String,
    bits: u32,
) -> CmdResult<KeyInfo> {
    state.home().get(&profile)?;
    let secrets = state.secrets()?;
    let info =
        tokio::task::spawn_blocking(move || secrets.generate_merchant_key(&profile, bits as usize))
            .await
            .map_err(crate::state::internal)??;
    state.close().await;
    Ok(info)
}

#[tauri::command]
#[specta::specta]
pub async fn key_delete(state: State<'_, AppState>, profile: String) -> CmdResult<()> {
    state.secrets()?.delete_merchant_key(&profile)?;
    state.close_if(&profile).await;
    Ok(())
}

/// The gateway's public key, for checking the signatures of its answers.
#[tauri::command]
#[specta::specta]
pub async fn gateway_key_set(
    state: State<'_, AppState>,
    profile: String,
    text: String,
) -> CmdResult<KeyInfo> {
    state.home().get(&profile)?;
    let info = state.secrets()?.set_gateway_key(&profile, &text)?;
    state.close_if(&profile).await;
    Ok(info)
}

#[tauri::command]
#[specta::specta]
pub async fn token_set(
    state: State<'_, AppState>,
    profile: String,
    token: String,
) -> CmdResult<()> {
    let token = zeroize::Zeroizing::new(token);
    state.home().get(&profile)?;
    state.secrets()?.set_bearer(&profile, token.trim())?;
    state.close_if(&profile).await;
    Ok(())
}

/// A profile's live set-up marks (the public key given to the gateway, the last
/// connection check), kept with the profile so every window and desk of it shows them;
/// `set` replaces them first.
#[tauri::command]
#[specta::specta]
pub async fn setup_marks(
    state: State<'_, AppState>,
    profile: String,
    set: Option<paydesk_core::profile::SetupMarks>,
) -> CmdResult<paydesk_core::profile::SetupMarks> {
    state.unlocked()?;
    let home = state.home();
    if let Some(marks) = set {
        home.set_setup_marks(&profile, marks)?;
    }
    home.setup_marks(&profile)
}

/// A profile's gateway conventions (the sandbox's reading until set).
#[tauri::command]
#[specta::specta]
pub async fn conventions(
    state: State<'_, AppState>,
    profile: String,
) -> CmdResult<paydesk_gateway::Conventions> {
    state.unlocked()?;
    state.home().conventions(&profile)
}

/// Saves a profile's gateway conventions, checked member by member; the profile's desk
/// opens again with them.
#[tauri::command]
#[specta::specta]
pub async fn conventions_save(
    state: State<'_, AppState>,
    profile: String,
    conventions: paydesk_gateway::Conventions,
) -> CmdResult<()> {
    state.unlocked()?;
    state.home().set_conventions(&profile, conventions)?;
    state.close_if(&profile).await;
    Ok(())
}

/// Reads a conventions file's text (as `paydesk profile conventions export` writes it),
/// naming the member and the rule on a mistake; nothing is saved.
#[tauri::command]
#[specta::specta]
pub async fn conventions_parse(text: String) -> CmdResult<paydesk_gateway::Conventions> {
    paydesk_gateway::Conventions::from_json(&text).map_err(paydesk_core::CoreError::from)
}

/// The sandbox's reading, to start a set from or go back to.
#[tauri::command]
#[specta::specta]
pub async fn conventions_preset() -> CmdResult<paydesk_gateway::Conventions> {
    Ok(paydesk_gateway::Conventions::sandbox())
}

/// Writes a profile's conventions to a JSON file (a team shares one).
#[tauri::command]
#[specta::specta]
pub async fn conventions_export(
    state: State<'_, AppState>,
    profile: String,
    path: String,
    overwrite: bool,
) -> CmdResult<()> {
    state.unlocked()?;
    let c = state.home().conventions(&profile)?;
    let path = super::export_target(&path, overwrite)?;
    paydesk_core::output::write(
        &path,
        paydesk_core::output::Existing::replace_if(overwrite),
        (c.to_json() + "\n").as_bytes(),
    )
}

/// Checks a profile's connection with no money moved (see
/// `paydesk_core::desk::Money::check_connection`).
#[tauri::command]
#[specta::specta]
pub async fn profile_check(
    state: State<'_, AppState>,
    profile: String,
    currency: Option<String>,
) -> CmdResult<paydesk_core::desk::ConnectionCheck> {
    let open = state.desk_of(&profile).await?;
    open.desk()
        .money()
        .check_connection(currency.as_deref())
        .await
}
