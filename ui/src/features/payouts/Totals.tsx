import { Stack, Table, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { locale } from "../../i18n";
import { formatCount, formatMoney } from "../../lib/format";
import type { CurrencyTotal } from "../../lib/types";

/// Per currency: how many, how much, and the fees (an estimate from an earlier payout,
/// or said to be unknown: the gateway states no fee before a payout).
export function Totals({ totals, testId }: { totals: CurrencyTotal[]; testId: string }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  if (totals.length === 0) return null;
  return (
    <Table withRowBorders={false} verticalSpacing={2} data-testid={testId}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t("payouts.currency")}</Table.Th>
          <Table.Th>{t("payouts.count")}</Table.Th>
          <Table.Th>{t("payouts.total")}</Table.Th>
          <Table.Th>{t("payouts.fees")}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {totals.map((x) => (
          <Table.Tr key={x.currency} data-currency={x.currency} data-amount={x.amount}>
            <Table.Td>{x.currency}</Table.Td>
            <Table.Td>{formatCount(x.count, loc)}</Table.Td>
            <Table.Td>{formatMoney(x.amount, x.currency, loc)}</Table.Td>
            <Table.Td data-fee={x.feeEstimate ?? ""}>
              {x.feeEstimate !== null ? (
                <Stack gap={0}>
                  <Text size="sm">
                    {t("payouts.feeEstimate", { fee: formatMoney(x.feeEstimate, x.currency, loc) })}
                  </Text>
                  {x.feeFrom && (
                    <Text size="xs" c="dimmed">
                      {t("payouts.feeFrom", { no: x.feeFrom })}
                    </Text>
                  )}
                </Stack>
              ) : (
                <Text size="sm" c="dimmed">
                  {t("payouts.feesUnknown")}
                </Text>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
