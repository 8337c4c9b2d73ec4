// Bulk look-up in the real window (issue 36, item 3): 200 numbers pasted, some in the
// cache, some only at the gateway, some the gateway never had; the table counts each,
// a row opens its order, the gateway is asked in batches, and offline the cache's answers
// come with a note that the gateway was not asked. Also looked at in Chinese and dark.
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

/// The built-in profile's cache file in the app's home (`data/sandbox.sqlite`; the
/// sandbox gateway's own state is `sandbox-gateway.sqlite` beside it).
const cacheFile = () => path.join(app.home, "data", "sandbox.sqlite");

const sql = (query) =>
  execFileSync("sqlite3", ["-cmd", ".timeout 5000", cacheFile(), query], {
    encoding: "utf8",
    timeout: 30_000,
  });

const count = async (found) =>
  Number(await (await h.waitFor(id(`lookup-count-${found}`))).getAttribute("data-count"));

async function waitForResult(total) {
  await browser.waitUntil(
    async () => {
      const s = await browser.$(id("lookup-summary"));
      return (await s.isExisting()) && Number(await s.getAttribute("data-total")) === total;
    },
    { timeout: 60_000, timeoutMsg: `no look-up result of ${total} numbers` },
  );
}

test("200 pasted numbers are counted: in cache, at the gateway, not found; offline says not asked", async () => {
  await h.waitFor(id("screen-dashboard"), 60_000);
  await h.english();
  assert.equal(await h.firstRunDone(), "done");

  // 160 orders the first run cached from the sandbox. 100 of them are taken out of the
  // cache, as orders made since the last sync would be: only the gateway has those.
  const rows = sql(
    "SELECT trade_no || '|' || mer_order_no FROM orders ORDER BY trade_no LIMIT 160;",
  )
    .trim()
    .split("\n")
    .map((l) => l.split("|"));
  assert.equal(rows.length, 160);
  const cached = rows.slice(0, 60);
  const gone = rows.slice(60);
  sql(`DELETE FROM orders WHERE trade_no IN (${gone.map(([t]) => `'${t}'`).join(",")});`);
  const byNumber = (list) => list.map(([t, m], i) => (i % 2 === 0 ? t : m));
  const unknown = Array.from({ length: 40 }, (_, i) => `NOPE-E2E-${String(i).padStart(4, "0")}`);
  const numbers = [...byNumber(cached), ...byNumber(gone), ...unknown];
  assert.equal(new Set(numbers).size, 200);
  // Shuffled the same way every run, with padding, blank lines, a repeat and a bad line.
  const shuffled = numbers
    .map((n, i) => [(i * 7919) % 200, n])
    .sort((a, b) => a[0] - b[0])
    .map(([, n]) => n);
  const text = `${shuffled.map((n, i) => (i % 25 === 0 ? `\n  ${n} ` : n)).join("\n")}\n${shuffled[5]}\nnot a number\n`;

  await h.go("lookup");
  await h.typeInto(id("lookup-input"), text);
  await h.shot("lookup-pasted");
  await h.click(id("lookup-run"));
  await waitForResult(200);
  assert.equal(await count("cache"), 60);
  assert.equal(await count("gateway"), 100);
  assert.equal(await count("notFound"), 40);
  assert.equal(await count("notAsked"), 0);
  assert.equal((await browser.$$(id("lookup-row"))).length, 200);
  const rejected = await h.waitFor(id("lookup-rejected"));
  assert.equal(await rejected.getAttribute("data-count"), "1");
  const badLine = text.split("\n").indexOf("not a number") + 1;
  assert.ok(
    (await h.text(id("lookup-rejected"))).includes(`Line ${badLine} “not a number”`),
    "the line that is no number is not named with its line",
  );
  assert.match(
    await h.text(id("lookup-rejected")),
    /holds a space or a character that is not printable ASCII/,
  );
  assert.match(await h.text(id("lookup-duplicates")), /1 repeated line skipped/);
  // 100 numbers the cache lacks and 40 unknown: 140 asked, in pages of the sandbox's 500.
  const note = await h.waitFor(id("lookup-gateway"));
  assert.equal(await note.getAttribute("data-gateway"), "asked");
  assert.match(await h.text(id("lookup-gateway")), /asked in 1 list request of up to 500 numbers/);
  // A number the gateway never had: nothing invented.
  const none = await h.text(`${id("lookup-row")}[data-number="${unknown[0]}"]`);
  assert.match(none, /Not found.*Not given.*Not given.*Not given.*Not given/);
  // A number only the gateway had: its order, state and amount.
  const found = await h.text(`${id("lookup-row")}[data-number="${gone[0][0]}"]`);
  assert.match(found, /At the gateway/);
  assert.ok(found.includes(gone[0][1]), found);
  await h.shot("lookup-result");
  await browser.execute(() =>
    document.querySelector('[data-testid="lookup-table"]')?.scrollIntoView({ block: "start" }),
  );
  await h.shot("lookup-table");

  // A row opens its order's page.
  await h.click(`${id("lookup-row")}[data-number="${gone[0][0]}"] button`);
  await h.waitFor(`${id("order-detail")}[data-trade-no="${gone[0][0]}"]`, 30_000);
  await h.shot("lookup-opened-order");
  await h.closeOverlays();

  // Offline, by keyboard: the cache's answers, the rest not asked (never "not found").
  await h.go("lookup");
  await waitForResult(200);
  await h.click(id("lookup-ask-gateway"));
  await (await h.waitFor(id("lookup-input"))).click();
  await browser.keys(["Control", "Enter"]);
  await browser.waitUntil(
    async () =>
      (await (await browser.$(id("lookup-gateway"))).getAttribute("data-gateway")) === "offline",
    { timeout: 30_000, timeoutMsg: "the offline look-up did not say the gateway was not asked" },
  );
  assert.equal(await count("cache"), 60);
  assert.equal(await count("notAsked"), 140);
  assert.equal(await count("notFound"), 0);
  assert.match(await h.text(id("lookup-gateway")), /Offline: the gateway was not asked/);
  await h.shot("lookup-offline");

  // The same screen in Chinese and dark, as a user there sees it.
  await h.click(id("nav-settings"));
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Dark"]');
  await h.pickLanguage("简体中文");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "订单", {
    timeout: 5_000,
  });
  await h.go("lookup");
  await waitForResult(200);
  assert.match(await h.text(id("lookup-gateway")), /离线/);
  await h.shot("lookup-zh-dark");
  await h.click(id("nav-settings"));
  await h.pickLanguage("English");
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Light"]');
});
