//! Tauri's build step, with every app command allow-listed by name: a command missing
//! from this list (and from `capabilities/main.json`) cannot be called from the UI.

include!("src/command_names.rs");

fn main() {
    let attributes = tauri_build::Attributes::new()
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    if let Err(e) = tauri_build::try_build(attributes) {
        panic!("tauri build step failed: {e:#}");
    }
}
