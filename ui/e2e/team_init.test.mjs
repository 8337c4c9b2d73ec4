// Creating a team's schema from the window (issue 32: the app gains the CLI's `paydesk
// team init`): Settings → a profile's team connection offers it to the database's
// owner; without the owner's password it is refused, naming the password, before any
// connection. In English and light, then in Chinese and dark.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { helpers, startApp } from "./harness.mjs";

const id = (x) => `[data-testid="${x}"]`;

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

async function teamForm() {
  await h.click(id("nav-settings"));
  await h.click(id("profile-add"));
  await h.waitFor(id("profile-form"));
  await h.click(id("profile-advanced-toggle"));
  // The switch's input sits under its track: clicked as a keyboard user toggles it.
  const enabled = await h.waitFor(id("profile-team-enabled"));
  await browser.execute((e) => e.click(), enabled);
  await h.typeInto(id("profile-team-host"), "127.0.0.1");
  await h.typeInto(id("profile-team-database"), "team");
  await h.typeInto(id("profile-team-user"), "team_owner");
  const init = await h.waitFor(id("profile-team-init"));
  await browser.execute((e) => e.scrollIntoView({ block: "center" }), init);
  return init;
}

test("the team's owner is offered the schema's creation; no password, no connection", async () => {
  const init = await teamForm();
  assert.equal(
    await browser.execute((e) => e.textContent?.trim(), init),
    "Create or upgrade the team (owner)",
  );
  await h.click(id("profile-team-init"));
  const failed = await h.waitFor(id("profile-team-init-failed"), 10_000);
  await browser.execute((e) => e.scrollIntoView({ block: "center" }), failed);
  const text = await browser.execute((e) => e.textContent ?? "", failed);
  assert.match(text, /The team's schema was not created/);
  assert.match(text, /owner's password/);
  await h.settled();
  await browser.execute((e) => e.scrollIntoView({ block: "center" }), failed);
  await browser.pause(400);
  await h.shot("team-init-light");
  await browser.keys("Escape");
  await h.closeOverlays();
});

test("in Chinese and dark", async () => {
  await h.click(id("nav-settings"));
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Dark"]');
  await h.pickLanguage("简体中文");
  try {
    const init = await teamForm();
    assert.equal(
      await browser.execute((e) => e.textContent?.trim(), init),
      "创建或升级团队（所有者）",
    );
    await h.click(id("profile-team-init"));
    const failed = await h.waitFor(id("profile-team-init-failed"), 10_000);
    await h.settled();
    await browser.execute((e) => e.scrollIntoView({ block: "center" }), failed);
    await browser.pause(400);
    await h.shot("team-init-zh-dark");
  } finally {
    await browser.keys("Escape");
    await h.closeOverlays();
    await h.click(id("nav-settings"));
    await h.pickLanguage("English");
    await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Light"]');
  }
});
