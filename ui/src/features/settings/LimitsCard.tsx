// Settings: the profile's payout limits per currency (issue 35): the most one payout may
// be, and the most one business day's payouts may add up to. The core checks a payout
// and each bulk row against them before anything is sent.
import { Button, Card, Group, Stack, Text, TextInput, Title } from "@mantine/core";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { FormError, toastOk } from "../../components/ErrorAlert";
import { fieldError } from "../../lib/ipc";
import { usePayoutLimits, useSavePayoutLimits } from "./limitsQueries";

type Row = { currency: string; perPayout: string; perDay: string };

export function LimitsCard() {
  const { t } = useTranslation();
  const limits = usePayoutLimits();
  const save = useSavePayoutLimits();
  const [rows, setRows] = useState<Row[] | null>(null);
  useEffect(() => {
    if (limits.data && rows === null) {
      setRows(
        limits.data.currencies.map((c) => ({
          currency: c.currency,
          perPayout: c.perPayout ?? "",
          perDay: c.perDay ?? "",
        })),
      );
    }
  }, [limits.data, rows]);
  if (!rows) return null;
  const set = (i: number, r: Partial<Row>) =>
    setRows(rows.map((x, j) => (j === i ? { ...x, ...r } : x)));
  return (
    <Card withBorder data-testid="payout-limits">
      <Stack>
        <Title order={3}>{t("funds.settingsTitle")}</Title>
        <Text size="sm" c="dimmed">
          {t("funds.settingsHint")}
        </Text>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate(
              {
                currencies: rows.map((r) => ({
                  currency: r.currency,
                  perPayout: r.perPayout.trim() || null,
                  perDay: r.perDay.trim() || null,
                })),
              },
              {
                onSuccess: (l) => {
                  setRows(
                    l.currencies.map((c) => ({
                      currency: c.currency,
                      perPayout: c.perPayout ?? "",
                      perDay: c.perDay ?? "",
                    })),
                  );
                  toastOk(t("funds.saved"));
                },
              },
            );
          }}
        >
          <Stack gap="xs">
            {rows.map((r, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity until saved
              <Group key={i} align="flex-start" data-testid={`limit-row-${i}`}>
                <TextInput
                  label={t("funds.currency")}
                  value={r.currency}
                  onChange={(e) => set(i, { currency: e.currentTarget.value.toUpperCase() })}
                  maxLength={3}
                  w={100}
                  error={fieldError(save.error, `limits.${i}.currency`)}
                  data-testid={`limit-currency-${i}`}
                />
                <TextInput
                  label={t("funds.perPayout")}
                  value={r.perPayout}
                  onChange={(e) => set(i, { perPayout: e.currentTarget.value })}
                  inputMode="decimal"
                  error={fieldError(save.error, `limits.${i}.perPayout`)}
                  data-testid={`limit-per-payout-${i}`}
                />
                <TextInput
                  label={t("funds.perDay")}
                  value={r.perDay}
                  onChange={(e) => set(i, { perDay: e.currentTarget.value })}
                  inputMode="decimal"
                  error={fieldError(save.error, `limits.${i}.perDay`)}
                  data-testid={`limit-per-day-${i}`}
                />
                <Button
                  variant="subtle"
                  color="red"
                  mt={24}
                  onClick={() => setRows(rows.filter((_, j) => j !== i))}
                >
                  {t("funds.remove")}
                </Button>
              </Group>
            ))}
            <FormError error={save.error} testId="limits-error" />
            <Group>
              <Button
                variant="default"
                onClick={() => setRows([...rows, { currency: "", perPayout: "", perDay: "" }])}
                data-testid="limit-add"
              >
                {t("funds.add")}
              </Button>
              <Button type="submit" loading={save.isPending} data-testid="limit-save">
                {t("funds.save")}
              </Button>
            </Group>
          </Stack>
        </form>
      </Stack>
    </Card>
  );
}
