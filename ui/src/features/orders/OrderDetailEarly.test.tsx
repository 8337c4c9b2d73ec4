// The order page shows the figures the orders table already read at once, marked as the
// cache's while `order_detail` asks the gateway (issue 34: they waited for two signed
// round trips), and the gateway's answer replaces the mark when it comes.
import { MantineProvider } from "@mantine/core";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import "../../i18n";
import type { CachedOrder } from "../../lib/types";
import { invoke } from "../../test/tauri";
import { orderKeys } from "./keys";
import { OrderDetailDrawer } from "./OrderDetailDrawer";
import { EMPTY_FILTER } from "./queries";

const order: CachedOrder = {
  tradeNo: "T7",
  merOrderNo: "M7",
  state: 5,
  method: "",
  currency: "USD",
  sourceAmount: "1234.50",
  refundCurrency: "",
  settlementCurrency: "",
  refusalPayReason: "",
  message: "",
  createdAt: 1_795_000_000_000,
  syncedAt: 1_795_000_000_000,
  signatureVerified: true,
  handlingFee: null,
  receiveAmount: null,
  settleAmount: null,
  rollingReserve: null,
  transactionFixedFee: null,
  exceptionHandlingFee: null,
  refundAmount: null,
  rollingReserveStatus: null,
  settle: null,
  kind: null,
  madeAt: null,
};

function show(client: QueryClient, tradeNo: string) {
  return render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <MemoryRouter>
          <OrderDetailDrawer tradeNo={tradeNo} onClose={() => {}} />
        </MemoryRouter>
      </QueryClientProvider>
    </MantineProvider>,
  );
}

describe("the order page before the gateway answers", () => {
  afterEach(cleanup);

  it("shows the listed order's figures at once, marked as the cache's until the answer", async () => {
    let answer: (v: unknown) => void = () => {};
    invoke.mockReset();
    invoke.mockImplementation((cmd: string) => {
      if (cmd === "order_detail")
        return new Promise((r) => {
          answer = r;
        });
      return Promise.resolve(cmd === "app_status" ? null : []);
    });
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    client.setQueryData(orderKeys.page(EMPTY_FILTER, 0), { rows: [order], total: 1, offset: 0 });
    show(client, "T7");
    const early = await screen.findByTestId("detail-early");
    expect(within(early).getByText("M7")).toBeTruthy();
    expect(early.textContent).toMatch(/1,234\.50/);
    expect(screen.getByTestId("detail-checking").textContent).toBe(
      "From the cache, checking with the gateway…",
    );
    // The gateway answers: the mark is gone, its figures are shown.
    answer({
      order: { ...order, merOrderNo: "M7" },
      live: null,
      signature: "verified",
      liveError: null,
      timeline: [],
    });
    await screen.findByTestId("detail-signature");
    expect(screen.queryByTestId("detail-checking")).toBeNull();
    expect(screen.queryByTestId("detail-early")).toBeNull();
  });

  it("waits with a loader when no page read holds the order", async () => {
    invoke.mockReset();
    invoke.mockImplementation((cmd: string) =>
      cmd === "order_detail" ? new Promise(() => {}) : Promise.resolve([]),
    );
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    client.setQueryData(orderKeys.page(EMPTY_FILTER, 0), { rows: [order], total: 1, offset: 0 });
    show(client, "T8");
    await screen.findByTestId("order-detail");
    expect(screen.queryByTestId("detail-early")).toBeNull();
    expect(screen.queryByTestId("detail-checking")).toBeNull();
  });
});
