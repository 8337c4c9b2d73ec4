//! The app's integration tests, against the real keyring (the tests run inside a private
//! D-Bus session with gnome-keyring) and real files: its IPC through Tauri's mock runtime
//! (`ipc`: the capability, the bindings, secrets, errors) and the idle lock of a single
//! desk through the app's state (`desk_lock`). One test binary with a module per subject:
//! each test binary links the whole graph again (BENCHMARKS.md, *CI time*). A test is
//! named by its module: `ipc::…`; under nextest each test still runs in a process of its
//! own. `cargo xtask bindings` runs `ipc::generated_…` to write the bindings.

mod desk_lock;
mod ipc;
