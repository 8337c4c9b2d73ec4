//! The desktop app from a terminal: `run` (install, build, open on the built-in
//! sandbox), `bindings` (regenerate the UI's TypeScript bindings), `package` (.deb).

use crate::setup::{TEST_PACKAGES, dbus_session_args, ensure_apt, ensure_ui_deps};
use crate::{Result, checks, root, run};

/// Installs what is missing, builds the UI and the app, and opens the app on the
/// built-in sandbox profile with its demo data. Without a desktop session (no D-Bus),
/// a private one with gnome-keyring is started for the keyring; without a display, it
/// says so.
pub fn run_app() -> Result {
    ensure_apt(TEST_PACKAGES)?;
    ensure_ui_deps()?;
    checks::build_ui()?;
    checks::build_app()?;
    let bin = checks::window_test_app();
    let bin = bin.to_string_lossy().into_owned();
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        return Err(format!(
            "no display to open the window on (DISPLAY is not set); the app is built at {bin}"
        ));
    }
    println!(
        "==> opening PayDesk (the built-in sandbox profile is used until you add another in Settings)"
    );
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
        run("PayDesk", &bin, &[])
    } else {
        println!(
            "==> no desktop session: starting a private D-Bus session with gnome-keyring for the keyring"
        );
        let mut args = dbus_session_args();
        args.push(bin);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run("PayDesk", "dbus-run-session", &args)
    }
}

/// Rewrites `ui/src/bindings.ts` from the app's commands and types.
pub fn bindings() -> Result {
    println!("==> regenerating ui/src/bindings.ts (PAYDESK_WRITE_BINDINGS=1)");
    let status = std::process::Command::new("cargo")
        .args([
            "test",
            "--locked",
            "-p",
            "paydesk-app",
            "--test",
            "ipc",
            "the_committed_typescript_bindings_are_current",
        ])
        .env("PAYDESK_WRITE_BINDINGS", "1")
        .current_dir(root())
        .status()
        .map_err(|e| e.to_string())?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("regenerating the bindings failed ({status})"))
    }
}

/// The Linux `.deb` through the npm package of the Tauri CLI (a release build).
pub fn package() -> Result {
    ensure_apt(TEST_PACKAGES)?;
    ensure_ui_deps()?;
    run(
        "building the .deb (tauri build --bundles deb)",
        "ui/node_modules/.bin/tauri",
        &["build", "--bundles", "deb", "--ci"],
    )
}
