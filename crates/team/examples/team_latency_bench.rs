//! Benchmark: a team's request, from the approver's approval to its execution by a
//! signer's worker (`team::work`), on a real PostgreSQL server (a scratch one from
//! `paydesk-testpg`, with PostgreSQL's own durability settings) and the sandbox gateway
//! in this process, without latency: the figure is the desk's own overhead
//! (notification, claim, journal, HTTP to the sandbox, the row's outcome, finish).
//! Prints figures, asserts none.
//!
//! - One request after another (latency): the maker requests a CLABE payout, the worker
//!   settles, the approver approves; timed from the approval's return to the moment a
//!   third link, listening on `paydesk_requests` and reading the request again at each
//!   notification, sees it `done`. Also: the worker's own end of the request (its
//!   `on_done`), and from the server's clock the claim, the row's outcome and the finish.
//! - A burst (throughput): N requests made, then approved one after another as fast as
//!   the approver can; timed from the first approval until the worker has done them all.
//!
//! cargo run --release -p paydesk-team --example team_latency_bench -- [REQUESTS]

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use paydesk_core::forms::{PayoutForm, PayoutKind};
use paydesk_core::{Desk, Endpoint, Home, MemoryStore, Profile, Secrets};
use paydesk_sandbox::{Sandbox, SandboxConfig, demo_merchant};
use paydesk_store_pg::{PgConfig, PgLink, init_team};
use paydesk_team::{self as team, RequestState, RuleInput, Team, TeamRole};
use paydesk_testpg::{Options, TestPg};
use rust_decimal::Decimal;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const MER: u64 = 10001;
const ORIGIN: &str = "https://bench.local";
const TOKEN: &str = "bench-token";
const DB: &str = "team";
const PROFILE: &str = "signer";
const PASSWORD: &str = "correct-horse-battery";
const CLABE: &str = "002010077777777771";
/// The worker's polling interval besides notifications: the CLI worker's default.
const POLL: Duration = Duration::from_secs(5);
/// How long the observer waits for a notification before reading the request anyway.
const OBSERVER_STEP: Duration = Duration::from_millis(100);
/// Quiet time after a request is made, before it is approved: the worker has taken the
/// notifications of the request's making and is waiting again.
const SETTLE: Duration = Duration::from_millis(20);
/// A request not done by then is reported as lost.
const GIVE_UP: Duration = Duration::from_secs(30);

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

fn member(pg: &TestPg, user: &str) -> Result<Team, BoxError> {
    Ok(Team::connect(&cfg(pg, user), PASSWORD)?)
}

fn pct(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
    (at(0.5), at(0.95), at(1.0))
}

fn timings(what: &str, v: Vec<f64>) {
    if v.is_empty() {
        println!("| {what} | - | - | - |");
        return;
    }
    let (p50, p95, max) = pct(v);
    println!("| {what} | {p50:.2} ms | {p95:.2} ms | {max:.2} ms |");
}

fn wall_us() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1e6)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A CLABE payout of `amount` whole pesos: amounts differ from request to request, so
/// the desk's duplicate guard (same beneficiary and amount within 24 h) never stops one,
/// and end in .00, none of the sandbox's magic amounts.
fn payout(no: &str, amount: u64) -> PayoutForm {
    let mut form = PayoutForm::new(PayoutKind::Clabe, no, &format!("{amount}.00"), "MXN");
    form.clabe = CLABE.into();
    form
}

/// What the worker reports of each request it finished.
struct Finished {
    id: i64,
    at: Instant,
    accepted: u32,
}

/// The server's clock for each request: when it was claimed, its row's outcome was
/// written and it was finished (microseconds since the epoch).
fn server_times(pg: &TestPg) -> Result<HashMap<i64, [f64; 3]>, BoxError> {
    let out = pg.psql_super(
        DB,
        "SELECT r.id, extract(epoch FROM r.claimed_at) * 1e6, extract(epoch FROM w.updated_at) * 1e6,
                extract(epoch FROM r.finished_at) * 1e6
           FROM paydesk.requests r JOIN paydesk.request_rows w ON w.request_id = r.id
          WHERE r.state = 'done' ORDER BY r.id",
    )?;
    let mut times = HashMap::new();
    for line in out.lines() {
        let f: Vec<&str> = line.split('|').collect();
        if let [id, claimed, row, finished] = f[..] {
            times.insert(
                id.parse()?,
                [claimed.parse()?, row.parse()?, finished.parse()?],
            );
        }
    }
    Ok(times)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), BoxError> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200)
        .max(1);

    // The team's database: members and the rule.
    let t = Instant::now();
    let pg = TestPg::start_with(Options::default().durable())?;
    pg.create_database(DB)?;
    let owner = PgLink::connect(&cfg(&pg, pg.owner()), pg.owner_password())?;
    init_team(&owner, MER as i64)?;
    Team::on(Arc::new(owner))?.add_member("alice", TeamRole::Admin, PASSWORD)?;
    let admin = member(&pg, "alice")?;
    for (name, role) in [
        ("mark", TeamRole::Maker),
        ("ann", TeamRole::Approver),
        ("sam", TeamRole::Signer),
    ] {
        admin.add_member(name, role, PASSWORD)?;
    }
    admin.set_rule(&RuleInput {
        operation: "payout".into(),
        currency: "MXN".into(),
        above: "0".into(),
        approvals: 1,
    })?;

    // The sandbox gateway in this process, the merchant funded for every payout.
    let dir = tempfile::tempdir()?;
    let home = Home::at(dir.path());
    let secrets = Secrets::new(Arc::new(MemoryStore::default()));
    let info = secrets.generate_merchant_key(PROFILE, 2048)?;
    let public = paydesk_gateway::PublicKey::from_text(&info.public_pem)?;
    let sb = Sandbox::new(SandboxConfig::default())?;
    let mut merchant = demo_merchant(MER, &public, ORIGIN, TOKEN);
    // Amounts 100, 101, ... pesos, each with its fee: twice that is plenty.
    let k = 2 * n as u64;
    let needed = Decimal::from(2 * (100 * k + k * k / 2 + 2 * k));
    let mxn = merchant.opening.entry("MXN".into()).or_default();
    let funded = *mxn < needed;
    if funded {
        *mxn = needed;
    }
    sb.add_merchant(merchant);
    let running = sb.serve("127.0.0.1:0".parse()?).await?;
    secrets.set_gateway_key(PROFILE, &running.sandbox.gateway_public_key().to_pem())?;
    secrets.set_bearer(PROFILE, TOKEN)?;
    secrets.set_team_password(PROFILE, PASSWORD)?;
    home.put(Profile {
        name: PROFILE.into(),
        base_url: Some(running.base_url().to_string()),
        mer_no: MER,
        origin: ORIGIN.into(),
        lang: "en".into(),
        order_type: None,
        operator: "bench".into(),
        // A closed port: the sandbox's notifications go nowhere.
        notify_url: "http://127.0.0.1:9/notify".into(),
        notify_at_desk: false,
        proxy: String::new(),
        safety: Default::default(),
        sync: Default::default(),
        team: Some(cfg(&pg, "sam")),
    })?;

    // The signer's desk and its worker, on a task of its own (no upkeep: the worker
    // only executes requests).
    let desk = Arc::new(Desk::open(&home, secrets, PROFILE, Endpoint::Profile)?);
    // The desk's own connection: only a connection PayDesk opened claims requests.
    let signer = Team::of(&desk)?.ok_or("not a team desk")?;
    let stop = Arc::new(AtomicBool::new(false));
    let (done_tx, done_rx) = mpsc::channel::<Finished>();
    let worker = {
        let (desk, stop) = (desk.clone(), stop.clone());
        tokio::spawn(async move {
            team::work(&desk, &signer, &stop, POLL, None, |e| match e {
                team::WorkEvent::Executed(e) => {
                    let _ = done_tx.send(Finished {
                        id: e.request,
                        at: Instant::now(),
                        accepted: e.accepted,
                    });
                }
                team::WorkEvent::Upkeep(_) => {}
                team::WorkEvent::Error(e) => eprintln!("worker: {e}"),
            })
            .await
        })
    };
    println!(
        "PostgreSQL started, the team made, the sandbox and the signer's desk up in {:.1} s{}",
        t.elapsed().as_secs_f64(),
        if funded {
            format!(" (merchant's MXN balance raised to {needed})")
        } else {
            String::new()
        }
    );

    // The maker, the approver and the observer run on a thread of their own: their links
    // block.
    let pg = Arc::new(pg);
    let driver = {
        let pg = pg.clone();
        tokio::task::spawn_blocking(move || drive(&pg, n, &done_rx))
    };
    let result = driver.await?;
    stop.store(true, Ordering::Relaxed);
    let _ = worker.await;
    let orders = running.sandbox.with_state(|s| s.orders.len());
    println!(
        "sandbox: {orders} orders made (one per request expected: {})",
        2 * n
    );
    running.stop().await;
    result
}

/// The requests, one after another, then the burst; prints the figures.
fn drive(pg: &TestPg, n: usize, done: &mpsc::Receiver<Finished>) -> Result<(), BoxError> {
    let maker = member(pg, "mark")?;
    let ann = member(pg, "ann")?;
    let observer = member(pg, "ann")?;
    observer.link().listen("paydesk_requests")?;
    let mut amount = 100u64;
    let mut next_amount = || {
        amount += 1;
        amount
    };
    let drain = |observer: &Team| while observer.link().wait_notice(Duration::ZERO).is_some() {};

    // (a) One after another.
    let mut approve_ms = Vec::new();
    let mut seen_ms = Vec::new();
    let mut seen_from_call_ms = Vec::new();
    let mut worker_ms = Vec::new();
    let mut approved_wall = HashMap::new();
    let (mut by_notice, mut by_timeout, mut notices) = (0usize, 0usize, 0usize);
    let mut claimed_before_return = 0usize;
    for i in 0..n {
        let r = maker.request_payout(&payout(&format!("T-LAT-{i}"), next_amount()))?;
        std::thread::sleep(SETTLE);
        drain(&observer);
        while done.try_recv().is_ok() {}
        let t0 = Instant::now();
        let approved = ann.approve(r.id)?;
        let t1 = Instant::now();
        approved_wall.insert(r.id, wall_us());
        // The decision commits before `approve` reads the request again: the worker may
        // have claimed it, or even finished it, by then.
        if !matches!(
            approved.state,
            RequestState::Approved | RequestState::Executing | RequestState::Done
        ) {
            return Err(format!(
                "request {} is {:?} after its approval",
                r.id, approved.state
            )
            .into());
        }
        if approved.state != RequestState::Approved {
            claimed_before_return += 1;
        }
        // Seen done: re-read at each notification (or after OBSERVER_STEP without one).
        let seen = loop {
            let noticed = observer.link().wait_notice(OBSERVER_STEP).is_some();
            notices += usize::from(noticed);
            let state = observer.request(r.id)?.state;
            if state == RequestState::Done {
                if noticed {
                    by_notice += 1;
                } else {
                    by_timeout += 1;
                }
                break Instant::now();
            }
            if t1.elapsed() > GIVE_UP {
                return Err(format!("request {} still {state:?} after {GIVE_UP:?}", r.id).into());
            }
        };
        let finished = loop {
            let f = done.recv_timeout(GIVE_UP)?;
            if f.id == r.id {
                if f.accepted != 1 {
                    return Err(format!("request {}: its row was not accepted", r.id).into());
                }
                break f.at;
            }
        };
        approve_ms.push(ms(t1 - t0));
        seen_ms.push(ms(seen - t1));
        seen_from_call_ms.push(ms(seen - t0));
        worker_ms.push(ms(finished.saturating_duration_since(t1)));
    }
    let server = server_times(pg)?;
    let (mut claim_ms, mut row_ms, mut finish_ms, mut exec_ms, mut finish_step_ms) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (id, at) in &approved_wall {
        if let Some([claimed, row, finished]) = server.get(id) {
            claim_ms.push((claimed - at) / 1000.0);
            row_ms.push((row - at) / 1000.0);
            finish_ms.push((finished - at) / 1000.0);
            exec_ms.push((row - claimed) / 1000.0);
            finish_step_ms.push((finished - row) / 1000.0);
        }
    }
    println!();
    println!(
        "{n} requests one after another (1 row each, 1 approval; the worker idle and waiting):"
    );
    println!();
    println!("| figure | p50 | p95 | max |");
    println!("|---|---|---|---|");
    timings(
        "approval's call (the decision committed, then the request read again)",
        approve_ms,
    );
    timings(
        "**approval's return → seen done** (a third link: LISTEN, the request read again at each notification)",
        seen_ms,
    );
    timings(
        "approval's call → seen done (from the call's start)",
        seen_from_call_ms,
    );
    timings(
        "approval's return → the worker's `execute_next` returned",
        worker_ms,
    );
    timings(
        "approval's return → claimed (server's clock, the claim's transaction start)",
        claim_ms,
    );
    timings("approval's return → row accepted (server's clock)", row_ms);
    timings("approval's return → finished (server's clock)", finish_ms);
    timings(
        "claim → row accepted: journal, signed HTTP to the sandbox, journal",
        exec_ms,
    );
    timings("row accepted → finished", finish_step_ms);
    println!();
    println!(
        "done seen at a notification: {by_notice}, only by a read after {} ms without one: {by_timeout}; notifications the observer took: {notices} ({:.1} a request)",
        OBSERVER_STEP.as_millis(),
        notices as f64 / n as f64
    );
    println!(
        "requests the worker had claimed before `approve` returned (its re-read of the request said executing or done): {claimed_before_return}"
    );

    // (b) The burst.
    let mut ids = Vec::with_capacity(n);
    for i in 0..n {
        ids.push(
            maker
                .request_payout(&payout(&format!("T-BURST-{i}"), next_amount()))?
                .id,
        );
    }
    std::thread::sleep(Duration::from_millis(200));
    while done.try_recv().is_ok() {}
    let t0 = Instant::now();
    for id in &ids {
        ann.approve(*id)?;
    }
    let approved = t0.elapsed();
    let mut left: std::collections::HashSet<i64> = ids.iter().copied().collect();
    let mut accepted = 0;
    let mut last = t0;
    while !left.is_empty() {
        let f = done.recv_timeout(GIVE_UP).map_err(|_| {
            format!(
                "{} requests of the burst not done after {GIVE_UP:?}",
                left.len()
            )
        })?;
        if left.remove(&f.id) {
            accepted += f.accepted;
            last = f.at;
        }
    }
    let all = last - t0;
    let after = last.saturating_duration_since(t0 + approved);
    println!();
    println!(
        "burst: {n} requests approved one after another by one approver, the worker executing meanwhile:"
    );
    println!(
        "- approvals: {:.0} ms ({:.0} approvals/s)",
        ms(approved),
        n as f64 / approved.as_secs_f64()
    );
    println!(
        "- first approval → all done: {:.0} ms = {:.1} requests/s ({accepted} rows accepted); the last done {:.0} ms after the last approval",
        ms(all),
        n as f64 / all.as_secs_f64(),
        ms(after)
    );
    Ok(())
}
