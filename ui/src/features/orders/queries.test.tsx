import { act, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import type { SyncProgress } from "../../lib/types";
import { renderQueryHook } from "../../test/render";
import { invoke } from "../../test/tauri";
import { EMPTY_FILTER, PAGE_SIZE, useOrderPages, useSync, useSyncProgress } from "./queries";

const page = (offset: number, total: number) => ({
  rows: [],
  total,
  offset,
});

describe("orders queries over IPC", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("read the first page and every visible page of the filter", async () => {
    invoke.mockImplementation((_cmd: string, args: { offset: number }) =>
      Promise.resolve(page(args.offset, 1_000_000)),
    );
    const filter = { ...EMPTY_FILTER, currencies: ["USD"] };
    const { result } = renderQueryHook(() => useOrderPages(filter, [0, 4_200, 4_201]));
    await waitFor(() => expect(result.current.first.data?.total).toBe(1_000_000));
    await waitFor(() => expect(result.current.rest.every((q) => q.isSuccess)).toBe(true));
    const offsets = invoke.mock.calls.map(([cmd, args]) => {
      expect(cmd).toBe("orders_page");
      expect(args.filter).toEqual(filter);
      expect(args.limit).toBe(PAGE_SIZE);
      return args.offset;
    });
    expect(offsets.sort((a, b) => a - b)).toEqual([0, 420_000, 420_100]);
  });

  it("turn a command's error into a query error with the core's code", async () => {
    invoke.mockRejectedValue({ code: "validation", field: "minAmount", rule: "is not a number" });
    const { result } = renderQueryHook(() =>
      useOrderPages({ ...EMPTY_FILTER, minAmount: "x" }, []),
    );
    await waitFor(() => expect(result.current.first.isError).toBe(true));
    expect(result.current.first.error).toMatchObject({
      core: { code: "validation", field: "minAmount" },
    });
  });

  it("pass sync progress from the channel to the screen", async () => {
    const seen: (SyncProgress | null)[] = [];
    const progress = {
      windowsDone: 3,
      windowsTotal: 90,
      pages: 3,
      orders: 1500,
      ordersPerSecond: 750,
      etaSeconds: 2,
      ordersExpected: 1500,
      requests: 4,
    };
    invoke.mockImplementation(
      (cmd: string, args: { onProgress: { onmessage: (p: SyncProgress) => void } }) => {
        expect(cmd).toBe("orders_sync");
        args.onProgress.onmessage(progress);
        return Promise.resolve({
          progress,
          windowsSkipped: 0,
          changed: 12,
          reread: 0,
          seconds: 2,
          writeSeconds: 1,
          requests: 4,
          retries: 0,
          refusedCount: 0,
          refused: [],
          windowsReread: 0,
          incompleteCount: 0,
          incomplete: [],
        });
      },
    );
    const { result } = renderQueryHook(() => ({ sync: useSync(), progress: useSyncProgress() }));
    await act(() => result.current.sync.mutateAsync({ days: 90, full: false }));
    seen.push(result.current.progress);
    expect(seen).toEqual([progress]);
    expect(invoke.mock.calls[0]?.[1]).toMatchObject({ days: 90, full: false });
  });
});
