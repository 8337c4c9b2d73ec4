import { Button, Group, Stack, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { IconFileExport } from "@tabler/icons-react";
import { useCallback, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate, useSearchParams } from "react-router";
import { ErrorAlert } from "../../components/ErrorAlert";
import { timeZoneLabel } from "../../lib/format";
import { fieldOf } from "../../lib/ipc";
import type { OrderFilter } from "../../lib/types";
import { ExportModal } from "./ExportModal";
import { FilterBar } from "./FilterBar";
import { OrderDetailDrawer } from "./OrderDetailDrawer";
import { OrdersTable } from "./OrdersTable";
import { EMPTY_FILTER, useOrderPages } from "./queries";
import { SyncPanel } from "./SyncPanel";

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
    <Stack data-testid="screen-orders" gap="sm">
      <Group justify="space-between" align="flex-start">
        <Title order={2}>{t("orders.title")}</Title>
        <SyncPanel />
      </Group>
      <FilterBar filter={filter} onChange={setFilter} invalid={invalid} />
      {first.error && !invalid ? <ErrorAlert error={first.error} /> : null}
      <Group justify="space-between">
        <Text size="sm" data-testid="orders-count" data-total={total}>
          {t("orders.rows", { count: total })} · {t("orders.timeZone", { tz: timeZoneLabel() })}
        </Text>
        <Button
          variant="default"
          leftSection={<IconFileExport size={16} />}
          onClick={exportModal.open}
          disabled={total === 0}
          data-testid="export-button"
        >
          {t("orders.export")}
        </Button>
      </Group>
      <OrdersTable filter={filter} onSort={sortBy} onOpen={openOrder} />
      <OrderDetailDrawer tradeNo={open} onClose={closeOrder} />
      <ExportModal opened={exporting} onClose={exportModal.close} filter={filter} total={total} />
    </Stack>
  );
}
