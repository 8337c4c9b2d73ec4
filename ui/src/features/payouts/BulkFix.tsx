import { Button, Group, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { errorText, toastOk } from "../../components/ErrorAlert";
import { brokenRuleText } from "../../lib/ipc";
import type { BulkCheck } from "../../lib/types";
import { useBulkFix } from "./queries";

type RowError = BulkCheck["plan"]["errors"][number];

/// A refused row, said by line, field and rule; when the rule is about one of the file's
/// cells, that cell can be fixed here: written into the file, which is checked again.
export function BulkErrorRow({
  path,
  e,
  onFixed,
}: {
  path: string;
  e: RowError;
  onFixed: () => void;
}) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState(e.value ?? "");
  const fix = useBulkFix(path, e, value, {
    onSuccess: () => {
      toastOk(t("flows.bulk.fixed", { line: e.line }));
      setOpen(false);
      onFixed();
    },
  });
  return (
    <Stack gap={4} data-testid="bulk-error" data-line={e.line} data-field={e.field}>
      <Group gap="xs" wrap="nowrap" justify="space-between">
        <Text size="sm">
          {t("payouts.bulkError", { line: e.line, field: e.field, rule: brokenRuleText(e) })}
        </Text>
        {e.value !== null && !open ? (
          <Button
            size="compact-xs"
            variant="default"
            onClick={() => setOpen(true)}
            data-testid="bulk-error-fix"
          >
            {t("flows.bulk.fix", { line: e.line })}
          </Button>
        ) : null}
      </Group>
      {open ? (
        <form
          onSubmit={(ev) => {
            ev.preventDefault();
            fix.mutate();
          }}
        >
          <Group align="flex-end" gap="xs">
            <TextInput
              size="xs"
              label={t("flows.bulk.fixValue", { field: e.field, line: e.line })}
              value={value}
              onChange={(ev) => setValue(ev.currentTarget.value)}
              error={fix.error ? errorText(t, fix.error) : undefined}
              data-autofocus
              autoFocus
              data-testid="bulk-error-value"
              style={{ flex: 1 }}
            />
            <Button size="xs" type="submit" loading={fix.isPending} data-testid="bulk-error-save">
              {t("flows.bulk.fixSave")}
            </Button>
            <Button size="xs" variant="subtle" onClick={() => setOpen(false)}>
              {t("common.cancel")}
            </Button>
          </Group>
        </form>
      ) : null}
    </Stack>
  );
}
