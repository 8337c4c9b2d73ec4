import {
  ActionIcon,
  Checkbox,
  Group,
  NumberInput,
  Popover,
  Stack,
  Text,
  Tooltip,
} from "@mantine/core";
import { IconArrowDown, IconArrowUp, IconColumns3 } from "@tabler/icons-react";
import { memo, useState } from "react";
import { useTranslation } from "react-i18next";
import { type ColumnLayout, ORDER_COLUMNS } from "./columns";

interface Props {
  layout: ColumnLayout;
  onToggle: (id: string, visible: boolean) => void;
  onMove: (id: string, by: -1 | 1) => void;
  onResize: (widths: Record<string, number>) => void;
}

const sizeOf = (id: string) => ORDER_COLUMNS.find((c) => c.id === id)?.size ?? 120;

/// Which columns the orders table shows, in which order and how wide: a checkbox, two
/// arrows and a width per column, every one of them reachable with the keyboard (the
/// headers' edges resize with the mouse too). The last column shown cannot be hidden.
export const ColumnChooser = memo(function ColumnChooser({
  layout,
  onToggle,
  onMove,
  onResize,
}: Props) {
  const { t } = useTranslation();
  const [opened, setOpened] = useState(false);
  const shown = layout.order.filter((id) => !layout.hidden.includes(id)).length;
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
            data-testid="column-chooser"
          >
            <IconColumns3 size={16} />
          </ActionIcon>
        </Tooltip>
      </Popover.Target>
      <Popover.Dropdown data-testid="column-chooser-list">
        <Text size="xs" fw={600} mb="xs">
          {t("orders.columnsTitle")}
        </Text>
        <Stack gap={4}>
          {layout.order.map((id, i) => {
            const c = ORDER_COLUMNS.find((x) => x.id === id);
            if (!c) return null;
            const visible = !layout.hidden.includes(id);
            const name = t(c.label);
            return (
              <Group key={id} gap={4} wrap="nowrap" data-testid={`column-row-${id}`}>
                <Checkbox
                  size="xs"
                  label={name}
                  checked={visible}
                  disabled={visible && shown === 1}
                  onChange={(e) => onToggle(id, e.currentTarget.checked)}
                  data-testid={`column-toggle-${id}`}
                  style={{ flex: 1, minWidth: 130 }}
                />
                <ActionIcon
                  size="sm"
                  variant="subtle"
                  disabled={i === 0}
                  aria-label={t("views.moveEarlier", { column: name })}
                  onClick={() => onMove(id, -1)}
                  data-testid={`column-up-${id}`}
                >
                  <IconArrowUp size={14} />
                </ActionIcon>
                <ActionIcon
                  size="sm"
                  variant="subtle"
                  disabled={i === layout.order.length - 1}
                  aria-label={t("views.moveLater", { column: name })}
                  onClick={() => onMove(id, 1)}
                  data-testid={`column-down-${id}`}
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
                  value={layout.widths[id] ?? sizeOf(id)}
                  onChange={(v) => {
                    if (typeof v === "number" && v >= 40 && v <= 1000) onResize({ [id]: v });
                  }}
                  data-testid={`column-width-${id}`}
                />
              </Group>
            );
          })}
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
});
