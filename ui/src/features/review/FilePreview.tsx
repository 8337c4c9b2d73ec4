import { ActionIcon, Group, Image, Paper, Stack, Text } from "@mantine/core";
import { IconFileTypePdf, IconTrash } from "@tabler/icons-react";
import { useTranslation } from "react-i18next";
import type { FileCheck } from "../../lib/types";
import { CodeSelect } from "./CodeSelect";
import { PdfThumb } from "./PdfThumb";

/// A file chosen for the submission, as Rust checked it, with its type code.
export type Chosen = { check: FileCheck; code: string };

/// A chosen file: its preview, facts and type code, and a button that removes it.
export function FilePreview({
  f,
  onCode,
  onRemove,
}: {
  f: Chosen;
  onCode: (c: string) => void;
  onRemove: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Paper withBorder p="xs" data-testid="review-file" data-name={f.check.name}>
      <Group wrap="nowrap" align="flex-start">
        {f.check.suffix === ".pdf" && f.check.preview ? (
          <PdfThumb dataUrl={f.check.preview} label={f.check.name} />
        ) : f.check.preview ? (
          <Image src={f.check.preview} alt={f.check.name} w={72} h={72} fit="contain" />
        ) : (
          <IconFileTypePdf size={56} aria-hidden />
        )}
        <Stack gap={4} style={{ flex: 1 }}>
          <Text size="sm" fw={500} style={{ wordBreak: "break-all" }}>
            {f.check.name}
          </Text>
          <Text size="xs" c="dimmed">
            {t("review.fileFacts", {
              kind: f.check.suffix.slice(1).toUpperCase(),
              count: f.check.size,
            })}
            {f.check.pages !== null ? ` · ${t("review.pages", { count: f.check.pages })}` : ""}
          </Text>
          <CodeSelect
            kind="file"
            label={t("review.fileType")}
            size="xs"
            value={f.code}
            onChange={onCode}
            testId="review-file-type"
          />
        </Stack>
        <ActionIcon
          variant="subtle"
          aria-label={t("review.removeFile", { name: f.check.name })}
          onClick={onRemove}
        >
          <IconTrash size={16} />
        </ActionIcon>
      </Group>
    </Paper>
  );
}
