import { useMutation } from "@tanstack/react-query";
import { fireEvent, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import type { Entry, PayoutForm, Receipt } from "../../lib/types";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { DuplicateGuard, useDuplicate } from "./DuplicateGuard";
import { ReceiptView } from "./ReceiptView";

const form: PayoutForm = {
  kind: "CLABE",
  beneficiary: "",
  merOrderNo: "PO-NEW-2",
  amount: "88.00",
  currency: "MXN",
  clabe: "002010077777777771",
  cardNo: "",
  firstName: "",
  lastName: "",
  countryCode: "",
  email: "",
  mobile: "",
  ipAddress: "",
  notifyUrl: "",
  addressLine: "",
  addressLine2: "",
  city: "",
  state: "",
  postCode: "",
  beneficiaryType: "",
  purpose: { text: "", reference: "" },
};

const entry = (over: Partial<Entry>): Entry => ({
  id: 7,
  profile: "sandbox",
  operation: "v2.payout",
  merOrderNo: "PO-EARLIER-1",
  request: {},
  summary: "payout CLABE 88.00 MXN to 0020******7771",
  status: "unknown",
  tradeNo: null,
  code: null,
  message: "connection reset",
  attempts: 2,
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  nextCheckAt: 1_700_000_002_000,
  fingerprint: "abc",
  sentAt: 1_700_000_000_000,
  lookups: 2,
  resolution: null,
  canBeLookedUp: true,
  purpose: null,
  ...over,
});

const duplicate = {
  code: "duplicate",
  earlier_id: 7,
  earlier_mer_order_no: "PO-EARLIER-1",
  earlier_status: "unknown",
  age_secs: 300,
  summary: "payout CLABE 88.00 MXN to 0020******7771",
};

/// A payout form's send path, as the screens wire it: the first try, then the guard.
function Harness() {
  const dup = useDuplicate();
  const send = useMutation({
    mutationFn: (allowDuplicate: boolean) =>
      unwrap(commands.payoutCreate(form, false, allowDuplicate)),
    onSettled: dup.settle,
  });
  return (
    <>
      <button type="button" onClick={() => send.mutate(false)}>
        send
      </button>
      <DuplicateGuard
        duplicate={dup.duplicate}
        sending={send.isPending}
        onConfirm={() => send.mutate(true)}
      />
      {send.data && <span data-testid="sent">{send.data.entry.merOrderNo}</span>}
    </>
  );
}

describe("the duplicate guard", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("names the earlier order, shows it, and sends a second one only once confirmed", async () => {
    invoke.mockImplementation((cmd: string, args: { allowDuplicate?: boolean }) => {
      if (cmd === "payout_create") {
        if (!args.allowDuplicate) return Promise.reject(duplicate);
        const receipt: Receipt = {
          entry: entry({ id: 8, merOrderNo: "PO-NEW-2", status: "accepted", tradeNo: "T2" }),
          replayed: false,
          tradeNo: "T2",
          payUrl: null,
          bank: null,
          fee: null,
          message: null,
        };
        return Promise.resolve(receipt);
      }
      if (cmd === "journal_entry" || cmd === "journal_reconcile") {
        return Promise.resolve(
          entry({
            request: { sourceAmount: "88.00", currencyCode: "MXN", clabe: "0020******7771" },
          }),
        );
      }
      return Promise.reject({ code: "internal", message: `unexpected ${cmd}` });
    });
    renderUi(<Harness />);
    fireEvent.click(screen.getByText("send"));

    const guard = await screen.findByTestId("duplicate-guard");
    expect(guard.textContent).toContain("PO-EARLIER-1");
    // The earlier request in the user's words, not the desk's English line.
    await waitFor(() => expect(guard.textContent).toContain("CLABE payout"));
    expect(guard.textContent).not.toContain("payout CLABE");
    expect(guard.textContent).toContain("Nothing was sent.");
    expect(guard.getAttribute("data-earlier-status")).toBe("unknown");

    fireEvent.click(screen.getByTestId("duplicate-show-earlier"));
    const earlier = await screen.findByTestId("duplicate-earlier");
    await waitFor(() =>
      expect(earlier.querySelector('[data-testid="receipt-mer-order-no"]')?.textContent).toBe(
        "PO-EARLIER-1",
      ),
    );

    const sendAnyway = screen.getByTestId("duplicate-confirm-send");
    expect(sendAnyway).toHaveProperty("disabled", true);
    fireEvent.click(sendAnyway);
    expect(invoke.mock.calls.filter(([c]) => c === "payout_create")).toHaveLength(1);

    fireEvent.click(screen.getByTestId("duplicate-confirm-check"));
    await waitFor(() => expect(sendAnyway).toHaveProperty("disabled", false));
    fireEvent.click(sendAnyway);

    expect(await screen.findByTestId("sent")).toHaveProperty("textContent", "PO-NEW-2");
    const creates = invoke.mock.calls.filter(([c]) => c === "payout_create");
    expect(creates).toHaveLength(2);
    expect(creates[0]?.[1]).toEqual({ form, loseAnswer: false, allowDuplicate: false });
    expect(creates[1]?.[1]).toEqual({ form, loseAnswer: false, allowDuplicate: true });
    expect(screen.queryByTestId("duplicate-guard")).toBeNull();
  });
});

describe("the receipt of an outcome the gateway cannot be asked about", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("is resolved by hand, with a reason the backend checks", async () => {
    const withdraw = entry({
      id: 9,
      operation: "v1.card.withdraw",
      merOrderNo: "WD-1",
      nextCheckAt: null,
      canBeLookedUp: false,
    });
    // The journal as the backend keeps it: a lookup answers the entry as it stands.
    let now = withdraw;
    invoke.mockImplementation((cmd: string, args: { reason?: string }) => {
      if (cmd === "journal_reconcile") return Promise.resolve(now);
      if (cmd === "journal_resolve") {
        if ((args.reason ?? "").trim().length < 3) {
          return Promise.reject({ code: "validation", field: "reason", rule: "say why" });
        }
        now = {
          ...withdraw,
          status: "accepted",
          updatedAt: withdraw.updatedAt + 1,
          resolution: "marked done by ops: on the statement",
        };
        return Promise.resolve(now);
      }
      return Promise.reject({ code: "internal", message: `unexpected ${cmd}` });
    });
    const receipt: Receipt = {
      entry: withdraw,
      replayed: false,
      tradeNo: null,
      payUrl: null,
      bank: null,
      fee: null,
      message: null,
    };
    renderUi(<ReceiptView receipt={receipt} />);
    expect(screen.getByTestId("receipt-mer-order-no").textContent).toBe("WD-1");
    expect(screen.getByTestId("receipt-next").getAttribute("data-step")).toBe("resolve");

    fireEvent.click(screen.getByTestId("resolve-done"));
    expect(await screen.findByText("say why")).toBeTruthy();

    fireEvent.change(screen.getByTestId("resolve-reason"), {
      target: { value: "on the statement" },
    });
    fireEvent.click(screen.getByTestId("resolve-done"));
    await waitFor(() =>
      expect(screen.getByTestId("receipt").getAttribute("data-status")).toBe("accepted"),
    );
    expect(screen.getByTestId("receipt-resolution").textContent).toContain("on the statement");
    expect(screen.queryByTestId("resolve-form")).toBeNull();
    const resolves = invoke.mock.calls.filter(([c]) => c === "journal_resolve");
    expect(resolves.at(-1)?.[1]).toEqual({ id: 9, done: true, reason: "on the statement" });
  });
});
