import {
  ColorSwatch,
  Group,
  getThemeColor,
  Paper,
  Stack,
  Text,
  useMantineTheme,
} from "@mantine/core";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { locale } from "../i18n";
import { formatMoney } from "../lib/format";

/// A chart row's exact amounts, by series name, next to the numbers the chart draws.
export const EXACT = "exact";

export interface Series {
  name: string;
  label?: string;
  color: string;
}

interface Props {
  label?: ReactNode;
  /// What recharts hands a tooltip: one entry per series under the pointer.
  payload?: readonly { name?: unknown; payload?: Record<string, unknown> }[];
  series: Series[];
  currency: string;
}

/// A chart's tooltip that shows money as money: each series' exact amount (the decimal
/// string the row carries under `exact`, not the number the chart drew) with its
/// currency, in the one money format of the app.
export function MoneyChartTooltip({ label, payload, series, currency }: Props) {
  const { i18n } = useTranslation();
  const theme = useMantineTheme();
  const loc = locale(i18n.language);
  if (!payload || payload.length === 0) return null;
  return (
    <Paper withBorder shadow="md" p="xs" radius="sm" data-testid="chart-tooltip">
      <Text size="sm" fw={600} mb={4}>
        {label}
      </Text>
      <Stack gap={2}>
        {payload.map((p) => {
          const name = String(p.name ?? "");
          const s = series.find((x) => x.name === name);
          const exact = (p.payload?.[EXACT] as Record<string, string> | undefined)?.[name];
          return (
            <Group key={name} gap="xs" justify="space-between" wrap="nowrap">
              <Group gap={6} wrap="nowrap">
                <ColorSwatch size={10} color={getThemeColor(s?.color ?? "gray.6", theme)} />
                <Text size="sm">{s?.label ?? name}</Text>
              </Group>
              <Text size="sm" fw={500} style={{ fontVariantNumeric: "tabular-nums" }}>
                {exact === undefined ? "" : formatMoney(exact, currency, loc)}
              </Text>
            </Group>
          );
        })}
      </Stack>
    </Paper>
  );
}
