import { cleanup, fireEvent, screen, waitFor } from "@testing-library/react";
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

const run = (over: Record<string, unknown>) => ({
  id: 7,
  schedule: 3,
  name: "Month end",
  trigger: "onTime",
  dueAt: Date.UTC(2026, 10, 26, 6, 0, 0),
  firstDay: "2026-10-01",
  lastDay: "2026-10-31",
  startedAt: Date.UTC(2026, 10, 26, 6, 0, 5),
  finishedAt: Date.UTC(2026, 10, 26, 6, 0, 9),
  outcome: "failed",
  file: null,
  rows: null,
  error: "the folder /srv/finance cannot be made: Permission denied",
  by: "desk",
  acknowledged: false,
  ...over,
});

describe("a scheduled report that failed or was missed", () => {
  it("says which, why, and runs again or is marked seen", async () => {
    const alerts = {
      ...data,
      heldBulk: [],
      scheduleAlerts: [
        { run: run({}), failed: true, missed: false },
        {
          run: run({
            id: 8,
            schedule: 4,
            name: "Daily",
            trigger: "catchUp",
            outcome: "ok",
            firstDay: "2026-11-25",
            lastDay: "2026-11-25",
            file: "/srv/finance/daily-2026-11-25.xlsx",
            error: null,
          }),
          failed: false,
          missed: true,
        },
      ],
    } as unknown as Dashboard;
    const router = createMemoryRouter([{ path: "/", element: <AttentionCard data={alerts} /> }], {
      initialEntries: ["/"],
    });
    renderUi(<RouterProvider router={router} />);
    const card = await screen.findByTestId("dashboard-attention");
    expect(card.getAttribute("data-count")).toBe("2");
    const [failed, missed] = screen.getAllByTestId("attention-schedule");
    expect(failed?.textContent).toContain("Scheduled report “Month end” failed");
    expect(failed?.textContent).toContain("2026-10-01 – 2026-10-31");
    expect(failed?.textContent).toContain("Permission denied");
    expect(missed?.textContent).toContain("Scheduled report “Daily” missed its time");
    expect(missed?.textContent).toContain("Caught up at");
    expect(missed?.textContent).toContain("/srv/finance/daily-2026-11-25.xlsx");
    // A caught-up run needs no run again; only Seen.
    expect(missed?.querySelector('[data-testid="attention-schedule-run"]')).toBeNull();
    invoke.mockImplementation(async (cmd: string) =>
      cmd === "schedule_run_now" ? run({ id: 9, outcome: "ok" }) : null,
    );
    fireEvent.click(screen.getAllByTestId("attention-schedule-run")[0] as HTMLElement);
    // Run again runs its schedule, then marks the failed run seen.
    await waitFor(() => {
      const calls = invoke.mock.calls.map((c) => [c[0], c[1]]);
      expect(calls).toContainEqual(["schedule_run_now", { id: 3 }]);
      expect(calls).toContainEqual(["schedule_runs_seen", { ids: [7] }]);
    });
  });
});

describe("an alert opened on the Dashboard (issue 35)", () => {
  it("opens the journal entry its ?entry= names, and leaves the address clean", async () => {
    const entry = {
      id: 41,
      profile: "sandbox",
      operation: "v2.payout",
      merOrderNo: "PO-ALERT-41",
      request: {},
      summary: "payout 20.00 MXN",
      status: "unknown",
      tradeNo: null,
      code: null,
      message: null,
      attempts: 1,
      createdAt: 1_700_000_000_000,
      updatedAt: 1_700_000_000_000,
      nextCheckAt: null,
      fingerprint: "",
      sentAt: 1_700_000_000_000,
      lookups: 0,
      resolution: null,
      canBeLookedUp: true,
    };
    invoke.mockImplementation(async (cmd: string) => (cmd === "journal_entry" ? entry : null));
    const withEntry = {
      ...data,
      heldBulk: [],
      needsAttention: [{ entry, action: "look_up", accountField: null }],
    } as unknown as Dashboard;
    const router = createMemoryRouter(
      [{ path: "/", element: <AttentionCard data={withEntry} /> }],
      { initialEntries: ["/?entry=41"] },
    );
    renderUi(<RouterProvider router={router} />);
    await waitFor(() => expect(screen.getByText(/PO-ALERT-41/, { selector: "h2" })).toBeTruthy());
    expect(new URLSearchParams(router.state.location.search).get("entry")).toBeNull();
  });
});
