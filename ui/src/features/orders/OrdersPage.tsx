import { Box, Button, Group, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { IconFileExport } from "@tabler/icons-react";
import { useCallback, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate, useSearchParams } from "react-router";
import { ErrorAlert } from "../../components/ErrorAlert";
import { timeZoneLabel } from "../../lib/format";
import { fieldOf } from "../../lib/ipc";
import type { OrderFilter } from "../../lib/types";
import { ColumnChooser } from "./ColumnChooser";
import { useHiddenColumns } from "./columns";
import { ExportModal } from "./ExportModal";
import { FilterBar } from "./FilterBar";
import { OrderDetailDrawer } from "./OrderDetailDrawer";
import { OrdersTable } from "./OrdersTable";
import { EMPTY_FILTER, useOrderPages } from "./queries";
import { SyncPanel } from "./SyncPanel";
import "./orders.css";

export function OrdersPage() {
  const { t } = useTranslation();
  const [filter, setFilter] = useState<OrderFilter>(EMPTY_FILTER);
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [exporting, exportModal] = useDisclosure(false);
  const first = useOrderPages(filter, []).first;
  const invalid = useMemo(() => fieldOf(first.error), [first.error]);
  const total = first.data?.total ?? 0;
  const open = params.get("order");
  const columns = useHiddenColumns();
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
        <FilterBar filter={filter} onChange={setFilter} invalid={invalid} />
        <Group gap={6} wrap="nowrap">
          <ColumnChooser hidden={columns.hidden} onToggle={columns.toggle} />
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
      {first.error && !invalid ? <ErrorAlert error={first.error} /> : null}
      <OrdersTable filter={filter} onSort={sortBy} onOpen={openOrder} hidden={columns.hidden} />
      <OrderDetailDrawer tradeNo={open} onClose={closeOrder} />
      <ExportModal opened={exporting} onClose={exportModal.close} filter={filter} total={total} />
    </Box>
  );
}
