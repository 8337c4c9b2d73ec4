import { Alert, Button, Group, Image, Modal, Stack, Table, Text } from "@mantine/core";
import { IconAlertTriangle, IconFileTypePdf } from "@tabler/icons-react";
import { useTranslation } from "react-i18next";
import { CopyCommand } from "../../components/CopyCommand";
import { locale } from "../../i18n";
import type { CliCommand } from "../../lib/cliCommand";
import { formatCount } from "../../lib/format";
import { LiveCue } from "../app/LiveCue";
import { codeLabel } from "./CodeSelect";
import type { Chosen } from "./FilePreview";
import type { Info } from "./InfoItems";
import { PdfThumb } from "./PdfThumb";

/// What one submission will send, to be confirmed before it goes: a submission cannot be
/// taken back.
export type Pending = { tradeNo: string; info: Info[]; files: Chosen[] };

/// The last word before a review submission: the order, every information item and every
/// file (name, size, type and its thumbnail), then Send or Cancel. The Send button has
/// the focus, so Enter confirms and Escape cancels.
export function ReviewConfirm({
  pending,
  onConfirm,
  onCancel,
  sending,
  command = null,
}: {
  pending: Pending | null;
  onConfirm: () => void;
  onCancel: () => void;
  sending: boolean;
  /// The same submission as a `paydesk` command line.
  command?: CliCommand | null;
}) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const total = pending?.files.reduce((n, f) => n + f.check.size, 0) ?? 0;
  return (
    <Modal
      opened={!!pending}
      onClose={onCancel}
      title={t("reviewDesk.confirmTitle", { tradeNo: pending?.tradeNo ?? "" })}
      centered
      size="lg"
    >
      {pending && (
        <Stack data-testid="review-confirm" data-trade-no={pending.tradeNo}>
          <LiveCue />
          <Text size="sm" fw={500}>
            {t("reviewDesk.confirmInfo", { count: pending.info.length })}
          </Text>
          {pending.info.length > 0 && (
            <Table withRowBorders={false} data-testid="review-confirm-info">
              <Table.Tbody>
                {pending.info.map((i, n) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: items have no identity but their place
                  <Table.Tr key={n} data-testid="review-confirm-item">
                    <Table.Th w="40%">{codeLabel(t, "info", i.code)}</Table.Th>
                    <Table.Td style={{ wordBreak: "break-word" }}>{i.content}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
          <Text size="sm" fw={500}>
            {t("reviewDesk.confirmFiles", {
              count: pending.files.length,
              size: formatCount(total, loc),
            })}
          </Text>
          {pending.files.map((f) => (
            <Group
              key={f.check.path}
              wrap="nowrap"
              align="center"
              data-testid="review-confirm-file"
              data-name={f.check.name}
              data-size={f.check.size}
            >
              {f.check.suffix === ".pdf" && f.check.preview ? (
                <PdfThumb dataUrl={f.check.preview} label={f.check.name} size={48} />
              ) : f.check.preview ? (
                <Image src={f.check.preview} alt={f.check.name} w={48} h={48} fit="contain" />
              ) : (
                <IconFileTypePdf size={40} aria-hidden />
              )}
              <Stack gap={0} style={{ flex: 1, minWidth: 0 }}>
                <Text size="sm" style={{ wordBreak: "break-all" }}>
                  {f.check.name}
                </Text>
                <Text size="xs" c="dimmed">
                  {t("review.fileFacts", {
                    kind: f.check.suffix.slice(1).toUpperCase(),
                    count: f.check.size,
                  })}
                  {" · "}
                  {codeLabel(t, "file", f.code)}
                </Text>
              </Stack>
            </Group>
          ))}
          <Alert color="orange" variant="light" icon={<IconAlertTriangle size={16} />}>
            {t("reviewDesk.irreversible")}
          </Alert>
          <Group justify="space-between">
            <CopyCommand command={command} testId="review-command" />
            <Group>
              <Button variant="default" onClick={onCancel} data-testid="review-confirm-cancel">
                {t("common.cancel")}
              </Button>
              <Button
                color="red"
                loading={sending}
                onClick={onConfirm}
                data-autofocus
                data-testid="review-confirm-send"
              >
                {t("reviewDesk.send")}
              </Button>
            </Group>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
