// Checked before it leaves (issue 35): on a payout's confirmation, the available balance
// of its currency (asked of the gateway now, or cached with its age, said plainly), the
// amount plus the fees this desk knows ("fee not known" when none is), what is left, and
// the profile's limits. A fresh balance short of it closes the send button (the core
// refuses it too); a stale one warns and offers a refresh.
import { Alert, Button, Group, Stack, Table, Text } from "@mantine/core";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatMoney } from "../../lib/format";
import { usePayoutFunds } from "./fundsQueries";

export function FundsCheck({
  currency,
  amount,
  onShort,
}: {
  currency: string;
  amount: string;
  /// Told whether a fresh balance is short of the payout (sending is refused then).
  onShort: (short: boolean) => void;
}) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const funds = usePayoutFunds(currency, amount);
  const f = funds.data;
  const blocked = !!f && f.fresh && f.short;
  useEffect(() => onShort(blocked), [blocked, onShort]);
  if (funds.error) return <ErrorAlert error={funds.error} />;
  if (!f) {
    return (
      <Text size="sm" c="dimmed" data-testid="funds-loading">
        {t("funds.title")}…
      </Text>
    );
  }
  const money = (v: string | null) => formatMoney(v, f.currency, loc);
  // "Asked just now" only when the gateway answered this refresh; when it could not be
  // asked, the cached balance is said to be cached, with its age, however young.
  const askedNow = f.fresh && !f.refreshError;
  const age =
    f.ageSecs === null || f.ageSecs === undefined
      ? ""
      : askedNow
        ? t("funds.fresh")
        : f.ageSecs < 120
          ? t("funds.ageSecs", { count: f.ageSecs })
          : t("funds.age", { count: Math.floor(f.ageSecs / 60) });
  const limit = (v: string | null) => (v === null ? t("funds.noLimit") : money(v));
  return (
    <Stack gap="xs" data-testid="funds-check" data-fresh={f.fresh} data-short={f.short}>
      <Table withRowBorders={false}>
        <Table.Tbody>
          <Table.Tr>
            <Table.Th>{t("funds.balance")}</Table.Th>
            <Table.Td data-testid="funds-balance">
              {f.balance === null ? (
                <Text size="sm" c="dimmed">
                  {t("funds.noBalance", { currency: f.currency })}
                </Text>
              ) : (
                <Group gap="xs">
                  <Text size="sm">{money(f.balance)}</Text>
                  <Text
                    size="xs"
                    c={askedNow ? "dimmed" : "yellow"}
                    data-testid="funds-age"
                    data-asked-now={askedNow}
                  >
                    {age}
                  </Text>
                </Group>
              )}
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{t("funds.total")}</Table.Th>
            <Table.Td data-testid="funds-total">
              <Group gap="xs">
                <Text size="sm">{money(f.total)}</Text>
                {f.fee === null ? (
                  <Text size="xs" c="dimmed" data-testid="funds-fee-unknown">
                    {t("funds.feeUnknown")}
                  </Text>
                ) : (
                  <Text size="xs" c="dimmed">
                    {t("funds.feeFrom", { fee: money(f.fee), from: f.feeFrom ?? "" })}
                  </Text>
                )}
              </Group>
            </Table.Td>
          </Table.Tr>
          {f.left !== null && (
            <Table.Tr>
              <Table.Th>{t("funds.left")}</Table.Th>
              <Table.Td data-testid="funds-left">
                <Text size="sm" c={f.short ? "red" : undefined} fw={f.short ? 600 : undefined}>
                  {money(f.left)}
                </Text>
              </Table.Td>
            </Table.Tr>
          )}
        </Table.Tbody>
      </Table>
      {(f.limitPerPayout !== null || f.limitPerDay !== null) && (
        <Text size="xs" c="dimmed" data-testid="funds-limits">
          {t("funds.limits", {
            perPayout: limit(f.limitPerPayout),
            perDay: limit(f.limitPerDay),
            used: money(f.usedToday),
          })}
        </Text>
      )}
      {f.refreshError && (
        <Text size="xs" c="yellow">
          {t("funds.refreshFailed", { error: f.refreshError })}
        </Text>
      )}
      {blocked && (
        <Alert color="red" variant="light" data-testid="funds-short">
          {t("funds.short", {
            balance: money(f.balance),
            total: money(f.total),
          })}
        </Alert>
      )}
      {f.balance !== null && !f.fresh && (
        <Alert color="yellow" variant="light" data-testid="funds-stale">
          <Group justify="space-between">
            <Text size="sm">{t("funds.stale")}</Text>
            <Button
              size="compact-sm"
              variant="light"
              loading={funds.isFetching}
              onClick={() => void funds.refetch()}
              data-testid="funds-refresh"
            >
              {t("funds.refresh")}
            </Button>
          </Group>
        </Alert>
      )}
    </Stack>
  );
}
