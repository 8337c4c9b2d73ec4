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
    println!(
        "==> regenerating ui/src/bindings.ts, src-tauri/capabilities/main.json and ui/src/lib/invalidates.ts (PAYDESK_WRITE_BINDINGS=1)"
    );
    let status = std::process::Command::new("cargo")
        .args([
            "test",
            "--locked",
            "-p",
            "paydesk-app",
            "--test",
            "app",
            "ipc::generated_",
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

/// The desktop app's benchmark (release build): launch to an interactive dashboard,
/// idle memory, and the IPC round trip of an orders page over 1,000,000 cached orders;
/// then the size of the `.deb` if `cargo xtask package` made one.
pub fn bench_app() -> Result {
    ensure_apt(TEST_PACKAGES)?;
    ensure_ui_deps()?;
    crate::setup::ensure_tauri_driver()?;
    checks::build_ui()?;
    checks::cargo_build_app(true)?;
    let app = root().join("target").join("release").join("paydesk-app");
    let args = checks::window_session(&["node", "bench/app-bench.mjs"]);
    println!("==> the app's benchmark: dbus-run-session … node bench/app-bench.mjs");
    let status = std::process::Command::new("dbus-run-session")
        .args(&args)
        .env("PAYDESK_APP", &app)
        .current_dir(root().join("ui"))
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("the app's benchmark failed ({status})"));
    }
    let bundle = root().join("target/release/bundle/deb");
    for deb in std::fs::read_dir(&bundle).into_iter().flatten().flatten() {
        let size = deb.metadata().map(|m| m.len()).unwrap_or(0);
        println!(
            "package {}: {:.1} MiB",
            deb.file_name().to_string_lossy(),
            size as f64 / 1_048_576.0
        );
    }
    println!(
        "binary {}: {:.1} MiB",
        app.display(),
        std::fs::metadata(&app).map(|m| m.len()).unwrap_or(0) as f64 / 1_048_576.0
    );
    Ok(())
}
