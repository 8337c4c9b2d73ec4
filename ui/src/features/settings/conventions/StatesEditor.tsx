import { ActionIcon, Button, Select, Table, Tabs, Text, TextInput } from "@mantine/core";
import { IconPlus, IconTrash } from "@tabler/icons-react";
import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import type { Meaning, StateField } from "../../../lib/types";
import { type Draft, MEANINGS, rowId, STATE_FIELDS, type StateRow } from "./model";

interface Props {
  states: Draft["states"];
  onChange: (field: StateField, rows: StateRow[]) => void;
  /// The field on view (a tab per state field).
  field: StateField;
  onField: (field: StateField) => void;
  /// The rule broken by a field's values, if any.
  err: (field: StateField) => string | undefined;
}

/// The state dictionary: per state field, a table of raw values and their meanings.
export function StatesEditor({ states, onChange, field, onField, err }: Props) {
  const { t } = useTranslation();
  const meanings = useMemo(
    () => MEANINGS.map((m) => ({ value: m, label: t(`meaning.${m}`) })),
    [t],
  );
  return (
    <Tabs
      value={field}
      onChange={(v) => v && onField(v as StateField)}
      keepMounted={false}
      data-testid="conv-states"
    >
      <Tabs.List>
        {STATE_FIELDS.map((f) => (
          <Tabs.Tab
            key={f}
            value={f}
            color={err(f) ? "red" : undefined}
            data-testid={`conv-states-tab-${f}`}
          >
            {f}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {STATE_FIELDS.map((f) => {
        const rows = states[f];
        const set = (id: number, patch: Partial<StateRow>) =>
          onChange(
            f,
            rows.map((r) => (r.id === id ? { ...r, ...patch } : r)),
          );
        const error = err(f);
        return (
          <Tabs.Panel key={f} value={f} pt="xs" data-testid={`conv-states-${f}`}>
            <Text size="xs" c="dimmed" mb={4}>
              {t(`conventions.stateField.${f}`)}
            </Text>
            <Table withRowBorders={false} verticalSpacing={4}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t("conventions.field.raw")}</Table.Th>
                  <Table.Th>{t("conventions.field.meaning")}</Table.Th>
                  <Table.Th w={40} />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((r) => (
                  <Table.Tr key={r.id} data-testid="conv-state-row" data-raw={r.raw}>
                    <Table.Td>
                      <TextInput
                        size="xs"
                        aria-label={t("conventions.field.rawOf", { field: f })}
                        value={r.raw}
                        onChange={(e) => set(r.id, { raw: e.currentTarget.value })}
                        data-testid="conv-state-raw"
                      />
                    </Table.Td>
                    <Table.Td>
                      <Select
                        size="xs"
                        aria-label={t("conventions.field.meaningOf", { raw: r.raw })}
                        data={meanings}
                        value={r.meaning}
                        onChange={(v) => v && set(r.id, { meaning: v as Meaning })}
                        allowDeselect={false}
                        data-testid="conv-state-meaning"
                      />
                    </Table.Td>
                    <Table.Td>
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={t("conventions.field.removeValue", { raw: r.raw })}
                        onClick={() =>
                          onChange(
                            f,
                            rows.filter((x) => x.id !== r.id),
                          )
                        }
                      >
                        <IconTrash size={16} />
                      </ActionIcon>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            {error ? (
              <Text c="red" size="sm" role="alert" data-testid={`conv-states-error-${f}`}>
                {error}
              </Text>
            ) : null}
            <Button
              mt={4}
              size="compact-sm"
              variant="light"
              leftSection={<IconPlus size={14} />}
              onClick={() => onChange(f, [...rows, { id: rowId(), raw: "", meaning: "pending" }])}
              data-testid={`conv-state-add-${f}`}
            >
              {t("conventions.field.addValue")}
            </Button>
          </Tabs.Panel>
        );
      })}
    </Tabs>
  );
}
