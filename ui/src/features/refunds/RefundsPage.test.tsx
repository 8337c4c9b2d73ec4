import { screen } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { beforeEach, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { RefundsPage } from "./RefundsPage";

describe("the cached refunds", () => {
  beforeEach(() => {
    invoke.mockReset();
    invoke.mockImplementation((cmd: string) => {
      if (cmd === "reversals") {
        return Promise.resolve([
          {
            kind: "refund",
            tradeNo: "T1",
            refundNo: "R1",
            state: "7",
            amount: "5.00",
            currency: "MXN",
            fee: null,
            settle: null,
            fetchedAt: 1_795_000_000_000,
          },
        ]);
      }
      if (cmd === "state_meanings") return Promise.resolve([]);
      return Promise.reject({ code: "internal", message: `unexpected ${cmd}` });
    });
  });

  // A state the dictionary does not know read "Unknown (7) (7)".
  it("name an unknown state's value once", async () => {
    renderUi(
      <MemoryRouter>
        <RefundsPage />
      </MemoryRouter>,
    );
    const cell = await screen.findByText(/Unknown \(7\)/);
    expect(cell.textContent).toBe("Unknown (7)");
  });
});
