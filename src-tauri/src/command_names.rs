// The app's IPC commands, one list shared by the build script (which allow-lists them
// through `AppManifest::commands`) and the tests (which check the capability and the
// invoke handler agree with it).
#[allow(dead_code)]
const COMMANDS: &[&str] = &[
    "app_status",
    "profiles",
    "profile_save",
    "profile_switch",
    "profile_delete",
    "keys",
    "key_import",
    "key_generate",
    "key_delete",
    "gateway_key_set",
    "token_set",
    "dashboard",
    "currencies",
    "state_meanings",
    "orders_page",
    "orders_sync",
    "orders_sync_cancel",
    "order_detail",
    "sandbox_simulate",
    "orders_export",
    "default_export_path",
    "filters_saved",
    "filter_save",
    "filter_delete",
    "balances",
    "balance_history",
];
