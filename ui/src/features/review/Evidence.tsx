import { Code, Stack, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { FileEvidence } from "../../lib/types";

/// What a submission sent, file by file: its name, type and size, and the SHA-256 of its
/// bytes (the evidence the desk keeps; never the bytes).
export function Evidence({ files }: { files: FileEvidence[] }) {
  const { t } = useTranslation();
  if (files.length === 0) return null;
  return (
    <Stack gap={4}>
      {files.map((f, i) => (
        <Stack
          // biome-ignore lint/suspicious/noArrayIndexKey: the same file may go twice
          key={i}
          gap={0}
          data-testid="review-evidence"
          data-name={f.name}
          data-sha256={f.sha256}
          data-size={f.size}
        >
          <Text size="xs">
            {t("reviewDesk.evidenceFile", {
              name: f.name,
              type: f.mediaType,
              code: f.fileType,
              count: f.size,
            })}
          </Text>
          <Text size="xs" c="dimmed">
            {t("reviewDesk.sha256")}{" "}
            <Code style={{ wordBreak: "break-all", fontSize: "var(--mantine-font-size-xs)" }}>
              {f.sha256}
            </Code>
          </Text>
        </Stack>
      ))}
    </Stack>
  );
}
