import { screen, waitFor } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { beforeEach, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { BalancesPage } from "./BalancesPage";

const snapshot = {
  currency: "MXN",
  balance: "1500.00",
  unCheckedBalance: "0.00",
  totalBalance: "1500.00",
  takenAt: 1_795_000_000_000,
};

function mock(latest: unknown[]) {
  invoke.mockImplementation((cmd: string) => {
    if (cmd === "balances_latest") return Promise.resolve(latest);
    if (cmd === "balances") {
      return Promise.resolve([{ currency: "MXN", snapshot, error: null }]);
    }
    if (cmd === "balance_history") return Promise.resolve([snapshot]);
    if (cmd === "balances_upcoming") return Promise.resolve([]);
    return Promise.reject({ code: "internal", message: `unexpected ${cmd}` });
  });
}

const asked = () => invoke.mock.calls.filter(([c]) => c === "balances").length;

describe("the balances screen", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  // Each visit once asked the gateway for every currency, and wrote an audit entry for
  // each: the screen opens with the last figures, and asks when the user does.
  it("opens with the last snapshots without asking the gateway", async () => {
    mock([snapshot]);
    renderUi(
      <MemoryRouter>
        <BalancesPage />
      </MemoryRouter>,
    );
    const row = await screen.findByTestId("balance-row");
    expect(row.textContent).toContain("1,500.00");
    await new Promise((r) => setTimeout(r, 100));
    expect(asked()).toBe(0);
    screen.getByTestId("balance-query").click();
    await waitFor(() => expect(asked()).toBe(1));
  });

  it("asks once when nothing was ever asked", async () => {
    mock([]);
    renderUi(
      <MemoryRouter>
        <BalancesPage />
      </MemoryRouter>,
    );
    await screen.findByTestId("balance-row");
    expect(asked()).toBe(1);
  });
});
