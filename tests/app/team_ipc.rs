//! A team member's desk through the app's IPC, on a real PostgreSQL server and the real
//! keyring: an approver's profile without the merchant key opens, says who the member
//! is, lists a maker's waiting request with the rule that asks its approvals, approves
//! it, is refused what talks to the gateway, and locks: every command is then refused
//! with `locked` until the database accepts the member's password.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use paydesk_app::state::AppState;
use paydesk_core::Home;
use paydesk_store_pg::{PgConfig, PgLink, init_team};
use paydesk_team::{RuleInput, Team, TeamRole};
use paydesk_testpg::TestPg;
use serde_json::{Value, json};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{
    INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder, mock_context, noop_assets,
};
use tauri::webview::{InvokeRequest, WebviewWindow};

const DB: &str = "team";
const PASSWORD: &str = "correct-horse-battery";
const MER: i64 = 20001;

fn cfg(pg: &TestPg, user: &str) -> PgConfig {
    PgConfig {
        host: pg.host().into(),
        port: pg.port(),
        database: DB.into(),
        user: user.into(),
        ca_file: String::new(),
        cert_file: String::new(),
        key_file: String::new(),
    }
}

struct Fixture {
    _app: tauri::App<MockRuntime>,
    window: WebviewWindow<MockRuntime>,
    _home: tempfile::TempDir,
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

#[test]
fn an_approvers_desk_without_the_key_approves_and_locks() {
    let pg = TestPg::start().unwrap();
    pg.create_database(DB).unwrap();
    let owner = PgLink::connect(&cfg(&pg, pg.owner()), pg.owner_password()).unwrap();
    init_team(&owner, MER).unwrap();
    let owner = Team::on(Arc::new(owner)).unwrap();
    owner.add_member("mia", TeamRole::Maker, PASSWORD).unwrap();
    owner
        .add_member("ana", TeamRole::Approver, PASSWORD)
        .unwrap();
    owner.add_member("root", TeamRole::Admin, PASSWORD).unwrap();
    let admin = Team::connect(&cfg(&pg, "root"), PASSWORD).unwrap();
    admin
        .set_rule(&RuleInput {
            operation: "payout".into(),
            currency: "MXN".into(),
            above: "10000".into(),
            approvals: 1,
        })
        .unwrap();
    let maker = Team::connect(&cfg(&pg, "mia"), PASSWORD).unwrap();
    let mut form = paydesk_core::forms::PayoutForm::new(
        paydesk_core::forms::PayoutKind::Clabe,
        "T-IPC-1",
        "25000",
        "MXN",
    );
    form.clabe = "002010077777777771".into();
    form.first_name = "Ana".into();
    form.last_name = "López".into();
    let made = maker.request_payout(&form).unwrap();

    // The approver's desk: a team profile, no merchant key in its keyring.
    let home = tempfile::tempdir().unwrap();
    let service = format!("PayDesk-team-ipc-{}", std::process::id());
    let state = AppState::new(Home::at(home.path()), &service);
    let app = mock_builder()
        .manage(state)
        .invoke_handler(paydesk_app::specta_builder::<MockRuntime>().invoke_handler())
        .build(mock_context(noop_assets()))
        .unwrap();
    let window = tauri::WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .unwrap();
    let f = Fixture {
        _app: app,
        window,
        _home: home,
    };
    let single = invoke(&f, "team_status", json!({})).expect("sandbox status");
    assert_eq!(single, Value::Null, "the built-in sandbox is a single desk");
    let profile = json!({
        "name": "ana", "baseUrl": "https://gateway.example.com", "merNo": MER,
        "origin": "https://shop.example.com", "lang": "en", "orderType": null,
        "signSettings": { "excludedKeys": ["sign"], "skipEmpty": true },
        "stateOverrides": {}, "operator": "ana",
        "notifyUrl": "https://shop.example.com/paydesk/notify",
        "team": { "host": pg.host(), "port": pg.port(), "database": DB, "user": "ana" }
    });
    invoke(
        &f,
        "profile_save",
        json!({ "profile": profile, "previous": null }),
    )
    .expect("add");
    let cfg_json = json!({ "host": pg.host(), "port": pg.port(), "database": DB, "user": "ana" });
    // The connection test, before the password is kept: a wrong one names the field.
    let wrong = invoke(
        &f,
        "team_test",
        json!({ "profile": "ana", "config": cfg_json, "password": "not-it" }),
    )
    .expect_err("wrong password");
    assert_eq!(wrong["field"], "team.password", "{wrong}");
    let probe = invoke(
        &f,
        "team_test",
        json!({ "profile": "ana", "config": cfg_json, "password": PASSWORD }),
    )
    .expect("test");
    assert_eq!(probe["user"], "ana");
    assert_eq!(probe["roles"], json!(["approver"]));
    assert_eq!(probe["merNo"], MER);
    assert_eq!(probe["tlsRequired"], false, "loopback");
    // The kept password is tried only on the saved connection.
    let elsewhere =
        json!({ "host": "db.example.com", "port": 5432, "database": DB, "user": "ana" });
    invoke(
        &f,
        "team_password_set",
        json!({ "profile": "ana", "password": PASSWORD }),
    )
    .expect("password");
    let e = invoke(
        &f,
        "team_test",
        json!({ "profile": "ana", "config": elsewhere, "password": "" }),
    )
    .expect_err("the kept password for another server");
    assert_eq!(e["field"], "team.password", "{e}");
    invoke(&f, "profile_switch", json!({ "name": "ana" })).expect("switch");

    let status = invoke(&f, "team_status", json!({})).expect("status");
    assert_eq!(status["user"], "ana");
    assert_eq!(status["roles"], json!(["approver"]));
    assert_eq!(status["holdsKey"], false);
    assert_eq!(status["idleLockMinutes"], 15);
    assert_eq!(
        status["chainProblem"],
        Value::Null,
        "the chain holds: {status}"
    );

    // The maker's request, with the rule that asks its one approval.
    let waiting = invoke(
        &f,
        "team_requests",
        json!({ "states": ["waiting"], "limit": 50 }),
    )
    .expect("requests");
    let list = waiting.as_array().unwrap();
    assert_eq!(list.len(), 1, "{waiting}");
    let v = &list[0];
    assert_eq!(v["request"]["id"], made.id);
    assert_eq!(v["request"]["maker"], "mia");
    assert_eq!(v["rule"]["above"], "10000");
    assert_eq!(v["mine"], false);
    let summary = v["request"]["summary"].as_str().unwrap();
    assert!(!summary.contains("002010077777777771"), "masked: {summary}");
    let detail = invoke(&f, "team_request", json!({ "id": made.id })).expect("detail");
    assert_eq!(detail["rows"][0]["merOrderNo"], "T-IPC-1");
    assert!(
        detail["rows"][0].get("form").is_none(),
        "the form stays in the backend"
    );

    // A rejection needs a reason; an approval moves it on.
    let e = invoke(&f, "team_reject", json!({ "id": made.id, "reason": "no" })).expect_err("short");
    assert_eq!(e["field"], "reason", "{e}");
    let approved = invoke(&f, "team_approve", json!({ "id": made.id })).expect("approve");
    assert_eq!(approved["request"]["state"], "approved");
    assert_eq!(approved["approvals"], 1);
    // Every step in the team's audit log, with the database user who took it.
    let log = invoke(
        &f,
        "audit_list",
        json!({ "filter": { "operation": null, "text": null, "from": null, "to": null, "limit": 100 } }),
    )
    .expect("audit");
    let by = |user: &str| {
        log.as_array()
            .unwrap()
            .iter()
            .filter(|e| e["dbUser"] == user)
            .count()
    };
    assert!(by("mia") >= 1, "the request, by its maker: {log}");
    assert!(by("ana") >= 1, "the approval, by its approver: {log}");

    // Nothing that talks to the gateway runs on this desk.
    let asked = invoke(&f, "balances", json!({ "currencies": ["MXN"] })).expect("answered");
    let e = &asked[0]["error"];
    assert_eq!(e["field"], "team", "{asked}");
    assert!(
        e["rule"].as_str().unwrap().contains("no merchant key"),
        "{e}"
    );
    assert_eq!(asked[0]["snapshot"], Value::Null);
    // ... and an approver makes no request.
    let e =
        invoke(&f, "team_request_payout", json!({ "form": form_json() })).expect_err("approver");
    assert_eq!(e["code"], "validation", "{e}");

    // Locked: every command refused until the database takes the password.
    let lock = invoke(&f, "session_lock", json!({})).expect("lock");
    assert_eq!(lock["locked"], true);
    let e = invoke(&f, "team_requests", json!({ "states": [], "limit": 50 })).expect_err("locked");
    assert_eq!(e["code"], "locked", "{e}");
    let e = invoke(&f, "session_touch", json!({})).expect_err("activity does not unlock");
    assert_eq!(e["code"], "locked");
    let e = invoke(&f, "session_unlock", json!({ "password": "guess" })).expect_err("wrong");
    assert_eq!(e["field"], "team.password", "{e}");
    let e = invoke(&f, "app_status", json!({})).expect_err("still locked");
    assert_eq!(e["code"], "locked");
    // Nothing goes around the lock: not a switch to a single desk (whose unlock would
    // need no password), not the keyring, not every profile's balances.
    for (cmd, args) in [
        ("profile_switch", json!({ "name": "sandbox" })),
        ("profiles", json!({})),
        ("keys", json!({ "profile": "ana" })),
        ("balances_overview", json!({ "target": null, "rates": [] })),
        (
            "team_password_set",
            json!({ "profile": "ana", "password": "another-password" }),
        ),
    ] {
        let e = invoke(&f, cmd, args).expect_err(cmd);
        assert_eq!(e["code"], "locked", "{cmd}: {e}");
    }
    let open = invoke(&f, "session_unlock", json!({ "password": PASSWORD })).expect("unlock");
    assert_eq!(open["locked"], false);
    // The failed unlock is in the team's audit log (not only on this machine): the
    // team's administrator sees a member's desk tried with a wrong password.
    let unlocks = pg
        .psql_owner(
            DB,
            "SELECT result FROM paydesk.audit_log WHERE operation = 'session.unlock' ORDER BY id",
        )
        .unwrap();
    let unlocks: Vec<&str> = unlocks
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(unlocks, ["refused: wrong password", "ok"], "{unlocks:?}");
    let log = invoke(
        &f,
        "audit_list",
        json!({ "filter": { "operation": "session.unlock", "text": null, "from": null, "to": null, "limit": 10 } }),
    )
    .expect("audit");
    let log = log.as_array().unwrap();
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(
        log.iter().all(|e| e["dbUser"] == "ana"),
        "by the member: {log:?}"
    );
    let all = invoke(&f, "team_requests", json!({ "states": [], "limit": 50 })).expect("again");
    assert_eq!(all.as_array().unwrap().len(), 1);

    // The database drops the desk's connections (a restart, a network cut): the next
    // command opens the desk again instead of failing from then on.
    pg.psql_super(
        DB,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'ana'",
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let again = invoke(&f, "team_requests", json!({ "states": [], "limit": 50 }))
        .expect("reopened after the connections were dropped");
    assert_eq!(again.as_array().unwrap().len(), 1);

    // The database's owner cuts the team's audit chain (what is left is a consistent
    // chain): the desk, opened again, reports it to the Team and Activity screens.
    pg.psql_owner(
        DB,
        "ALTER TABLE paydesk.audit_log DISABLE TRIGGER USER;
         DELETE FROM paydesk.audit_log WHERE id > 1;
         ALTER TABLE paydesk.audit_log ENABLE TRIGGER USER;",
    )
    .unwrap();
    invoke(&f, "profile_switch", json!({ "name": "sandbox" })).expect("to the sandbox");
    invoke(&f, "profile_switch", json!({ "name": "ana" })).expect("back");
    let status = invoke(&f, "team_status", json!({})).expect("status");
    let problem = status["chainProblem"].as_str().unwrap_or_default();
    assert!(problem.contains("cut"), "{status}");
}

fn form_json() -> Value {
    json!({
        "kind": "CLABE", "merOrderNo": "T-IPC-2", "amount": "500", "currency": "MXN",
        "clabe": "002010077777777771", "cardNo": "", "firstName": "Ana", "lastName": "López",
        "countryCode": "MX", "email": "", "mobile": "", "ipAddress": "", "notifyUrl": ""
    })
}

/// `paydesk team init` from the window (issue 32, the app's parity with the CLI): the
/// database's owner creates the team's schema for the saved profile's merchant, a second
/// run applies nothing, a member may not, and a missing password names its field.
#[test]
fn the_owner_creates_the_teams_schema_from_the_window() {
    let pg = TestPg::start().unwrap();
    pg.create_database(DB).unwrap();
    let home = tempfile::tempdir().unwrap();
    let service = format!("PayDesk-team-ipc-init-{}", std::process::id());
    let state = AppState::new(Home::at(home.path()), &service);
    let app = mock_builder()
        .manage(state)
        .invoke_handler(paydesk_app::specta_builder::<MockRuntime>().invoke_handler())
        .build(mock_context(noop_assets()))
        .unwrap();
    let window = tauri::WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .unwrap();
    let f = Fixture {
        _app: app,
        window,
        _home: home,
    };
    let owner = json!({ "host": pg.host(), "port": pg.port(), "database": DB, "user": pg.owner() });
    let profile = json!({
        "name": "owner", "baseUrl": "https://gateway.example.com", "merNo": MER,
        "origin": "https://shop.example.com", "lang": "en", "orderType": null,
        "signSettings": { "excludedKeys": ["sign"], "skipEmpty": true },
        "stateOverrides": {}, "operator": "owner",
        "notifyUrl": "https://shop.example.com/paydesk/notify",
        "team": owner
    });
    invoke(
        &f,
        "profile_save",
        json!({ "profile": profile, "previous": null }),
    )
    .expect("add");
    let e = invoke(
        &f,
        "team_init",
        json!({ "profile": "owner", "config": owner, "password": "" }),
    )
    .expect_err("no password");
    assert_eq!(e["field"], "team.password", "{e}");

    let done = invoke(
        &f,
        "team_init",
        json!({ "profile": "owner", "config": owner, "password": pg.owner_password() }),
    )
    .expect("init");
    let applied = done["applied"].as_u64().unwrap();
    assert!(applied > 0, "{done}");
    // The team is there, for the profile's merchant: the connection test sees it.
    let probe = invoke(
        &f,
        "team_test",
        json!({ "profile": "owner", "config": owner, "password": pg.owner_password() }),
    )
    .expect("probe");
    assert_eq!(probe["merNo"], MER);
    assert_eq!(probe["schemaVersion"].as_u64(), Some(applied));
    let again = invoke(
        &f,
        "team_init",
        json!({ "profile": "owner", "config": owner, "password": pg.owner_password() }),
    )
    .expect("again");
    assert_eq!(again["applied"], 0, "up to date: {again}");

    // A member is not the owner: refused, nothing changed.
    pg.psql_owner(
        DB,
        "CREATE ROLE mia LOGIN PASSWORD 'x'; GRANT paydesk_maker TO mia;",
    )
    .unwrap();
    let member = json!({ "host": pg.host(), "port": pg.port(), "database": DB, "user": "mia" });
    let e = invoke(
        &f,
        "team_init",
        json!({ "profile": "owner", "config": member, "password": "x" }),
    )
    .expect_err("a member");
    assert_eq!(e["code"], "validation", "{e}");
}
