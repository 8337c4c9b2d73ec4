import { useCallback, useEffect, useRef, useState } from "react";
import { useLastView, useUseView } from "./queries";
import type { SavedView, Screen } from "./types";

/// The view a screen shows: the one it used last, applied once when the screen opens
/// (its relative dates resolved today), then whatever the user picks, kept for the next
/// time the screen opens.
export function useScreenView(
  screen: Screen,
  apply: (view: SavedView | null) => void,
  /// The screen was opened with what to show (another screen's link): no last view.
  skipLast = false,
) {
  const last = useLastView(screen);
  const keep = useUseView();
  const [selected, setSelected] = useState<SavedView | null>(null);
  const applied = useRef(false);
  const applyRef = useRef(apply);
  applyRef.current = apply;
  useEffect(() => {
    if (applied.current || !last.isSuccess) return;
    applied.current = true;
    if (last.data && !skipLast) {
      setSelected(last.data);
      applyRef.current(last.data);
    }
  }, [last.isSuccess, last.data, skipLast]);
  const select = useCallback(
    (view: SavedView | null) => {
      setSelected(view);
      applyRef.current(view);
      keep(screen, view?.id ?? null);
    },
    [keep, screen],
  );
  return { selected, select, ready: last.isSuccess || last.isError };
}
