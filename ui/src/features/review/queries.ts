import { useQuery } from "@tanstack/react-query";
import { getCurrentWebview } from "@tauri-apps/api/webview";
import { useEffect, useState } from "react";
import { commands } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";
import type { ReviewRequest } from "../../lib/types";
import { type Settled, useMoneyMutation } from "../money/queries";
import { reviewKeys } from "./keys";

/// The submissions made, of one order when `tradeNo` is given.
export function useReviewList(tradeNo: string) {
  return useQuery({
    queryKey: reviewKeys.list(tradeNo),
    queryFn: () => unwrap(commands.reviewList(tradeNo || null)),
  });
}

/// The review queue: bank-transfer orders that need or have review documents.
export function useReviewQueue() {
  return useQuery({
    queryKey: reviewKeys.queue,
    queryFn: () => unwrap(commands.reviewQueue()),
    // Ages move on while the screen is open.
    refetchInterval: 60_000,
  });
}

/// Files for several orders, each matched by the order number in its name.
export function matchReviewFiles(paths: string[]) {
  return unwrap(commands.reviewMatch(paths));
}

/// Sends a queued submission again, under its reference.
export function useReviewResend(onError: (e: unknown) => void) {
  return useCommandMutation(
    "reviewResend",
    (reference: string) => unwrap(commands.reviewResend(reference)),
    { evenOnError: true, onError },
  );
}

export function useReviewSubmit(onSettled?: Settled) {
  return useMoneyMutation(
    "reviewSubmit",
    (v: { reference: string; request: ReviewRequest; allowDuplicate: boolean }) =>
      unwrap(commands.reviewSubmit(v.reference, v.request, v.allowDuplicate)),
    onSettled,
  );
}

/// A file for a submission, read and checked in Rust (size, type by content), never in
/// the web view.
export function checkReviewFile(path: string) {
  return unwrap(commands.reviewFileCheck(path));
}

/// The files the user picks in the system's file dialog (none if cancelled).
export function pickReviewFiles() {
  return unwrap(commands.filesPick("review"));
}

/// Files dropped on the window, handed to `onDrop`; whether something is being dragged
/// over it, and whether the window delivers dropped files at all (listening may be
/// refused).
export function useDroppedFiles(onDrop: (paths: string[]) => unknown) {
  const [dragging, setDragging] = useState(false);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    let unlisten: (() => void) | undefined;
    let gone = false;
    getCurrentWebview()
      .onDragDropEvent((e) => {
        if (e.payload.type === "enter" || e.payload.type === "over") setDragging(true);
        else if (e.payload.type === "leave") setDragging(false);
        else {
          setDragging(false);
          void onDrop(e.payload.paths);
        }
      })
      .then((u) => {
        if (gone) u();
        else {
          unlisten = u;
          setReady(true);
        }
      })
      .catch(() => setReady(false));
    return () => {
      gone = true;
      unlisten?.();
    };
  }, [onDrop]);
  return { dragging, ready };
}
