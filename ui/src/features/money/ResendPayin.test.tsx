import { cleanup, fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { Entry } from "../../lib/types";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { EntryDrawer } from "./EntryDrawer";

const pix: Entry = {
  id: 9,
  profile: "sandbox",
  operation: "v1.payment",
  merOrderNo: "PI-9",
  request: { socialSecurityNumber: "*********09", name: "Ana Lima" },
  summary: "payin PIX 20.00 BRL",
  status: "pending",
  tradeNo: null,
  code: null,
  message: null,
  attempts: 1,
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  nextCheckAt: null,
  fingerprint: "",
  sentAt: null,
  lookups: 1,
  resolution: null,
  canBeLookedUp: true,
  purpose: null,
};

function answer(entry: Entry) {
  invoke.mockReset();
  invoke.mockImplementation((cmd: string) => {
    if (cmd === "journal_entry") return Promise.resolve(entry);
    if (cmd === "payin_resend")
      return Promise.resolve({
        entry: { ...entry, status: "accepted", attempts: 2, tradeNo: "T-9" },
        replayed: false,
        tradeNo: "T-9",
        payUrl: null,
        bank: null,
        fee: null,
        message: null,
      });
    return Promise.resolve(null);
  });
}

describe("a payin known not sent, opened from the journal", () => {
  afterEach(cleanup);

  it("asks a PIX payer's CPF again, then sends it under its own number", async () => {
    answer(pix);
    renderUi(<EntryDrawer entry={pix} onClose={() => {}} />);
    const form = await screen.findByTestId("resend-form");
    expect(form.textContent).toContain("*********09");
    fireEvent.change(screen.getByTestId("resend-tax-id"), {
      target: { value: "123.456.789-09" },
    });
    fireEvent.click(screen.getByTestId("resend-send"));
    await waitFor(() =>
      expect(invoke).toHaveBeenCalledWith("payin_resend", { id: 9, taxId: "123.456.789-09" }),
    );
    // The receipt now stands as the gateway accepted it; nothing is offered again.
    await waitFor(() =>
      expect(screen.getByTestId("entry-drawer-body").getAttribute("data-status")).toBe("accepted"),
    );
    expect(screen.queryByTestId("resend-form")).toBeNull();
  });

  it("sends another method's payin as the journal keeps it, with nothing to type", async () => {
    const sepa = { ...pix, id: 10, merOrderNo: "PI-10", request: { billingFirstName: "Ana" } };
    answer(sepa);
    renderUi(<EntryDrawer entry={sepa} onClose={() => {}} />);
    await screen.findByTestId("resend-form");
    expect(screen.queryByTestId("resend-tax-id")).toBeNull();
    fireEvent.click(screen.getByTestId("resend-send"));
    await waitFor(() =>
      expect(invoke).toHaveBeenCalledWith("payin_resend", { id: 10, taxId: null }),
    );
  });
});
