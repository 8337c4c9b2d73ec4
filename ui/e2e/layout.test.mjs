// What a user sees of the Orders screen in a 1280×800 window: enough rows to work
// with, nothing cut, one scroll bar, and the columns they chose; in both themes.
import assert from "node:assert/strict";
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

/// The table's geometry as the user sees it: the rows wholly inside both the table's
/// visible area (under its header) and the window, and whether the page scrolls.
function measure() {
  return browser.execute(() => {
    const box = document.querySelector('[data-testid="orders-table"]');
    const head = box?.querySelector("thead");
    if (!box || !head) return null;
    const b = box.getBoundingClientRect();
    const top = head.getBoundingClientRect().bottom;
    const bottom = Math.min(b.top + box.clientTop + box.clientHeight, window.innerHeight);
    const rows = [...box.querySelectorAll('[data-testid="order-row"]')].filter((r) => {
      const x = r.getBoundingClientRect();
      return x.height > 0 && x.top >= top - 0.5 && x.bottom <= bottom + 0.5;
    });
    const page = document.scrollingElement;
    return {
      rows: rows.length,
      innerWidth: window.innerWidth,
      innerHeight: window.innerHeight,
      pageHeight: page ? page.scrollHeight : 0,
      tableHeight: box.clientHeight,
    };
  });
}

/// Every header cell, and every badge and cell of the rows on screen, whose content is
/// wider than the room it has: what the user would see cut.
function cut() {
  return browser.execute(() => {
    const box = document.querySelector('[data-testid="orders-table"]');
    if (!box) return ["no table"];
    const out = [];
    for (const th of box.querySelectorAll("th")) {
      if (th.scrollWidth > th.clientWidth + 1) out.push(`header "${th.textContent}"`);
    }
    for (const badge of box.querySelectorAll(".mantine-Badge-root")) {
      const cell = badge.closest("td");
      if (!cell) continue;
      const b = badge.getBoundingClientRect();
      const c = cell.getBoundingClientRect();
      const label = badge.querySelector(".mantine-Badge-label");
      if (b.right > c.right + 0.5 || (label && label.scrollWidth > label.clientWidth + 1)) {
        out.push(`badge "${badge.textContent}"`);
      }
    }
    for (const td of box.querySelectorAll('[data-testid="order-row"] td')) {
      if (td.scrollWidth > td.clientWidth + 1) out.push(`cell "${td.textContent}"`);
    }
    return [...new Set(out)];
  });
}

const headers = () =>
  browser.execute(() =>
    [...document.querySelectorAll('[data-testid="orders-table"] th')].map((th) =>
      (th.textContent ?? "").trim(),
    ),
  );

test("after a sync, the orders table fills the window: 20 rows, one scroll", async () => {
  await h.waitFor(id("screen-dashboard"), 60_000);
  await h.firstRunDone();
  await h.click(id("nav-orders"));
  await h.waitFor(id("screen-orders"));
  await h.click(id("sync-button"));
  await h.waitFor(`${id("sync-progress")}[data-done="true"]`, 120_000);
  await browser.waitUntil(
    async () =>
      Number(await (await browser.$(id("orders-count"))).getAttribute("data-total")) > 100,
    { timeout: 20_000, timeoutMsg: "the table did not fill after the sync" },
  );
  await h.waitFor(id("order-row"));
  // The rows of the first page come in after the total: wait for them to be painted.
  await browser.waitUntil(async () => ((await measure())?.rows ?? 0) >= 20, {
    timeout: 10_000,
    timeoutMsg: `too few rows on screen: ${JSON.stringify(await measure())}`,
  });
  const m = await measure();
  assert.equal(m.innerWidth, 1280, `the window is ${m.innerWidth}×${m.innerHeight}`);
  assert.equal(m.innerHeight, 800, `the window is ${m.innerWidth}×${m.innerHeight}`);
  assert.ok(m.rows >= 20, `only ${m.rows} rows wholly on screen`);
  // One scroll: the table scrolls, the page does not.
  assert.ok(m.pageHeight <= m.innerHeight + 1, `the page scrolls: ${JSON.stringify(m)}`);
  assert.deepEqual(await cut(), [], "nothing in the table is cut");
  await h.shot("layout-orders-light");
});

test("the last column's header is whole after scrolling the table to its right end", async () => {
  const edge = await browser.execute(() => {
    const box = document.querySelector('[data-testid="orders-table"]');
    if (!box) return null;
    box.scrollLeft = box.scrollWidth;
    const heads = box.querySelectorAll("th");
    const last = heads[heads.length - 1];
    if (!last) return null;
    const b = box.getBoundingClientRect();
    const l = last.getBoundingClientRect();
    return {
      scrolled: box.scrollLeft,
      overflow: box.scrollWidth - box.clientWidth,
      text: last.textContent,
      right: l.right,
      visibleRight: b.left + box.clientLeft + box.clientWidth,
      textCut: last.scrollWidth > last.clientWidth + 1,
    };
  });
  assert.ok(edge, "no table header");
  assert.ok(
    edge.overflow <= 0 || edge.scrolled > 0,
    `the table did not scroll: ${JSON.stringify(edge)}`,
  );
  assert.ok(
    edge.right <= edge.visibleRight + 0.5,
    `"${edge.text}" is cut: ${JSON.stringify(edge)}`,
  );
  assert.equal(edge.textCut, false, `"${edge.text}" is cut: ${JSON.stringify(edge)}`);
  // The page still does not scroll sideways or down.
  const page = await browser.execute(() => ({
    x: document.scrollingElement?.scrollWidth ?? 0,
    y: document.scrollingElement?.scrollHeight ?? 0,
    w: window.innerWidth,
    h: window.innerHeight,
  }));
  assert.ok(
    page.x <= page.w + 1 && page.y <= page.h + 1,
    `the page scrolls: ${JSON.stringify(page)}`,
  );
  await h.shot("layout-orders-scrolled-right");
  await browser.execute(() => {
    const box = document.querySelector('[data-testid="orders-table"]');
    if (box) box.scrollLeft = 0;
  });
});

test("the column chooser hides a column, and shows it again", async () => {
  assert.ok((await headers()).includes("Fee"));
  await h.click(id("column-chooser"));
  await h.waitFor(id("column-chooser-list"));
  await browser.pause(400);
  await h.shot("layout-column-chooser");
  await h.click(id("column-toggle-fee"));
  await browser.waitUntil(async () => !(await headers()).includes("Fee"), {
    timeout: 5_000,
    timeoutMsg: "the Fee column is still shown",
  });
  const cells = await browser.execute(
    () => document.querySelector('[data-testid="order-row"]')?.querySelectorAll("td").length ?? 0,
  );
  assert.equal(cells, (await headers()).length, "a row has a cell per header");
  // Kept on this machine with the columns' order and widths (a saved view keeps them too).
  const kept = await browser.execute(() => localStorage.getItem("paydesk.orders.columnLayout"));
  assert.deepEqual(JSON.parse(kept ?? "{}").hidden, ["fee"], "the choice is kept on this machine");
  await h.click(id("column-toggle-fee"));
  await browser.waitUntil(async () => (await headers()).includes("Fee"), { timeout: 5_000 });
  await browser.keys("Escape");
});

/// The filter bar's height: one line of 30-pixel fields.
const barHeight = () =>
  browser.execute(() => {
    const el = document.querySelector('[data-testid="filter-bar"]');
    return el ? el.getBoundingClientRect().height : 0;
  });

test("the filters are one bar; a preset and a state filter work from the keyboard", async () => {
  const bar = await barHeight();
  assert.ok(bar > 0 && bar <= 34, `the filter bar is ${bar}px high`);
  const before = Number(await (await browser.$(id("orders-count"))).getAttribute("data-total"));
  await h.choose(id("filter-dates"), "Last 7 days");
  await h.choose("#filter-state", "Pending");
  await browser.keys("Escape");
  await browser.waitUntil(
    async () =>
      Number(await (await browser.$(id("orders-count"))).getAttribute("data-total")) < before,
    { timeout: 10_000, timeoutMsg: "the filters did not narrow the table" },
  );
  assert.match(await h.text(id("filter-state")), /Pending/);
  // Still one line with the choices named on their fields.
  const chosen = await barHeight();
  assert.ok(chosen <= 34, `with filters chosen the filter bar is ${chosen}px high`);
  await h.shot("layout-orders-filtered");
  await h.click(id("clear-filters"));
  await browser.waitUntil(
    async () =>
      Number(await (await browser.$(id("orders-count"))).getAttribute("data-total")) === before,
    { timeout: 10_000, timeoutMsg: "clearing the filters did not bring every order back" },
  );
});

test("the orders screen in the dark theme: 20 rows, nothing cut", async () => {
  await h.click(id("nav-settings"));
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Dark"]');
  await browser.waitUntil(
    async () =>
      (await browser.execute(() => document.documentElement.dataset.mantineColorScheme)) === "dark",
    { timeout: 5_000, timeoutMsg: "the scheme did not turn dark" },
  );
  await h.click(id("nav-orders"));
  await h.waitFor(id("order-row"));
  await browser.waitUntil(async () => ((await measure())?.rows ?? 0) >= 20, { timeout: 10_000 });
  assert.deepEqual(await cut(), []);
  await h.shot("layout-orders-dark");
  await h.click(id("nav-settings"));
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Light"]');
});

test("in Chinese the orders screen still fits and nothing is cut", async () => {
  await h.click(id("nav-settings"));
  await h.pickLanguage("简体中文");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "订单", {
    timeout: 5_000,
  });
  await h.click(id("nav-orders"));
  await h.waitFor(id("order-row"));
  await browser.waitUntil(async () => ((await measure())?.rows ?? 0) >= 20, { timeout: 10_000 });
  const m = await measure();
  assert.ok(m.pageHeight <= m.innerHeight + 1, `the page scrolls: ${JSON.stringify(m)}`);
  assert.deepEqual(await cut(), []);
  await h.shot("layout-orders-zh");
  await h.click(id("nav-settings"));
  await h.pickLanguage("English");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "Orders", {
    timeout: 5_000,
  });
});

test("the balance chart's tooltip gives amounts with their currency", async () => {
  await h.click(id("nav-balances"));
  await h.waitFor(id("balance-row"), 20_000);
  const chart = await h.waitFor(`${id("balance-history")} .recharts-wrapper`);
  await chart.moveTo();
  const tip = await h.waitFor(id("chart-tooltip"), 5_000);
  const text = (await browser.execute((e) => e.textContent ?? "", tip)).trim();
  assert.match(text, /[A-Z]{3} -?[\d,]+(\.\d+)?/, `no amount with a currency in "${text}"`);
  await h.shot("layout-balance-tooltip");
});

test("the dashboard's volume tooltip gives the amount with its currency", async () => {
  await h.click(id("nav-dashboard"));
  await h.waitFor(id("screen-dashboard"));
  const chart = await h.waitFor(`${id("chart-volume")} .recharts-wrapper`, 20_000);
  await chart.moveTo();
  const tip = await h.waitFor(id("chart-tooltip"), 5_000);
  const text = (await browser.execute((e) => e.textContent ?? "", tip)).trim();
  assert.match(text, /[A-Z]{3} [\d,]+(\.\d+)?/, `no amount with a currency in "${text}"`);
  await h.shot("layout-dashboard-tooltip");
});

test("a notification's body opens beside the events list, which stays in place", async () => {
  // A payin of the built-in sandbox is notified to this desk a few seconds later.
  await h.click(id("nav-payins"));
  await h.choose(id("payin-method"), "WeChat Pay (V2)");
  await h.typeInto(id("payin-amount"), "12.50");
  await h.click(id("payin-submit"));
  assert.equal(await h.receiptStatus(["accepted", "rejected", "unknown"]), "accepted");
  const tradeNo = await h.text(id("receipt-trade-no"));
  await h.click(id("nav-events"));
  await h.waitFor(id("screen-events"));
  const row = `${id("events-table")} tr[data-trade-no="${tradeNo}"]`;
  await h.waitFor(row, 60_000);
  const head = await h.text(`${id("events-table")} thead`);
  assert.equal(head.match(/UTC/g)?.length, 1, `the zone is said once: "${head}"`);
  const place = () =>
    browser.execute((sel) => document.querySelector(sel)?.getBoundingClientRect().top ?? -1, row);
  const before = await place();
  await h.click(`${row} ${id("event-show-body")}`);
  const body = await h.waitFor(`${id("event-body")}[data-trade-no="${tradeNo}"]`);
  assert.match(await browser.execute((e) => e.textContent ?? "", body), /"tradeNo"/);
  assert.equal(await place(), before, "the list did not move");
  await browser.pause(400);
  await h.shot("layout-events-body");
  await browser.keys("Escape");
});
