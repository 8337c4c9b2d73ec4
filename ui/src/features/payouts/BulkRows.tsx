import { Badge, Stack, Table, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { locale } from "../../i18n";
import { formatMoney } from "../../lib/format";
import type { BulkOutcome, BulkPlan, RowAction } from "../../lib/types";
import { PayeeTag } from "../beneficiaries/PayeeNote";
import { rowReason } from "./reason";

export const ACTION_COLORS: Record<RowAction, string> = {
  send: "blue",
  paid: "teal",
  look_up: "orange",
  held: "yellow",
};

const RESULT_COLORS: Record<string, string> = {
  accepted: "teal",
  rejected: "red",
  unknown: "orange",
  sending: "orange",
  pending: "gray",
  held: "yellow",
  invalid: "red",
};

function ResultBadge({ status }: { status: string }) {
  const { t } = useTranslation();
  return (
    <Badge
      color={RESULT_COLORS[status] ?? "gray"}
      variant="light"
      data-testid="bulk-row-status"
      data-status={status}
    >
      {t(`payouts.rowStatus.${status}`, { defaultValue: status })}
    </Badge>
  );
}

/// Every valid row of a bulk file: what it pays, what the desk will do with it, and,
/// once sent, what became of it.
export function BulkRows({ plan, out }: { plan: BulkPlan; out: BulkOutcome | undefined }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const results = new Map((out?.results ?? []).map((r) => [r.line, r]));
  return (
    <Table.ScrollContainer minWidth={900} mah={420}>
      <Table striped stickyHeader data-testid="bulk-rows">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t("payouts.line")}</Table.Th>
            <Table.Th>{t("payouts.kind")}</Table.Th>
            <Table.Th>{t("payouts.amount")}</Table.Th>
            <Table.Th>{t("payouts.account")}</Table.Th>
            <Table.Th>{t("payouts.beneficiary")}</Table.Th>
            <Table.Th>{t("payouts.merOrderNo")}</Table.Th>
            <Table.Th>{t("payouts.action")}</Table.Th>
            {out && <Table.Th>{t("payouts.outcome")}</Table.Th>}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {plan.rows.map((r) => {
            const res = results.get(r.line);
            const no = res?.merOrderNo || r.merOrderNo;
            return (
              <Table.Tr
                key={r.line}
                data-line={r.line}
                data-action={r.action}
                data-mer-order-no={no}
                data-outcome={res?.status ?? ""}
              >
                <Table.Td>{r.line}</Table.Td>
                <Table.Td>{r.payout.kind}</Table.Td>
                <Table.Td>{formatMoney(r.payout.amount, r.payout.currency, loc)}</Table.Td>
                <Table.Td>
                  {r.payout.account}
                  {r.payout.bank ? (
                    <Text span size="xs" c="dimmed">
                      {` · ${r.payout.bank}`}
                    </Text>
                  ) : null}
                </Table.Td>
                <Table.Td data-testid="bulk-beneficiary">
                  {r.payout.beneficiary ||
                    (r.nameInFile ? (
                      <>
                        {r.nameInFile}
                        <Text span size="xs" c="dimmed" display="block">
                          {t("flows.bulk.nameNotSent")}
                        </Text>
                      </>
                    ) : (
                      <Text span size="sm" c="dimmed">
                        {t("payouts.noBeneficiary")}
                      </Text>
                    ))}
                  <PayeeTag payee={r.payout.payee} />
                </Table.Td>
                <Table.Td>{no}</Table.Td>
                <Table.Td>
                  <Stack gap={2}>
                    <Badge
                      color={ACTION_COLORS[r.action]}
                      variant="light"
                      data-testid="bulk-row-action"
                    >
                      {t(`payouts.actions.${r.action}`)}
                    </Badge>
                    <Text size="xs" c="dimmed" data-testid="bulk-row-reason">
                      {rowReason(t, r.why)}
                    </Text>
                    {r.earlier && r.earlier !== no && (
                      <Text size="xs" c="dimmed">
                        {t("payouts.earlier", { merOrderNo: r.earlier })}
                      </Text>
                    )}
                  </Stack>
                </Table.Td>
                {out && (
                  <Table.Td>
                    {res && (
                      <Stack gap={2}>
                        <ResultBadge status={res.status} />
                        {res.tradeNo && (
                          <Text size="xs">{t("payouts.tradeNoIs", { tradeNo: res.tradeNo })}</Text>
                        )}
                        {res.detail && (
                          <Text size="xs" c="dimmed">
                            {res.detail}
                          </Text>
                        )}
                      </Stack>
                    )}
                  </Table.Td>
                )}
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
