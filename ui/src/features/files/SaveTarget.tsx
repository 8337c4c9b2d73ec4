import { Alert, Button, Group, Text } from "@mantine/core";
import { IconAlertTriangle, IconFolderOpen } from "@tabler/icons-react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { toastError } from "../../components/ErrorAlert";
import { fileExists, saveAs } from "./queries";

/// Where an export is written, and never over a file without the user's yes: a typed
/// path that names a file already there asks first; a path chosen in the system's save
/// dialog was asked about there. `run(path, overwrite)` writes the export.
export function useSaveTarget(run: (path: string, overwrite: boolean) => void) {
  const { t } = useTranslation();
  const [asking, setAsking] = useState<string | null>(null);
  const submit = async (path: string) => {
    setAsking(null);
    try {
      if (path.trim() !== "" && (await fileExists(path))) setAsking(path);
      else run(path, false);
    } catch (e) {
      toastError(t, e);
    }
  };
  const choose = async (
    format: "csv" | "xlsx" | "pdf",
    suggested: string,
    setPath: (p: string) => void,
  ) => {
    setAsking(null);
    try {
      const chosen = await saveAs(format, suggested);
      if (chosen) {
        setPath(chosen);
        run(chosen, true);
      }
    } catch (e) {
      toastError(t, e);
    }
  };
  const replace = () => {
    setAsking(null);
    if (asking !== null) run(asking, true);
  };
  return { asking, submit, choose, replace, dismiss: () => setAsking(null) };
}

/// The question a typed path that names an existing file asks.
export function ReplaceQuestion({
  path,
  onReplace,
  onKeep,
}: {
  path: string | null;
  onReplace: () => void;
  onKeep: () => void;
}) {
  const { t } = useTranslation();
  if (path === null) return null;
  return (
    <Alert
      color="yellow"
      icon={<IconAlertTriangle size={18} />}
      title={t("files.existsTitle")}
      data-testid="replace-question"
    >
      <Text size="sm" style={{ overflowWrap: "anywhere" }}>
        {t("files.exists", { path })}
      </Text>
      <Group mt="xs" gap="xs">
        <Button size="xs" color="red" onClick={onReplace} data-testid="replace-yes">
          {t("files.replace")}
        </Button>
        <Button size="xs" variant="default" onClick={onKeep} data-testid="replace-no">
          {t("files.keep")}
        </Button>
      </Group>
    </Alert>
  );
}

/// The button that opens the system's save dialog.
export function ChooseButton({ onClick }: { onClick: () => void }) {
  const { t } = useTranslation();
  return (
    <Button
      variant="default"
      leftSection={<IconFolderOpen size={16} />}
      onClick={onClick}
      data-testid="save-choose"
    >
      {t("files.choose")}
    </Button>
  );
}
