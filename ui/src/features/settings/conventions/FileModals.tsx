import {
  Button,
  FileButton,
  Group,
  Modal,
  Stack,
  Table,
  Text,
  Textarea,
  TextInput,
} from "@mantine/core";
import { IconFileImport } from "@tabler/icons-react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert, FormError, toastOk } from "../../../components/ErrorAlert";
import { fieldError } from "../../../lib/ipc";
import type { Conventions } from "../../../lib/types";
import { ReplaceQuestion, useSaveTarget } from "../../files/SaveTarget";
import {
  useConventionsExportPath,
  useExportConventions,
  useParseConventions,
  useSaveConventions,
} from "../queries";
import { changes } from "./model";

interface ImportProps {
  profile: string;
  /// The conventions saved now, to show what the file changes.
  current: Conventions;
  opened: boolean;
  onClose: () => void;
}

/// A conventions file read (picked, or its text pasted) and checked by the backend, what
/// it sets shown, then saved as the profile's.
export function ImportModal({ profile, current, opened, onClose }: ImportProps) {
  const { t } = useTranslation();
  const parse = useParseConventions();
  const save = useSaveConventions();
  const [text, setText] = useState("");
  const [parsed, setParsed] = useState<Conventions | null>(null);
  const resetParse = parse.reset;
  const resetSave = save.reset;
  useEffect(() => {
    if (opened) {
      setText("");
      setParsed(null);
      resetParse();
      resetSave();
    }
  }, [opened, resetParse, resetSave]);
  const read = (body: string) => {
    setParsed(null);
    parse.mutate(body, { onSuccess: setParsed });
  };
  const sets = parsed ? changes(current, parsed) : [];

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      size="lg"
      title={t("conventions.importTitle", { name: profile })}
    >
      <Stack gap="sm" data-testid="conv-import">
        <Group>
          <FileButton
            accept="application/json,.json"
            onChange={(file) => {
              if (!file) return;
              void file.text().then((body) => {
                setText(body);
                read(body);
              });
            }}
          >
            {(props) => (
              <Button {...props} variant="default" leftSection={<IconFileImport size={16} />}>
                {t("conventions.importPick")}
              </Button>
            )}
          </FileButton>
        </Group>
        <Textarea
          label={t("conventions.importPaste")}
          rows={6}
          value={text}
          onChange={(e) => {
            setText(e.currentTarget.value);
            setParsed(null);
            parse.reset();
          }}
          styles={{ input: { fontFamily: "monospace", fontSize: 11 } }}
          spellCheck={false}
          data-testid="conv-import-text"
        />
        <FormError error={parse.error} testId="conv-import-error" />
        <Group>
          <Button
            variant="light"
            disabled={!text.trim()}
            loading={parse.isPending}
            onClick={() => read(text)}
            data-testid="conv-import-read"
          >
            {t("conventions.importRead")}
          </Button>
        </Group>
        {parsed ? (
          <Stack gap="xs" data-testid="conv-import-sets" data-count={sets.length}>
            <Text fw={600} size="sm">
              {t("conventions.importSets")}
            </Text>
            {sets.length === 0 ? (
              <Text size="sm" c="dimmed">
                {t("conventions.importNothing")}
              </Text>
            ) : (
              <Table>
                <Table.Tbody>
                  {sets.map((c) => (
                    <Table.Tr key={c.member} data-member={c.member}>
                      <Table.Td>
                        <Text size="sm" ff="monospace">
                          {c.member}
                        </Text>
                      </Table.Td>
                      <Table.Td style={{ overflowWrap: "anywhere" }}>
                        {c.value ? (
                          <Text size="sm">{c.value}</Text>
                        ) : (
                          // A state field the file leaves out: no value of it is known.
                          <Text size="sm" c="dimmed">
                            {t("conventions.importNone")}
                          </Text>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
            <ErrorAlert error={save.error} />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                {t("common.cancel")}
              </Button>
              <Button
                loading={save.isPending}
                onClick={() =>
                  save.mutate(
                    { profile, conventions: parsed },
                    {
                      onSuccess: () => {
                        toastOk(t("conventions.imported", { name: profile }));
                        onClose();
                      },
                    },
                  )
                }
                data-testid="conv-import-save"
              >
                {t("conventions.importSave")}
              </Button>
            </Group>
          </Stack>
        ) : null}
      </Stack>
    </Modal>
  );
}

interface ExportProps {
  profile: string;
  opened: boolean;
  onClose: () => void;
}

/// The saved conventions written to a JSON file (never over a file without a yes).
export function ExportModal({ profile, opened, onClose }: ExportProps) {
  const { t } = useTranslation();
  const suggested = useConventionsExportPath(profile);
  const exp = useExportConventions();
  const [path, setPath] = useState("");
  const resetExport = exp.reset;
  useEffect(() => {
    if (opened) {
      setPath(suggested.data ?? "");
      resetExport();
    }
  }, [opened, suggested.data, resetExport]);
  const target = useSaveTarget((to, overwrite) =>
    exp.mutate(
      { profile, path: to, overwrite },
      {
        onSuccess: () => {
          toastOk(t("conventions.exported", { path: to }));
          onClose();
        },
      },
    ),
  );

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      size="lg"
      title={t("conventions.exportTitle", { name: profile })}
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void target.submit(path);
        }}
      >
        <Stack gap="sm">
          <TextInput
            label={t("conventions.exportPath")}
            description={t("conventions.exportHint")}
            value={path}
            onChange={(e) => {
              setPath(e.currentTarget.value);
              target.dismiss();
            }}
            error={fieldError(exp.error, "path")}
            required
            data-testid="conv-export-path"
          />
          <ReplaceQuestion
            path={target.asking}
            onReplace={target.replace}
            onKeep={target.dismiss}
          />
          {fieldError(exp.error, "path") ? null : <ErrorAlert error={exp.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t("common.cancel")}
            </Button>
            <Button
              type="submit"
              loading={exp.isPending}
              disabled={!path.trim()}
              data-testid="conv-export-run"
            >
              {t("conventions.exportRun")}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
