import { useMutation } from "@tanstack/react-query";
import { Channel } from "@tauri-apps/api/core";
import { commands, type LookupOptions, type LookupProgress } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import { useInvalidateOrders } from "../orders/queries";
import type { LookupReport } from "./types";

/// A bulk look-up: the cache, then the gateway in batched list requests. It can update
/// cached orders, so the order lists are refreshed after it.
export function useLookup(onProgress: (p: LookupProgress) => void) {
  const invalidate = useInvalidateOrders();
  return useMutation({
    mutationFn: ({ text, options }: { text: string; options: LookupOptions }) => {
      const channel = new Channel<LookupProgress>();
      channel.onmessage = onProgress;
      return unwrap(commands.ordersLookup(text, options, channel));
    },
    onSettled: (report) => {
      if (report && report.cacheUpdated > 0) void invalidate();
    },
  });
}

export const cancelLookup = () => unwrap(commands.ordersLookupCancel());

export const suggestedLookupPath = (format: "csv" | "xlsx") =>
  unwrap(commands.defaultExportPath("lookup", format));

export function useLookupExport() {
  return useMutation({
    mutationFn: ({ report, path }: { report: LookupReport; path: string }) =>
      // The save dialog asked before replacing a file.
      unwrap(commands.ordersLookupExport(report, path, true)),
  });
}
