// Scheduled reports in the real window (issue 36, item 5): a schedule added in Reports →
// Schedules, due at the next minute, writes its statement into its folder while the app
// runs, and its last run shows; Run now writes a second file beside the first, never over
// it; a schedule whose folder cannot be written fails, says why, and waits on the
// Dashboard's attention list. Also looked at in Chinese and dark.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
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
});

after(async () => {
  await app?.stop();
});

/// The next whole minute at least 20 s away, as HH:MM in UTC (the built-in profile's
/// business zone), and that moment.
function nextMinute() {
  const at = new Date(Math.ceil((Date.now() + 20_000) / 60_000) * 60_000);
  const hhmm = `${String(at.getUTCHours()).padStart(2, "0")}:${String(at.getUTCMinutes()).padStart(2, "0")}`;
  return { hhmm, at };
}

/// The UTC day before `d`, YYYY-MM-DD: the day a daily run covers.
const dayBefore = (d) => new Date(d.getTime() - 86_400_000).toISOString().slice(0, 10);

async function addSchedule(name, folder, time) {
  await h.click(id("schedule-add"));
  await h.waitFor(id("schedule-form"));
  await h.typeInto(id("schedule-name"), name);
  await h.typeInto(id("schedule-time"), time);
  await h.typeInto(id("schedule-folder"), folder);
  await h.click(id("schedule-save"));
  await h.waitFor(`${id("schedule-row")}[data-name="${name}"]`);
}

const row = (name) => `${id("schedule-row")}[data-name="${name}"]`;

async function lastOutcome(name, outcome, timeout) {
  await browser.waitUntil(
    async () => {
      const r = await browser.$(`${row(name)} ${id("schedule-run-result")}`);
      return (await r.isExisting()) && (await r.getAttribute("data-outcome")) === outcome;
    },
    { timeout, interval: 1_000, timeoutMsg: `${name}: no ${outcome} run shown` },
  );
}

test("a schedule due now writes its file while the app runs; a failing one is raised", async () => {
  await h.waitFor(id("screen-dashboard"), 60_000);
  await h.english();
  assert.equal(await h.firstRunDone(), "done");
  await h.go("reports");
  await h.waitFor(id("schedules"));

  const folder = path.join(app.home, "finance", "daily");
  const { hhmm, at } = nextMinute();
  await addSchedule("E2E daily", folder, hhmm);
  await h.shot("schedules-added");
  assert.match(await h.text(row("E2E daily")), new RegExp(`Daily at ${hhmm}`));
  assert.match(await h.text(row("E2E daily")), /Not run yet/);

  // Due at the next minute: the app runs it by itself (it looks every 10 s). Meanwhile
  // (up to 80 s), the failing schedule, the attention list and the keyboard.

  // A folder that cannot be made (its parent is a file): the run fails and says why.
  const blocker = path.join(app.home, "not-a-folder");
  writeFileSync(blocker, "x");
  await addSchedule("E2E broken", path.join(blocker, "out"), "06:00");
  await h.click(`${row("E2E broken")} ${id("schedule-run-now")}`);
  await lastOutcome("E2E broken", "failed", 30_000);
  assert.match(await h.text(row("E2E broken")), /not-a-folder/);
  await h.shot("schedules-failed");

  // The Dashboard's attention list has it, and Seen takes it off.
  await h.go("dashboard");
  const item = await h.waitFor(`${id("attention-schedule")}[data-failed="true"]`, 30_000);
  assert.match(await item.getText(), /Scheduled report “E2E broken” failed/);
  await browser.execute(() =>
    document
      .querySelector('[data-testid="attention-schedule"]')
      ?.scrollIntoView({ block: "center" }),
  );
  await h.shot("schedules-attention");
  await h.click(id("attention-schedule-seen"));
  await browser.waitUntil(
    async () => !(await (await browser.$(id("attention-schedule"))).isExisting()),
    {
      timeout: 15_000,
      timeoutMsg: "Seen left the item on the list",
    },
  );

  // Keyboard: the Add button opens the form with Enter; Cancel closes it.
  await h.go("reports");
  const add = await h.waitFor(id("schedule-add"));
  await browser.execute((e) => {
    e.scrollIntoView({ block: "center" });
    e.focus();
  }, add);
  await browser.keys("Enter");
  await h.waitFor(id("schedule-form"));
  await h.shot("schedules-form");
  await h.click(id("schedule-cancel"));

  // The daily run, on time.
  await h.waitFor(row("E2E daily"));
  const wait = at.getTime() - Date.now() + 90_000;
  await lastOutcome("E2E daily", "ok", wait);
  const day = dayBefore(at);
  const file = path.join(folder, `e2e-daily-${day}.xlsx`);
  assert.ok(existsSync(file), `${file} written`);
  assert.equal(readFileSync(file).subarray(0, 2).toString(), "PK", "an XLSX (a zip) file");
  assert.ok((await h.text(row("E2E daily"))).includes(file), "the last run names its file");
  await browser.execute(() =>
    document.querySelector('[data-testid="schedules"]')?.scrollIntoView({ block: "start" }),
  );
  await h.shot("schedules-ran");

  // Run now: the same day again, in a file of its own; the first one stays.
  const first = readFileSync(file);
  await h.click(`${row("E2E daily")} ${id("schedule-run-now")}`);
  const second = path.join(folder, `e2e-daily-${day}_02.xlsx`);
  await browser.waitUntil(async () => existsSync(second), {
    timeout: 60_000,
    timeoutMsg: "Run now wrote no second file",
  });
  assert.deepEqual(readFileSync(file), first);
  await browser.waitUntil(async () => (await h.text(row("E2E daily"))).includes(second), {
    timeout: 15_000,
    timeoutMsg: "the last run does not name the second file",
  });
  assert.deepEqual(readdirSync(folder).sort(), [
    `e2e-daily-${day}.xlsx`,
    `e2e-daily-${day}_02.xlsx`,
  ]);

  // Pause, then delete (asked first, in the row).
  await h.click(`${row("E2E daily")} ${id("schedule-pause")}`);
  await browser.waitUntil(async () => (await h.text(row("E2E daily"))).includes("Paused"), {
    timeout: 15_000,
    timeoutMsg: "the schedule does not show paused",
  });
  await h.click(`${row("E2E broken")} ${id("schedule-remove")}`);
  await h.waitFor(`${row("E2E broken")} ${id("schedule-remove-confirm")}`);
  await h.shot("schedules-delete-asked");
  await h.click(`${row("E2E broken")} ${id("schedule-remove-yes")}`);
  await browser.waitUntil(async () => !(await (await browser.$(row("E2E broken"))).isExisting()), {
    timeout: 15_000,
    timeoutMsg: "the deleted schedule is still listed",
  });

  // The same screen in Chinese and dark.
  await h.click(id("nav-settings"));
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Dark"]');
  await h.pickLanguage("简体中文");
  await browser.waitUntil(async () => (await h.text(id("nav-orders"))) === "订单", {
    timeout: 5_000,
  });
  await h.go("reports");
  await h.waitFor(row("E2E daily"));
  assert.match(await h.text(id("schedules")), /定时报表/);
  await browser.execute(() =>
    document.querySelector('[data-testid="schedules"]')?.scrollIntoView({ block: "start" }),
  );
  await h.shot("schedules-zh-dark");
  await h.click(id("nav-settings"));
  await h.pickLanguage("English");
  await h.click('//*[@data-testid="theme-control"]//label[normalize-space(.)="Light"]');
});
