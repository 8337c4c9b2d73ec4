import { Alert, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconAlertTriangle } from "@tabler/icons-react";
import type { TFunction } from "i18next";
import { useTranslation } from "react-i18next";
import { brokenRuleText, coreError, fieldOf } from "../lib/ipc";
import type { CoreError } from "../lib/types";

/// One line for people, from anything thrown.
export function errorText(t: TFunction, e: unknown): string {
  return coreText(t, coreError(e));
}

/// One line for people, from the core error's code and fields.
export function coreText(t: TFunction, c: CoreError): string {
  switch (c.code) {
    case "validation":
      // The field by its label where the desk has one, not its wire name.
      return t("errors.validation", {
        field: t(`fields.${c.field}`, { defaultValue: c.field }),
        rule: brokenRuleText(c),
      });
    case "rejected":
      return t("errors.rejected", { code: c.gateway_code, message: c.message });
    case "duplicate":
      return t("errors.duplicate", {
        merOrderNo: c.earlier_mer_order_no,
        status: t(`journal.${c.earlier_status}`, { defaultValue: c.earlier_status }),
        summary: c.summary,
      });
    case "cancelled":
      return t("errors.cancelled");
    default:
      return t(`errors.${c.code}`, { message: c.message });
  }
}

export function ErrorAlert({ error, title }: { error: unknown; title?: string }) {
  const { t } = useTranslation();
  if (!error) return null;
  return (
    <Alert
      color="red"
      variant="light"
      icon={<IconAlertTriangle size={18} />}
      title={title ?? t("errors.title")}
      role="alert"
      data-testid="error-alert"
      data-code={coreError(error).code}
    >
      {errorText(t, error)}
    </Alert>
  );
}

export function toastError(t: TFunction, e: unknown) {
  notifications.show({ color: "red", title: t("errors.title"), message: errorText(t, e) });
}

export function toastOk(message: string) {
  notifications.show({ color: "teal", message });
}

/// A form's failure: a broken rule as one line naming the field (the field shows it
/// too, when the form has it), anything else as an alert.
export function FormError({ error, testId }: { error: unknown; testId: string }) {
  const { t } = useTranslation();
  if (!error) return null;
  const f = fieldOf(error);
  if (!f) return <ErrorAlert error={error} />;
  return (
    <Text c="red" size="sm" data-testid={testId} data-field={f.field}>
      {/* The field by its label where the desk has one, as `coreText` names it. */}
      {t("errors.validation", {
        field: t(`fields.${f.field}`, { defaultValue: f.field }),
        rule: f.rule,
      })}
    </Text>
  );
}
