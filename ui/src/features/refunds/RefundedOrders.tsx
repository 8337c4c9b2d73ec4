import { Anchor, Card, Group, Table, Text, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { ErrorAlert } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatCount, formatDateTime, formatMoney, formatUtcDay } from "../../lib/format";
import type { OrderFilter } from "../../lib/types";
import { useStateMeanings } from "../app/queries";
import { StateBadge } from "../app/StateBadge";
import { CacheAsOf } from "../orders/CacheAsOf";
import { EMPTY_FILTER, useOrdersFirst } from "../orders/queries";

/// The list states Reports counts as refunds and chargebacks.
const REVERSED = ["refunded", "partly_refunded", "charged_back"];
const SHOWN = 200;

/// The cached orders that were refunded or charged back: what Reports counts, from the
/// same cache, each opening its order's page.
export function RefundedOrders() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const navigate = useNavigate();
  const meanings = useStateMeanings();
  const states = (meanings.data ?? [])
    .filter((m) => m.field === "orderState" && REVERSED.includes(m.meaning))
    .map((m) => Number(m.raw))
    .filter((n) => Number.isFinite(n));
  const filter: OrderFilter = { ...EMPTY_FILTER, states };
  const list = useOrdersFirst(["reversed", states], filter, SHOWN, states.length > 0);
  const rows = list.data?.rows ?? [];
  return (
    <Card withBorder data-testid="refunded-orders" data-total={list.data?.total ?? ""}>
      <Group justify="space-between" mb="xs" align="flex-start">
        <div>
          <Title order={4}>{t("reversedOrders.title")}</Title>
          <Text size="sm" c="dimmed">
            {t("reversedOrders.intro", { count: list.data?.total ?? 0 })}
          </Text>
        </div>
        <CacheAsOf testId="refunds-as-of" />
      </Group>
      <ErrorAlert error={list.error ?? meanings.error} />
      {list.data && rows.length === 0 ? (
        <Text c="dimmed" size="sm">
          {t("reversedOrders.none")}
        </Text>
      ) : null}
      {rows.length > 0 ? (
        <Table.ScrollContainer minWidth={700} mah={360} type="native">
          <Table stickyHeader data-testid="refunded-orders-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t("refunds.tradeNo")}</Table.Th>
                <Table.Th>{t("reversedOrders.state")}</Table.Th>
                <Table.Th>{t("reversedOrders.amount")}</Table.Th>
                <Table.Th>{t("reversedOrders.refunded")}</Table.Th>
                <Table.Th>{t("reversedOrders.created")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((o) => (
                <Table.Tr key={o.tradeNo} data-testid="refunded-order" data-trade-no={o.tradeNo}>
                  <Table.Td>
                    <Anchor
                      component="button"
                      type="button"
                      size="sm"
                      onClick={() => navigate(`/orders?order=${encodeURIComponent(o.tradeNo)}`)}
                    >
                      {o.tradeNo}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <StateBadge field="orderState" raw={o.state} />
                  </Table.Td>
                  <Table.Td>{formatMoney(o.sourceAmount, o.currency, loc)}</Table.Td>
                  <Table.Td>
                    {o.refundAmount
                      ? formatMoney(o.refundAmount, o.refundCurrency || o.currency, loc)
                      : t("orders.notGiven")}
                  </Table.Td>
                  <Table.Td>
                    {o.madeAt !== null ? formatDateTime(o.madeAt, loc) : formatUtcDay(o.createdAt)}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : null}
      {list.data && list.data.total > rows.length ? (
        <Text size="xs" c="dimmed" mt="xs">
          {t("reversedOrders.more", {
            shown: formatCount(rows.length, loc),
            total: formatCount(list.data.total, loc),
          })}
        </Text>
      ) : null}
    </Card>
  );
}
