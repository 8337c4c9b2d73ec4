import { Button, Group, TextInput } from "@mantine/core";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import type { Reporting_Serialize } from "../../bindings";
import { ErrorAlert, toastOk } from "../../components/ErrorAlert";
import { fieldError } from "../../lib/ipc";
import { useSaveReportSettings } from "./queries";

/// The most days a change horizon may reach back (the core's rule: 1 to 3650).
export const MAX_HORIZON_DAYS = 3650;

/// The days typed, when they are a whole number of days from 1 to 3650; else null.
export function horizonDays(text: string): number | null {
  const s = text.trim();
  if (!/^[0-9]+$/.test(s)) return null;
  const n = Number(s);
  return n >= 1 && n <= MAX_HORIZON_DAYS ? n : null;
}

/// The change horizon of the active profile (days back within which refunds and
/// chargebacks still come to finished orders: their windows are read again on a
/// schedule while the desk runs), set beside the business zone it is kept with.
export function HorizonSetting({ settings }: { settings: Reporting_Serialize | undefined }) {
  const { t } = useTranslation();
  const saved = settings?.changeHorizonDays;
  const [text, setText] = useState(saved === undefined ? "" : String(saved));
  useEffect(() => {
    if (saved !== undefined) setText(String(saved));
  }, [saved]);
  const save = useSaveReportSettings();
  const days = horizonDays(text);
  const local = text.trim() !== "" && days === null ? t("reports.horizonRule") : undefined;
  const error = local ?? fieldError(save.error, "changeHorizonDays");
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (days !== null)
          save.mutate(
            { businessZone: settings?.businessZone ?? "UTC", changeHorizonDays: days },
            {
              onSuccess: (r) => toastOk(t("reports.horizonSaved", { count: r.changeHorizonDays })),
            },
          );
      }}
    >
      <TextInput
        label={t("reports.horizon")}
        description={t("reports.horizonHint")}
        inputMode="numeric"
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        error={error}
        disabled={settings === undefined}
        maw={520}
        data-testid="reports-horizon"
        // The button beside the box itself, the rule under both.
        inputContainer={(box) => (
          <Group gap="xs" wrap="nowrap">
            <div style={{ width: 120 }}>{box}</div>
            <Button
              type="submit"
              variant="light"
              disabled={days === null || days === saved}
              loading={save.isPending}
              data-testid="reports-horizon-save"
            >
              {t("reports.horizonSave")}
            </Button>
          </Group>
        )}
      />
      {fieldError(save.error, "changeHorizonDays") ? null : <ErrorAlert error={save.error} />}
    </form>
  );
}
