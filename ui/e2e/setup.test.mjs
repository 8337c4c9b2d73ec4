// A live set-up that guides (issue 33, item 5), in the real window as a newcomer
// connecting a live gateway would: the profile form's short list of what is required
// with *Advanced* collapsed and its buttons always in view, every field's problem at
// once in plain words, a base URL ending in /v2 warned about with the request it would
// make, an http:// notification URL to another machine refused; then the steps to go
// live ticked one by one, the merchant's own public key refused as the gateway's, and a
// private key never replaced without a confirmation. In English and Chinese.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, beforeEach, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

let app;
let browser;
let h;
const id = (x) => `[data-testid="${x}"]`;
const NAME = "live-gw";

/// The window in English. The web view keeps the language chosen in its own storage,
/// across runs: a run that stopped in Chinese would leave the next one in it.
async function english() {
  if ((await h.text(id("nav-orders"))) === "Orders") return;
  await h.click(id("nav-dashboard"));
  await h.click(id("nav-settings"));
  await h.waitFor(id("screen-settings"));
  await h.pickLanguage("English");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "Orders", {
    timeout: 5_000,
    timeoutMsg: "the navigation did not turn English",
  });
}

before(async () => {
  app = await startApp();
  browser = app.browser;
  h = helpers(browser);
  await h.waitFor(id("screen-dashboard"), 60_000);
  await english();
});

after(async () => {
  await app?.stop();
});

beforeEach(async () => {
  await h?.closeOverlays();
});

async function go(screen) {
  await h.click(id(`nav-${screen}`));
  await h.waitFor(id(`screen-${screen}`));
}

/// Whether the element is wholly inside the window (not scrolled out, not cut).
const inView = (selector) =>
  browser.execute((s) => {
    const e = document.querySelector(s);
    if (!e) return false;
    const r = e.getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
  }, selector);

/// The error text shown under an input (Mantine's error element of its wrapper).
const errorOf = (testid) =>
  browser.execute((t) => {
    const input = document.querySelector(`[data-testid="${t}"]`);
    const ids = (input?.getAttribute("aria-describedby") ?? "").split(/\s+/);
    for (const i of ids) {
      const e = i ? document.getElementById(i) : null;
      if (e?.className.includes("error")) return e.textContent ?? "";
    }
    return "";
  }, testid);

/// A click on a button the notifications in the window's corner may cover: brought to
/// the middle of the window first.
async function clickCentered(selector) {
  const el = await h.waitFor(selector);
  await browser.execute((e) => e.scrollIntoView({ block: "center" }), el);
  await browser.pause(300);
  await h.click(selector);
}

test("the profile form asks for what is required, says every problem at once, and keeps its buttons in view", async () => {
  await go("settings");
  await h.click(id("profile-add"));
  await h.waitFor(id("profile-form"));
  await browser.pause(400);
  assert.equal(
    await (await browser.$(id("profile-advanced-toggle"))).getAttribute("aria-expanded"),
    "false",
  );
  assert.equal(await (await browser.$(id("profile-proxy"))).isDisplayed(), false);
  assert.ok(await inView(id("profile-save")), "Save is not in view");
  await h.shot("setup-form");

  await h.typeInto(id("profile-base-url"), "https://gw.example/api/v2");
  const warning = await h.text(id("profile-version-warning"));
  assert.match(warning, /\/v2/);
  assert.match(
    await h.text(id("profile-request-url")),
    /https:\/\/gw\.example\/api\/v2\/v2\/payout/,
  );
  await h.typeInto(id("profile-notify-url"), "http://shop.example/notify");
  await browser.waitUntil(async () => /https:\/\//.test(await errorOf("profile-notify-url")), {
    timeout: 5_000,
    timeoutMsg: "an http:// notification URL to another machine is not refused as typed",
  });

  // Save with the name and merchant number missing: every problem, none saved.
  await h.click(id("profile-save"));
  const count = await h.text(id("profile-problem-count"));
  const n = Number(count.match(/\d+/)?.[0]);
  assert.ok(n >= 3, `too few problems named: ${count}`);
  for (const field of ["profile-name", "profile-mer-no", "profile-notify-url"]) {
    assert.match(await errorOf(field), /must/, `${field} has no rule under it`);
  }
  assert.ok(await inView(id("profile-save")), "Save is cut off or scrolled away");
  await h.shot("setup-form-problems");

  // Fixed, field by field: the count goes down to nothing, and it saves.
  await h.typeInto(id("profile-name"), NAME);
  await h.typeInto(id("profile-base-url"), "https://gw.example/api");
  await h.typeInto(id("profile-mer-no"), "10001");
  await h.typeInto(id("profile-origin"), "https://shop.example");
  await h.typeInto(id("profile-operator"), "Ana (finance)");
  await h.typeInto(id("profile-notify-url"), "https://shop.example/notify");
  await browser.waitUntil(async () => (await errorOf("profile-notify-url")) === "", {
    timeout: 5_000,
    timeoutMsg: "the notification URL's rule stays after it was fixed",
  });
  assert.equal((await browser.$$(id("profile-version-warning"))).length, 0);
  await h.click(id("profile-save"));
  await h.waitFor(`${id("profile-row")}[data-name="${NAME}"]`, 10_000);
});

test("the steps to go live tick as each is done; the merchant's own key is refused as the gateway's", async () => {
  await go("settings");
  await h.click(`${id("profile-row")}[data-name="${NAME}"] ${id("profile-keys")}`);
  const steps = await h.waitFor(id("setup-steps"));
  assert.equal(await steps.getAttribute("data-next"), "key");
  await clickCentered(id("key-generate"));
  await browser.waitUntil(async () => (await steps.getAttribute("data-next")) === "public-key", {
    timeout: 60_000,
    timeoutMsg: "the key step did not tick",
  });
  // Mantine draws its tick over the input: clicked as a person's click on it would be.
  await browser.execute((e) => e.click(), await h.waitFor(id("setup-public-key-given")));
  await browser.waitUntil(async () => (await steps.getAttribute("data-next")) === "gateway-key", {
    timeout: 5_000,
  });

  // The merchant's own public key pasted as the gateway's: refused, named and why.
  const own = await browser.execute(
    () => document.querySelector('[data-testid="merchant-key"] pre')?.textContent ?? "",
  );
  assert.match(own, /BEGIN PUBLIC KEY/);
  await h.typeInto(id("gateway-key-text"), own);
  await clickCentered(id("gateway-key-set"));
  await browser.waitUntil(
    async () => /your own public key/.test(await errorOf("gateway-key-text")),
    {
      timeout: 10_000,
      timeoutMsg: "the merchant's own public key was not refused as the gateway's",
    },
  );
  assert.equal(await steps.getAttribute("data-next"), "gateway-key");
  await h.shot("setup-own-key-refused");

  const gateway = generateKeyPairSync("rsa", { modulusLength: 2048 })
    .publicKey.export({ type: "spki", format: "pem" })
    .toString();
  await h.typeInto(id("gateway-key-text"), gateway);
  await clickCentered(id("gateway-key-set"));
  await browser.waitUntil(async () => (await steps.getAttribute("data-next")) === "token", {
    timeout: 10_000,
    timeoutMsg: "the gateway key step did not tick",
  });
  await h.typeInto(id("token-text"), "tok-e2e-0001");
  await clickCentered(id("token-set"));
  await browser.waitUntil(async () => (await steps.getAttribute("data-next")) === "check", {
    timeout: 10_000,
    timeoutMsg: "the token step did not tick",
  });
  // The tick "public key given" is the profile's, kept by the desk with its settings
  // (the fingerprint of the key given), not by this web view: a web view whose storage
  // is wiped still shows it.
  const fingerprint = await h.text(id("merchant-key-fingerprint"));
  const kept = JSON.parse(readFileSync(path.join(app.home, "profiles.json"), "utf8"));
  assert.equal(kept.setup?.[NAME]?.publicKeyGiven, fingerprint.trim());
  await browser.execute(() => {
    localStorage.clear();
    sessionStorage.clear();
  });
  // The page loaded afresh (on the screen it was on).
  await browser.refresh();
  await h.waitFor(id("nav-settings"), 60_000);
  await go("settings");
  await h.click(`${id("profile-row")}[data-name="${NAME}"] ${id("profile-keys")}`);
  const again = await h.waitFor(id("setup-steps"));
  await browser.waitUntil(async () => (await again.getAttribute("data-next")) === "check", {
    timeout: 10_000,
    timeoutMsg: "a new web view lost the step 'public key given'",
  });
  assert.equal(
    await (await browser.$(id("setup-step-public-key"))).getAttribute("data-done"),
    "true",
  );
  // The check of a gateway that cannot be reached does not tick the last step.
  await clickCentered(id("setup-run-check"));
  const summary = await h.waitFor(`${id("check-summary")}`, 60_000);
  assert.equal(await summary.getAttribute("data-ok"), "false");
  await h.closeOverlays();
  // The steps read afresh: the check's answer re-draws the panel they sit in.
  const after = await h.waitFor(id("setup-steps"));
  assert.equal(await after.getAttribute("data-next"), "check");
  await after.scrollIntoView();
  await h.shot("setup-steps");
});

test("importing a private key over the profile's own is asked first", async () => {
  await go("settings");
  await h.click(`${id("profile-row")}[data-name="${NAME}"] ${id("profile-keys")}`);
  await h.waitFor(id("merchant-key"));
  const before = await h.text(id("merchant-key-fingerprint"));
  const other = generateKeyPairSync("rsa", { modulusLength: 2048 })
    .privateKey.export({ type: "pkcs8", format: "pem" })
    .toString();
  await h.typeInto(id("key-import-text"), other);
  await h.click(id("key-import-run"));
  const confirm = await h.waitFor('//button[normalize-space(.)="Replace the key"]');
  await browser.pause(600); // the dialog's opening transition, for the screenshot
  await h.shot("setup-replace-key-confirm");
  // Cancelled: the key is the one it was.
  await h.click('//*[@role="dialog"]//button[normalize-space(.)="Cancel"]');
  await browser.pause(500);
  assert.equal(await h.text(id("merchant-key-fingerprint")), before);
  // Confirmed: replaced, and the step "public key given" is not ticked for the new key.
  await h.click(id("key-import-run"));
  await (await h.waitFor('//button[normalize-space(.)="Replace the key"]')).click();
  await browser.waitUntil(async () => (await h.text(id("merchant-key-fingerprint"))) !== before, {
    timeout: 10_000,
    timeoutMsg: "the confirmed import did not replace the key",
  });
  assert.equal(await (await browser.$(id("setup-steps"))).getAttribute("data-next"), "public-key");
  assert.ok(confirm);
});

test("the set-up in Chinese", async () => {
  await go("settings");
  await h.pickLanguage("简体中文");
  try {
    await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "订单", {
      timeout: 5_000,
    });
    await h.click(`${id("profile-row")}[data-name="${NAME}"] ${id("profile-keys")}`);
    const steps = await h.waitFor(id("setup-steps"));
    assert.match(await h.text(id("setup-steps")), /上线步骤/);
    await steps.scrollIntoView();
    await h.shot("setup-steps-zh");
    await h.click(id("profile-add"));
    await h.waitFor(id("profile-form"));
    await h.typeInto(id("profile-base-url"), "https://gw.example/v2");
    await h.waitFor(id("profile-version-warning"));
    await h.click(id("profile-save"));
    assert.match(await h.text(id("profile-problem-count")), /个字段需要修改/);
    await h.shot("setup-form-problems-zh");
  } finally {
    await h.closeOverlays();
    await go("settings");
    await h.pickLanguage("English");
  }
});

test("in Chinese, the core's rules for a bad amount and a bad CLABE are Chinese", async () => {
  // The language the web view keeps, the page loaded afresh in it.
  const language = async (lang) => {
    await browser.execute((l) => localStorage.setItem("paydesk.language", l), lang);
    await browser.refresh();
    await h.waitFor(id("nav-orders"), 60_000);
  };
  await language("zh");
  try {
    await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "订单", {
      timeout: 5_000,
      timeoutMsg: "the window did not turn Chinese",
    });
    await go("payouts");
    await h.click(id("tab-clabe"));
    await h.typeInto(id("payout-amount"), "0");
    await h.typeInto(id("payout-clabe"), "002010077777777771");
    await h.click(id("payout-review"));
    // The core's rule, by its key: no English words of it left.
    await browser.waitUntil(async () => /必须大于零/.test(await errorOf("payout-amount")), {
      timeout: 10_000,
      timeoutMsg: "the amount's rule is not in Chinese",
    });
    assert.doesNotMatch(await errorOf("payout-amount"), /greater than zero/);
    await h.typeInto(id("payout-amount"), "100.00");
    await h.typeInto(id("payout-clabe"), "002010077777777772");
    await h.click(id("payout-review"));
    await browser.waitUntil(
      async () => /校验位不正确（应为 1）/.test(await errorOf("payout-clabe")),
      { timeout: 10_000, timeoutMsg: "the CLABE's rule is not in Chinese" },
    );
    assert.doesNotMatch(await h.text(id("screen-payouts")), /check digit/);
    assert.equal(await browser.$(id("payout-confirm")).isExisting(), false);
    await h.shot("payout-rule-zh");
  } finally {
    await language("en");
  }
});
