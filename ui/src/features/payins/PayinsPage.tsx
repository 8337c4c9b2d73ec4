import {
  ActionIcon,
  Alert,
  Button,
  Card,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { IconExternalLink, IconPlus, IconTrash } from "@tabler/icons-react";
import { QRCodeSVG } from "qrcode.react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { DuplicateGuard, duplicateOf, useDuplicate } from "../../components/DuplicateGuard";
import { FormError, toastError } from "../../components/ErrorAlert";
import { CopyValue, ReceiptView } from "../../components/ReceiptView";
import { fieldError } from "../../lib/ipc";
import type { PayinForm, PayinMethod, ProductLine, Receipt } from "../../lib/types";
import { useEntryNow, useOpenPayUrl, useOrderNo } from "../money/queries";
import { useCreatePayin } from "./queries";

const METHODS: PayinMethod[] = [
  "WECHAT",
  "WECHAT_V1",
  "PIX",
  "APPLE_PAY",
  "CASH_APP",
  "GCASH",
  "SEPA",
  "VN_BANK",
];

/// The currency a method usually takes, filled in when the method is chosen.
const CURRENCY: Record<PayinMethod, string> = {
  WECHAT: "CNY",
  WECHAT_V1: "CNY",
  PIX: "BRL",
  APPLE_PAY: "USD",
  CASH_APP: "USD",
  GCASH: "PHP",
  SEPA: "EUR",
  VN_BANK: "VND",
};

const WALLETS: PayinMethod[] = ["APPLE_PAY", "CASH_APP", "GCASH"];

function blankForm(method: PayinMethod): Omit<PayinForm, "merOrderNo"> {
  return {
    method,
    amount: "",
    currency: CURRENCY[method],
    email: "",
    userId: "",
    returnUrl: "",
    ipAddress: "",
    notifyUrl: "",
    name: "",
    socialSecurityNumber: "",
    firstName: "",
    lastName: "",
    userAgent: navigator.userAgent,
    browser: {
      screenHeight: String(window.screen.height),
      screenWidth: String(window.screen.width),
      timeZoneOffset: String(new Date().getTimezoneOffset()),
      userAgent: navigator.userAgent,
      visitorId: "paydesk",
    },
    products: [{ name: "", price: "", quantity: "1", sku: "", url: "" }],
    osType: "ANDROID",
    terminal: "APP",
    paymentMethodStr: "BANK",
    productName: "",
    vnBankId: "970436",
  };
}

function PayResult({ receipt }: { receipt: Receipt }) {
  const { t } = useTranslation();
  const open = useOpenPayUrl();
  if (receipt.bank) {
    const b = receipt.bank;
    return (
      <Card withBorder data-testid="payin-bank">
        <Title order={4} mb="xs">
          {t("payins.bankTitle")}
        </Title>
        <Stack gap={4}>
          <CopyValue label={t("payins.reference")} value={b.reference} testId="bank-reference" />
          <CopyValue label="IBAN" value={b.iban} testId="bank-iban" />
          <CopyValue label={t("payins.beneficiary")} value={b.beneficiary} />
          <CopyValue label={t("payins.bankName")} value={b.bankName} />
          <CopyValue label={t("payins.bankAddress")} value={b.bankAddress} />
          <CopyValue label="BIC" value={b.bic} />
        </Stack>
      </Card>
    );
  }
  if (receipt.payUrl) {
    return (
      <Card withBorder data-testid="payin-pay-url">
        <Group align="flex-start" gap="lg">
          <div style={{ background: "white", padding: 8, borderRadius: 4 }}>
            <QRCodeSVG
              value={receipt.payUrl}
              size={160}
              title={t("payins.qr")}
              data-testid="payin-qr"
            />
          </div>
          <Stack gap="xs" style={{ flex: 1 }}>
            <Text size="sm">{t("payins.scan")}</Text>
            <CopyValue label={t("payins.payUrl")} value={receipt.payUrl} testId="pay-url" />
            <Button
              variant="default"
              w="fit-content"
              leftSection={<IconExternalLink size={16} />}
              loading={open.isPending}
              onClick={() =>
                receipt.payUrl && open.mutate(receipt.payUrl, { onError: (e) => toastError(t, e) })
              }
            >
              {t("payins.open")}
            </Button>
          </Stack>
        </Group>
      </Card>
    );
  }
  if (receipt.message) return <Alert variant="light">{receipt.message}</Alert>;
  return null;
}

/// HTTP 400 and 404 of the Vietnam-bank payin, said plainly.
function HttpRefusal({ code }: { code: string | null }) {
  const { t } = useTranslation();
  if (code !== "HTTP 404" && code !== "HTTP 400") return null;
  return (
    <Alert color="red" variant="light" data-testid="payin-http-refusal">
      {t(code === "HTTP 404" ? "payins.vn404" : "payins.vn400")}
    </Alert>
  );
}

export function PayinsPage() {
  const { t } = useTranslation();
  const [orderNo, renewOrderNo] = useOrderNo("PI");
  const [form, setForm] = useState(() => blankForm("WECHAT"));
  const dup = useDuplicate();
  const create = useCreatePayin(dup.settle);
  const set = <K extends keyof typeof form>(k: K, v: (typeof form)[K]) =>
    setForm((f) => ({ ...f, [k]: v }));
  const setProduct = (i: number, k: keyof ProductLine, v: string) =>
    setForm((f) => ({
      ...f,
      products: f.products.map((p, j) => (j === i ? { ...p, [k]: v } : p)),
    }));
  const err = (...fields: string[]) => fieldError(create.error, ...fields);
  const m = form.method;
  // A resend under the same number keeps the receipt it was made from until it answers.
  const [kept, setKept] = useState<Receipt | undefined>(undefined);
  const receipt = create.data ?? (create.isPending ? kept : undefined);
  const entry = useEntryNow(receipt?.entry ?? null);
  const submit = () => {
    if (!orderNo || create.isPending || receipt) return;
    dup.clear();
    create.mutate({ form: { ...form, merOrderNo: orderNo }, allowDuplicate: false });
  };
  /// The payin as sent, again under its number (`allowDuplicate` once confirmed).
  const resend = (allowDuplicate: boolean) => {
    const sent = create.variables?.form;
    if (!sent || create.isPending) return;
    setKept(receipt);
    create.mutate({ form: sent, allowDuplicate });
  };
  const next = () => {
    // A refused payin keeps what was typed, to correct it under a new order number.
    const refused = entry?.status === "rejected";
    create.reset();
    dup.clear();
    setKept(undefined);
    renewOrderNo();
    if (!refused) setForm(blankForm(m));
  };

  return (
    <Stack data-testid="screen-payins">
      <Title order={2}>{t("payins.title")}</Title>
      <Text c="dimmed" size="sm">
        {t("payins.intro")}
      </Text>
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
        <Card withBorder>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              submit();
            }}
          >
            <Stack gap="sm">
              <Select
                label={t("payins.method")}
                data={METHODS.map((x) => ({ value: x, label: t(`payins.methods.${x}`) }))}
                value={m}
                allowDeselect={false}
                onChange={(v) => {
                  if (!v) return;
                  const method = v as PayinMethod;
                  setForm((f) => ({ ...f, method, currency: CURRENCY[method] }));
                  create.reset();
                  dup.clear();
                }}
                data-testid="payin-method"
                disabled={!!receipt}
              />
              <TextInput
                label={t("payins.merOrderNo")}
                value={orderNo}
                readOnly
                description={t("payins.merOrderNoHint")}
              />
              <Group grow align="flex-start">
                <TextInput
                  label={t("payins.amount")}
                  required
                  value={form.amount}
                  onChange={(e) => set("amount", e.currentTarget.value)}
                  error={err("sourceAmount")}
                  inputMode="decimal"
                  data-testid="payin-amount"
                />
                <TextInput
                  label={t("payins.currency")}
                  required
                  value={form.currency}
                  onChange={(e) => set("currency", e.currentTarget.value.toUpperCase())}
                  error={err("currencyCode")}
                  maxLength={3}
                  data-testid="payin-currency"
                />
              </Group>
              <Group grow align="flex-start">
                <TextInput
                  label={t("payins.email")}
                  value={form.email}
                  onChange={(e) => set("email", e.currentTarget.value)}
                  error={err("email")}
                />
                <TextInput
                  label={t("payins.userId")}
                  value={form.userId}
                  onChange={(e) => set("userId", e.currentTarget.value)}
                />
              </Group>
              <TextInput
                label={t("payins.returnUrl")}
                value={form.returnUrl}
                onChange={(e) => set("returnUrl", e.currentTarget.value)}
                error={err("returnUrl")}
              />
              {m === "PIX" && (
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
              )}
              {m === "SEPA" && (
                <>
                  <Group grow align="flex-start">
                    <TextInput
                      label={t("payins.firstName")}
                      required
                      value={form.firstName}
                      onChange={(e) => set("firstName", e.currentTarget.value)}
                      error={err("billingFirstName")}
                      data-testid="payin-first-name"
                    />
                    <TextInput
                      label={t("payins.lastName")}
                      required
                      value={form.lastName}
                      onChange={(e) => set("lastName", e.currentTarget.value)}
                      error={err("billingLastName")}
                      data-testid="payin-last-name"
                    />
                  </Group>
                  <TextInput
                    label={t("payins.userAgent")}
                    required
                    value={form.userAgent}
                    onChange={(e) => set("userAgent", e.currentTarget.value)}
                    error={err("userAgent")}
                  />
                </>
              )}
              {(m === "APPLE_PAY" || m === "CASH_APP") && (
                <Card withBorder padding="xs">
                  <Text size="sm" fw={500} mb={4}>
                    {t("payins.browser")}
                  </Text>
                  <Group grow align="flex-start">
                    <TextInput
                      label={t("payins.screenWidth")}
                      value={form.browser.screenWidth}
                      onChange={(e) =>
                        set("browser", { ...form.browser, screenWidth: e.currentTarget.value })
                      }
                    />
                    <TextInput
                      label={t("payins.screenHeight")}
                      value={form.browser.screenHeight}
                      onChange={(e) =>
                        set("browser", { ...form.browser, screenHeight: e.currentTarget.value })
                      }
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
                    onChange={(e) =>
                      set("browser", { ...form.browser, userAgent: e.currentTarget.value })
                    }
                    error={err("browser")}
                  />
                </Card>
              )}
              {m === "GCASH" && (
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
              )}
              {WALLETS.includes(m) && (
                <Card withBorder padding="xs">
                  <Group justify="space-between" mb={4}>
                    <Text size="sm" fw={500}>
                      {t("payins.products")}
                    </Text>
                    <Button
                      size="compact-xs"
                      variant="default"
                      leftSection={<IconPlus size={12} />}
                      onClick={() =>
                        set("products", [
                          ...form.products,
                          { name: "", price: "", quantity: "1", sku: "", url: "" },
                        ])
                      }
                    >
                      {t("payins.addProduct")}
                    </Button>
                  </Group>
                  {form.products.map((p, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: product lines have no identity but their place
                    <Group key={i} grow align="flex-start" gap="xs">
                      <TextInput
                        label={t("payins.productName")}
                        required
                        value={p.name}
                        onChange={(e) => setProduct(i, "name", e.currentTarget.value)}
                        error={err(
                          `products[${i}].productName`,
                          `productInfoList[${i}].productName`,
                        )}
                        data-testid={`payin-product-${i}`}
                      />
                      <TextInput
                        label={t("payins.price")}
                        placeholder={t("payins.priceHint")}
                        value={p.price}
                        onChange={(e) => setProduct(i, "price", e.currentTarget.value)}
                        error={err(`products[${i}].price`, `productInfoList[${i}].price`)}
                      />
                      <TextInput
                        label={t("payins.quantity")}
                        value={p.quantity}
                        onChange={(e) => setProduct(i, "quantity", e.currentTarget.value)}
                        error={err(`products[${i}].quantity`, `productInfoList[${i}].quantity`)}
                      />
                      <ActionIcon
                        variant="subtle"
                        mt={26}
                        aria-label={t("payins.removeProduct")}
                        disabled={form.products.length === 1}
                        onClick={() =>
                          set(
                            "products",
                            form.products.filter((_, j) => j !== i),
                          )
                        }
                        style={{ flex: "0 0 auto" }}
                      >
                        <IconTrash size={16} />
                      </ActionIcon>
                    </Group>
                  ))}
                  {err("products", "productInfoList") &&
                    !form.products.some((_, i) =>
                      err(`products[${i}]`, `productInfoList[${i}]`),
                    ) && (
                      <Text c="red" size="sm">
                        {err("products", "productInfoList")}
                      </Text>
                    )}
                </Card>
              )}
              {m === "VN_BANK" && (
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
              )}
              <Group>
                {receipt ? (
                  <Button onClick={next} data-testid="payin-next">
                    {t("payins.another")}
                  </Button>
                ) : (
                  <Button
                    type="submit"
                    loading={create.isPending}
                    disabled={!orderNo}
                    data-testid="payin-submit"
                  >
                    {t("payins.create")}
                  </Button>
                )}
              </Group>
              <FormError
                error={duplicateOf(create.error) ? null : create.error}
                testId="payin-field-error"
              />
              <DuplicateGuard
                duplicate={dup.duplicate}
                sending={create.isPending}
                onConfirm={() => resend(true)}
              />
            </Stack>
          </form>
        </Card>
        <Stack>
          {receipt ? (
            <Card withBorder>
              <Title order={4} mb="xs">
                {t("payins.result")}
              </Title>
              <ReceiptView
                receipt={receipt}
                onRetry={() => resend(false)}
                retrying={create.isPending}
                retryTestId="payin-retry-same"
              >
                {receipt.entry.status === "rejected" && <HttpRefusal code={receipt.entry.code} />}
                <PayResult receipt={receipt} />
              </ReceiptView>
            </Card>
          ) : (
            <Card withBorder>
              <Text c="dimmed" size="sm">
                {t("payins.nothingYet")}
              </Text>
            </Card>
          )}
        </Stack>
      </SimpleGrid>
    </Stack>
  );
}
