import { fireEvent, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { CardsPage } from "./CardsPage";

describe("the cards screen", () => {
  beforeEach(() => {
    invoke.mockReset();
    invoke.mockImplementation((cmd: string) =>
      // A single desk (no team): every action open.
      Promise.resolve(cmd === "order_no_new" ? "TU-1" : cmd === "team_status" ? null : []),
    );
  });

  it("keeps what was typed for a top-up and for a withdrawal when switching between them", async () => {
    renderUi(<CardsPage />);
    const typeIn = (testId: string, value: string) =>
      fireEvent.change(screen.getByTestId(testId), { target: { value } });
    await waitFor(() => expect(screen.getByDisplayValue("TU-1")).toBeTruthy());
    typeIn("card-card", "APP-7");
    typeIn("card-amount", "12.50");
    // The currency is chosen from the list (searched by code), never typed free.
    fireEvent.click(screen.getByTestId("card-currency"));
    typeIn("card-currency", "usd");
    fireEvent.click(await screen.findByText("USD · US Dollar"));

    fireEvent.click(screen.getByLabelText("Withdraw"));
    await waitFor(() => expect(screen.getByTestId("card-amount")).toHaveProperty("value", ""));
    typeIn("card-amount", "3.00");

    fireEvent.click(screen.getByLabelText("Top up"));
    await waitFor(() => expect(screen.getByTestId("card-amount")).toHaveProperty("value", "12.50"));
    expect(screen.getByTestId("card-card")).toHaveProperty("value", "APP-7");
    expect(screen.getByTestId("card-currency")).toHaveProperty("value", "USD · US Dollar");
    fireEvent.click(screen.getByLabelText("Withdraw"));
    await waitFor(() => expect(screen.getByTestId("card-amount")).toHaveProperty("value", "3.00"));
  });
});
