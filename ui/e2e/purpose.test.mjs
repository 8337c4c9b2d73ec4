// A reason on every movement (issue 35, item 3) in the real window: a CLABE payout is
// given a purpose and a reference, the confirmation shows them and its "Copy as command"
// carries them, and once sent the order's page says why the money moved, on its own line
// and on the request in its timeline (light and dark). An order this desk did not make
// says "No purpose recorded", never an invented one.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

const id = (x) => `[data-testid="${x}"]`;
const CLABE = "002010077777777771";
const PURPOSE = "March payroll — Nómina";
const REF = "INV-1042";

let app;
let browser;
let h;

before(async () => {
  app = await startApp();
  browser = app.browser;
  h = helpers(browser);
  await h.waitFor(id("screen-dashboard"), 60_000);
  await h.firstRunDone();
  await h.english();
});

after(async () => {
  await app?.stop();
});

/// Opens the order `tradeNo` from the Orders screen and waits for its timeline.
async function openOrder(tradeNo) {
  await h.go("orders");
  await h.typeInto(id("orders-search"), tradeNo);
  await h.click(`${id("order-row")}[data-trade-no="${tradeNo}"]`);
  await h.waitFor(`${id("order-detail")}[data-trade-no="${tradeNo}"]`);
  await h.waitFor(`${id("timeline-item")}[data-type="request"]`, 20_000);
}

/// Scrolls the order's page to its purpose and timeline, once the drawer is at rest, and
/// waits for it to be painted (WebKit draws the drawer on a later frame).
async function showPurpose() {
  await h.settled();
  const purpose = await h.waitFor(id("order-purpose"));
  await browser.execute((e) => e.scrollIntoView({ block: "start" }), purpose);
  await h.settled();
  await browser.pause(1_000);
}

async function closeOrder() {
  for (let i = 0; i < 5 && (await (await browser.$(id("order-detail"))).isExisting()); i++) {
    await browser.keys("Escape");
    await browser.pause(600);
  }
  await h.gone(id("order-detail"), 10_000);
}

test("a payout sent with a purpose shows it on its order's page and timeline", async () => {
  await h.go("payouts");
  await h.click(id("tab-clabe"));
  await h.typeInto(id("payout-amount"), "320.00");
  await h.typeInto(id("payout-clabe"), CLABE);
  await h.typeInto(id("purpose-text"), PURPOSE);
  await h.typeInto(id("purpose-reference"), REF);
  await h.click(id("payout-review"));
  await h.waitFor(id("payout-confirm"));
  await h.settled();
  // The confirmation repeats what it is for, as it will be kept.
  assert.equal(await h.text(id("confirm-purpose")), `${PURPOSE} · ref ${REF}`);
  // Its command line carries the purpose and the reference.
  const button = await h.waitFor(id("payout-command"));
  await browser.execute((e) => e.focus(), button);
  await browser.keys("Enter");
  const line = await h.waitFor(id("payout-command-line"));
  await browser.waitUntil(async () => (await line.getText()).startsWith("paydesk "), {
    timeout: 5_000,
  });
  const command = await line.getText();
  assert.ok(command.endsWith(` --purpose '${PURPOSE}' --reference ${REF}`), command);
  await h.shot("purpose-confirm");
  await h.click(id("payout-send"));
  assert.equal(await h.receiptStatus(["accepted", "rejected", "unknown"]), "accepted");
  const tradeNo = await h.text(id("receipt-trade-no"));
  assert.ok(tradeNo, "the payout's trade number");

  await openOrder(tradeNo);
  assert.equal(await h.text(id("order-purpose-text")), `${PURPOSE} · ref ${REF}`);
  const request = await h.text(`${id("timeline-item")}[data-type="request"]`);
  assert.ok(request.includes(`Purpose: ${PURPOSE} · ref ${REF}`), request);
  await showPurpose();
  await h.shot("purpose-order-light");
  await closeOrder();

  // Dark: the same page, read as a user would.
  await h.click(id("nav-settings"));
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Dark"]');
  try {
    await openOrder(tradeNo);
    await showPurpose();
    await h.shot("purpose-order-dark");
    await closeOrder();
  } finally {
    await h.click(id("nav-settings"));
    await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Light"]');
  }

  // An order the desk did not make (one of the gateway's own): no purpose is invented.
  await h.go("orders");
  await h.typeInto(id("orders-search"), "");
  const other = await browser.waitUntil(
    async () => {
      for (const row of await browser.$$(id("order-row"))) {
        const no = await row.getAttribute("data-trade-no");
        if (no && no !== tradeNo) return no;
      }
      return false;
    },
    { timeout: 20_000, timeoutMsg: "no other order listed" },
  );
  await h.click(`${id("order-row")}[data-trade-no="${other}"]`);
  await h.waitFor(`${id("order-detail")}[data-trade-no="${other}"]`);
  assert.equal(await h.text(id("order-purpose-text")), "No purpose recorded");
  await closeOrder();
});
