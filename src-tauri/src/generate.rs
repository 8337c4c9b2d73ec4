//! The files written from the table of commands (`registry.rs`) besides the bindings:
//! the main window's capability and the UI's invalidation map. `cargo xtask bindings`
//! writes them; tests fail while the committed ones differ from what this writes.

use crate::COMMANDS;

/// Where the main window's capability lives, relative to this crate.
pub const CAPABILITY_PATH: &str = "capabilities/main.json";

/// Where the UI's invalidation map lives, relative to this crate.
pub const INVALIDATES_PATH: &str = "../ui/src/lib/invalidates.ts";

/// The one capability: the main window may call the app's commands and listen to its
/// events, and nothing else (no fs, shell, dialog or opener plugin).
pub fn capability() -> String {
    #[derive(serde::Serialize)]
    struct Capability {
        #[serde(rename = "$schema")]
        schema: &'static str,
        identifier: &'static str,
        description: &'static str,
        windows: [&'static str; 1],
        permissions: Vec<String>,
    }
    let permissions = ["core:event:allow-listen", "core:event:allow-unlisten"]
        .into_iter()
        .map(String::from)
        .chain(
            COMMANDS
                .iter()
                .map(|c| format!("allow-{}", c.name.replace('_', "-"))),
        )
        .collect();
    let cap = Capability {
        schema: "../gen/schemas/desktop-schema.json",
        identifier: "main",
        description: "The main window: PayDesk's own commands and listening to the window's \
                      file drops, nothing else (no fs, shell, dialog or opener plugin). \
                      Generated from src-tauri/src/registry.rs by `cargo xtask bindings`.",
        windows: ["main"],
        permissions,
    };
    let mut text = serde_json::to_string_pretty(&cap).expect("a capability serializes");
    text.push('\n');
    text
}

/// A command's name as the bindings call it (`payout_create` → `payoutCreate`).
pub fn camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for ch in name.chars() {
        if ch == '_' {
            upper = true;
        } else if upper {
            out.extend(ch.to_uppercase());
            upper = false;
        } else {
            out.push(ch);
        }
    }
    out
}

/// The UI's map from each command (as the bindings name it) to the query keys its
/// answer makes stale; `satisfies` makes the compiler hold it to the bindings' commands.
pub fn invalidation_map() -> String {
    let mut ts = String::from(
        "// Generated from src-tauri/src/registry.rs (`cargo xtask bindings`). Do not edit.\n\
         import type { commands } from \"../bindings\";\n\
         \n\
         /// What each command's answer makes stale: query keys as their parts joined by\n\
         /// dots (\"orders\" is every orders query), \"*\" for every query.\n\
         export const invalidates = {\n",
    );
    for c in COMMANDS {
        let caches: Vec<String> = c.invalidates.iter().map(|k| format!("\"{k}\"")).collect();
        ts.push_str(&format!("  {}: [{}],\n", camel(c.name), caches.join(", ")));
    }
    ts.push_str("} as const satisfies Record<keyof typeof commands, readonly string[]>;\n");
    ts.push_str("\nexport type CommandName = keyof typeof invalidates;\n");
    ts
}
