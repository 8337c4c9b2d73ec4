// Every screen from the click to its content, in the real window (issue 34): the click
// is made in the page, the time read in the page (`performance.now()`, which WebKit
// rounds to the millisecond) until the screen's content is in the document
// (a MutationObserver) and then until the frame that draws it starts
// (`requestAnimationFrame`): that frame is the figure. Each IPC call the UI makes
// meanwhile is timed by a wrapper around the web view's `invoke`, so a slow screen says
// whether it waited on the engine (IPC) or on the web view (render).

/// Installed once in the page: `window.__bench.run(step, arg)` answers a promise.
/// Self-contained (WebDriver sends its source).
function install() {
  if (window.__bench) return window.__bench.wrapped;
  const ipc = [];
  const internals = window.__TAURI_INTERNALS__;
  const original = internals.invoke;
  let wrapped = false;
  try {
    internals.invoke = function timedInvoke(cmd, args, options) {
      const rec = { cmd, start: performance.now(), end: null };
      ipc.push(rec);
      const p = original.call(this, cmd, args, options);
      const fin = () => {
        rec.end = performance.now();
      };
      p.then(fin, fin);
      return p;
    };
    wrapped = internals.invoke !== original;
  } catch {
    wrapped = false;
  }
  if (!wrapped) {
    // Tauri defines `invoke` read-only; its IPC is a `fetch` of `ipc://localhost/<cmd>`
    // made through the global `fetch` at each call: timed there, to its response.
    const fetchBefore = window.fetch;
    window.fetch = function timedFetch(input, init) {
      const url = typeof input === "string" ? input : (input?.url ?? String(input));
      const p = fetchBefore.call(this, input, init);
      if (/^ipc:|ipc\.localhost/.test(url)) {
        const rec = {
          cmd: decodeURIComponent(url.split("?")[0].split("/").pop()),
          url,
          start: performance.now(),
          end: null,
        };
        ipc.push(rec);
        const fin = () => {
          rec.end = performance.now();
        };
        p.then(fin, fin);
      }
      return p;
    };
    wrapped = window.fetch !== fetchBefore ? "fetch" : false;
  }
  // Room for every request's resource timing (the default keeps 250).
  performance.clearResourceTimings();
  performance.setResourceTimingBufferSize(100_000);
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];
  const table = () => $('[data-testid="orders-table"]');
  const total = () => Number($('[data-testid="orders-count"]')?.dataset.total ?? -1);
  /// The orders table's rows in view, every one of them an order (none still loading).
  const rowsInView = () => {
    const box = table();
    if (!box) return [];
    const r = box.getBoundingClientRect();
    const head = $("thead", box)?.getBoundingClientRect().height ?? 0;
    return $$("tbody tr", box).filter((tr) => {
      const b = tr.getBoundingClientRect();
      return b.bottom > r.top + head + 1 && b.top < r.bottom - 1;
    });
  };
  const rowsLoaded = () => {
    const rows = rowsInView();
    return rows.length > 0 && rows.every((tr) => tr.dataset.testid === "order-row");
  };
  const setInput = (el, value) => {
    const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
    setter.call(el, value);
    el.dispatchEvent(new Event("input", { bubbles: true }));
  };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  /// Polls `f` each 20 ms until it holds (at most `timeout` ms).
  const waitFor = async (f, timeout = 30_000) => {
    const until = performance.now() + timeout;
    while (performance.now() < until) {
      try {
        if (f()) return true;
      } catch {
        // Not there yet.
      }
      await sleep(20);
    }
    throw new Error(`timed out waiting for ${f}`);
  };

  /// Runs `act` at t0 and waits until every condition of `conds` holds: when each first
  /// held in the document, the frame after all of them, and the IPC calls made since t0.
  const measure = (act, conds, timeout = 30_000) =>
    new Promise((resolve) => {
      const from = ipc.length;
      const seen = {};
      const names = Object.keys(conds);
      let finished = false;
      let t0 = 0;
      // The resource timing of the same request, where WebKit keeps one: its response's
      // end as the network stack saw it, before the page's busy main thread took it.
      const used = new Set();
      const net = (c) => {
        if (!c.url) return null;
        const e = performance
          .getEntriesByName(c.url)
          .find((x) => !used.has(x) && x.startTime >= c.start - 2 && x.responseEnd > 0);
        if (!e) return null;
        used.add(e);
        return e.responseEnd - t0;
      };
      const calls = () =>
        ipc.slice(from).map((c) => ({
          cmd: c.cmd,
          start: c.start - t0,
          end: c.end === null ? null : c.end - t0,
          net: net(c),
        }));
      const finish = (frame) => {
        observer.disconnect();
        clearTimeout(timer);
        resolve({ ms: frame, dom: seen, ipc: calls() });
      };
      const check = () => {
        if (finished) return;
        const now = performance.now() - t0;
        for (const k of names) {
          if (seen[k] !== undefined) continue;
          try {
            if (conds[k]()) seen[k] = now;
          } catch {
            // Not there yet.
          }
        }
        if (names.every((k) => seen[k] !== undefined)) {
          finished = true;
          requestAnimationFrame(() => finish(performance.now() - t0));
        }
      };
      const observer = new MutationObserver(check);
      const timer = setTimeout(() => {
        if (finished) return;
        finished = true;
        finish(null);
      }, timeout);
      observer.observe(document.body, {
        subtree: true,
        childList: true,
        attributes: true,
        characterData: true,
      });
      t0 = performance.now();
      act();
      check();
    });

  const nav = (id) => $(`[data-testid="nav-${id}"]`).click();
  const screen = (id) => $(`[data-testid="screen-${id}"]`);
  // The screens reached from the navigation, and what their content is.
  const screens = {
    dashboard: {
      cached: () => $('[data-testid="screen-dashboard"] [data-testid="dashboard-cached"]'),
    },
    reports: {
      statement: () => $('[data-testid="screen-reports"] [data-testid="reports-orders"]'),
    },
    orders: { rows: () => screen("orders") && total() > 0 && rowsLoaded() },
    balances: { rows: () => $('[data-testid="screen-balances"] [data-testid="balance-row"]') },
    activity: {
      rows: () => $('[data-testid="screen-activity"] [data-testid="audit-row"]'),
      chain: () => $('[data-testid="screen-activity"] [data-testid="audit-chain"]'),
    },
  };
  let tradeNo = null;

  const steps = {
    /// The screen the visits start from (at hand, not loaded lazily), at rest.
    async base() {
      if (!screen("settings")) {
        nav("settings");
        await waitFor(() => screen("settings"));
      }
      await sleep(300);
    },
    visit: (id) => measure(() => nav(id), screens[id]),
    /// Orders, at the top with every row in view loaded.
    async ordersTop() {
      if (!screen("orders")) nav("orders");
      await waitFor(() => screen("orders") && table());
      table().scrollTop = 0;
      await waitFor(() => total() > 0 && rowsLoaded() && table().scrollTop === 0);
      await sleep(300);
    },
    /// A jump to the end (the scroll bar dragged to its bottom, or End): the last rows
    /// in view, loaded.
    jumpEnd: () =>
      measure(
        () => {
          const box = table();
          box.scrollTop = box.scrollHeight;
        },
        {
          last: () =>
            $(`[data-testid="order-row"][aria-rowindex="${total() + 1}"]`) && rowsLoaded(),
        },
      ),
    /// A jump to `fraction` of the way down.
    jumpTo: (fraction) =>
      measure(
        () => {
          const box = table();
          box.scrollTop = Math.floor((box.scrollHeight - box.clientHeight) * fraction);
        },
        { rows: () => table().scrollTop > 0 && rowsLoaded() },
      ),
    async openMoreFilters() {
      if (!$('[data-testid="filter-min-amount"]')) $('[data-testid="more-filters"]').click();
      await waitFor(() => $('[data-testid="filter-min-amount"]'));
      await sleep(300);
    },
    /// "Min amount" set to `value`: the count changes and the rows in view are loaded.
    minAmount(value) {
      const before = total();
      return measure(() => setInput($('[data-testid="filter-min-amount"]'), value), {
        count: () => total() !== before && total() >= 0,
        rows: () => total() !== before && (total() === 0 || rowsLoaded()),
      });
    },
    async clearMinAmount() {
      const input = $('[data-testid="filter-min-amount"]');
      if (input) setInput(input, "");
      $('[data-testid="more-filters"]').click();
      await waitFor(() => !$('[data-testid="filter-min-amount"]'));
      await sleep(300);
    },
    /// The order page (its drawer) of the `k`-th row in view: its cached figures shown.
    openOrder(k) {
      const rows = rowsInView().filter((tr) => tr.dataset.testid === "order-row");
      const row = rows[k % rows.length];
      tradeNo = row.dataset.tradeNo;
      return measure(() => row.click(), {
        detail: () =>
          $(`[data-testid="order-detail"][data-trade-no="${tradeNo}"] .mantine-Card-root`),
      });
    },
    async closeOrder() {
      for (const c of $$(".mantine-Drawer-close")) c.click();
      await waitFor(() => !$('[data-testid="order-detail"]'));
      await sleep(300);
    },
    /// Reports, custom days: the choice shown.
    async reportsCustom() {
      if (!screen("reports")) {
        nav("reports");
        await waitFor(() => screen("reports"));
      }
      const custom = $$('[data-testid="reports-period"] label').find(
        (l) => l.previousElementSibling?.value === "custom" || l.htmlFor?.endsWith("custom"),
      );
      (custom ?? $$('[data-testid="reports-period"] label')[4]).click();
      await waitFor(() => $('[data-testid="reports-from"]') && $('[data-testid="reports-to"]'));
      await sleep(300);
    },
    /// A month's statement chosen (its first and last day typed), every currency: the
    /// figures of that month shown. The field typed first is the one that leaves the
    /// days invalid meanwhile (from after to), so no other period is asked for.
    reportsMonth([from, to]) {
      const fromEl = $('[data-testid="reports-from"]');
      const toEl = $('[data-testid="reports-to"]');
      const days = () => $('[data-testid="reports-days"]')?.textContent ?? "";
      return measure(
        () => {
          if (from > toEl.value) {
            setInput(fromEl, from);
            setInput(toEl, to);
          } else {
            setInput(toEl, to);
            setInput(fromEl, from);
          }
        },
        {
          statement: () =>
            days().includes(from) &&
            days().includes(to) &&
            $('[data-testid="reports-orders"]') &&
            (Number($('[data-testid="reports-orders"]').dataset.orders) === 0 ||
              $('[data-testid="statement-currency"]')),
        },
      );
    },
    reportsOrders: () => Number($('[data-testid="reports-orders"]')?.dataset.orders ?? -1),
  };
  window.__bench = {
    wrapped,
    run: (step, arg) => Promise.resolve(steps[step](arg)),
  };
  return wrapped;
}

const step = (browser, name, arg = null) =>
  browser.executeAsync(
    (name, arg, done) => {
      window.__bench.run(name, arg).then(
        (v) => done(v ?? null),
        (e) => done({ error: String(e) }),
      );
    },
    name,
    arg,
  );

async function measured(browser, name, arg) {
  const r = await step(browser, name, arg);
  if (r?.error) throw new Error(`${name}(${JSON.stringify(arg)}): ${r.error}`);
  if (r.ms === null)
    throw new Error(
      `${name}(${JSON.stringify(arg)}): no content within 30 s (${JSON.stringify(r)})`,
    );
  return r;
}

const pct = (values) => {
  const v = [...values].sort((a, b) => a - b);
  const at = (p) => v[Math.round((v.length - 1) * p)];
  return { p50: at(0.5), p95: at(0.95), max: at(1) };
};
const ms = (x) => (x === null || x === undefined ? "—" : `${Math.round(x)} ms`);

/// One figure's line: the first visit apart (the screen's code loaded, its caches
/// empty), then the visits after it; where the time went (IPC vs the web view).
function report(label, runs) {
  const [first, ...rest] = runs;
  const p = pct(rest.map((r) => r.ms));
  const lines = [
    `screen ${label}: first ${ms(first.ms)}; then ${rest.length} visits p50 ${ms(p.p50)}, p95 ${ms(p.p95)}, max ${ms(p.max)} (goal: under 100 ms)`,
  ];
  const where = (r) => {
    // The answers the content waited for: calls answered before it was in the document.
    const domAt = Math.max(...Object.values(r.dom));
    const before = r.ipc.filter((c) => c.end !== null && c.end <= domAt);
    const lastAnswer = before.length ? Math.max(...before.map((c) => c.end)) : 0;
    const byCmd = {};
    const netCmd = {};
    for (const c of before) {
      byCmd[c.cmd] = Math.max(byCmd[c.cmd] ?? 0, c.end - c.start);
      if (c.net !== null) netCmd[c.cmd] = Math.max(netCmd[c.cmd] ?? 0, c.net - c.start);
    }
    return { domAt, lastAnswer, render: r.ms - lastAnswer, byCmd, netCmd, calls: r.ipc.length };
  };
  for (const [name, rs] of [
    ["first", [first]],
    ["then", rest],
  ]) {
    const w = rs.map(where);
    const med = (f) => pct(w.map(f)).p50;
    const cmds = {};
    const nets = {};
    for (const x of w) {
      for (const [c, t] of Object.entries(x.byCmd)) {
        cmds[c] = [...(cmds[c] ?? []), t];
      }
      for (const [c, t] of Object.entries(x.netCmd)) {
        nets[c] = [...(nets[c] ?? []), t];
      }
    }
    const ipcText = Object.entries(cmds)
      .map(
        ([c, ts]) =>
          `${c} ${ms(pct(ts).p50)}${nets[c] ? ` (its response ${ms(pct(nets[c]).p50)})` : ""}`,
      )
      .join(", ");
    const doms = Object.keys(rs[0].dom)
      .map((k) => `${k} ${ms(pct(rs.map((r) => r.dom[k])).p50)}`)
      .join(", ");
    lines.push(
      `  ${name} (median): in the document ${doms}; last IPC answer it waited for at ${ms(med((x) => x.lastAnswer))}, then the web view ${ms(med((x) => x.render))} to the frame; IPC calls as the page got them (the response as the network stack got it, where WebKit times it) ${ipcText || "none"}`,
    );
  }
  console.log(lines.join("\n"));
}

/// Measures every screen `visits` times; prints the figures.
export async function measureScreens(browser, visits) {
  const wrapped = await browser.execute(install);
  console.log(
    wrapped === "fetch"
      ? "(IPC timed at the web view's fetch of ipc://, to its response)"
      : wrapped
        ? "(IPC timed at the web view's invoke)"
        : "(the web view's invoke could not be wrapped: no IPC timings)",
  );
  const nav = async (id) => {
    const runs = [];
    for (let i = 0; i < visits; i++) {
      await step(browser, "base");
      runs.push(await measured(browser, "visit", id));
    }
    report(`${id} (from Settings, the navigation's button)`, runs);
  };
  await nav("dashboard");
  await nav("orders");

  // Orders: a jump to the end, to random depths, a filter change, the order page.
  const ends = [];
  for (let i = 0; i < visits; i++) {
    await step(browser, "ordersTop");
    ends.push(await measured(browser, "jumpEnd"));
  }
  report("orders, a jump to the end (scroll bar to its bottom)", ends);
  const depths = [];
  for (let i = 0; i < visits; i++) {
    await step(browser, "ordersTop");
    depths.push(await measured(browser, "jumpTo", 0.1 + (0.8 * i) / visits));
  }
  report("orders, a jump to a depth (10% to 90% down)", depths);
  await step(browser, "ordersTop");
  const filters = [];
  await step(browser, "openMoreFilters");
  for (let i = 0; i < visits; i++) {
    filters.push(await measured(browser, "minAmount", String(100 + 37 * (i + 1))));
  }
  await step(browser, "clearMinAmount");
  report('orders, "Min amount" changed (a new amount each time)', filters);
  await step(browser, "ordersTop");
  const orders = [];
  for (let i = 0; i < visits; i++) {
    orders.push(await measured(browser, "openOrder", i));
    await step(browser, "closeOrder");
  }
  report("the order page (a row clicked: its drawer with the order's figures)", orders);

  await nav("reports");
  // A month's statement over the filled months (2026-01 to 2026-09, about 100,000
  // orders each, and the month before it beside it), each month asked for once.
  await step(browser, "reportsCustom");
  const months = [];
  const counts = [];
  for (let i = 0; i < Math.min(visits, 9); i++) {
    const m = String(i + 1).padStart(2, "0");
    const last = new Date(Date.UTC(2026, i + 1, 0)).getUTCDate();
    months.push(await measured(browser, "reportsMonth", [`2026-${m}-01`, `2026-${m}-${last}`]));
    counts.push(await step(browser, "reportsOrders"));
  }
  report(
    `reports, a month chosen (every currency; ${counts.map((c) => c.toLocaleString("en")).join(", ")} orders)`,
    months,
  );
  await nav("balances");
  await nav("activity");
}
