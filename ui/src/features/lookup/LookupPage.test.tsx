import { cleanup, fireEvent, screen, within } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { LookupPage } from "./LookupPage";
import type { LookupReport, LookupRow } from "./types";

const row = (number: string, found: LookupRow["found"], given: boolean): LookupRow => ({
  number,
  line: 1,
  found,
  tradeNo: given ? `T-${number}` : null,
  merOrderNo: given ? number : null,
  state: given ? 5 : null,
  meaning: given ? "success" : null,
  amount: given ? "12.50" : null,
  currency: given ? "USD" : null,
  also: [],
  unlisted: false,
  sentAt: null,
  graceUntil: null,
});

function answer(report: LookupReport) {
  const asked: unknown[] = [];
  invoke.mockReset();
  invoke.mockImplementation((cmd: string, args: Record<string, unknown>) => {
    if (cmd === "orders_lookup") {
      asked.push(args);
      return Promise.resolve(report);
    }
    if (cmd === "state_meanings")
      return Promise.resolve([{ field: "orderState", raw: "5", meaning: "success" }]);
    return Promise.resolve(null);
  });
  return asked;
}

function open() {
  const router = createMemoryRouter([{ path: "/lookup", Component: LookupPage }], {
    initialEntries: ["/lookup"],
  });
  renderUi(<RouterProvider router={router} />);
}

describe("the bulk look-up screen", () => {
  // jsdom has no font loading, which the input's autosize listens to.
  beforeAll(() => {
    if (!document.fonts)
      Object.defineProperty(document, "fonts", {
        configurable: true,
        value: { addEventListener() {}, removeEventListener() {} },
      });
  });
  afterEach(cleanup);

  it("counts each outcome, shows what was not given as not given, and says offline", async () => {
    const asked = answer({
      rows: [row("M-1", "cache", true), row("M-2", "notAsked", false)],
      rejected: [{ line: 3, text: "a b", reason: "notPrintable", rule: "english rule" }],
      duplicates: 0,
      gateway: "offline",
      gatewayError: null,
      requests: 0,
      batchSize: 500,
      cacheUpdated: 0,
    });
    open();
    fireEvent.change(screen.getByTestId("lookup-input"), {
      target: { value: "M-1\nM-2\na b\n" },
    });
    fireEvent.click(screen.getByTestId("lookup-ask-gateway"));
    fireEvent.click(screen.getByTestId("lookup-run"));
    const summary = await screen.findByTestId("lookup-summary");
    expect(summary.getAttribute("data-total")).toBe("2");
    expect(screen.getByTestId("lookup-count-cache").getAttribute("data-count")).toBe("1");
    expect(screen.getByTestId("lookup-count-notAsked").getAttribute("data-count")).toBe("1");
    // The switch reached the command: the gateway was not to be asked.
    expect(asked[0]).toMatchObject({ options: { askGateway: false, refresh: false } });
    expect(screen.getByTestId("lookup-gateway").textContent).toContain(
      "Offline: the gateway was not asked",
    );
    const notAsked = screen
      .getAllByTestId("lookup-row")
      .find((r) => r.getAttribute("data-number") === "M-2");
    expect(notAsked).toBeDefined();
    expect(within(notAsked as HTMLElement).getAllByText("Not given")).toHaveLength(4);
    // The rule in the screen's words, not the engine's English.
    expect(screen.getByTestId("lookup-rejected").textContent).toContain(
      "holds a space or a character that is not printable ASCII",
    );
  });

  it("says a number this desk sent within the grace is not listed yet, not not found", async () => {
    const until = Date.UTC(2026, 10, 27, 10, 5, 0);
    answer({
      rows: [
        { ...row("LATE-1", "notListedYet", false), sentAt: until - 300_000, graceUntil: until },
        row("NOPE-1", "notFound", false),
      ],
      rejected: [],
      duplicates: 0,
      gateway: "asked",
      gatewayError: null,
      requests: 1,
      batchSize: 500,
      cacheUpdated: 0,
    });
    open();
    fireEvent.change(screen.getByTestId("lookup-input"), { target: { value: "LATE-1\nNOPE-1\n" } });
    fireEvent.click(screen.getByTestId("lookup-run"));
    await screen.findByTestId("lookup-summary");
    expect(screen.getByTestId("lookup-count-notListedYet").getAttribute("data-count")).toBe("1");
    expect(screen.getByTestId("lookup-count-notFound").getAttribute("data-count")).toBe("1");
    const late = screen
      .getAllByTestId("lookup-row")
      .find((r) => r.getAttribute("data-number") === "LATE-1") as HTMLElement;
    expect(late.getAttribute("data-found")).toBe("notListedYet");
    expect(within(late).getByText("Not listed yet")).toBeDefined();
    expect(within(late).getByTestId("lookup-not-listed-yet").textContent).toContain(
      "the gateway lists new orders late",
    );
    expect(within(late).queryByText("Not found")).toBeNull();
  });
});
