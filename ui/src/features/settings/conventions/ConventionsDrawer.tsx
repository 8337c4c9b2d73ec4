import { Badge, Box, Button, Drawer, Group, Loader, Stack, Text } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { IconDeviceFloppy, IconFileExport, IconFileImport, IconRestore } from "@tabler/icons-react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { ConfirmModal } from "../../../components/ConfirmModal";
import { ErrorAlert, toastError, toastOk } from "../../../components/ErrorAlert";
import { useFieldErrors } from "../../../lib/fieldErrors";
import { fieldOf } from "../../../lib/ipc";
import type { Conventions, StateField } from "../../../lib/types";
import { settingLabel } from "../ConnectionCheck";
import { useConventions, useResetConventions, useSaveConventions } from "../queries";
import { ConventionsFields } from "./ConventionsFields";
import { ExportModal, ImportModal } from "./FileModals";
import { type Draft, duplicateState, fromDraft, STATE_FIELDS, toDraft } from "./model";

interface Props {
  /// The profile whose conventions are shown; null: closed.
  profile: string | null;
  onClose: () => void;
  /// A member to bring into view and focus once open (`maxPageSize`, `states.payCode`).
  focus?: string | null;
}

/// Brings `conventions.<member>`'s element into view and focuses it.
function reveal(member: string) {
  const id = `conv-${member.split(/[.[]/)[0]}`;
  const el = document.getElementById(id);
  el?.scrollIntoView({ block: "center" });
  if (el && "focus" in el) el.focus();
}

/// A profile's gateway conventions, every member editable, saved whole.
export function ConventionsDrawer({ profile, onClose, focus }: Props) {
  const { t } = useTranslation();
  const conv = useConventions(profile);
  // The editor starts again from what is saved whenever that changes (a save, a reset,
  // an import); a refetch that brings the same conventions keeps the same object
  // (TanStack Query's structural sharing), so unsaved edits stay.
  const [version, setVersion] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: counts changes of the data
  useEffect(() => setVersion((v) => v + 1), [conv.data]);
  return (
    <Drawer
      opened={profile !== null}
      onClose={onClose}
      position="right"
      size="xl"
      title={t("conventions.title", { name: profile ?? "" })}
    >
      {conv.error ? <ErrorAlert error={conv.error} /> : null}
      {profile && conv.data ? (
        <Editor
          key={`${profile}-${version}`}
          profile={profile}
          saved={conv.data}
          focus={focus ?? null}
        />
      ) : conv.isLoading ? (
        <Loader size="sm" />
      ) : null}
    </Drawer>
  );
}

function Editor({
  profile,
  saved,
  focus,
}: {
  profile: string;
  saved: Conventions;
  focus: string | null;
}) {
  const { t } = useTranslation();
  const [d, setD] = useState<Draft>(() => toDraft(saved));
  const [dirty, setDirty] = useState(false);
  const [stateTab, setStateTab] = useState<StateField>(() => {
    const f = focus?.startsWith("states.") ? focus.slice(7) : "";
    return (STATE_FIELDS as string[]).includes(f) ? (f as StateField) : "orderState";
  });
  const [local, setLocal] = useState<{ field: string; rule: string } | null>(null);
  const save = useSaveConventions();
  const reset = useResetConventions();
  const failure = useFieldErrors(save.error);
  const [importing, importModal] = useDisclosure(false);
  const [exporting, exportModal] = useDisclosure(false);
  const [resetting, resetModal] = useDisclosure(false);

  // The member a check named, once the drawer has slid in.
  useEffect(() => {
    if (!focus) return;
    const timer = setTimeout(() => reveal(focus), 350);
    return () => clearTimeout(timer);
  }, [focus]);
  // A refused save shows its member: the state field's tab, the field in view.
  useEffect(() => {
    const f = fieldOf(save.error);
    if (!f?.field.startsWith("conventions.")) return;
    const member = f.field.slice("conventions.".length);
    const state = /^states\.(\w+)/.exec(member)?.[1];
    if (state && (STATE_FIELDS as string[]).includes(state)) setStateTab(state as StateField);
    reveal(member);
  }, [save.error]);

  // The rule broken, until its member is edited: said by the buttons too, as the member
  // may be out of view.
  const refusedOn = fieldOf(failure.error);
  const err = (field: string) =>
    (local?.field === field ? local.rule : undefined) ?? failure.err(`conventions.${field}`);
  const set = (patch: Partial<Draft>, field: string) => {
    failure.edited(`conventions.${field}`);
    if (local && field.startsWith(local.field)) setLocal(null);
    setD((x) => ({ ...x, ...patch }));
    setDirty(true);
  };
  const submit = () => {
    const dup = duplicateState(d);
    if (dup) {
      setStateTab(dup.field);
      setLocal({
        field: `states.${dup.field}`,
        rule: t("conventions.duplicateValue", { raw: dup.raw }),
      });
      return;
    }
    setLocal(null);
    save.mutate(
      { profile, conventions: fromDraft(d) },
      { onSuccess: () => toastOk(t("conventions.saved", { name: profile })) },
    );
  };

  return (
    <Stack data-testid="conventions-panel" data-profile={profile}>
      <Text size="sm" c="dimmed">
        {t("conventions.intro")}
      </Text>
      <Group gap="xs">
        <Badge variant="light">{t("conventions.format", { format: d.format })}</Badge>
        {dirty ? (
          <Badge color="orange" variant="light" data-testid="conv-dirty">
            {t("conventions.unsaved")}
          </Badge>
        ) : null}
      </Group>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
        data-testid="conventions-form"
      >
        <ConventionsFields
          d={d}
          set={set}
          err={err}
          stateTab={stateTab}
          setStateTab={setStateTab}
        />
        <Box
          pos="sticky"
          bottom={0}
          py="sm"
          mt="md"
          style={{
            background: "var(--mantine-color-body)",
            borderTop: "1px solid var(--mantine-color-default-border)",
            zIndex: 2,
          }}
        >
          {refusedOn ? (
            <Text c="red" size="sm" data-testid="conv-save-error" data-field={refusedOn.field}>
              {t("errors.validation", {
                field: settingLabel(t, refusedOn.field),
                rule: refusedOn.rule,
              })}
            </Text>
          ) : fieldOf(save.error) ? null : (
            <ErrorAlert error={save.error} />
          )}
          <Group justify="space-between" mt="xs">
            <Group gap="xs">
              <Button
                variant="default"
                leftSection={<IconFileImport size={16} />}
                onClick={importModal.open}
                data-testid="conv-import-open"
              >
                {t("conventions.import")}
              </Button>
              <Button
                variant="default"
                leftSection={<IconFileExport size={16} />}
                onClick={exportModal.open}
                data-testid="conv-export-open"
              >
                {t("conventions.export")}
              </Button>
              <Button
                variant="subtle"
                color="orange"
                leftSection={<IconRestore size={16} />}
                onClick={resetModal.open}
                data-testid="conv-reset"
              >
                {t("conventions.reset")}
              </Button>
            </Group>
            <Button
              type="submit"
              leftSection={<IconDeviceFloppy size={16} />}
              loading={save.isPending}
              data-testid="conv-save"
            >
              {t("conventions.save")}
            </Button>
          </Group>
        </Box>
      </form>
      <ImportModal
        profile={profile}
        current={saved}
        opened={importing}
        onClose={importModal.close}
      />
      <ExportModal profile={profile} opened={exporting} onClose={exportModal.close} />
      <ConfirmModal
        opened={resetting}
        onClose={resetModal.close}
        title={t("conventions.reset")}
        message={t("conventions.resetConfirm", { name: profile })}
        confirmLabel={t("conventions.reset")}
        color="orange"
        loading={reset.isPending}
        onConfirm={() =>
          reset.mutate(profile, {
            onSuccess: () => {
              resetModal.close();
              toastOk(t("conventions.resetDone", { name: profile }));
            },
            onError: (e) => toastError(t, e),
          })
        }
      />
    </Stack>
  );
}
