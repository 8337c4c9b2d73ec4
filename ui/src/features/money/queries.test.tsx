import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderHook, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Entry } from "../../lib/types";
import { invoke } from "../../test/tauri";
import { useReconcile } from "./queries";

const unknown: Entry = {
  id: 7,
  profile: "sandbox",
  operation: "v2.payout",
  merOrderNo: "PO-7",
  request: {},
  summary: "",
  status: "unknown",
  tradeNo: null,
  code: null,
  message: null,
  attempts: 1,
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_000,
  nextCheckAt: null,
  fingerprint: "",
  sentAt: 1_700_000_000_000,
  lookups: 0,
  resolution: null,
  canBeLookedUp: true,
  purpose: null,
};

describe("an unknown outcome reconciled", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  // The receipt once said ACCEPTED while the payouts table beside it still said
  // UNKNOWN OUTCOME, and the new order was not in Orders or the palette.
  it("refreshes every list that shows the entry or its order", async () => {
    invoke.mockImplementation((cmd: string) =>
      cmd === "journal_reconcile"
        ? Promise.resolve({
            ...unknown,
            status: "accepted",
            tradeNo: "T7",
            updatedAt: 1_700_000_005_000,
          })
        : Promise.resolve([]),
    );
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const invalidated = vi.spyOn(client, "invalidateQueries");
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={client}>{children}</QueryClientProvider>
    );
    const { result } = renderHook(() => useReconcile(unknown), { wrapper });
    await waitFor(() => expect(result.current.data?.status).toBe("accepted"));
    await waitFor(() => {
      const keys = invalidated.mock.calls.map(([f]) => JSON.stringify(f?.queryKey));
      for (const k of ['["journal"]', '["orders"]', '["palette"]', '["dashboard"]']) {
        expect(keys).toContain(k);
      }
    });
  });
});
