// Issue 30 (F7): a team desk left open and idle checks the team's audit chain from its
// keyring anchor on its own timer. A viewer's desk sits on the Dashboard; the database's
// owner cuts the history with plain SQL; with nobody touching the window the Dashboard
// shows the red alert. On a real PostgreSQL server (paydesk-testpg) and the sandbox
// gateway on loopback, both stopped by their PIDs.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

const BIN = process.env.PAYDESK_BIN ?? path.resolve("../target/debug");
const PASSWORD = "correct-horse-battery";
/// The desk's own check, every this many seconds (the app's default is a minute).
const CHECK_SECONDS = 2;
/// The window asks the desk every 10 s (CHAIN_WATCH_MS): the alert is there within the
/// check's time plus that, and some slack for a loaded machine.
const SHOWN_WITHIN_MS = (CHECK_SECONDS + 10 + 15) * 1000;
const ORIGIN = "https://demo.paydesk.local";
const id = (x) => `[data-testid="${x}"]`;

let pg;
let server;
let gatewayProc;
let gateway;
let home;
let env;
let app;

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

/// SQL as the team database's owner, with psql (what the owner can do around the desks).
function ownerSql(sql) {
  return execFileSync(
    "psql",
    [
      "-X",
      "-q",
      "-At",
      "-v",
      "ON_ERROR_STOP=1",
      "-h",
      server.host,
      "-p",
      String(server.port),
    ].concat(["-U", server.owner, "-d", "team", "-c", sql]),
    { env: { ...process.env, PGPASSWORD: server.ownerPassword }, encoding: "utf8" },
  ).trim();
}

function profile(name, user, password) {
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
    "--team-host",
    server.host,
    "--team-port",
    String(server.port),
    "--team-database",
    "team",
    "--team-user",
    user,
  ]);
  cli(["profile", "set-team-password", name], { input: password });
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
    ["sandbox", "--port", "0", "--keys-dir", path.join(home, "keys")],
    (out) => {
      const base = /listening on (\S+)/.exec(out)?.[1];
      return base ? { base } : null;
    },
  ));
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
  profile("owner", server.owner, server.ownerPassword);
  for (const [name, role] of [
    ["adm", "admin"],
    ["vic", "viewer"],
  ]) {
    cli(["--profile", "owner", "team", "user", "add", name, "--role", role], {
      extra: { PAYDESK_NEW_PASSWORD: PASSWORD },
    });
  }
  profile("vic", "vic", PASSWORD);
  // A few audited steps of the team before the viewer's desk connects.
  for (const above of ["10000", "100000"]) {
    cli([
      "--profile",
      "owner",
      "team",
      "rules",
      "set",
      "--currency",
      "MXN",
      "--above",
      above,
      "--approvals",
      "1",
    ]);
  }
  cli(["profile", "use", "vic"]);
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

test("an idle viewer's Dashboard shows the history the owner cut, with no click", async () => {
  app = await startApp({ home, env: { PAYDESK_TEAM_CHAIN_CHECK_SECONDS: String(CHECK_SECONDS) } });
  const h = helpers(app.browser);
  await h.waitFor(id("screen-dashboard"), 60_000);
  // The desk connected as vic (the banner says so) and anchored the chain's head.
  await h.waitFor(id("banner-member"), 30_000);
  await h.click(id("nav-settings"));
  await h.pickLanguage("English");
  await h.click(id("nav-dashboard"));
  await h.waitFor(id("screen-dashboard"));
  // Two of the desk's own checks: the chain holds, no alert.
  await app.browser.pause(CHECK_SECONDS * 2 * 1000);
  assert.equal(await (await app.browser.$(id("team-chain-problem"))).isExisting(), false);
  await h.shot("team-chain-idle-before");

  // The owner cuts the last rows, which this desk verified, as plain SQL can.
  const head = Number(ownerSql("SELECT max(id) FROM paydesk.audit_log"));
  assert.ok(head > 3, `the team's log has ${head} rows`);
  ownerSql(
    `ALTER TABLE paydesk.audit_log DISABLE TRIGGER USER;
     DELETE FROM paydesk.audit_log WHERE id > ${head - 2};
     ALTER TABLE paydesk.audit_log ENABLE TRIGGER USER;`,
  );
  const cutAt = Date.now();
  // Nobody touches the window: the desk's timer finds it, the Dashboard shows it.
  await h.waitFor(id("team-chain-problem"), SHOWN_WITHIN_MS);
  const text = await h.text(id("team-chain-problem"));
  assert.match(text, /cut or rewritten/);
  assert.match(text, /cut/);
  assert.match(text, new RegExp(`ends at row ${head - 2}`));
  assert.ok(Date.now() - cutAt < SHOWN_WITHIN_MS);
  await h.settled();
  await h.shot("team-chain-idle-cut");
});
