// A profile's gateway conventions and its connection check, in the app's real window
// against the built-in sandbox: members changed and saved are there when the panel
// opens again, and the check reads by them.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

let app;
let browser;
let h;
const id = (x) => `[data-testid="${x}"]`;
const SANDBOX_ROW = `${id("profile-row")}[data-name="sandbox"]`;

before(async () => {
  app = await startApp();
  browser = app.browser;
  h = helpers(browser);
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

/// The DOM's value of an input (WebDriver's answer is the attribute, not what React set).
const inputValue = async (selector) => browser.execute((e) => e.value, await h.waitFor(selector));

/// The window in English. The web view keeps the language chosen in its own storage,
/// across runs: a run that stopped in Chinese would leave the next one in it.
async function english() {
  if ((await h.text(id("nav-orders"))) === "Orders") return;
  // From a freshly opened Settings screen, as app.test.mjs does: the list of languages
  // opened again on a screen left scrolled did not take the click.
  await h.click(id("nav-dashboard"));
  await h.click(id("nav-settings"));
  await h.waitFor(id("screen-settings"));
  await h.pickLanguage("English");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "Orders", {
    timeout: 5_000,
    timeoutMsg: "the navigation did not turn English",
  });
}

async function openConventions() {
  await h.click(id("nav-settings"));
  await h.waitFor(id("screen-settings"));
  await h.click(`${SANDBOX_ROW} ${id("profile-conventions")}`);
  await h.waitFor(`${id("conventions-panel")}[data-profile="sandbox"]`);
  // The drawer slides in: shots and clicks once it has stopped.
  await h.settled();
}

/// Closed, not closing: a modal on its way out takes the clicks meant for the page.
async function closeCheck() {
  await browser.keys("Escape");
  await h.gone(id("check-panel"), 10_000);
  await h.settled();
}

async function closeDrawer() {
  await browser.keys("Escape");
  await h.gone(id("conventions-panel"), 10_000);
}

test("the sandbox's conventions: a new time zone and largest page are saved and there again on reopening", async () => {
  await h.waitFor(id("screen-dashboard"), 60_000);
  await english();
  // Saving conventions opens the desk again: after the first run's load, not during it.
  await h.firstRunDone();
  await openConventions();
  assert.equal(await inputValue(id("conv-timeZone")), "UTC");
  assert.equal(await inputValue(id("conv-maxPageSize")), "500");
  await h.shot("conventions");
  await checkAxe("conventions");

  // The zone searched as typed and picked from the list.
  await h.typeInto(id("conv-timeZone"), "Asia/Shang");
  await h.click('//*[@role="option"][normalize-space(.)="Asia/Shanghai"]');
  await h.typeInto(id("conv-maxPageSize"), "200");
  await h.waitFor(id("conv-dirty"));
  await h.click(id("conv-save"));
  // Saved: the panel reads the saved conventions again, with nothing left unsaved.
  await h.gone(id("conv-dirty"), 30_000);
  assert.equal(await inputValue(id("conv-maxPageSize")), "200");
  await h.shot("conventions-saved");
  await closeDrawer();

  await openConventions();
  assert.equal(await inputValue(id("conv-timeZone")), "Asia/Shanghai");
  assert.equal(await inputValue(id("conv-maxPageSize")), "200");
  await closeDrawer();
});

test("a backend rule lands on the member it names", async () => {
  await openConventions();
  await h.typeInto(id("conv-requesterIp"), "not-an-address");
  await h.click(id("conv-save"));
  const error = await h.waitFor(
    `//*[@data-testid="conv-requesterIp"]/ancestor::*[contains(@class, "InputWrapper-root")][1]//*[contains(@class, "InputWrapper-error")]`,
  );
  const text = (await browser.execute((e) => e.textContent ?? "", error)).trim();
  assert.match(text, /must be an IPv4 or IPv6 address/);
  const line = await h.waitFor(id("conv-save-error"));
  assert.equal(await line.getAttribute("data-field"), "conventions.requesterIp");
  await h.shot("conventions-error");
  await closeDrawer();
  // Nothing was saved.
  await openConventions();
  assert.equal(await inputValue(id("conv-requesterIp")), "127.0.0.1");
  await closeDrawer();
});

test("check connection: the sandbox works, read by the saved conventions", async () => {
  await h.click(id("nav-settings"));
  await h.click(`${SANDBOX_ROW} ${id("profile-check")}`);
  const summary = await h.waitFor(id("check-summary"), 60_000);
  assert.equal(await summary.getAttribute("data-ok"), "true");
  const works = await browser.$$(`${id("check-item")}[data-outcome="works"]`);
  const what = [];
  for (const w of works) what.push(await w.getAttribute("data-what"));
  assert.ok(what.includes("balance"), `works: ${what}`);
  assert.ok(what.includes("orderList"), `works: ${what}`);
  // The order list was read in the zone and at the page size just saved.
  const list = await h.text(`${id("check-item")}[data-what="orderList"]`);
  assert.match(list, /Asia\/Shanghai/);
  assert.match(list, /pages of 200/);
  await h.settled();
  await h.shot("connection-check");
  await checkAxe("connection check");
  await closeCheck();
});

test("in Chinese, and dark", async (t) => {
  // Back to English and light whatever happens: the web view keeps both for the next run.
  t.after(async () => {
    await h.closeOverlays();
    await english();
    await h.click(id("nav-settings"));
    await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Light"]');
  });
  await h.click(id("nav-settings"));
  await h.pickLanguage("简体中文");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "订单", {
    timeout: 5_000,
    timeoutMsg: "the navigation did not turn Chinese",
  });
  await openConventions();
  assert.match(await h.text(id("conventions-panel")), /网关时区/);
  await h.shot("conventions-zh");
  await closeDrawer();
  await h.click(`${SANDBOX_ROW} ${id("profile-check")}`);
  await h.waitFor(id("check-summary"), 60_000);
  assert.match(await h.text(id("check-panel")), /正常/);
  // The modal fades in: the shot once it has.
  await h.settled();
  await h.shot("connection-check-zh");
  await closeCheck();
  await english();

  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Dark"]');
  await browser.waitUntil(
    async () =>
      (await browser.execute(() => document.documentElement.dataset.mantineColorScheme)) === "dark",
    { timeout: 5_000, timeoutMsg: "the scheme did not turn dark" },
  );
  await openConventions();
  await h.shot("conventions-dark");
  await checkAxe("conventions, dark");
  await closeDrawer();
});
