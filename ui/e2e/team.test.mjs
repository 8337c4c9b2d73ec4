// A team member's desk in the real window, on a real PostgreSQL server (started for
// this file, stopped by its PID): the team is set up with the `paydesk` command (the
// owner's `team init`, a maker and an approver, a rule), a maker requests two payouts,
// and the approver's desk, which holds no merchant key, rejects one with a reason and
// approves the other on the Approvals screen, in English and in Chinese.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

const BIN = process.env.PAYDESK_BIN ?? path.resolve("../target/debug");
const PASSWORD = "correct-horse-battery";
const CLABE = "002010077777777771";
const id = (x) => `[data-testid="${x}"]`;

let pg;
let server;
let home;
let env;
let app;
let browser;
let h;
const made = {};
/// The key card numbers are sealed to, as the owner put it in the team's database (any
/// DER bytes will do for the screen: it shows their SHA-256), and that fingerprint.
const SEAL_DER = Buffer.from("a stand-in for the merchant's public key, SPKI DER, for the window");
const SEAL_FP = createHash("sha256").update(SEAL_DER).digest("hex");

/// A PostgreSQL server of this file's own, with the database `team`; resolves with
/// what it printed (host, port, superuser, password, owner, ownerPassword, pid); the team
/// is set up by the owner, who is no superuser.
function startPg() {
  const child = spawn(path.join(BIN, "paydesk-testpg"), ["team"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const nl = out.indexOf("\n");
      if (nl >= 0) resolve({ child, info: JSON.parse(out.slice(0, nl)) });
    });
    child.on("exit", (code) => reject(new Error(`paydesk-testpg exited (${code})`)));
  });
}

/// The `paydesk` command on the test's home and keyring service (the app's own).
function cli(args, { input = "", extra = {} } = {}) {
  return execFileSync(path.join(BIN, "paydesk"), args, {
    env: { ...process.env, ...env, ...extra },
    input,
    encoding: "utf8",
    stdio: ["pipe", "pipe", "pipe"],
  });
}

function teamProfile(name, user, password) {
  cli([
    "profile",
    "add",
    name,
    "--base-url",
    "https://gateway.example.com",
    "--mer-no",
    "10001",
    "--origin",
    "https://shop.example.com",
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
  ({ child: pg, info: server } = await startPg());
  home = mkdtempSync(path.join(tmpdir(), "paydesk-e2e-"));
  env = {
    PAYDESK_HOME: home,
    PAYDESK_KEYRING_SERVICE: `PayDesk-e2e-${path.basename(home)}`,
  };
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
  teamProfile("owner", server.owner, server.ownerPassword);
  // Two orders in the team's read model, as a signer's sync would leave them: one a
  // signer's journal made (its time is known), one no request of the team made (made
  // with the merchant key elsewhere): the Orders screen marks that one only.
  const now = Date.now();
  execFileSync(
    "psql",
    [
      "-h",
      server.host,
      "-p",
      String(server.port),
      "-U",
      server.owner,
      "-d",
      "team",
      "-v",
      "ON_ERROR_STOP=1",
      "-c",
      `INSERT INTO paydesk.orders (mer_no, trade_no, mer_order_no, state, currency, source_amount,
         amount_e4, created_at, synced_at, kind, made_at) VALUES
       (10001, 'T-TEAM-MADE', 'M-TEAM-MADE', 2, 'MXN', 100.00, 1000000, ${now}, ${now}, 'payin', ${now}),
       (10001, 'T-OUTSIDE', 'M-OUTSIDE', 2, 'MXN', 900000.00, 9000000000, ${now}, ${now}, '', NULL);
       SELECT paydesk.replace_seal_key('${SEAL_DER.toString("base64")}')`,
    ],
    { env: { ...process.env, PGPASSWORD: server.ownerPassword }, stdio: "pipe" },
  );
  for (const [name, role] of [
    ["mia", "maker"],
    ["ana", "approver"],
  ]) {
    cli(["--profile", "owner", "team", "user", "add", name, "--role", role], {
      extra: { PAYDESK_NEW_PASSWORD: PASSWORD },
    });
    teamProfile(name, name, PASSWORD);
  }
  cli([
    "--profile",
    "owner",
    "team",
    "rules",
    "set",
    "--currency",
    "MXN",
    "--above",
    "10000",
    "--approvals",
    "1",
  ]);
  for (const [key, amount] of [
    ["approve", "25000"],
    ["reject", "12500.50"],
  ]) {
    const out = cli([
      "--profile",
      "mia",
      "--json",
      "team",
      "request",
      "payout",
      "--amount",
      amount,
      "--currency",
      "MXN",
      "--clabe",
      CLABE,
    ]);
    made[key] = JSON.parse(out).id;
  }
  // The approver's desk opens in the window.
  cli(["profile", "use", "ana"]);
  app = await startApp({ home });
  browser = app.browser;
  h = helpers(browser);
  // In English whatever an earlier run left (the web view keeps the language chosen).
  await h.waitFor(id("nav-settings"), 60_000);
  await h.click(id("nav-settings"));
  await h.pickLanguage("English");
});

after(async () => {
  await app?.stop();
  if (pg) {
    pg.stdin.end();
    await new Promise((r) => pg.once("exit", r));
  }
  if (home) rmSync(home, { recursive: true, force: true });
});

test("the banner names the member, the roles, and that the desk holds no key", async () => {
  const member = await h.waitFor(id("banner-member"), 60_000);
  assert.equal(await member.getAttribute("data-roles"), "approver");
  const text = await h.text(id("banner-member"));
  assert.match(text, /ana/);
  assert.match(text, /approver/);
  assert.match(text, /no key/);
});

test("the approver sees the maker's requests with the rule that asks their approval", async () => {
  await h.click(id("nav-approvals"));
  await h.waitFor(id("approvals-table"), 30_000);
  for (const key of ["approve", "reject"]) {
    const row = await h.waitFor(id(`request-${made[key]}`));
    assert.equal(await row.getAttribute("data-state"), "waiting");
    const summary = await h.text(id(`summary-${made[key]}`));
    assert.ok(!summary.includes(CLABE), `the account is masked: ${summary}`);
    assert.match(
      await h.text(id(`rule-${made[key]}`)),
      /Payouts in MXN above MXN 10,000\.00: 1 approver/,
    );
    assert.equal(await h.text(id(`approvals-${made[key]}`)), "0 of 1");
  }
  assert.match(await h.text(id(`amount-${made.reject}`)), /12,500\.50/);
  await h.shot("approvals-waiting");
});

test("a rejection asks a reason, and the request leaves the waiting list", async () => {
  await h.click(id(`reject-${made.reject}`));
  await h.typeInto(id("reject-reason"), "no");
  await h.click(id("reject-confirm"));
  // The database's rule, shown under the field; nothing is rejected.
  await browser.waitUntil(
    async () => (await browser.$(`${id("reject-reason")}[aria-invalid="true"]`)).isExisting(),
    { timeout: 10_000, timeoutMsg: "a two-letter reason was not refused" },
  );
  await h.typeInto(id("reject-reason"), "wrong beneficiary name");
  await h.click(id("reject-confirm"));
  await browser.waitUntil(
    async () => !(await (await browser.$(id(`request-${made.reject}`))).isExisting()),
    { timeout: 15_000, timeoutMsg: "the rejected request stayed in the waiting list" },
  );
});

test("an approval moves the request on, for the signer to execute", async () => {
  await h.click(id(`approve-${made.approve}`));
  await h.waitFor(id("approvals-empty"), 15_000);
  await h.shot("approvals-decided");
  // Both, decided, under "All": the rejection with its reason in the request's drawer.
  await h.click('//*[@data-testid="approvals-filter"]//label[normalize-space(.)="All"]');
  await h.waitFor(id(`state-${made.approve}`));
  assert.equal(await h.text(id(`state-${made.approve}`)), "Approved");
  await h.click(id(`open-${made.reject}`));
  const decisions = await h.text(id("request-decisions"));
  assert.match(decisions, /ana rejected at .*: wrong beneficiary name/);
  await browser.pause(700); // the drawer's slide-in
  await h.shot("approvals-request-drawer");
  await h.closeOverlays();
});

test("the payouts screen says this desk holds no key, and an approver makes no request", async () => {
  await h.click(id("nav-payouts"));
  await h.waitFor(id("screen-payouts"));
  await h.click(id("tab-clabe"));
  assert.match(await h.text(id("gateway-closed")), /holds no merchant key/);
  const review = await h.waitFor(id("payout-review"));
  assert.equal(await review.isEnabled(), false);
  await h.shot("payouts-approver-desk");
});

test("an order no request of the team made is marked as made outside this team", async () => {
  await h.click(id("nav-orders"));
  await h.waitFor(id("screen-orders"), 30_000);
  await h.waitFor(`${id("order-row")}[data-trade-no="T-OUTSIDE"]`, 30_000);
  const row = (n) => `${id("order-row")}[data-trade-no="${n}"]`;
  await h.shot("orders-outside-team");
  // The badge, in the outside order's row, says so (its full words for a screen reader).
  const badge = await h.waitFor(`${row("T-OUTSIDE")} ${id("outside-team")}`, 10_000);
  assert.match(await h.text(`${row("T-OUTSIDE")} ${id("outside-team")}`), /Outside team/);
  assert.equal(await badge.getAttribute("aria-label"), "Made outside this team");
  // Only that one: the team's own order shows its kind.
  assert.equal((await browser.$$(id("outside-team"))).length, 1);
  assert.ok(!(await browser.$(`${row("T-TEAM-MADE")} ${id("outside-team")}`).isExisting()));
  assert.match(await h.text(row("T-TEAM-MADE")), /Payin/);
  const outside = await browser.$(row("T-OUTSIDE"));
  await outside.click();
  await h.waitFor(`${id("order-detail")}[data-trade-no="T-OUTSIDE"]`);
  await h.waitFor(id("detail-outside-team"));
  assert.match(await h.text(id("detail-outside-team")), /Made outside this team/);
  // The drawer slides in: the picture once it is there.
  await browser.pause(600);
  await h.shot("order-outside-team");
  await browser.keys("Escape");
  await h.gone(id("order-detail"), 5_000);
});

// Issue 30: this desk seals nothing before its member trusts the seal key; the Team
// screen shows the database's key and trusts it only with the fingerprint given.
test("the member trusts the seal key on the Team screen with the fingerprint given", async () => {
  await h.click(id("nav-team"));
  const card = await h.waitFor(id("seal-key-card"), 30_000);
  await browser.execute((e) => e.scrollIntoView({ block: "center" }), card);
  await browser.waitUntil(
    async () =>
      (await browser.$(id("seal-key-fingerprint")).isExisting()) ||
      (await browser.$(`${id("seal-key-card")} [role="alert"]`).isExisting()),
    { timeout: 30_000, timeoutMsg: "the seal key card loaded" },
  );
  await h.shot("team-seal-key");
  assert.ok(
    await browser.$(id("seal-key-fingerprint")).isExisting(),
    await h.text(id("seal-key-card")),
  );
  assert.equal(await h.text(id("seal-key-fingerprint")), SEAL_FP);
  assert.match(await h.text(id("seal-key-state")), /Not trusted/);
  await h.typeInto(id("seal-key-given"), "ffffffffffffffff");
  await h.click(id("seal-key-trust"));
  await browser.waitUntil(
    async () => /not the ffffffffffffffff/.test(await h.text(id("seal-key-card"))),
    { timeout: 10_000, timeoutMsg: "the wrong fingerprint refused" },
  );
  await h.shot("team-seal-key-refused");
  // As a signer reads it from their key: SHA256: and pairs.
  const given = `SHA256:${SEAL_FP.match(/../g).join(":")}`;
  await h.typeInto(id("seal-key-given"), given);
  await h.click(id("seal-key-trust"));
  await browser.waitUntil(async () => /Trusted/.test(await h.text(id("seal-key-state"))), {
    timeout: 10_000,
    timeoutMsg: "the seal key trusted",
  });
  assert.ok(!(await browser.$(id("seal-key-trust")).isExisting()));
  await h.shot("team-seal-key-trusted");
});

test("the approvals screen in Chinese", async () => {
  await h.click(id("nav-settings"));
  await h.pickLanguage("简体中文");
  await h.click(id("nav-approvals"));
  await h.waitFor(id("screen-approvals"));
  await h.click('//*[@data-testid="approvals-filter"]//label[normalize-space(.)="全部"]');
  await browser.waitUntil(
    async () => {
      const el = await browser.$(id(`state-${made.approve}`));
      return (
        (await el.isExisting()) && (await browser.execute((e) => e.textContent, el)) === "已批准"
      );
    },
    { timeout: 10_000, timeoutMsg: "the approved request in Chinese" },
  );
  assert.match(await h.text(id(`rule-${made.approve}`)), /MXN 代付超过/);
  await h.shot("approvals-zh");
  await h.click(id("nav-settings"));
  await h.pickLanguage("English");
});
