import { screen, waitFor } from "@testing-library/react";
import { Profiler } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CachedOrder } from "../../lib/types";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { OrdersTable } from "./OrdersTable";
import { EMPTY_FILTER } from "./queries";

const order = (n: number): CachedOrder => ({
  tradeNo: `T${n}`,
  merOrderNo: `M${n}`,
  state: 5,
  method: "",
  currency: "USD",
  sourceAmount: "10.00",
  refundCurrency: "",
  settlementCurrency: "",
  refusalPayReason: "",
  message: "",
  createdAt: 1_795_000_000_000,
  syncedAt: 1_795_000_000_000,
  signatureVerified: true,
  handlingFee: null,
  receiveAmount: null,
  settleAmount: null,
  rollingReserve: null,
  transactionFixedFee: null,
  exceptionHandlingFee: null,
  refundAmount: null,
  rollingReserveStatus: null,
  settle: null,
  kind: null,
  madeAt: null,
});

describe("the orders table", () => {
  beforeEach(() => {
    invoke.mockReset();
    invoke.mockImplementation((cmd: string) =>
      Promise.resolve(
        cmd === "orders_page" ? { rows: [1, 2, 3].map(order), total: 3, offset: 0 } : [],
      ),
    );
  });
  afterEach(() => vi.restoreAllMocks());

  // A new window of rows each render once queued a reset of the table's page index,
  // which rendered again, for ever: React stopped it with "Maximum update depth
  // exceeded" after a keystroke, or the web view hung.
  it("stops rendering once its rows are on screen", async () => {
    const errors = vi.spyOn(console, "error");
    // jsdom lays nothing out: the table's scroll area is given the size it has on screen.
    vi.spyOn(Element.prototype, "clientWidth", "get").mockReturnValue(1000);
    vi.spyOn(Element.prototype, "clientHeight", "get").mockReturnValue(400);
    let commits = 0;
    renderUi(
      <Profiler id="orders" onRender={() => commits++}>
        <OrdersTable filter={EMPTY_FILTER} onSort={() => {}} onOpen={() => {}} />
      </Profiler>,
    );
    await waitFor(() => expect(screen.getAllByTestId("order-row")).toHaveLength(3));
    await new Promise((r) => setTimeout(r, 100));
    const settled = commits;
    await new Promise((r) => setTimeout(r, 400));
    expect(commits - settled).toBe(0);
    expect(errors.mock.calls.flat().join(" ")).not.toMatch(/Maximum update depth/);
  });

  // The gateway's list gives an order's day, not its time, and not whether it is a payin
  // or a payout: the table says so instead of showing midnight and a dash. An order made
  // here has its time and its type from the journal.
  it("shows a listed order's day only and says what the gateway does not give", async () => {
    vi.spyOn(Element.prototype, "clientWidth", "get").mockReturnValue(1000);
    vi.spyOn(Element.prototype, "clientHeight", "get").mockReturnValue(400);
    const made: CachedOrder = {
      ...order(2),
      kind: "payout",
      method: "CLABE",
      madeAt: 1_795_000_123_456,
      createdAt: 1_795_000_123_456,
      syncedAt: null,
    };
    invoke.mockImplementation((cmd: string) =>
      Promise.resolve(cmd === "orders_page" ? { rows: [order(1), made], total: 2, offset: 0 } : []),
    );
    renderUi(<OrdersTable filter={EMPTY_FILTER} onSort={() => {}} onOpen={() => {}} />);
    await waitFor(() => expect(screen.getAllByTestId("order-row")).toHaveLength(2));
    const [listed, mine] = screen.getAllByTestId("order-row");
    expect(listed?.textContent).toContain("2026-11-18");
    expect(listed?.textContent).not.toMatch(/00:00/);
    expect(listed?.textContent).toContain("Not given");
    expect(mine?.textContent).toMatch(/2026-11-18 \d\d:\d\d/);
    expect(mine?.textContent).toContain("Payout");
    expect(mine?.textContent).toContain("CLABE");
    expect(mine?.textContent).not.toContain("Not given");
  });

  // Issue 30: on a team, an order no request of the team made is marked as made outside
  // it (in the kind column, where a payin would otherwise be read), and only that one.
  it("marks an order made outside the team", async () => {
    vi.spyOn(Element.prototype, "clientWidth", "get").mockReturnValue(1000);
    vi.spyOn(Element.prototype, "clientHeight", "get").mockReturnValue(400);
    const outside: CachedOrder = { ...order(1), outsideTeam: true };
    const ours: CachedOrder = { ...order(2), kind: "payin" };
    invoke.mockImplementation((cmd: string) =>
      Promise.resolve(cmd === "orders_page" ? { rows: [outside, ours], total: 2, offset: 0 } : []),
    );
    renderUi(<OrdersTable filter={EMPTY_FILTER} onSort={() => {}} onOpen={() => {}} />);
    await waitFor(() => expect(screen.getAllByTestId("order-row")).toHaveLength(2));
    const [first, second] = screen.getAllByTestId("order-row");
    expect(first?.textContent).toContain("Outside team");
    expect(first?.querySelector('[aria-label="Made outside this team"]')).not.toBeNull();
    expect(second?.textContent).not.toContain("Outside team");
    expect(second?.textContent).toContain("Payin");
    expect(screen.getAllByTestId("outside-team")).toHaveLength(1);
  });
});
