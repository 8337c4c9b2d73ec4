// Alerts that find the user (issue 35 item 4) in the real window, one app start: a
// balance threshold set in Settings above the sandbox's balance raises an alert; the
// bell counts it, the inbox shows it, the system's notification for it is sent once
// (the org.freedesktop.Notifications Notify call is seen on the test's own D-Bus
// session), and opening it shows the balances. Light and dark.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

const id = (x) => `[data-testid="${x}"]`;

let app;
let browser;
let h;
let monitor;
let calls = "";

before(async () => {
  // Every Notify call on this session's bus (the tests run in a private D-Bus session;
  // no notification server answers, the call is seen all the same).
  monitor = spawn(
    "dbus-monitor",
    ["--session", "type='method_call',interface='org.freedesktop.Notifications',member='Notify'"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  monitor.stdout.on("data", (d) => {
    calls += d.toString();
  });
  app = await startApp();
  browser = app.browser;
  h = helpers(browser);
  await h.waitFor(id("screen-dashboard"), 60_000);
  await h.firstRunDone();
  await h.english();
});

after(async () => {
  await app?.stop();
  monitor?.kill("SIGTERM");
});

test("a low balance raises an alert: counted, listed, notified once, opened to its page", async () => {
  // A snapshot of the balances (what the threshold is compared with).
  await h.go("balances");
  await h.click(id("balance-query"));
  await h.waitFor(`${id("balance-row")}[data-currency="MXN"]`, 30_000);

  await h.go("settings");
  await h.click(id("alert-low-add"));
  await h.typeInto(id("alert-low-currency-0"), "MXN");
  await h.typeInto(id("alert-low-amount-0"), "999999999999");
  await h.click(id("alert-settings-save"));
  await h.waitFor(id("alert-settings-saved"));

  // The bell counts it (the inbox is read again once the settings are saved).
  await browser.waitUntil(
    async () => (await (await h.waitFor(id("alerts-count"))).getAttribute("data-count")) === "1",
    { timeout: 20_000, timeoutMsg: "the bell does not count the alert" },
  );
  await h.click(id("alerts-button"));
  const row = await h.waitFor(id("alert-balance_low"));
  await h.settled();
  const text = await h.text(id("alert-balance_low"));
  assert.match(text, /Balance under its threshold/);
  assert.match(text, /Balance MXN [\d,]+\.\d\d is under MXN 999,999,999,999\.00/);
  assert.equal(await row.getAttribute("data-read"), "0");
  await h.settled();
  await h.shot("alerts-inbox-light");

  // The system's notification: one Notify call naming it, not repeated.
  await browser.waitUntil(async () => calls.includes("Balance under its threshold"), {
    timeout: 30_000,
    timeoutMsg: `no Notify call seen on the session bus: ${calls.slice(0, 400)}`,
  });
  assert.match(calls, /Balance MXN [\d,]+\.\d\d is under MXN 999,999,999,999\.00/);
  await new Promise((r) => setTimeout(r, 16_000));
  const notifies = calls.split("member=Notify").length - 1;
  assert.equal(notifies, 1, `notified ${notifies} times:\n${calls}`);

  // Opened: the balances, the alert marked read.
  await h.click(`${id("alert-balance_low")} ${id("alert-open")}`);
  await h.waitFor(id("screen-balances"));
  const hash = await browser.execute(() => window.location.hash);
  assert.equal(hash, "#/balances?currency=MXN");
  await browser.waitUntil(
    async () => (await (await h.waitFor(id("alerts-count"))).getAttribute("data-count")) === "0",
    { timeout: 10_000, timeoutMsg: "the opened alert is still unread" },
  );

  // Dark: the inbox as read.
  await h.go("settings");
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Dark"]');
  try {
    await h.click(id("alerts-button"));
    const read = await h.waitFor(id("alert-balance_low"));
    assert.equal(await read.getAttribute("data-read"), "1");
    await h.settled();
    await h.shot("alerts-inbox-dark");
    // Dismissed: it leaves the inbox.
    await h.click(`${id("alert-balance_low")} ${id("alert-dismiss")}`);
    await h.waitFor(id("alerts-empty"));
  } finally {
    await h.closeOverlays();
    await h.go("settings");
    await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Light"]');
  }
});
