import { useMutation } from "@tanstack/react-query";
import { Channel } from "@tauri-apps/api/core";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import type { BulkProgress, PayoutForm, Purpose } from "../../lib/types";
import { type Settled, useMoneyMutation } from "../money/queries";

/// The payout as the gateway will be asked for it, checked and masked, for confirming.
export function usePayoutPreview() {
  return useMutation({ mutationFn: (f: PayoutForm) => unwrap(commands.payoutPreview(f)) });
}

/// `loseAnswer` (sandbox only) has the sandbox drop the answer after doing the payout.
export function useCreatePayout(onSettled?: Settled) {
  return useMoneyMutation(
    "payoutCreate",
    (v: { form: PayoutForm; loseAnswer: boolean; allowDuplicate: boolean }) =>
      unwrap(commands.payoutCreate(v.form, v.loseAnswer, v.allowDuplicate)),
    onSettled,
  );
}

/// `purpose`: the run's (issue 35), for rows whose file gives none.
export function useBulkCheck() {
  return useMutation({
    mutationFn: (v: { path: string; purpose: Purpose | null }) =>
      unwrap(commands.bulkCheck(v.path, v.purpose)),
  });
}

export function useBulkSend(onProgress: (p: BulkProgress) => void) {
  return useMoneyMutation(
    "bulkSend",
    (v: { path: string; includeHeld: boolean; expected: string; purpose: Purpose | null }) => {
      const channel = new Channel<BulkProgress>();
      channel.onmessage = onProgress;
      return unwrap(commands.bulkSend(v.path, v.includeHeld, v.expected, v.purpose, channel));
    },
  );
}

/// Writes an empty bulk file (its header row) to the downloads folder; answers its path.
export function useBulkTemplate() {
  return useMutation({ mutationFn: () => unwrap(commands.bulkTemplate()) });
}

export function useOpenBulkResult(onError: (e: unknown) => void) {
  return useMutation({
    mutationFn: (path: string) => unwrap(commands.bulkResultOpen(path)),
    onError,
  });
}

/// The bulk file the user picks in the system's file dialog (none if cancelled).
export function pickBulkFile() {
  return unwrap(commands.filesPick("bulk"));
}

/// Writes `value` into a bulk file's row `e.line`, field `e.field` (the core checks it).
export function useBulkFix(
  path: string,
  e: { line: number; field: string },
  value: string,
  options: { onSuccess: () => void },
  purpose: Purpose | null = null,
) {
  return useMutation({
    mutationFn: () => unwrap(commands.bulkFix(path, e.line, e.field, value, purpose)),
    onSuccess: options.onSuccess,
  });
}
