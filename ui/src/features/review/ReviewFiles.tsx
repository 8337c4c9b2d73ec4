import { Alert, Button, Group, Paper, Stack, Text, TextInput } from "@mantine/core";
import { IconFolderOpen, IconUpload } from "@tabler/icons-react";
import { type Dispatch, type SetStateAction, useCallback, useState } from "react";
import { useTranslation } from "react-i18next";
import { errorText, toastError } from "../../components/ErrorAlert";
import { type Chosen, FilePreview } from "./FilePreview";
import { checkReviewFile, pickReviewFiles, useDroppedFiles } from "./queries";

const MAX_BYTES = 5 * 1024 * 1024;

/// The files of a submission: dropped on the window, typed as a path or picked, each
/// checked by Rust before it is added, and the ones added.
export function ReviewFiles({
  files,
  setFiles,
}: {
  files: Chosen[];
  setFiles: Dispatch<SetStateAction<Chosen[]>>;
}) {
  const { t } = useTranslation();
  const [path, setPath] = useState("");
  const [fileError, setFileError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  const add = useCallback(
    async (paths: string[]) => {
      setFileError(null);
      setChecking(true);
      for (const p of paths) {
        try {
          const c = await checkReviewFile(p);
          setFiles((fs) =>
            fs.some((f) => f.check.path === c.path) ? fs : [...fs, { check: c, code: "21" }],
          );
        } catch (e) {
          setFileError(errorText(t, e));
        }
      }
      setChecking(false);
    },
    [t, setFiles],
  );

  const { dragging, ready: dropReady } = useDroppedFiles(add);
  const total = files.reduce((n, f) => n + f.check.size, 0);
  return (
    <>
      <Paper
        withBorder
        p="md"
        style={{
          borderStyle: "dashed",
          borderColor: dragging ? "var(--mantine-primary-color-filled)" : undefined,
        }}
        data-testid="review-drop"
        data-ready={dropReady}
      >
        <Stack gap="xs" align="center">
          <IconUpload size={28} aria-hidden />
          <Text size="sm">{t(dropReady ? "review.drop" : "review.noDrop")}</Text>
          <Text size="xs" c="dimmed">
            {t("review.limits", { max: "5 MiB" })}
          </Text>
        </Stack>
      </Paper>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const submitted = path;
          // Cleared once added, unless the user has typed the next path meanwhile.
          if (submitted.trim())
            void add([submitted.trim()]).then(() =>
              setPath((now) => (now === submitted ? "" : now)),
            );
        }}
      >
        <Group align="flex-end">
          <TextInput
            label={t("review.path")}
            placeholder="/home/me/invoice.pdf"
            style={{ flex: 1 }}
            value={path}
            onChange={(e) => setPath(e.currentTarget.value)}
            data-testid="review-path"
          />
          <Button type="submit" variant="default" loading={checking} data-testid="review-add-file">
            {t("review.addFile")}
          </Button>
          <Button
            variant="default"
            leftSection={<IconFolderOpen size={16} />}
            onClick={() =>
              pickReviewFiles()
                .then(add)
                .catch((e) => toastError(t, e))
            }
          >
            {t("common.browse")}
          </Button>
        </Group>
      </form>
      {fileError && (
        <Alert color="red" variant="light" data-testid="review-file-error">
          {fileError}
        </Alert>
      )}
      {files.map((f) => (
        <FilePreview
          key={f.check.path}
          f={f}
          onCode={(c) => setFiles(files.map((x) => (x === f ? { ...x, code: c } : x)))}
          onRemove={() => setFiles(files.filter((x) => x !== f))}
        />
      ))}
      {total > MAX_BYTES && (
        <Text c="orange" size="sm">
          {t("review.large")}
        </Text>
      )}
    </>
  );
}
