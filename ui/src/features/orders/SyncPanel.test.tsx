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
          etaSeconds: null,
        },
        windowsSkipped: 0,
        changed: 3,
        reread: 0,
        seconds: 1,
        writeSeconds: 0,
        refusedCount: 51,
        refused: ['item 2 (T9) sourceCurrency "usd" is not an upper-case ISO 4217 code'],
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

  // Progress is told in days of the period synced, the choice to read everything again
  // in words a person uses (the engine's "windows" are days).
  it("counts progress in days and offers to sync everything again", async () => {
    invoke.mockImplementation(
      (cmd: string, args: { onProgress?: { onmessage: (p: unknown) => void } }) => {
        if (cmd !== "orders_sync") return Promise.resolve(null);
        args.onProgress?.onmessage({
          windowsTotal: 91,
          windowsDone: 12,
          pages: 3,
          orders: 250,
          ordersPerSecond: 100,
          etaSeconds: null,
        });
        return new Promise(() => {});
      },
    );
    renderUi(<SyncPanel />);
    expect(screen.getByLabelText("Sync everything again")).toBeTruthy();
    expect(document.body.textContent).not.toMatch(/window/i);
    fireEvent.click(screen.getByTestId("sync-button"));
    const progress = await screen.findByTestId("sync-progress");
    await waitFor(() => expect(progress.textContent).toContain("12 of 91 days read"));
    expect(progress.textContent).toContain("250 orders");
  });
});
