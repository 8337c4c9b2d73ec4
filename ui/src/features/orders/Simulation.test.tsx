import { screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { Simulation } from "./OrderDetailDrawer";

function mock(actions: string[]) {
  invoke.mockImplementation((cmd: string) =>
    cmd === "sandbox_actions"
      ? Promise.resolve(actions)
      : Promise.reject({ code: "internal", message: `unexpected ${cmd}` }),
  );
}

describe("the sandbox's actions on an order", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  // Every action was offered on every order: a refund of a payout ended in a raw 409.
  it("offers only what applies to the order now", async () => {
    mock(["pay", "fail", "close"]);
    renderUi(<Simulation tradeNo="T1" />);
    await screen.findByTestId("simulate-pay");
    expect(screen.getByTestId("simulate-fail")).toBeTruthy();
    for (const gone of ["settle", "release-reserve", "refund", "chargeback"]) {
      expect(screen.queryByTestId(`simulate-${gone}`)).toBeNull();
    }
  });

  it("says so when nothing applies", async () => {
    mock([]);
    renderUi(<Simulation tradeNo="T2" />);
    await waitFor(() => expect(screen.getByTestId("simulate-none")).toBeTruthy());
    expect(screen.queryByTestId("simulate-pay")).toBeNull();
  });
});
