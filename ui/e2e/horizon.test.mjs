// The change horizon in the real window: set on the Reports screen beside the business
// zone, refused with its rule when out of range, and kept with the profile (the CLI
// reads back what the window set).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { after, before, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

const CLI = process.env.PAYDESK_CLI ?? path.resolve("../target/debug/paydesk");
const id = (x) => `[data-testid="${x}"]`;

let app;
let browser;
let h;

before(async () => {
  app = await startApp();
  browser = app.browser;
  h = helpers(browser);
});

after(async () => {
  await app?.stop();
});

/// The active profile's reporting settings as the CLI reads them from the app's home.
function settings() {
  const out = execFileSync(CLI, ["report", "settings", "--json"], {
    env: {
      ...process.env,
      PAYDESK_HOME: app.home,
      PAYDESK_KEYRING_SERVICE: `PayDesk-e2e-${path.basename(app.home)}`,
    },
    encoding: "utf8",
    timeout: 60_000,
  });
  return JSON.parse(out);
}

test("the change horizon is set on the Reports screen and kept with the profile", async () => {
  await h.waitFor(id("screen-dashboard"), 60_000);
  await h.click(id("nav-reports"));
  await h.waitFor(id("screen-reports"));
  const input = await h.waitFor(id("reports-horizon"));
  await browser.waitUntil(async () => (await input.getValue()) === "120", {
    timeout: 20_000,
    timeoutMsg: "the horizon does not show its default of 120 days",
  });
  // Out of range: the field says its rule, and nothing can be saved.
  await h.typeInto(id("reports-horizon"), "0");
  await browser.waitUntil(
    async () =>
      (await h.text(id("screen-reports"))).includes(
        "Change horizon (days): a whole number of days from 1 to 3650",
      ),
    { timeout: 5_000, timeoutMsg: "no rule shown for 0 days" },
  );
  assert.equal(await (await browser.$(id("reports-horizon-save"))).isEnabled(), false);
  await h.shot("reports-horizon-refused");
  // 45 days, saved: the profile keeps it, the zone as it was.
  await h.typeInto(id("reports-horizon"), "45");
  await h.click(id("reports-horizon-save"));
  await browser.waitUntil(async () => settings().changeHorizonDays === 45, {
    timeout: 10_000,
    timeoutMsg: "the profile does not keep the 45 days set in the window",
  });
  assert.equal(settings().businessZone, "UTC");
  await h.shot("reports-horizon");
});

/// Each of the Reports period's buttons: its label, whether its text is cut, and whether
/// it reaches past the window's right edge.
async function periodButtons() {
  return browser.execute(() =>
    [...document.querySelectorAll('[data-testid="reports-period"] label')].map((l) => ({
      label: (l.textContent ?? "").trim(),
      cut:
        l.scrollWidth > l.clientWidth + 1 ||
        [...l.querySelectorAll("*")].some((e) => e.scrollWidth > e.clientWidth + 1),
      outside: l.getBoundingClientRect().right > window.innerWidth,
    })),
  );
}

test("at 1280 px the Reports period's buttons are whole and 'as of' is said once, in both languages", async () => {
  await h.english();
  const width = await browser.execute(() => window.innerWidth);
  assert.ok(width <= 1280, `the window is ${width} px wide`);
  for (const [language, custom] of [
    ["English", "Days…"],
    ["简体中文", null],
  ]) {
    if (language !== "English") {
      await h.go("settings");
      await h.pickLanguage(language);
      await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "订单", {
        timeout: 5_000,
        timeoutMsg: "the window did not turn Chinese",
      });
    }
    await h.go("reports");
    await h.waitFor(id("reports-cache"));
    const buttons = await periodButtons();
    assert.equal(buttons.length, 5, JSON.stringify(buttons));
    for (const b of buttons) {
      assert.ok(!b.cut && !b.outside, `${language}: the period button "${b.label}" is cut`);
    }
    if (custom) assert.equal(buttons[4].label, custom);
    // One "as of" line (the cache's, with Sync now), not a second in another format.
    assert.equal((await browser.$$(id("reports-as-of"))).length, 1);
    assert.equal((await browser.$$(id("reports-cache"))).length, 1);
    // With the custom period's two date fields open too.
    await h.click(`(//*[@data-testid="reports-period"]//label)[5]`);
    await h.waitFor(id("reports-from"));
    for (const b of await periodButtons()) {
      assert.ok(!b.cut && !b.outside, `${language}, days open: "${b.label}" is cut`);
    }
    await h.shot(language === "English" ? "reports-1280" : "reports-1280-zh");
  }
  await h.english();
});
