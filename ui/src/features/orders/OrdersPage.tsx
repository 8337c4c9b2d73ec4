import { Badge, Box, Button, CloseButton, Group, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { IconFileExport } from "@tabler/icons-react";
import { useCallback, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { useLocation, useNavigate, useSearchParams } from "react-router";
import { ErrorAlert } from "../../components/ErrorAlert";
import { timeZoneLabel } from "../../lib/format";
import { fieldOf } from "../../lib/ipc";
import type { OrderFilter, SortKey } from "../../lib/types";
import type { RelativeRange, SavedView, ViewSpec } from "../views/types";
import { useScreenView } from "../views/useScreenView";
import { ViewsMenu } from "../views/ViewsMenu";
import { ColumnChooser } from "./ColumnChooser";
import { layoutOfView, useColumnLayout, viewColumns } from "./columns";
import { ExportModal } from "./ExportModal";
import { FilterBar } from "./FilterBar";
import { OrderDetailDrawer } from "./OrderDetailDrawer";
import { OrdersTable } from "./OrdersTable";
import { EMPTY_FILTER, useOrderPages } from "./queries";
import { SyncPanel } from "./SyncPanel";
import "./orders.css";

/// What another screen (a statement's figure) opened the orders with: its filter.
function openedWith(state: unknown): OrderFilter {
  const f = (state as { filter?: OrderFilter } | null)?.filter;
  return f ? { ...EMPTY_FILTER, ...f } : EMPTY_FILTER;
}

/// The filters the bar has no control for (a statement's: settled or not, the rolling
/// reserve held or released, orders of a kind the journal does not know), said in words
/// with a way to drop them, so the table never shows fewer rows than the bar explains.
function HiddenFilters({ filter, onClear }: { filter: OrderFilter; onClear: () => void }) {
  const { t } = useTranslation();
  const said: string[] = [
    ...filter.settles.map((v) => t(`orders.hidden.settle.${v}`, { defaultValue: `settle ${v}` })),
    ...filter.reserveStatuses.map((v) =>
      t(`orders.hidden.reserve.${v}`, { defaultValue: `reserve ${v}` }),
    ),
    // A failure figure's (issue 36): the gateway's reason and message, "not given" for
    // an order the gateway gave none.
    ...(filter.reasons ?? []).map((r) =>
      t("failures.hiddenReason", { reason: r === "" ? t("failures.notGiven") : r }),
    ),
    ...(filter.messages ?? []).map((m) =>
      t("failures.hiddenMessage", { message: m === "" ? t("failures.notGiven") : m }),
    ),
    ...(filter.movedFrom != null || filter.movedTo != null
      ? [
          t("orders.hidden.moved", {
            from: filter.movedFrom == null ? "…" : new Date(filter.movedFrom).toLocaleString(),
            to: filter.movedTo == null ? "…" : new Date(filter.movedTo).toLocaleString(),
          }),
        ]
      : []),
  ];
  if (said.length === 0) return null;
  return (
    <Group gap="xs" data-testid="orders-hidden-filters">
      <Text size="sm" c="dimmed">
        {t("orders.hidden.title")}
      </Text>
      {said.map((s) => (
        <Badge key={s} variant="light">
          {s}
        </Badge>
      ))}
      <CloseButton size="sm" aria-label={t("orders.hidden.clear")} onClick={onClear} />
    </Group>
  );
}

export function OrdersPage() {
  const { t } = useTranslation();
  const location = useLocation();
  const [filter, setFilter] = useState<OrderFilter>(() => openedWith(location.state));
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [exporting, exportModal] = useDisclosure(false);
  const first = useOrderPages(filter, []).first;
  const invalid = useMemo(() => fieldOf(first.error), [first.error]);
  const total = first.data?.total ?? 0;
  const open = params.get("order");
  const columns = useColumnLayout();
  // The dates as a relative range when picked as one (a view keeps them so).
  const [relative, setRelative] = useState<RelativeRange | null>(null);
  // Bumped when a view is applied: the filter bar starts again from the view's filter.
  const [applied, setApplied] = useState(0);
  const replaceLayout = columns.replace;
  const applyView = useCallback(
    (v: SavedView | null) => {
      if (v === null) {
        setFilter((f) => ({ ...EMPTY_FILTER, sort: f.sort, descending: f.descending }));
        setRelative(null);
      } else {
        const s = v.spec;
        setFilter({
          ...EMPTY_FILTER,
          ...(s.orderFilter ?? {}),
          from: v.from,
          to: v.to,
          ...(s.sort ? { sort: s.sort.key as SortKey, descending: s.sort.descending } : {}),
        });
        setRelative(s.dates?.kind === "relative" ? s.dates.range : null);
        if (s.columns.length > 0) replaceLayout(layoutOfView(s.columns));
      }
      setApplied((n) => n + 1);
    },
    [replaceLayout],
  );
  // Opened with a filter (a statement's figure): that filter, not the last view.
  const view = useScreenView("orders", applyView, location.state != null);
  const currentView = useCallback(
    (): ViewSpec => ({
      orderFilter: { ...filter, ...(relative ? { from: null, to: null } : {}) },
      fields: {},
      dates: relative
        ? { kind: "relative", range: relative }
        : filter.from !== null || filter.to !== null
          ? { kind: "fixed", from: filter.from, to: filter.to }
          : null,
      columns: viewColumns(columns.layout),
      sort: { key: filter.sort, descending: filter.descending },
    }),
    [filter, relative, columns.layout],
  );
  // The open order lives in the address (`?order=`), so every change of it renders this
  // screen again. The callbacks below keep their identity (the router's `navigate` does;
  // `setSearchParams` changes with every address), so the table, the filters and the
  // sync panel, memoized, are not rendered again when an order's detail opens or closes:
  // only the drawer is.
  const openOrder = useCallback(
    (tradeNo: string) => void navigate(`?${new URLSearchParams({ order: tradeNo })}`),
    [navigate],
  );
  const closeOrder = useCallback(() => void navigate("?"), [navigate]);
  const sortBy = useCallback(
    (sort: OrderFilter["sort"], descending: boolean) =>
      setFilter((f) => ({ ...f, sort, descending })),
    [],
  );

  return (
    <Box data-testid="screen-orders" className="orders-page">
      <Group justify="space-between" align="center" wrap="nowrap" gap="sm">
        <Group gap="sm" align="baseline" wrap="nowrap">
          <Title order={2} size="h3">
            {t("orders.title")}
          </Title>
          <Text size="sm" c="dimmed" data-testid="orders-count" data-total={total}>
            {t("orders.rows", { count: total })} · {t("orders.timeZone", { tz: timeZoneLabel() })}
          </Text>
        </Group>
        <SyncPanel />
      </Group>
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
        <FilterBar
          key={applied}
          filter={filter}
          onChange={setFilter}
          invalid={invalid}
          relative={relative}
          onRelative={setRelative}
        />
        <Group gap={6} wrap="nowrap">
          <ViewsMenu
            screen="orders"
            current={currentView}
            selected={view.selected}
            onSelect={view.select}
          />
          <ColumnChooser
            layout={columns.layout}
            onToggle={columns.toggle}
            onMove={columns.move}
            onResize={columns.resize}
          />
          <Button
            size="xs"
            variant="default"
            leftSection={<IconFileExport size={14} />}
            onClick={exportModal.open}
            disabled={total === 0}
            data-testid="export-button"
          >
            {t("orders.export")}
          </Button>
        </Group>
      </Group>
      <HiddenFilters
        filter={filter}
        onClear={() =>
          setFilter((f) => ({
            ...f,
            settles: [],
            reserveStatuses: [],
            unknownKind: false,
            movedFrom: null,
            movedTo: null,
            reasons: undefined,
            messages: undefined,
          }))
        }
      />
      {first.error && !invalid ? <ErrorAlert error={first.error} /> : null}
      <OrdersTable
        filter={filter}
        onSort={sortBy}
        onOpen={openOrder}
        layout={columns.layout}
        onResize={columns.resize}
      />
      <OrderDetailDrawer tradeNo={open} onClose={closeOrder} />
      <ExportModal opened={exporting} onClose={exportModal.close} filter={filter} total={total} />
    </Box>
  );
}
