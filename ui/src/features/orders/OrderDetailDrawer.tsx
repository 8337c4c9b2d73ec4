import {
  Alert,
  Badge,
  Button,
  Card,
  Drawer,
  Group,
  Loader,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { IconArrowBackUp, IconFileUpload, IconRefresh, IconUsersGroup } from "@tabler/icons-react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useLocation, useNavigate } from "react-router";
import { ErrorAlert, errorText, toastError, toastOk } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatDateTime, formatMoney, formatUtcDay } from "../../lib/format";
import type { CachedOrder, OrderRecord, SignatureStatus, SimulateAction } from "../../lib/types";
import { useAppStatus } from "../app/queries";
import { StateBadge } from "../app/StateBadge";
import { OrderPurpose } from "../money/PurposeFields";
import { CacheAsOf } from "./CacheAsOf";
import { OrderCustomer } from "./OrderCustomer";
import { LiveCachedDifference, OrderReversals } from "./OrderReversals";
import { OrderTimeline } from "./OrderTimeline";
import { useListedOrder, useOrderDetail, useSimulate, useSimulationActions } from "./queries";

const SIG_COLOR: Record<SignatureStatus, string> = {
  verified: "teal",
  not_signed: "gray",
  unchecked: "yellow",
};

function Rows({ rows }: { rows: [string, React.ReactNode][] }) {
  return (
    <Table>
      <Table.Tbody>
        {rows
          .filter(([, v]) => v !== null && v !== undefined && v !== "")
          .map(([k, v]) => (
            <Table.Tr key={k}>
              <Table.Th w={180}>{k}</Table.Th>
              <Table.Td>{v}</Table.Td>
            </Table.Tr>
          ))}
      </Table.Tbody>
    </Table>
  );
}

function Cached({ o }: { o: CachedOrder }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const m = (v: string | null) => (v ? formatMoney(v, o.currency, loc) : null);
  const f = (k: string) => t(`detail.field.${k}`);
  const notGiven = (
    <Text key="ng" span c="dimmed" size="sm" title={t("orders.notGivenWhy")}>
      {t("orders.notGiven")}
    </Text>
  );
  return (
    <Rows
      rows={[
        [f("tradeNo"), o.tradeNo],
        [f("merOrderNo"), o.merOrderNo],
        [f("state"), <StateBadge key="s" field="orderState" raw={o.state} />],
        [f("kind"), o.kind ? t(`orders.kind.${o.kind}`) : notGiven],
        [f("method"), o.method || notGiven],
        [f("sourceAmount"), m(o.sourceAmount)],
        [f("handlingFee"), m(o.handlingFee)],
        [f("receiveAmount"), m(o.receiveAmount)],
        [
          f("settleAmount"),
          o.settleAmount
            ? formatMoney(o.settleAmount, o.settlementCurrency || o.currency, loc)
            : null,
        ],
        [f("rollingReserve"), m(o.rollingReserve)],
        [
          f("rollingReserveStatus"),
          o.rollingReserveStatus === null ? null : (
            <StateBadge key="r" field="rollingReserveStatus" raw={o.rollingReserveStatus} />
          ),
        ],
        [f("transactionFixedFee"), m(o.transactionFixedFee)],
        [
          f("refundAmount"),
          o.refundAmount ? formatMoney(o.refundAmount, o.refundCurrency || o.currency, loc) : null,
        ],
        [
          f("settle"),
          o.settle === null ? null : <StateBadge key="st" field="settle" raw={o.settle} />,
        ],
        [f("refusalPayReason"), o.refusalPayReason],
        [f("message"), o.message],
        [
          f("created"),
          o.madeAt !== null ? (
            `${formatDateTime(o.madeAt, loc)} · ${t("orders.madeHere")}`
          ) : (
            <span key="c" data-testid="detail-day-only">
              {formatUtcDay(o.createdAt)} · {t("orders.dayOnly")}
            </span>
          ),
        ],
        [
          f("synced"),
          o.syncedAt !== null ? formatDateTime(o.syncedAt, loc) : t("orders.notListedYet"),
        ],
      ]}
    />
  );
}

function Live({ r }: { r: OrderRecord }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const f = (k: string) => t(`detail.field.${k}`);
  const cur = r.currencyCode;
  return (
    <Rows
      rows={[
        [
          f("status"),
          r.status ? (
            <span key="status" data-testid="detail-live-status" data-status={r.status}>
              <StateBadge field="queryStatus" raw={r.status} />
            </span>
          ) : null,
        ],
        [f("sourceAmount"), r.sourceAmount ? formatMoney(r.sourceAmount, cur, loc) : null],
        [f("receiveAmount"), r.receiveAmount ? formatMoney(r.receiveAmount, cur, loc) : null],
        [
          f("refundAmount"),
          r.refundAmount ? formatMoney(r.refundAmount, r.refundCurrency || cur, loc) : null,
        ],
        [
          f("chargebackAmount"),
          r.chargebackAmount
            ? formatMoney(r.chargebackAmount, r.chargebackCurrency || cur, loc)
            : null,
        ],
        [
          f("transactionFixedFee"),
          r.transactionFixedFee ? formatMoney(r.transactionFixedFee, cur, loc) : null,
        ],
        [
          f("settle"),
          r.settle === null ? null : <StateBadge key="s" field="settle" raw={r.settle} />,
        ],
        [f("message"), r.message],
      ]}
    />
  );
}

const ACTIONS: readonly SimulateAction[] = ["pay", "fail", "close", "settle", "release-reserve"];

export function Simulation({ tradeNo }: { tradeNo: string }) {
  const { t } = useTranslation();
  const sim = useSimulate(tradeNo);
  const actions = useSimulationActions(tradeNo);
  const applicable = actions.data ?? [];
  const can = (a: SimulateAction) => applicable.includes(a);
  const amountActions = can("refund") || can("chargeback");
  const [amount, setAmount] = useState("");
  const run = (action: SimulateAction, withAmount: boolean) =>
    sim.mutate(
      { action, amount: withAmount ? amount || null : null },
      {
        onSuccess: (refundNo) =>
          toastOk(
            refundNo
              ? t("detail.simulatedRefund", { action: t(`detail.action.${action}`), refundNo })
              : t("detail.simulated", { action: t(`detail.action.${action}`) }),
          ),
        onError: (e) => toastError(t, e),
      },
    );
  return (
    <Card withBorder data-testid="simulation">
      <Title order={3} size="h5">
        {t("detail.simulate")}
      </Title>
      <Text size="xs" c="dimmed" mb="sm">
        {t("detail.simulateHint")}
      </Text>
      <Group gap="xs">
        {ACTIONS.filter(can).map((a) => (
          <Button
            key={a}
            size="xs"
            variant="light"
            loading={sim.isPending && sim.variables?.action === a}
            onClick={() => run(a, false)}
            data-testid={`simulate-${a}`}
          >
            {t(`detail.action.${a}`)}
          </Button>
        ))}
      </Group>
      {actions.data && applicable.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="simulate-none">
          {t("detail.simulateNone")}
        </Text>
      ) : null}
      {amountActions ? (
        <Group gap="xs" mt="sm" align="flex-end">
          <TextInput
            size="xs"
            label={t("detail.amount")}
            value={amount}
            onChange={(e) => setAmount(e.currentTarget.value)}
            inputMode="decimal"
            w={120}
          />
          {can("refund") ? (
            <Button
              size="xs"
              variant="light"
              color="violet"
              onClick={() => run("refund", true)}
              data-testid="simulate-refund"
            >
              {t("detail.action.refund")}
            </Button>
          ) : null}
          {can("chargeback") ? (
            <Button
              size="xs"
              variant="light"
              color="orange"
              onClick={() => run("chargeback", true)}
              data-testid="simulate-chargeback"
            >
              {t("detail.action.chargeback")}
            </Button>
          ) : null}
        </Group>
      ) : null}
      {sim.error ? (
        <Text size="sm" c="red" mt="xs" role="alert">
          {errorText(t, sim.error)}
        </Text>
      ) : null}
    </Card>
  );
}

export function OrderDetailDrawer({
  tradeNo,
  onClose,
}: {
  tradeNo: string | null;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const q = useOrderDetail(tradeNo);
  // The cached figures the table read are shown while the gateway is asked, marked so.
  const listed = useListedOrder(tradeNo);
  const status = useAppStatus();
  const navigate = useNavigate();
  const d = q.data;
  // Closing (Escape, the close button, a click outside) hides the drawer at once, in
  // this component's own state, instead of once the router has rendered the screen
  // under the address without the order; asked again while it closes, it does not
  // navigate again. Any later address (the order opened again included) is a new key.
  const location = useLocation();
  const [closedAt, setClosedAt] = useState<string | null>(null);
  const opened = !!tradeNo && closedAt !== location.key;
  const close = () => {
    if (!opened) return;
    setClosedAt(location.key);
    onClose();
  };
  return (
    <Drawer
      opened={opened}
      onClose={close}
      position="right"
      size="xl"
      title={t("detail.title", { tradeNo })}
    >
      <Stack data-testid="order-detail" data-trade-no={tradeNo}>
        <Group>
          <Button
            variant="default"
            size="xs"
            leftSection={<IconRefresh size={14} />}
            onClick={() => q.refetch()}
            loading={q.isFetching}
            data-testid="detail-refresh"
          >
            {t("common.refresh")}
          </Button>
          {d?.order?.method === "SEPA" && tradeNo ? (
            <Button
              variant="default"
              size="xs"
              leftSection={<IconFileUpload size={14} />}
              onClick={() => {
                close();
                navigate(`/review?tradeNo=${encodeURIComponent(tradeNo)}`);
              }}
              data-testid="detail-review"
            >
              {t("detail.review")}
            </Button>
          ) : null}
          <Button
            variant="default"
            size="xs"
            leftSection={<IconArrowBackUp size={14} />}
            onClick={() => {
              if (!tradeNo) return;
              close();
              navigate(`/refunds?tradeNo=${encodeURIComponent(tradeNo)}`);
            }}
          >
            {t("detail.reversals")}
          </Button>
        </Group>
        {q.isPending && !listed ? <Loader /> : null}
        {q.isPending && listed ? (
          <Card withBorder data-testid="detail-early">
            <Group justify="space-between" mb="xs">
              <Title order={3} size="h5">
                {t("detail.cached")}
              </Title>
              <Badge
                color="gray"
                variant="light"
                leftSection={<Loader size={10} />}
                data-testid="detail-checking"
              >
                {t("detail.checking")}
              </Badge>
            </Group>
            <Cached o={listed} />
          </Card>
        ) : null}
        <ErrorAlert error={q.error} />
        {d ? (
          <>
            {d.order?.outsideTeam ? (
              <Alert
                color="orange"
                icon={<IconUsersGroup size={18} />}
                title={t("orders.outsideTeam")}
                data-testid="detail-outside-team"
                mb="xs"
              >
                {t("orders.outsideTeamWhy")}
              </Alert>
            ) : null}
            {status.data?.sandbox && tradeNo && d.order ? <Simulation tradeNo={tradeNo} /> : null}
            <Card withBorder>
              <Group justify="space-between" mb="xs">
                <Title order={3} size="h5">
                  {t("detail.live")}
                </Title>
                {d.signature ? (
                  <Badge
                    color={SIG_COLOR[d.signature]}
                    variant="light"
                    data-testid="detail-signature"
                    data-status={d.signature}
                  >
                    {t(`detail.sigShort.${d.signature}`)}
                  </Badge>
                ) : null}
              </Group>
              {d.signature ? (
                <Text size="xs" c="dimmed" mb="xs">
                  {t("detail.signature")}: {t(`detail.sig.${d.signature}`)}
                </Text>
              ) : null}
              {d.live ? <Live r={d.live} /> : null}
              {d.live && d.order ? <LiveCachedDifference live={d.live} cached={d.order} /> : null}
              {d.liveError ? (
                <Text c="red" size="sm" role="alert">
                  {t("detail.liveFailed", { error: d.liveError })}
                </Text>
              ) : null}
            </Card>
            {tradeNo ? <OrderCustomer tradeNo={tradeNo} /> : null}
            <Card withBorder>
              <Title order={3} size="h5" mb="xs">
                {t("detail.cached")}
              </Title>
              {d.order ? <Cached o={d.order} /> : <Text c="dimmed">{t("detail.notCached")}</Text>}
              <CacheAsOf testId="detail-as-of" />
            </Card>
            {tradeNo ? <OrderReversals tradeNo={tradeNo} /> : null}
            <Card withBorder>
              <Title order={3} size="h5" mb="xs">
                {t("detail.timeline")}
              </Title>
              <OrderPurpose events={d.timeline} />
              <OrderTimeline events={d.timeline} />
            </Card>
          </>
        ) : null}
      </Stack>
    </Drawer>
  );
}
