// The book of payees in the real window (issue 35, item 2): a payee added on the
// Beneficiaries tab is listed masked with the bank its CLABE names; on the CLABE payout
// form it is found by typing part of its name and picked with the keyboard; the
// confirmation shows its masked account and that the book knows it; the payout sent
// reaches the sandbox at the payee's own account (bank 012, last digits 7899). An
// account the book has never seen says so on its confirmation, in dark, and is saved
// from there.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

const id = (x) => `[data-testid="${x}"]`;
// Valid CLABEs (check digits computed with weights 3, 7, 1): BBVA MEXICO and BANAMEX.
const BBVA = "012180001234567899";
const BANAMEX = "002010077777777771";
const SANDBOX_ROW = `${id("profile-row")}[data-name="sandbox"]`;

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

const pageText = () => browser.execute(() => document.body.textContent ?? "");

/// The built-in sandbox's address, as the connection check shows it.
async function sandboxAddress() {
  await h.click(id("nav-settings"));
  await h.waitFor(id("screen-settings"));
  await h.click(`${SANDBOX_ROW} ${id("profile-check")}`);
  await h.waitFor(id("check-summary"), 60_000);
  const panel = await browser.execute(
    (e) => e.textContent ?? "",
    await h.waitFor(id("check-panel")),
  );
  const address = /https?:\/\/127\.0\.0\.1:\d+\//.exec(panel);
  assert.ok(address, `the check shows the gateway's address: ${panel}`);
  await browser.keys("Escape");
  await h.gone(id("check-panel"), 10_000);
  return address[0];
}

test("a payee from the book is picked by keyboard and paid at its own account", async () => {
  await h.go("payouts");
  await h.click(id("tab-beneficiaries"));
  await h.typeInto(id("payee-nickname"), "rent");
  await h.typeInto(id("payee-account"), BBVA);
  await h.typeInto(id("payee-first-name"), "Casa Azul");
  await h.click(id("payee-add"));
  const row = `${id("payee-list")} tr[data-nickname="rent"]`;
  await h.waitFor(row, 10_000);
  const listed = await browser.execute((s) => document.querySelector(s)?.textContent ?? "", row);
  assert.match(listed, /012180\*{8}7899/);
  assert.match(listed, /BBVA MEXICO/);
  assert.match(listed, /MX/);
  assert.ok(!(await pageText()).includes(BBVA.slice(6, 14)), "the middle digits are shown");
  await h.settled();
  await h.shot("beneficiaries-book");

  await h.click(id("tab-clabe"));
  await h.typeInto(id("payout-amount"), "12.34");
  // Found by part of the name, picked with the arrows and Enter.
  const picker = await h.waitFor(id("payout-payee"));
  await browser.execute((e) => e.focus(), picker);
  await browser.keys([..."azul"]);
  await h.waitFor('//*[@role="option"][contains(normalize-space(.), "rent")]');
  await browser.keys("ArrowDown");
  await browser.keys("Enter");
  await browser.waitUntil(async () => (await picker.getValue()).startsWith("rent"), {
    timeout: 5_000,
    timeoutMsg: "the payee was not picked",
  });
  assert.equal(
    await browser.$(id("payout-clabe")).isExisting(),
    false,
    "no account to type for a payee from the book",
  );
  await h.click(id("payout-review"));
  await h.waitFor(id("payout-confirm"));
  assert.equal(await h.text(id("confirm-account")), "012180********7899");
  assert.match(await h.text(id("payee-known")), /rent \(Casa Azul\)/);
  assert.equal(await browser.$(id("payee-new")).isExisting(), false);
  await h.settled();
  await h.shot("beneficiaries-confirm-known");
  await h.click(id("payout-send"));
  assert.equal(await h.receiptStatus(["accepted", "rejected", "unknown"]), "accepted");
  const tradeNo = await h.text(id("receipt-trade-no"));
  await h.click(id("payout-next"));

  // What the sandbox received: a CLABE of bank 012 ending 7899, the payee's.
  const gateway = await sandboxAddress();
  const r = await fetch(new URL(`__sandbox/orders/${encodeURIComponent(tradeNo)}`, gateway));
  assert.equal(r.status, 200, `the sandbox has no order ${tradeNo}`);
  const order = (await r.json()).order;
  assert.equal(order.account, "CLABE 012…7899");
  assert.equal(Number(order.amount), 12.34);
  assert.equal(order.currency, "MXN");
});

test("an account the book has never seen says so, in dark, and is saved from the confirmation", async () => {
  await h.click(id("nav-settings"));
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Dark"]');
  try {
    await h.go("payouts");
    await h.click(id("tab-clabe"));
    await h.typeInto(id("payout-amount"), "5.00");
    await h.typeInto(id("payout-clabe"), BANAMEX);
    await h.click(id("payout-review"));
    await h.waitFor(id("payout-confirm"));
    assert.match(await h.text(id("payee-new")), /never been paid from the book/);
    await h.typeInto(id("payee-save-nickname"), "bills");
    await h.typeInto(id("payee-save-name"), "Luz y Agua");
    await h.settled();
    await h.shot("beneficiaries-confirm-new-dark");
    await h.click(id("payee-save"));
    assert.match(await h.text(id("payee-saved")), /Saved to the book as bills/);
    // Nothing was sent by saving.
    assert.equal(await browser.$('[data-testid="receipt"]').isExisting(), false);
    await h.closeOverlays();
    await h.click(id("tab-beneficiaries"));
    await h.waitFor(`${id("payee-list")} tr[data-nickname="bills"]`, 10_000);
    await h.settled();
    await h.shot("beneficiaries-book-dark");
  } finally {
    await h.closeOverlays();
    await h.click(id("nav-settings"));
    await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Light"]');
  }
});
