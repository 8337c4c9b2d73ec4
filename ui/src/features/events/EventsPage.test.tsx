import { fireEvent, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import type { NotificationEvent } from "../../lib/types";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { EventsPage } from "./EventsPage";

const event = (id: number, tradeNo: string): NotificationEvent => ({
  id,
  receivedAt: 1_795_000_000_000,
  kind: "pay",
  tradeNo,
  signatureOk: true,
  attempts: 1,
  delivered: true,
  body: JSON.stringify({ notifyType: "pay", tradeNo, amount: "12.50" }),
});

describe("the events screen", () => {
  beforeEach(() => {
    // The check's text field grows with its text and listens for fonts loading, which
    // jsdom does not have.
    if (!("fonts" in document)) {
      Object.defineProperty(document, "fonts", {
        configurable: true,
        value: { addEventListener: () => {}, removeEventListener: () => {} },
      });
    }
    invoke.mockReset();
    invoke.mockImplementation((cmd: string) =>
      Promise.resolve(cmd === "events" ? [event(1, "T1"), event(2, "T2")] : null),
    );
  });

  // A body opened inside the table pushed the rows after it off the screen: it opens
  // beside the list, which stays as it was.
  it("shows a notification's body in a drawer, the table's rows unmoved", async () => {
    renderUi(<EventsPage />);
    const table = await screen.findByTestId("events-table");
    await waitFor(() => expect(table.querySelectorAll("tbody tr")).toHaveLength(2));
    const [, second] = screen.getAllByTestId("event-show-body");
    if (second) fireEvent.click(second);
    const body = await screen.findByTestId("event-body");
    expect(body.getAttribute("data-trade-no")).toBe("T2");
    expect(body.textContent).toContain('"amount": "12.50"');
    expect(screen.getByRole("dialog").textContent).toContain("Payment notification for T2");
    expect(table.querySelectorAll("tbody tr")).toHaveLength(2);
    expect(table.textContent).not.toContain("12.50");
  });

  it("names the time zone once, in the time column's header", async () => {
    renderUi(<EventsPage />);
    const table = await screen.findByTestId("events-table");
    const head = table.querySelector("thead")?.textContent ?? "";
    expect(head).toMatch(/^Received \(/);
    expect(head.match(/UTC/g)).toHaveLength(1);
  });
});
