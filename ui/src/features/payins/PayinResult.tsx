import { Alert, Button, Card, Group, Stack, Text, Title } from "@mantine/core";
import { IconExternalLink } from "@tabler/icons-react";
import { QRCodeSVG } from "qrcode.react";
import { useTranslation } from "react-i18next";
import { toastError } from "../../components/ErrorAlert";
import type { Receipt } from "../../lib/types";
import { useOpenPayUrl } from "../money/queries";
import { CopyValue, ReceiptView } from "../money/ReceiptView";

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

/// The payin's receipt, with how to pay (a link and its QR code, or bank details), or a
/// word that nothing was sent yet.
export function PayinResult({
  receipt,
  onRetry,
  retrying,
}: {
  receipt: Receipt | undefined;
  onRetry: () => void;
  retrying: boolean;
}) {
  const { t } = useTranslation();
  return (
    <Stack>
      {receipt ? (
        <Card withBorder>
          <Title order={4} mb="xs">
            {t("payins.result")}
          </Title>
          <ReceiptView
            receipt={receipt}
            onRetry={onRetry}
            retrying={retrying}
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
  );
}
