// Every IPC command of the app, declared once: `module::command => [caches]`.
//
// From this one table come the invoke handler and the TypeScript bindings
// (`lib.rs`, `specta_builder`), the allow-list the build script gives Tauri
// (`build.rs`), the capability the main window is granted (`capabilities/main.json`)
// and the UI's map of what each command's answer makes stale
// (`ui/src/lib/invalidates.ts`); the last two are written by `cargo xtask bindings` and
// tests fail while they differ from this table. A command left out here does not exist
// for the UI; a command added here is callable, allowed and invalidating at once.
//
// The caches are the UI's query keys, written as their parts joined by dots ("orders"
// is every orders query, "orders.filters" only the saved filters); "*" is every query.
// They name what the command's answer tells the UI it changed, so the screens refresh
// from here and no hook lists another feature's keys. A read names none.
//
// This file is included by `build.rs` (no crate paths, only the macro) and `lib.rs`.

/// Calls `$then!` with the table. A macro, not a const, so the build script and the
/// crate each expand it their own way: names for one, function paths for the other.
macro_rules! app_commands {
    ($then:ident) => {
        $then! {
            settings::app_status => [],
            settings::profiles => [],
            // A change to profiles, keys or conventions can change everything a screen
            // shows (the desk is opened again with them).
            settings::profile_save => ["*"],
            settings::profile_fields => [],
            settings::conventions => [],
            settings::conventions_save => ["*"],
            settings::conventions_parse => [],
            settings::conventions_preset => [],
            settings::conventions_export => [],
            settings::profile_check => [],
            settings::profile_switch => ["*"],
            settings::profile_delete => ["*"],
            settings::keys => [],
            settings::key_import => ["*"],
            settings::key_check => [],
            settings::key_generate => ["*"],
            settings::key_delete => ["*"],
            settings::gateway_key_set => ["*"],
            settings::token_set => ["*"],
            settings::setup_marks => [],
            orders::dashboard => [],
            orders::currencies => [],
            orders::state_meanings => [],
            orders::orders_page => [],
            // The cache changed (every list, the dashboard, the palette), and the app took
            // a balance snapshot before answering.
            orders::orders_sync => ["orders", "dashboard", "palette", "balances"],
            orders::orders_sync_cancel => [],
            orders::order_detail => [],
            orders::order_customer => [],
            orders::sandbox_simulate => ["orders", "dashboard", "palette"],
            orders::sandbox_actions => [],
            // Orders added at the sandbox's side: the cache has them after a sync.
            orders::sandbox_seed => [],
            orders::order_find => [],
            orders::orders_export => [],
            // Cached orders the gateway answered for are updated (a refresh).
            lookup::orders_lookup => ["orders", "dashboard", "palette"],
            lookup::orders_lookup_cancel => [],
            lookup::orders_lookup_export => [],
            orders::default_export_path => [],
            orders::export_save_as => [],
            orders::file_exists => [],
            // Saved views (issue 36); the saved filter sets of the orders are views now.
            views::views_list => [],
            views::view_last => [],
            views::view_save => ["views"],
            views::view_update => ["views"],
            views::view_delete => ["views"],
            views::view_use => [],
            views::relative_range => [],
            // Asks the gateway and keeps a snapshot.
            balances::balances => ["balances", "dashboard"],
            balances::balance_history => [],
            balances::balances_latest => [],
            balances::balances_overview => [],
            balances::balance_reconcile => [],
            balances::balances_upcoming => [],
            reports::report_statement => [],
            reports::report_export => [],
            reports::report_refresh => ["reports.statement", "reports.failures"],
            reports::report_failures => [],
            reports::report_settings => ["reports.statement"],
            // Scheduled reports (issue 36): their list, and the Dashboard's alerts.
            schedules::schedules => [],
            schedules::schedule_save => ["schedules"],
            schedules::schedule_pause => ["schedules", "dashboard"],
            schedules::schedule_remove => ["schedules", "dashboard"],
            schedules::schedule_run_now => ["schedules", "dashboard"],
            schedules::schedule_runs_seen => ["schedules", "dashboard"],
            activity::audit_list => [],
            activity::audit_verify => [],
            activity::audit_export => [],
            activity::audit_key_lost => [],
            activity::audit_new_log => ["activity"],
            activity::audit_archives => [],
            activity::audit_archived_rows => [],
            // Whatever may have moved money (or sent a document) or settled an outcome:
            // the journal, the cards, the orders and every figure of them.
            money::payin_resend => ["journal", "cards", "dashboard", "orders", "palette", "review"],
            money::order_no_new => [],
            money::pay_url_open => [],
            money::payin_create => ["journal", "cards", "dashboard", "orders", "palette", "review"],
            // The book of payees (issue 35).
            beneficiaries::beneficiaries_list => [],
            beneficiaries::beneficiary_add => ["beneficiaries"],
            beneficiaries::beneficiary_remove => ["beneficiaries"],
            beneficiaries::beneficiary_approve => ["beneficiaries"],
            beneficiaries::payee_approval => [],
            beneficiaries::payee_approval_set => ["beneficiaries"],
            money::payout_preview => [],
            // Issue 35: the balance asked now is kept as a snapshot; limits per profile.
            funds::payout_funds => ["balances", "dashboard"],
            funds::payout_limits => ["funds"],
            money::payout_create => ["journal", "cards", "dashboard", "orders", "palette", "review"],
            money::journal_entry => [],
            money::journal_reconcile => ["journal", "cards", "dashboard", "orders", "palette", "review"],
            money::journal_resolve => ["journal", "cards", "dashboard", "orders", "palette", "review"],
            money::journal_look_up => ["journal", "cards", "dashboard", "orders", "palette", "review"],
            money::payout_resend => ["journal", "cards", "dashboard", "orders", "palette", "review"],
            money::bulk_result_open => [],
            money::journal_list => [],
            money::bulk_check => [],
            money::bulk_template => [],
            money::bulk_fix => [],
            money::bulk_send => ["journal", "cards", "dashboard", "orders", "palette", "review"],
            money::card_move => ["journal", "cards", "dashboard", "orders", "palette", "review"],
            money::cards => [],
            money::card_operations => [],
            records::refund_query => ["reversals"],
            records::order_query => ["reversals"],
            records::reversals => [],
            records::files_pick => [],
            records::review_file_check => [],
            records::review_submit => ["journal", "cards", "dashboard", "orders", "palette", "review"],
            records::review_resend => ["journal", "cards", "dashboard", "orders", "palette", "review"],
            records::review_list => [],
            records::review_queue => [],
            records::review_match => [],
            records::events => [],
            // A new notification: the desk read its order again before keeping it.
            records::notification_latest => ["orders", "dashboard", "reversals", "events"],
            // Looked up as an order's page opens: the order's own detail may have moved.
            records::order_reversals => [],
            records::event_verify => [],
            team::team_status => [],
            team::team_requests => [],
            team::team_request => [],
            team::team_approve => ["team"],
            team::team_reject => ["team"],
            team::team_request_payout => ["team"],
            team::team_request_bulk => ["team"],
            team::team_request_payin => ["team"],
            team::team_request_card => ["team"],
            team::team_test => [],
            team::team_init => [],
            team::team_seal_key => [],
            team::team_trust_seal_key => ["team"],
            team::team_password_set => ["team", "app"],
            team::session_touch => [],
            team::session_lock => [],
            // Unlocked: what the lock hid is read again.
            team::session_unlock => ["*"],
            team::session_state => [],
            team_admin::team_members => [],
            team_admin::team_member_add => ["team"],
            team_admin::team_member_roles => ["team"],
            team_admin::team_member_password => ["team"],
            team_admin::team_member_remove => ["team"],
            team_admin::team_rules => [],
            team_admin::team_rule_set => ["team"],
            team_admin::team_rule_remove => ["team"],
            team_admin::team_default_set => ["team"],
            team_admin::team_limits => [],
            team_admin::team_limit_set => ["team"],
            team_admin::team_worker_status => [],
            team_admin::team_worker_start => ["team"],
            team_admin::team_worker_stop => ["team"],
            lock::desk_lock_settings => [],
            lock::desk_lock_minutes_set => ["lock"],
            // The first password opens the desk the lock screen held: read it all again.
            lock::desk_password_set => ["*"],
            // Alerts (issue 35 item 4): the inbox, its marks, the thresholds; the system's
            // notifications (handed out once by the engine, shown from Rust).
            alerts::alerts_list => [],
            alerts::alerts_mark => ["alerts"],
            alerts::alerts_due => ["alerts"],
            alerts::alert_notify => [],
            alerts::alert_settings => [],
            alerts::alert_settings_save => ["alerts"],
            // Signing tools (issue 32, `paydesk verify` and `sign`): reads, nothing kept.
            tools::tools_verify => [],
            tools::tools_sign => [],
        }
    };
}
