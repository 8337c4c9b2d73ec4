// A gateway PayDesk was not built with, through the app's window (issue 29, item 4): the
// built-in sandbox speaks another gateway's conventions (other state values and codes,
// success code "0", dateLimit read in Asia/Shanghai, pages of at most 100 and spans of at
// most 6 hours, top-ups not listed). The built-in profile starts with the sandbox's own
// reading, so its first run and its connection check fail and name the setting to
// change; then, as a person would, Settings → Conventions → Import (the file's text
// pasted) → Check connection → Orders → Sync now: every order the sandbox seeded is
// synced, each in the state the gateway gave, read through the conventions.
// The same scenario through the CLI: tests/cli/other_gateway.rs.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

/// The other gateway's conventions, as its support would describe them: the JSON of
/// `other_conventions()` in tests/cli/other_gateway.rs, written by hand there.
const OTHER = {
  format: 1,
  name: "other gateway",
  states: {
    orderState: {
      0: "created",
      1: "processing",
      2: "success",
      3: "failed",
      4: "closed",
      5: "refunded",
      6: "partly_refunded",
      7: "charged_back",
    },
    payCode: { 10: "success", 11: "failed", 12: "processing" },
    queryStatus: {
      OK: "success",
      WAIT: "processing",
      BAD: "failed",
      SHUT: "closed",
      BACK: "refunded",
    },
  },
  successCodes: ["0"],
  duplicateCodes: ["DUP"],
  notFoundCodes: ["NONE"],
  timeZone: "Asia/Shanghai",
  maxPageSize: 100,
  maxSpanHours: 6,
  listShows: { payins: true, payouts: true, topUps: false, withdrawals: true },
};

/// The orders the built-in sandbox seeds on its first start (`DEMO_ORDERS` in
/// crates/session/src/builtin.rs), spread over the 90 days before it: payins and payouts
/// only (crates/sandbox/src/seed.rs makes no top-ups or withdrawals), all of which this
/// gateway's list shows. The sandbox's simulation API has no count of its orders, so
/// this is the number a 90-day sync must find.
const DEMO_ORDERS = 3000;

/// The sandbox's own order states (crates/sandbox/src/model.rs, `st`) and what each
/// means: the other gateway lists them under other values (its `orderState` above), and
/// the desk must show this meaning for each.
const OWN_STATE_MEANING = {
  1: "created",
  2: "processing",
  3: "failed",
  4: "closed",
  5: "success",
  6: "refunded",
  7: "partly_refunded",
  8: "charged_back",
};

let app;
let browser;
let h;
const id = (x) => `[data-testid="${x}"]`;
const SANDBOX_ROW = `${id("profile-row")}[data-name="sandbox"]`;

before(async () => {
  app = await startApp({
    env: { PAYDESK_SANDBOX_BEHAVIOUR: JSON.stringify({ speaks: OTHER }) },
  });
  browser = app.browser;
  h = helpers(browser);
});

after(async () => {
  await app?.stop();
});

beforeEach(async () => {
  await h?.closeOverlays();
});

/// The DOM's value of an input.
const inputValue = async (selector) => browser.execute((e) => e.value, await h.waitFor(selector));
/// An element's DOM text, whatever it is (empty included).
const domText = async (el) => (await browser.execute((e) => e.textContent ?? "", el)).trim();

async function total() {
  const el = await h.waitFor(id("orders-count"));
  return Number(await el.getAttribute("data-total"));
}

/// The window in English (the web view keeps the language of an earlier run).
async function english() {
  if ((await h.text(id("nav-orders"))) === "Orders") return;
  await h.click(id("nav-dashboard"));
  await h.click(id("nav-settings"));
  await h.waitFor(id("screen-settings"));
  await h.pickLanguage("English");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "Orders", {
    timeout: 5_000,
    timeoutMsg: "the navigation did not turn English",
  });
}

/// The light theme, whatever an earlier run left (the web view keeps it): the
/// screenshots are comparable from run to run.
async function light() {
  if (
    (await browser.execute(() => document.documentElement.dataset.mantineColorScheme)) === "light"
  )
    return;
  await h.click(id("nav-settings"));
  await h.waitFor(id("screen-settings"));
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Light"]');
  await browser.waitUntil(
    async () =>
      (await browser.execute(() => document.documentElement.dataset.mantineColorScheme)) ===
      "light",
    { timeout: 5_000, timeoutMsg: "the scheme did not turn light" },
  );
  await h.click(id("nav-dashboard"));
}

/// No toast over the screen (they close by themselves after a few seconds).
async function noToasts() {
  await browser
    .waitUntil(async () => (await browser.$$(".mantine-Notification-root")).length === 0, {
      timeout: 10_000,
    })
    .catch(() => {});
}

async function openConventions() {
  await h.click(id("nav-settings"));
  await h.waitFor(id("screen-settings"));
  await h.click(`${SANDBOX_ROW} ${id("profile-conventions")}`);
  await h.waitFor(`${id("conventions-panel")}[data-profile="sandbox"]`);
  await browser.pause(600);
}

async function closeDrawer() {
  await browser.keys("Escape");
  await h.gone(id("conventions-panel"), 10_000);
}

/// The connection check of the built-in profile, run and finished.
async function check() {
  await h.click(id("nav-settings"));
  await h.waitFor(id("screen-settings"));
  await h.click(`${SANDBOX_ROW} ${id("profile-check")}`);
  return h.waitFor(id("check-summary"), 60_000);
}

async function closeCheck() {
  await browser.keys("Escape");
  await h.gone(id("check-panel"), 10_000);
  await browser.pause(400);
}

/// The findings of the check on screen: what, outcome, the setting named, the words.
async function findings() {
  const out = [];
  for (const el of await browser.$$(id("check-item"))) {
    const setting = await el.$(id("check-setting"));
    out.push({
      what: await el.getAttribute("data-what"),
      outcome: await el.getAttribute("data-outcome"),
      setting: (await setting.isExisting()) ? await setting.getAttribute("data-setting") : null,
      text: await domText(el),
    });
  }
  return out;
}

/// The sandbox's address, as the check shows it ("Gateway: http://127.0.0.1:PORT/").
let gateway = null;

/// The sandbox's own record of an order, from its simulation API.
async function sandboxOrder(tradeNo) {
  const r = await fetch(new URL(`__sandbox/orders/${encodeURIComponent(tradeNo)}`, gateway));
  assert.equal(r.status, 200, `the sandbox has no order ${tradeNo}`);
  return (await r.json()).order;
}

/// The rendered rows: trade number and the meaning its state badge shows.
async function rowMeanings() {
  const out = [];
  for (const r of await browser.$$(id("order-row"))) {
    const tradeNo = await r.getAttribute("data-trade-no");
    const badge = await r.$("[data-meaning]");
    if (!tradeNo || !(await badge.isExisting())) continue;
    out.push({
      tradeNo,
      meaning: await badge.getAttribute("data-meaning"),
      label: await domText(badge),
    });
  }
  return out;
}

test("before the profile says the other gateway's conventions, the first run and the check fail naming the setting to change", async () => {
  await h.waitFor(id("screen-dashboard"), 60_000);
  await english();
  await light();
  assert.equal(await h.firstRunDone(), "failed", "pages of 500 cannot be read from this gateway");
  // The dashboard says the sync failed, and which settings to change.
  const attention = await h.waitFor(id("dashboard-attention"));
  let said = "";
  await browser.waitUntil(
    async () => {
      said = await domText(attention);
      return /maxPageSize/.test(said);
    },
    { timeout: 20_000, timeoutMsg: () => `the dashboard does not name the page size: ${said}` },
  );
  assert.match(said, /maxSpanHours/);
  await h.shot("other-gateway-first-run-failed");

  const summary = await check();
  assert.equal(await summary.getAttribute("data-ok"), "false");
  const found = await findings();
  const failed = found.filter((f) => f.outcome === "fails");
  assert.ok(failed.length > 0, JSON.stringify(found));
  // Each failure names a setting, and the page size is among them, in words and on the
  // button that opens it.
  assert.ok(
    failed.some((f) => f.setting === "conventions.maxPageSize" && /maxPageSize/.test(f.text)),
    `no failure names maxPageSize: ${JSON.stringify(failed)}`,
  );
  // The balance answered with the other gateway's success code "0": a refusal to a desk
  // that knows only "00000", with the member to add it to.
  assert.ok(
    failed.some((f) => f.what === "balance" && f.setting === "conventions.successCodes"),
    `the balance's failure does not name successCodes: ${JSON.stringify(failed)}`,
  );
  await browser.pause(800);
  await h.shot("other-gateway-check-failed");
  await closeCheck();
});

test("the conventions imported from their pasted text and saved: the check works", async () => {
  await openConventions();
  assert.equal(await inputValue(id("conv-maxPageSize")), "500");
  await h.click(id("conv-import-open"));
  await h.waitFor(id("conv-import"));
  await h.typeInto(id("conv-import-text"), JSON.stringify(OTHER, null, 2));
  await h.click(id("conv-import-read"));
  // What the file changes, shown before anything is saved.
  const sets = await h.waitFor(id("conv-import-sets"), 20_000);
  const members = [];
  for (const row of await sets.$$("tr[data-member]"))
    members.push(await row.getAttribute("data-member"));
  for (const m of ["timeZone", "maxPageSize", "maxSpanHours", "successCodes"]) {
    assert.ok(
      members.some((x) => x === m || x.startsWith(`${m}.`)),
      `${m} not among ${members}`,
    );
  }
  // A state field the file leaves out: said to have no known values, not left blank.
  const refunds = await h.waitFor(`${id("conv-import-sets")} tr[data-member="states.refundState"]`);
  assert.match(await domText(refunds), /shown raw/);
  await browser.pause(400);
  await h.shot("other-gateway-import");
  await h.click(id("conv-import-save"));
  await h.gone(id("conv-import"), 30_000);
  // The drawer reads the saved conventions again.
  await browser.waitUntil(async () => (await inputValue(id("conv-maxPageSize"))) === "100", {
    timeout: 20_000,
    timeoutMsg: "the imported page size is not shown",
  });
  assert.equal(await inputValue(id("conv-timeZone")), "Asia/Shanghai");
  assert.equal(await inputValue(id("conv-maxSpanHours")), "6");
  await closeDrawer();

  const summary = await check();
  const found = await findings();
  assert.equal(await summary.getAttribute("data-ok"), "true", JSON.stringify(found));
  const works = found.filter((f) => f.outcome === "works").map((f) => f.what);
  assert.ok(works.includes("balance"), `works: ${works}`);
  assert.ok(works.includes("orderList"), `works: ${works}`);
  const list = found.find((f) => f.what === "orderList");
  assert.match(list.text, /Asia\/Shanghai/);
  assert.match(list.text, /pages of 100/);
  const address = /https?:\/\/127\.0\.0\.1:\d+\//.exec(
    await domText(await h.waitFor(id("check-panel"))),
  );
  assert.ok(address, "the check shows the gateway's address");
  gateway = address[0];
  await browser.pause(800);
  await h.shot("other-gateway-check-works");
  await closeCheck();
});

test("Sync now reads every order the sandbox seeded, each in the state the gateway gave", async () => {
  assert.ok(gateway, "the check before found the sandbox's address");
  await h.click(id("nav-orders"));
  await h.waitFor(id("screen-orders"));
  // The default is the last 90 days, the span the sandbox seeded its orders over,
  // counted back from its first start; a day more, so that its oldest order (seeded at
  // that start less 90 days) is in range even when the sync's first window, on the
  // conventions' 6-hour grid, moved on since that start.
  assert.equal(await inputValue("#sync-days"), "90");
  await h.typeInto("#sync-days", "91");
  await browser.waitUntil(async () => (await inputValue("#sync-days")) === "91", {
    timeout: 5_000,
    timeoutMsg: "the days to sync did not take 91",
  });
  await h.click(id("sync-button"));
  // Done: the last sync of this session (the first run's failed) is this one, succeeded.
  await h.waitFor(`${id("sync-progress")}[data-done="true"]`, 180_000);
  assert.equal((await browser.$$(id("error-alert"))).length, 0, "the sync failed");
  assert.equal((await browser.$$(id("sync-refused"))).length, 0, "orders refused");
  assert.equal((await browser.$$(id("sync-incomplete"))).length, 0, "windows incomplete");
  await browser.waitUntil(async () => (await total()) === DEMO_ORDERS, {
    timeout: 20_000,
    timeoutMsg: async () => `the table counts ${await total()} orders, not ${DEMO_ORDERS}`,
  });
  assert.match(await h.text(id("orders-count")), /^3,000 orders/);
  const read = await h.text(id("sync-read"));
  assert.equal(Number(read.replace(/\D/g, "")), DEMO_ORDERS, read);

  // Each row's state as the sandbox keeps it, read through the conventions: the
  // other gateway listed it under another value.
  await h.waitFor(id("order-row"));
  const rows = await rowMeanings();
  assert.ok(rows.length >= 10, `only ${rows.length} rows rendered`);
  for (const r of rows) {
    const own = await sandboxOrder(r.tradeNo);
    assert.equal(
      r.meaning,
      OWN_STATE_MEANING[own.state],
      `${r.tradeNo} (sandbox state ${own.state})`,
    );
  }
  await noToasts();
  await h.shot("other-gateway-orders");

  // Every state the orders have is one the conventions know: all of them picked, the
  // table still counts every order.
  const filter = await h.click(id("filter-state"));
  const options = await browser.$$('[role="listbox"][aria-label="State"] [role="option"]');
  const labels = [];
  for (const o of options) labels.push(await domText(o));
  assert.deepEqual(
    [...labels].sort(),
    [
      "Charged back",
      "Closed",
      "Created",
      "Failed",
      "Partly refunded",
      "Processing",
      "Refunded",
      "Success",
    ],
    "the state filter offers the conventions' meanings",
  );
  // Each meaning under the other gateway's value for it: paid is its "2", not the
  // sandbox's own "5" (and "2" is not read as the sandbox's "pending").
  const raw = {};
  for (const o of options) raw[await domText(o)] = await o.getAttribute("value");
  assert.equal(raw.Success, "2");
  assert.equal(raw.Processing, "1");
  assert.equal(raw.Created, "0");
  for (const o of options) await o.click();
  await browser.waitUntil(async () => (await filter.getAttribute("data-count")) === "8", {
    timeout: 5_000,
  });
  await browser.waitUntil(async () => (await total()) === DEMO_ORDERS, {
    timeout: 10_000,
    timeoutMsg: async () => `with every known state picked: ${await total()} orders`,
  });
  // Success alone (the other gateway's "2", the sandbox's own "processing"): only
  // orders the sandbox keeps as paid.
  for (const o of options) {
    if ((await domText(o)) !== "Success") await o.click();
  }
  await browser.keys("Escape");
  await browser.waitUntil(async () => (await filter.getAttribute("data-count")) === "1", {
    timeout: 5_000,
  });
  await browser.waitUntil(async () => (await total()) < DEMO_ORDERS, { timeout: 10_000 });
  const paid = await total();
  assert.ok(paid > DEMO_ORDERS / 2, `${paid} paid orders`);
  await browser.waitUntil(
    async () => {
      const shown = await rowMeanings();
      return shown.length > 0 && shown.every((r) => r.meaning === "success");
    },
    { timeout: 10_000, timeoutMsg: "the filtered rows are not all paid" },
  );
  for (const r of (await rowMeanings()).slice(0, 10)) {
    assert.equal(r.label, "Success");
    assert.equal(
      (await sandboxOrder(r.tradeNo)).state,
      5,
      `${r.tradeNo} is not paid at the sandbox`,
    );
  }
  await h.shot("other-gateway-orders-paid");
});

test("the synced orders in Chinese", async (t) => {
  t.after(async () => {
    await h.closeOverlays();
    await english();
  });
  await h.click(id("nav-settings"));
  await h.waitFor(id("screen-settings"));
  await h.pickLanguage("简体中文");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "订单", {
    timeout: 5_000,
    timeoutMsg: "the navigation did not turn Chinese",
  });
  await h.click(id("nav-orders"));
  await h.waitFor(id("screen-orders"));
  await h.waitFor(id("order-row"));
  assert.match(await h.text(id("orders-count")), /3,?000 笔订单/);
  const rows = await rowMeanings();
  assert.ok(rows.length > 0);
  const zh = { success: "成功", failed: "失败", processing: "处理中", created: "已创建" };
  for (const r of rows) {
    if (zh[r.meaning]) assert.equal(r.label, zh[r.meaning], r.tradeNo);
  }
  await noToasts();
  await h.shot("other-gateway-orders-zh");
});
