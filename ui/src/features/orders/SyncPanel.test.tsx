import { fireEvent, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { SyncPanel } from "./SyncPanel";

describe("the sync panel", () => {
  beforeEach(() => invoke.mockReset());

  // Orders the gateway listed against the desk's rules are not cached: the person
  // who synced sees how many, and which field broke which rule.
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
    expect(alert.textContent).toContain('sourceCurrency "usd" is not an upper-case ISO 4217 code');
    expect(alert.textContent).toContain("and 50 more");
  });
});
