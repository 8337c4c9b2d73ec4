import { useLocalStorage } from "@mantine/hooks";
import { useCallback, useMemo } from "react";

/// The orders table's columns, in order, each with its header's catalogue key and its
/// width in pixels: wide enough for its longest value in either language (a state badge
/// such as "Partly refunded" is never cut) and for its header.
export const ORDER_COLUMNS = [
  { id: "createdAt", label: "orders.col.created", size: 140 },
  { id: "kind", label: "orders.col.kind", size: 130 },
  { id: "tradeNo", label: "orders.col.tradeNo", size: 175 },
  { id: "merOrderNo", label: "orders.col.merOrderNo", size: 175 },
  { id: "state", label: "orders.col.state", size: 165 },
  { id: "method", label: "orders.col.method", size: 105 },
  { id: "sourceAmount", label: "orders.col.amount", size: 150 },
  { id: "fee", label: "orders.col.fee", size: 110 },
  { id: "settle", label: "orders.col.settle", size: 115 },
  { id: "signature", label: "orders.col.signature", size: 95 },
] as const;

export type OrderColumn = (typeof ORDER_COLUMNS)[number]["id"];

const KEY = "paydesk.orders.hiddenColumns";
const LAYOUT_KEY = "paydesk.orders.columnLayout";

/// The columns as the user arranged them: their order, those hidden, widths changed.
export interface ColumnLayout {
  order: string[];
  hidden: string[];
  widths: Record<string, number>;
}

const ALL_IDS: string[] = ORDER_COLUMNS.map((c) => c.id);

/// A layout with every known column in it once (a saved one may predate a column).
export function normalLayout(l: Partial<ColumnLayout>): ColumnLayout {
  const order = (l.order ?? []).filter((id) => ALL_IDS.includes(id));
  for (const id of ALL_IDS) if (!order.includes(id)) order.push(id);
  const hidden = (l.hidden ?? []).filter((id) => ALL_IDS.includes(id));
  // The last column shown is never hidden.
  if (hidden.length >= ALL_IDS.length) hidden.pop();
  return { order, hidden, widths: { ...(l.widths ?? {}) } };
}

/// The layout of a view's columns (shown, in order, with widths); the rest hidden.
export function layoutOfView(columns: { id: string; width: number | null }[]): ColumnLayout {
  const shown = columns.map((c) => c.id).filter((id) => ALL_IDS.includes(id));
  if (shown.length === 0) return normalLayout({});
  const widths: Record<string, number> = {};
  for (const c of columns) if (c.width !== null) widths[c.id] = c.width;
  return normalLayout({
    order: shown,
    hidden: ALL_IDS.filter((id) => !shown.includes(id)),
    widths,
  });
}

/// A layout's columns as a view keeps them: those shown, in order, with their widths.
export function viewColumns(l: ColumnLayout): { id: string; width: number | null }[] {
  return l.order
    .filter((id) => !l.hidden.includes(id))
    .map((id) => ({ id, width: l.widths[id] ?? null }));
}

/// The orders table's columns as the user arranged them, kept on this machine across
/// restarts (a saved view keeps them too).
export function useColumnLayout() {
  const [old] = useLocalStorage<string[]>({
    key: KEY,
    defaultValue: [],
    getInitialValueInEffect: false,
  });
  const [stored, setStored] = useLocalStorage<ColumnLayout>({
    key: LAYOUT_KEY,
    defaultValue: normalLayout({ hidden: old }),
    // Read at once: a first render with every column, then the user's, would flash.
    getInitialValueInEffect: false,
  });
  const layout = useMemo(() => normalLayout(stored), [stored]);
  const toggle = useCallback(
    (id: string, visible: boolean) =>
      setStored((l) => {
        const n = normalLayout(l);
        return {
          ...n,
          hidden: visible ? n.hidden.filter((x) => x !== id) : [...new Set([...n.hidden, id])],
        };
      }),
    [setStored],
  );
  /// Moves a column one place earlier (-1) or later (+1).
  const move = useCallback(
    (id: string, by: -1 | 1) =>
      setStored((l) => {
        const n = normalLayout(l);
        const i = n.order.indexOf(id);
        const j = i + by;
        if (i < 0 || j < 0 || j >= n.order.length) return n;
        const order = [...n.order];
        [order[i], order[j]] = [order[j] as string, order[i] as string];
        return { ...n, order };
      }),
    [setStored],
  );
  const resize = useCallback(
    (widths: Record<string, number>) =>
      setStored((l) => {
        const n = normalLayout(l);
        const w: Record<string, number> = { ...n.widths };
        for (const [id, px] of Object.entries(widths)) {
          w[id] = Math.round(Math.min(1000, Math.max(40, px)));
        }
        return { ...n, widths: w };
      }),
    [setStored],
  );
  const replace = useCallback((l: ColumnLayout) => setStored(normalLayout(l)), [setStored]);
  return { layout, toggle, move, resize, replace };
}
