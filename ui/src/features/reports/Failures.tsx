// Why money did not come in (issue 36): the success rate by method, currency and day,
// and the failed and closed orders by the gateway's reason and message, with their
// amounts per currency (never added across currencies), beside the period before. Every
// count opens the Orders screen with exactly the orders behind it.
import { Badge, Card, Group, Stack, Table, Text, Title, UnstyledButton } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import type { OrderFilter } from "../../bindings";
import { CopyCommand } from "../../components/CopyCommand";
import { locale } from "../../i18n";
import { failuresCommand } from "../../lib/cliCommand";
import { formatCount, formatMoney } from "../../lib/format";
import { useProfileName } from "../app/queries";
import type { FailureReport } from "./failureQueries";

type Breakdown = FailureReport["current"];
type RateLine = Breakdown["all"];
type Tally = RateLine["succeeded"];
type ReasonLine = Breakdown["reasons"][number];

/// A count that opens its orders (plain when there are none).
function Count({ tally, testId, label }: { tally: Tally; testId?: string; label: string }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const navigate = useNavigate();
  const filter: OrderFilter | null = tally.filter ?? null;
  if (!filter || tally.count === 0) {
    return (
      <Text span data-testid={testId} data-count={0}>
        {formatCount(tally.count, loc)}
      </Text>
    );
  }
  return (
    <UnstyledButton
      onClick={() => navigate("/orders", { state: { filter } })}
      title={t("failures.open", { what: label })}
      aria-label={t("failures.openCount", { what: label, count: tally.count })}
      data-testid={testId}
      data-count={tally.count}
      style={{ textDecoration: "underline dotted" }}
    >
      {formatCount(tally.count, loc)}
    </UnstyledButton>
  );
}

/// Amounts per currency, one a line; each opens the orders of its currency.
function Amounts({ tally }: { tally: Tally }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const navigate = useNavigate();
  if (tally.amounts.length === 0) return <Text span>—</Text>;
  const filter = tally.filter ?? null;
  return (
    <Stack gap={0}>
      {tally.amounts.map((a) => {
        const shown = `${formatMoney(a.amount, a.currency, loc)} (${formatCount(a.count, loc)})`;
        return filter ? (
          <UnstyledButton
            key={a.currency}
            onClick={() =>
              navigate("/orders", { state: { filter: { ...filter, currencies: [a.currency] } } })
            }
            title={t("failures.open", { what: shown })}
            data-testid="failure-amount"
            data-currency={a.currency}
            data-count={a.count}
            style={{
              whiteSpace: "nowrap",
              fontSize: "var(--mantine-font-size-sm)",
              textDecoration: "underline dotted",
            }}
          >
            {shown}
          </UnstyledButton>
        ) : (
          <Text key={a.currency} size="sm" style={{ whiteSpace: "nowrap" }}>
            {shown}
          </Text>
        );
      })}
    </Stack>
  );
}

function rate(r: string | null | undefined): string {
  return r == null ? "—" : `${r} %`;
}

/// The change of a rate in points (none when either side has none).
function points(now: string | null | undefined, before: string | null | undefined) {
  if (now == null || before == null) return null;
  const d = Number(now) - Number(before);
  if (!Number.isFinite(d)) return null;
  return `${d > 0 ? "+" : ""}${d.toFixed(1)}`;
}

function RateTable({
  title,
  lines,
  before,
  keyLabel,
  testId,
}: {
  title: string;
  lines: RateLine[];
  before: RateLine[] | null;
  keyLabel: (k: string | null) => string;
  testId: string;
}) {
  const { t } = useTranslation();
  return (
    <Stack gap={4}>
      <Title order={4} size="h5">
        {title}
      </Title>
      <Table withRowBorders verticalSpacing={4} data-testid={testId}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th />
            <Table.Th ta="right">{t("failures.rate")}</Table.Th>
            {before ? <Table.Th ta="right">{t("failures.rateBefore")}</Table.Th> : null}
            <Table.Th ta="right">{t("failures.outcome.succeeded")}</Table.Th>
            <Table.Th ta="right">{t("failures.outcome.failed")}</Table.Th>
            <Table.Th ta="right">{t("failures.outcome.closed")}</Table.Th>
            <Table.Th ta="right">{t("failures.outcome.pending")}</Table.Th>
            <Table.Th ta="right">{t("failures.outcome.unknown")}</Table.Th>
            <Table.Th>{t("failures.notPaidAmounts")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {lines.map((l) => {
            const name = keyLabel(l.key ?? null);
            const b = before?.find((p) => p.key === l.key);
            const diff = points(l.rate, b?.rate);
            return (
              <Table.Tr key={l.key ?? ""} data-key={l.key ?? ""}>
                <Table.Td style={{ whiteSpace: "nowrap" }}>{name}</Table.Td>
                <Table.Td ta="right" fw={600} data-testid="rate">
                  {rate(l.rate)}
                </Table.Td>
                {before ? (
                  <Table.Td ta="right" c="dimmed" style={{ whiteSpace: "nowrap" }}>
                    {rate(b?.rate)}
                    {diff ? ` (${diff})` : ""}
                  </Table.Td>
                ) : null}
                <Table.Td ta="right">
                  <Count
                    tally={l.succeeded}
                    label={`${name}: ${t("failures.outcome.succeeded")}`}
                  />
                </Table.Td>
                <Table.Td ta="right">
                  <Count tally={l.failed} label={`${name}: ${t("failures.outcome.failed")}`} />
                </Table.Td>
                <Table.Td ta="right">
                  <Count tally={l.closed} label={`${name}: ${t("failures.outcome.closed")}`} />
                </Table.Td>
                <Table.Td ta="right">
                  <Count tally={l.pending} label={`${name}: ${t("failures.outcome.pending")}`} />
                </Table.Td>
                <Table.Td ta="right">
                  <Count tally={l.unknown} label={`${name}: ${t("failures.outcome.unknown")}`} />
                </Table.Td>
                <Table.Td>
                  <Amounts tally={l.notPaid} />
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

/// The same reason and message in the period before.
function previousOf(l: ReasonLine, before: ReasonLine[]): ReasonLine | undefined {
  return before.find(
    (b) => (b.reason ?? null) === (l.reason ?? null) && (b.message ?? null) === (l.message ?? null),
  );
}

export function ReasonTable({
  current,
  previous,
  limit,
}: {
  current: Breakdown;
  previous: Breakdown;
  limit?: number;
}) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const notGiven = t("failures.notGiven");
  const shown = limit ? current.reasons.slice(0, limit) : current.reasons;
  if (current.reasons.length === 0) {
    return (
      <Text size="sm" c="dimmed" data-testid="failure-reasons-none">
        {t("failures.noFailures")}
      </Text>
    );
  }
  return (
    <Table withRowBorders verticalSpacing={4} data-testid="failure-reasons">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t("failures.reason")}</Table.Th>
          <Table.Th>{t("failures.message")}</Table.Th>
          <Table.Th ta="right">{t("failures.orders")}</Table.Th>
          <Table.Th ta="right">{t("failures.before")}</Table.Th>
          {limit ? null : (
            <>
              <Table.Th ta="right">{t("failures.outcome.failed")}</Table.Th>
              <Table.Th ta="right">{t("failures.outcome.closed")}</Table.Th>
            </>
          )}
          <Table.Th>{t("failures.amounts")}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {shown.map((l, i) => {
          const reason = l.reason ?? notGiven;
          const message = l.message ?? notGiven;
          const b = previousOf(l, previous.reasons);
          return (
            <Table.Tr
              key={`${l.reason ?? ""}\u0000${l.message ?? ""}`}
              data-testid={`failure-reason-${i}`}
              data-reason={l.reason ?? ""}
              data-message={l.message ?? ""}
            >
              <Table.Td c={l.reason ? undefined : "dimmed"}>{reason}</Table.Td>
              <Table.Td c={l.message ? undefined : "dimmed"}>{message}</Table.Td>
              <Table.Td ta="right">
                <Count
                  tally={l.orders}
                  label={`${reason} · ${message}`}
                  testId={`failure-reason-open-${i}`}
                />
              </Table.Td>
              <Table.Td ta="right" c="dimmed">
                {formatCount(b?.orders.count ?? 0, loc)}
              </Table.Td>
              {limit ? null : (
                <>
                  <Table.Td ta="right">{formatCount(l.failed, loc)}</Table.Td>
                  <Table.Td ta="right">{formatCount(l.closed, loc)}</Table.Td>
                </>
              )}
              <Table.Td>
                <Amounts tally={l.orders} />
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}

/// The overall rate now and before, with the counts behind it.
export function RateSummary({ report }: { report: FailureReport }) {
  const { t } = useTranslation();
  const c = report.current.all;
  const p = report.previous.all;
  const diff = points(c.rate, p.rate);
  return (
    <Group gap="lg" align="baseline" wrap="wrap" data-testid="failure-summary">
      <Text>
        {t("failures.rate")}{" "}
        <Text span fw={700} size="lg" data-testid="failure-rate" data-rate={c.rate ?? ""}>
          {rate(c.rate)}
        </Text>
      </Text>
      <Text size="sm" c="dimmed" data-testid="failure-rate-before">
        {t("failures.rateWas", { rate: rate(p.rate) })}
        {diff ? ` (${diff} ${t("failures.points")})` : ""}
      </Text>
      <Group gap="sm">
        {(["succeeded", "failed", "closed", "pending", "unknown"] as const).map((k) => (
          <Badge
            key={k}
            variant="light"
            color={k === "succeeded" ? "teal" : k === "failed" || k === "closed" ? "red" : "gray"}
          >
            {t(`failures.outcome.${k}`)}{" "}
            <Count tally={c[k]} label={t(`failures.outcome.${k}`)} testId={`failure-all-${k}`} />
          </Badge>
        ))}
      </Group>
    </Group>
  );
}

/// The Reports screen's full breakdown.
export function FailureBreakdown({ report }: { report: FailureReport }) {
  const { t } = useTranslation();
  const c = report.current;
  const p = report.previous;
  const notGiven = t("failures.notGiven");
  const profile = useProfileName();
  return (
    <Card withBorder data-testid="failures">
      <Stack>
        <Group justify="space-between">
          <Title order={3} size="h4">
            {t("failures.title")}
          </Title>
          <CopyCommand
            command={
              profile
                ? failuresCommand({
                    profile,
                    from: c.firstDay,
                    to: c.lastDay,
                    zone: report.timeZone,
                  })
                : null
            }
            testId="failures-command"
          />
        </Group>
        <Text size="sm" c="dimmed" data-testid="failures-days">
          {t("failures.days", {
            from: c.firstDay,
            to: c.lastDay,
            previousFrom: p.firstDay,
            previousTo: p.lastDay,
            zone: report.timeZone,
          })}
        </Text>
        <Text size="sm" data-testid="failures-definition">
          {t("failures.definition")}
        </Text>
        <RateSummary report={report} />
        <Title order={4} size="h5">
          {t("failures.reasons")}
        </Title>
        <ReasonTable current={c} previous={p} />
        <RateTable
          title={t("failures.byKind")}
          lines={c.byKind}
          before={p.byKind}
          keyLabel={(k) => t(`orders.kind.${k ?? "unknown"}`, { defaultValue: k ?? notGiven })}
          testId="failures-by-kind"
        />
        <RateTable
          title={t("failures.byMethod")}
          lines={c.byMethod}
          before={p.byMethod}
          keyLabel={(k) => k ?? notGiven}
          testId="failures-by-method"
        />
        <RateTable
          title={t("failures.byCurrency")}
          lines={c.byCurrency}
          before={p.byCurrency}
          keyLabel={(k) => k ?? notGiven}
          testId="failures-by-currency"
        />
        <RateTable
          title={t("failures.byDay")}
          lines={c.byDay}
          before={null}
          keyLabel={(k) => k ?? ""}
          testId="failures-by-day"
        />
      </Stack>
    </Card>
  );
}
