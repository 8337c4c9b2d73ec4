import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderUi } from "../test/render";
import { EXACT, MoneyChartTooltip } from "./MoneyChartTooltip";

describe("a chart's money tooltip", () => {
  // The chart draws numbers; the tooltip says the amount the row carries, exactly, with
  // its currency, as the tables do.
  it("shows each series' exact amount with its currency", () => {
    const row = {
      balance: 12345678901234.56,
      unchecked: -3,
      [EXACT]: { balance: "12345678901234.56", unchecked: "-3" },
    };
    renderUi(
      <MoneyChartTooltip
        label="2026-11-23"
        currency="USD"
        series={[
          { name: "balance", label: "Available", color: "teal.6" },
          { name: "unchecked", label: "Not yet cleared", color: "yellow.6" },
        ]}
        payload={[
          { name: "balance", payload: row },
          { name: "unchecked", payload: row },
        ]}
      />,
    );
    const tip = screen.getByTestId("chart-tooltip");
    expect(tip.textContent).toContain("Available");
    expect(tip.textContent).toContain("USD 12,345,678,901,234.56");
    expect(tip.textContent).toContain("Not yet cleared");
    expect(tip.textContent).toContain("-USD 3.00");
  });
});
