// The desktop app in its real window against the built-in sandbox: what a user relies
// on, screen by screen, with a screenshot and an accessibility check of each.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, beforeEach, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

let app;
let browser;
let h;
const id = (x) => `[data-testid="${x}"]`;

before(async () => {
  app = await startApp();
  browser = app.browser;
  h = helpers(browser);
});

after(async () => {
  await app?.stop();
});

beforeEach(async () => {
  await h?.closeOverlays();
});

/// The command palette's search field.
const PALETTE = 'input[aria-label="Go to a screen, or type an order number…"]';

async function total() {
  const el = await h.waitFor(id("orders-count"));
  return Number(await el.getAttribute("data-total"));
}

async function checkAxe(screen) {
  const serious = await h.axe();
  assert.deepEqual(serious, [], `${screen}: serious accessibility violations`);
}

test("opens on the dashboard of the built-in sandbox, its demo orders loading at once", async () => {
  await h.waitFor(id("screen-dashboard"), 60_000);
  const badge = await h.waitFor(id("mode-badge"));
  assert.equal(await badge.getAttribute("data-mode"), "sandbox");
  assert.match(await h.text(id("banner-merchant")), /10001/);
  // The first launch reads the sandbox's orders with progress on the dashboard.
  await h.waitFor(id("first-sync"), 30_000).catch(() => {});
  await h.shot("dashboard-first-run-loading");
  assert.equal(await h.firstRunDone(), "done");
  await browser.waitUntil(
    async () => Number((await h.text(id("dashboard-cached"))).replace(/\D/g, "")) > 1000,
    { timeout: 20_000, timeoutMsg: "the dashboard does not count the demo orders" },
  );
  await h.waitFor(id("dashboard-balances"), 20_000);
  await h.shot("dashboard-first-run");
  await checkAxe("dashboard");
});

test("the first run's sync filled the orders table", async () => {
  await h.click(id("nav-orders"));
  await h.waitFor(id("screen-orders"));
  // The Orders screen shows the sync the first run made, finished.
  await h.waitFor(`${id("sync-progress")}[data-done="true"]`, 120_000);
  await browser.waitUntil(async () => (await total()) > 1000, {
    timeout: 20_000,
    timeoutMsg: "the table did not fill after the sync",
  });
  // The finished sync says how many orders it read, how fast, and how long it took, with
  // the same count the table shows.
  const read = await h.text(id("sync-read"));
  assert.match(read, /^[\d,]+ orders read$/);
  assert.equal(Number(read.replace(/\D/g, "")), await total());
  assert.match(await h.text(id("sync-pace")), /^[\d,]+ orders\/s · took \d/);
  await h.waitFor(id("order-row"));
  const rows = await browser.$$(id("order-row"));
  assert.ok(rows.length >= 10, `only ${rows.length} rows rendered`);
  // A listed order has its day, not a midnight, and no type the gateway did not give.
  const first = await rows[0].getText();
  assert.doesNotMatch(first, /00:00/);
  assert.match(first, /Not given/);
  assert.ok(await rows[0].$(id("day-only")).isExisting(), "the date is the day only");
  await h.shot("orders");
  // Right after the sync, while the table reloads, and before the search below: the
  // moment the table once rendered in a loop until the web view hung (OrdersTable.tsx).
  await checkAxe("orders");
});

test("a search by fragment finds an order", async () => {
  const rows = await browser.$$(id("order-row"));
  const tradeNo = await rows[5].getAttribute("data-trade-no");
  const fragment = tradeNo.slice(-7);
  await h.typeInto(`${id("orders-search")}`, fragment);
  await browser.waitUntil(async () => (await total()) < 10, {
    timeout: 10_000,
    timeoutMsg: `searching ${fragment} did not narrow the table`,
  });
  const found = await browser.$$(id("order-row"));
  const numbers = [];
  for (const r of found) numbers.push(await r.getAttribute("data-trade-no"));
  assert.ok(numbers.includes(tradeNo), `${tradeNo} not among ${numbers}`);
  await h.typeInto(id("orders-search"), "");
  await browser.waitUntil(async () => (await total()) > 1000, { timeout: 10_000 });
});

test("an order's detail shows the verified response signature", async () => {
  await browser.waitUntil(async () => (await total()) > 1000, { timeout: 10_000 });
  const row = await h.waitFor(id("order-row"));
  const tradeNo = await row.getAttribute("data-trade-no");
  await row.click();
  await h.waitFor(`${id("order-detail")}[data-trade-no="${tradeNo}"]`);
  await h.waitFor(`${id("detail-signature")}[data-status="verified"]`);
  await h.shot("order-detail");
  await checkAxe("order detail");
  await browser.keys("Escape");
  await h.gone(id("order-detail"), 5_000);
});

test("a sandbox pay moves a pending order to success after refresh", async () => {
  await h.choose("#filter-state", "Pending");
  await browser.keys("Escape");
  await browser.waitUntil(async () => (await total()) > 0, { timeout: 10_000 });
  const pendingBefore = await total();
  const row = await h.waitFor(id("order-row"));
  const tradeNo = await row.getAttribute("data-trade-no");
  await row.click();
  await h.waitFor(`${id("detail-live-status")}[data-status="PENDING"]`);
  await h.click(id("simulate-pay"));
  await h.waitFor(
    `//*[contains(@class, "mantine-Notification-description")][contains(., "Pay done")]`,
  );
  await h.click(id("detail-refresh"));
  await h.waitFor(`${id("detail-live-status")}[data-status="SUCCESS"]`, 20_000);
  // The state history gained the success the desk saw on re-reading the order.
  await h.waitFor(`${id("detail-timeline")} [data-meaning="pending"]`);
  await h.waitFor(`${id("detail-timeline")} [data-meaning="success"]`);
  await h.shot("order-paid");
  await browser.keys("Escape");
  // Closed, not closing: the next test starts on the orders screen, and a drawer still on
  // its way out (its transition takes seconds on a loaded machine) is what the next
  // test's closeOverlays would click at, then give up on and leave the screen.
  await h.gone(id("order-detail"), 10_000);
  // The desk re-read the order's day: the cache no longer counts it as pending.
  await browser.waitUntil(async () => (await total()) === pendingBefore - 1, {
    timeout: 10_000,
    timeoutMsg: `${tradeNo} still counted as pending`,
  });
});

test("export writes every filtered row", async () => {
  const expected = await total();
  assert.ok(expected > 0);
  await h.click(id("export-button"));
  const file = path.join(app.home, "pending.csv");
  await h.typeInto(id("export-path"), file);
  await h.click(id("export-run"));
  const result = await h.waitFor(id("export-result"), 30_000);
  assert.equal(Number(await result.getAttribute("data-rows")), expected);
  const lines = readFileSync(file, "utf8").trim().split(/\r?\n/);
  assert.equal(lines.length, expected + 1, "a header and one line per filtered order");
  await h.shot("export");
  // The same file again: nothing is replaced until the user says so.
  writeFileSync(file, "kept");
  await h.click(id("export-run"));
  await h.waitFor(id("replace-question"));
  assert.equal(readFileSync(file, "utf8"), "kept", "not replaced before the answer");
  await h.shot("export-replace");
  await h.click(id("replace-no"));
  assert.equal(readFileSync(file, "utf8"), "kept");
  await h.click(id("export-run"));
  await h.click(id("replace-yes"));
  await browser.waitUntil(
    async () => readFileSync(file, "utf8").trim().split(/\r?\n/).length === expected + 1,
    { timeout: 30_000, timeoutMsg: "the export did not replace the file once confirmed" },
  );
  await browser.keys("Escape");
  // Closed, not closing (as after the order's detail above).
  await h.gone(id("export-path"), 10_000);
});

test("the command palette opens an order by a fragment of its number", async () => {
  const row = await h.waitFor(id("order-row"));
  const tradeNo = await row.getAttribute("data-trade-no");
  await h.click(id("nav-dashboard"));
  await h.waitFor(id("screen-dashboard"));
  await browser.keys(["Control", "k"]);
  await h.typeInto(PALETTE, tradeNo.slice(-8));
  await h.waitFor(`//button[contains(., "${tradeNo}")]`);
  await h.shot("palette");
  // Enter opens the first match.
  await browser.keys(["Enter"]);
  await h.waitFor(`${id("order-detail")}[data-trade-no="${tradeNo}"]`);
  await h.waitFor(id("screen-orders"));
  // The palette is gone first (while its overlay fades, it takes the clicks meant for
  // the drawer), then the drawer is closed with Escape until it is gone.
  await h.gone(PALETTE, 10_000);
  for (let i = 0; i < 5 && (await h.count(id("order-detail"))) > 0; i++) {
    await browser.keys("Escape");
    await browser.pause(600);
  }
  await h.gone(id("order-detail"), 10_000);

  // A number nobody knows is looked up first, and said not to exist: nothing opens.
  await browser.keys(["Control", "k"]);
  await h.typeInto(PALETTE, "NOPE-3002");
  await h.waitFor('//button[contains(., "Look up order NOPE-3002")]');
  await browser.keys(["Enter"]);
  await h.waitFor('//*[contains(text(), "No order numbered NOPE-3002")]', 10_000);
  assert.equal(await h.count(`${id("order-detail")}[data-trade-no="NOPE-3002"]`), 0);
  await h.closeOverlays();
});

test("balances answer per currency", async () => {
  await h.click(id("nav-balances"));
  await h.waitFor(id("screen-balances"));
  await h.waitFor(id("balance-row"), 20_000);
  const rows = await browser.$$(id("balance-row"));
  assert.ok(rows.length >= 1);
  await h.waitFor(id("balance-history"));
  // The sync's snapshot and one asked now: the cached orders explain the movement of the
  // available balance between them exactly.
  await h.click(id("balance-query"));
  await browser.waitUntil(
    async () => {
      const el = await browser.$(id("reconcile-difference"));
      return (await el.isExisting()) && (await el.getAttribute("data-value")) === "0";
    },
    { timeout: 30_000, timeoutMsg: "the reconcile section shows no difference of 0" },
  );
  await h.waitFor(id("balance-upcoming"));
  const reconcile = await h.waitFor(id("balance-reconcile"));
  await reconcile.scrollIntoView();
  // The scroll is smooth: the shot waits for it to end.
  await browser.pause(600);
  await h.shot("balances-reconcile");
  await browser.execute(() => window.scrollTo(0, 0));
  await browser.pause(600);
  await h.shot("balances");
  await checkAxe("balances");
  // Every profile in one table: here the sandbox's, whose demo money the totals leave
  // out (and say so).
  const row = await h.waitFor(`${id("all-profiles-row")}[data-profile="sandbox"]`, 20_000);
  assert.match(await browser.execute((e) => e.textContent ?? "", row), /Merchant 10001/);
  assert.equal((await browser.$$(id("all-profiles-total"))).length, 0);
  await h.waitFor(id("all-profiles-no-sandbox"));
  const all = await h.waitFor(id("all-profiles"));
  await all.scrollIntoView();
  await h.shot("balances-all-profiles");
});

test("the reports screen: a month's statement against the month before, its figures open their orders, and it exports", async () => {
  await h.click(id("nav-reports"));
  await h.waitFor(id("screen-reports"));
  // The demo orders span 90 days: the last 30 days have some of every currency.
  await h.click('//*[@data-testid="reports-period"]//label[normalize-space(.)="Days…"]');
  const day = (d) => d.toISOString().slice(0, 10);
  const now = new Date();
  await h.typeInto(id("reports-from"), day(new Date(now.getTime() - 29 * 86_400_000)));
  await h.typeInto(id("reports-to"), day(now));
  const orders = await h.waitFor(id("reports-orders"), 20_000);
  await browser.waitUntil(async () => Number(await orders.getAttribute("data-orders")) > 100, {
    timeout: 20_000,
    timeoutMsg: "the statement counts no orders of the last 30 days",
  });
  const cards = await browser.$$(id("statement-currency"));
  assert.ok(cards.length >= 2, "a statement per currency");
  // Days in the business's zone (UTC until set), figures as of a sync, read again on
  // request: the period's orders from the gateway.
  assert.equal(await (await browser.$(`${id("reports-zone")}`)).getValue(), "UTC");
  assert.notEqual(await (await browser.$(id("reports-as-of"))).getAttribute("data-as-of"), "");
  await h.click(id("reports-refresh"));
  await h.waitFor(id("reports-refreshed"), 60_000);
  await h.shot("reports");
  await checkAxe("reports");
  // A figure opens the orders behind it, the filter said above the table.
  const cur = await cards[0].getAttribute("data-currency");
  const open = await browser.$(id(`open-${cur}-payinsPaid`));
  const count = Number(
    (
      await browser.execute(
        (e) => e.closest("tr")?.querySelectorAll("td")[1]?.textContent ?? "",
        open,
      )
    ).replace(/\D/g, ""),
  );
  await open.click();
  await h.waitFor(id("screen-orders"));
  await browser.waitUntil(async () => (await total()) === count, {
    timeout: 15_000,
    timeoutMsg: `the orders behind the figure are not the ${count} it counts`,
  });
  // Back to the statement, exported to XLSX with its digest.
  await h.click(id("nav-reports"));
  await h.waitFor(id("statement-export-path"));
  const file = path.join(app.home, "statement.xlsx");
  await h.typeInto(id("statement-export-path"), file);
  await h.click(id("statement-export"));
  const made = await h.waitFor(id("statement-exported"), 20_000);
  assert.ok(Number(await made.getAttribute("data-rows")) > 100);
  assert.ok(readFileSync(file).subarray(0, 2).toString() === "PK", "an XLSX (zip) file");
});

test("the activity log lists what was done, its chain verifies, and it exports", async () => {
  await h.click(id("nav-activity"));
  await h.waitFor(id("screen-activity"));
  await h.waitFor(`${id("audit-chain")}[data-ok="true"]`);
  // It says what it checked, truncation against the keyring's record included.
  await h.waitFor(`${id("audit-checked")} [data-anchored="true"]`);
  await h.waitFor(id("audit-row"));
  await h.typeInto(id("audit-search"), "action=pay");
  await browser.waitUntil(async () => (await browser.$$(id("audit-row"))).length === 1, {
    timeout: 10_000,
    timeoutMsg: "the simulated payment is not the one entry found",
  });
  const file = path.join(app.home, "activity.csv");
  await h.typeInto(id("audit-export-path"), file);
  await h.click(id("audit-export"));
  const result = await h.waitFor(id("audit-export-result"));
  const rows = Number(await result.getAttribute("data-rows"));
  assert.equal(rows, 1);
  assert.equal(readFileSync(file, "utf8").trim().split(/\r?\n/).length, rows + 1);
  await h.shot("activity");
  await checkAxe("activity");
});

test("switching the language changes the labels", async () => {
  await h.click(id("nav-settings"));
  await h.waitFor(id("screen-settings"));
  await h.shot("settings");
  await checkAxe("settings");
  await h.pickLanguage("简体中文");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "订单", {
    timeout: 5_000,
    timeoutMsg: "the navigation did not turn Chinese",
  });
  await h.shot("settings-zh");
  // The statement in Chinese.
  await h.click(id("nav-reports"));
  await h.waitFor(id("statement-currency"), 20_000);
  assert.match(await h.text(id("reports-days")), /对比/);
  await h.shot("reports-zh");
  await h.click(id("nav-settings"));
  await h.pickLanguage("English");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "Orders", {
    timeout: 5_000,
  });
});

test("the dark theme is readable", async () => {
  await h.click(id("nav-settings"));
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Dark"]');
  await browser.waitUntil(
    async () =>
      (await browser.execute(() => document.documentElement.dataset.mantineColorScheme)) === "dark",
    { timeout: 5_000, timeoutMsg: "the scheme did not turn dark" },
  );
  await h.shot("settings-dark");
  await checkAxe("settings, dark");
  // A field's error in dark: red that reads on the dark input and page (axe checks it).
  await h.typeInto(id("key-import-text"), "this is not a private key");
  await h.click(id("key-import-run"));
  await h.waitFor(
    `//*[contains(@class, "InputWrapper-error")][ancestor::*[.//*[@data-testid="key-import-text"]]]`,
  );
  await h.shot("settings-key-error-dark");
  await checkAxe("settings with a field error, dark");
  await h.typeInto(id("key-import-text"), "");
  await h.click(id("nav-orders"));
  await h.waitFor(id("order-row"));
  await h.shot("orders-dark");
  await checkAxe("orders, dark");
  await h.click(id("nav-settings"));
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Light"]');
});

test("importing a wrong key shows a clear error and keeps the current key", async () => {
  await h.click(id("nav-settings"));
  const fingerprint = await h.text(id("merchant-key-fingerprint"));
  await h.typeInto(id("key-import-text"), "this is not a private key");
  await h.click(id("key-import-run"));
  const error = await h.waitFor(
    `//*[contains(@class, "InputWrapper-error")][ancestor::*[.//*[@data-testid="key-import-text"]]]`,
  );
  const text = (await browser.execute((e) => e.textContent ?? "", error)).trim();
  assert.match(text, /\S+: \S+/, `the error names the field and the rule: ${text}`);
  await h.shot("settings-key-error");
  assert.equal(await h.text(id("merchant-key-fingerprint")), fingerprint);
});

test("the built-in sandbox's name is reserved: the app says what the CLI says", async () => {
  // One rule in the core for both front ends (the CLI's `profile add sandbox
  // --base-url ...` gets the same words: tests/cli/hostile_input.rs): what is
  // wrong is the name, not the address.
  await h.click(id("nav-settings"));
  await h.click(id("profile-add"));
  await h.waitFor(id("profile-form"));
  await h.typeInto(id("profile-name"), "sandbox");
  await h.typeInto(id("profile-base-url"), "https://gw.example");
  await h.typeInto(id("profile-mer-no"), "10001");
  await h.click(id("profile-save"));
  const error = await h.waitFor(
    `//*[@data-testid="profile-name"]/ancestor::*[contains(@class, "InputWrapper-root")][1]//*[contains(@class, "InputWrapper-error")]`,
  );
  const text = (await browser.execute((e) => e.textContent ?? "", error)).trim();
  assert.match(text, /reserved for the built-in sandbox/);
  await h.shot("settings-sandbox-address");
  await browser.keys("Escape");
  // Nothing changed: the sandbox profile is still the built-in one.
  const row = await h.waitFor(`${id("profile-row")}[data-name="sandbox"]`);
  assert.doesNotMatch(await row.getText(), /gw\.example/);
});
