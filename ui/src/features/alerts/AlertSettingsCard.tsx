// The profile's alert thresholds (issue 35 item 4), in Settings: when an unknown outcome,
// a quiet sync or a waiting approved request becomes an alert, each currency's low
// balance, how long chargebacks and refusals stay, quiet hours and the system's
// notifications.
import {
  ActionIcon,
  Button,
  Card,
  Group,
  NumberInput,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { IconTrash } from "@tabler/icons-react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../../components/ErrorAlert";
import type { AlertSettings } from "../../lib/types";
import { useAlertSettings, useSaveAlertSettings } from "./queries";

type Row = { currency: string; amount: string };

export function AlertSettingsCard() {
  const { t } = useTranslation();
  const current = useAlertSettings();
  const save = useSaveAlertSettings();
  const [s, setS] = useState<AlertSettings | null>(null);
  const [rows, setRows] = useState<Row[]>([]);
  useEffect(() => {
    if (current.data) {
      setS(current.data);
      setRows(
        Object.entries(current.data.lowBalance).map(([currency, amount]) => ({
          currency,
          amount: amount ?? "",
        })),
      );
    }
  }, [current.data]);
  if (!s) return null;
  const num = (v: string | number, was: number) => (typeof v === "number" ? v : Number(v) || was);
  const submit = () => {
    const lowBalance: Record<string, string> = {};
    for (const r of rows) {
      const c = r.currency.trim().toUpperCase();
      if (c !== "" || r.amount.trim() !== "") lowBalance[c] = r.amount.trim();
    }
    save.mutate({ ...s, lowBalance });
  };
  return (
    <Card withBorder data-testid="alert-settings">
      <Stack gap="sm">
        <Title order={2} size="h4">
          {t("alerts.settings.title")}
        </Title>
        <Text size="sm" c="dimmed">
          {t("alerts.settings.hint")}
        </Text>
        <Group grow align="flex-start">
          <NumberInput
            label={t("alerts.settings.unknownAfterMinutes")}
            min={1}
            value={s.unknownAfterMinutes}
            onChange={(v) => setS({ ...s, unknownAfterMinutes: num(v, s.unknownAfterMinutes) })}
            data-testid="alert-unknown-minutes"
          />
          <NumberInput
            label={t("alerts.settings.syncStaleHours")}
            min={1}
            value={s.syncStaleHours}
            onChange={(v) => setS({ ...s, syncStaleHours: num(v, s.syncStaleHours) })}
          />
          <NumberInput
            label={t("alerts.settings.recentDays")}
            min={1}
            value={s.recentDays}
            onChange={(v) => setS({ ...s, recentDays: num(v, s.recentDays) })}
          />
          <NumberInput
            label={t("alerts.settings.workerWaitMinutes")}
            min={1}
            value={s.workerWaitMinutes}
            onChange={(v) => setS({ ...s, workerWaitMinutes: num(v, s.workerWaitMinutes) })}
          />
        </Group>
        <Text size="sm" fw={600}>
          {t("alerts.settings.lowBalance")}
        </Text>
        {rows.map((r, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity while typed
          <Group key={i} align="flex-end">
            <TextInput
              label={t("alerts.settings.currency")}
              w={120}
              value={r.currency}
              onChange={(e) =>
                setRows(rows.map((x, j) => (j === i ? { ...x, currency: e.target.value } : x)))
              }
              data-testid={`alert-low-currency-${i}`}
            />
            <TextInput
              label={t("alerts.settings.under")}
              w={200}
              value={r.amount}
              onChange={(e) =>
                setRows(rows.map((x, j) => (j === i ? { ...x, amount: e.target.value } : x)))
              }
              data-testid={`alert-low-amount-${i}`}
            />
            <ActionIcon
              variant="subtle"
              color="gray"
              size="lg"
              aria-label={t("alerts.settings.remove")}
              onClick={() => setRows(rows.filter((_, j) => j !== i))}
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        ))}
        <Group>
          <Button
            variant="default"
            size="xs"
            onClick={() => setRows([...rows, { currency: "MXN", amount: "" }])}
            data-testid="alert-low-add"
          >
            {t("alerts.settings.addCurrency")}
          </Button>
        </Group>
        <Switch
          label={t("alerts.settings.systemNotifications")}
          checked={s.systemNotifications}
          onChange={(e) => setS({ ...s, systemNotifications: e.currentTarget.checked })}
        />
        <Switch
          label={t("alerts.settings.quietHours")}
          checked={s.quietHours !== null}
          onChange={(e) =>
            setS({
              ...s,
              quietHours: e.currentTarget.checked ? { from: "22:00", to: "07:00" } : null,
            })
          }
        />
        {s.quietHours ? (
          <Group align="flex-end">
            <TextInput
              label={t("alerts.settings.quietFrom")}
              w={120}
              value={s.quietHours.from}
              onChange={(e) =>
                s.quietHours &&
                setS({ ...s, quietHours: { ...s.quietHours, from: e.target.value } })
              }
            />
            <TextInput
              label={t("alerts.settings.quietTo")}
              w={120}
              value={s.quietHours.to}
              onChange={(e) =>
                s.quietHours && setS({ ...s, quietHours: { ...s.quietHours, to: e.target.value } })
              }
            />
          </Group>
        ) : null}
        <Text size="xs" c="dimmed">
          {t("alerts.settings.quietZone")}
        </Text>
        {save.error ? <ErrorAlert error={save.error} /> : null}
        <Group>
          <Button onClick={submit} loading={save.isPending} data-testid="alert-settings-save">
            {t("alerts.settings.save")}
          </Button>
          {save.isSuccess ? (
            <Text size="sm" c="dimmed" data-testid="alert-settings-saved">
              {t("alerts.settings.saved")}
            </Text>
          ) : null}
        </Group>
      </Stack>
    </Card>
  );
}
