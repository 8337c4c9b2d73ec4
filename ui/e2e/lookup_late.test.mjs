// Bulk look-up on a late-listing gateway, in the real window (issue 36, item 3): the
// built-in sandbox's order list shows a new order only 2 minutes after it is made; a
// payout this desk sent (its answer lost) is looked up at once with a number the desk
// never sent. The first is "not listed yet" with the end of the profile's not-found
// grace, never "not found"; the second is "not found".
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

let app;
let browser;
let h;
const id = (x) => `[data-testid="${x}"]`;

before(async () => {
  app = await startApp({ env: { PAYDESK_SANDBOX_BEHAVIOUR: '{"listLagMs": 120000}' } });
  browser = app.browser;
  h = helpers(browser);
  await h.waitFor(id("screen-dashboard"), 60_000);
});

after(async () => {
  await app?.stop();
});

test("a number this desk just sent is not listed yet on a late-listing gateway, never not found", async () => {
  await h.english();
  await h.click(id("nav-payouts"));
  await h.waitFor(id("screen-payouts"));
  await h.click(id("tab-clabe"));
  await h.typeInto(id("payout-amount"), "77.00");
  await h.typeInto(id("payout-clabe"), "002010077777777771");
  await h.click(id("payout-lose-answer"));
  await h.click(id("payout-review"));
  await h.waitFor(id("payout-confirm"));
  await h.click(id("payout-send"));
  assert.equal(await h.receiptStatus(["unknown", "accepted", "rejected"]), "unknown");
  const sent = await h.text(id("receipt-mer-order-no"));
  assert.ok(sent.length > 0);

  await h.go("lookup");
  await h.typeInto(id("lookup-input"), `${sent}\nNOPE-LATE-E2E-1\n`);
  await h.click(id("lookup-run"));
  await browser.waitUntil(
    async () => {
      const s = await browser.$(id("lookup-summary"));
      return (await s.isExisting()) && Number(await s.getAttribute("data-total")) === 2;
    },
    { timeout: 60_000, timeoutMsg: "no look-up result" },
  );
  const late = await h.waitFor(`${id("lookup-row")}[data-number="${sent}"]`);
  assert.equal(await late.getAttribute("data-found"), "notListedYet");
  const lateText = await h.text(`${id("lookup-row")}[data-number="${sent}"]`);
  assert.match(lateText, /Not listed yet/);
  assert.doesNotMatch(lateText, /Not found/);
  assert.match(lateText, /the gateway lists new orders late, so it is not called absent before/);
  const never = await h.waitFor(`${id("lookup-row")}[data-number="NOPE-LATE-E2E-1"]`);
  assert.equal(await never.getAttribute("data-found"), "notFound");
  assert.equal(
    await (await h.waitFor(id("lookup-count-notListedYet"))).getAttribute("data-count"),
    "1",
  );
  await h.shot("lookup-not-listed-yet");
});
