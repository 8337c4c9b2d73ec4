import { fireEvent, screen, waitFor } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { beforeEach, describe, expect, it } from "vitest";
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
