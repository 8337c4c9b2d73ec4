//! PayDesk's end-to-end scenarios that cross crates, as the project's layout names them
//! (`Cargo.toml, src-tauri, ui, icons, tests, README.md`): the team against a real
//! PostgreSQL server (`team/`: members, roles and rules, the signer's worker, hostile
//! members, the read model on both backends, TLS and client certificates), and the
//! `paydesk` command against the sandbox (`cli/`: the operator's flows in the default
//! conventions, another gateway's conventions and a proxy in front of it; the team
//! through the command in `team/cli/`), and the app's IPC against the team's database
//! (`app/`, Tauri's mock runtime). Their shared set-up: the engine's test support
//! (`crates/core/tests/common`) and the CLI's (`cli/common`). Run by `cargo xtask test`
//! with the rest of the workspace, or alone: `cargo build -p paydesk-cli && cargo
//! nextest run -p paydesk-tests`.
