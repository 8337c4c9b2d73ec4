import { fireEvent, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { SyncPanel } from "./SyncPanel";

describe("the sync panel", () => {
  beforeEach(() => invoke.mockReset());

  // Orders the gateway listed against the desk's rules are not cached: the person
  // who synced sees how many, and which field (by its label, not its wire name) broke
  // which rule.
  it("names the orders it did not cache", async () => {
    invoke.mockImplementation((cmd: string) => {
      if (cmd !== "orders_sync") return Promise.resolve(null);
      return Promise.resolve({
        progress: {
          windowsTotal: 1,
          windowsDone: 1,
          pages: 1,
          orders: 3,
          ordersPerSecond: 3,
          etaSeconds: 0,
          ordersExpected: 3,
          requests: 2,
        },
        windowsSkipped: 0,
        changed: 3,
        reread: 0,
        seconds: 1,
        writeSeconds: 0,
        requests: 2,
        retries: 0,
        refusedCount: 51,
        refused: ['item 2 (T9) sourceCurrency "usd" is not an upper-case ISO 4217 code'],
        windowsReread: 0,
        incompleteCount: 0,
        incomplete: [],
      });
    });
    renderUi(<SyncPanel />);
    fireEvent.click(screen.getByTestId("sync-button"));
    const alert = await waitFor(() => screen.getByTestId("sync-refused"));
    expect(alert.textContent).toContain("51 orders the gateway listed break the desk's rules");
    expect(alert.textContent).toContain(
      'Order T9: Currency "usd" is not an upper-case ISO 4217 code',
    );
    expect(alert.textContent).not.toContain("sourceCurrency");
    expect(alert.textContent).toContain("and 50 more");
  });

  // A day whose pages did not add up (a short page, an order on two pages, a total
  // that moved) is not taken as complete: the person who synced is told which days,
  // and that the next sync reads them again.
  it("names the days that did not add up", async () => {
    invoke.mockImplementation((cmd: string) => {
      if (cmd !== "orders_sync") return Promise.resolve(null);
      return Promise.resolve({
        ...report({ seconds: 1 }),
        incompleteCount: 2,
        incomplete: [
          "2026-11-23 00:00:00 to 2026-11-23 23:59:59 UTC: its pages listed 33 distinct orders where the gateway said it holds 35 (read 3 times)",
        ],
      });
    });
    renderUi(<SyncPanel />);
    fireEvent.click(screen.getByTestId("sync-button"));
    const alert = await waitFor(() => screen.getByTestId("sync-incomplete"));
    expect(alert.textContent).toContain("2 days did not add up");
    expect(alert.textContent).toContain("read again at the next sync");
    expect(alert.textContent).toContain("2026-11-23 00:00:00 to 2026-11-23 23:59:59 UTC");
    expect(alert.textContent).toContain("and 1 more");
  });

  // Before the gateway has counted any day, progress is told in days of the period synced,
  // the choice to read everything again in words a person uses (the engine's "windows"
  // are days), and the time left is said to be unknown rather than guessed.
  it("counts progress in days until the gateway has counted orders", async () => {
    syncing(progress({ windowsDone: 12, orders: 250, ordersPerSecond: 100 }));
    renderUi(<SyncPanel />);
    expect(screen.getByLabelText("Sync everything again")).toBeTruthy();
    expect(document.body.textContent).not.toMatch(/window/i);
    fireEvent.click(screen.getByTestId("sync-button"));
    const panel = await screen.findByTestId("sync-progress");
    await waitFor(() =>
      expect(screen.getByTestId("sync-read").textContent).toBe("12 of 91 days read · 250 orders"),
    );
    expect(screen.getByTestId("sync-pace").textContent).toBe(
      "100 orders/s · time left not known yet",
    );
    expect(bar()).toBe(Math.round((100 * 12) / 91));
    expect(panel.getAttribute("title")).toContain("12 of 91 days read");
  });

  // Once the gateway has counted some days, the line says orders read of those expected,
  // "~" while days not counted yet are estimated, the rate and the time left; the bar
  // follows the orders, the tooltip keeps days and requests.
  it("says orders read of about those expected, the rate and the time left", async () => {
    syncing(
      progress({
        windowsDone: 30,
        orders: 12_400,
        ordersExpected: 1_000_000,
        ordersPerSecond: 25_300.4,
        etaSeconds: 130,
        requests: 77,
      }),
    );
    renderUi(<SyncPanel />);
    fireEvent.click(screen.getByTestId("sync-button"));
    const panel = await screen.findByTestId("sync-progress");
    await waitFor(() =>
      expect(screen.getByTestId("sync-read").textContent).toBe("12,400 of ~1,000,000 orders"),
    );
    expect(screen.getByTestId("sync-pace").textContent).toBe("25,300 orders/s · about 2 min left");
    expect(bar()).toBe(1);
    const title = panel.getAttribute("title") ?? "";
    expect(title).toContain("30 of 91 days read · 77 requests sent to the gateway");
    expect(title).toContain("an estimate until every day is counted");
  });

  it("drops the estimate's mark once every day is counted", async () => {
    syncing(
      progress({
        windowsDone: 91,
        orders: 600_000,
        ordersExpected: 1_000_000,
        ordersPerSecond: 30_000,
        etaSeconds: 3_900,
      }),
    );
    renderUi(<SyncPanel />);
    fireEvent.click(screen.getByTestId("sync-button"));
    const panel = await screen.findByTestId("sync-progress");
    await waitFor(() =>
      expect(screen.getByTestId("sync-read").textContent).toBe("600,000 of 1,000,000 orders"),
    );
    expect(screen.getByTestId("sync-pace").textContent).toBe(
      "30,000 orders/s · about 1 hr 5 min left",
    );
    expect(bar()).toBe(60);
    expect(panel.getAttribute("title")).not.toContain("estimate");
  });

  it("says what was read and how long it took once finished", async () => {
    invoke.mockImplementation((cmd: string) => {
      if (cmd !== "orders_sync") return Promise.resolve(null);
      return Promise.resolve(
        report({ orders: 1_000_000, ordersPerSecond: 25_000, requests: 2_003, seconds: 40 }),
      );
    });
    renderUi(<SyncPanel />);
    fireEvent.click(screen.getByTestId("sync-button"));
    await waitFor(() =>
      expect(screen.getByTestId("sync-progress").getAttribute("data-done")).toBe("true"),
    );
    expect(screen.getByTestId("sync-read").textContent).toBe("1,000,000 orders read");
    expect(screen.getByTestId("sync-pace").textContent).toBe("25,000 orders/s · took 40 sec");
    expect(bar()).toBe(100);
  });
});

type Progress = {
  windowsDone: number;
  windowsTotal: number;
  pages: number;
  orders: number;
  ordersPerSecond: number | null;
  etaSeconds: number | null;
  ordersExpected: number | null;
  requests: number;
};

function progress(p: Partial<Progress>): Progress {
  return {
    windowsTotal: 91,
    windowsDone: 0,
    pages: 3,
    orders: 0,
    ordersPerSecond: null,
    etaSeconds: null,
    ordersExpected: null,
    requests: 3,
    ...p,
  };
}

function report(p: Partial<Progress> & { seconds: number | null }) {
  const { seconds, ...rest } = p;
  return {
    progress: progress({ windowsDone: 91, etaSeconds: 0, ...rest }),
    windowsSkipped: 0,
    changed: 12,
    reread: 0,
    seconds,
    writeSeconds: 0,
    requests: p.requests ?? 3,
    retries: 0,
    refusedCount: 0,
    refused: [],
    windowsReread: 0,
    incompleteCount: 0,
    incomplete: [],
  };
}

/// A sync that sends `p` and runs on.
function syncing(p: Progress) {
  invoke.mockImplementation(
    (cmd: string, args: { onProgress?: { onmessage: (p: unknown) => void } }) => {
      if (cmd !== "orders_sync") return Promise.resolve(null);
      args.onProgress?.onmessage(p);
      return new Promise(() => {});
    },
  );
}

/// The bar's value, in whole percent.
function bar() {
  const now = screen.getByRole("progressbar").getAttribute("aria-valuenow");
  return Math.round(Number(now));
}
