import {
  Alert,
  Card,
  Group,
  Select,
  Stack,
  Table,
  Text,
  Title,
  UnstyledButton,
} from "@mantine/core";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import type { OrderFilter_Serialize as OrderFilter } from "../../bindings";
import { CopyCommand } from "../../components/CopyCommand";
import { ErrorAlert } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { reconcileCommand } from "../../lib/cliCommand";
import { formatDateTime, formatMoney } from "../../lib/format";
import { useProfileName } from "../app/queries";
import { CacheAsOf } from "../orders/CacheAsOf";
import { useBalanceHistory, useReconcile, useUpcoming } from "./queries";

/// An amount that opens the Orders screen with the orders behind it.
function Opens({
  filter,
  count,
  label,
  testId,
  children,
}: {
  filter: OrderFilter;
  count: number;
  label: string;
  testId: string;
  children: string;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  if (count === 0) return <>{children}</>;
  return (
    <UnstyledButton
      onClick={() => navigate("/orders", { state: { filter } })}
      title={t("balances.reconcile.open", { line: label })}
      data-testid={testId}
      style={{ textDecoration: "underline dotted" }}
    >
      {children}
    </UnstyledButton>
  );
}

/// Observed against explained movement of `currency`'s available balance between two
/// of its snapshots (by default the last two), line by line.
export function Reconcile({ currency }: { currency: string }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const history = useBalanceHistory(currency);
  const snapshots = history.data ?? [];
  const [from, setFrom] = useState<number | null>(null);
  const [to, setTo] = useState<number | null>(null);
  const last = snapshots.at(-1)?.takenAt ?? null;
  const beforeLast = snapshots.at(-2)?.takenAt ?? null;
  // A new currency, or new snapshots: back to the last two.
  useEffect(() => {
    setFrom(beforeLast);
    setTo(last);
  }, [beforeLast, last]);
  const q = useReconcile(currency, from, to);
  const profile = useProfileName();
  const r = q.data;
  const options = snapshots.map((s) => ({
    value: String(s.takenAt),
    label: `${formatDateTime(s.takenAt, loc)} · ${formatMoney(s.balance, currency, loc)}`,
  }));
  const money = (v: string) => formatMoney(v, currency, loc);
  const difference = r ? Number(r.difference) : 0;
  return (
    <Card withBorder data-testid="balance-reconcile">
      <Title order={3} size="h5" mb="xs">
        {t("balances.reconcile.title", { currency })}
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {t("balances.reconcile.intro")}
      </Text>
      <CacheAsOf testId="reconcile-as-of" />
      <ErrorAlert error={history.error ?? q.error} />
      {snapshots.length < 2 ? (
        <Text c="dimmed">{t("balances.reconcile.needTwo")}</Text>
      ) : (
        <Stack gap="sm">
          <Group align="flex-end">
            <Select
              label={t("balances.reconcile.from")}
              data={options}
              value={from === null ? null : String(from)}
              onChange={(v) => setFrom(v === null ? null : Number(v))}
              allowDeselect={false}
              w={320}
              data-testid="reconcile-from"
            />
            <Select
              label={t("balances.reconcile.to")}
              data={options}
              value={to === null ? null : String(to)}
              onChange={(v) => setTo(v === null ? null : Number(v))}
              allowDeselect={false}
              w={320}
              data-testid="reconcile-to"
            />
            <CopyCommand
              command={profile ? reconcileCommand({ profile, currency, from, to }) : null}
              testId="reconcile-command"
            />
          </Group>
          {r ? (
            <Table striped data-testid="reconcile-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t("balances.reconcile.line")}</Table.Th>
                  <Table.Th ta="right">{t("balances.reconcile.orders")}</Table.Th>
                  <Table.Th ta="right">{t("balances.reconcile.effect")}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {r.lines.map((l) => {
                  const label = t(`balances.reconcile.lines.${l.kind}`);
                  return (
                    <Table.Tr key={l.kind} data-line={l.kind}>
                      <Table.Td>{label}</Table.Td>
                      <Table.Td ta="right">{l.count}</Table.Td>
                      <Table.Td ta="right" style={{ whiteSpace: "nowrap" }}>
                        <Opens
                          filter={l.filter}
                          count={l.count}
                          label={label}
                          testId={`reconcile-open-${l.kind}`}
                        >
                          {money(l.effect)}
                        </Opens>
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
                <Table.Tr fw={700}>
                  <Table.Td colSpan={2}>{t("balances.reconcile.explained")}</Table.Td>
                  <Table.Td ta="right">{money(r.explained)}</Table.Td>
                </Table.Tr>
                <Table.Tr fw={700}>
                  <Table.Td colSpan={2}>{t("balances.reconcile.observed")}</Table.Td>
                  <Table.Td ta="right" data-testid="reconcile-observed">
                    {money(r.observed)}
                  </Table.Td>
                </Table.Tr>
                <Table.Tr fw={700}>
                  <Table.Td colSpan={2}>{t("balances.reconcile.difference")}</Table.Td>
                  <Table.Td
                    ta="right"
                    c={difference === 0 ? "teal" : "red"}
                    data-testid="reconcile-difference"
                    data-value={r.difference}
                  >
                    {money(r.difference)}
                  </Table.Td>
                </Table.Tr>
              </Table.Tbody>
            </Table>
          ) : null}
          {r && difference !== 0 ? (
            <Alert color="yellow" data-testid="reconcile-unexplained">
              {t("balances.reconcile.unexplained")}
            </Alert>
          ) : null}
        </Stack>
      )}
    </Card>
  );
}

/// Paid payins not settled yet and rolling reserve not released yet, per currency.
export function Upcoming() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const q = useUpcoming();
  const rows = (q.data ?? []).filter((u) => u.unsettledCount > 0 || u.reserveCount > 0);
  const when = (at: number | null) =>
    at === null ? t("balances.upcoming.noDate") : formatDateTime(at, loc);
  return (
    <Card withBorder data-testid="balance-upcoming">
      <Title order={3} size="h5" mb="xs">
        {t("balances.upcoming.title")}
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {t("balances.upcoming.intro")}
      </Text>
      <ErrorAlert error={q.error} />
      {q.data && rows.length === 0 ? <Text c="dimmed">{t("balances.upcoming.none")}</Text> : null}
      {rows.length > 0 ? (
        <Table striped data-testid="upcoming-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t("balances.currency")}</Table.Th>
              <Table.Th ta="right">{t("balances.upcoming.unsettled")}</Table.Th>
              <Table.Th ta="right">{t("balances.upcoming.net")}</Table.Th>
              <Table.Th>{t("balances.upcoming.settlesAt")}</Table.Th>
              <Table.Th ta="right">{t("balances.upcoming.reserve")}</Table.Th>
              <Table.Th>{t("balances.upcoming.releasedAt")}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((u) => (
              <Table.Tr key={u.currency} data-currency={u.currency}>
                <Table.Td>{u.currency}</Table.Td>
                <Table.Td ta="right" style={{ whiteSpace: "nowrap" }}>
                  <Opens
                    filter={u.unsettledFilter}
                    count={u.unsettledCount}
                    label={t("balances.upcoming.unsettled")}
                    testId={`upcoming-unsettled-${u.currency}`}
                  >
                    {`${formatMoney(u.unsettledAmount, u.currency, loc)} · ${t("balances.upcoming.orders", { count: u.unsettledCount })}`}
                  </Opens>
                </Table.Td>
                <Table.Td ta="right">{formatMoney(u.unsettledNet, u.currency, loc)}</Table.Td>
                <Table.Td c="dimmed">{when(u.settlesAt)}</Table.Td>
                <Table.Td ta="right" style={{ whiteSpace: "nowrap" }}>
                  <Opens
                    filter={u.reserveFilter}
                    count={u.reserveCount}
                    label={t("balances.upcoming.reserve")}
                    testId={`upcoming-reserve-${u.currency}`}
                  >
                    {`${formatMoney(u.reserveAmount, u.currency, loc)} · ${t("balances.upcoming.orders", { count: u.reserveCount })}`}
                  </Opens>
                </Table.Td>
                <Table.Td c="dimmed">{when(u.releasedAt)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
    </Card>
  );
}
