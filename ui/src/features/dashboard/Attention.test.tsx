import { cleanup, fireEvent, screen } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Dashboard } from "../../lib/types";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { AttentionCard } from "./Attention";

const FILE = "/home/ana/payroll/held.csv";

const data = {
  needsAttention: [],
  heldBulk: [
    {
      file: FILE,
      resultFile: "/home/ana/payroll/held.result.csv",
      line: 2,
      merOrderNo: "HELD-1",
      detail: "the same payout was made 3 minutes ago as PO-1 (accepted)",
      heldAt: Date.UTC(2026, 10, 26, 12, 0, 0),
    },
  ],
  pendingReviews: 0,
  syncError: null,
} as unknown as Dashboard;

beforeEach(() => {
  invoke.mockReset();
  invoke.mockResolvedValue(null);
});
afterEach(cleanup);

describe("a bulk row a run held", () => {
  it("is on Needs attention with its file, line and number, and opens its bulk run", async () => {
    const router = createMemoryRouter(
      [
        { path: "/", element: <AttentionCard data={data} /> },
        { path: "/payouts", element: <div data-testid="payouts-here" /> },
      ],
      { initialEntries: ["/"] },
    );
    renderUi(<RouterProvider router={router} />);
    const card = await screen.findByTestId("dashboard-attention");
    expect(card.getAttribute("data-count")).toBe("1");
    expect(card.textContent).not.toContain("Nothing needs attention");
    const row = screen.getByTestId("attention-held-bulk");
    expect(row.textContent).toContain("held.csv, line 2 (HELD-1)");
    expect(row.textContent).toContain("Held by the bulk run of");
    // The result file's English words are not shown (the run says why, translated).
    expect(row.textContent).not.toContain("the same payout was made");
    fireEvent.click(screen.getByTestId("attention-open-bulk"));
    await screen.findByTestId("payouts-here");
    expect(router.state.location.pathname).toBe("/payouts");
    expect(new URLSearchParams(router.state.location.search).get("bulk")).toBe(FILE);
  });
});
