// Saved views in the real window (issue 36, item 1): on Orders, "Last 7 days", columns
// rearranged and the sort are saved as a view from the keyboard; the app is quit and
// started again on the same home, and the screen opens with that view, its dates the
// last 7 days of today in the business's time zone (changed meanwhile: resolved when
// applied, never frozen when saved). Also looked at in Chinese and dark.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

const id = (x) => `[data-testid="${x}"]`;
const VIEW = "Week by amount";
/// UTC+14 all year: its "today" is a day ahead of UTC's for ten hours of each day, so
/// ranges resolved in UTC or in the machine's zone would differ.
const ZONE = "Pacific/Kiritimati";
const ZONE_HOURS = 14;

let app;
let browser;
let h;
let home;

async function openApp() {
  app = await startApp({ home });
  browser = app.browser;
  h = helpers(browser);
}

before(async () => {
  home = mkdtempSync(path.join(tmpdir(), "paydesk-e2e-"));
  await openApp();
});

after(async () => {
  await app?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

const cacheFile = () => path.join(home, "data", "sandbox.sqlite");
const sql = (query) =>
  execFileSync("sqlite3", ["-cmd", ".timeout 5000", cacheFile(), query], {
    encoding: "utf8",
    timeout: 30_000,
  }).trim();

const total = async () =>
  Number(await (await browser.$(id("orders-count"))).getAttribute("data-total"));

/// The table's header cells, in order.
const headers = () =>
  browser.execute(() =>
    [...document.querySelectorAll('[data-testid="orders-table"] th')].map((th) => ({
      text: th.textContent,
      width: Math.round(th.getBoundingClientRect().width),
    })),
  );

/// The last 7 days (today and the six before) of the calendar `offsetHours` east of
/// UTC, as UTC millis [from, to).
function lastSevenDays(offsetHours) {
  const shift = offsetHours * 3_600_000;
  const there = new Date(Date.now() + shift);
  const y = there.getUTCFullYear();
  const m = there.getUTCMonth();
  const d = there.getUTCDate();
  return [Date.UTC(y, m, d - 6) - shift, Date.UTC(y, m, d + 1) - shift];
}

/// Opens the orders' views menu with the keyboard and moves to the item `testid`, then
/// Enter.
const menuPick = (testid) => menuPickOn("orders", testid);

test("a view with 'Last 7 days', columns and sort comes back after a restart, relative to today", async () => {
  await h.waitFor(id("screen-dashboard"), 60_000);
  await h.english();
  assert.equal(await h.firstRunDone(), "done");
  await h.go("orders");
  const all = await total();
  assert.ok(all > 0, "the demo orders are cached");

  // Last 7 days, from the keyboard; the fee column hidden, the trade number moved first
  // and widened; sorted by amount, largest first.
  await h.choose(id("filter-dates"), "Last 7 days");
  // (The cache file is read with sqlite3 only while the app is stopped: a second
  // process that finds the write-ahead log unlocked takes it away under the app.)
  await browser.waitUntil(async () => (await total()) < all, {
    timeout: 10_000,
    timeoutMsg: "the last 7 days did not narrow the table",
  });
  const week = await total();
  await h.click(id("column-chooser"));
  await h.click(id("column-toggle-fee"));
  for (let i = 0; i < 2; i++) await h.click(id("column-up-tradeNo"));
  const width = await h.waitFor(id("column-width-tradeNo"));
  await width.click();
  await browser.keys(["Control", "a"]);
  await browser.keys("Control");
  await browser.keys([..."240"]);
  await browser.keys("Escape");
  await h.click(id("sort-sourceAmount"));
  await h.click(id("sort-sourceAmount"));
  await browser.waitUntil(
    async () =>
      (await browser.execute(
        () =>
          document.querySelector('[data-testid="sort-sourceAmount"]')?.closest("th")?.ariaSort ??
          "",
      )) === "descending",
    { timeout: 5_000, timeoutMsg: "not sorted by amount, largest first" },
  );
  const arranged = await headers();
  assert.equal(arranged[0]?.text, "Trade number");
  assert.equal(arranged[0]?.width, 240);
  assert.ok(!arranged.some((c) => c.text === "Fee"));

  // Saved as a view, menu and form from the keyboard.
  await menuPick("view-save-new");
  const name = await h.waitFor(id("view-name"));
  await browser.waitUntil(async () => await name.isFocused(), { timeout: 5_000 });
  await h.typeInto(id("view-name"), VIEW);
  await h.settled();
  await h.shot("views-save");
  await browser.keys("Enter");
  await browser.waitUntil(
    async () =>
      (await (await browser.$(id("views-orders"))).getAttribute("data-selected")) === VIEW,
    { timeout: 10_000, timeoutMsg: "the saved view is not the one shown" },
  );
  // Another arrangement on screen when the app quits (the view must bring its own).
  await h.click(id("clear-filters"));
  await h.click(id("column-chooser"));
  await h.click(id("column-toggle-fee"));
  await browser.keys("Escape");
  await browser.waitUntil(async () => (await total()) === all, { timeout: 10_000 });

  // The business moves to UTC+14 while the app is closed; the view resolves its dates
  // there when the screen opens again.
  await app.stop();
  // Kept relative: no fixed dates in what the desk stored.
  const stored = sql(`SELECT spec FROM saved_views WHERE name = '${VIEW}';`);
  assert.ok(stored, "the view is in the desk's file");
  const spec = JSON.parse(stored);
  assert.deepEqual(spec.dates, { kind: "relative", range: "last7Days" });
  assert.equal(spec.orderFilter.from, null);
  assert.deepEqual(spec.sort, { key: "amount", descending: true });
  assert.equal(spec.columns[0].id, "tradeNo");
  assert.equal(spec.columns[0].width, 240);

  // The table showed the last 7 days of today in UTC, the business zone then.
  const [from, to] = lastSevenDays(0);
  assert.equal(
    Number(sql(`SELECT count(*) FROM orders WHERE created_at >= ${from} AND created_at < ${to};`)),
    week,
  );
  const profilesFile = path.join(home, "profiles.json");
  const profiles = JSON.parse(readFileSync(profilesFile, "utf8"));
  profiles.reporting = {
    ...(profiles.reporting ?? {}),
    sandbox: { businessZone: ZONE, changeHorizonDays: 120 },
  };
  writeFileSync(profilesFile, JSON.stringify(profiles, null, 2));
  // The gateway's list dates its orders by day (UTC midnights), which 7 days in most
  // zones take alike: one older order is moved to the first hours of the zone's week,
  // before the first day of UTC's, so the two ranges find different orders.
  const [zFrom, zTo] = lastSevenDays(ZONE_HOURS);
  sql(
    `UPDATE orders SET created_at = ${zFrom + 60_000} WHERE trade_no = (SELECT trade_no FROM orders WHERE created_at < ${zFrom} ORDER BY created_at DESC LIMIT 1);`,
  );
  const inWindow = (f, t) =>
    Number(sql(`SELECT count(*) FROM orders WHERE created_at >= ${f} AND created_at < ${t};`));
  const zoned = inWindow(zFrom, zTo);
  assert.notEqual(zoned, inWindow(from, to), "the zone's week and UTC's hold different orders");
  await openApp();
  await h.waitFor(id("screen-dashboard"), 60_000);
  await h.go("orders");
  await browser.waitUntil(
    async () =>
      (await (await browser.$(id("views-orders"))).getAttribute("data-selected")) === VIEW,
    { timeout: 20_000, timeoutMsg: "the orders screen did not open with its last view" },
  );
  await browser.waitUntil(async () => (await total()) === zoned, {
    timeout: 10_000,
    timeoutMsg: `the view's last 7 days in ${ZONE} are not ${zoned} orders (shown: ${await total()})`,
  });
  assert.equal(
    await browser.execute(() => document.querySelector('[data-testid="filter-dates"]')?.value),
    "Last 7 days",
  );
  const back = await headers();
  assert.equal(back[0]?.text, "Trade number");
  assert.equal(back[0]?.width, 240);
  assert.ok(!back.some((c) => c.text === "Fee"), "the view's columns came back");
  assert.equal(
    await browser.execute(
      () => document.querySelector('[data-testid="sort-sourceAmount"]')?.closest("th")?.ariaSort,
    ),
    "descending",
  );
  await h.settled();
  await h.shot("views-after-restart");

  // The menu in Chinese and dark, as a user there sees it.
  await h.click(id("nav-settings"));
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Dark"]');
  await h.pickLanguage("简体中文");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "订单", {
    timeout: 5_000,
  });
  await h.go("orders");
  await h.click(id("views-orders"));
  await h.waitFor(id("view-update"));
  assert.match(await h.text(id("views-menu")), /另存为新视图/);
  await h.settled();
  await h.shot("views-menu-zh-dark");
  await browser.keys("Escape");
  await h.click(id("nav-settings"));
  await h.pickLanguage("English");
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Light"]');
});

test("Activity, Refunds and Events keep views too: the last one is back when the screen opens", async () => {
  await h.go("activity");
  await h.waitFor(id("audit-table"), 30_000);
  await h.choose(id("activity-dates"), "Today");
  await menuPickOn("activity", "view-save-new");
  await h.typeInto(id("view-name"), "Today's log");
  await browser.keys("Enter");
  const selected = async (screen) =>
    (await (await browser.$(id(`views-${screen}`))).getAttribute("data-selected")) ?? "";
  await browser.waitUntil(async () => (await selected("activity")) === "Today's log", {
    timeout: 10_000,
    timeoutMsg: "the activity view was not saved",
  });
  await h.settled();
  await h.shot("views-activity");
  // Away and back: the screen opens with it, its dates "Today" again.
  await h.go("events");
  await h.waitFor(id("views-events"));
  await h.settled();
  await h.shot("views-events");
  await h.go("refunds");
  await h.waitFor(id("views-reversals"));
  await h.settled();
  await h.shot("views-refunds");
  await h.go("activity");
  await browser.waitUntil(async () => (await selected("activity")) === "Today's log", {
    timeout: 10_000,
    timeoutMsg: "the activity screen did not open with its last view",
  });
  // The view's dates are applied once its spec is read back (a moment after it is chosen).
  const dates = () =>
    browser.execute(() => document.querySelector('[data-testid="activity-dates"]')?.value);
  await browser.waitUntil(async () => (await dates()) === "Today", {
    timeout: 10_000,
    timeoutMsg: "the activity view's dates did not come back",
  });
});

/// The views menu of `screen`, opened and walked with the keyboard to `testid`, then
/// Enter.
async function menuPickOn(screen, testid) {
  const button = await h.waitFor(id(`views-${screen}`));
  await browser.execute((e) => e.focus(), button);
  await browser.keys("Enter");
  await h.waitFor(id("views-menu"));
  for (let i = 0; i < 12; i++) {
    const at = await browser.execute(() => document.activeElement?.dataset?.testid ?? "");
    if (at === testid) break;
    await browser.keys("ArrowDown");
  }
  assert.equal(
    await browser.execute(() => document.activeElement?.dataset?.testid ?? ""),
    testid,
    `the keyboard did not reach ${testid}`,
  );
  await browser.keys("Enter");
}
