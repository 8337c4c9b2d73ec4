import {
  Button,
  Card,
  Group,
  Loader,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  Title,
} from "@mantine/core";
import { IconRefresh } from "@tabler/icons-react";
import { lazy, Suspense, useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { ErrorAlert } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { useAfterFirstPaint } from "../../lib/afterPaint";
import { formatCount, formatDateTime, formatMoney } from "../../lib/format";
import type { Dashboard } from "../../lib/types";
import { CacheAsOf } from "../orders/CacheAsOf";
import { useWatchScheduleRuns } from "../reports/schedulesQueries";
import { TeamChainAlert } from "../team/TeamChainAlert";
import { AttentionCard } from "./Attention";
import { FailuresCard } from "./FailuresCard";
import { FirstRunProgress } from "./FirstRun";
import { useDashboard } from "./queries";

/// The charts' code (a charting library) loads after the figures are on screen.
const DayCharts = lazy(() => import("./DayCharts").then((m) => ({ default: m.DayCharts })));

const DASHBOARD_READY = "paydesk:dashboard-ready";

function Balances({ data }: { data: Dashboard }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  if (data.balances.length === 0) return <Text c="dimmed">{t("dashboard.noBalances")}</Text>;
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }} data-testid="dashboard-balances">
      {data.balances.map((b) => (
        <Card key={b.currency} withBorder padding="sm">
          <Text size="sm" c="dimmed">
            {b.currency} · {t("dashboard.available")}
          </Text>
          <Text size="lg" fw={600}>
            {formatMoney(b.balance, b.currency, loc)}
          </Text>
          <Text size="xs" c="dimmed">
            {t("dashboard.unchecked")} {formatMoney(b.unCheckedBalance, b.currency, loc)} ·{" "}
            {t("dashboard.total")} {formatMoney(b.totalBalance, b.currency, loc)}
          </Text>
          <Text size="xs" c="dimmed">
            {t("dashboard.asOf", { time: formatDateTime(b.takenAt, loc) })}
          </Text>
        </Card>
      ))}
    </SimpleGrid>
  );
}

/// The day charts, drawn after the figures above them are on screen.
function LaterCharts({ data }: { data: Dashboard }) {
  const painted = useAfterFirstPaint();
  return painted ? (
    <Suspense fallback={<Skeleton h={260} />}>
      <DayCharts data={data} />
    </Suspense>
  ) : (
    <Skeleton h={260} />
  );
}

export function DashboardPage() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const navigate = useNavigate();
  const q = useDashboard();
  // A scheduled report run in the background (failed, or missed and caught up) shows at once.
  useWatchScheduleRuns();
  const ready = !!q.data;
  useEffect(() => {
    // The launch benchmark reads this mark: the dashboard's figures are on screen.
    if (ready && performance.getEntriesByName(DASHBOARD_READY).length === 0) {
      performance.mark(DASHBOARD_READY);
    }
  }, [ready]);
  return (
    <Stack data-testid="screen-dashboard">
      <Group justify="space-between">
        <Title order={2}>{t("dashboard.title")}</Title>
        <Button
          variant="default"
          leftSection={<IconRefresh size={16} />}
          onClick={() => q.refetch()}
          loading={q.isFetching}
        >
          {t("common.refresh")}
        </Button>
      </Group>
      <FirstRunProgress />
      <TeamChainAlert />
      {q.isPending ? <Loader /> : null}
      <ErrorAlert error={q.error} />
      {q.data ? (
        <>
          <AttentionCard data={q.data} />
          <Group gap="xl">
            <Text data-testid="dashboard-cached">
              {t("dashboard.cachedOrders")}: <b>{formatCount(q.data.cachedOrders, loc)}</b>
            </Text>
            <CacheAsOf testId="dashboard-last-sync" />
            <Button variant="subtle" size="compact-sm" onClick={() => navigate("/orders")}>
              {t("nav.orders")}
            </Button>
          </Group>
          <Title order={3} size="h4">
            {t("dashboard.balances")}
          </Title>
          <Balances data={q.data} />
          <FailuresCard />
          <LaterCharts data={q.data} />
        </>
      ) : null}
    </Stack>
  );
}
