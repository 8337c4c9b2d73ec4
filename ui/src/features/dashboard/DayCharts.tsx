import { BarChart, ChartTooltip } from "@mantine/charts";
import { Card, Group, SegmentedControl, SimpleGrid, Text, Title } from "@mantine/core";
import { useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { EXACT, MoneyChartTooltip } from "../../components/MoneyChartTooltip";
import { locale } from "../../i18n";
import { chartValue, formatCount, formatDay } from "../../lib/format";
import type { Dashboard } from "../../lib/types";
import { ordersPerDay, volumePerDay } from "./days";

/// Orders per day (stacked by currency) and one currency's volume per day, over the
/// last 30 days of the cache.
export function DayCharts({ data }: { data: Dashboard }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const currencies = useMemo(
    () => [...new Set(data.days.map((d) => d.currency))].sort(),
    [data.days],
  );
  const [currency, setCurrency] = useState<string | null>(null);
  const shown = currency ?? currencies[0] ?? "";
  // Every day of the period, empty ones as 0: a skipped day would hide a quiet spell.
  const perDay = useMemo(
    () =>
      ordersPerDay(data.days, currencies, Date.now()).map((r) => ({
        day: formatDay(r.day, loc),
        ...r.counts,
      })),
    [data.days, currencies, loc],
  );
  const volume = useMemo(
    () =>
      volumePerDay(data.days, shown, Date.now()).map((d) => ({
        day: formatDay(d.day, loc),
        volume: chartValue(d.volume),
        [EXACT]: { volume: d.volume },
      })),
    [data.days, shown, loc],
  );
  const volumeSeries = [
    { name: "volume", label: t("dashboard.volumeOf", { currency: shown }), color: "teal.6" },
  ];
  // The axis gives the scale ("12K"); the tooltip the exact amount with its currency.
  const axis = new Intl.NumberFormat(loc, { notation: "compact", maximumFractionDigits: 1 });
  const palette = ["teal.6", "blue.6", "grape.6", "orange.6", "cyan.6", "pink.6", "lime.6"];
  const orderSeries = currencies.map((c, i) => ({
    name: c,
    color: palette[i % palette.length] ?? "teal.6",
  }));
  if (data.days.length === 0) return <Text c="dimmed">{t("dashboard.noActivity")}</Text>;
  return (
    <SimpleGrid cols={{ base: 1, lg: 2 }}>
      <Card withBorder>
        <Title order={3} size="h5" mb="sm">
          {t("dashboard.activity")}
        </Title>
        <BarChart
          h={220}
          data={perDay}
          dataKey="day"
          type="stacked"
          withLegend
          series={orderSeries}
          // Orders are counted whole: no 0.5 on the axis.
          yAxisProps={{ allowDecimals: false }}
          valueFormatter={(v) => formatCount(v, loc)}
          tooltipProps={{
            // Counts, said as orders: "USD 12" would read as an amount.
            content: ({ label, payload }) => (
              <ChartTooltip
                label={label}
                payload={payload}
                series={orderSeries}
                valueFormatter={(v) => t("orders.rows", { count: v })}
              />
            ),
          }}
          data-testid="chart-orders"
          data-days={perDay.length}
        />
      </Card>
      <Card withBorder>
        <Group justify="space-between" mb="sm">
          <Title order={3} size="h5">
            {t("dashboard.volume")}
          </Title>
          <SegmentedControl
            size="xs"
            aria-label={t("dashboard.currency")}
            value={shown}
            onChange={setCurrency}
            data={currencies}
          />
        </Group>
        <BarChart
          h={220}
          data={volume}
          dataKey="day"
          series={volumeSeries}
          valueFormatter={(v) => axis.format(v)}
          tooltipProps={{
            content: ({ label, payload }) => (
              <MoneyChartTooltip
                label={label}
                payload={payload}
                series={volumeSeries}
                currency={shown}
              />
            ),
          }}
          data-testid="chart-volume"
          data-days={volume.length}
        />
      </Card>
    </SimpleGrid>
  );
}
