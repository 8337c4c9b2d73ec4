import {
  ActionIcon,
  Button,
  Group,
  NumberInput,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  TagsInput,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { IconPlus, IconTrash } from "@tabler/icons-react";
import { type ReactNode, useMemo } from "react";
import { useTranslation } from "react-i18next";
import type { StateField } from "../../../lib/types";
import { type Draft, OPERATION_NAMES, ORDER_KINDS, rowId, timeZones } from "./model";
import { StatesEditor } from "./StatesEditor";

interface Props {
  d: Draft;
  /// Changes members of the draft; `field` names what was edited (as errors name it).
  set: (patch: Partial<Draft>, field: string) => void;
  /// The rule a save broke on `conventions.<field>`, if any.
  err: (field: string) => string | undefined;
  stateTab: StateField;
  setStateTab: (f: StateField) => void;
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        {title}
      </Title>
      {children}
    </Stack>
  );
}

/// Every member of the conventions, each with what it means and what it costs when
/// wrong. An element's id is `conv-<member>`, so a check's finding can focus it.
export function ConventionsFields({ d, set, err, stateTab, setStateTab }: Props) {
  const { t } = useTranslation();
  const f = (k: string) => t(`conventions.field.${k}`);
  const hint = (k: string) => t(`conventions.field.${k}Hint`);
  const codes = (k: "successCodes" | "duplicateCodes" | "notFoundCodes") => (
    <TagsInput
      id={`conv-${k}`}
      label={f(k)}
      description={hint(k)}
      value={d[k]}
      onChange={(v) => set({ [k]: v.map((c) => c.trim()).filter(Boolean) }, k)}
      error={err(k)}
      clearable
      data-testid={`conv-${k}`}
    />
  );
  // Kept while the zone is: a new list each render would reset the search typed.
  const zones = useMemo(() => timeZones(d.timeZone), [d.timeZone]);
  const operations = [
    ...OPERATION_NAMES,
    ...Object.keys(d.refusalStatuses).filter(
      (o) => !(OPERATION_NAMES as readonly string[]).includes(o),
    ),
  ];

  return (
    <Stack gap="lg">
      <TextInput
        id="conv-name"
        label={f("name")}
        description={hint("name")}
        value={d.name}
        onChange={(e) => set({ name: e.currentTarget.value }, "name")}
        error={err("name")}
        required
        data-testid="conv-name"
      />
      <Section title={t("conventions.section.answers")}>
        {codes("successCodes")}
        {codes("duplicateCodes")}
        {codes("notFoundCodes")}
      </Section>
      <Section title={t("conventions.section.states")}>
        <Text size="xs" c="dimmed" id="conv-states">
          {hint("states")}
        </Text>
        <StatesEditor
          states={d.states}
          field={stateTab}
          onField={setStateTab}
          onChange={(field, rows) =>
            set({ states: { ...d.states, [field]: rows } }, `states.${field}`)
          }
          err={(field) => err(`states.${field}`)}
        />
      </Section>
      <Section title={t("conventions.section.time")}>
        <Select
          id="conv-timeZone"
          label={f("timeZone")}
          description={hint("timeZone")}
          data={zones}
          value={d.timeZone}
          onChange={(v) => v && set({ timeZone: v }, "timeZone")}
          error={err("timeZone")}
          searchable
          allowDeselect={false}
          nothingFoundMessage={t("common.nothingFound")}
          limit={400}
          data-testid="conv-timeZone"
        />
        <SimpleGrid cols={2}>
          <NumberInput
            id="conv-maxPageSize"
            label={f("maxPageSize")}
            description={hint("maxPageSize")}
            value={d.maxPageSize}
            onChange={(v) => set({ maxPageSize: typeof v === "number" ? v : 0 }, "maxPageSize")}
            error={err("maxPageSize")}
            min={1}
            max={10_000}
            allowDecimal={false}
            allowNegative={false}
            required
            data-testid="conv-maxPageSize"
          />
          <NumberInput
            id="conv-maxSpanHours"
            label={f("maxSpanHours")}
            description={hint("maxSpanHours")}
            value={d.maxSpanHours}
            onChange={(v) => set({ maxSpanHours: typeof v === "number" ? v : 0 }, "maxSpanHours")}
            error={err("maxSpanHours")}
            min={0}
            max={87_840}
            allowDecimal={false}
            allowNegative={false}
            required
            data-testid="conv-maxSpanHours"
          />
        </SimpleGrid>
      </Section>
      <Section title={t("conventions.section.signing")}>
        <TagsInput
          id="conv-signing"
          label={f("excludedKeys")}
          description={hint("excludedKeys")}
          value={d.signing.excludedKeys}
          onChange={(v) =>
            set(
              { signing: { ...d.signing, excludedKeys: v.map((k) => k.trim()).filter(Boolean) } },
              "signing.excludedKeys",
            )
          }
          error={err("signing")}
          clearable
          data-testid="conv-excludedKeys"
        />
        <Switch
          label={f("skipEmpty")}
          description={hint("skipEmpty")}
          checked={d.signing.skipEmpty}
          onChange={(e) =>
            set({ signing: { ...d.signing, skipEmpty: e.currentTarget.checked } }, "signing")
          }
          data-testid="conv-skipEmpty"
        />
      </Section>
      <Section title={t("conventions.section.queries")}>
        <Stack gap={4}>
          <Text size="sm" fw={500} id="conv-v1QuerySignField-label">
            {f("v1QuerySignField")}
          </Text>
          <Text size="xs" c="dimmed">
            {hint("v1QuerySignField")}
          </Text>
          <SegmentedControl
            id="conv-v1QuerySignField"
            aria-labelledby="conv-v1QuerySignField-label"
            value={d.v1QuerySignField}
            onChange={(v) =>
              set({ v1QuerySignField: v === "sing" ? "sing" : "sign" }, "v1QuerySignField")
            }
            data={["sign", "sing"]}
            w={200}
            data-testid="conv-v1QuerySignField"
          />
        </Stack>
        <Text size="xs" c="dimmed" id="conv-queryTypes">
          {hint("queryTypes")}
        </Text>
        <SimpleGrid cols={3}>
          {(["sales", "refund", "chargeback"] as const).map((k) => (
            <TextInput
              key={k}
              label={f(`queryType.${k}`)}
              value={d.queryTypes[k]}
              onChange={(e) =>
                set(
                  { queryTypes: { ...d.queryTypes, [k]: e.currentTarget.value } },
                  `queryTypes.${k}`,
                )
              }
              error={err(`queryTypes.${k}`)}
              data-testid={`conv-queryTypes-${k}`}
            />
          ))}
        </SimpleGrid>
      </Section>
      <Section title={t("conventions.section.list")}>
        <Text size="xs" c="dimmed" id="conv-listShows">
          {hint("listShows")}
        </Text>
        <SimpleGrid cols={2}>
          {(["payins", "payouts", "topUps", "withdrawals"] as const).map((k) => (
            <Switch
              key={k}
              label={f(`shows.${k}`)}
              checked={d.listShows[k]}
              onChange={(e) =>
                set({ listShows: { ...d.listShows, [k]: e.currentTarget.checked } }, "listShows")
              }
              data-testid={`conv-listShows-${k}`}
            />
          ))}
        </SimpleGrid>
      </Section>
      <Section title={t("conventions.section.kinds")}>
        <Text size="xs" c="dimmed" id="conv-kindRules">
          {hint("kindRules")}
        </Text>
        {d.kindRules.map((r, i) => (
          <Group key={r.id} align="flex-start" gap="xs" data-testid="conv-kind-rule">
            <TextInput
              aria-label={f("prefix")}
              placeholder={f("prefix")}
              value={r.prefix}
              onChange={(e) =>
                set(
                  {
                    kindRules: d.kindRules.map((x) =>
                      x.id === r.id ? { ...x, prefix: e.currentTarget.value } : x,
                    ),
                  },
                  `kindRules[${i}]`,
                )
              }
              error={err(`kindRules[${i}]`)}
              data-testid="conv-kind-prefix"
              style={{ flex: 1 }}
            />
            <Select
              aria-label={f("kind")}
              data={ORDER_KINDS.map((k) => ({ value: k, label: t(`orders.kind.${k}`) }))}
              value={r.kind}
              onChange={(v) =>
                v &&
                set(
                  {
                    kindRules: d.kindRules.map((x) =>
                      x.id === r.id ? { ...x, kind: v as typeof r.kind } : x,
                    ),
                  },
                  `kindRules[${i}]`,
                )
              }
              allowDeselect={false}
              w={200}
            />
            <ActionIcon
              variant="subtle"
              color="red"
              mt={6}
              aria-label={t("conventions.field.removeRule", { prefix: r.prefix })}
              onClick={() =>
                set({ kindRules: d.kindRules.filter((x) => x.id !== r.id) }, "kindRules")
              }
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        ))}
        {err("kindRules") && !d.kindRules.length ? (
          <Text c="red" size="sm">
            {err("kindRules")}
          </Text>
        ) : null}
        <Group>
          <Button
            size="compact-sm"
            variant="light"
            leftSection={<IconPlus size={14} />}
            onClick={() =>
              set({ kindRules: [...d.kindRules, { id: rowId(), prefix: "", kind: "payout" }] }, "")
            }
            data-testid="conv-kind-add"
          >
            {f("addRule")}
          </Button>
        </Group>
      </Section>
      <Section title={t("conventions.section.requests")}>
        <TextInput
          id="conv-requesterIp"
          label={f("requesterIp")}
          description={hint("requesterIp")}
          value={d.requesterIp}
          onChange={(e) => set({ requesterIp: e.currentTarget.value.trim() }, "requesterIp")}
          error={err("requesterIp")}
          required
          data-testid="conv-requesterIp"
        />
        <Text size="sm" fw={500} mt="xs">
          {f("refusalStatuses")}
        </Text>
        <Text size="xs" c="dimmed" id="conv-refusalStatuses">
          {hint("refusalStatuses")}
        </Text>
        <Table verticalSpacing={4} data-testid="conv-refusalStatuses">
          <Table.Tbody>
            {operations.map((op) => {
              const label = t(`operation.${op.replace(/\./g, "_")}`, { defaultValue: op });
              return (
                <Table.Tr key={op}>
                  <Table.Td>
                    <Text size="sm">{label}</Text>
                    <Text size="xs" c="dimmed" ff="monospace">
                      {op}
                    </Text>
                  </Table.Td>
                  <Table.Td w="50%">
                    <TagsInput
                      size="xs"
                      aria-label={t("conventions.field.statusesOf", { operation: label })}
                      placeholder="409"
                      value={(d.refusalStatuses[op] ?? []).map(String)}
                      onChange={(v) => {
                        const statuses = v
                          .map((s) => Number(s.trim()))
                          .filter((n) => Number.isInteger(n) && n > 0);
                        const rest = { ...d.refusalStatuses };
                        if (statuses.length) rest[op] = statuses;
                        else delete rest[op];
                        set({ refusalStatuses: rest }, `refusalStatuses.${op}`);
                      }}
                      error={err(`refusalStatuses.${op}`)}
                      data-testid={`conv-refusal-${op}`}
                    />
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Section>
    </Stack>
  );
}
