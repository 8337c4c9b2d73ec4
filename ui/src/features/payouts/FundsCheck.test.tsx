import { screen } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import type { Funds } from "../../bindings";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { FundsCheck } from "./FundsCheck";

const funds = (over: Partial<Funds>): Funds => ({
  currency: "MXN",
  balance: "1000.00",
  takenAt: 0,
  ageSecs: 45,
  fresh: true,
  refreshError: null,
  amount: "100.00",
  fee: null,
  feeFrom: null,
  total: "100.00",
  left: "900.00",
  short: false,
  limitPerPayout: null,
  limitPerDay: null,
  usedToday: "0",
  ...over,
});

function answer(f: Funds) {
  invoke.mockImplementation((cmd: string) =>
    cmd === "payout_funds"
      ? Promise.resolve(f)
      : Promise.reject({ code: "internal", message: `unexpected ${cmd}` }),
  );
}

describe("the payout's balance check", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("says the balance was asked just now only when the gateway answered the refresh", async () => {
    answer(funds({ ageSecs: 0 }));
    renderUi(<FundsCheck currency="MXN" amount="100.00" onShort={() => {}} />);
    const age = await screen.findByTestId("funds-age");
    expect(age.textContent).toBe("asked of the gateway just now");
    expect(age.getAttribute("data-asked-now")).toBe("true");
  });

  it("says a balance is cached, with its age, when the refresh failed, however young", async () => {
    // The snapshot is 45 s old (fresh by age), but the gateway could not be asked now.
    answer(funds({ ageSecs: 45, refreshError: "connection refused" }));
    renderUi(<FundsCheck currency="MXN" amount="100.00" onShort={() => {}} />);
    const age = await screen.findByTestId("funds-age");
    expect(age.textContent).toBe("cached, 45 s old");
    expect(age.textContent).not.toContain("just now");
    expect(age.getAttribute("data-asked-now")).toBe("false");
    expect(screen.getByTestId("funds-check").textContent).toContain("connection refused");
  });

  it("gives an older cached balance's age in minutes", async () => {
    answer(funds({ ageSecs: 600, fresh: false, refreshError: "timeout" }));
    renderUi(<FundsCheck currency="MXN" amount="100.00" onShort={() => {}} />);
    expect((await screen.findByTestId("funds-age")).textContent).toBe("cached, 10 minutes old");
  });
});
