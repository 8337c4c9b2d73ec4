// "Copy as command" in the real window (issue 35, item 5): a CLABE payout's confirmation
// offers the `paydesk` command line that makes the same payout, opened from the keyboard:
// it names the profile, the amount and the order number, reads the CLABE from the
// shell's $CLABE, and never holds the CLABE's digits. The same for a card payout in
// Chinese and dark: no card number anywhere in the line.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

const id = (x) => `[data-testid="${x}"]`;
// A CLABE the sandbox accepts (bank 002, valid check digit), and a test card number.
const CLABE = "002010077777777771";
const CARD = "4111111111111111";

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

/// Opens the "Copy as command" button `testId` from the keyboard (focus, Enter) and
/// returns the command line it shows.
async function openCommand(testId) {
  const button = await h.waitFor(id(testId));
  await browser.execute((e) => e.focus(), button);
  await browser.keys("Enter");
  const line = await h.waitFor(id(`${testId}-line`));
  await browser.waitUntil(async () => (await line.getText()).startsWith("paydesk "), {
    timeout: 5_000,
    timeoutMsg: "no command line shown",
  });
  return line.getText();
}

test("the CLABE payout's confirmation copies a paydesk command without the CLABE", async () => {
  const profile = await (await h.waitFor(id("banner-profile"))).getAttribute("data-profile");
  assert.ok(profile, "the banner names the profile");
  await h.go("payouts");
  await h.click(id("tab-clabe"));
  await h.typeInto(id("payout-amount"), "1234.5");
  await h.typeInto(id("payout-clabe"), CLABE);
  await h.click(id("payout-review"));
  await h.waitFor(id("payout-confirm"));
  await h.settled();
  const orderNo = await browser.execute(() => {
    // The payout's own table (the balance check follows it in the dialog).
    const table = document.querySelector('[data-testid="payout-confirm"] table');
    const rows = [...(table?.querySelectorAll("tr") ?? [])];
    return rows.at(-1)?.querySelector("td")?.textContent ?? "";
  });
  assert.match(orderNo, /^PO/);

  const line = await openCommand("payout-command");
  // What a finance team scripts: the profile, the amount as a decimal, the currency, the
  // same order number (a re-run pays nothing twice), the CLABE from the shell.
  const quoted = /^[A-Za-z0-9_@+:,./-]+$/.test(profile) ? profile : `'${profile}'`;
  assert.ok(line.startsWith(`paydesk --profile ${quoted} payout clabe `), line);
  // The amount as the desk normalised it for sending (a decimal string, never a float).
  assert.match(line, / --amount 1234\.5 /);
  assert.match(line, / --currency MXN /);
  assert.match(line, / --clabe "\$CLABE" /);
  assert.ok(line.includes(`--mer-order-no ${orderNo}`), line);
  // Never the account: not whole, not its last digits.
  const panel = await h.text(id("payout-command-panel"));
  for (const digits of [CLABE, CLABE.slice(-10), CLABE.slice(0, 10)]) {
    assert.ok(!panel.includes(digits), `the panel shows ${digits}: ${panel}`);
  }
  assert.match(panel, /CLABE/);
  assert.match(panel, /POSIX/);
  // The line is on the clipboard (or the panel says the clipboard refused).
  const status = await browser.waitUntil(
    async () => {
      const t = await h.text(id("payout-command-panel"));
      return /Copied to the clipboard|clipboard refused/.test(t) ? t : false;
    },
    { timeout: 5_000, timeoutMsg: "no word on the clipboard" },
  );
  assert.match(status, /Copied to the clipboard/);
  await h.shot("copy-command-clabe");

  // Escape closes the panel and gives the focus back to the button; the confirmation
  // stays, and nothing was sent.
  await browser.keys("Escape");
  await browser.waitUntil(
    async () =>
      !(await browser
        .$(id("payout-command-line"))
        .isDisplayed()
        .catch(() => false)),
    { timeout: 5_000, timeoutMsg: "Escape did not close the command" },
  );
  const focused = await browser.execute(() => document.activeElement?.getAttribute("data-testid"));
  assert.equal(focused, "payout-command");
  assert.ok(await browser.$(id("payout-confirm")).isDisplayed(), "the confirmation stays open");
  await h.closeOverlays();
});

test("a card payout's command in Chinese and dark holds no card number", async () => {
  await h.click(id("nav-settings"));
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Dark"]');
  await h.pickLanguage("简体中文");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "订单", {
    timeout: 5_000,
  });
  try {
    await h.go("payouts");
    await h.click(id("tab-card"));
    await h.typeInto(id("payout-amount"), "25.00");
    await h.typeInto(id("payout-card-no"), "4111 1111 1111 1111");
    await h.typeInto(id("payout-first-name"), "Ana María");
    await h.typeInto(id("payout-last-name"), "O'Neil");
    await h.click(id("payout-review"));
    await h.waitFor(id("payout-confirm"));
    await h.settled();
    assert.equal(await h.text(id("payout-command")), "复制为命令");
    const line = await openCommand("payout-command");
    assert.match(line, / payout card --amount 25\.00 --currency USD /);
    assert.match(line, / --first-name 'Ana María' --last-name 'O'\\''Neil' /);
    const panel = await h.text(id("payout-command-panel"));
    for (const digits of [CARD, CARD.slice(-8), "4111 1111"]) {
      assert.ok(!panel.includes(digits), `the panel shows ${digits}: ${panel}`);
    }
    assert.match(panel, /卡号/);
    await h.shot("copy-command-card-zh-dark");
  } finally {
    await h.closeOverlays();
    await h.click(id("nav-settings"));
    await h.pickLanguage("English");
    await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Light"]');
  }
});

test("the reports offer their commands: statement export, orders export, bulk look-up", async () => {
  await h.go("reports");
  await h.waitFor(id("statement-export-path"), 30_000);
  const path = await (await h.waitFor(id("statement-export-path"))).getValue();
  const statement = await openCommand("statement-command");
  assert.match(
    statement,
    /^paydesk --profile sandbox report statement --from \d{4}-\d\d-\d\d --to \d{4}-\d\d-\d\d --tz \S+ --out \S.* --offline$/,
  );
  assert.ok(statement.includes(path.includes(" ") ? `'${path}'` : path), statement);
  await h.shot("copy-command-statement");
  await browser.keys("Escape");
  await h.closeOverlays();

  await h.go("orders");
  await h.click(id("export-button"));
  await h.waitFor(id("export-path"));
  await h.settled();
  const exported = await openCommand("export-command");
  // The machine's zone by name (its daylight saving is the desk's to apply, per order).
  assert.match(exported, /^paydesk --profile sandbox orders export \S+ .*--tz [A-Za-z][\w+\-/]*$/);
  await h.shot("copy-command-orders-export");
  await browser.keys("Escape");
  await h.closeOverlays();

  await h.go("lookup");
  await h.typeInto(id("lookup-input"), "T1\nT2\n");
  const lookup = await openCommand("lookup-command");
  assert.equal(lookup, "paydesk --profile sandbox orders lookup --file numbers.txt");
  assert.match(await h.text(id("lookup-command-panel")), /numbers\.txt, one a line/);
  await h.shot("copy-command-lookup");
  await browser.keys("Escape");
});

test("the balances offer their commands: a currency's history, every profile's overview", async () => {
  await h.go("balances");
  // The screen asks the balances once and shows the first currency's history.
  const first = await h.waitFor(id("balance-row"), 30_000);
  const currency = await first.getAttribute("data-currency");
  await h.waitFor(id("balance-history"), 30_000);
  await h.settled();
  const history = await openCommand("balance-history-command");
  assert.equal(history, `paydesk --profile sandbox balance history --currency ${currency}`);
  await h.shot("copy-command-balance-history");
  await browser.keys("Escape");
  await h.closeOverlays();
  const all = await h.waitFor(id("all-profiles"), 20_000);
  await all.scrollIntoView();
  const overview = await openCommand("overview-command");
  assert.equal(overview, "paydesk --profile sandbox overview");
  await h.shot("copy-command-overview");
  await browser.keys("Escape");
});
