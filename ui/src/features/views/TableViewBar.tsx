import {
  ActionIcon,
  Checkbox,
  Group,
  NumberInput,
  Popover,
  Select,
  Stack,
  Table,
  Text,
  Tooltip,
  UnstyledButton,
} from "@mantine/core";
import { IconArrowDown, IconArrowUp, IconColumns3 } from "@tabler/icons-react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { RELATIVE_RANGES, type RelativeRange } from "./types";
import type { TableView } from "./useTableView";
import { ViewsMenu } from "./ViewsMenu";

/// A screen's dates (a range relative to today in the business's zone), its saved views
/// and its columns, for a plain table kept by [`useTableView`].
export function TableViewBar({
  tv,
  screen,
}: {
  tv: TableView;
  screen: "activity" | "reversals" | "events";
}) {
  const { t } = useTranslation();
  return (
    <Group gap={6} wrap="nowrap" align="flex-end">
      <Select
        size="xs"
        aria-label={t("orders.dateRange")}
        placeholder={t("orders.anyDate")}
        data={RELATIVE_RANGES.map((r) => ({ value: r, label: t(`views.range.${r}`) }))}
        value={tv.relative}
        onChange={(v) => tv.setDates((v as RelativeRange | null) ?? null)}
        clearable
        w={136}
        comboboxProps={{ width: "max-content" }}
        data-testid={`${screen}-dates`}
      />
      <ViewsMenu
        screen={screen}
        current={tv.current}
        selected={tv.view.selected}
        onSelect={tv.view.select}
      />
      <Columns tv={tv} screen={screen} />
    </Group>
  );
}

function Columns({ tv, screen }: { tv: TableView; screen: string }) {
  const { t } = useTranslation();
  const [opened, setOpened] = useState(false);
  const shown = tv.shown.length;
  return (
    <Popover
      opened={opened}
      onChange={setOpened}
      position="bottom-end"
      shadow="md"
      trapFocus
      withinPortal
    >
      <Popover.Target>
        <Tooltip label={t("orders.columns")} disabled={opened}>
          <ActionIcon
            variant="default"
            size={30}
            aria-label={t("orders.columns")}
            aria-expanded={opened}
            onClick={() => setOpened((o) => !o)}
            data-testid={`${screen}-columns`}
          >
            <IconColumns3 size={16} />
          </ActionIcon>
        </Tooltip>
      </Popover.Target>
      <Popover.Dropdown>
        <Text size="xs" fw={600} mb="xs">
          {t("orders.columnsTitle")}
        </Text>
        <Stack gap={4}>
          {tv.arrangement.order.map((id, i) => {
            const c = tv.columns.find((x) => x.id === id);
            if (!c) return null;
            const visible = !tv.arrangement.hidden.includes(id);
            const name = t(c.label);
            return (
              <Group key={id} gap={4} wrap="nowrap">
                <Checkbox
                  size="xs"
                  label={name}
                  checked={visible}
                  disabled={visible && shown === 1}
                  onChange={(e) => tv.toggle(id, e.currentTarget.checked)}
                  style={{ flex: 1, minWidth: 130 }}
                />
                <ActionIcon
                  size="sm"
                  variant="subtle"
                  disabled={i === 0}
                  aria-label={t("views.moveEarlier", { column: name })}
                  onClick={() => tv.move(id, -1)}
                >
                  <IconArrowUp size={14} />
                </ActionIcon>
                <ActionIcon
                  size="sm"
                  variant="subtle"
                  disabled={i === tv.arrangement.order.length - 1}
                  aria-label={t("views.moveLater", { column: name })}
                  onClick={() => tv.move(id, 1)}
                >
                  <IconArrowDown size={14} />
                </ActionIcon>
                <NumberInput
                  size="xs"
                  w={76}
                  min={40}
                  max={1000}
                  step={10}
                  clampBehavior="blur"
                  aria-label={t("views.width", { column: name })}
                  value={tv.arrangement.widths[id] ?? c.width}
                  onChange={(v) => {
                    if (typeof v === "number" && v >= 40 && v <= 1000) tv.resize({ [id]: v });
                  }}
                />
              </Group>
            );
          })}
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

/// The table's header row in the view's order and widths; a sortable column's header is
/// a button that sorts by it.
export function ViewHead({ tv }: { tv: TableView }) {
  const { t } = useTranslation();
  return (
    <Table.Thead>
      <Table.Tr>
        {tv.shown.map((c) => {
          const dir =
            tv.sort?.key === c.id ? (tv.sort.descending ? "descending" : "ascending") : undefined;
          const label = t(c.label, c.labelParams?.() ?? {});
          return (
            <Table.Th key={c.id} style={{ width: c.width }} aria-sort={dir}>
              {c.sortable ? (
                <UnstyledButton
                  onClick={() => tv.sortBy(c.id)}
                  aria-label={t("orders.sortBy", { column: label })}
                  fw={600}
                  fz="sm"
                >
                  {label}
                  {dir === "ascending" ? <IconArrowUp size={12} /> : null}
                  {dir === "descending" ? <IconArrowDown size={12} /> : null}
                </UnstyledButton>
              ) : (
                label
              )}
            </Table.Th>
          );
        })}
      </Table.Tr>
    </Table.Thead>
  );
}
