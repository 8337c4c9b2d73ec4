//! Tauri's build step, with every app command allow-listed by name: the names come from
//! the one table of commands (`src/registry.rs`), so a command the app registers is a
//! command Tauri knows, and `capabilities/main.json` (generated from the same table)
//! grants it to the main window.

include!("src/registry.rs");

macro_rules! names {
    ($($module:ident :: $command:ident => [$($cache:literal),*]),* $(,)?) => {
        &[$(stringify!($command)),*]
    };
}

const COMMANDS: &[&str] = app_commands!(names);

fn main() {
    println!("cargo:rerun-if-changed=src/registry.rs");
    let attributes = tauri_build::Attributes::new()
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    if let Err(e) = tauri_build::try_build(attributes) {
        panic!("tauri build step failed: {e:#}");
    }
}
