import { cleanup, screen, waitFor } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { OrdersPage } from "./OrdersPage";

// 2026-03-04 05:06:07 UTC, in the test's own local time below.
const LAST_SYNC = Date.UTC(2026, 2, 4, 5, 6, 7);

function answer(lastSync: number | null) {
  invoke.mockReset();
  invoke.mockImplementation((cmd: string) => {
    if (cmd === "orders_page") return Promise.resolve({ rows: [], total: 0, offset: 0 });
    if (cmd === "dashboard") return Promise.resolve({ lastSync });
    if (cmd === "order_detail")
      return Promise.resolve({
        order: null,
        live: null,
        signature: null,
        liveError: null,
        timeline: [],
      });
    return Promise.resolve(null);
  });
}

function ordersAt(url: string) {
  const router = createMemoryRouter([{ path: "/orders", Component: OrdersPage }], {
    initialEntries: [url],
  });
  renderUi(<RouterProvider router={router} />);
}

const two = (n: number) => String(n).padStart(2, "0");

describe("the orders say as of which sync their states are", () => {
  beforeEach(() => answer(LAST_SYNC));
  afterEach(cleanup);

  it("names the last sync's day and time above the table, and on an order's cached state", async () => {
    ordersAt("/orders?order=T1");
    const local = new Date(LAST_SYNC);
    const day = `${local.getFullYear()}-${two(local.getMonth() + 1)}-${two(local.getDate())}`;
    const time = `${two(local.getHours())}:${two(local.getMinutes())}:07`;
    const list = await screen.findByTestId("orders-as-of");
    await waitFor(() => expect(list.getAttribute("data-last-sync")).toBe(String(LAST_SYNC)));
    expect(list.textContent).toContain("as of the last sync");
    expect(list.textContent).toContain(`${day} ${time}`);
    // The Orders screen has its own Sync button: no second one here.
    expect(screen.queryByTestId("orders-as-of-sync")).toBeNull();

    const detail = await screen.findByTestId("detail-as-of");
    expect(detail.textContent).toContain(`${day} ${time}`);
    // The order page has no sync of its own: it offers one.
    expect(screen.getByTestId("detail-as-of-sync").textContent).toBe("Sync now");
  });

  it("says the cache was never synced rather than showing a time", async () => {
    answer(null);
    ordersAt("/orders");
    const list = await screen.findByTestId("orders-as-of");
    await waitFor(() => expect(list.textContent).toContain("never synced"));
    expect(list.textContent).not.toMatch(/\d{2}:\d{2}/);
  });
});
