// The screens that move money or submit documents, in the real window against the
// built-in sandbox: payins of every method, payouts (one, lost answer, bulk), cards,
// review upload, events and refunds, each with a screenshot and an accessibility check.
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
const payinTradeNos = {};

before(async () => {
  app = await startApp();
  browser = app.browser;
  h = helpers(browser);
  files = mkdtempSync(path.join(tmpdir(), "paydesk-e2e-files-"));
  await h.waitFor(id("screen-dashboard"), 60_000);
  // The first run loads the sandbox's demo orders: done before the flows below sync.
  await h.firstRunDone();
  // The web view keeps the language an earlier file left it in.
  await h.english();
});

after(async () => {
  await app?.stop();
  if (files) rmSync(files, { recursive: true, force: true });
});

beforeEach(async () => {
  await h?.closeOverlays();
});

async function checkAxe(screen) {
  const serious = await h.axe();
  assert.deepEqual(serious, [], `${screen}: serious accessibility violations`);
}

async function go(screen) {
  await h.click(id(`nav-${screen}`));
  await h.waitFor(id(`screen-${screen}`));
}

const receiptStatus = (statuses, timeout) => h.receiptStatus(statuses, timeout);

const METHODS = [
  ["WECHAT", "WeChat Pay (V2)", "CNY"],
  ["WECHAT_V1", "WeChat Pay (V1)", "CNY"],
  ["PIX", "PIX (Brazil)", "BRL"],
  ["APPLE_PAY", "Apple Pay", "USD"],
  ["CASH_APP", "Cash App", "USD"],
  ["GCASH", "GCash (Philippines)", "PHP"],
  ["SEPA", "SEPA bank transfer", "EUR"],
  ["VN_BANK", "Vietnam bank transfer", "VND"],
];

test("a payin of every method goes through to its result", async () => {
  await go("payins");
  await h.shot("payins");
  await checkAxe("payins");
  for (const [method, label] of METHODS) {
    await h.choose(id("payin-method"), label);
    await h.typeInto(id("payin-amount"), method === "VN_BANK" ? "250000" : "12.50");
    if (method === "PIX") {
      await h.typeInto(id("payin-name"), "Ana Lima");
      await h.typeInto(id("payin-ssn"), "123.456.789-09");
    }
    if (method === "SEPA") {
      await h.typeInto(id("payin-first-name"), "Ana");
      await h.typeInto(id("payin-last-name"), "Lima");
    }
    if (["APPLE_PAY", "CASH_APP", "GCASH"].includes(method)) {
      await h.typeInto(id("payin-product-0"), "Gift card");
    }
    if (method === "VN_BANK") await h.typeInto(id("payin-vn-product"), "Top-up");
    await h.click(id("payin-submit"));
    const status = await receiptStatus(["accepted", "rejected", "unknown"]);
    assert.equal(status, "accepted", `${method} was not accepted`);
    payinTradeNos[method] = await h.text(id("receipt-trade-no"));
    if (method === "SEPA") {
      assert.match(await h.text(id("bank-iban")), /^[A-Z]{2}\d{2}/);
      assert.ok((await h.text(id("bank-reference"))).length > 0);
      await h.shot("payin-sepa");
    } else if (method !== "VN_BANK") {
      assert.match(await h.text(id("pay-url")), /^https:\/\//, `${method} has no payment link`);
      await h.waitFor(id("payin-qr"));
    }
    if (method === "WECHAT") {
      await h.shot("payin-result");
      await checkAxe("payin result");
    }
    await h.click(id("payin-next"));
  }
  // The Vietnam bank answers an unknown bank with HTTP 404: said plainly.
  await h.choose(id("payin-method"), "Vietnam bank transfer");
  await h.typeInto(id("payin-amount"), "250000");
  await h.typeInto(id("payin-vn-product"), "Top-up");
  await h.typeInto(id("payin-vn-bank"), "123");
  await h.click(id("payin-submit"));
  assert.equal(await receiptStatus(["accepted", "rejected", "unknown"]), "rejected");
  assert.match(await h.text(id("payin-http-refusal")), /HTTP 404/);
  assert.match(await h.text(id("receipt-rejected")), /vnBankId 123/);
  await h.shot("payin-vn-404");
});

async function payout(tab, fill) {
  await h.click(id(`tab-${tab}`));
  await fill();
  await h.click(id("payout-review"));
  await h.waitFor(id("payout-confirm"));
}

test("a card payout and a CLABE payout; a bad CLABE is refused on its field", async () => {
  await go("payouts");
  await payout("card", async () => {
    await h.typeInto(id("payout-amount"), "25.00");
    await h.typeInto(id("payout-card-no"), "4111 1111 1111 1111");
    await h.typeInto(id("payout-first-name"), "Ana");
    await h.typeInto(id("payout-last-name"), "Lima");
  });
  assert.equal(await h.text(id("confirm-account")), "411111******1111");
  // The confirmation says what the payout costs: the fee (an estimate, or that the
  // gateway gives none before sending) and the total debited.
  assert.match(await h.text(id("confirm-total")), /USD 25\.00/);
  assert.ok((await h.text(id("confirm-fee"))).length > 0);
  await browser.pause(400); // the modal's opening transition, for the screenshot
  await h.shot("payout-confirm");
  await checkAxe("payout confirmation");
  await h.click(id("payout-send"));
  assert.equal(await receiptStatus(["accepted", "rejected", "unknown"]), "accepted");
  const cardTradeNo = await h.text(id("receipt-trade-no"));
  await h.click(id("payout-next"));

  await payout("clabe", async () => {
    await h.typeInto(id("payout-amount"), "100.00");
    await h.typeInto(id("payout-clabe"), "002010077777777771");
  });
  await h.click(id("payout-send"));
  assert.equal(await receiptStatus(["accepted", "rejected", "unknown"]), "accepted");
  await h.click(id("payout-next"));

  await h.typeInto(id("payout-amount"), "100.00");
  await h.typeInto(id("payout-clabe"), "002010077777777772");
  await h.click(id("payout-review"));
  const err = await h.waitFor(id("payout-field-error"));
  assert.equal(await err.getAttribute("data-field"), "clabe");
  assert.equal(
    await browser.$(id("payout-confirm")).isExisting(),
    false,
    "no confirmation for a bad CLABE",
  );
  await h.shot("payouts");
  await checkAxe("payouts");

  // The payout is in Orders at once, without a sync: a payout, by card, at the time it
  // was made (the gateway's list gives neither its type nor its time).
  await go("orders");
  await h.typeInto(id("orders-search"), cardTradeNo);
  const made = `${id("order-row")}[data-trade-no="${cardTradeNo}"]`;
  await h.waitFor(made, 10_000);
  const text = await browser.execute((sel) => document.querySelector(sel)?.textContent ?? "", made);
  assert.match(text, /Payout/);
  assert.match(text, /CARD/);
  assert.match(text, /\d{4}-\d\d-\d\d \d\d:\d\d/, `no time of day in ${text}`);
  await h.typeInto(id("orders-search"), "");
});

test("a payout whose answer the sandbox drops ends accepted, with no duplicate", async () => {
  await go("payouts");
  await h.click(id("tab-clabe"));
  await h.typeInto(id("payout-amount"), "77.00");
  await h.typeInto(id("payout-clabe"), "002010077777777771");
  await h.click(id("payout-lose-answer"));
  await h.click(id("payout-review"));
  await h.waitFor(id("payout-confirm"));
  await h.click(id("payout-send"));
  // First unknown (the answer was lost), then reconciled by querying: accepted.
  const first = await receiptStatus(["unknown", "accepted", "rejected"]);
  assert.notEqual(first, "rejected");
  await h.shot("payout-unknown");
  assert.equal(await receiptStatus(["accepted"], 40_000), "accepted");
  const merOrderNo = await h.text(id("receipt-mer-order-no"));
  // One journal entry, and the gateway holds one order with that number.
  await browser.waitUntil(
    async () => (await browser.$$(`[data-mer-order-no="${merOrderNo}"]`)).length === 1,
    {
      timeout: 10_000,
      timeoutMsg: "the payout is not listed once in the journal",
    },
  );
  await go("orders");
  await h.click(id("sync-button"));
  await h.waitFor(`${id("sync-progress")}[data-done="true"]`, 120_000);
  await h.typeInto(id("orders-search"), merOrderNo);
  await browser.waitUntil(
    async () =>
      Number(await (await browser.$(id("orders-count"))).getAttribute("data-total")) === 1,
    { timeout: 15_000, timeoutMsg: `${merOrderNo} is not exactly one order at the gateway` },
  );
  await h.typeInto(id("orders-search"), "");
});

test("bulk payouts: 100 rows, 3 bad ones refused before anything is sent", async () => {
  const csv = path.join(files, "payouts.csv");
  const lines = ["type,amount,currency,account,firstName,lastName,country,merOrderNo"];
  for (let i = 1; i <= 100; i++) {
    const no = `E2EBULK${Date.now().toString(36)}${String(i).padStart(3, "0")}`;
    if (i === 10) lines.push(`clabe,10.00,MXN,002010077777777772,,,,${no}`);
    else if (i === 50) lines.push(`card,abc,USD,4111111111111111,Ana,Lima,US,${no}`);
    else if (i === 90) lines.push(`card,5.00,USD,4111111111111112,Ana,Lima,US,${no}`);
    else if (i % 2) lines.push(`clabe,1${i % 10}.00,MXN,002010077777777771,,,,${no}`);
    else lines.push(`card,${i % 9}.25,USD,4111111111111111,Ana,Lima,US,${no}`);
  }
  writeFileSync(csv, `${lines.join("\n")}\n`);
  await go("payouts");
  await h.click(id("tab-bulk"));
  await h.typeInto(id("bulk-path"), csv);
  await h.click(id("bulk-check"));
  const preview = await h.waitFor(id("bulk-preview"));
  assert.equal(await preview.getAttribute("data-rows"), "97");
  assert.equal(await preview.getAttribute("data-errors"), "3");
  await h.shot("payouts-bulk-preview");
  await checkAxe("bulk preview");
  await h.click(id("bulk-send"));
  // Nothing is sent before the confirmation, which shows the count and the totals.
  const confirm = await h.waitFor(id("bulk-confirm"));
  assert.equal(await confirm.getAttribute("data-to-send"), "97");
  await h.click(id("bulk-confirm-send"));
  const result = await h.waitFor(id("bulk-result"), 100_000);
  assert.equal(await result.getAttribute("data-accepted"), "97");
  assert.equal(await result.getAttribute("data-invalid"), "3");
  const out = path.join(files, "payouts.result.csv");
  assert.ok(existsSync(out), "no result file");
  assert.equal(readFileSync(out, "utf8").trim().split("\n").length, 101);
  await h.shot("payouts-bulk-result");
});

async function cardBalance(card) {
  return Number(await (await h.waitFor(id(`card-balance-${card}`))).getAttribute("data-balance"));
}

async function cardMove(kind, amount) {
  if (kind === "withdraw") {
    await h.click(`//*[@data-testid="card-kind"]//label[contains(., "Withdraw")]`);
  }
  await h.typeInto(id("card-card"), "CARD-0001");
  await browser.keys("Escape");
  await h.choose(id("card-currency"), "USD");
  await h.typeInto(id("card-amount"), amount);
  await h.click(id("card-review"));
  await h.waitFor(id("card-confirm"));
  await h.click(id("card-send"));
  assert.equal(await receiptStatus(["accepted", "rejected", "unknown"]), "accepted");
}

test("a top-up and a withdraw move the card's balance", async () => {
  await go("cards");
  const start = await cardBalance("CARD-0001");
  await cardMove("top_up", "40.00");
  await browser.waitUntil(async () => (await cardBalance("CARD-0001")) === start + 40, {
    timeout: 30_000,
    timeoutMsg: "the top-up did not reach the card's balance",
  });
  await h.click(id("card-next"));
  await cardMove("withdraw", "15.00");
  assert.ok((await h.text(id("card-fee"))).length > 0, "the withdrawal fee is shown");
  await browser.waitUntil(async () => (await cardBalance("CARD-0001")) < start + 40, {
    timeout: 30_000,
    timeoutMsg: "the withdrawal did not reach the card's balance",
  });
  await h.shot("cards");
  await checkAxe("cards");
});

test("a review upload of a PNG and a PDF; an oversized file is refused before sending", async () => {
  const tradeNo = payinTradeNos.SEPA;
  assert.ok(tradeNo, "the SEPA payin of the first test gives the order");
  const png = path.join(files, "passport.png");
  // A 1×1 PNG.
  writeFileSync(
    png,
    Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
      "base64",
    ),
  );
  const pdf = path.join(files, "invoice.pdf");
  writeFileSync(
    pdf,
    [
      "%PDF-1.4",
      "1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj",
      "2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj",
      "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 280] >> endobj",
      "trailer << /Root 1 0 R >>",
      "%%EOF",
      "",
    ].join("\n"),
  );
  const big = path.join(files, "scan.png");
  writeFileSync(
    big,
    Buffer.concat([Buffer.from("\x89PNG\r\n\x1a\n", "latin1"), Buffer.alloc(6 * 1024 * 1024)]),
  );

  await go("review");
  // The window hands dropped files to the screen (the listener is allowed and set up).
  await h.waitFor(`${id("review-drop")}[data-ready="true"]`);
  await h.typeInto(id("review-trade-no"), tradeNo);
  // Review types come from a list, each with its code beside it.
  await h.choose(id("review-info-type-0"), "Remark · 2");
  assert.equal(await (await h.waitFor(id("review-info-type-0"))).getValue(), "Remark · 2");
  await h.typeInto(id("review-info-0"), "Invoice 55");
  for (const [i, f] of [png, pdf].entries()) {
    await h.typeInto(id("review-path"), f);
    await h.click(id("review-add-file"));
    // As a user would, the next file once this one shows in the list.
    await browser.waitUntil(async () => (await browser.$$(id("review-file"))).length === i + 1, {
      timeout: 10_000,
      timeoutMsg: `file ${i + 1} was not added`,
    });
  }
  await browser.waitUntil(async () => (await browser.$$(id("review-file"))).length === 2, {
    timeout: 10_000,
    timeoutMsg: "the two files were not added",
  });
  // The PDF's first page is drawn as its preview.
  await h.waitFor(`${id("pdf-thumb")}[data-drawn="true"]`);
  await h.typeInto(id("review-path"), big);
  await h.click(id("review-add-file"));
  assert.match(await h.text(id("review-file-error")), /5 MiB|5242880/);
  assert.equal((await browser.$$(id("review-file"))).length, 2, "the oversized file is not added");
  await h.shot("review");
  await checkAxe("review");
  await h.click(id("review-submit"));
  // Nothing leaves before the confirmation, which shows both files.
  await h.waitFor(id("review-confirm"));
  assert.equal((await browser.$$(id("review-confirm-file"))).length, 2);
  await h.click(id("review-confirm-send"));
  assert.equal(await receiptStatus(["accepted", "rejected", "unknown", "pending"]), "accepted");
  await browser.waitUntil(
    async () =>
      (await browser.$$(`${id("review-history")} [data-outcome="accepted"]`)).length === 1,
    { timeout: 10_000, timeoutMsg: "the submission is not in the order's history" },
  );
  await h.shot("review-sent");
  // The order's own page lists the submission in its timeline, and offers the upload.
  await go("orders");
  await h.typeInto(id("orders-search"), tradeNo);
  await h.click(`${id("order-row")}[data-trade-no="${tradeNo}"]`);
  await h.waitFor(`${id("timeline-item")}[data-type="review"]`, 20_000);
  await h.waitFor(`${id("timeline-item")}[data-type="request"]`);
  await h.waitFor(id("detail-review"));
  const timeline = await h.waitFor(id("detail-timeline"));
  await browser.execute((e) => e.scrollIntoView({ block: "center" }), timeline);
  // Painted after the scroll before it is taken (WebKit draws the drawer on the next frame).
  await browser.pause(500);
  await h.shot("order-timeline");
  await browser.keys("Escape");
  await h.gone(id("order-detail"), 10_000);
});

test("a notification from the sandbox appears in Events with a valid signature", async () => {
  await go("events");
  // The screen says where this profile's notifications go: the built-in sandbox's come
  // to this desk's loopback receiver.
  await h.waitFor(`${id("notify-target")}[data-kind="desk"]`);
  assert.match(await h.text(id("notify-target")), /http:\/\/127\.0\.0\.1:\d+\/notify/);
  // The sandbox completes the payins a few seconds after they are made and notifies
  // this desk's loopback endpoint.
  const wanted = Object.values(payinTradeNos);
  await browser.waitUntil(
    async () => {
      for (const t of wanted) {
        if ((await browser.$$(`[data-trade-no="${t}"]`)).length > 0) return true;
      }
      return false;
    },
    { timeout: 60_000, timeoutMsg: "no notification for the payins arrived" },
  );
  const badges = await browser.$$(id("event-signature"));
  assert.ok(badges.length > 0);
  assert.equal(await badges[0].getAttribute("data-ok"), "true");
  await h.shot("events");
  await checkAxe("events");
  // A tampered body does not verify.
  await h.typeInto(
    id("verify-body"),
    '{"notifyType":"pay","tradeNo":"T1","amount":"1.00","sign":"AAAA"}',
  );
  await h.click(id("verify-button"));
  const r = await h.waitFor(id("verify-result"));
  assert.equal(await r.getAttribute("data-ok"), "false");
});

test("the refunds screen queries an order and lists what it cached", async () => {
  await go("refunds");
  await h.typeInto(id("query-trade-no"), payinTradeNos.WECHAT);
  await h.choose(id("query-type"), "Sale");
  await h.click(id("query-lookup"));
  assert.match(await h.text(id("query-record")), /\S/);
  await h.shot("refunds");
  await checkAxe("refunds");
});
