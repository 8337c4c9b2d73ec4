//! The app's IPC through Tauri's mock runtime, against the real keyring (the tests run
//! inside a private D-Bus session with gnome-keyring) and real SQLite files: commands
//! answer typed results, every error crosses as `{ "code": ... }`, no key material
//! leaves the backend, the capability allows exactly the app's commands, the CSP is
//! strict, and the committed TypeScript bindings are current.

use std::path::Path;

use paydesk_app::state::AppState;
use paydesk_core::Home;
use serde_json::{Value, json};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{
    INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder, mock_context, noop_assets,
};
use tauri::webview::{InvokeRequest, WebviewWindow};

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

struct Fixture {
    _app: tauri::App<MockRuntime>,
    window: WebviewWindow<MockRuntime>,
    _home: tempfile::TempDir,
}

/// The app on a fresh home, with its secrets under a keyring service of its own.
fn app(test: &str) -> Fixture {
    let home = tempfile::tempdir().expect("temp dir");
    let service = format!("PayDesk-app-test-{test}-{}", std::process::id());
    let state = AppState::new(Home::at(home.path()), &service);
    let builder = paydesk_app::specta_builder::<MockRuntime>();
    let app = mock_builder()
        .manage(state)
        .invoke_handler(builder.invoke_handler())
        .build(mock_context(noop_assets()))
        .expect("mock app");
    let window = tauri::WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .expect("mock window");
    Fixture {
        _app: app,
        window,
        _home: home,
    }
}

fn invoke(f: &Fixture, cmd: &str, args: Value) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().expect("url"),
        body: InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(&f.window, request).map(|body| body.deserialize::<Value>().expect("json body"))
}

fn empty_filter() -> Value {
    json!({ "states": [], "currencies": [], "methods": [], "sort": "created", "descending": true })
}

#[test]
fn the_built_in_sandbox_opens_and_its_orders_page_through_ipc() {
    let f = app("open");
    let status = invoke(&f, "app_status", json!({})).expect("app_status");
    assert_eq!(status["sandbox"], true);
    assert_eq!(status["profile"]["name"], "sandbox");
    assert!(
        status["baseUrl"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:")
    );

    let report = invoke(&f, "dashboard", json!({})).expect("dashboard");
    assert_eq!(report["cachedOrders"], 0, "nothing is cached before a sync");

    let page = invoke(
        &f,
        "orders_page",
        json!({ "filter": empty_filter(), "offset": 0, "limit": 50 }),
    )
    .expect("orders_page");
    assert_eq!(page["total"], 0);

    let meanings = invoke(&f, "state_meanings", json!({})).expect("state_meanings");
    let success = meanings
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["field"] == "orderState" && m["raw"] == "5")
        .expect("order state 5");
    assert_eq!(success["meaning"], "success");
}

#[test]
fn errors_cross_ipc_as_objects_with_a_stable_code_and_the_field() {
    let f = app("errors");
    let err = invoke(
        &f,
        "key_import",
        json!({ "profile": "sandbox", "text": "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----" }),
    );
    // The sandbox profile does not exist until the desk first opens.
    let err = err.expect_err("import into a missing profile");
    assert_eq!(err["code"], "not_found", "{err}");

    invoke(&f, "app_status", json!({})).expect("open the sandbox");
    let err = invoke(
        &f,
        "key_import",
        json!({ "profile": "sandbox", "text": "definitely not a key" }),
    )
    .expect_err("garbage key");
    assert_eq!(err["code"], "validation", "{err}");
    assert!(
        err["field"].as_str().is_some_and(|f| !f.is_empty()),
        "{err}"
    );
    assert!(err["rule"].as_str().is_some_and(|r| !r.is_empty()), "{err}");

    let err = invoke(&f, "profile_switch", json!({ "name": "nobody" })).expect_err("unknown");
    assert_eq!(err["code"], "not_found");

    let err = invoke(
        &f,
        "orders_page",
        json!({ "filter": { "minAmount": "12,5" }, "offset": 0, "limit": 10 }),
    )
    .expect_err("bad amount");
    assert_eq!(err["code"], "validation");
    assert_eq!(err["field"], "minAmount");

    let err = invoke(
        &f,
        "profile_save",
        json!({ "profile": {
            "name": "live", "baseUrl": "http://gateway.example.com", "merNo": 7,
            "origin": "https://shop.example.com"
        }, "previous": null }),
    )
    .expect_err("plain http to a remote gateway");
    assert_eq!(err["code"], "validation");
    assert_eq!(err["field"], "baseUrl");

    let err = invoke(
        &f,
        "key_generate",
        json!({ "profile": "sandbox", "bits": 1024 }),
    )
    .expect_err("weak key");
    assert_eq!(
        err,
        json!({
            "code": "validation", "field": "bits", "rule": "must be 2048, 3072 or 4096",
            "ruleKey": "keyBits"
        })
    );
}

#[test]
fn no_ipc_result_carries_private_key_material() {
    let f = app("secrets");
    invoke(&f, "app_status", json!({})).expect("open");
    let keys = invoke(&f, "keys", json!({ "profile": "sandbox" })).expect("keys");
    let text = keys.to_string();
    assert!(keys["merchant"]["fingerprint"].as_str().is_some(), "{text}");
    assert!(
        keys["merchant"]["public_pem"]
            .as_str()
            .unwrap()
            .contains("PUBLIC KEY")
    );
    assert!(
        !text.contains("PRIVATE"),
        "a private key crossed IPC: {text}"
    );
    assert_eq!(keys["hasToken"], true);
    assert!(!text.contains("sbx_"), "the bearer token crossed IPC");

    let profiles = invoke(&f, "profiles", json!({}))
        .expect("profiles")
        .to_string();
    assert!(!profiles.contains("PRIVATE") && !profiles.contains("sbx_"));
    let status = invoke(&f, "app_status", json!({}))
        .expect("status")
        .to_string();
    assert!(!status.contains("PRIVATE") && !status.contains("sbx_"));

    // The signing tools (issue 32): a body signed with the profile's key in the keyring
    // answers only the signature, which its public key (as `keys` shows it) verifies and
    // the gateway's key (the default) does not.
    let body = r#"{"merNo":"10001","amount":"10.00","sign":"old"}"#;
    let signed = invoke(
        &f,
        "tools_sign",
        json!({ "body": body, "exclude": null, "keepEmpty": false }),
    )
    .expect("tools_sign");
    assert_eq!(signed["canonical"], "amount=10.00&merNo=10001");
    assert!(!signed.to_string().contains("PRIVATE"), "{signed}");
    let check = |public_key: Value| {
        invoke(
            &f,
            "tools_verify",
            json!({ "body": body, "signature": signed["sign"], "publicKey": public_key,
                    "exclude": null, "keepEmpty": false }),
        )
        .expect("tools_verify")
    };
    let ours = check(keys["merchant"]["public_pem"].clone());
    assert_eq!(ours["valid"], true, "{ours}");
    assert_eq!(ours["keyFingerprint"], keys["merchant"]["fingerprint"]);
    assert_eq!(check(Value::Null)["valid"], false);
}

#[test]
fn profiles_are_added_validated_and_kept_apart_from_the_sandbox() {
    let f = app("profiles");
    invoke(&f, "app_status", json!({})).expect("open");
    let live = json!({
        "name": "acme", "baseUrl": "https://gateway.example.com", "merNo": 20001,
        "origin": "https://shop.example.com", "lang": "en", "orderType": null,
        "signSettings": { "excludedKeys": ["sign"], "skipEmpty": true },
        "stateOverrides": {}, "operator": "ana", "notifyUrl": ""
    });
    // A real gateway's profile needs a notification URL (or the desk's receiver).
    let err = invoke(
        &f,
        "profile_save",
        json!({ "profile": live, "previous": null }),
    )
    .expect_err("no notifyUrl");
    assert_eq!(err["field"], "notifyUrl", "{err}");
    let mut live = live;
    live["notifyUrl"] = json!("https://shop.example.com/paydesk/notify");
    invoke(
        &f,
        "profile_save",
        json!({ "profile": live, "previous": null }),
    )
    .expect("add");
    let err = invoke(
        &f,
        "profile_save",
        json!({ "profile": live, "previous": null }),
    )
    .expect_err("a second profile of the same name");
    assert_eq!(err["field"], "name");
    let list = invoke(&f, "profiles", json!({})).expect("profiles");
    assert_eq!(list["active"], "sandbox");
    let names: Vec<&str> = list["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["acme", "sandbox"], "listed by name");
    let err = invoke(&f, "profile_delete", json!({ "name": "sandbox" })).expect_err("active");
    assert_eq!(err["code"], "validation");
    invoke(&f, "profile_delete", json!({ "name": "acme" })).expect("delete");
}

#[test]
fn export_refuses_a_relative_path_naming_the_field() {
    let f = app("export");
    // The progress channel is never reached: the path is checked first.
    let err = invoke(
        &f,
        "orders_export",
        json!({ "filter": empty_filter(), "path": "orders.csv", "overwrite": false, "timeZone": "UTC", "onProgress": "__CHANNEL__:1" }),
    )
    .expect_err("relative path");
    assert_eq!(err["code"], "validation", "{err}");
    assert_eq!(err["field"], "path");

    // A file already there is never replaced without the user's yes: refused, named,
    // and left as it was; the UI asks first (`file_exists`).
    let dir = tempfile::tempdir().unwrap();
    let there = dir.path().join("orders.csv");
    std::fs::write(&there, "kept").unwrap();
    let path = there.display().to_string();
    assert_eq!(
        invoke(&f, "file_exists", json!({ "path": path })).unwrap(),
        json!(true)
    );
    let err = invoke(
        &f,
        "orders_export",
        json!({ "filter": empty_filter(), "path": path, "overwrite": false, "timeZone": "UTC", "onProgress": "__CHANNEL__:1" }),
    )
    .expect_err("a file is there");
    assert_eq!(err["field"], "path", "{err}");
    assert!(
        err["rule"].as_str().unwrap().contains("already there"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&there).unwrap(), "kept");
    let err = invoke(
        &f,
        "audit_export",
        json!({ "filter": {}, "path": path, "overwrite": false }),
    )
    .expect_err("a file is there");
    assert_eq!(err["field"], "path", "{err}");
    assert_eq!(std::fs::read_to_string(&there).unwrap(), "kept");
}

#[test]
fn the_capability_allows_exactly_the_app_commands_and_no_plugin() {
    let text = std::fs::read_to_string(crate_dir().join("capabilities/main.json")).unwrap();
    let cap: Value = serde_json::from_str(&text).unwrap();
    let perms: Vec<&str> = cap["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().expect("plain permission names"))
        .collect();
    let mut allowed: Vec<String> = perms
        .iter()
        .filter_map(|p| p.strip_prefix("allow-"))
        .map(|c| c.replace('-', "_"))
        .collect();
    let mut commands: Vec<String> = paydesk_app::command_names()
        .iter()
        .map(|c| c.to_string())
        .collect();
    allowed.sort();
    commands.sort();
    assert_eq!(
        allowed, commands,
        "the capability and the command list differ: run `cargo xtask bindings`"
    );
    for p in &perms {
        assert!(
            p.starts_with("allow-") || p.starts_with("core:"),
            "{p}: no plugin permission is open to the web view"
        );
    }
    assert_eq!(cap["windows"], json!(["main"]));
}

/// A generated file as committed, or (with `PAYDESK_WRITE_BINDINGS=1`, what
/// `cargo xtask bindings` sets) written afresh from `fresh`.
fn committed_is_current(relative: &str, fresh: &str) {
    let committed = crate_dir().join(relative);
    if std::env::var_os("PAYDESK_WRITE_BINDINGS").is_some() {
        std::fs::write(&committed, fresh).expect("write a generated file");
        return;
    }
    let have = std::fs::read_to_string(&committed).unwrap_or_default();
    assert!(
        fresh == have,
        "{relative} is stale: run `cargo xtask bindings` and commit it"
    );
}

/// The capability is written from the table of commands (`src/registry.rs`): a command
/// added there is granted, one removed is no longer.
#[test]
fn generated_capability_is_current() {
    committed_is_current(
        paydesk_app::generate::CAPABILITY_PATH,
        &paydesk_app::generate::capability(),
    );
}

/// The UI's map of what each command makes stale is written from the same table.
#[test]
fn generated_invalidation_map_is_current() {
    committed_is_current(
        paydesk_app::generate::INVALIDATES_PATH,
        &paydesk_app::generate::invalidation_map(),
    );
}

/// Every command the invoke handler registers is in the table, and the other way round:
/// the bindings' commands (what the handler serves) are exactly the table's names.
#[test]
fn the_handler_serves_exactly_the_declared_commands() {
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("bindings.ts");
    paydesk_app::export_bindings(&fresh).expect("export bindings");
    let ts = std::fs::read_to_string(&fresh).unwrap();
    let mut served: Vec<&str> = ts
        .split("__TAURI_INVOKE")
        .filter(|rest| rest.starts_with('(') || rest.starts_with('<'))
        .map(|rest| {
            let name = &rest[rest.find("(\"").expect("a command name") + 2..];
            &name[..name.find('"').unwrap()]
        })
        .collect();
    let mut declared = paydesk_app::command_names();
    served.sort();
    declared.sort();
    assert_eq!(served, declared);
    let mut unique = declared.clone();
    unique.dedup();
    assert_eq!(unique.len(), declared.len(), "a command declared twice");
}

#[test]
fn the_content_security_policy_is_strict() {
    let conf: Value = serde_json::from_str(
        &std::fs::read_to_string(crate_dir().join("tauri.conf.json")).unwrap(),
    )
    .unwrap();
    let csp = &conf["app"]["security"]["csp"];
    assert_eq!(csp["default-src"], "'self'");
    assert_eq!(csp["script-src"], "'self'");
    assert_eq!(csp["object-src"], "'none'");
    let all = csp.to_string();
    assert!(!all.contains("unsafe-eval"), "{all}");
    assert!(
        !all.contains("https:") && !all.contains('*'),
        "no remote sources: {all}"
    );
    assert!(conf["app"]["withGlobalTauri"].is_null() || conf["app"]["withGlobalTauri"] == false);
}

/// The committed `ui/src/bindings.ts` must be what the commands generate now.
/// `cargo xtask bindings` rewrites it (this test with `PAYDESK_WRITE_BINDINGS=1`).
#[test]
fn generated_bindings_are_current() {
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("bindings.ts");
    paydesk_app::export_bindings(&fresh).expect("export bindings");
    committed_is_current(
        paydesk_app::BINDINGS_PATH,
        &std::fs::read_to_string(&fresh).unwrap(),
    );
}

/// A live profile made in the app: the gateway is told the profile's own notifyUrl (the
/// merchant's backend), no loopback receiver stands in for it, and the status says so.
#[test]
fn a_live_profiles_payin_carries_its_own_notify_url() {
    const NOTIFY: &str = "https://merchant.example/paydesk/notify";
    const ORIGIN: &str = "https://shop.example.com";
    let f = app("live-notify");
    let status = invoke(&f, "app_status", json!({})).expect("open");
    assert_eq!(
        status["notify"]["kind"], "desk",
        "the built-in sandbox: {status}"
    );
    assert!(
        status["notify"]["url"]
            .as_str()
            .is_some_and(|u| u.starts_with("http://127.0.0.1:")),
        "{status}"
    );

    // A gateway of its own on loopback (the sandbox, served), for a "live" profile.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let sandbox = paydesk_sandbox::Sandbox::new(paydesk_sandbox::SandboxConfig::default()).unwrap();
    let running = rt
        .block_on(sandbox.serve("127.0.0.1:0".parse().unwrap()))
        .unwrap();
    let profile = json!({
        "name": "acme", "baseUrl": running.base_url().to_string(), "merNo": 20001,
        "origin": ORIGIN, "lang": "en", "orderType": null,
        "signSettings": { "excludedKeys": ["sign"], "skipEmpty": true },
        "stateOverrides": {}, "operator": "ana", "notifyUrl": NOTIFY
    });
    invoke(
        &f,
        "profile_save",
        json!({ "profile": profile, "previous": null }),
    )
    .expect("add");
    let key = invoke(
        &f,
        "key_generate",
        json!({ "profile": "acme", "bits": 2048 }),
    )
    .expect("key");
    let public =
        paydesk_gateway::PublicKey::from_text(key["public_pem"].as_str().unwrap()).unwrap();
    running.sandbox.add_merchant(paydesk_sandbox::demo_merchant(
        20001, &public, ORIGIN, "tok-ipc",
    ));
    invoke(
        &f,
        "gateway_key_set",
        json!({ "profile": "acme", "text": running.sandbox.gateway_public_key().to_pem() }),
    )
    .expect("gateway key");
    invoke(
        &f,
        "token_set",
        json!({ "profile": "acme", "token": "tok-ipc" }),
    )
    .expect("token");
    let status = invoke(&f, "profile_switch", json!({ "name": "acme" })).expect("switch");
    assert_eq!(
        status["notify"],
        json!({ "kind": "profile", "url": NOTIFY }),
        "{status}"
    );

    let form = json!({
        "method": "WECHAT", "merOrderNo": "PI-IPC-NOTIFY-1", "amount": "12.00", "currency": "CNY",
        "email": "", "userId": "", "returnUrl": "", "ipAddress": "203.0.113.7", "notifyUrl": "",
        "name": "", "socialSecurityNumber": "", "firstName": "", "lastName": "",
        "userAgent": "test", "browser": { "screenHeight": "1", "screenWidth": "1",
        "timeZoneOffset": "0", "userAgent": "test", "visitorId": "t" },
        "products": [], "osType": "ANDROID", "terminal": "APP", "paymentMethodStr": "BANK",
        "productName": "", "vnBankId": "970436"
    });
    let receipt = invoke(
        &f,
        "payin_create",
        json!({ "form": form, "allowDuplicate": false }),
    )
    .expect("payin");
    assert_eq!(receipt["entry"]["status"], "accepted", "{receipt}");
    let told: Vec<String> = running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .filter(|o| o.mer_order_no == "PI-IPC-NOTIFY-1")
            .map(|o| o.notify_url.clone())
            .collect()
    });
    assert_eq!(
        told,
        [NOTIFY],
        "the gateway must be told the profile's notifyUrl"
    );
    drop(running);
    drop(rt);
}

#[test]
fn the_overview_sums_every_profiles_last_balances_and_converts_only_with_given_rates() {
    let f = app("overview");
    invoke(&f, "app_status", json!({})).expect("open");
    let asked = invoke(&f, "balances", json!({ "currencies": ["MXN", "USD"] })).expect("balances");
    let asked = asked.as_array().unwrap();
    assert!(
        asked.iter().all(|a| a["snapshot"].is_object()),
        "the sandbox answers both: {asked:?}"
    );
    // A second profile, never opened on this machine.
    let live = json!({
        "name": "acme", "baseUrl": "https://gateway.example.com", "merNo": 20001,
        "origin": "https://shop.example.com", "lang": "en", "orderType": null,
        "signSettings": { "excludedKeys": ["sign"], "skipEmpty": true },
        "stateOverrides": {}, "operator": "ana",
        "notifyUrl": "https://shop.example.com/paydesk/notify"
    });
    invoke(
        &f,
        "profile_save",
        json!({ "profile": live, "previous": null }),
    )
    .expect("add");
    let o = invoke(
        &f,
        "balances_overview",
        json!({ "target": null, "rates": [] }),
    )
    .expect("overview");
    let rows = o["profiles"].as_array().unwrap();
    let row = |name: &str| rows.iter().find(|r| r["profile"] == name).unwrap().clone();
    assert_eq!(row("acme")["neverOpened"], true);
    let sandbox = row("sandbox");
    assert_eq!(sandbox["sandbox"], true);
    assert_eq!(sandbox["balances"].as_array().unwrap().len(), asked.len());
    assert_eq!(sandbox["unknownOutcomes"], 0);
    // The sandbox's demo money is never in the totals (nor counted twice elsewhere):
    // with no other profile's snapshot, there are none, and nothing to convert.
    assert_eq!(o["totals"], json!([]), "{o}");
    assert_eq!(o["converted"], Value::Null);
    let first = asked[0]["snapshot"]["currency"].as_str().unwrap();
    let c = invoke(
        &f,
        "balances_overview",
        json!({ "target": first, "rates": [] }),
    )
    .expect("converted");
    assert_eq!(c["converted"]["totalBalance"], "0");
    assert_eq!(c["converted"]["missing"], json!([]));
    let e = invoke(
        &f,
        "balances_overview",
        json!({ "target": first, "rates": [{ "currency": "XXX", "rate": "-2" }] }),
    )
    .expect_err("a negative rate");
    assert_eq!(e["field"], "rate");
}
