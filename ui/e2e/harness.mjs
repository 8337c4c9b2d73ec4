// Starts what the window tests need and stops it by its PID: a fresh PayDesk home,
// tauri-driver (which starts WebKitWebDriver and the app), and a WebDriver session.
// Runs inside the private D-Bus session with gnome-keyring and under Xvfb (xtask).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { remote } from "webdriverio";

const require = createRequire(import.meta.url);
const APP = process.env.PAYDESK_APP ?? path.resolve("../target/debug/paydesk-app");
export const ARTIFACTS = process.env.PAYDESK_ARTIFACTS ?? path.resolve("../artifacts/e2e");

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

async function waitForPort(port, timeoutMs) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.end();
        resolve(true);
      });
      s.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`tauri-driver did not listen on ${port} within ${timeoutMs} ms`);
}

/// An X server of the app's own (Xvfb, 1280×800): the files that run at once (xtask
/// runs two) never share a screen, so one app's window never takes another's focus.
/// Its display (`:N`) once it serves, and its stop.
async function ownDisplay() {
  const x = spawn("Xvfb", ["-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp"], {
    stdio: ["ignore", "ignore", "ignore", "pipe"],
  });
  const display = await new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error("Xvfb served no display within 10 s")), 10_000);
    x.stdio[3].on("data", (d) => {
      text += d;
      if (text.includes("\n")) {
        clearTimeout(timer);
        resolve(`:${text.trim()}`);
      }
    });
    x.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb ended (${code}) before it served a display`));
    });
  });
  const stopX = async () => {
    if (x.exitCode !== null || x.signalCode !== null) return;
    const gone = new Promise((r) => x.once("exit", r));
    x.kill("SIGTERM");
    await gone;
  };
  return { display, stop: stopX };
}

/// Every process started under `pid` (WebKitWebDriver, the app, its web processes).
function descendants(pid) {
  let children = [];
  try {
    children = execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n")
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    // `ps` exits 1 when there are none.
  }
  return children.flatMap((c) => [c, ...descendants(c)]);
}

/// A session on the app, on a fresh home (or `home`, kept afterwards) with a keyring
/// service of its own; `env` is added to the app's environment.
export async function startApp({ home: given, app = APP, env = {} } = {}) {
  const home = given ?? mkdtempSync(path.join(tmpdir(), "paydesk-e2e-"));
  mkdirSync(ARTIFACTS, { recursive: true });
  const port = await freePort();
  const nativePort = await freePort();
  const screen = await ownDisplay();
  const driver = spawn(
    "tauri-driver",
    ["--port", String(port), "--native-port", String(nativePort)],
    {
      stdio: ["ignore", "inherit", "inherit"],
      env: {
        ...process.env,
        PAYDESK_HOME: home,
        PAYDESK_KEYRING_SERVICE: `PayDesk-e2e-${path.basename(home)}`,
        // The web view's own storage (the language and colour scheme the UI keeps) with
        // the home: a file that stopped in Chinese or dark, or whose switch back was not
        // yet written when its app was stopped, leaves nothing to the next file; a
        // relaunch on the same home finds what its first app kept.
        XDG_DATA_HOME: path.join(home, ".webview"),
        RUST_LOG: process.env.PAYDESK_LOG ?? "warn",
        // No accessibility bus runs in the tests' private D-Bus session: GTK's bridge to
        // it would only wait on calls that cannot be answered.
        NO_AT_BRIDGE: "1",
        DISPLAY: screen.display,
        ...env,
      },
    },
  );
  let browser;
  try {
    await waitForPort(port, 15_000);
    browser = await remote({
      hostname: "127.0.0.1",
      port,
      logLevel: "error",
      connectionRetryCount: 1,
      connectionRetryTimeout: 30_000,
      capabilities: {
        browserName: "wry",
        "wdio:enforceWebDriverClassic": true,
        "tauri:options": { application: app },
      },
    });
  } catch (e) {
    // A start that failed leaves nothing running: the driver, what it started, the X
    // server.
    for (const pid of descendants(driver.pid)) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // Already gone.
      }
    }
    driver.kill("SIGTERM");
    await screen.stop();
    throw e;
  }
  const stop = async () => {
    // Known before the session ends: a session lost to a crashed page leaves the app
    // running unless it is stopped by its PID.
    const started = descendants(driver.pid);
    try {
      await browser.deleteSession().catch(() => {});
    } finally {
      for (const pid of started) {
        try {
          process.kill(pid, "SIGTERM");
        } catch {
          // Already gone.
        }
      }
      driver.kill("SIGTERM");
      await new Promise((r) => driver.once("exit", r));
      await screen.stop();
      if (!given) rmSync(home, { recursive: true, force: true });
    }
  };
  return { browser, home, stop, driverPid: driver.pid };
}

/// Helpers bound to one session.
export function helpers(browser) {
  const shot = (name) => browser.saveScreenshot(path.join(ARTIFACTS, `${name}.png`));
  const waitFor = async (selector, timeout = 20_000) => {
    const el = await browser.$(selector);
    try {
      await el.waitForExist({ timeout });
    } catch (e) {
      await shot(`failed-wait-${Date.now()}`);
      throw e;
    }
    return el;
  };
  /// Waits until nothing in the page moves: no transition and no finite animation runs
  /// (a drawer, a modal or a toast sliding in), over a few frames, since a transition
  /// starts a frame or two after its element mounts. For a screenshot of the page at
  /// rest; at most `timeout` ms (a page still moving then is taken as it is).
  const settled = async (timeout = 3_000) => {
    const until = Date.now() + timeout;
    while (Date.now() < until) {
      const still = await browser.executeAsync((done) => {
        let answered = false;
        const answer = (v) => {
          if (!answered) done(v);
          answered = true;
        };
        const moving = () =>
          document
            .getAnimations()
            .some(
              (a) =>
                a.playState === "running" &&
                a.effect?.getComputedTiming().iterations !== Number.POSITIVE_INFINITY,
            );
        let frames = 0;
        const frame = () => {
          if (moving()) return answer(false);
          if (++frames >= 4) return answer(true);
          requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
        // No frames painted (a hidden window): the animations alone.
        setTimeout(() => answer(!moving()), 500);
      });
      if (still) return;
    }
  };
  /// Closes whatever drawer, modal or palette is open, so one test's failure does not
  /// hide the next test's screen.
  const closeOverlays = async () => {
    for (let i = 0; i < 3; i++) {
      // Counted and clicked in the page, not through element handles: a drawer that
      // re-renders while it closes left a stale handle (WebDriver's "stale element").
      const open = await browser.execute(() => {
        const closers = document.querySelectorAll(".mantine-Drawer-close, .mantine-Modal-close");
        for (const c of closers) c.click();
        return {
          closers: closers.length,
          dialogs: document.querySelectorAll('[role="dialog"]').length,
        };
      });
      if (open.closers === 0 && open.dialogs > 0) {
        await browser.keys("Escape");
      } else if (open.closers === 0) {
        return;
      }
      await settled();
    }
    // Still open: leave the screen, which unmounts whatever it had open.
    await browser.execute(() => {
      window.location.hash = "#/";
    });
    await settled();
  };

  /// How many elements match now, counted in the page (CSS, or XPath when it starts with
  /// "/" or "("): no element handle is made, so an element being removed meanwhile cannot
  /// fail the call with WebDriver's "stale element" (as `browser.$` did on the palette
  /// while it faded out).
  const count = (selector) =>
    browser.execute((s) => {
      if (s.startsWith("/") || s.startsWith("(")) {
        return document.evaluate(s, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null)
          .snapshotLength;
      }
      return document.querySelectorAll(s).length;
    }, selector);
  /// Waits until nothing matches `selector` (a drawer, palette or panel has closed).
  const gone = async (selector, timeout = 10_000) => {
    try {
      await browser.waitUntil(async () => (await count(selector)) === 0, {
        timeout,
        interval: 100,
        timeoutMsg: `still in the page after ${timeout} ms: ${selector}`,
      });
    } catch (e) {
      await shot(`failed-gone-${Date.now()}`);
      throw e;
    }
  };

  const click = async (selector) => {
    const el = await waitFor(selector);
    // In the middle of the window, as `typeInto` does: a button at the bottom of a tall
    // dialog otherwise sits under the notifications in the window's corner.
    await browser.execute((e) => e.scrollIntoView({ block: "center" }), el);
    try {
      await el.waitForClickable({ timeout: 10_000 });
    } catch (e) {
      await shot(`failed-click-${Date.now()}`);
      throw e;
    }
    // Drawers and modals slide in: click once the element has stopped moving.
    let last = null;
    await browser.waitUntil(
      async () => {
        const { x, y } = await el.getLocation();
        const still = last !== null && last.x === x && last.y === y;
        last = { x, y };
        return still;
      },
      { timeout: 5_000, interval: 150 },
    );
    await el.click();
    return el;
  };
  /// Replaces an input's text the way React sees typing: the native value setter,
  /// then an `input` event. (WebKitWebDriver's simulated keystrokes into text fields
  /// stalled on loaded machines.)
  const typeInto = async (selector, text) => {
    const el = await waitFor(selector);
    // In the middle of the window first: scrolled in only as far as needed, a field at
    // the window's bottom sits under the notifications in its corner, which take the click.
    await browser.execute((e) => e.scrollIntoView({ block: "center" }), el);
    await el.click();
    await browser.execute(
      (e, value) => {
        const proto =
          e instanceof HTMLTextAreaElement
            ? HTMLTextAreaElement.prototype
            : HTMLInputElement.prototype;
        Object.getOwnPropertyDescriptor(proto, "value")?.set?.call(e, value);
        e.dispatchEvent(new Event("input", { bubbles: true }));
      },
      el,
      text,
    );
    return el;
  };
  const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
  /// axe-core on the page as it is now; the serious and critical violations.
  const axe = async () => {
    // Let opening transitions (drawers, modals) finish: axe measures what is painted.
    await settled();
    await browser.execute(`${axeSource}; return true;`);
    const violations = await browser.executeAsync((done) => {
      // axe-core was injected above as a global.
      window.axe.run(document, { resultTypes: ["violations"] }).then((r) =>
        done(
          r.violations.map((v) => ({
            id: v.id,
            impact: v.impact,
            help: v.help,
            nodes: v.nodes.slice(0, 3).map((n) => {
              const d = n.any?.[0]?.data;
              const colors = d?.fgColor
                ? ` [${d.fgColor} on ${d.bgColor}: ${d.contrastRatio}]`
                : "";
              return `${n.target.join(" ")}${colors}: ${n.html.slice(0, 120)}`;
            }),
          })),
        ),
      );
    });
    return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  };
  /// Picks an option of a Mantine select or multi-select.
  /// With the keyboard, as a person without a mouse would: focus, ArrowDown, pick.
  const choose = async (inputSelector, optionText) => {
    const input = await waitFor(inputSelector);
    await browser.execute((e) => e.focus(), input);
    await browser.keys("ArrowDown");
    const option = await waitFor(
      `//*[@role="option"][contains(normalize-space(.), "${optionText}")]`,
    );
    await option.click();
  };
  /// An element's text once it has some: the DOM's text, not WebDriver's "visible
  /// text", which WebKitWebDriver answered with nothing for Mantine alerts on screen
  /// and once hung the page on.
  const text = async (selector) => {
    const el = await waitFor(selector);
    let t = "";
    try {
      await browser.waitUntil(
        async () => {
          t = (await browser.execute((e) => e.textContent ?? "", el)).trim();
          return t !== "";
        },
        { timeout: 10_000 },
      );
    } catch {
      await shot(`failed-text-${Date.now()}`);
      throw new Error(`${selector} shows no text`);
    }
    return t;
  };
  /// Waits for the receipt to reach one of `statuses`; answers with the one it reached.
  const receiptStatus = async (statuses, timeout = 30_000) => {
    let last = "";
    await browser.waitUntil(
      async () => {
        const r = await browser.$('[data-testid="receipt"]');
        if (!(await r.isExisting())) return false;
        last = await r.getAttribute("data-status");
        return statuses.includes(last);
      },
      { timeout, timeoutMsg: `the receipt did not reach ${statuses} (last: ${last})` },
    );
    return last;
  };
  /// Waits until the first run's load of the sandbox's demo orders has finished (or was
  /// not needed): the page's root says `data-first-sync`.
  const firstRunDone = async (timeout = 180_000) => {
    let state = "";
    await browser.waitUntil(
      async () => {
        state = await browser.execute(() => document.documentElement.dataset.firstSync ?? "");
        return state === "done" || state === "none" || state === "failed";
      },
      { timeout, timeoutMsg: "the first run's load of the demo orders did not finish" },
    );
    return state;
  };
  /// Picks a language in Settings: its list opened with the keyboard, the option clicked
  /// once the list has stopped moving. WebDriver refused that click now and then (the
  /// option "not interactable", on every try of a run): a refused pick is shot, and
  /// tried again with the option clicked in the page. The callers check that the window
  /// then speaks the language.
  const pickLanguage = async (name) => {
    const option = `//*[@role="option"][contains(normalize-space(.), "${name}")]`;
    for (let i = 0; ; i++) {
      try {
        const input = await waitFor("#language-select");
        await browser.execute((e) => {
          e.scrollIntoView({ block: "center" });
          e.focus();
        }, input);
        await browser.keys("ArrowDown");
        const el = await waitFor(option, 10_000);
        await settled();
        if (i === 0) await el.click();
        else await browser.execute((e) => e.click(), el);
        return;
      } catch (e) {
        if (i === 3) throw e;
        await shot(`failed-language-pick-${Date.now()}`);
        await browser.keys("Escape");
        await settled();
      }
    }
  };
  /// The window in English (the web view keeps the language of an earlier run), back on
  /// the Dashboard.
  const english = async () => {
    await waitFor('[data-testid="nav-orders"]', 60_000);
    if ((await text('[data-testid="nav-orders"]')) === "Orders") return;
    await click('[data-testid="nav-settings"]');
    await waitFor('[data-testid="screen-settings"]');
    await pickLanguage("English");
    await browser.waitUntil(async () => (await text('[data-testid="nav-orders"]')) === "Orders", {
      timeout: 5_000,
      timeoutMsg: "the window did not turn English",
    });
    await click('[data-testid="nav-dashboard"]');
  };
  /// Opens a screen from the navigation and waits for it.
  const go = async (screen) => {
    await click(`[data-testid="nav-${screen}"]`);
    await waitFor(`[data-testid="screen-${screen}"]`);
  };
  return {
    waitFor,
    count,
    gone,
    click,
    typeInto,
    shot,
    axe,
    choose,
    closeOverlays,
    text,
    receiptStatus,
    firstRunDone,
    pickLanguage,
    english,
    go,
    settled,
  };
}
