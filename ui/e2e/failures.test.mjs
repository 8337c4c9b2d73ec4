// Why money did not come in, in the real window (issue 36, item 2): the Reports screen
// shows the failure breakdown of the period with its definition of the success rate;
// a reason's count equals the cache's own count of those orders (read here with
// sqlite3), and clicking it opens Orders filtered to exactly those orders. The
// Dashboard shows the compact card. Looked at in English, then in Chinese.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { after, before, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

const id = (x) => `[data-testid="${x}"]`;

let app;
let browser;
let h;

before(async () => {
  app = await startApp();
  browser = app.browser;
  h = helpers(browser);
});

after(async () => {
  await app?.stop();
});

const cacheFile = () => path.join(app.home, "data", "sandbox.sqlite");

const sql = (query) =>
  execFileSync("sqlite3", ["-cmd", ".timeout 5000", cacheFile(), query], {
    encoding: "utf8",
    timeout: 30_000,
  }).trim();

const quote = (s) => `'${s.replaceAll("'", "''")}'`;

/// UTC millis of a YYYY-MM-DD day's start (the built-in profile's business zone is UTC).
const dayStart = (d) => Date.parse(`${d}T00:00:00Z`);

async function reasonRows() {
  await h.waitFor(id("failures"), 30_000);
  return browser.$$(`${id("failure-reasons")} tbody tr`);
}

test("the failure breakdown shows on Reports and a reason's count opens exactly its orders", async () => {
  await h.waitFor(id("screen-dashboard"), 60_000);
  await h.english();
  assert.equal(await h.firstRunDone(), "done");

  // The Dashboard's compact card: the last 7 days against the 7 before.
  await h.waitFor(id("dashboard-failures"), 30_000);
  assert.match(await h.text(id("dashboard-failures")), /Why money did not come in/);
  await h.shot("failures-dashboard");

  await h.go("reports");
  // This month; the sandbox's 90 days of orders give failed and closed ones in it, else
  // in the month before.
  let rows = await reasonRows();
  if (rows.length === 0) {
    await h.click(`${id("reports-period")} label:nth-of-type(4)`);
    await browser.waitUntil(async () => (await reasonRows()).length > 0, {
      timeout: 20_000,
      timeoutMsg: "no failed or closed order in this month or the last",
    });
    rows = await reasonRows();
  }
  assert.match(
    await h.text(id("failures-definition")),
    /Success rate = succeeded \/ \(succeeded \+ failed \+ closed\)/,
  );
  const days = await h.text(id("failures-days"));
  const [, from, to] = /^(\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})/.exec(days) ?? [];
  assert.ok(from && to, days);
  const start = dayStart(from);
  const end = dayStart(to) + 86_400_000;

  // Every reason line against the cache's own count (failed 3 and closed 4 in the
  // sandbox's dictionary), "not given" being an empty text in the cache.
  const lines = [];
  for (const row of await browser.$$(`${id("failure-reasons")} tbody tr`)) {
    const reason = await row.getAttribute("data-reason");
    const message = await row.getAttribute("data-message");
    const open = await row.$('[data-testid^="failure-reason-open-"]');
    const shown = Number(await open.getAttribute("data-count"));
    const own = Number(
      sql(
        `SELECT COUNT(*) FROM orders WHERE state IN (3, 4) AND refusal_pay_reason = ${quote(reason)} AND message = ${quote(message)} AND created_at >= ${start} AND created_at < ${end};`,
      ),
    );
    assert.equal(shown, own, `reason ${reason} / message ${message}`);
    lines.push({ reason, message, shown, testId: await open.getAttribute("data-testid") });
  }
  assert.ok(lines.length > 0);
  // A line the gateway gave no reason for says so, and none is made up.
  const text = await h.text(id("failure-reasons"));
  if (lines.some((l) => l.reason === "")) assert.match(text, /not given/);
  const all = Number(
    sql(
      `SELECT COUNT(*) FROM orders WHERE state IN (3, 4) AND created_at >= ${start} AND created_at < ${end};`,
    ),
  );
  assert.equal(
    lines.reduce((n, l) => n + l.shown, 0),
    all,
    "the reason lines add up to every failed and closed order of the period",
  );
  await browser.execute(() =>
    document.querySelector('[data-testid="failures"]')?.scrollIntoView({ block: "start" }),
  );
  await h.shot("failures-reports");
  assert.deepEqual(
    await h.axe(),
    [],
    "Reports with the failure breakdown: serious accessibility violations",
  );

  // Clicking the first line's count opens Orders with exactly its orders.
  const first = lines[0];
  await h.click(id(first.testId));
  await h.waitFor(id("screen-orders"));
  await browser.waitUntil(
    async () =>
      Number(await (await browser.$(id("orders-count"))).getAttribute("data-total")) ===
      first.shown,
    {
      timeout: 20_000,
      timeoutMsg: `Orders did not show the ${first.shown} orders of the reason`,
    },
  );
  const said = await h.text(id("orders-hidden-filters"));
  assert.ok(said.includes(`reason: ${first.reason === "" ? "not given" : first.reason}`), said);
  await h.settled();
  await h.shot("failures-orders");
  // Still exactly those orders once the screen has settled.
  const total = await (await browser.$(id("orders-count"))).getAttribute("data-total");
  const countText = await h.text(id("orders-count"));
  assert.equal(Number(total), first.shown, `orders count ${total}: ${countText}`);
  assert.ok(countText.startsWith(`${first.shown} order`), countText);

  // One currency's amount of that line opens that currency's orders of it.
  await h.go("reports");
  await h.waitFor(id("failures"), 30_000);
  const amount = await h.waitFor(`${id("failure-reason-0")} ${id("failure-amount")}`);
  const currency = await amount.getAttribute("data-currency");
  const inCurrency = Number(await amount.getAttribute("data-count"));
  const own = Number(
    sql(
      `SELECT COUNT(*) FROM orders WHERE state IN (3, 4) AND refusal_pay_reason = ${quote(first.reason)} AND message = ${quote(first.message)} AND currency = ${quote(currency)} AND created_at >= ${start} AND created_at < ${end};`,
    ),
  );
  assert.equal(inCurrency, own, `${currency} orders of the first line`);
  await h.click(`${id("failure-reason-0")} ${id("failure-amount")}`);
  await h.waitFor(id("screen-orders"));
  await browser.waitUntil(
    async () =>
      Number(await (await browser.$(id("orders-count"))).getAttribute("data-total")) === own,
    { timeout: 20_000, timeoutMsg: `Orders did not show the ${own} ${currency} orders` },
  );

  // In Chinese and dark too (the same figures, the words translated).
  await h.click(id("nav-settings"));
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Dark"]');
  await h.pickLanguage("简体中文");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "订单", {
    timeout: 5_000,
  });
  await h.go("reports");
  await h.waitFor(id("failures"), 30_000);
  assert.match(await h.text(id("failures")), /成功率/);
  await browser.execute(() =>
    document.querySelector('[data-testid="failures"]')?.scrollIntoView({ block: "start" }),
  );
  await h.shot("failures-reports-zh-dark");
  await h.click(id("nav-settings"));
  await h.pickLanguage("English");
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Light"]');
});
