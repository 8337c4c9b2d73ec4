import { Badge, Card, Loader, Table, Text, Title } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { commands } from "../../bindings";
import { ErrorAlert } from "../../components/ErrorAlert";
import { StateBadge } from "../../components/StateBadge";
import { locale } from "../../i18n";
import { formatDateTimeShort, formatMoney } from "../../lib/format";
import { unwrap } from "../../lib/ipc";
import type { CachedOrder, OrderRecord } from "../../lib/types";
import { useStateMeanings } from "../app/queries";
import { orderKeys } from "./keys";

/// An order's refunds and chargebacks, looked up at the gateway as its page opens.
export function OrderReversals({ tradeNo }: { tradeNo: string }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const q = useQuery({
    queryKey: [...orderKeys.detail(tradeNo), "reversals"] as const,
    queryFn: () => unwrap(commands.orderReversals(tradeNo)),
  });
  const rows = q.data?.reversals ?? [];
  // What the lookup cached belongs on the order's timeline too: its page is read again
  // (only the page: this lookup is not asked again by it).
  const qc = useQueryClient();
  const found = q.dataUpdatedAt;
  useEffect(() => {
    if (found > 0) {
      void qc.invalidateQueries({ queryKey: orderKeys.detail(tradeNo), exact: true });
    }
  }, [found, qc, tradeNo]);
  return (
    <Card withBorder data-testid="detail-reversals" data-count={q.data ? rows.length : ""}>
      <Title order={3} size="h5" mb="xs">
        {t("orderReversals.title")}
      </Title>
      {q.isPending ? <Loader size="sm" /> : null}
      <ErrorAlert error={q.error} />
      {q.data && rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t("orderReversals.none")}
        </Text>
      ) : null}
      {rows.length > 0 ? (
        <Table withRowBorders={false} verticalSpacing={2}>
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr
                key={`${r.kind}-${r.refundNo}`}
                data-testid="detail-reversal"
                data-kind={r.kind}
              >
                <Table.Td>
                  <Badge variant="light" color={r.kind === "refund" ? "violet" : "orange"}>
                    {t(r.kind === "refund" ? "refunds.refund" : "refunds.chargebackKind")}
                  </Badge>
                </Table.Td>
                <Table.Td>{r.refundNo}</Table.Td>
                <Table.Td>{formatMoney(r.amount, r.currency, loc)}</Table.Td>
                <Table.Td>
                  {r.state ? (
                    <StateBadge
                      field={r.kind === "refund" ? "refundState" : "queryStatus"}
                      raw={r.state}
                    />
                  ) : (
                    t("orders.notGiven")
                  )}
                </Table.Td>
                <Table.Td>
                  <Text size="xs" c="dimmed">
                    {formatDateTimeShort(r.fetchedAt, loc)}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
      {(q.data?.notLookedUp ?? []).map((why) => (
        <Text key={why} size="xs" c="orange" data-testid="detail-reversals-not-looked-up">
          {t("orderReversals.notLookedUp", { why })}
        </Text>
      ))}
    </Card>
  );
}

/// Why the gateway's live answer and the cache differ, in words (nothing when they agree).
export function LiveCachedDifference({ live, cached }: { live: OrderRecord; cached: CachedOrder }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const meanings = useStateMeanings().data ?? [];
  const of = (field: string, raw: string | number | null | undefined) =>
    raw === null || raw === undefined || raw === ""
      ? undefined
      : meanings.find((m) => m.field === field && m.raw === String(raw))?.meaning;
  const liveMeaning = of("queryStatus", live.status);
  const cachedMeaning = of("orderState", cached.state);
  if (!liveMeaning || !cachedMeaning || liveMeaning === cachedMeaning) return null;
  const reversed = ["refunded", "partly_refunded", "charged_back"].includes(cachedMeaning);
  const key =
    reversed && liveMeaning === "success"
      ? "orderReversals.diffReversed"
      : "orderReversals.diffChanged";
  return (
    <Text size="sm" data-testid="detail-difference" data-kind={reversed ? "reversed" : "changed"}>
      {t(key, {
        live: t(`meaning.${liveMeaning}`, { raw: live.status }),
        cached: t(`meaning.${cachedMeaning}`, { raw: cached.state }),
        synced: cached.syncedAt !== null ? formatDateTimeShort(cached.syncedAt, loc) : "—",
      })}
    </Text>
  );
}
