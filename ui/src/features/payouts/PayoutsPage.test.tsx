import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { useState } from "react";
import { MemoryRouter } from "react-router";
import { beforeEach, describe, expect, it } from "vitest";
import type {
  BulkCheck,
  BulkOutcome,
  Entry,
  PayoutKind,
  PlannedRow,
  Receipt,
} from "../../lib/types";
import { renderUi } from "../../test/render";
import { invoke } from "../../test/tauri";
import { BulkPayouts } from "./BulkPayouts";
import { blankPayout } from "./PayoutFields";
import { PayoutsPage } from "./PayoutsPage";
import { RecentPayouts } from "./RecentPayouts";
import { SinglePayout } from "./SinglePayout";

/// A form alone, holding what is typed as the payouts screen does.
function OnePayout({ kind }: { kind: PayoutKind }) {
  const draft = useState(() => blankPayout(kind));
  return <SinglePayout kind={kind} draft={draft} />;
}

function Bulk() {
  const path = useState("");
  return <BulkPayouts path={path} />;
}

const row = (line: number, action: PlannedRow["action"], no: string): PlannedRow => ({
  line,
  merOrderNo: no,
  payout: {
    kind: "CLABE",
    merOrderNo: no,
    amount: "10.00",
    currency: "MXN",
    beneficiary: "",
    payee: null,
    account: "002010******7771",
    bank: "BANAMEX",
    estimatedFee: null,
    estimatedFeeFrom: null,
    estimatedTotal: null,
  },
  action,
  reason: action === "held" ? "the same payout as PO-OLD (accepted, 5 min ago)" : "new",
  why:
    action === "held"
      ? { kind: "sameRecent", earlier: "PO-OLD", status: "accepted", minutes: 5, confirmedAs: null }
      : { kind: "new" },
  earlier: action === "held" ? "PO-OLD" : null,
  nameInFile: null,
});

const checked: BulkCheck = {
  path: "/tmp/p.csv",
  resultPath: "/tmp/p.result.csv",
  plan: {
    rows: [row(2, "send", "B1"), row(3, "paid", "B2"), row(4, "held", "B3")],
    errors: [{ line: 5, field: "amount", rule: "not a number", value: "abc" }],
    toSend: 1,
    paid: 1,
    lookUp: 0,
    held: 1,
    totals: [{ currency: "MXN", count: 1, amount: "10.00", feeEstimate: null, feeFrom: null }],
    heldTotals: [
      {
        currency: "MXN",
        count: 1,
        amount: "10.00",
        feeEstimate: "1.50",
        feeFrom: "PO-9",
      },
    ],
    digest: "d-send",
    digestWithHeld: "d-send-and-held",
    heldFirm: 0,
    funds: [],
  },
};

const outcome: BulkOutcome = {
  resultPath: "/tmp/p.result.csv",
  results: [
    { line: 2, merOrderNo: "B1", status: "accepted", tradeNo: "T1", detail: "" },
    { line: 3, merOrderNo: "B2", status: "accepted", tradeNo: "T0", detail: "paid before" },
    { line: 4, merOrderNo: "B3", status: "accepted", tradeNo: "T3", detail: "" },
    { line: 5, merOrderNo: "", status: "invalid", tradeNo: "", detail: "amount: not a number" },
  ],
};

describe("the bulk tab", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("previews the plan, confirms with the held rows only when ticked, and shows each row's outcome", async () => {
    invoke.mockImplementation((cmd: string) => {
      if (cmd === "bulk_check") return Promise.resolve(checked);
      if (cmd === "bulk_send") return Promise.resolve(outcome);
      if (cmd === "bulk_result_open") return Promise.resolve(null);
      return Promise.reject({ code: "internal", message: `unexpected ${cmd}` });
    });
    renderUi(<Bulk />);
    fireEvent.change(screen.getByTestId("bulk-path"), { target: { value: "/tmp/p.csv" } });
    fireEvent.click(screen.getByTestId("bulk-check"));
    const preview = await screen.findByTestId("bulk-preview");
    expect(preview.getAttribute("data-rows")).toBe("3");
    expect(preview.getAttribute("data-errors")).toBe("1");
    // A CLABE row carries no name: said so, not replaced by the bank.
    const named = within(preview).getAllByTestId("bulk-beneficiary")[0];
    expect(named?.textContent).toContain("None");
    expect(named?.textContent).not.toContain("BANAMEX");
    expect(within(preview).getByTestId("bulk-totals").textContent).toContain(
      "Fees not given by the gateway before sending",
    );
    expect(
      [...preview.querySelectorAll("[data-action]")].map((r) => r.getAttribute("data-action")),
    ).toEqual(["send", "paid", "held"]);
    // Why a row is held, in the user's words, not the desk's English line.
    const reasons = within(preview).getAllByTestId("bulk-row-reason");
    expect(reasons[2]?.textContent).toBe(
      "The same payout as PO-OLD (Accepted, 5 minutes ago). Sent only when you confirm it is a new payout.",
    );

    fireEvent.click(screen.getByTestId("bulk-send"));
    const confirm = await screen.findByTestId("bulk-confirm");
    expect(invoke.mock.calls.some(([c]) => c === "bulk_send")).toBe(false);
    const includeHeld = within(confirm).getByTestId("bulk-include-held");
    expect(includeHeld).toHaveProperty("checked", false);
    fireEvent.click(includeHeld);
    const send = within(confirm).getByTestId("bulk-confirm-send");
    expect(send.textContent).toBe("Send 2 payouts");
    fireEvent.click(send);

    const result = await screen.findByTestId("bulk-result");
    expect(result.getAttribute("data-accepted")).toBe("3");
    expect(result.getAttribute("data-invalid")).toBe("1");
    expect(result.getAttribute("data-held")).toBe("0");
    const [, args] = invoke.mock.calls.find(([c]) => c === "bulk_send") ?? [];
    expect(args).toMatchObject({
      path: "/tmp/p.csv",
      includeHeld: true,
      expected: "d-send-and-held",
    });
    expect(
      [...preview.querySelectorAll("[data-outcome]")].map((r) => r.getAttribute("data-outcome")),
    ).toEqual(["accepted", "accepted", "accepted"]);

    fireEvent.click(screen.getByTestId("bulk-open-result"));
    await waitFor(() =>
      expect(invoke.mock.calls.find(([c]) => c === "bulk_result_open")?.[1]).toEqual({
        path: "/tmp/p.result.csv",
      }),
    );
  });
});

const entry = (over: Partial<Entry>): Entry => ({
  id: 4,
  profile: "sandbox",
  operation: "v2.payout",
  merOrderNo: "PO-1",
  request: {},
  summary: "payout CLABE 77.00 MXN",
  status: "pending",
  tradeNo: null,
  code: null,
  message: "not found at the gateway after 3 lookups",
  attempts: 3,
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  nextCheckAt: null,
  fingerprint: "f",
  sentAt: 1_700_000_000_000,
  lookups: 3,
  canBeLookedUp: true,
  purpose: null,
  resolution: null,
  ...over,
});

const receipt = (e: Entry): Receipt => ({
  entry: e,
  replayed: false,
  tradeNo: e.tradeNo,
  payUrl: null,
  bank: null,
  fee: null,
  message: null,
});

describe("a single payout", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("is sent again under the same number once proven not at the gateway", async () => {
    let creates = 0;
    invoke.mockImplementation((cmd: string) => {
      if (cmd === "app_status") return Promise.reject({ code: "internal", message: "none" });
      if (cmd === "order_no_new") return Promise.resolve("PO-1");
      if (cmd === "payout_preview") {
        return Promise.resolve({
          kind: "CLABE",
          merOrderNo: "PO-1",
          amount: "77.00",
          currency: "MXN",
          beneficiary: "",
          account: "002010******7771",
          bank: "BANAMEX",
          estimatedFee: "1.50",
          estimatedFeeFrom: "PO-0",
          estimatedTotal: "78.50",
        });
      }
      if (cmd === "payout_create") {
        creates += 1;
        return Promise.resolve(
          receipt(
            creates === 1
              ? entry({})
              : entry({ status: "accepted", tradeNo: "T9", updatedAt: 1_700_000_009_000 }),
          ),
        );
      }
      return Promise.reject({ code: "internal", message: `unexpected ${cmd}` });
    });
    renderUi(<OnePayout kind="CLABE" />);
    await waitFor(() => expect(invoke.mock.calls.some(([c]) => c === "order_no_new")).toBe(true));
    fireEvent.change(screen.getByTestId("payout-amount"), { target: { value: "77.00" } });
    fireEvent.change(screen.getByTestId("payout-clabe"), {
      target: { value: "002010077777777771" },
    });
    await waitFor(() => expect(screen.getByDisplayValue("PO-1")).toBeTruthy());
    fireEvent.click(screen.getByTestId("payout-review"));
    // The confirmation says what the payout likely costs and debits, and from where.
    const fee = await screen.findByTestId("confirm-fee");
    expect(fee.textContent).toContain("MXN 1.50");
    expect(fee.textContent).toContain("PO-0");
    expect(screen.getByTestId("confirm-total").textContent).toContain("MXN 78.50");
    fireEvent.click(await screen.findByTestId("payout-send"));

    const retry = await screen.findByTestId("payout-retry-same");
    expect(screen.getByTestId("receipt-next").getAttribute("data-step")).toBe("pending");
    fireEvent.click(retry);
    await waitFor(() =>
      expect(screen.getByTestId("receipt").getAttribute("data-status")).toBe("accepted"),
    );
    const sent = invoke.mock.calls.filter(([c]) => c === "payout_create").map(([, a]) => a);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual(sent[0]);
    expect(sent[1]).toMatchObject({ form: { merOrderNo: "PO-1" }, allowDuplicate: false });
    expect(screen.queryByTestId("payout-retry-same")).toBeNull();
  });
});

describe("the payout tabs", () => {
  beforeEach(() => {
    invoke.mockReset();
    invoke.mockImplementation((cmd: string) => {
      if (cmd === "order_no_new") return Promise.resolve("PO-1");
      if (cmd === "journal_list") return Promise.resolve([]);
      return Promise.reject({ code: "internal", message: `unexpected ${cmd}` });
    });
  });

  it("keep what was typed in each tab when another one is opened and left", async () => {
    renderUi(
      <MemoryRouter>
        <PayoutsPage />
      </MemoryRouter>,
    );
    const typeIn = (testId: string, value: string) =>
      fireEvent.change(screen.getByTestId(testId), { target: { value } });
    typeIn("payout-amount", "12.34");
    typeIn("payout-card-no", "4111111111111111");
    fireEvent.click(screen.getByTestId("tab-clabe"));
    await screen.findByTestId("payout-clabe");
    expect(screen.getByTestId("payout-amount")).toHaveProperty("value", "");
    typeIn("payout-amount", "77.00");
    typeIn("payout-clabe", "002010077777777771");
    fireEvent.click(screen.getByTestId("tab-bulk"));
    typeIn("bulk-path", "/tmp/p.csv");

    fireEvent.click(screen.getByTestId("tab-card"));
    await screen.findByTestId("payout-card-no");
    expect(screen.getByTestId("payout-amount")).toHaveProperty("value", "12.34");
    expect(screen.getByTestId("payout-card-no")).toHaveProperty("value", "4111111111111111");
    fireEvent.click(screen.getByTestId("tab-clabe"));
    await screen.findByTestId("payout-clabe");
    expect(screen.getByTestId("payout-amount")).toHaveProperty("value", "77.00");
    expect(screen.getByTestId("payout-clabe")).toHaveProperty("value", "002010077777777771");
    expect(screen.getByTestId("payout-currency")).toHaveProperty("value", "MXN · Mexican Peso");
    fireEvent.click(screen.getByTestId("tab-bulk"));
    expect(screen.getByTestId("bulk-path")).toHaveProperty("value", "/tmp/p.csv");
    // One of each field on screen: the hidden tabs' fields are not in the page.
    expect(screen.queryAllByTestId("payout-amount")).toHaveLength(0);
  });

  it("open on a bulk run named in the address (from the Dashboard), its file checked at once", async () => {
    renderUi(
      <MemoryRouter initialEntries={["/payouts?bulk=%2Ftmp%2Fheld.csv"]}>
        <PayoutsPage />
      </MemoryRouter>,
    );
    expect(await screen.findByTestId("bulk-path")).toHaveProperty("value", "/tmp/held.csv");
    await waitFor(() =>
      expect(invoke).toHaveBeenCalledWith(
        "bulk_check",
        expect.objectContaining({ path: "/tmp/held.csv" }),
      ),
    );
    expect(invoke.mock.calls.filter(([cmd]) => cmd === "bulk_check")).toHaveLength(1);
  });
});

describe("a payout's field errors", () => {
  beforeEach(() => {
    invoke.mockReset();
    invoke.mockImplementation((cmd: string) => {
      if (cmd === "order_no_new") return Promise.resolve("PO-1");
      if (cmd === "payout_preview") {
        return Promise.reject({ code: "validation", field: "amount", rule: "not a number" });
      }
      return Promise.reject({ code: "internal", message: `unexpected ${cmd}` });
    });
  });

  it("go as soon as the field they name is changed, and stay while others are", async () => {
    renderUi(<OnePayout kind="CLABE" />);
    await waitFor(() => expect(screen.getByDisplayValue("PO-1")).toBeTruthy());
    const amount = screen.getByTestId("payout-amount");
    fireEvent.change(amount, { target: { value: "7x" } });
    fireEvent.change(screen.getByTestId("payout-clabe"), {
      target: { value: "002010077777777771" },
    });
    fireEvent.click(screen.getByTestId("payout-review"));
    expect(await screen.findByTestId("payout-field-error")).toBeTruthy();
    expect(amount.getAttribute("aria-invalid")).toBe("true");

    fireEvent.change(screen.getByTestId("payout-clabe"), {
      target: { value: "002010077777777772" },
    });
    expect(amount.getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByTestId("payout-field-error")).toBeTruthy();

    fireEvent.change(amount, { target: { value: "77.00" } });
    expect(amount.getAttribute("aria-invalid")).not.toBe("true");
    expect(screen.queryByTestId("payout-field-error")).toBeNull();

    // Sent again and refused again: the new refusal shows.
    fireEvent.click(screen.getByTestId("payout-review"));
    expect(await screen.findByTestId("payout-field-error")).toBeTruthy();
    expect(amount.getAttribute("aria-invalid")).toBe("true");
  });
});

describe("the recent payouts", () => {
  it("write each payout's money in the desk's one format, not as the backend typed it", async () => {
    invoke.mockReset();
    invoke.mockImplementation((cmd: string) =>
      cmd === "journal_list"
        ? Promise.resolve([
            entry({
              summary: "payout CLABE 1500 MXN to 002010******7771",
              request: { sourceAmount: "1500", currencyCode: "MXN", clabe: "002010******7771" },
            }),
          ])
        : Promise.reject({ code: "internal", message: `unexpected ${cmd}` }),
    );
    renderUi(<RecentPayouts />);
    const row = await screen.findByText(/CLABE payout/);
    expect(row.textContent).toBe("CLABE payout MXN 1,500.00 to 002010******7771");
  });
});
