import { LineChart } from "@mantine/charts";
import {
  Button,
  Card,
  Group,
  Stack,
  Table,
  TagsInput,
  Text,
  Title,
  UnstyledButton,
} from "@mantine/core";
import { IconRefresh } from "@tabler/icons-react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { CopyCommand } from "../../components/CopyCommand";
import { coreText, ErrorAlert } from "../../components/ErrorAlert";
import { EXACT, MoneyChartTooltip } from "../../components/MoneyChartTooltip";
import { locale } from "../../i18n";
import { balanceCommand, balanceHistoryCommand } from "../../lib/cliCommand";
import { chartValue, formatDateTime, formatMoney } from "../../lib/format";
import { fieldOf } from "../../lib/ipc";
import type { BalanceResult } from "../../lib/types";
import { useProfileName } from "../app/queries";
import { GatewayNotice, useGatewayClosed } from "../team/GatewayNotice";
import { AllProfiles } from "./AllProfiles";
import { useBalanceHistory, useLatestBalances, useQueryBalances } from "./queries";
import { Reconcile, Upcoming } from "./Reconcile";

function History({ currency }: { currency: string }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const q = useBalanceHistory(currency);
  const profile = useProfileName();
  const data = (q.data ?? []).map((s) => ({
    at: formatDateTime(s.takenAt, loc),
    balance: chartValue(s.balance),
    unchecked: chartValue(s.unCheckedBalance),
    total: chartValue(s.totalBalance),
    [EXACT]: { balance: s.balance, unchecked: s.unCheckedBalance, total: s.totalBalance },
  }));
  const series = [
    { name: "balance", label: t("balances.balance"), color: "teal.6" },
    { name: "unchecked", label: t("balances.unchecked"), color: "yellow.6" },
    { name: "total", label: t("balances.total"), color: "blue.6" },
  ];
  // The axis gives the scale ("12K"); the tooltip the exact amounts with the currency.
  const axis = new Intl.NumberFormat(loc, { notation: "compact", maximumFractionDigits: 1 });
  return (
    <Card withBorder data-testid="balance-history">
      <Group justify="space-between" mb="sm">
        <Title order={3} size="h5">
          {t("balances.historyOf", { currency })}
        </Title>
        <CopyCommand
          command={profile ? balanceHistoryCommand({ profile, currency }) : null}
          testId="balance-history-command"
        />
      </Group>
      <ErrorAlert error={q.error} />
      {data.length === 0 ? (
        <Text c="dimmed">{t("balances.noHistory")}</Text>
      ) : (
        <LineChart
          h={260}
          data={data}
          dataKey="at"
          withLegend
          valueFormatter={(v) => axis.format(v)}
          series={series}
          tooltipProps={{
            content: ({ label, payload }) => (
              <MoneyChartTooltip
                label={label}
                payload={payload}
                series={series}
                currency={currency}
              />
            ),
          }}
        />
      )}
    </Card>
  );
}

export function BalancesPage() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const [currencies, setCurrencies] = useState<string[]>([]);
  const [shown, setShown] = useState<string | null>(null);
  const run = useQueryBalances();
  const profile = useProfileName();
  const closed = useGatewayClosed();
  const latest = useLatestBalances();
  const invalid = fieldOf(run.error);
  const { mutate } = run;
  // The screen opens with the last snapshots (each with the time it was taken); the
  // gateway is asked when the user asks, or once if nothing was ever asked.
  const results: BalanceResult[] | undefined =
    run.data ??
    latest.data?.map((snapshot) => ({ currency: snapshot.currency, snapshot, error: null }));
  const neverAsked = latest.data !== undefined && latest.data.length === 0;
  useEffect(() => {
    // Not on a desk without the key: the team's signer takes the snapshots.
    if (neverAsked && !closed) mutate([]);
  }, [neverAsked, closed, mutate]);
  useEffect(() => {
    if (!shown && results?.[0]) setShown(results[0].currency);
  }, [results, shown]);

  return (
    <Stack data-testid="screen-balances">
      <GatewayNotice />
      <Title order={2}>{t("balances.title")}</Title>
      <Group align="flex-end">
        <TagsInput
          label={t("balances.currencies")}
          description={t("balances.currenciesHint")}
          value={currencies}
          onChange={(v) => setCurrencies(v.map((c) => c.trim().toUpperCase()))}
          error={invalid?.field === "currency" ? invalid.rule : undefined}
          w={360}
          data-testid="balance-currencies"
        />
        <Button
          leftSection={<IconRefresh size={16} />}
          loading={run.isPending}
          disabled={!!closed}
          onClick={() => run.mutate(currencies)}
          data-testid="balance-query"
        >
          {t("balances.query")}
        </Button>
        <CopyCommand
          command={profile ? balanceCommand({ profile, currencies }) : null}
          testId="balance-command"
        />
      </Group>
      {invalid ? null : <ErrorAlert error={run.error} />}
      {results && results.length === 0 ? <Text c="dimmed">{t("balances.none")}</Text> : null}
      {results && results.length > 0 ? (
        <Table striped highlightOnHover data-testid="balance-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t("balances.currency")}</Table.Th>
              <Table.Th ta="right">{t("balances.balance")}</Table.Th>
              <Table.Th ta="right">{t("balances.unchecked")}</Table.Th>
              <Table.Th ta="right">{t("balances.total")}</Table.Th>
              <Table.Th>{t("balances.takenAt")}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {results.map((r) => (
              <Table.Tr key={r.currency} data-testid="balance-row" data-currency={r.currency}>
                <Table.Td>
                  <UnstyledButton
                    onClick={() => setShown(r.currency)}
                    fw={shown === r.currency ? 700 : 400}
                    aria-label={t("balances.historyOf", { currency: r.currency })}
                  >
                    {r.currency}
                  </UnstyledButton>
                </Table.Td>
                {r.snapshot ? (
                  <>
                    <Table.Td ta="right">
                      {formatMoney(r.snapshot.balance, r.currency, loc)}
                    </Table.Td>
                    <Table.Td ta="right">
                      {formatMoney(r.snapshot.unCheckedBalance, r.currency, loc)}
                    </Table.Td>
                    <Table.Td ta="right">
                      {formatMoney(r.snapshot.totalBalance, r.currency, loc)}
                    </Table.Td>
                    <Table.Td>{formatDateTime(r.snapshot.takenAt, loc)}</Table.Td>
                  </>
                ) : (
                  <Table.Td colSpan={4} c="red">
                    {t("balances.failed")}: {r.error ? coreText(t, r.error) : ""}
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
      {shown ? <History currency={shown} /> : null}
      {shown ? <Reconcile currency={shown} /> : null}
      <Upcoming />
      <AllProfiles />
    </Stack>
  );
}
