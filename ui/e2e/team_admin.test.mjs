// The team run from the window, on a real PostgreSQL server and the sandbox gateway
// served on loopback (both started for this file, stopped by their PIDs): an admin adds
// a member and a rule on the Team screen (and sees the database refuse a role that is no
// member), the signer starts the worker there and sees it pay an approved request, and
// a single desk holding a live key locks itself after its idle time; wrong passwords are
// throttled, still after a relaunch, and each try is in the audit log.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

const BIN = process.env.PAYDESK_BIN ?? path.resolve("../target/debug");
const PASSWORD = "correct-horse-battery";
const MIA_PASSWORD = "mia-first-password-1";
const DESK_PASSWORD = "solo-desk-password";
/// The single desk's idle time in the test (the app's shortest setting is a minute).
const IDLE_SECONDS = 5;
const CLABE = "002010077777777771";
const ORIGIN = "https://demo.paydesk.local";
const TOKEN = "sandbox-demo-token";
const id = (x) => `[data-testid="${x}"]`;

let pg;
let server;
let gatewayProc;
let gateway;
let home;
let env;
let app;
let browser;
let h;

/// A child that prints what the test needs on stdout: resolves once `done(out)` says.
function started(cmd, args, done) {
  const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const got = done(out);
      if (got) resolve({ child, got });
    });
    child.on("exit", (code) => reject(new Error(`${cmd} exited (${code})`)));
  });
}

function cli(args, { input = "", extra = {} } = {}) {
  return execFileSync(path.join(BIN, "paydesk"), args, {
    env: { ...process.env, ...env, ...extra },
    input,
    encoding: "utf8",
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/// A profile of the sandbox gateway's demo merchant; a team profile when `user` is given.
function profile(name, { user, password, key = false } = {}) {
  const team = user
    ? [
        "--team-host",
        server.host,
        "--team-port",
        String(server.port),
        "--team-database",
        "team",
        "--team-user",
        user,
      ]
    : [];
  cli([
    "profile",
    "add",
    name,
    "--base-url",
    gateway.base,
    "--mer-no",
    "10001",
    "--origin",
    ORIGIN,
    "--notify-url",
    "https://shop.example.com/paydesk/notify",
    ...team,
  ]);
  if (user) cli(["profile", "set-team-password", name], { input: password });
  if (key) {
    cli(["profile", "import-key", name, "--file", path.join(home, "keys", "private_key.pem")]);
    cli(["profile", "set-gateway-key", name, "--file", path.join(home, "gateway.pem")]);
    cli(["profile", "set-token", name], { input: TOKEN });
  }
}

async function useProfile(name) {
  await h.click(id("nav-settings"));
  const use = `//tr[@data-name="${name}"]//button[normalize-space(.)="Use"]`;
  // Clicked in the page: a toast of the step before may still cover the row.
  await browser.execute((e) => e.click(), await h.waitFor(use));
  await browser.waitUntil(async () => !(await (await browser.$(use)).isExisting()), {
    timeout: 20_000,
    timeoutMsg: `profile ${name} was not taken into use`,
  });
}

/// The app on the file's home; `env` is added to its environment.
async function openApp(env = {}) {
  app = await startApp({ home, env });
  browser = app.browser;
  h = helpers(browser);
}

before(async () => {
  ({ child: pg, got: server } = await started(path.join(BIN, "paydesk-testpg"), ["team"], (out) => {
    const nl = out.indexOf("\n");
    return nl >= 0 ? JSON.parse(out.slice(0, nl)) : null;
  }));
  home = mkdtempSync(path.join(tmpdir(), "paydesk-e2e-"));
  env = {
    PAYDESK_HOME: home,
    PAYDESK_KEYRING_SERVICE: `PayDesk-e2e-${path.basename(home)}`,
  };
  ({ child: gatewayProc, got: gateway } = await started(
    path.join(BIN, "paydesk"),
    ["sandbox", "--port", "0", "--keys-dir", path.join(home, "keys"), "--auto-complete-secs", "0"],
    (out) => {
      const base = /listening on (\S+)/.exec(out)?.[1];
      const pem = /(-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----)/.exec(out)?.[1];
      return base && pem ? { base, pem } : null;
    },
  ));
  writeFileSync(path.join(home, "gateway.pem"), `${gateway.pem}\n`);
  cli(
    [
      "team",
      "init",
      "--host",
      server.host,
      "--port",
      String(server.port),
      "--database",
      "team",
      "--user",
      server.owner,
      "--mer-no",
      "10001",
    ],
    { extra: { PAYDESK_TEAM_PASSWORD: server.ownerPassword } },
  );
  profile("owner", { user: server.owner, password: server.ownerPassword });
  for (const [name, role] of [
    ["adm", "admin"],
    ["ana", "approver"],
    ["sam", "signer"],
  ]) {
    cli(["--profile", "owner", "team", "user", "add", name, "--role", role], {
      extra: { PAYDESK_NEW_PASSWORD: PASSWORD },
    });
  }
  profile("adm", { user: "adm", password: PASSWORD });
  profile("ana", { user: "ana", password: PASSWORD });
  profile("sam", { user: "sam", password: PASSWORD, key: true });
  profile("mia", { user: "mia", password: MIA_PASSWORD });
  profile("solo", { key: true });
  cli(["profile", "use", "adm"]);
  await openApp();
  await h.waitFor(id("nav-settings"), 60_000);
  await h.click(id("nav-settings"));
  await h.pickLanguage("English");
});

after(async () => {
  await app?.stop();
  gatewayProc?.kill("SIGTERM");
  if (pg) {
    pg.stdin.end();
    await new Promise((r) => pg.once("exit", r));
  }
  if (home) rmSync(home, { recursive: true, force: true });
});

test("an admin adds a member and a rule on the Team screen; the database's refusal is shown", async () => {
  await h.click(id("nav-team"));
  await h.waitFor(id("members-table"), 30_000);
  await h.waitFor(id("member-sam"));
  assert.equal(
    await (await h.waitFor(id("member-roles-sam"))).getAttribute("data-roles"),
    "signer",
  );

  // The team's owner, a role of the cluster that is no member: the database refuses, in
  // its words.
  await h.typeInto(id("member-add-name"), server.owner);
  await h.typeInto(id("member-add-password"), PASSWORD);
  await h.click(id("member-add"));
  const refusal = await h.text('[data-testid="member-add-error"], .mantine-Alert-root');
  assert.match(refusal, /owner|member|role/i);
  await h.shot("team-admin-refused");
  assert.ok(!(await (await browser.$(id(`member-${server.owner}`))).isExisting()));

  await h.typeInto(id("member-add-name"), "mia");
  await h.choose("#member-add-role", "maker");
  await h.typeInto(id("member-add-password"), MIA_PASSWORD);
  await h.click(id("member-add"));
  const roles = await h.waitFor(id("member-roles-mia"), 15_000);
  assert.equal(await roles.getAttribute("data-roles"), "maker");

  await h.typeInto(id("rule-currency"), "MXN");
  await h.typeInto(id("rule-above"), "1000");
  await h.click(id("rule-set"));
  await h.waitFor(id("rules-table"), 15_000);
  assert.match(await h.text(id("rules-table")), /Payouts in MXN above MXN 1,000\.00: 1 approver/);
  await h.settled(); // the modal's or the toast's transition
  await h.shot("team-admin");

  // What the CLI reads from the database, as the owner: the member and the rule are there.
  const members = JSON.parse(cli(["--profile", "owner", "--json", "team", "user", "list"]));
  const mia = members.find((m) => m.name === "mia");
  assert.deepEqual(mia?.roles, ["maker"]);
  assert.equal(mia?.addedBy, "adm");
  const rules = JSON.parse(cli(["--profile", "owner", "--json", "team", "rules", "list"]));
  assert.equal(rules.length, 1);
  assert.deepEqual(
    [rules[0].operation, rules[0].currency, Number(rules[0].above), rules[0].approvals],
    ["payout", "MXN", 1000, 1],
  );

  await h.click(id("nav-settings"));
  await h.pickLanguage("简体中文");
  await h.click(id("nav-team"));
  await h.waitFor(id("rules-table"));
  assert.match(await h.text(id("team-members")), /成员/);
  await h.settled(); // the modal's or the toast's transition
  await h.shot("team-admin-zh");
  await h.click(id("nav-settings"));
  await h.pickLanguage("English");
});

test("the signer's worker, started on the Team screen, pays an approved request with its progress", async () => {
  // The new member's own desk makes a request with the password the admin gave; the
  // approver approves it.
  const made = JSON.parse(
    cli([
      "--profile",
      "mia",
      "--json",
      "team",
      "request",
      "payout",
      "--amount",
      "2500",
      "--currency",
      "MXN",
      "--clabe",
      CLABE,
    ]),
  );
  assert.equal(made.approvalsNeeded, 1);
  cli(["--profile", "ana", "approvals", "approve", String(made.id)]);

  await useProfile("sam");
  await h.click(id("nav-team"));
  await h.waitFor(id("worker-queued"), 30_000);
  await browser.waitUntil(
    async () => /1 approved request waits/.test(await h.text(id("worker-queued"))),
    {
      timeout: 20_000,
      timeoutMsg: "the approved request is not counted",
    },
  );
  await h.click(id("worker-start"));
  const row = await h.waitFor(id(`worker-executed-${made.id}`), 60_000);
  assert.equal(await row.getAttribute("data-done"), "true");
  assert.equal(await h.text(id("worker-accepted")), "1");
  assert.equal(await h.text(id("worker-requests")), "1");
  assert.equal(await (await h.waitFor(id("team-worker"))).getAttribute("data-running"), "true");
  await browser.waitUntil(
    async () => /0 approved requests wait/.test(await h.text(id("worker-queued"))),
    {
      timeout: 15_000,
      timeoutMsg: "the executed request is still counted as waiting",
    },
  );
  await h.settled(); // the modal's or the toast's transition
  await h.shot("team-worker");

  // The gateway has the payout, once, of the amount approved.
  await h.click(id("nav-approvals"));
  await h.click('//*[@data-testid="approvals-filter"]//label[normalize-space(.)="All"]');
  await h.click(id(`open-${made.id}`));
  await h.waitFor(id("request-decisions"));
  const tradeNo = await h.text(`[data-testid^="row-trade-"]`);
  assert.ok(tradeNo, "the request's row shows the gateway's trade number");
  const r = await fetch(new URL(`__sandbox/orders/${encodeURIComponent(tradeNo)}`, gateway.base));
  assert.equal(r.status, 200);
  const { order } = await r.json();
  assert.equal(Number(order.amount), 2500);
  assert.equal(order.currency, "MXN");
  await h.closeOverlays();

  await h.click(id("nav-settings"));
  await h.pickLanguage("简体中文");
  await h.click(id("nav-team"));
  await browser.waitUntil(async () => /已执行请求/.test(await h.text(id("worker-progress"))), {
    timeout: 10_000,
    timeoutMsg: "the worker's progress in Chinese",
  });
  await h.shot("team-worker-zh");
  await h.click(id("nav-settings"));
  await h.pickLanguage("English");
  await h.click(id("nav-team"));
  await h.click(id("worker-stop"));
  await h.waitFor(id("worker-stopped"), 30_000);
});

test("a single desk holding a live key asks a desk password, then locks after its idle time", async () => {
  await useProfile("solo");
  await h.waitFor(id("desk-password-new"), 30_000);
  await h.settled(); // the modal's or the toast's transition
  await h.shot("desk-password-setup");
  await h.typeInto(id("desk-password-new"), DESK_PASSWORD);
  await h.typeInto(id("desk-password-again"), DESK_PASSWORD);
  await h.click(id("desk-password-save"));
  await browser.waitUntil(
    async () => !(await (await browser.$(id("desk-password-new"))).isExisting()),
    {
      timeout: 20_000,
      timeoutMsg: "the desk password was not taken",
    },
  );
  await h.click(id("nav-settings"));
  await h.waitFor(id("desk-lock-minutes"), 20_000);
  await h.typeInto(id("desk-lock-minutes"), "1");
  await h.click(id("desk-lock-minutes-save"));
  (await h.waitFor(id("desk-lock"))).scrollIntoView();
  await h.settled();
  await h.shot("settings-desk-lock");
  await h.click(id("nav-dashboard"));
  // The shortest setting is a minute: the app is started again with its idle time
  // shortened to IDLE_SECONDS (PAYDESK_IDLE_LOCK_MAX_SECONDS only ever shortens it). Its
  // idle clock starts when it opens the desk, after `start`.
  await app.stop();
  const start = Date.now();
  await openApp({ PAYDESK_IDLE_LOCK_MAX_SECONDS: String(IDLE_SECONDS) });
  await h.waitFor(id("screen-dashboard"), 60_000);
  // No key press, no click: the lock engages by itself.
  await h.waitFor(`${id("lock-screen")} ${id("lock-password")}`, 60_000);
  const waited = (Date.now() - start) / 1000;
  assert.ok(waited >= IDLE_SECONDS, `locked after ${waited} s, before the idle time`);
  // The screen names the setting.
  assert.match(await h.text(id("lock-body")), /profile solo .* after 1 minute without activity/);
  await h.settled(); // the modal's or the toast's transition
  await h.shot("desk-locked");
});

test("wrong passwords are throttled, still after a relaunch, and each try is audited", async () => {
  /// Tries `password`; the error the lock screen shows once it matches `expected`.
  const tryUnlock = async (password, expected) => {
    await h.waitFor(id("lock-password"), 30_000);
    // Typed and sent in the page, in one step: no element reference to go stale while
    // the screens behind the lock re-render.
    await browser.executeAsync((value, done) => {
      const input = document.querySelector('[data-testid="lock-password"]');
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")?.set?.call(input, value);
      input?.dispatchEvent(new Event("input", { bubbles: true }));
      setTimeout(() => {
        document.querySelector('[data-testid="lock-unlock"]')?.click();
        done(true);
      }, 100);
    }, password);
    let last = "";
    await browser.waitUntil(
      async () => {
        const el = await browser.$(id("lock-error"));
        last = (await el.isExisting()) ? await browser.execute((e) => e.textContent ?? "", el) : "";
        return expected.test(last);
      },
      { timeout: 20_000, timeoutMsg: `the lock screen did not say ${expected} (last: ${last})` },
    );
    return last;
  };
  for (let n = 1; n <= 3; n++) {
    await tryUnlock(`wrong-password-${n}`, new RegExp(`failed try ${n}\\)$`));
  }
  await tryUnlock("wrong-password-4", /failed try 4\); the next try is possible in 30 s/);
  // Throttled: even the right password waits.
  await tryUnlock(DESK_PASSWORD, /4 wrong passwords in a row: the next try is possible in \d+ s/);
  await h.settled(); // the modal's or the toast's transition
  await h.shot("desk-unlock-throttled");

  // Quitting gives no more tries: the app starts locked, and still waits.
  await app.stop();
  await openApp();
  await h.waitFor(`${id("lock-screen")} ${id("lock-password")}`, 60_000);
  await tryUnlock(DESK_PASSWORD, /4 wrong passwords in a row: the next try is possible in \d+ s/);

  // Every try, refused or waited, is in the profile's audit log.
  const audit = JSON.parse(
    cli(["--profile", "solo", "--json", "audit", "list", "--operation", "session.unlock"]),
  );
  const results = audit.map((a) => a.result);
  assert.equal(results.filter((r) => r === "refused: wrong password").length, 4);
  assert.equal(results.filter((r) => /^refused: waiting/.test(r)).length, 2);

  // Once the wait is over, the right password opens the desk. The wait counts from the
  // last failure the lock file keeps (`desk-lock.json`, read at each try): moved back
  // past the 30 s there, as if they had gone by.
  const lockFile = path.join(home, "desk-lock.json");
  const record = JSON.parse(readFileSync(lockFile, "utf8"));
  assert.equal(record.failures, 4);
  assert.ok(Date.now() - record.lastFailureMs < 30_000, "the wait was over already");
  record.lastFailureMs -= 31_000;
  writeFileSync(lockFile, JSON.stringify(record));
  await browser.executeAsync((value, done) => {
    const input = document.querySelector('[data-testid="lock-password"]');
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")?.set?.call(input, value);
    input?.dispatchEvent(new Event("input", { bubbles: true }));
    setTimeout(() => {
      document.querySelector('[data-testid="lock-unlock"]')?.click();
      done(true);
    }, 100);
  }, DESK_PASSWORD);
  await browser.waitUntil(
    async () => !(await (await browser.$(id("lock-password"))).isExisting()),
    {
      timeout: 20_000,
      timeoutMsg: "the right password after the wait did not unlock",
    },
  );
  const after = JSON.parse(
    cli(["--profile", "solo", "--json", "audit", "list", "--operation", "session.unlock"]),
  );
  assert.ok(after.some((a) => a.result === "ok"));
});
