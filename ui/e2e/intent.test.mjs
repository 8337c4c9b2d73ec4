// One payout per intent, in the real window: on a built-in sandbox whose order list
// shows a new order only 20 s after it was made, a payout whose answer is lost stays
// "unknown"; the same payout typed again under the new number the screen offers is not
// sent, neither at once nor after a second, explicit confirmation while the first stays
// unknown.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

let app;
let browser;
let h;
const id = (x) => `[data-testid="${x}"]`;

before(async () => {
  app = await startApp({ env: { PAYDESK_SANDBOX_BEHAVIOUR: '{"listLagMs": 20000}' } });
  browser = app.browser;
  h = helpers(browser);
  await h.waitFor(id("screen-dashboard"), 60_000);
});

after(async () => {
  await app?.stop();
});

const receiptStatus = (statuses, timeout) => h.receiptStatus(statuses, timeout);

async function fillClabe(amount) {
  await h.typeInto(id("payout-amount"), amount);
  await h.typeInto(id("payout-clabe"), "002010077777777771");
}

/// The payouts journal's rows whose summary names `amount`.
async function journalRows(amount) {
  const rows = await browser.$$(`${id("payout-journal")} tbody tr`);
  const out = [];
  for (const r of rows) {
    const text = await r.getProperty("textContent");
    if (text.includes(amount)) out.push(await r.getAttribute("data-mer-order-no"));
  }
  return out;
}

test("an unknown payout the list shows late is not paid again, not even confirmed, while it stays unknown", async () => {
  await h.click(id("nav-payouts"));
  await h.waitFor(id("screen-payouts"));
  await h.click(id("tab-clabe"));
  await fillClabe("88.00");
  await h.click(id("payout-lose-answer"));
  await h.click(id("payout-review"));
  await h.waitFor(id("payout-confirm"));
  await h.click(id("payout-send"));
  assert.equal(await receiptStatus(["unknown", "accepted", "rejected"]), "unknown");
  const first = await h.text(id("receipt-mer-order-no"));
  // Looked up for a while: the list does not show it yet, and it is not resent.
  await browser.pause(3_000);
  assert.equal(await receiptStatus(["unknown", "accepted", "rejected"]), "unknown");
  await h.shot("intent-unknown");

  // The ordinary wrong thing: a new payout, the same details.
  await h.click(id("payout-next"));
  await fillClabe("88.00");
  await h.click(id("payout-review"));
  await h.waitFor(id("payout-confirm"));
  await h.click(id("payout-send"));
  const guard = await h.waitFor(id("duplicate-guard"));
  assert.match(await guard.getProperty("textContent"), new RegExp(first));
  const send = await browser.$(id("duplicate-confirm-send"));
  assert.equal(await send.isEnabled(), false, "not without the confirmation");
  await h.shot("intent-duplicate-guard");
  const serious = await h.axe();
  assert.deepEqual(serious, [], "duplicate guard: serious accessibility violations");
  await browser.waitUntil(async () => (await journalRows("88.00")).length === 1, {
    timeout: 10_000,
    timeoutMsg: "the journal should hold the first payout only",
  });
  assert.deepEqual(await journalRows("88.00"), [first], "nothing sent the second time");

  // A second payout on purpose, confirmed: still not sent while the first stays
  // unknown (it may have gone through); the desk names the earlier one to resolve first.
  await h.click(id("duplicate-confirm-check"));
  await browser.waitUntil(async () => send.isEnabled(), { timeout: 5_000 });
  await h.click(id("duplicate-confirm-send"));
  await browser.waitUntil(
    async () =>
      browser.execute(
        (no) =>
          document.body.textContent.includes(
            `is not sent while the earlier one, ${no}, is unknown`,
          ),
        first,
      ),
    {
      timeout: 20_000,
      timeoutMsg: "the confirmed second payout was not refused naming the earlier unknown one",
    },
  );
  // The refusal in view, as a person reads it.
  await browser.execute((no) => {
    const all = [...document.querySelectorAll("body *")].filter((e) =>
      e.textContent.includes(`is not sent while the earlier one, ${no}, is unknown`),
    );
    all.at(-1)?.scrollIntoView({ block: "center" });
  }, first);
  await h.settled();
  await h.shot("intent-second-waits-for-the-first");
  assert.deepEqual(await journalRows("88.00"), [first], "nothing sent while the first is unknown");
});
