import { Badge, Card, Loader, Table, Text, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatDateTimeShort, formatMoney } from "../../lib/format";
import type { CachedOrder, OrderRecord } from "../../lib/types";
import { useStateMeanings } from "../app/queries";
import { StateBadge } from "../app/StateBadge";
import { useOrderReversals } from "./queries";

/// An order's refunds and chargebacks, looked up at the gateway as its page opens.
export function OrderReversals({ tradeNo }: { tradeNo: string }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const q = useOrderReversals(tradeNo);
  const rows = q.data?.reversals ?? [];
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
