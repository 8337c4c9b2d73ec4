import { fireEvent, screen, waitFor } from "@testing-library/react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router";
import { beforeEach, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { Reconcile, Upcoming } from "./Reconcile";

const snap = (balance: string, takenAt: number) => ({
  currency: "MXN",
  balance,
  unCheckedBalance: "0",
  totalBalance: balance,
  takenAt,
});
const history = [snap("900", 1_000), snap("1000", 2_000), snap("1079", 3_000)];
const filter = {
  from: null,
  to: null,
  movedFrom: 2_001,
  movedTo: 3_001,
  states: [5, 6, 7, 8],
  currencies: ["MXN"],
  methods: [],
  kinds: ["payin"],
  unknownKind: true,
  settles: [1],
  reserveStatuses: [],
  minAmount: null,
  maxAmount: null,
  search: null,
  sort: "created",
  descending: false,
};
const line = (kind: string, count: number, amount: string, effect: string) => ({
  kind,
  count,
  amount,
  effect,
  field: "sourceAmount",
  filter,
});
const reconciliation = {
  currency: "MXN",
  from: history[1],
  to: history[2],
  observed: "79",
  explained: "79",
  difference: "0",
  lines: [
    line("settledPayins", 1, "100", "100"),
    line("payinHandlingFees", 1, "2.5", "-2.5"),
    line("payouts", 1, "17.5", "-17.5"),
    line("topUps", 0, "0", "0"),
  ],
  filter,
};

function OrdersProbe() {
  const location = useLocation();
  return <pre data-testid="opened-with">{JSON.stringify(location.state)}</pre>;
}

function render(ui: React.ReactNode) {
  return renderUi(
    <MemoryRouter>
      <Routes>
        <Route path="/" element={ui} />
        <Route path="/orders" element={<OrdersProbe />} />
      </Routes>
    </MemoryRouter>,
  );
}

describe("the reconcile and upcoming sections", () => {
  beforeEach(() => {
    invoke.mockReset();
    invoke.mockImplementation((cmd: string) => {
      if (cmd === "balance_history") return Promise.resolve(history);
      if (cmd === "balance_reconcile") return Promise.resolve(reconciliation);
      if (cmd === "balances_upcoming") {
        return Promise.resolve([
          {
            currency: "MXN",
            unsettledCount: 2,
            unsettledAmount: "140",
            unsettledNet: "128.5",
            unsettledFilter: filter,
            settlesAt: null,
            reserveCount: 3,
            reserveAmount: "17",
            reserveFilter: filter,
            releasedAt: null,
          },
          {
            currency: "USD",
            unsettledCount: 0,
            unsettledAmount: "0",
            unsettledNet: "0",
            unsettledFilter: filter,
            settlesAt: null,
            reserveCount: 0,
            reserveAmount: "0",
            reserveFilter: filter,
            releasedAt: null,
          },
        ]);
      }
      return Promise.reject({ code: "internal", message: `unexpected ${cmd}` });
    });
  });

  it("reconciles the last two snapshots and opens a line's orders", async () => {
    render(<Reconcile currency="MXN" />);
    const difference = await screen.findByTestId("reconcile-difference");
    expect(difference.getAttribute("data-value")).toBe("0");
    const call = invoke.mock.calls.find(([c]) => c === "balance_reconcile");
    expect(call?.[1]).toMatchObject({ currency: "MXN", fromTakenAt: 2_000, toTakenAt: 3_000 });
    expect(screen.getByTestId("reconcile-observed").textContent).toContain("79.00");
    const rows = screen.getAllByRole("row").map((r) => r.getAttribute("data-line"));
    expect(rows).toContain("payouts");
    expect(screen.getByText("Payouts")).toBeTruthy();
    expect(screen.queryByTestId("reconcile-unexplained")).toBeNull();
    // A line with no orders opens nothing.
    expect(screen.queryByTestId("reconcile-open-topUps")).toBeNull();
    fireEvent.click(screen.getByTestId("reconcile-open-payouts"));
    const opened = await screen.findByTestId("opened-with");
    expect(JSON.parse(opened.textContent ?? "{}")).toEqual({ filter });
  });

  it("says when there are not two snapshots to compare", async () => {
    invoke.mockImplementation((cmd: string) =>
      cmd === "balance_history" ? Promise.resolve([history[0]]) : Promise.reject({}),
    );
    render(<Reconcile currency="MXN" />);
    expect(await screen.findByText(/Two snapshots of this currency are needed/)).toBeTruthy();
    expect(invoke.mock.calls.some(([c]) => c === "balance_reconcile")).toBe(false);
  });

  it("lists what is still to come, with no invented dates", async () => {
    render(<Upcoming />);
    const table = await screen.findByTestId("upcoming-table");
    expect(table.textContent).toContain("2 orders");
    expect(table.textContent).toContain("Not given by the gateway");
    // Only currencies with something waiting.
    expect(table.querySelector('[data-currency="USD"]')).toBeNull();
    fireEvent.click(screen.getByTestId("upcoming-reserve-MXN"));
    await waitFor(() => expect(screen.getByTestId("opened-with")).toBeTruthy());
  });
});
