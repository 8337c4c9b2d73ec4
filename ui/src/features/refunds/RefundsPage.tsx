import {
  Badge,
  Button,
  Card,
  Group,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import type { UseMutationResult } from "@tanstack/react-query";
import { type ReactNode, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { useSearchParams } from "react-router";
import type { QueryType } from "../../bindings";
import { CopyCommand } from "../../components/CopyCommand";
import { ErrorAlert } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { type CliCommand, refundShowCommand } from "../../lib/cliCommand";
import { type FieldErrors, useFieldErrors } from "../../lib/fieldErrors";
import { formatDateTimeShort, formatMoney } from "../../lib/format";
import type { StateField } from "../../lib/types";
import { useProfileName } from "../app/queries";
import { useMeaning } from "../app/StateBadge";
import { GatewayNotice, useGatewayClosed } from "../team/GatewayNotice";
import { TableViewBar, ViewHead } from "../views/TableViewBar";
import { type TableColumn, useTableView } from "../views/useTableView";
import { useOrderLookup, useRefundLookup, useReversals } from "./queries";
import { RefundedOrders } from "./RefundedOrders";

/// The cached refunds and chargebacks' columns (a saved view keeps which, in which order
/// and how wide).
const COLUMNS: TableColumn[] = [
  { id: "kind", label: "refunds.kind", width: 120, sortable: true },
  { id: "tradeNo", label: "refunds.tradeNo", width: 190, sortable: true },
  { id: "refundNo", label: "refunds.refundNo", width: 170, sortable: true },
  { id: "amount", label: "refunds.amount", width: 140, sortable: true },
  { id: "fee", label: "refunds.fee", width: 110 },
  { id: "state", label: "refunds.state", width: 150, sortable: true },
  { id: "settle", label: "refunds.settle", width: 120 },
  { id: "fetched", label: "refunds.fetched", width: 160, sortable: true },
];

const QUERY_TYPES: QueryType[] = ["sales", "refund", "chargeback"];

type Row = [label: string, value: string | null | undefined];

function Record({ rows, testId }: { rows: Row[]; testId: string }) {
  return (
    <Table withRowBorders={false} verticalSpacing={2} data-testid={testId}>
      <Table.Tbody>
        {rows
          .filter(([, v]) => v !== null && v !== undefined && v !== "")
          .map(([k, v]) => (
            <Table.Tr key={k}>
              <Table.Th w={200}>{k}</Table.Th>
              <Table.Td>{v}</Table.Td>
            </Table.Tr>
          ))}
      </Table.Tbody>
    </Table>
  );
}

function useStateText() {
  const read = useMeaning();
  // A known value reads "Success (3)"; an unknown one's label already names it once.
  return (field: StateField, raw: string | number | null | undefined) => {
    if (raw === null || raw === undefined || raw === "") return "";
    const r = read(field, raw);
    return r.meaning ? `${r.label} (${raw})` : r.label;
  };
}

/// One lookup: a trade number and the query's own inputs, the gateway's record below,
/// kept in the cache (the list underneath follows).
function Lookup<T>({
  title,
  id,
  initial,
  fields,
  inputs,
  lookup: q,
  rows,
  command,
}: {
  title: string;
  id: string;
  initial: string;
  /// The wire fields of the inputs, whose broken rules show on them.
  fields: string[];
  inputs: (failure: FieldErrors) => ReactNode;
  lookup: UseMutationResult<T, Error, string>;
  rows: (record: T) => Row[];
  /// The lookup of a trade number as a `paydesk` command line, where the CLI has one.
  command?: (tradeNo: string) => CliCommand | null;
}) {
  const { t } = useTranslation();
  const [tradeNo, setTradeNo] = useState(initial);
  const failure = useFieldErrors(q.error);
  const closed = useGatewayClosed();
  return (
    <Card withBorder>
      <Title order={4} mb="xs">
        {title}
      </Title>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          q.mutate(tradeNo);
        }}
      >
        <Group align="flex-start" grow>
          <TextInput
            label={t("refunds.tradeNo")}
            required
            value={tradeNo}
            onChange={(e) => {
              failure.edited("tradeNo");
              setTradeNo(e.currentTarget.value);
            }}
            error={failure.err("tradeNo")}
            data-testid={`${id}-trade-no`}
          />
          {inputs(failure)}
        </Group>
        <Group mt="sm">
          <Button
            type="submit"
            loading={q.isPending}
            disabled={!!closed}
            data-testid={`${id}-lookup`}
          >
            {t("refunds.lookUp")}
          </Button>
          {command && tradeNo.trim() !== "" ? (
            <CopyCommand command={command(tradeNo)} testId={`${id}-command`} />
          ) : null}
        </Group>
      </form>
      {!failure.err("tradeNo", ...fields) && <ErrorAlert error={failure.error} />}
      {q.data && <Record testId={`${id}-record`} rows={rows(q.data)} />}
    </Card>
  );
}

function RefundLookup({ initial }: { initial: string }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const state = useStateText();
  const [refundNo, setRefundNo] = useState("");
  const lookup = useRefundLookup(refundNo);
  const profile = useProfileName();
  return (
    <Lookup
      title={t("refunds.v1Title")}
      command={(tradeNo) => (profile ? refundShowCommand({ profile, tradeNo, refundNo }) : null)}
      id="refund"
      initial={initial}
      fields={["refundNo"]}
      inputs={(failure) => (
        <TextInput
          label={t("refunds.refundNo")}
          required
          value={refundNo}
          onChange={(e) => {
            failure.edited("refundNo");
            setRefundNo(e.currentTarget.value);
          }}
          error={failure.err("refundNo")}
          data-testid="refund-refund-no"
        />
      )}
      lookup={lookup}
      rows={(r) => [
        [t("refunds.state"), state("refundState", r.state)],
        [t("refunds.refundNo"), r.refundNo],
        [t("refunds.amount"), formatMoney(r.refundAmount, r.refundCurrency, loc)],
        [t("refunds.refused"), formatMoney(r.refuseAmount, r.refuseCurrency, loc)],
        [
          t("refunds.actualRefused"),
          formatMoney(r.actualRefuseAmount, r.actualRefuseCurrency, loc),
        ],
        [t("refunds.fee"), formatMoney(r.tradeFee, r.refundCurrency, loc)],
        [t("refunds.received"), formatMoney(r.receiveAmount, r.refundCurrency, loc)],
        [t("refunds.settle"), state("settle", r.settle)],
        [t("refunds.message"), r.message],
      ]}
    />
  );
}

function OrderLookup({ initial }: { initial: string }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const state = useStateText();
  const [queryType, setQueryType] = useState<QueryType>("sales");
  const lookup = useOrderLookup(queryType);
  return (
    <Lookup
      title={t("refunds.v2Title")}
      id="query"
      initial={initial}
      fields={["queryType"]}
      inputs={(failure) => (
        <Select
          label={t("refunds.queryType")}
          allowDeselect={false}
          value={queryType}
          onChange={(v) => {
            failure.edited("queryType");
            setQueryType((v as QueryType | null) ?? "sales");
          }}
          data={QUERY_TYPES.map((x) => ({
            value: x,
            label: t(`refunds.types.${x}`),
          }))}
          error={failure.err("queryType")}
          data-testid="query-type"
        />
      )}
      lookup={lookup}
      rows={(r) => [
        [t("refunds.orderState"), state("orderState", r.state)],
        [t("refunds.status"), state("queryStatus", r.status)],
        [t("refunds.refundNo"), r.refundNo],
        [t("refunds.amount"), formatMoney(r.refundAmount, r.refundCurrency, loc)],
        [t("refunds.chargeback"), formatMoney(r.chargebackAmount, r.chargebackCurrency, loc)],
        [
          t("refunds.actualChargeback"),
          formatMoney(r.actualChargebackAmount, r.actualChargebackCurrency, loc),
        ],
        [t("refunds.fixedFee"), formatMoney(r.transactionFixedFee, r.currencyCode, loc)],
        [t("refunds.settle"), state("settle", r.settle)],
        [t("refunds.message"), r.message],
      ]}
    />
  );
}

/// A refund cached from the V2 query carries the order's state, not its own: its own
/// comes from the V1 refund query, asked here (and cached).
function RefundStateLookUp({ tradeNo, refundNo }: { tradeNo: string; refundNo: string }) {
  const { t } = useTranslation();
  const lookup = useRefundLookup(refundNo);
  return (
    <Button
      size="compact-xs"
      variant="light"
      loading={lookup.isPending}
      onClick={() => lookup.mutate(tradeNo)}
      data-testid="refund-state-look-up"
    >
      {t("reversedOrders.lookUp")}
    </Button>
  );
}

function Cached({ initial }: { initial: string }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const state = useStateText();
  const defaults = useMemo(
    () => ({ fields: { tradeNo: initial, kind: "all" }, sort: null }),
    [initial],
  );
  // Opened for an order (another screen's link): its number, not the last view.
  const tv = useTableView("reversals", COLUMNS, defaults, initial !== "");
  const tradeNo = tv.fields.tradeNo ?? "";
  const kind = tv.fields.kind || "all";
  const [debounced] = useDebouncedValue(tradeNo.trim(), 250);
  const list = useReversals(debounced);
  const rows = tv
    .rows(
      list.data ?? [],
      (r) => r.fetchedAt,
      (id, r) =>
        id === "kind"
          ? r.kind
          : id === "tradeNo"
            ? r.tradeNo
            : id === "refundNo"
              ? r.refundNo
              : id === "amount"
                ? Number(r.amount)
                : id === "state"
                  ? String(r.state ?? "")
                  : id === "fetched"
                    ? r.fetchedAt
                    : null,
    )
    .filter((r) => kind === "all" || r.kind === kind);
  return (
    <Card withBorder>
      <Group justify="space-between" mb="xs" align="flex-end">
        <Title order={4}>{t("refunds.cached")}</Title>
        <Group align="flex-end">
          <TextInput
            label={t("refunds.tradeNo")}
            size="xs"
            value={tradeNo}
            onChange={(e) => tv.setField("tradeNo", e.currentTarget.value)}
          />
          <SegmentedControl
            size="xs"
            value={kind}
            onChange={(v) => tv.setField("kind", v)}
            data={[
              { value: "all", label: t("common.all") },
              { value: "refund", label: t("refunds.refund") },
              { value: "chargeback", label: t("refunds.chargebackKind") },
            ]}
          />
        </Group>
        <TableViewBar tv={tv} screen="reversals" />
      </Group>
      {list.error && <ErrorAlert error={list.error} />}
      {rows.length === 0 ? (
        <Text c="dimmed" size="sm">
          {t("refunds.noneCached")}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={700}>
          <Table data-testid="reversals-table">
            <ViewHead tv={tv} />
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr key={`${r.kind}-${r.tradeNo}-${r.refundNo}`}>
                  {tv.shown.map((c) => (
                    <Table.Td key={c.id} style={{ width: c.width }}>
                      {c.id === "kind" ? (
                        <Badge variant="light" color={r.kind === "refund" ? "violet" : "orange"}>
                          {t(r.kind === "refund" ? "refunds.refund" : "refunds.chargebackKind")}
                        </Badge>
                      ) : null}
                      {c.id === "tradeNo" ? r.tradeNo : null}
                      {c.id === "refundNo" ? r.refundNo : null}
                      {c.id === "amount" ? formatMoney(r.amount, r.currency, loc) : null}
                      {c.id === "fee" ? formatMoney(r.fee, r.currency, loc) : null}
                      {c.id === "state"
                        ? state(r.kind === "refund" ? "refundState" : "queryStatus", r.state) ||
                          (r.kind === "refund" && r.refundNo ? (
                            <RefundStateLookUp tradeNo={r.tradeNo} refundNo={r.refundNo} />
                          ) : (
                            t("orders.notGiven")
                          ))
                        : null}
                      {c.id === "settle" ? state("settle", r.settle) : null}
                      {c.id === "fetched" ? formatDateTimeShort(r.fetchedAt, loc) : null}
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}

export function RefundsPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const initial = params.get("tradeNo") ?? "";
  return (
    <Stack data-testid="screen-refunds">
      <GatewayNotice />
      <Title order={2}>{t("refunds.title")}</Title>
      <RefundedOrders />
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
        <RefundLookup initial={initial} />
        <OrderLookup initial={initial} />
      </SimpleGrid>
      <Cached initial={initial} />
    </Stack>
  );
}
