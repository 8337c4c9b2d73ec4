import { useLocalStorage } from "@mantine/hooks";
import { useCallback } from "react";

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

/// The columns the user hid, kept on this machine across restarts.
export function useHiddenColumns() {
  const [hidden, setHidden] = useLocalStorage<string[]>({
    key: KEY,
    defaultValue: [],
    // Read at once: a first render with every column, then the user's, would flash.
    getInitialValueInEffect: false,
  });
  const toggle = useCallback(
    (id: string, visible: boolean) =>
      setHidden((h) => (visible ? h.filter((x) => x !== id) : [...new Set([...h, id])])),
    [setHidden],
  );
  return { hidden, toggle };
}
