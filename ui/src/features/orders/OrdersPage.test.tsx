import { cleanup, fireEvent, screen, waitFor } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CachedOrder } from "../../lib/types";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { OrdersPage } from "./OrdersPage";

function ordersAt(url: string) {
  const router = createMemoryRouter([{ path: "/orders", Component: OrdersPage }], {
    initialEntries: [url],
  });
  const keys = new Set<string>();
  router.subscribe((s) => keys.add(s.location.key));
  renderUi(<RouterProvider router={router} />);
  return { router, navigations: () => keys.size };
}

describe("the orders screen's detail drawer", () => {
  beforeEach(() => {
    invoke.mockReset();
    invoke.mockImplementation((cmd: string) =>
      Promise.resolve(cmd === "orders_page" ? { rows: [], total: 0, offset: 0 } : null),
    );
  });

  // The drawer hides as soon as it is asked to, and asked again while it closes (a
  // second Escape, the close button during its exit) it does not navigate again: one
  // address without the order, not one history entry per request.
  it("closes at once, with one navigation however often it is asked", async () => {
    const { router, navigations } = ordersAt("/orders?order=T1");
    const detail = await screen.findByTestId("order-detail");
    expect(detail.getAttribute("data-trade-no")).toBe("T1");
    const closer = document.querySelector<HTMLButtonElement>(".mantine-Drawer-close");
    expect(closer).not.toBeNull();
    fireEvent.keyDown(document.body, { key: "Escape" });
    fireEvent.keyDown(document.body, { key: "Escape" });
    if (closer) fireEvent.click(closer);
    await waitFor(() => expect(router.state.location.search).toBe(""));
    await waitFor(() => expect(screen.queryByTestId("order-detail")).toBeNull());
    expect(navigations()).toBe(1);
  });

  it("opens the same order again after closing it", async () => {
    const { router } = ordersAt("/orders?order=T1");
    await screen.findByTestId("order-detail");
    fireEvent.keyDown(document.body, { key: "Escape" });
    await waitFor(() => expect(screen.queryByTestId("order-detail")).toBeNull());
    await router.navigate("/orders?order=T1");
    const detail = await screen.findByTestId("order-detail");
    expect(detail.getAttribute("data-trade-no")).toBe("T1");
  });
});

const order: CachedOrder = {
  tradeNo: "T1",
  merOrderNo: "M1",
  state: 7,
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
};

const headers = () =>
  [...document.querySelectorAll('[data-testid="orders-table"] th')].map((h) => h.textContent);

describe("the orders screen's column chooser", () => {
  beforeEach(() => {
    localStorage.clear();
    invoke.mockReset();
    invoke.mockImplementation((cmd: string) =>
      Promise.resolve(
        cmd === "orders_page"
          ? { rows: [order], total: 1, offset: 0 }
          : cmd === "team_status" || cmd === "view_last"
            ? null
            : [],
      ),
    );
    // jsdom lays nothing out: the table's scroll area is given the size it has on screen.
    vi.spyOn(Element.prototype, "clientWidth", "get").mockReturnValue(1000);
    vi.spyOn(Element.prototype, "clientHeight", "get").mockReturnValue(400);
  });
  afterEach(() => vi.restoreAllMocks());

  it("hides a column, and the table still hides it when the screen opens again", async () => {
    const first = ordersAt("/orders");
    await screen.findByTestId("order-row");
    expect(headers()).toContain("Fee");
    fireEvent.click(screen.getByTestId("column-chooser"));
    const fee = await screen.findByRole("checkbox", { name: "Fee" });
    expect((fee as HTMLInputElement).checked).toBe(true);
    fireEvent.click(fee);
    await waitFor(() => expect(headers()).not.toContain("Fee"));
    expect(headers()).toContain("Amount");
    expect(screen.getByTestId("order-row").querySelectorAll("td")).toHaveLength(headers().length);
    expect(JSON.parse(localStorage.getItem("paydesk.orders.columnLayout") ?? "{}").hidden).toEqual([
      "fee",
    ]);
    first.router.dispose();
    cleanup();
    ordersAt("/orders");
    await screen.findByTestId("order-row");
    expect(headers()).not.toContain("Fee");
  });

  it("keeps at least one column", async () => {
    localStorage.setItem(
      "paydesk.orders.hiddenColumns",
      JSON.stringify([
        "createdAt",
        "kind",
        "tradeNo",
        "merOrderNo",
        "state",
        "method",
        "sourceAmount",
        "fee",
        "settle",
      ]),
    );
    ordersAt("/orders");
    await screen.findByTestId("order-row");
    expect(headers()).toEqual(["Signature"]);
    fireEvent.click(screen.getByTestId("column-chooser"));
    const last = await screen.findByRole("checkbox", { name: "Signature" });
    expect((last as HTMLInputElement).disabled).toBe(true);
  });
});
