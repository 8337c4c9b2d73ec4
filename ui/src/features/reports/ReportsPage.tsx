import { BarChart } from "@mantine/charts";
import {
  Alert,
  Button,
  Card,
  Group,
  SegmentedControl,
  Select,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  UnstyledButton,
} from "@mantine/core";
import { IconFileExport, IconRefresh } from "@tabler/icons-react";
import type { TFunction } from "i18next";
import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { CopyCommand } from "../../components/CopyCommand";
import { ErrorAlert, toastOk } from "../../components/ErrorAlert";
import { EXACT, MoneyChartTooltip } from "../../components/MoneyChartTooltip";
import { locale } from "../../i18n";
import { useAfterFirstPaint } from "../../lib/afterPaint";
import { statementCommand } from "../../lib/cliCommand";
import { chartValue, formatCount, formatMoney } from "../../lib/format";
import { fieldOf } from "../../lib/ipc";
import { useProfileName } from "../app/queries";
import { ChooseButton, ReplaceQuestion, useSaveTarget } from "../files/SaveTarget";
import { CacheAsOf } from "../orders/CacheAsOf";
import { useCurrencies } from "../orders/queries";
import { FailureBreakdown } from "./Failures";
import { useFailures } from "./failureQueries";
import { HorizonSetting } from "./Horizon";
import { type Days, type PeriodKind, periodDays, ymd } from "./period";
import {
  type Comparison,
  cancelRefresh,
  useReportExport,
  useReportRefresh,
  useReportSettings,
  useSaveReportSettings,
  useStatement,
  useStatementExportPath,
} from "./queries";
import { SchedulesCard } from "./Schedules";

type CurrencyStatement = Comparison["current"]["currencies"][number];
type Figure = CurrencyStatement["payins"]["all"];

/// Zone names the Reports screen offers: UTC and the time zone database's names the
/// system knows (the core checks the one chosen).
function zoneNames(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (k: string) => string[] };
  const names = intl.supportedValuesOf ? intl.supportedValuesOf("timeZone") : [];
  return ["UTC", ...names.filter((n) => n !== "UTC")];
}

/// One line of a currency's statement: its figure (count, amount, the orders behind it)
/// or a plain amount (a total of fees, the net).
interface Line {
  key: string;
  label: string;
  figure?: Figure;
  amount: string;
  /// A heading's line, or the net: shown stronger.
  strong?: boolean;
}

function lines(t: TFunction, c: CurrencyStatement): Line[] {
  const f = (key: string, figure: Figure): Line => ({
    key,
    label: t(`reports.line.${key}`),
    figure,
    amount: figure.amount,
  });
  return [
    f("payinsPaid", c.payins.succeeded),
    f("payinsFailed", c.payins.failed),
    f("payinsPending", c.payins.pending),
    f("handlingFee", c.payinFees.handling),
    f("fixedFee", c.payinFees.fixed),
    f("exceptionFee", c.payinFees.exception),
    { key: "payinFees", label: t("reports.line.payinFees"), amount: c.payinFees.total },
    f("reserveHeld", c.reserveHeld),
    f("reserveReleased", c.reserveReleased),
    f("refunds", c.refunds),
    f("chargebacks", c.chargebacks),
    f("settled", c.settled.amount),
    f("notSettled", c.notSettled.amount),
    f("payoutsPaid", c.payouts.succeeded),
    f("payoutsFailed", c.payouts.failed),
    f("payoutsPending", c.payouts.pending),
    { key: "payoutFees", label: t("reports.line.payoutFees"), amount: c.payoutFees.total },
    f("pendingPayouts", c.pendingPayouts),
    {
      key: "pendingPayoutFees",
      label: t("reports.line.pendingPayoutFees"),
      amount: c.pendingPayoutFees.total,
    },
    f("cardTopUps", c.cardTopUps),
    f("cardWithdrawals", c.cardWithdrawals),
    {
      key: "cardWithdrawalFees",
      label: t("reports.line.cardWithdrawalFees"),
      amount: c.cardWithdrawalFees.total,
    },
    // Orders of unknown kind: never counted as payins, and not in the net; always said.
    f("unknownKind", c.unknownKind.all),
    { key: "net", label: t("reports.line.net"), amount: c.net, strong: true },
  ];
}

/// The change from the period before, in percent (none when there was nothing before).
function change(now: string, before: string | undefined): string | null {
  if (before === undefined) return null;
  const a = Number(now);
  const b = Number(before);
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  const pct = ((a - b) * 100) / Math.abs(b);
  return `${pct > 0 ? "+" : ""}${pct.toFixed(1)} %`;
}

function CurrencyCard({
  current,
  previous,
}: {
  current: CurrencyStatement;
  previous: CurrencyStatement | undefined;
}) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const navigate = useNavigate();
  // The chart is drawn after the statement's figures are on screen.
  const painted = useAfterFirstPaint();
  const cur = current.currency;
  const before = new Map(previous ? lines(t, previous).map((l) => [l.key, l.amount]) : []);
  const shown = lines(t, current);
  const series = [
    { name: "now", label: t("reports.thisPeriod"), color: "teal.6" },
    { name: "before", label: t("reports.previousPeriod"), color: "gray.5" },
  ];
  const chart = ["payinsPaid", "payinFees", "refunds", "chargebacks", "payoutsPaid", "net"].map(
    (key) => {
      const l = shown.find((x) => x.key === key);
      return {
        line: l?.label ?? key,
        now: chartValue(l?.amount ?? "0"),
        before: chartValue(before.get(key) ?? "0"),
        [EXACT]: { now: l?.amount ?? "0", before: before.get(key) ?? "0" },
      };
    },
  );
  return (
    <Card withBorder data-testid="statement-currency" data-currency={cur}>
      <Stack>
        <Group justify="space-between">
          <Title order={3} size="h4">
            {cur}
          </Title>
          <Text size="sm" c="dimmed">
            {t("reports.net")}{" "}
            <Text span fw={700} data-testid={`net-${cur}`}>
              {formatMoney(current.net, cur, loc)}
            </Text>
          </Text>
        </Group>
        <SimpleGrid cols={{ base: 1, xl: 2 }}>
          <Table withRowBorders={false} verticalSpacing={4} data-testid={`statement-${cur}`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th />
                <Table.Th ta="right">{t("reports.count")}</Table.Th>
                <Table.Th ta="right">{t("reports.thisPeriod")}</Table.Th>
                <Table.Th ta="right">{t("reports.previousPeriod")}</Table.Th>
                <Table.Th ta="right">{t("reports.change")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {shown.map((l) => (
                <Table.Tr key={l.key} data-line={l.key}>
                  <Table.Td fw={l.strong ? 700 : undefined}>{l.label}</Table.Td>
                  <Table.Td ta="right">{l.figure ? formatCount(l.figure.count, loc) : ""}</Table.Td>
                  <Table.Td
                    ta="right"
                    fw={l.strong ? 700 : undefined}
                    style={{ whiteSpace: "nowrap" }}
                  >
                    {l.figure && l.figure.count > 0 ? (
                      <UnstyledButton
                        onClick={() => navigate("/orders", { state: { filter: l.figure?.filter } })}
                        title={t("reports.openOrders", { line: l.label })}
                        data-testid={`open-${cur}-${l.key}`}
                        style={{ textDecoration: "underline dotted" }}
                      >
                        {formatMoney(l.amount, cur, loc)}
                      </UnstyledButton>
                    ) : (
                      formatMoney(l.amount, cur, loc)
                    )}
                  </Table.Td>
                  <Table.Td ta="right" c="dimmed" style={{ whiteSpace: "nowrap" }}>
                    {before.has(l.key) ? formatMoney(before.get(l.key), cur, loc) : "—"}
                  </Table.Td>
                  <Table.Td ta="right" c="dimmed">
                    {change(l.amount, before.get(l.key)) ?? "—"}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {current.chargebacksNotLookedUp > 0 ? (
            <Text size="sm" c="dimmed" data-testid={`not-looked-up-${cur}`}>
              {t("reports.notLookedUp", { count: current.chargebacksNotLookedUp })}
            </Text>
          ) : null}
          {painted ? (
            <BarChart
              h={320}
              data={chart}
              dataKey="line"
              orientation="vertical"
              yAxisProps={{ width: 110 }}
              series={series}
              withLegend
              tooltipProps={{
                content: ({ label, payload }) => (
                  <MoneyChartTooltip
                    label={label}
                    payload={payload}
                    series={series}
                    currency={cur}
                  />
                ),
              }}
            />
          ) : (
            <Skeleton h={320} />
          )}
        </SimpleGrid>
      </Stack>
    </Card>
  );
}

function ExportBar({
  days,
  zone,
  currency,
}: {
  days: Days;
  zone: string;
  currency: string | null;
}) {
  const { t } = useTranslation();
  const [format, setFormat] = useState<"xlsx" | "csv" | "pdf">("xlsx");
  const [path, setPath] = useState("");
  const suggested = useStatementExportPath(format);
  useEffect(() => {
    if (suggested.data) setPath(suggested.data);
  }, [suggested.data]);
  const run = useReportExport(days, zone, currency);
  const target = useSaveTarget((to, overwrite) =>
    run.mutate(
      { path: to, overwrite },
      {
        onSuccess: (made) =>
          toastOk(
            t("reports.exported", { count: made.rows, path: to, sha: made.sha256.slice(0, 12) }),
          ),
      },
    ),
  );
  const pathError = fieldOf(run.error)?.field === "path" ? fieldOf(run.error)?.rule : undefined;
  const profile = useProfileName();
  const command = profile
    ? statementCommand({ profile, from: days.from, to: days.to, currency, zone, path })
    : null;
  return (
    <Card withBorder>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void target.submit(path);
        }}
      >
        <Stack gap="xs">
          <Group align="flex-end" wrap="nowrap">
            <SegmentedControl
              aria-label={t("orders.exportFormat")}
              value={format}
              onChange={(v) => setFormat(v === "csv" || v === "pdf" ? v : "xlsx")}
              data={[
                { value: "xlsx", label: "XLSX" },
                { value: "csv", label: "CSV" },
                { value: "pdf", label: "PDF" },
              ]}
            />
            <TextInput
              label={t("reports.exportPath")}
              value={path}
              onChange={(e) => {
                target.dismiss();
                setPath(e.currentTarget.value);
              }}
              error={pathError}
              style={{ flex: 1 }}
              data-testid="statement-export-path"
            />
            <ChooseButton onClick={() => void target.choose(format, path, setPath)} />
            <Button
              type="submit"
              leftSection={<IconFileExport size={16} />}
              loading={run.isPending}
              data-testid="statement-export"
            >
              {t("reports.export")}
            </Button>
            <CopyCommand command={command} testId="statement-command" />
          </Group>
          <ReplaceQuestion
            path={target.asking}
            onReplace={target.replace}
            onKeep={target.dismiss}
          />
          {run.data ? (
            <Text size="sm" data-testid="statement-exported" data-rows={run.data.rows}>
              {t("reports.exportedLine", {
                count: run.data.rows,
                sha: run.data.sha256,
                zone: run.data.timeZone,
              })}
            </Text>
          ) : null}
          {pathError ? null : <ErrorAlert error={run.error} />}
        </Stack>
      </form>
    </Card>
  );
}

/// A statement of a period (a day, a week, a month, or days of the user's choosing),
/// for one currency or all, from the cache, beside the period before it; every figure
/// opens the orders behind it; exported to XLSX or CSV with its filter, time zone, rows
/// and their SHA-256.
export function ReportsPage() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const [kind, setKind] = useState<PeriodKind>("month");
  const today = ymd(new Date());
  const [custom, setCustom] = useState({ from: today, to: today });
  const [currency, setCurrency] = useState<string | null>(null);
  const currencies = useCurrencies();
  const days = useMemo(() => periodDays(kind, new Date(), custom), [kind, custom]);
  const settings = useReportSettings();
  const zone = settings.data?.businessZone ?? null;
  const zones = useMemo(zoneNames, []);
  const saveZone = useSaveReportSettings();
  const statement = useStatement(days, zone, currency);
  const failures = useFailures(days?.from ?? "", days?.to ?? "", zone, days !== null);
  const refresh = useReportRefresh(zone);
  const data = statement.data;
  const asOf = data?.current.asOf ?? null;
  return (
    <Stack data-testid="screen-reports">
      <Title order={2}>{t("reports.title")}</Title>
      {/* The period's buttons on a row of their own, never squeezed by the fields beside
          them (at 1280 px the last one, "Days…", was cut); the fields wrap below. */}
      <SegmentedControl
        value={kind}
        onChange={(v) => setKind(v as PeriodKind)}
        data={(["day", "week", "month", "lastMonth", "custom"] as const).map((k) => ({
          value: k,
          label: t(`reports.period.${k}`),
        }))}
        style={{ alignSelf: "flex-start", maxWidth: "100%" }}
        data-testid="reports-period"
      />
      <Group align="flex-end" wrap="wrap">
        {kind === "custom" ? (
          <>
            <TextInput
              type="date"
              label={t("reports.from")}
              value={custom.from}
              onChange={(e) => {
                const from = e.currentTarget.value;
                setCustom((c) => ({ ...c, from }));
              }}
              data-testid="reports-from"
            />
            <TextInput
              type="date"
              label={t("reports.to")}
              value={custom.to}
              onChange={(e) => {
                const to = e.currentTarget.value;
                setCustom((c) => ({ ...c, to }));
              }}
              error={days === null ? t("reports.badDays") : undefined}
              data-testid="reports-to"
            />
          </>
        ) : null}
        <Select
          label={t("reports.zone")}
          description={t("reports.zoneHint")}
          data={zones}
          value={zone}
          onChange={(v) => {
            if (v)
              saveZone.mutate(
                { businessZone: v, changeHorizonDays: settings.data?.changeHorizonDays ?? 120 },
                { onSuccess: (r) => toastOk(t("reports.zoneSaved", { zone: r.businessZone })) },
              );
          }}
          searchable
          allowDeselect={false}
          w={240}
          data-testid="reports-zone"
        />
        <Select
          label={t("reports.currency")}
          placeholder={t("reports.allCurrencies")}
          data={currencies.data ?? []}
          value={currency}
          onChange={setCurrency}
          clearable
          w={180}
          data-testid="reports-currency"
        />
      </Group>
      {days ? (
        <Text size="sm" c="dimmed" data-testid="reports-days">
          {t("reports.days", {
            from: days.from,
            to: days.to,
            previousFrom: days.previousFrom,
            previousTo: days.previousTo,
            zone: zone ?? "",
          })}
        </Text>
      ) : null}
      <ErrorAlert error={saveZone.error} />
      <HorizonSetting settings={settings.data} />
      {days ? (
        <Group gap="sm" data-testid="reports-as-of" data-as-of={asOf ?? ""}>
          {/* One "as of" on the screen, in the app's date format, with *Sync now*. */}
          <CacheAsOf testId="reports-cache" />
          <Button
            size="xs"
            variant="light"
            leftSection={<IconRefresh size={14} />}
            loading={refresh.isPending}
            onClick={() => refresh.mutate(days)}
            title={t("reports.refreshHint")}
            data-testid="reports-refresh"
          >
            {t("reports.refresh")}
          </Button>
          {refresh.isPending ? (
            <Button
              size="xs"
              variant="subtle"
              onClick={cancelRefresh}
              data-testid="reports-refresh-cancel"
            >
              {t("reports.cancel")}
            </Button>
          ) : null}
          {refresh.data ? (
            <Text size="sm" data-testid="reports-refreshed">
              {t("reports.refreshed", {
                changed: refresh.data.changed,
                chargebacks: refresh.data.chargebacksLookedUp,
              })}
              {refresh.data.incomplete > 0
                ? ` ${t("reports.refreshIncomplete", { count: refresh.data.incomplete })}`
                : ""}
            </Text>
          ) : null}
        </Group>
      ) : null}
      <ErrorAlert error={refresh.error} />
      <ErrorAlert error={statement.error} />
      {data && (data.current.outsideTeam ?? 0) > 0 ? (
        <Alert color="orange" data-testid="reports-outside-team">
          {t("reports.outsideTeam", { count: data.current.outsideTeam })}
        </Alert>
      ) : null}
      {data && data.current.uncertain > 0 ? (
        <Alert color="yellow" data-testid="reports-uncertain">
          {t("reports.uncertain", { count: data.current.uncertain })}
        </Alert>
      ) : null}
      {data ? (
        <>
          <Text size="sm" data-testid="reports-orders" data-orders={data.current.orders}>
            {t("reports.orders", {
              count: data.current.orders,
              formatted: formatCount(data.current.orders, loc),
            })}
          </Text>
          {data.current.currencies.length === 0 ? (
            <Text c="dimmed" data-testid="reports-empty">
              {t("reports.empty")}
            </Text>
          ) : null}
          {data.current.currencies.map((c) => (
            <CurrencyCard
              key={c.currency}
              current={c}
              previous={data.previous.currencies.find((p) => p.currency === c.currency)}
            />
          ))}
          {days && zone !== null ? <ExportBar days={days} zone={zone} currency={currency} /> : null}
        </>
      ) : null}
      <ErrorAlert error={failures.error} />
      {failures.data ? <FailureBreakdown report={failures.data} /> : null}
      <SchedulesCard />
    </Stack>
  );
}
