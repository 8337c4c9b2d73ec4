import {
  Badge,
  Box,
  Center,
  Skeleton,
  Text,
  ThemeIcon,
  Tooltip,
  UnstyledButton,
} from "@mantine/core";
import { IconArrowDown, IconArrowUp, IconShieldCheck, IconShieldX } from "@tabler/icons-react";
import {
  type ColumnDef,
  flexRender,
  getCoreRowModel,
  type SortingState,
  useReactTable,
  type VisibilityState,
} from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useMemo, useRef } from "react";
import { useTranslation } from "react-i18next";
import { locale } from "../../i18n";
import { formatDateTimeShort, formatMoney, formatUtcDay } from "../../lib/format";
import type { CachedOrder, OrderFilter, SortKey } from "../../lib/types";
import { StateBadge, useMeaning } from "../app/StateBadge";
import { type ColumnLayout, ORDER_COLUMNS, type OrderColumn } from "./columns";
import { PAGE_SIZE, useOrderPages } from "./queries";

/// A row's height: one line of text or a badge, so a 1280×800 window shows 20 rows.
export const ROW_HEIGHT = 28;

const columnWidth = (id: OrderColumn) => ORDER_COLUMNS.find((c) => c.id === id)?.size ?? 120;

/// A row of the visible window: loaded, or still on its way.
type Slot = { index: number; order: CachedOrder | null };

const SORTABLE: Record<string, SortKey> = {
  createdAt: "created",
  sourceAmount: "amount",
  state: "state",
  tradeNo: "tradeNo",
};

interface Props {
  filter: OrderFilter;
  onSort: (sort: SortKey, descending: boolean) => void;
  onOpen: (tradeNo: string) => void;
  /// The columns as the user arranged them (the column chooser's, or a view's).
  layout?: ColumnLayout;
  /// A column's edge dragged to a new width.
  onResize?: (widths: Record<string, number>) => void;
}

const NO_LAYOUT: ColumnLayout = { order: [], hidden: [], widths: {} };

/// What the gateway's list does not say, said as such (muted, with the reason on hover).
function NotGiven() {
  const { t } = useTranslation();
  return (
    <Tooltip label={t("orders.notGivenWhy")}>
      <Text span c="dimmed" size="sm">
        {t("orders.notGiven")}
      </Text>
    </Tooltip>
  );
}

/// The orders table: a virtual window over every cached row that matches the filter.
/// Only the rows on screen exist in the DOM, and only their pages (100 rows) are read
/// from the cache, so a million rows scroll like a hundred.
export const OrdersTable = memo(function OrdersTable({
  filter,
  onSort,
  onOpen,
  layout = NO_LAYOUT,
  onResize,
}: Props) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const read = useMeaning();
  const scrollRef = useRef<HTMLDivElement>(null);

  const firstPage = useOrderPages(filter, []).first;
  const total = firstPage.data?.total ?? 0;

  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const pages = useMemo(() => {
    const set = new Set<number>();
    for (const it of items) set.add(Math.floor(it.index / PAGE_SIZE));
    return [...set];
  }, [items]);
  const { rest } = useOrderPages(filter, pages);

  const rowAt = (index: number): CachedOrder | null => {
    const page = Math.floor(index / PAGE_SIZE);
    const data = page === 0 ? firstPage.data : rest[pages.filter((p) => p > 0).indexOf(page)]?.data;
    return data?.rows[index - page * PAGE_SIZE] ?? null;
  };
  const slots: Slot[] = items.map((it) => ({ index: it.index, order: rowAt(it.index) }));

  const columns = useMemo<ColumnDef<Slot>[]>(
    () => [
      {
        id: "createdAt",
        // An accessor makes a column sortable to the table; the cache does the sorting.
        accessorFn: (s) => s.order?.createdAt,
        header: t("orders.col.created"),
        size: columnWidth("createdAt"),
        cell: ({ row }) => {
          const o = row.original.order;
          if (!o) return null;
          // The time of day is known for orders made here; the gateway's list gives the day.
          if (o.madeAt !== null) return formatDateTimeShort(o.madeAt, loc);
          return (
            <Tooltip label={t("orders.dayOnly")}>
              <span data-testid="day-only">{formatUtcDay(o.createdAt)}</span>
            </Tooltip>
          );
        },
      },
      {
        id: "kind",
        header: t("orders.col.kind"),
        size: columnWidth("kind"),
        enableSorting: false,
        cell: ({ row }) => {
          const o = row.original.order;
          if (!o) return null;
          // On a team: an order no request of the team made says so, whatever its kind.
          if (o.outsideTeam)
            return (
              <Tooltip label={t("orders.outsideTeamWhy")} multiline w={320}>
                <Badge
                  color="orange"
                  variant="light"
                  size="sm"
                  data-testid="outside-team"
                  aria-label={t("orders.outsideTeam")}
                >
                  {t("orders.outsideTeamShort")}
                </Badge>
              </Tooltip>
            );
          return o.kind ? t(`orders.kind.${o.kind}`) : <NotGiven />;
        },
      },
      {
        id: "tradeNo",
        accessorFn: (s) => s.order?.tradeNo,
        header: t("orders.col.tradeNo"),
        size: columnWidth("tradeNo"),
        cell: ({ row }) => row.original.order?.tradeNo,
      },
      {
        id: "merOrderNo",
        header: t("orders.col.merOrderNo"),
        size: columnWidth("merOrderNo"),
        enableSorting: false,
        cell: ({ row }) => row.original.order?.merOrderNo,
      },
      {
        id: "state",
        accessorFn: (s) => s.order?.state,
        header: t("orders.col.state"),
        size: columnWidth("state"),
        cell: ({ row }) =>
          row.original.order ? (
            <StateBadge field="orderState" raw={row.original.order.state} />
          ) : null,
      },
      {
        id: "method",
        header: t("orders.col.method"),
        size: columnWidth("method"),
        enableSorting: false,
        cell: ({ row }) => {
          const o = row.original.order;
          if (!o) return null;
          return o.method ? o.method : <NotGiven />;
        },
      },
      {
        id: "sourceAmount",
        accessorFn: (s) => s.order?.sourceAmount,
        header: t("orders.col.amount"),
        size: columnWidth("sourceAmount"),
        meta: { align: "right" },
        cell: ({ row }) => {
          const o = row.original.order;
          return o ? formatMoney(o.sourceAmount, o.currency, loc) : null;
        },
      },
      {
        id: "fee",
        header: t("orders.col.fee"),
        size: columnWidth("fee"),
        enableSorting: false,
        meta: { align: "right" },
        cell: ({ row }) => {
          const o = row.original.order;
          return o?.handlingFee ? formatMoney(o.handlingFee, o.currency, loc) : "—";
        },
      },
      {
        id: "settle",
        header: t("orders.col.settle"),
        size: columnWidth("settle"),
        enableSorting: false,
        cell: ({ row }) => {
          const s = row.original.order?.settle;
          return s === null || s === undefined ? "—" : read("settle", s).label;
        },
      },
      {
        id: "signature",
        header: t("orders.col.signature"),
        size: columnWidth("signature"),
        enableSorting: false,
        cell: ({ row }) => {
          const o = row.original.order;
          if (!o) return null;
          const label = o.signatureVerified ? t("orders.verified") : t("orders.notVerified");
          return (
            <Tooltip label={label}>
              <ThemeIcon
                variant="transparent"
                color={o.signatureVerified ? "teal" : "red"}
                aria-label={label}
                role="img"
              >
                {o.signatureVerified ? <IconShieldCheck size={18} /> : <IconShieldX size={18} />}
              </ThemeIcon>
            </Tooltip>
          );
        },
      },
    ],
    [t, loc, read],
  );

  const sortColumn = Object.entries(SORTABLE).find(([, k]) => k === filter.sort)?.[0];
  const sorting: SortingState = sortColumn ? [{ id: sortColumn, desc: filter.descending }] : [];
  const columnVisibility = useMemo<VisibilityState>(
    () => Object.fromEntries(layout.hidden.map((id) => [id, false])),
    [layout.hidden],
  );
  const table = useReactTable({
    data: slots,
    columns,
    state: {
      sorting,
      columnVisibility,
      columnOrder: layout.order,
      columnSizing: layout.widths,
    },
    enableColumnResizing: true,
    // The width is taken when the edge is let go: the virtual rows are not laid out
    // again on every mouse move.
    columnResizeMode: "onEnd",
    onColumnSizingChange: (updater) => {
      const next = typeof updater === "function" ? updater(layout.widths) : updater;
      onResize?.(next);
    },
    manualSorting: true,
    // The table neither pages nor expands rows (the virtualizer and the cache do). Left
    // on, every new window of rows (a new `data` array each render) queued a reset of
    // the page index: a state update, so another render, so another reset, for ever.
    // React broke the loop with "Maximum update depth exceeded" after each keystroke,
    // and when it did not, the web view hung with the page spinning.
    autoResetAll: false,
    enableSortingRemoval: false,
    onSortingChange: (updater) => {
      const next = typeof updater === "function" ? updater(sorting) : updater;
      const s = next[0];
      const key = s ? SORTABLE[s.id] : undefined;
      if (s && key) onSort(key, s.desc);
    },
    getCoreRowModel: getCoreRowModel(),
  });
  const width = table.getTotalSize();
  const rows = table.getRowModel().rows;

  return (
    <Box
      ref={scrollRef}
      className="orders-table"
      data-testid="orders-table"
      data-total={total}
      role="region"
      aria-label={t("orders.title")}
      tabIndex={0}
    >
      <table className="vtable" style={{ width }} aria-rowcount={total + 1}>
        <thead className="vtable-head">
          {table.getHeaderGroups().map((hg) => (
            <tr key={hg.id} className="vtable-row" aria-rowindex={1}>
              {hg.headers.map((h) => {
                const header = t(ORDER_COLUMNS.find((c) => c.id === h.column.id)?.label ?? "");
                const sortable = h.column.getCanSort() && h.column.id in SORTABLE;
                const dir = h.column.getIsSorted();
                const label = flexRender(h.column.columnDef.header, h.getContext());
                return (
                  <th
                    key={h.id}
                    style={{ width: h.getSize(), position: "relative" }}
                    title={header}
                    aria-sort={dir ? (dir === "desc" ? "descending" : "ascending") : undefined}
                  >
                    <span
                      className="vtable-resize"
                      aria-hidden
                      onMouseDown={h.getResizeHandler()}
                      onDoubleClick={() => h.column.resetSize()}
                    />
                    {sortable ? (
                      <UnstyledButton
                        onClick={h.column.getToggleSortingHandler()}
                        className="vtable-sort"
                        data-testid={`sort-${h.column.id}`}
                        aria-label={t("orders.sortBy", { column: header })}
                      >
                        {label}
                        {dir === "asc" ? <IconArrowUp size={14} /> : null}
                        {dir === "desc" ? <IconArrowDown size={14} /> : null}
                      </UnstyledButton>
                    ) : (
                      label
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody
          style={{ height: virtualizer.getTotalSize(), position: "relative", display: "block" }}
        >
          {rows.map((row, i) => {
            const v = items[i];
            if (!v) return null;
            const o = row.original.order;
            return (
              <tr
                key={v.key}
                className="vtable-row vtable-body-row"
                aria-rowindex={v.index + 2}
                data-testid={o ? "order-row" : "order-row-loading"}
                data-trade-no={o?.tradeNo}
                tabIndex={o ? 0 : -1}
                onClick={() => o && onOpen(o.tradeNo)}
                onKeyDown={(e) => {
                  if (o && (e.key === "Enter" || e.key === " ")) {
                    e.preventDefault();
                    onOpen(o.tradeNo);
                  }
                }}
                style={{ transform: `translateY(${v.start}px)`, height: ROW_HEIGHT }}
              >
                {row.getVisibleCells().map((cell) => (
                  <td
                    key={cell.id}
                    data-col={cell.column.id}
                    style={{
                      width: cell.column.getSize(),
                      textAlign:
                        (cell.column.columnDef.meta as { align?: "right" } | undefined)?.align ??
                        "left",
                    }}
                  >
                    {o ? (
                      flexRender(cell.column.columnDef.cell, cell.getContext())
                    ) : (
                      <Skeleton height={14} radius="sm" />
                    )}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
      {firstPage.isSuccess && total === 0 ? (
        <Center p="xl">
          <Text c="dimmed" data-testid="orders-empty">
            {t("orders.noRows")}
          </Text>
        </Center>
      ) : null}
    </Box>
  );
});
