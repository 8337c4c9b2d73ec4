import { fireEvent, screen, waitFor } from "@testing-library/react";
import { useState } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { OrderFilter } from "../../lib/types";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { FilterBar } from "./FilterBar";
import { EMPTY_FILTER } from "./queries";

const MEANINGS = [
  { field: "orderState", raw: "1", meaning: "created" },
  { field: "orderState", raw: "2", meaning: "pending" },
  { field: "orderState", raw: "7", meaning: "partly_refunded" },
];

/// The last 7 days to 27 November 2026 in Mexico City (UTC-6), as the desk answers.
const BUSINESS_WEEK = {
  from: Date.UTC(2026, 10, 21, 6),
  to: Date.UTC(2026, 10, 28, 6),
};

const last = (seen: ReturnType<typeof vi.fn>): OrderFilter =>
  seen.mock.lastCall?.[0] ?? EMPTY_FILTER;

/// The bar as the screen holds it: the filter in state, every change also recorded.
function Bar({ seen }: { seen: (f: OrderFilter) => void }) {
  const [filter, setFilter] = useState(EMPTY_FILTER);
  return (
    <FilterBar
      filter={filter}
      invalid={null}
      onChange={(f) => {
        seen(f);
        setFilter(f);
      }}
    />
  );
}

/// The bar with a relative range in the screen's state too.
function Relative({
  seen,
  relative,
}: {
  seen: (f: OrderFilter) => void;
  relative: (r: string | null) => void;
}) {
  const [filter, setFilter] = useState(EMPTY_FILTER);
  const [r, setR] = useState<string | null>(null);
  return (
    <FilterBar
      filter={filter}
      invalid={null}
      relative={r as "last7Days" | null}
      onRelative={(x) => {
        relative(x);
        setR(x);
      }}
      onChange={(f) => {
        seen(f);
        setFilter(f);
      }}
    />
  );
}

describe("the orders filter bar", () => {
  afterEach(() => vi.restoreAllMocks());
  beforeEach(() => {
    // jsdom lays nothing out, and a dropdown whose button has no box on the screen is
    // hidden as scrolled away: every element is given a small box inside a window.
    vi.spyOn(Element.prototype, "clientWidth", "get").mockReturnValue(1280);
    vi.spyOn(Element.prototype, "clientHeight", "get").mockReturnValue(800);
    vi.spyOn(Element.prototype, "getBoundingClientRect").mockReturnValue(
      DOMRect.fromRect({ x: 10, y: 10, width: 100, height: 30 }),
    );
    invoke.mockReset();
    invoke.mockImplementation((cmd: string) => {
      if (cmd === "state_meanings") return Promise.resolve(MEANINGS);
      if (cmd === "currencies") return Promise.resolve(["EUR", "USD"]);
      // The desk resolves a relative range in the business's time zone.
      if (cmd === "relative_range") return Promise.resolve(BUSINESS_WEEK);
      return Promise.resolve([]);
    });
  });

  it("sets the range of a relative date as the desk resolves it in the business's zone", async () => {
    const seen = vi.fn();
    const relative = vi.fn();
    renderUi(<Relative seen={seen} relative={relative} />);
    fireEvent.click(screen.getByTestId("filter-dates"));
    const names = (await screen.findAllByRole("option")).map((o) => o.textContent);
    expect(names).toEqual([
      "Today",
      "Yesterday",
      "Last 7 days",
      "Last 30 days",
      "This month",
      "Last month",
      "Custom…",
    ]);
    fireEvent.click(screen.getByRole("option", { name: "Last 7 days" }));
    await waitFor(() => expect(relative).toHaveBeenLastCalledWith("last7Days"));
    expect(invoke).toHaveBeenCalledWith("relative_range", { range: "last7Days" });
    const f = last(seen);
    expect({ from: f.from, to: f.to }).toEqual(BUSINESS_WEEK);
    expect((screen.getByTestId("filter-dates") as HTMLInputElement).value).toBe("Last 7 days");
    // "Custom…" shows the calendar's range field, the range kept until days are picked.
    fireEvent.click(screen.getByTestId("filter-dates"));
    fireEvent.click(await screen.findByRole("option", { name: "Custom…" }));
    expect(await screen.findByTestId("filter-dates-custom")).toBeTruthy();
  });

  it("names states by their meaning, not their raw value, and says on its button what is chosen", async () => {
    const seen = vi.fn();
    renderUi(<Bar seen={seen} />);
    const state = screen.getByTestId("filter-state");
    expect(state.textContent).toBe("State");
    fireEvent.click(state);
    const options = await screen.findAllByRole("option");
    expect(options.map((o) => o.textContent)).toEqual(["Created", "Pending", "Partly refunded"]);
    fireEvent.click(screen.getByRole("option", { name: "Pending" }));
    expect(last(seen).states).toEqual([2]);
    await waitFor(() => expect(state.textContent).toBe("State: Pending"));
    fireEvent.click(screen.getByRole("option", { name: "Partly refunded" }));
    await waitFor(() => expect(state.textContent).toBe("State: 2 chosen"));
  });

  it("names methods as people do and keeps the amounts under 'More filters'", async () => {
    renderUi(<Bar seen={() => {}} />);
    fireEvent.click(screen.getByTestId("filter-method"));
    const names = (await screen.findAllByRole("option")).map((o) => o.textContent);
    expect(names).toContain("Apple Pay");
    expect(names).toContain("Vietnam bank transfer");
    expect(names.join(" ")).not.toMatch(/APPLE_PAY|VN_BANK/);
    expect(screen.queryByTestId("filter-min-amount")).toBeNull();
    fireEvent.click(screen.getByTestId("more-filters"));
    fireEvent.change(await screen.findByTestId("filter-min-amount"), {
      target: { value: "10" },
    });
    await waitFor(() =>
      expect(screen.getByTestId("more-filters").textContent).toBe("More filters (1)"),
    );
  });
});
