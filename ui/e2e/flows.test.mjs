// Flows that finish (issue 33, items 4 and 7), in the real window against the built-in
// sandbox: the Orders table sorted by clicking its headers, an order found by its
// customer, a payroll file run twice, the dashboard's charts, Ctrl+K from a text field,
// and focus after navigating and sending; with screenshots in English and Chinese.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, beforeEach, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

let app;
let browser;
let h;
let files;
const id = (x) => `[data-testid="${x}"]`;

/// The window in English. The web view keeps the language chosen in its own storage,
/// across runs: a run that stopped in Chinese would leave the next one in it.
async function english() {
  if ((await h.text(id("nav-orders"))) === "Orders") return;
  await click(id("nav-dashboard"));
  await click(id("nav-settings"));
  await h.waitFor(id("screen-settings"));
  await h.pickLanguage("English");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "Orders", {
    timeout: 5_000,
    timeoutMsg: "the navigation did not turn English",
  });
}

/// Waits (10 s at most) until what is at the middle of `selector`'s element is the
/// element itself, not a notification sliding over it.
async function uncovered(selector) {
  await browser
    .waitUntil(
      async () =>
        browser.execute(
          (e) => {
            const r = e.getBoundingClientRect();
            const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return top !== null && (e.contains(top) || top.contains(e));
          },
          await h.waitFor(selector),
        ),
      { timeout: 10_000, interval: 200 },
    )
    .catch(() => {});
}

/// A click on an element brought to the middle of the window first: the notifications
/// stacked in its bottom-right corner cover what is near it.
async function click(selector) {
  for (let attempt = 1; ; attempt++) {
    const el = await h.waitFor(selector);
    await browser.execute((e) => e.scrollIntoView({ block: "center" }), el);
    try {
      // Clicked once it has stopped moving (the harness waits for that).
      return await h.click(selector);
    } catch (e) {
      // A notification sliding over the element goes by itself: looked at, then again
      // once it has gone.
      if (attempt >= 3 || !/intercepted/i.test(`${e?.message ?? ""} ${String(e)}`)) throw e;
      await h.shot(`flows-click-intercepted-${attempt}`);
      await uncovered(selector);
    }
  }
}

before(async () => {
  app = await startApp();
  browser = app.browser;
  h = helpers(browser);
  files = mkdtempSync(path.join(tmpdir(), "paydesk-e2e-flows-"));
  await h.waitFor(id("screen-dashboard"), 60_000);
  await english();
  await h.firstRunDone();
});

after(async () => {
  await app?.stop();
  if (files) rmSync(files, { recursive: true, force: true });
});

beforeEach(async () => {
  await h?.closeOverlays();
});

async function go(screen) {
  await click(id(`nav-${screen}`));
  await h.waitFor(id(`screen-${screen}`));
}

async function language(label, navLabel) {
  await go("settings");
  await h.pickLanguage(label);
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === navLabel, {
    timeout: 5_000,
    timeoutMsg: `the navigation did not turn to ${label}`,
  });
}

/// The values of one column in the rows wholly painted, top to bottom.
const column = (col) =>
  browser.execute((c) => {
    const rows = [...document.querySelectorAll('[data-testid="order-row"]')]
      .map((r) => ({ y: r.getBoundingClientRect().top, r }))
      .sort((a, b) => a.y - b.y);
    return rows.map(({ r }) => (r.querySelector(`td[data-col="${c}"]`)?.textContent ?? "").trim());
  }, col);

/// An amount as shown ("MXN 1,234.50", "USD -3.00") as a number, for comparing only.
const amountOf = (text) => Number(text.replace(/[^\d.-]/g, ""));

const ordered = (values, cmp) => values.every((v, i) => i === 0 || cmp(values[i - 1], v) <= 0);

async function sortBy(col, direction) {
  const th = await browser.$(`//th[.//*[@data-testid="sort-${col}"]]`);
  for (let i = 0; i < 3; i++) {
    const was = await th.getAttribute("aria-sort");
    if (was === direction) break;
    await click(id(`sort-${col}`));
    // The header says its new order once the table took the click; else clicked again.
    await browser
      .waitUntil(async () => (await th.getAttribute("aria-sort")) !== was, { timeout: 2_000 })
      .catch(() => {});
  }
  assert.equal(await th.getAttribute("aria-sort"), direction, `${col} is not ${direction}`);
}

async function rowsSorted(col, cmp, what) {
  let last = [];
  await browser.waitUntil(
    async () => {
      last = (await column(col)).filter((v) => v !== "");
      return last.length >= 10 && ordered(last, cmp);
    },
    { timeout: 15_000, timeoutMsg: `${what}: rows out of order: ${JSON.stringify(last)}` },
  );
  return last;
}

test("the orders table sorts by date, trade number, state and amount when their headers are clicked", async () => {
  await go("orders");
  await browser.waitUntil(
    async () =>
      Number(await (await browser.$(id("orders-count"))).getAttribute("data-total")) > 100,
    { timeout: 30_000, timeoutMsg: "the demo orders are not in the table" },
  );
  const byNumber = (a, b) => amountOf(a) - amountOf(b);
  await sortBy("sourceAmount", "ascending");
  const up = await rowsSorted("sourceAmount", byNumber, "amount ascending");
  await sortBy("sourceAmount", "descending");
  const down = await rowsSorted("sourceAmount", (a, b) => byNumber(b, a), "amount descending");
  assert.ok(amountOf(down[0]) > amountOf(up[0]), "the largest amount is not above the smallest");
  await h.shot("flows-orders-sorted-amount");

  const text = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  await sortBy("tradeNo", "ascending");
  await rowsSorted("tradeNo", text, "trade number ascending");
  await sortBy("tradeNo", "descending");
  await rowsSorted("tradeNo", (a, b) => text(b, a), "trade number descending");

  // The demo orders are dated by their day (YYYY-MM-DD), which sorts as text.
  await sortBy("createdAt", "ascending");
  const oldest = await rowsSorted("createdAt", text, "date ascending");
  await sortBy("createdAt", "descending");
  const newest = await rowsSorted("createdAt", (a, b) => text(b, a), "date descending");
  assert.ok(newest[0] > oldest[0], "the newest day is not after the oldest");

  // States sort by their code: each state's rows together, and the other end of the
  // list starts with another state.
  const grouped = (labels) =>
    labels.every((l, i) => labels.indexOf(l) === i || labels[i - 1] === l);
  await sortBy("state", "ascending");
  let first = [];
  await browser.waitUntil(
    async () => {
      first = (await column("state")).filter((v) => v !== "");
      return first.length >= 10 && grouped(first);
    },
    { timeout: 15_000, timeoutMsg: `states not grouped: ${JSON.stringify(first)}` },
  );
  await sortBy("state", "descending");
  let last = [];
  await browser.waitUntil(
    async () => {
      last = (await column("state")).filter((v) => v !== "");
      return last.length >= 10 && grouped(last) && last[0] !== first[0];
    },
    { timeout: 15_000, timeoutMsg: `descending states: ${JSON.stringify(last)} after ${first[0]}` },
  );
  await h.shot("flows-orders-sorted-state");
});

const tag = Date.now().toString(36);
const customer = {
  email: `ana.lima.${tag}@example.com`,
  userId: `cust-${tag}`,
  name: `Ana Lima ${tag}`,
};
let customerTradeNo = "";

/// Types into a field brought to the middle of the window (typing clicks it first, and
/// the notifications in the window's corner may cover it); tried again if one does.
async function typeInto(selector, text) {
  for (let attempt = 1; ; attempt++) {
    const el = await h.waitFor(selector);
    await browser.execute((e) => e.scrollIntoView({ block: "center" }), el);
    try {
      return await h.typeInto(selector, text);
    } catch (e) {
      if (attempt >= 3 || !/intercepted/i.test(`${e?.message ?? ""}`)) throw e;
      await h.shot(`flows-type-intercepted-${attempt}`);
      await uncovered(selector);
    }
  }
}

/// Closes the order's drawer and waits until it has gone: its overlay, while it fades,
/// takes the clicks meant for the screen under it.
async function closeDrawer() {
  await browser.keys("Escape");
  await browser
    .waitUntil(async () => (await browser.$$('[role="dialog"]')).length === 0, { timeout: 5_000 })
    .catch(() => {});
  await h.closeOverlays();
  await h.settled();
}

/// The palette's search field once the palette is open on screen (its dialog painted,
/// the field in view), not merely in the page.
async function paletteOpen() {
  // Bounded waits, long enough for a loaded 2-core machine (seen: over 5 s).
  const input = await h.waitFor('//*[@role="dialog"]//input', 15_000);
  await browser.waitUntil(async () => input.isDisplayed(), {
    timeout: 15_000,
    timeoutMsg: "the palette did not open",
  });
  await h.settled(); // its opening transition, for the screenshot
  return input;
}

test("an order this desk made is found by its customer's e-mail, name and user id, and its page names them", async () => {
  await go("payins");
  // The method's list may open under a notification: chosen again once it has gone.
  for (let attempt = 1; ; attempt++) {
    try {
      await h.choose(id("payin-method"), "PIX (Brazil)");
      break;
    } catch (e) {
      if (attempt >= 3 || !/intercepted/i.test(`${e?.message ?? ""}`)) throw e;
      await h.shot(`flows-choose-intercepted-${attempt}`);
      await browser.keys("Escape");
      await browser.pause(2_000);
    }
  }
  await typeInto(id("payin-amount"), "31.00");
  await typeInto(id("payin-email"), customer.email);
  await typeInto(id("payin-user-id"), customer.userId);
  await typeInto(id("payin-name"), customer.name);
  await typeInto(id("payin-ssn"), "123.456.789-09");
  await click(id("payin-submit"));
  assert.equal(await h.receiptStatus(["accepted", "rejected", "unknown"]), "accepted");
  customerTradeNo = await h.text(id("receipt-trade-no"));

  await go("orders");
  for (const fragment of [
    customer.email.slice(0, 14),
    customer.name.toUpperCase(),
    customer.userId,
  ]) {
    await typeInto(id("orders-search"), fragment);
    let found = [];
    await browser.waitUntil(
      async () => {
        found = await browser.execute(() =>
          [...document.querySelectorAll('[data-testid="order-row"]')].map((r) =>
            r.getAttribute("data-trade-no"),
          ),
        );
        return found.length === 1 && found[0] === customerTradeNo;
      },
      { timeout: 15_000, timeoutMsg: `"${fragment}" found ${JSON.stringify(found)}` },
    );
  }
  await click(`${id("order-row")}[data-trade-no="${customerTradeNo}"]`);
  const card = await h.waitFor(id("order-customer"), 20_000);
  const shown = await browser.execute((e) => e.textContent ?? "", card);
  for (const v of [customer.email, customer.userId, customer.name]) {
    assert.ok(shown.includes(v), `the order page does not show ${v}: ${shown}`);
  }
  await card.scrollIntoView();
  await h.settled(); // the drawer's opening transition, for the screenshot
  await h.shot("flows-order-customer");
  await closeDrawer();
  await go("orders");

  // Ctrl+K while the search field has focus opens the palette (it types no "k").
  const search = await h.waitFor(id("orders-search"));
  await browser.execute((e) => e.focus(), search);
  // The field may still hold the last search (a customer's id, which can end in "k"):
  // the value must be the same after Ctrl+K.
  const before = await search.getValue();
  await browser.keys(["Control", "k"]);
  await paletteOpen();
  assert.equal(
    await search.getValue(),
    before,
    "Ctrl+K typed into the field instead of opening the palette",
  );
  await h.shot("flows-palette-from-field");
  await browser.keys("Escape");
  await typeInto(id("orders-search"), "");
});

test("the palette's screen opens with focus on it, not on the page", async () => {
  await go("dashboard");
  await browser.keys(["Control", "k"]);
  const input = await paletteOpen();
  await browser.execute(
    (e, value) => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")?.set?.call(e, value);
      e.dispatchEvent(new Event("input", { bubbles: true }));
    },
    input,
    "Refunds",
  );
  await click(
    '//button[contains(@class, "mantine-Spotlight-action")][normalize-space(.)="Refunds"]',
  );
  await h.waitFor(id("screen-refunds"));
  let where = "";
  await browser.waitUntil(
    async () => {
      where = await browser.execute(() => {
        const a = document.activeElement;
        if (!a || a === document.body) return "the page";
        return document.getElementById("main")?.contains(a) ? "main" : a.outerHTML.slice(0, 80);
      });
      return where === "main";
    },
    { timeout: 5_000, timeoutMsg: `focus after the palette: ${where}` },
  );
});

const HEADER = "type,amount,currency,account,firstName,lastName,country,merOrderNo";
const payroll = Array.from(
  { length: 30 },
  (_, i) => `clabe,${10 + i}.00,MXN,002010077777777771,Person${i},Payroll${tag},,`,
);

async function check(file) {
  // Emptied first: the same path typed again would not count as a change.
  await typeInto(id("bulk-path"), "");
  await typeInto(id("bulk-path"), file);
  await click(id("bulk-check"));
  const preview = await h.waitFor(id("bulk-preview"));
  return preview;
}

async function sendAll() {
  await click(id("bulk-send"));
  const confirm = await h.waitFor(id("bulk-confirm"));
  const where = await h.text(id("bulk-confirm-result-path"));
  // Every progress text shown while the rows go.
  await browser.execute(() => {
    window.__progress = [];
    new MutationObserver(() => {
      const p = document.querySelector('[data-testid="bulk-progress-rows"]');
      if (p && window.__progress.at(-1) !== p.textContent) window.__progress.push(p.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await click(id("bulk-confirm-send"));
  const result = await h.waitFor(id("bulk-result"), 100_000);
  return { confirm, where, result };
}

test("a payroll run twice: names shown, a fixed name pays nobody twice, this run's counts, a new result file, a template", async () => {
  await go("payouts");
  await click(id("tab-bulk"));
  await click(id("bulk-template"));
  const saved = await h.waitFor(id("bulk-template-saved"));
  const templatePath = await saved.getAttribute("data-path");
  assert.match(
    readFileSync(templatePath, "utf8"),
    /^type,amount,currency,account,firstName,lastName/,
  );

  const file = path.join(files, "payroll.csv");
  writeFileSync(file, `${[HEADER, ...payroll].join("\n")}\n`);
  let preview = await check(file);
  assert.equal(await preview.getAttribute("data-to-send"), "30");
  const names = await browser.execute(() =>
    [...document.querySelectorAll('[data-testid="bulk-beneficiary"]')].map((c) => c.textContent),
  );
  assert.ok(
    names[0]?.startsWith(`Person0 Payroll${tag}`),
    `the file's name is not shown: ${names[0]}`,
  );
  await h.shot("flows-bulk-preview");
  const first = await sendAll();
  // Focus is on the run's result, where the user reads on, not on the page.
  await browser.waitUntil(
    () => browser.execute(() => !!document.activeElement?.closest('[data-testid="bulk-result"]')),
    { timeout: 5_000, timeoutMsg: "focus is not on the bulk run's result" },
  );
  assert.match(first.where, /payroll\.result\.csv/);
  assert.equal(await first.result.getAttribute("data-sent"), "30");
  assert.equal(await first.result.getAttribute("data-accepted"), "30");
  const seen = await browser.execute(() => window.__progress);
  assert.ok(
    seen.some((t) => /^\d+ of 30 rows$/.test(t)),
    `the progress did not count rows: ${JSON.stringify(seen)}`,
  );
  const firstResult = path.join(files, "payroll.result.csv");
  const firstText = readFileSync(firstResult, "utf8");

  // The same file with one name fixed (a CLABE payout does not send it): nothing to
  // send, nothing held, and the button says so by being closed.
  const fixed = [...payroll];
  fixed[3] = fixed[3].replace(`Payroll${tag}`, `Payroll${tag}-Fixed`);
  writeFileSync(file, `${[HEADER, ...fixed].join("\n")}\n`);
  preview = await check(file);
  assert.equal(await preview.getAttribute("data-to-send"), "0");
  assert.equal(await preview.getAttribute("data-held"), "0");
  assert.equal(await preview.getAttribute("data-paid"), "30");
  assert.equal(await (await browser.$(id("bulk-send"))).isEnabled(), false, "Send 0 is enabled");
  await h.shot("flows-bulk-nothing-to-send");

  // Four new rows: this run sends four, says 30 were paid before, and writes a new file.
  const more = Array.from(
    { length: 4 },
    (_, i) => `clabe,${200 + i}.00,MXN,002010077777777771,New${i},Payroll${tag},,`,
  );
  writeFileSync(file, `${[HEADER, ...fixed, ...more].join("\n")}\n`);
  preview = await check(file);
  assert.equal(await preview.getAttribute("data-to-send"), "4");
  const second = await sendAll();
  assert.match(second.where, /payroll-2\.result\.csv/);
  assert.equal(await second.result.getAttribute("data-sent"), "4");
  assert.equal(await second.result.getAttribute("data-paid-before"), "30");
  assert.match(await h.text(id("bulk-result-summary")), /This run: 4 sent/);
  assert.equal(readFileSync(firstResult, "utf8"), firstText, "the first result file was replaced");
  const secondResult = path.join(files, "payroll-2.result.csv");
  assert.ok(existsSync(secondResult));
  assert.equal(readFileSync(secondResult, "utf8").trim().split("\n").length, 35);
  await second.result.scrollIntoView();
  await h.shot("flows-bulk-second-run");
});

test("a row a bulk run held waits on the Dashboard, which opens its bulk run", async () => {
  // The same payout as the payroll's first row, under a number of its own: the
  // duplicate guard holds it (it would pay Person0 twice); a new row goes.
  const file = path.join(files, "held.csv");
  const held = `HELD-${tag}`;
  writeFileSync(
    file,
    `${[
      HEADER,
      `clabe,10.00,MXN,002010077777777771,Person0,Payroll${tag},,${held}`,
      `clabe,321.00,MXN,002010077777777771,Other,Payroll${tag},,NEW-${tag}`,
    ].join("\n")}\n`,
  );
  await go("payouts");
  await click(id("tab-bulk"));
  const preview = await check(file);
  assert.equal(await preview.getAttribute("data-held"), "1");
  assert.equal(await preview.getAttribute("data-to-send"), "1");
  const run = await sendAll();
  assert.equal(await run.result.getAttribute("data-sent"), "1");

  // On the Dashboard's "Needs attention", with the file, its line and its number.
  await go("dashboard");
  const row = `${id("attention-held-bulk")}[data-file="${file}"][data-line="2"]`;
  await h.waitFor(row, 10_000);
  const text = await browser.execute((s) => document.querySelector(s)?.textContent ?? "", row);
  assert.match(text, /held\.csv, line 2/);
  // Why it was held, in the user's words: the same payout as the payroll's first row.
  const why = await h.text(`${row} ${id("attention-held-why")}`);
  assert.match(why, /The same payout as \S+ \(/);
  const card = await h.waitFor(id("dashboard-attention"));
  assert.ok(Number(await card.getAttribute("data-count")) >= 1);
  await (await browser.$(row)).scrollIntoView({ block: "center" });
  await h.shot("flows-dashboard-held-bulk");

  // Its action opens the bulk run: the file checked again, the held row in its plan.
  await click(`${row} ${id("attention-open-bulk")}`);
  await h.waitFor(id("screen-payouts"));
  const again = await h.waitFor(id("bulk-preview"), 20_000);
  assert.equal(await again.getAttribute("data-held"), "1");
  assert.equal(await (await browser.$(id("bulk-path"))).getValue(), file);
  await h.shot("flows-bulk-opened-from-dashboard");
});

test("a bad row is fixed in place: written into the file, which is checked again", async () => {
  await go("payouts");
  await click(id("tab-bulk"));
  const file = path.join(files, "fix.csv");
  const rows = [
    HEADER,
    `clabe,41.00,MXN,002010077777777771,Fixme,One${tag},,`,
    `clabe,4x.00,MXN,002010077777777771,Fixme,Two${tag},,`,
  ];
  writeFileSync(file, `${rows.join("\n")}\n`);
  let preview = await check(file);
  assert.equal(await preview.getAttribute("data-errors"), "1");
  await click(`${id("bulk-error")}[data-line="3"] ${id("bulk-error-fix")}`);
  const input = await h.waitFor(id("bulk-error-value"));
  assert.equal(await browser.execute((e) => e.value, input), "4x.00");
  await typeInto(id("bulk-error-value"), "42.00");
  await h.shot("flows-bulk-fix");
  await click(id("bulk-error-save"));
  await browser.waitUntil(
    async () => (await (await browser.$(id("bulk-preview"))).getAttribute("data-errors")) === "0",
    { timeout: 10_000, timeoutMsg: "the fixed row is still refused" },
  );
  preview = await browser.$(id("bulk-preview"));
  assert.equal(await preview.getAttribute("data-to-send"), "2");
  const lines = readFileSync(file, "utf8").trim().split("\n");
  assert.equal(lines[2], `clabe,42.00,MXN,002010077777777771,Fixme,Two${tag},,`);
  assert.equal(lines[1], rows[1], "another row changed");
});

test("after a payout is sent, focus is on its receipt", async () => {
  await go("payouts");
  await click(id("tab-clabe"));
  // An amount no payroll row above has: the same payout would meet the duplicate guard.
  await typeInto(id("payout-amount"), "77.31");
  await typeInto(id("payout-clabe"), "002010077777777771");
  await click(id("payout-review"));
  await h.waitFor(id("payout-confirm"));
  await click(id("payout-send"));
  assert.equal(await h.receiptStatus(["accepted", "rejected", "unknown"]), "accepted");
  let where = "";
  await browser.waitUntil(
    async () => {
      where = await browser.execute(() => {
        const a = document.activeElement;
        if (!a || a === document.body) return "the page";
        return a.closest('[data-testid="receipt"]') ? "receipt" : a.outerHTML.slice(0, 80);
      });
      return where === "receipt";
    },
    { timeout: 5_000, timeoutMsg: `focus after sending: ${where}` },
  );
});

test("the dashboard's charts count whole orders on every day of the period", async () => {
  await go("dashboard");
  const chart = await h.waitFor(id("chart-orders"), 20_000);
  assert.ok(Number(await chart.getAttribute("data-days")) >= 30);
  // recharts draws the axes' labels in a layer of their own: the orders axis's are
  // those that are not days ("11/26").
  let ticks = [];
  await browser.waitUntil(
    async () => {
      ticks = await browser.execute(() =>
        [
          ...document.querySelectorAll(
            '[data-testid="chart-orders"] .recharts-cartesian-axis-tick-value',
          ),
        ]
          .map((t) => (t.textContent ?? "").trim())
          .filter((t) => !t.includes("/")),
      );
      return ticks.length > 1;
    },
    { timeout: 10_000, timeoutMsg: "the orders chart has no axis" },
  );
  assert.ok(
    ticks.every((t) => /^[\d,]+$/.test(t)),
    `a tick of the orders axis is not a whole count: ${ticks}`,
  );
  await (await browser.$(id("chart-orders"))).scrollIntoView();
  await h.shot("flows-dashboard-charts");
});

test("the same screens in Chinese", async () => {
  await language("简体中文", "订单");
  try {
    await go("dashboard");
    await (await h.waitFor(id("chart-orders"), 20_000)).scrollIntoView();
    await h.shot("flows-dashboard-charts-zh");
    const heldRow = await browser.$(id("attention-held-bulk"));
    if (await heldRow.isExisting()) {
      assert.match(await heldRow.getText(), /第 2 行/);
      assert.match(await heldRow.getText(), /相同的付款/);
      await heldRow.scrollIntoView({ block: "center" });
      await h.shot("flows-dashboard-held-bulk-zh");
    }
    await go("orders");
    await typeInto(id("orders-search"), customer.userId);
    await click(`${id("order-row")}[data-trade-no="${customerTradeNo}"]`);
    await (await h.waitFor(id("order-customer"), 20_000)).scrollIntoView();
    assert.match(await h.text(id("order-customer")), /客户/);
    await h.settled();
    await h.shot("flows-order-customer-zh");
    await closeDrawer();
    await go("orders");
    await typeInto(id("orders-search"), "");
    await go("payouts");
    await click(id("tab-bulk"));
    await check(path.join(files, "payroll.csv"));
    assert.match(await h.text(id("bulk-preview")), /取自文件/);
    await h.shot("flows-bulk-preview-zh");
  } finally {
    await h.closeOverlays();
    await language("English", "Orders");
  }
});
