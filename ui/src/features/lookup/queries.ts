import { useMutation } from "@tanstack/react-query";
import { Channel } from "@tauri-apps/api/core";
import { commands, type LookupOptions, type LookupProgress } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";
import type { LookupReport } from "./types";

/// A bulk look-up: the cache, then the gateway in batched list requests. It can update
/// cached orders, so what `ordersLookup` declares stale is read again.
export function useLookup(onProgress: (p: LookupProgress) => void) {
  return useCommandMutation(
    "ordersLookup",
    ({ text, options }: { text: string; options: LookupOptions }) => {
      const channel = new Channel<LookupProgress>();
      channel.onmessage = onProgress;
      return unwrap(commands.ordersLookup(text, options, channel));
    },
  );
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
