import { useCallback, useMemo, useState } from "react";
import { useResolveRange } from "./queries";
import type { RelativeRange, SavedView, Screen, ViewSort, ViewSpec } from "./types";
import { useScreenView } from "./useScreenView";

/// A column of a screen's table: its id (what a view keeps), its header's catalogue key,
/// its width in pixels, and whether it sorts.
export interface TableColumn {
  id: string;
  label: string;
  width: number;
  sortable?: boolean;
  /// The values its header's words name (a time zone).
  labelParams?: () => Record<string, string>;
}

/// The columns as arranged: their order, those hidden, widths changed.
export interface Arrangement {
  order: string[];
  hidden: string[];
  widths: Record<string, number>;
}

/// What a screen with a plain table keeps in a view: its filters by field, its dates
/// (relative, resolved in the business's zone, or none), its columns and its sort. The
/// last view comes back when the screen opens. Sorting and the dates apply to the rows
/// the screen has (`rows` below).
export function useTableView(
  screen: Screen,
  columns: TableColumn[],
  defaults: { fields: Record<string, string>; sort: ViewSort | null },
  /// The screen was opened with what to show (another screen's link): no last view.
  skipLast = false,
) {
  const ids = useMemo(() => columns.map((c) => c.id), [columns]);
  const fresh = useCallback(
    (): Arrangement => ({ order: [...ids], hidden: [], widths: {} }),
    [ids],
  );
  const [fields, setFields] = useState<Record<string, string>>(defaults.fields);
  const [relative, setRelative] = useState<RelativeRange | null>(null);
  const [range, setRangeMs] = useState<{ from: number | null; to: number | null }>({
    from: null,
    to: null,
  });
  const [arrangement, setArrangement] = useState<Arrangement>(fresh);
  const [sort, setSort] = useState<ViewSort | null>(defaults.sort);
  const [applied, setApplied] = useState(0);
  const resolve = useResolveRange();

  const apply = useCallback(
    (v: SavedView | null) => {
      if (v === null) {
        setFields(defaults.fields);
        setRelative(null);
        setRangeMs({ from: null, to: null });
        setArrangement(fresh());
        setSort(defaults.sort);
      } else {
        const s = v.spec;
        setFields({ ...defaults.fields, ...s.fields });
        setRelative(s.dates?.kind === "relative" ? s.dates.range : null);
        setRangeMs({ from: v.from, to: v.to });
        if (s.columns.length > 0) {
          const shown = s.columns.map((c) => c.id).filter((id) => ids.includes(id));
          const widths: Record<string, number> = {};
          for (const c of s.columns) if (c.width !== null) widths[c.id] = c.width;
          setArrangement({
            order: [...shown, ...ids.filter((id) => !shown.includes(id))],
            hidden: ids.filter((id) => !shown.includes(id)),
            widths,
          });
        } else {
          setArrangement(fresh());
        }
        setSort(s.sort ?? defaults.sort);
      }
      setApplied((n) => n + 1);
    },
    [defaults, fresh, ids],
  );
  const view = useScreenView(screen, apply, skipLast);

  const current = useCallback(
    (): ViewSpec => ({
      orderFilter: null,
      fields,
      dates: relative
        ? { kind: "relative", range: relative }
        : range.from !== null || range.to !== null
          ? { kind: "fixed", from: range.from, to: range.to }
          : null,
      columns: arrangement.order
        .filter((id) => !arrangement.hidden.includes(id))
        .map((id) => ({ id, width: arrangement.widths[id] ?? null })),
      sort,
    }),
    [fields, relative, range, arrangement, sort],
  );

  const setField = useCallback(
    (name: string, value: string) => setFields((f) => ({ ...f, [name]: value })),
    [],
  );
  const setDates = useCallback(
    (r: RelativeRange | null) => {
      if (r === null) {
        setRelative(null);
        setRangeMs({ from: null, to: null });
        return;
      }
      void resolve(r).then((p) => {
        setRelative(r);
        setRangeMs({ from: p.from, to: p.to });
      });
    },
    [resolve],
  );
  const toggle = useCallback(
    (id: string, visible: boolean) =>
      setArrangement((a) => ({
        ...a,
        hidden: visible
          ? a.hidden.filter((x) => x !== id)
          : a.hidden.length + 1 >= a.order.length
            ? a.hidden
            : [...new Set([...a.hidden, id])],
      })),
    [],
  );
  const move = useCallback(
    (id: string, by: -1 | 1) =>
      setArrangement((a) => {
        const i = a.order.indexOf(id);
        const j = i + by;
        if (i < 0 || j < 0 || j >= a.order.length) return a;
        const order = [...a.order];
        [order[i], order[j]] = [order[j] as string, order[i] as string];
        return { ...a, order };
      }),
    [],
  );
  const resize = useCallback(
    (widths: Record<string, number>) =>
      setArrangement((a) => ({ ...a, widths: { ...a.widths, ...widths } })),
    [],
  );
  /// A header's click: sorts by its column, then the other way.
  const sortBy = useCallback(
    (key: string) =>
      setSort((s) =>
        s?.key === key ? { key, descending: !s.descending } : { key, descending: false },
      ),
    [],
  );

  const shown = useMemo(
    () =>
      arrangement.order
        .filter((id) => !arrangement.hidden.includes(id))
        .map((id) => columns.find((c) => c.id === id))
        .filter((c): c is TableColumn => c !== undefined)
        .map((c) => ({ ...c, width: arrangement.widths[c.id] ?? c.width })),
    [arrangement, columns],
  );

  /// `rows` within the dates, sorted as chosen (`value` reads a row's sort value).
  const rows = useCallback(
    <R>(
      all: R[],
      at: (r: R) => number,
      value: (id: string, r: R) => string | number | null,
    ): R[] => {
      const within = all.filter((r) => {
        const t = at(r);
        return (range.from === null || t >= range.from) && (range.to === null || t < range.to);
      });
      if (!sort) return within;
      const dir = sort.descending ? -1 : 1;
      return [...within].sort((a, b) => {
        const x = value(sort.key, a);
        const y = value(sort.key, b);
        if (x === y) return 0;
        if (x === null) return 1;
        if (y === null) return -1;
        return (x < y ? -1 : 1) * dir;
      });
    },
    [range, sort],
  );

  return {
    view,
    current,
    applied,
    fields,
    setField,
    relative,
    setDates,
    arrangement,
    toggle,
    move,
    resize,
    sort,
    sortBy,
    shown,
    rows,
    columns,
  };
}

export type TableView = ReturnType<typeof useTableView>;
