// True and current (issue 33, item 3), in the real window on the built-in sandbox: a
// payout's verified notification moves its order in Orders and on its timeline with no
// sync; the cache's figures say as of when, with Sync now; an order's page lists its
// refunds and chargebacks, looked up as it opens, and explains in words why the gateway's
// live status and the cached state differ; a list-dated order's timeline gives its day,
// never 00:00:00; the Refunds screen lists the refunded orders Reports counts, each
// refund with the state the gateway gave. Screenshots in English and Chinese.
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
  await h.waitFor(id("screen-dashboard"), 60_000);
  await h.english();
  assert.equal(await h.firstRunDone(), "done");
});

after(async () => {
  await app?.stop();
});

beforeEach(async () => {
  await h?.closeOverlays();
});

async function checkAxe(screen) {
  const serious = await h.axe();
  assert.deepEqual(serious, [], `${screen}: serious accessibility violations`);
}

/// The meaning of an order row's state, as the table shows it now.
const rowMeaning = (tradeNo) =>
  browser.execute(
    (t) =>
      document
        .querySelector(`[data-testid="order-row"][data-trade-no="${t}"] [data-meaning]`)
        ?.getAttribute("data-meaning") ?? "",
    tradeNo,
  );

test("a payout's notification moves its order and its timeline, with no sync", async () => {
  await h.go("payouts");
  await h.click(id("tab-clabe"));
  await h.typeInto(id("payout-amount"), "33.00");
  await h.typeInto(id("payout-clabe"), "002010077777777771");
  await h.click(id("payout-review"));
  await h.waitFor(id("payout-confirm"));
  await h.settled(); // the modal's opening transition
  await h.click(id("payout-send"));
  assert.equal(await h.receiptStatus(["accepted", "rejected", "unknown"]), "accepted");
  const tradeNo = await h.text(id("receipt-trade-no"));

  await h.go("orders");
  await h.typeInto(id("orders-search"), tradeNo);
  await h.waitFor(`${id("order-row")}[data-trade-no="${tradeNo}"]`, 10_000);
  // The sandbox completes the payout a few seconds later and notifies the desk: the row
  // follows without anyone syncing.
  await browser.waitUntil(async () => (await rowMeaning(tradeNo)) === "success", {
    timeout: 45_000,
    interval: 500,
    timeoutMsg: `${tradeNo} did not turn success after its notification`,
  });
  await h.click(`${id("order-row")}[data-trade-no="${tradeNo}"]`);
  await h.waitFor(id("order-detail"));
  await h.waitFor(`${id("timeline-item")}[data-type="notification"]`, 15_000);
  const states = await browser.execute(() =>
    [
      ...document.querySelectorAll(
        '[data-testid="timeline-item"][data-type="state"] [data-meaning]',
      ),
    ].map((e) => e.getAttribute("data-meaning")),
  );
  // Made pending (read again from the list as it was made), then moved by the
  // notification: no sync ran since the first run's.
  assert.ok(states.length >= 2, `timeline states: ${states}`);
  assert.notEqual(states[0], "success", `timeline states: ${states}`);
  assert.equal(states.at(-1), "success", `timeline states: ${states}`);
  // The page says it has no refund or chargeback (asked as it opened).
  const reversals = await h.waitFor(`${id("detail-reversals")}:not([data-count=""])`, 20_000);
  assert.equal(await reversals.getAttribute("data-count"), "0");
  await h.settled(); // the drawer's opening transition, for the screenshot
  await browser.execute((e) => e.scrollIntoView({ block: "center" }), reversals);
  await h.shot("order-notified");
});

test("Refunds lists what Reports counts, and a refunded order's page explains itself", async () => {
  await h.go("refunds");
  const card = await h.waitFor(`${id("refunded-orders")}:not([data-total=""])`, 20_000);
  const total = Number(await card.getAttribute("data-total"));
  assert.ok(total > 0, "the demo orders include refunded ones");
  assert.match(await h.text(id("refunds-as-of")), /as of the last sync/);
  await h.shot("refunds-reversed-orders");
  await checkAxe("refunds");
  // A partly refunded order: the gateway's query says SUCCESS, the list's state counts
  // the refund; the page says so in words and lists the refund with its own state.
  const partly = await browser.execute(
    () =>
      document
        .querySelector('[data-testid="refunded-order"] [data-meaning="partly_refunded"]')
        ?.closest('[data-testid="refunded-order"]')
        ?.getAttribute("data-trade-no") ?? "",
  );
  assert.ok(partly, "no partly refunded order among the newest refunded ones");
  await h.click(`${id("refunded-order")}[data-trade-no="${partly}"] button`);
  await h.waitFor(`${id("order-detail")}[data-trade-no="${partly}"]`);
  const diff = await h.waitFor(id("detail-difference"), 20_000);
  assert.equal(await diff.getAttribute("data-kind"), "reversed");
  assert.match(await h.text(id("detail-difference")), /refunds/);
  await h.waitFor(`${id("detail-reversal")}[data-kind="refund"]`, 20_000);
  const refundState = await browser.execute(
    () =>
      document
        .querySelector('[data-testid="detail-reversal"][data-kind="refund"] [data-meaning]')
        ?.getAttribute("data-meaning") ?? "",
  );
  assert.notEqual(refundState, "", "the refund's state is not given");
  // The refund found is on the order's timeline too.
  await h.waitFor(`${id("timeline-item")}[data-type="reversal"]`, 20_000);
  // A demo order is dated by the list's day: its timeline gives the day, no 00:00:00.
  await h.waitFor(id("timeline-day-only"));
  const timeline = await h.text(id("detail-timeline"));
  assert.doesNotMatch(timeline, /00:00:00/);
  await h.settled();
  await h.shot("order-refunded-explained");
  await browser.execute(
    (e) => e.scrollIntoView({ block: "start" }),
    await h.waitFor(id("detail-reversals")),
  );
  await h.settled();
  await h.shot("order-refunded-reversals");
  await checkAxe("order page");
});

test("in Chinese: the refunded orders and an order's refunds", async () => {
  await h.go("settings");
  await h.pickLanguage("简体中文");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "订单", {
    timeout: 5_000,
  });
  await h.go("refunds");
  await h.waitFor(`${id("refunded-orders")}:not([data-total=""])`, 20_000);
  await h.shot("refunds-reversed-orders-zh");
  await h.click(`${id("refunded-order")} button`);
  await h.waitFor(`${id("detail-reversals")}:not([data-count=""])`, 20_000);
  await h.settled();
  await h.shot("order-reversals-zh");
  await h.closeOverlays();
  await h.go("dashboard");
  await h.waitFor(id("dashboard-last-sync"));
  await h.shot("dashboard-as-of-zh");
  await h.go("settings");
  await h.pickLanguage("English");
});
