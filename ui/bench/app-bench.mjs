// The desktop app's benchmark (figures printed, never asserted; BENCHMARKS.md keeps
// them): launch to an interactive dashboard, idle resident memory, and the round trip
// of one orders page from the web view through IPC to a cache of 1,000,000 orders, and
// every screen from the click to its content (issue 34: Dashboard, Reports over a
// month, Orders with a jump to the end and a filter change, the order page, Balances,
// Activity over 100,000 audit rows). Run by `cargo xtask bench-app` under Xvfb and the private D-Bus session.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startApp } from "../e2e/harness.mjs";
import { measureScreens } from "./screens.mjs";

const APP = process.env.PAYDESK_APP;
const ORDERS = Number(process.env.PAYDESK_BENCH_ORDERS ?? 1_000_000);
const AUDIT_ROWS = Number(process.env.PAYDESK_BENCH_AUDIT_ROWS ?? 100_000);
const VISITS = Number(process.env.PAYDESK_BENCH_VISITS ?? 10);
/// Only the screens' figures (no launches, memory, IPC pages or software rendering).
const SCREENS_ONLY = process.env.PAYDESK_BENCH_SCREENS_ONLY === "1";
if (!APP) throw new Error("PAYDESK_APP must name the release build of the app");

/// The command running a release example of paydesk-core: built by cargo, or the
/// binary in `PAYDESK_BENCH_EXAMPLES` (a folder of them, built beforehand).
const example = (name, args) =>
  process.env.PAYDESK_BENCH_EXAMPLES
    ? [path.join(process.env.PAYDESK_BENCH_EXAMPLES, name), args]
    : [
        "cargo",
        [
          "run",
          "--release",
          "--locked",
          "-q",
          "-p",
          "paydesk-core",
          "--example",
          name,
          "--",
          ...args,
        ],
      ];

const pct = (values) => {
  const v = [...values].sort((a, b) => a - b);
  const at = (p) => v[Math.round((v.length - 1) * p)];
  return { p50: at(0.5), p95: at(0.95), max: at(1) };
};
const fmt = ({ p50, p95, max }) =>
  `p50 ${p50.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms, max ${max.toFixed(2)} ms`;

/// Every process now, with its parent, its command, its resident size, its proportional
/// share (PSS: shared libraries split among the processes that map them) and its
/// anonymous (private, heap) part, in KiB.
function processes() {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const exe = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0];
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        const r = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
        const pick = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, "m").exec(r)?.[1] ?? 0);
        return {
          pid: Number(pid),
          ppid,
          exe,
          rss: pick("Rss"),
          pss: pick("Pss"),
          anon: pick("Anonymous"),
        };
      } catch {
        return null;
      }
    })
    .filter(Boolean);
}

/// A process (found by its binary, or its PID) and the web view processes it started,
/// summed; and the whole: the process and its web view processes together.
function memoryKiB(binaryOrPid) {
  const procs = processes();
  const app = procs.find((p) => p.exe === binaryOrPid || p.pid === binaryOrPid);
  if (!app) throw new Error(`no process ${binaryOrPid}`);
  const children = procs.filter((p) => p.ppid === app.pid);
  const sum = (list, k) => list.reduce((a, p) => a + p[k], 0);
  const total = (list) => ({
    rss: sum(list, "rss"),
    pss: sum(list, "pss"),
    anon: sum(list, "anon"),
  });
  return { app, webview: total(children), whole: total([app, ...children]), children };
}

/// WebKitGTK's own floor: its MiniBrowser showing one line of text, drawn as the app
/// draws (no GPU compositing), measured like the app. `null` where WebKitGTK's
/// MiniBrowser is not installed.
async function engineFloorKiB() {
  const browser = readdirSync("/usr/lib")
    .map((d) => path.join("/usr/lib", d, "webkit2gtk-4.1", "MiniBrowser"))
    .find((p) => existsSync(p));
  if (!browser) return null;
  const child = spawn(browser, ["data:text/html,<p>PayDesk</p>"], {
    stdio: "ignore",
    env: { ...process.env, WEBKIT_DISABLE_COMPOSITING_MODE: "1" },
  });
  try {
    await new Promise((r) => setTimeout(r, 12_000));
    return memoryKiB(child.pid);
  } finally {
    child.kill("SIGTERM");
  }
}

/// When the app's process started, in epoch milliseconds: its start in clock ticks
/// since boot (/proc/PID/stat), placed against the uptime read now (/proc/uptime) and
/// the wall clock now; 10 ms resolution. (/proc/stat's `btime` is rounded to the second.)
function startedAtMs(binary) {
  const ticks =
    Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;
  // The newest: the previous run's process may still be exiting.
  let newest = null;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] !== binary) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const start = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
      newest = Math.max(newest ?? 0, start);
    } catch {
      // Gone meanwhile.
    }
  }
  if (newest === null) throw new Error(`no process of ${binary}`);
  const uptimeMs = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]) * 1000;
  return Date.now() - (uptimeMs - (newest * 1000) / ticks);
}

/// From the app's process start to the dashboard's figures on screen (the UI's
/// `paydesk:dashboard-ready` mark), without the WebDriver session's own start.
async function appLaunchMs(browser, binary) {
  let ready = null;
  await browser.waitUntil(
    async () => {
      ready = await browser.execute(() => {
        const m = performance.getEntriesByName("paydesk:dashboard-ready")[0];
        return m ? performance.timeOrigin + m.startTime : null;
      });
      return ready !== null;
    },
    { timeout: 30_000 },
  );
  return ready - startedAtMs(binary);
}

async function waitDashboard(browser, timeout) {
  const el = await browser.$('[data-testid="dashboard-cached"]');
  await el.waitForExist({ timeout });
  return el;
}

const home = mkdtempSync(path.join(tmpdir(), "paydesk-bench-"));
try {
  // First start: the built-in sandbox profile, its keys in the keyring, its demo data.
  let app = await startApp({ home, app: APP });
  await waitDashboard(app.browser, 120_000);
  await app.stop();

  console.log(`filling the cache with ${ORDERS.toLocaleString("en")} orders…`);
  const fill = spawnSync(
    ...example("cache_bench", [
      String(ORDERS),
      "--fill",
      path.join(home, "data", "sandbox.sqlite"),
    ]),
    { stdio: "inherit", cwd: path.resolve("..") },
  );
  if (fill.status !== 0) throw new Error("filling the cache failed");

  // The Activity screen's log: rows sealed with the profile's key from the keyring and
  // continued from its anchor, as the desk appends them (the keyring the app's own,
  // `startApp`'s service for this home).
  console.log(`appending ${AUDIT_ROWS.toLocaleString("en")} rows to the audit log…`);
  const audit = spawnSync(
    ...example("audit_fill", [
      String(AUDIT_ROWS),
      path.join(home, "data", "sandbox.sqlite"),
      "sandbox",
    ]),
    {
      stdio: "inherit",
      cwd: path.resolve(".."),
      env: { ...process.env, PAYDESK_KEYRING_SERVICE: `PayDesk-e2e-${path.basename(home)}` },
    },
  );
  if (audit.status !== 0) throw new Error("filling the audit log failed");

  if (SCREENS_ONLY) {
    app = await startApp({ home, app: APP });
    await waitDashboard(app.browser, 60_000);
    await app.browser.pause(3_000);
    await measureScreens(app.browser, VISITS);
    await app.stop();
    rmSync(home, { recursive: true, force: true });
    process.exit(0);
  }

  const launches = [];
  const alone = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    app = await startApp({ home, app: APP });
    const cached = await waitDashboard(app.browser, 60_000);
    launches.push(performance.now() - t0);
    alone.push(await appLaunchMs(app.browser, APP));
    if (i < 2) await app.stop();
    else console.log(`dashboard shows: ${await cached.getText()}`);
  }
  console.log(
    `launch to interactive dashboard (WebDriver session start included), 3 runs: ${launches
      .map((t) => `${(t / 1000).toFixed(2)} s`)
      .join(", ")} (cold first, then warm)`,
  );
  console.log(
    `launch to interactive dashboard, the app alone (process start to the dashboard's figures on screen), 3 runs: ${alone
      .map((t) => `${(t / 1000).toFixed(2)} s`)
      .join(", ")} (cold first, then warm)`,
  );

  await app.browser.pause(10_000);
  const mem = memoryKiB(APP);
  const mib = (k) => `${(k / 1024).toFixed(0)} MiB`;
  const line = (m) => `RSS ${mib(m.rss)}, PSS ${mib(m.pss)}, anonymous ${mib(m.anon)}`;
  console.log(`idle memory after 10 s, the app's process: ${line(mem.app)}`);
  console.log(
    `idle memory after 10 s, its ${mem.children.length} web view processes (WebKit): ${line(mem.webview)}`,
  );
  console.log(`idle memory after 10 s, the app as a whole: ${line(mem.whole)}`);

  const times = await app.browser.executeAsync((done) => {
    const invoke = window.__TAURI_INTERNALS__.invoke;
    const base = {
      from: null,
      to: null,
      states: [],
      currencies: [],
      methods: [],
      minAmount: null,
      maxAmount: null,
      search: null,
      sort: "created",
      descending: true,
    };
    const kinds = {
      deep: () => ({ filter: base, offset: Math.floor(Math.random() * 9_990) * 100 }),
      filtered: () => ({
        filter: { ...base, states: [5], currencies: ["USD"] },
        offset: Math.floor(Math.random() * 50) * 100,
      }),
      search: () => ({
        filter: { ...base, search: String(Math.floor(Math.random() * 900_000) + 100_000) },
        offset: 0,
      }),
    };
    (async () => {
      const out = {};
      for (const [kind, make] of Object.entries(kinds)) {
        const first = performance.now();
        await invoke("orders_page", { ...make(), limit: 100 });
        out[`${kind} (first)`] = [performance.now() - first];
        const samples = [];
        for (let i = 0; i < 300; i++) {
          const t = performance.now();
          await invoke("orders_page", { ...make(), limit: 100 });
          samples.push(performance.now() - t);
        }
        out[kind] = samples;
      }
      done(out);
    })();
  });
  for (const [kind, samples] of Object.entries(times)) {
    console.log(`orders page of 100 through IPC, ${kind}: ${fmt(pct(samples))}`);
  }
  await measureScreens(app.browser, VISITS);
  await app.stop();

  // The same app drawing without GPU compositing (the app's opt-in), warm.
  process.env.PAYDESK_SOFTWARE_RENDERING = "1";
  const soft = [];
  for (let i = 0; i < 2; i++) {
    app = await startApp({ home, app: APP });
    await waitDashboard(app.browser, 60_000);
    soft.push(await appLaunchMs(app.browser, APP));
    if (i < 1) await app.stop();
  }
  await app.browser.pause(10_000);
  const softMem = memoryKiB(APP);
  await app.stop();
  delete process.env.PAYDESK_SOFTWARE_RENDERING;
  console.log(
    `with PAYDESK_SOFTWARE_RENDERING=1: launch, the app alone, 2 warm runs: ${soft
      .map((t) => `${(t / 1000).toFixed(2)} s`)
      .join(
        ", ",
      )}; idle memory after 10 s, the app as a whole: ${line(softMem.whole)} (its process: ${line(softMem.app)})`,
  );

  const floor = await engineFloorKiB();
  console.log(
    floor
      ? `WebKitGTK's floor (its MiniBrowser on one line of text, no GPU compositing), as a whole: ${line(floor.whole)}`
      : "WebKitGTK's floor: its MiniBrowser is not installed, not measured",
  );
} finally {
  rmSync(home, { recursive: true, force: true });
}
