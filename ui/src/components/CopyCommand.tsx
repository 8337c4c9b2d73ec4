import { Button, Code, Group, Popover, Stack, Text, Tooltip } from "@mantine/core";
import { IconCheck, IconCopy, IconTerminal2 } from "@tabler/icons-react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { CliCommand } from "../lib/cliCommand";

/// The text on the clipboard: the Clipboard API where the webview grants it, else a
/// selected, hidden text area copied the old way. Whether it worked.
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    } finally {
      area.remove();
    }
  }
}

/// "Copy as command": the `paydesk` command line that does what this form or report does,
/// shown in a popover and copied to the clipboard, with what to know before running it
/// (the variable a CLABE is read from, the card number asked for, a filter the CLI lacks).
/// Nothing when there is no command yet (the profile not known).
export function CopyCommand({
  command,
  testId = "copy-command",
}: {
  command: CliCommand | null;
  testId?: string;
}) {
  const { t } = useTranslation();
  const [opened, setOpened] = useState(false);
  const [copied, setCopied] = useState<boolean | null>(null);
  if (!command) return null;
  const copy = async () => setCopied(await copyText(command.line));
  return (
    <Popover
      opened={opened}
      onChange={setOpened}
      width={560}
      position="bottom-start"
      withArrow
      shadow="md"
      trapFocus
      returnFocus
      closeOnEscape
    >
      <Popover.Target>
        <Tooltip label={t("cliCommand.posixHint")} multiline w={300} openDelay={400}>
          <Button
            variant="subtle"
            size="compact-sm"
            leftSection={<IconTerminal2 size={14} />}
            onClick={() => {
              const open = !opened;
              setOpened(open);
              setCopied(null);
              if (open) void copy();
            }}
            aria-expanded={opened}
            data-testid={testId}
          >
            {t("cliCommand.button")}
          </Button>
        </Tooltip>
      </Popover.Target>
      {/* Escape closes this panel only, not the confirmation it sits in: a modal leaves
          an Escape to elements marked `data-mantine-stop-propagation`. */}
      <Popover.Dropdown data-mantine-stop-propagation="true">
        <Stack gap="xs" data-testid={`${testId}-panel`}>
          <Text size="xs" c="dimmed">
            {t("cliCommand.posixHint")}
          </Text>
          <Code
            block
            data-testid={`${testId}-line`}
            style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere", userSelect: "text" }}
          >
            {command.line}
          </Code>
          {command.notes.map((n) => (
            <Text size="xs" key={n.key} data-testid={`${testId}-note-${n.key}`}>
              {t(`cliCommand.note.${n.key}`, n.values ?? {})}
            </Text>
          ))}
          <Group justify="space-between">
            <Text size="xs" c={copied === false ? "red" : "dimmed"} aria-live="polite">
              {copied === true
                ? t("cliCommand.copied")
                : copied === false
                  ? t("cliCommand.copyFailed")
                  : ""}
            </Text>
            <Group gap="xs">
              <Button
                size="compact-sm"
                variant="light"
                leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
                onClick={() => void copy()}
                data-mantine-stop-propagation="true"
                data-testid={`${testId}-copy`}
              >
                {t("cliCommand.copy")}
              </Button>
              <Button
                size="compact-sm"
                variant="default"
                onClick={() => setOpened(false)}
                data-mantine-stop-propagation="true"
              >
                {t("common.close")}
              </Button>
            </Group>
          </Group>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
