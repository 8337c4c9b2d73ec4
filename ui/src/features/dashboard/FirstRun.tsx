import { Alert, Progress, Stack, Text } from "@mantine/core";
import { IconCloudDownload } from "@tabler/icons-react";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { locale } from "../../i18n";
import { useInvalidateAfter } from "../../lib/invalidate";
import { useAppStatus } from "../app/queries";
import { useLastSync, useSync, useSyncProgress } from "../orders/queries";
import { syncLine } from "../orders/syncText";
import { useDashboard } from "./queries";

/// The days the first run loads: what the Orders screen's sync reads by default.
const FIRST_RUN_DAYS = 90;

/// Once per run of the app at most.
let started = false;

/// Says where the first run stands, on the page's root element, for whoever waits on it
/// (the window tests): `running`, `done`, `failed`, or `none` (nothing to load).
function mark(state: "running" | "done" | "failed" | "none") {
  document.documentElement.dataset.firstSync = state;
}

/// The first run: the built-in sandbox's desk opens with its demo orders in the cache.
/// When the sandbox profile has never synced and its cache is empty, its orders are read
/// in the background (the same sync as the Orders screen's, whose progress it shows) and
/// a balance snapshot of each currency is taken (every sync ends with one), so the dashboard, orders, reports and
/// balances show real figures within seconds of the first launch.
export function FirstRunSync() {
  const status = useAppStatus();
  const dashboard = useDashboard();
  const sync = useSync();
  const invalidate = useInvalidateAfter();
  const { mutate } = sync;
  const sandbox = status.data?.sandbox;
  const d = dashboard.data;
  useEffect(() => {
    if (started || sandbox === undefined || !d) return;
    started = true;
    if (!sandbox || d.lastSync !== null || d.cachedOrders > 0) {
      mark("none");
      return;
    }
    mark("running");
    mutate(
      { days: FIRST_RUN_DAYS, full: false, firstRun: true },
      {
        onSuccess: async () => {
          // The sync took a balance snapshot of the currencies it read before it was
          // done: the dashboard's first figures, read before the first run is done.
          await invalidate("ordersSync");
          mark("done");
        },
        onError: () => mark("failed"),
      },
    );
  }, [sandbox, d, mutate, invalidate]);
  return null;
}

/// On the dashboard while the first run loads the sandbox's demo orders: how far it is.
export function FirstRunProgress() {
  const { t, i18n } = useTranslation();
  const last = useLastSync();
  const progress = useSyncProgress();
  if (!last?.firstRun || last.status !== "pending") return null;
  const line = progress ? syncLine(t, progress, locale(i18n.language), null) : null;
  return (
    <Alert
      color="blue"
      icon={<IconCloudDownload size={18} />}
      title={t("dashboard.firstRun")}
      data-testid="first-sync"
    >
      <Stack gap={4}>
        <Text size="sm">{t("dashboard.firstRunHint")}</Text>
        <Progress value={line?.percent ?? 0} animated aria-label={t("dashboard.firstRun")} />
        <Text size="xs" c="dimmed">
          {line ? line.read : t("orders.syncing")}
        </Text>
      </Stack>
    </Alert>
  );
}
