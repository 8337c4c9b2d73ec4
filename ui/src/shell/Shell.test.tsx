import { act, screen } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { renderUi } from "../test/render";
import { invoke } from "../test/tauri";
import { Shell } from "./Shell";

describe("the shell", () => {
  beforeEach(() => {
    invoke.mockReset();
    invoke.mockImplementation((cmd: string) =>
      cmd === "app_status"
        ? Promise.resolve({ sandbox: true, profile: { name: "sandbox", merNo: "M1" } })
        : Promise.reject({ code: "internal", message: `unexpected ${cmd}` }),
    );
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("opens every screen at its top, and keeps the place within a screen", async () => {
    const scrollTo = vi.spyOn(window, "scrollTo").mockImplementation(() => {});
    const router = createMemoryRouter(
      [
        {
          path: "/",
          element: <Shell />,
          children: [
            { path: "orders", element: <p>orders</p> },
            { path: "payouts", element: <p>payouts</p> },
          ],
        },
      ],
      { initialEntries: ["/orders"] },
    );
    renderUi(<RouterProvider router={router} />);
    await screen.findByText("orders");
    scrollTo.mockClear();

    await act(() => router.navigate("/payouts"));
    await screen.findByText("payouts");
    expect(scrollTo).toHaveBeenCalledWith(0, 0);

    scrollTo.mockClear();
    await act(() => router.navigate("/payouts?order=T1"));
    expect(scrollTo).not.toHaveBeenCalled();

    await act(() => router.navigate("/orders"));
    await screen.findByText("orders");
    expect(scrollTo).toHaveBeenCalledWith(0, 0);
  });
});
