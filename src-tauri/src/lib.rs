//! PayDesk's desktop app: a thin Tauri shell over `paydesk-session` (opening desks, the
//! built-in sandbox and its control) and `paydesk-core` (the desk's services). Commands
//! only adapt (see `commands`), one managed state holds the open desk (`state`),
//! progress travels on IPC channels, and the TypeScript bindings of every command and
//! type are generated from here (`bindings`), committed as `ui/src/bindings.ts`.

pub mod commands;
pub mod generate;
pub mod state;

use tauri::{Manager, Runtime};
use tauri_specta::{Builder, collect_commands};

include!("registry.rs");

/// One command of the app, as `registry.rs` declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Command {
    /// The Rust name, which the allow-list and the invoke handler use (`payout_create`).
    pub name: &'static str,
    /// The UI queries its answer makes stale: query key parts joined by dots, `*` for all.
    pub invalidates: &'static [&'static str],
}

macro_rules! command_table {
    ($($module:ident :: $command:ident => [$($cache:literal),*]),* $(,)?) => {
        &[$(Command { name: stringify!($command), invalidates: &[$($cache),*] }),*]
    };
}

/// Every command of the app, in the order `registry.rs` declares them.
pub const COMMANDS: &[Command] = app_commands!(command_table);

/// The names of the app's commands, as allow-listed by the build script.
pub fn command_names() -> Vec<&'static str> {
    COMMANDS.iter().map(|c| c.name).collect()
}

macro_rules! specta_commands {
    ($($module:ident :: $command:ident => [$($cache:literal),*]),* $(,)?) => {
        collect_commands![$($module::$command),*]
    };
}

/// Every command, for the invoke handler and the bindings.
pub fn specta_builder<R: Runtime>() -> Builder<R> {
    use commands::{
        activity, alerts, balances, beneficiaries, funds, lock, lookup, money, orders, records,
        reports, schedules, settings, team, team_admin, tools, views,
    };
    Builder::<R>::new()
        .commands(app_commands!(specta_commands))
        // Amounts travel as decimal strings; the integers that cross (counts, millis)
        // stay below 2^53.
        .dangerously_cast_bigints_to_number()
}

/// Where the committed bindings live, relative to this crate.
pub const BINDINGS_PATH: &str = "../ui/src/bindings.ts";

/// Writes the TypeScript bindings to `path`.
pub fn export_bindings(path: &std::path::Path) -> Result<(), String> {
    specta_builder::<tauri::Wry>()
        .export(
            specta_typescript::Typescript::default().header(
                "// Generated from Rust by tauri-specta (`cargo xtask bindings`). Do not edit.\n",
            ),
            path,
        )
        .map_err(|e| e.to_string())
}

/// The native file dialogs (`tauri-plugin-dialog`, from Rust only).
fn pick(app: &tauri::AppHandle, pick: state::Pick) -> Vec<std::path::PathBuf> {
    use tauri_plugin_dialog::DialogExt;
    let d = app.dialog().file();
    let purpose = match pick {
        state::Pick::Open(purpose) => purpose,
        state::Pick::Save {
            extension,
            suggested,
        } => {
            let d = match suggested.parent() {
                Some(dir) => d.set_directory(dir),
                None => d,
            };
            let name = suggested
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            return d
                .add_filter(extension.to_ascii_uppercase(), &[extension])
                .set_file_name(name)
                .blocking_save_file()
                .and_then(|p| p.into_path().ok())
                .into_iter()
                .collect();
        }
    };
    let picked = match purpose {
        state::PickPurpose::Review => d
            .add_filter("PNG, JPEG, PDF", &["png", "jpg", "jpeg", "pdf"])
            .blocking_pick_files()
            .unwrap_or_default(),
        state::PickPurpose::Bulk => d
            .add_filter("CSV", &["csv"])
            .blocking_pick_file()
            .into_iter()
            .collect(),
    };
    picked
        .into_iter()
        .filter_map(|p| p.into_path().ok())
        .collect()
}

/// With `PAYDESK_SOFTWARE_RENDERING=1`, draws the web view without GPU compositing:
/// WebKitGTK's compositor holds about 90 MiB of layers in the web process even while
/// idle, and without it the desk's screens still paint on the CPU; the first screen
/// takes about 0.3 s longer (BENCHMARKS.md), so it is a choice, not the default. It
/// also helps where a GPU driver leaves WebKitGTK's window blank. (WebKitWebDriver's
/// screenshots of a still page then wait for a new frame and time out: the window tests
/// run with compositing.) Other platforms' web views are left as they are.
fn software_rendering<R: Runtime>(window: &tauri::WebviewWindow<R>) {
    #[cfg(target_os = "linux")]
    if std::env::var("PAYDESK_SOFTWARE_RENDERING").as_deref() == Ok("1") {
        let done = window.with_webview(|view| {
            use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt, WebViewExt};
            if let Some(settings) = WebViewExt::settings(&view.inner()) {
                settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
            }
        });
        if let Err(e) = done {
            tracing::warn!("the web view keeps GPU compositing: {e}");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = window;
}

/// Runs the app.
pub fn run() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
                "paydesk=info,paydesk_core=info,paydesk_session=info,warn".into()
            }),
        )
        .init();
    let state = match state::AppState::from_env() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("PayDesk cannot start: {e}");
            std::process::exit(5);
        }
    };
    let builder = specta_builder::<tauri::Wry>();
    let app = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_notification::init())
        .manage(state)
        .manage(commands::team_admin::Worker::default())
        .invoke_handler(builder.invoke_handler())
        .setup(move |app| {
            builder.mount_events(app);
            // The system's notifications for alerts, through the notification plugin.
            let notify = app.handle().clone();
            app.manage(commands::alerts::Notifier(Box::new(move |title, body| {
                use tauri_plugin_notification::NotificationExt;
                notify
                    .notification()
                    .builder()
                    .title(title)
                    .body(body)
                    .show()
                    .map_err(|e| e.to_string())
            })));
            if let Some(window) = app.get_webview_window("main") {
                software_rendering(&window);
            }
            let handle = app.handle().clone();
            app.state::<state::AppState>()
                .set_picker(state::Picker(Box::new(move |asked| pick(&handle, asked))));
            // Open the active profile's desk while the web view loads the UI: its first
            // command then finds it open.
            let warm = app.handle().clone();
            tauri::async_runtime::spawn(async move {
                if let Err(e) = warm.state::<state::AppState>().desk().await {
                    tracing::warn!("the desk did not open at start: {e}");
                }
            });
            // Idle: hand SQLite's page caches back, so the app's resident memory is
            // not the high-water mark of its last big query.
            let idle = app.handle().clone();
            tauri::async_runtime::spawn(async move {
                loop {
                    tokio::time::sleep(std::time::Duration::from_secs(5)).await;
                    idle.state::<state::AppState>()
                        .release_if_idle(std::time::Duration::from_secs(5))
                        .await;
                }
            });
            // Balance history on a schedule (the profile's `balancesEveryMins`) while
            // the desk runs.
            let scheduled = app.handle().clone();
            tauri::async_runtime::spawn(async move {
                loop {
                    tokio::time::sleep(std::time::Duration::from_secs(60)).await;
                    scheduled.state::<state::AppState>().snapshot_if_due().await;
                }
            });
            // Scheduled reports while the desk runs (a run missed while it was closed is
            // caught up at the first look).
            let reports = app.handle().clone();
            tauri::async_runtime::spawn(async move {
                loop {
                    tokio::time::sleep(std::time::Duration::from_secs(10)).await;
                    reports.state::<state::AppState>().reports_if_due().await;
                }
            });
            Ok(())
        })
        .build(tauri::generate_context!());
    match app {
        Ok(app) => app.run(|_, _| {}),
        Err(e) => {
            eprintln!("PayDesk cannot start its window: {e}");
            std::process::exit(5);
        }
    }
}
