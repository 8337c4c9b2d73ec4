import { Card, Group, Select, Text, TextInput } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { FieldsProps } from "./methods";

/// PIX (Brazil): the payer's name and CPF.
export function PixFields({ form, set, err }: FieldsProps) {
  const { t } = useTranslation();
  return (
    <Group grow align="flex-start">
      <TextInput
        label={t("payins.pixName")}
        required
        value={form.name}
        onChange={(e) => set("name", e.currentTarget.value)}
        error={err("name")}
        data-testid="payin-name"
      />
      <TextInput
        label={t("payins.ssn")}
        required
        value={form.socialSecurityNumber}
        onChange={(e) => set("socialSecurityNumber", e.currentTarget.value)}
        error={err("socialSecurityNumber")}
        data-testid="payin-ssn"
      />
    </Group>
  );
}

/// SEPA: the payer's name and browser.
export function SepaFields({ form, set, err }: FieldsProps) {
  const { t } = useTranslation();
  return (
    <>
      <Group grow align="flex-start">
        <TextInput
          label={t("payins.firstName")}
          required
          value={form.firstName}
          onChange={(e) => set("firstName", e.currentTarget.value)}
          error={err("firstName")}
          data-testid="payin-first-name"
        />
        <TextInput
          label={t("payins.lastName")}
          required
          value={form.lastName}
          onChange={(e) => set("lastName", e.currentTarget.value)}
          error={err("lastName")}
          data-testid="payin-last-name"
        />
      </Group>
      <TextInput
        label={t("payins.userAgent")}
        description={t("payins.userAgentOptional")}
        value={form.userAgent}
        onChange={(e) => set("userAgent", e.currentTarget.value)}
        error={err("userAgent")}
      />
    </>
  );
}

/// Apple Pay and Cash App: the payer's browser, as the gateway asks for it.
export function BrowserFields({ form, set, err }: FieldsProps) {
  const { t } = useTranslation();
  return (
    <Card withBorder padding="xs">
      <Text size="sm" fw={500} mb={4}>
        {t("payins.browser")}
      </Text>
      <Group grow align="flex-start">
        <TextInput
          label={t("payins.screenWidth")}
          value={form.browser.screenWidth}
          onChange={(e) => set("browser", { ...form.browser, screenWidth: e.currentTarget.value })}
        />
        <TextInput
          label={t("payins.screenHeight")}
          value={form.browser.screenHeight}
          onChange={(e) => set("browser", { ...form.browser, screenHeight: e.currentTarget.value })}
        />
        <TextInput
          label={t("payins.timeZoneOffset")}
          value={form.browser.timeZoneOffset}
          onChange={(e) =>
            set("browser", { ...form.browser, timeZoneOffset: e.currentTarget.value })
          }
        />
      </Group>
      <TextInput
        label={t("payins.userAgent")}
        required
        value={form.browser.userAgent}
        onChange={(e) => set("browser", { ...form.browser, userAgent: e.currentTarget.value })}
        error={err("browser")}
      />
    </Card>
  );
}

/// GCash: the payer's device.
export function GcashFields({ form, set, err }: FieldsProps) {
  const { t } = useTranslation();
  return (
    <Group grow align="flex-start">
      <Select
        label={t("payins.osType")}
        data={["ANDROID", "IOS", "WINDOWS", "MAC", "OTHER"]}
        value={form.osType}
        onChange={(v) => set("osType", v ?? "")}
        error={err("osType")}
      />
      <Select
        label={t("payins.terminal")}
        data={["APP", "WAP", "WEB"]}
        value={form.terminal}
        onChange={(v) => set("terminal", v ?? "")}
        error={err("terminal")}
      />
    </Group>
  );
}

/// Vietnam bank transfer: the bank, the payment method and the product.
export function VnBankFields({ form, set, err }: FieldsProps) {
  const { t } = useTranslation();
  return (
    <>
      <Group grow align="flex-start">
        <TextInput
          label={t("payins.vnBankId")}
          required
          value={form.vnBankId}
          onChange={(e) => set("vnBankId", e.currentTarget.value)}
          error={err("vnBankId")}
          data-testid="payin-vn-bank"
        />
        <TextInput
          label={t("payins.paymentMethodStr")}
          required
          value={form.paymentMethodStr}
          onChange={(e) => set("paymentMethodStr", e.currentTarget.value)}
          error={err("paymentMethodStr")}
        />
      </Group>
      <TextInput
        label={t("payins.productName")}
        required
        value={form.productName}
        onChange={(e) => set("productName", e.currentTarget.value)}
        error={err("productName")}
        data-testid="payin-vn-product"
      />
    </>
  );
}
