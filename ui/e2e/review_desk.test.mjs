// The review desk in the real window (issue 36, item 4): two bank-transfer orders made
// here wait in the queue; files for both, and one named after neither, are added at once
// and matched by the order numbers in their names (the unmatched one is listed); each
// order's confirmation shows every file and item and is confirmed from the keyboard;
// the order's timeline then shows each file's SHA-256, computed here from the bytes
// written. Also looked at in Chinese.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

const id = (x) => `[data-testid="${x}"]`;

let app;
let browser;
let h;
let files;

before(async () => {
  app = await startApp();
  browser = app.browser;
  h = helpers(browser);
  files = mkdtempSync(path.join(tmpdir(), "paydesk-e2e-review-desk-"));
  await h.waitFor(id("screen-dashboard"), 60_000);
  await h.firstRunDone();
  await h.english();
});

after(async () => {
  await app?.stop();
  if (files) rmSync(files, { recursive: true, force: true });
});

/// Writes a file and answers with what the test expects the desk to keep of it.
function write(name, bytes) {
  const full = path.join(files, name);
  writeFileSync(full, bytes);
  return {
    name,
    full,
    size: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
  };
}

/// An attribute of every element a CSS selector finds, in document order.
const attrs = (selector, attr) =>
  browser.execute(
    (s, a) => Array.from(document.querySelectorAll(s), (e) => e.getAttribute(a)),
    selector,
    attr,
  );
const texts = (selector) =>
  browser.execute(
    (s) => Array.from(document.querySelectorAll(s), (e) => e.textContent ?? ""),
    selector,
  );

const row = (tradeNo) => `${id("review-queue-row")}[data-trade-no="${tradeNo}"]`;
const group = (tradeNo) => `${id("review-group")}[data-trade-no="${tradeNo}"]`;

async function confirmByKeyboard(expect) {
  const confirm = await h.waitFor(id("review-confirm"));
  assert.equal(await confirm.getAttribute("data-trade-no"), expect.tradeNo);
  // Every file, with its name and size, and every information item.
  assert.deepEqual(
    await attrs(id("review-confirm-file"), "data-name"),
    expect.files.map((f) => f.name),
  );
  assert.deepEqual(
    (await attrs(id("review-confirm-file"), "data-size")).map(Number),
    expect.files.map((f) => f.size),
  );
  const items = await texts(id("review-confirm-item"));
  assert.equal(items.length, expect.items.length, items.join(" | "));
  expect.items.forEach((content, n) => {
    assert.ok(items[n]?.includes(content), `${items[n]} lacks ${content}`);
  });
  // The Send button holds the focus: Enter confirms.
  await browser.waitUntil(
    async () =>
      (await browser.execute(() => document.activeElement?.getAttribute("data-testid"))) ===
      "review-confirm-send",
    { timeout: 5_000, timeoutMsg: "the confirmation's Send button does not have the focus" },
  );
  return confirm;
}

test("the queue, two orders' files matched by name, the confirmation, the hashes on the timeline", async () => {
  // Two SEPA payins made here: bank transfers that need documents. Amounts ending in 44
  // stay pending (the sandbox's magic amounts): an order that completes leaves the queue.
  await h.go("payins");
  const trades = [];
  for (const first of ["Ana", "Bruno"]) {
    await h.choose(id("payin-method"), "SEPA bank transfer");
    await h.typeInto(id("payin-amount"), "40.44");
    await h.typeInto(id("payin-first-name"), first);
    await h.typeInto(id("payin-last-name"), "Lima");
    await h.click(id("payin-submit"));
    assert.equal(await h.receiptStatus(["accepted", "rejected", "unknown"]), "accepted");
    trades.push(await h.text(id("receipt-trade-no")));
    await h.click(id("payin-next"));
  }
  const [a, b] = trades;

  await h.go("review");
  for (const t of trades) {
    await h.waitFor(`${row(t)}[data-status="needsDocuments"]`, 20_000);
  }
  const merB = await (await browser.$(row(b))).getAttribute("data-mer-order-no");
  assert.ok(merB, "the queue gives the merchant order number");
  await h.shot("review-desk-queue");

  // A's file by its trade number, B's by its merchant order number, one by neither.
  const png = Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
    "base64",
  );
  const pdf = Buffer.from(
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
  const fileA = write(`${a}_passport.png`, png);
  const fileB = write(`statement ${merB}.pdf`, pdf);
  const stray = write("holiday.png", png);

  await h.click('//*[@data-testid="review-mode"]//label[normalize-space(.)="Several orders"]');
  await h.waitFor(`${id("review-batch-drop")}[data-ready="true"]`);
  for (const f of [fileA, fileB, stray]) {
    await h.typeInto(id("review-batch-path"), f.full);
    await h.click(id("review-batch-add"));
    await browser.waitUntil(
      async () => {
        const placed = await browser.$$(
          `${id("review-group")} ${id("review-file")}[data-name="${f.name}"]`,
        );
        const listed = await browser.$$(`${id("review-unmatched-file")}[data-name="${f.name}"]`);
        return placed.length + listed.length === 1;
      },
      { timeout: 10_000, timeoutMsg: `${f.name} was neither matched nor listed` },
    );
  }
  // Each order has its own file; the stray one is listed as unmatched.
  for (const [t, f] of [
    [a, fileA],
    [b, fileB],
  ]) {
    assert.deepEqual(await attrs(`${group(t)} ${id("review-file")}`, "data-name"), [f.name]);
  }
  assert.equal((await browser.$$(id("review-unmatched-file"))).length, 1);
  assert.match(await h.text(id("review-unmatched")), /holiday\.png/);
  await h.waitFor(`${group(b)} ${id("pdf-thumb")}[data-drawn="true"]`);
  await h.shot("review-desk-matched");
  assert.deepEqual(await h.axe(), [], "serious accessibility violations on the review desk");

  // A: an information item, then the confirmation, confirmed with Enter.
  await h.typeInto(`${group(a)} ${id("review-info-0")}`, "Invoice 7781");
  await h.click(`${group(a)} ${id("review-group-review")}`);
  await confirmByKeyboard({ tradeNo: a, files: [fileA], items: ["Invoice 7781"] });
  await h.settled();
  await h.shot("review-desk-confirm");
  assert.deepEqual(await h.axe(), [], "serious accessibility violations on the confirmation");
  await browser.keys("Enter");
  await h.waitFor(`${group(a)} ${id("receipt")}[data-status="accepted"]`, 30_000);

  // B: no information item; the confirmation says so, and is confirmed the same way.
  await h.click(`${group(b)} ${id("review-group-review")}`);
  await confirmByKeyboard({ tradeNo: b, files: [fileB], items: [] });
  await browser.keys("Enter");
  await h.waitFor(`${group(b)} ${id("receipt")}[data-status="accepted"]`, 30_000);

  // The queue says both were submitted; the history keeps each file's SHA-256.
  for (const t of trades) await h.waitFor(`${row(t)}[data-status="submitted"]`, 20_000);
  for (const f of [fileA, fileB]) {
    await h.waitFor(`${id("review-history")} ${id("review-evidence")}[data-sha256="${f.sha256}"]`);
  }
  await h.shot("review-desk-sent");
  // Only what waits for a person: both orders have their documents in.
  await h.click('//label[normalize-space(.)="Only those waiting for a person"]');
  await browser.waitUntil(async () => (await browser.$$(row(a))).length === 0, {
    timeout: 5_000,
    timeoutMsg: "a submitted order still shows among those waiting",
  });
  assert.equal((await browser.$$(row(b))).length, 0);
  await h.click('//label[normalize-space(.)="Only those waiting for a person"]');
  await h.waitFor(row(a));

  // A's timeline shows the file sent, its size and its SHA-256.
  await h.go("orders");
  await h.typeInto(id("orders-search"), a);
  // The row is clicked again if a sync finishing just then drew the table anew.
  for (let i = 0; i < 3; i += 1) {
    await h.click(`${id("order-row")}[data-trade-no="${a}"]`);
    const opened = await browser
      .$(id("detail-timeline"))
      .waitForExist({ timeout: 8_000 })
      .catch(() => false);
    if (opened) break;
  }
  const evidence = await h.waitFor(
    `${id("detail-timeline")} ${id("review-evidence")}[data-sha256="${fileA.sha256}"]`,
    20_000,
  );
  assert.equal(Number(await evidence.getAttribute("data-size")), fileA.size);
  // Its words (read from the page: the drawer may not have scrolled it into view yet).
  const text = await browser.execute((e) => e.textContent ?? "", evidence);
  assert.ok(text.includes(fileA.sha256), text);
  assert.ok(text.includes(fileA.name), text);
  // Painted once the drawer has slid in and the live query has answered.
  await h.settled();
  await browser.pause(1_000);
  await browser.execute((e) => e.scrollIntoView({ block: "center" }), evidence);
  await browser.pause(500);
  await h.shot("review-desk-timeline");
  await browser.keys("Escape");

  // The desk in Chinese.
  await h.go("settings");
  await h.pickLanguage("简体中文");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "订单", {
    timeout: 5_000,
    timeoutMsg: "the navigation did not turn Chinese",
  });
  await h.click(id("nav-review"));
  await h.waitFor(`${row(a)}[data-status="submitted"]`);
  assert.match(await h.text(id("review-queue")), /审核队列/);
  await h.shot("review-desk-zh");
  await h.click(id("nav-settings"));
  await h.pickLanguage("English");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "Orders", {
    timeout: 5_000,
  });
});
