import { ActionIcon, Checkbox, Popover, Stack, Text, Tooltip } from "@mantine/core";
import { IconColumns3 } from "@tabler/icons-react";
import { memo, useState } from "react";
import { useTranslation } from "react-i18next";
import { ORDER_COLUMNS } from "./columns";

interface Props {
  hidden: string[];
  onToggle: (id: string, visible: boolean) => void;
}

/// Which columns the orders table shows: a checkbox per column; the last one shown
/// cannot be hidden.
export const ColumnChooser = memo(function ColumnChooser({ hidden, onToggle }: Props) {
  const { t } = useTranslation();
  const [opened, setOpened] = useState(false);
  const shown = ORDER_COLUMNS.filter((c) => !hidden.includes(c.id)).length;
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
        <Stack gap={6}>
          {ORDER_COLUMNS.map((c) => {
            const visible = !hidden.includes(c.id);
            return (
              <Checkbox
                key={c.id}
                size="xs"
                label={t(c.label)}
                checked={visible}
                disabled={visible && shown === 1}
                onChange={(e) => onToggle(c.id, e.currentTarget.checked)}
                data-testid={`column-toggle-${c.id}`}
              />
            );
          })}
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
});
