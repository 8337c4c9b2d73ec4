//! Installing what the checks and the app need: system packages (apt-get), cargo
//! tools, the UI's npm packages, tauri-driver; and the private D-Bus session with
//! gnome-keyring that tests and the app use where no desktop session runs.

use std::process::Command;

use crate::{Result, have, root, run};

pub fn cargo_has(sub: &str) -> bool {
    Command::new("cargo")
        .args([sub, "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Installs a cargo tool from crates.io if it is missing.
pub fn ensure_cargo_tool(sub: &str, krate: &str, version: &str) -> Result {
    if cargo_has(sub) {
        println!("==> {krate} is installed");
        return Ok(());
    }
    run(
        &format!("installing {krate} (missing)"),
        "cargo",
        &["install", krate, "--locked", "--version", version],
    )
}

/// Debian packages the checks need; installs the missing ones with apt-get.
pub fn ensure_apt(packages: &[&str]) -> Result {
    let missing: Vec<&str> = packages
        .iter()
        .copied()
        .filter(|p| {
            !Command::new("dpkg-query")
                .args(["-W", "-f=${Status}", p])
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
        })
        .collect();
    if missing.is_empty() {
        println!("==> system packages present: {}", packages.join(" "));
        return Ok(());
    }
    if !have("apt-get") {
        return Err(format!(
            "missing system packages {} and no apt-get to install them; install them with your package manager",
            missing.join(" ")
        ));
    }
    run("refreshing the package lists", "apt-get", &["update", "-q"])?;
    let mut args = vec!["install", "-y", "-q", "--no-install-recommends"];
    args.extend(&missing);
    run(
        &format!("installing {}", missing.join(" ")),
        "apt-get",
        &args,
    )
}

/// The system packages the whole test suite needs: a C toolchain, libdbus for the
/// keyring's Secret Service client, a session bus with gnome-keyring for the tests that
/// use the real keyring, WebKitGTK to build the desktop app, and Xvfb with
/// WebKitWebDriver for the tests in its real window.
pub const TEST_PACKAGES: &[&str] = &[
    "build-essential",
    "pkg-config",
    "curl",
    "libdbus-1-dev",
    "dbus",
    "dbus-x11",
    "gnome-keyring",
    "libwebkit2gtk-4.1-dev",
    "xvfb",
    "xauth",
    "webkit2gtk-driver",
    // The team desk's tests start a scratch PostgreSQL server from it (paydesk-testpg).
    "postgresql",
    // Chinese in the window tests' screenshots (Xvfb has no CJK font of its own), and the
    // font the statement PDF embeds for a name in Chinese (its test needs one).
    "fonts-noto-cjk",
    // The window tests (and the storage test of a second program reading an open
    // desk's cache) read a desk's SQLite file as another program would.
    "sqlite3",
];

/// Inside the session bus that `dbus-run-session` made (with `xtask/dbus-session.conf`:
/// no service activation), keeps gnome-keyring's Secret Service running and unlocked,
/// with its keyrings in a fresh folder: if it ever exits, it is started again with the
/// same folder and password, so the tests' secrets survive it. Waits until it owns its
/// bus name, runs the command, then stops it (its own process group).
pub const WITH_KEYRING: &str = "d=$(mktemp -d); \
    setsid sh -c 'while :; do echo -n paydesk-test | XDG_DATA_HOME=\"$0\" gnome-keyring-daemon --foreground --unlock --components=secrets; sleep 0.1; done' \"$d\" >/dev/null 2>&1 & \
    keeper=$!; \
    for i in $(seq 50); do \
      dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true && break; \
      sleep 0.1; \
    done; \
    \"$@\"; rc=$?; \
    kill -- -$keeper 2>/dev/null; \
    exit $rc";

/// `dbus-run-session` with the project's session configuration.
pub fn dbus_session_args() -> Vec<String> {
    let conf = root().join("xtask").join("dbus-session.conf");
    vec![
        format!("--config-file={}", conf.display()),
        "--".into(),
        "sh".into(),
        "-c".into(),
        WITH_KEYRING.into(),
        "sh".into(),
    ]
}

/// Node.js 20 or newer with npm (the UI's tools need it).
fn ensure_node() -> Result {
    let version = Command::new("node")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let major = version
        .as_deref()
        .and_then(|v| v.trim_start_matches('v').split('.').next())
        .and_then(|m| m.parse::<u32>().ok());
    match major {
        Some(m) if m >= 20 && have("npm") => {
            println!("==> node {} and npm are installed", version.unwrap_or_default());
            Ok(())
        }
        _ => Err(
            "Node.js 20 or newer with npm is needed for the UI (https://nodejs.org or your package manager)"
                .into(),
        ),
    }
}

/// The UI's npm packages, installed at the versions of `ui/package-lock.json` when
/// missing or older than the lock file. (`npm install --no-save` rather than `npm ci`:
/// the lock made on Linux leaves out other platforms' optional packages, which
/// `npm ci` counts as out of sync.)
pub fn ensure_ui_deps() -> Result {
    ensure_node()?;
    let ui = root().join("ui");
    let installed = ui.join("node_modules").join(".package-lock.json");
    let modified = |p: &std::path::Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let current = match (
        modified(&installed),
        modified(&ui.join("package-lock.json")),
    ) {
        (Some(i), Some(l)) => i >= l,
        _ => false,
    };
    if current {
        println!("==> the UI's npm packages are installed");
        return Ok(());
    }
    run(
        "installing the UI's npm packages (ui/package-lock.json)",
        "npm",
        &[
            "install",
            "--no-save",
            "--prefix",
            "ui",
            "--no-audit",
            "--no-fund",
        ],
    )
}

/// tauri-driver, the WebDriver bridge to the app's window.
pub fn ensure_tauri_driver() -> Result {
    let installed = Command::new("tauri-driver")
        .arg("--help")
        .output()
        .is_ok_and(|o| o.status.success());
    if installed {
        println!("==> tauri-driver is installed");
        return Ok(());
    }
    run(
        "installing tauri-driver (missing)",
        "cargo",
        &["install", "tauri-driver", "--locked", "--version", "^2"],
    )
}

pub fn setup() -> Result {
    ensure_apt(TEST_PACKAGES)?;
    ensure_cargo_tool("deny", "cargo-deny", "0.20.2")?;
    ensure_cargo_tool("nextest", "cargo-nextest", "0.9.143")?;
    ensure_tauri_driver()?;
    // Every locked crate, for every platform: a build fetches only this machine's, and
    // the layering test reads the whole graph offline (`cargo metadata --offline`).
    crate::run(
        "fetching every locked crate (cargo fetch --locked)",
        "cargo",
        &["fetch", "--locked"],
    )?;
    ensure_ui_deps()
}
