import { Button, Popover, Stack, TextInput } from "@mantine/core";
import { IconAdjustmentsHorizontal } from "@tabler/icons-react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import type { OrderFilter } from "../../lib/types";

const FIELDS = ["minAmount", "maxAmount"] as const;

interface Props {
  filter: OrderFilter;
  onChange: (f: OrderFilter) => void;
  invalid: { field: string; rule: string } | null;
}

/// The filters used less often (amounts), behind one button that says how many are set
/// and opens by itself when one of them is refused.
export function MoreFilters({ filter, onChange, invalid }: Props) {
  const { t } = useTranslation();
  const [opened, setOpened] = useState(false);
  const set = FIELDS.filter((f) => filter[f] !== null).length;
  const refused = invalid && (FIELDS as readonly string[]).includes(invalid.field) ? invalid : null;
  const error = (f: (typeof FIELDS)[number]) => (refused?.field === f ? refused.rule : undefined);
  useEffect(() => {
    if (refused) setOpened(true);
  }, [refused]);

  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-start" shadow="md" trapFocus>
      <Popover.Target>
        <Button
          size="xs"
          variant={set > 0 ? "light" : "default"}
          color={refused ? "red" : undefined}
          leftSection={<IconAdjustmentsHorizontal size={14} />}
          onClick={() => setOpened((o) => !o)}
          aria-expanded={opened}
          data-testid="more-filters"
          data-count={set}
        >
          {set > 0 ? t("orders.moreFiltersSet", { count: set }) : t("orders.moreFilters")}
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="xs" w={220}>
          <TextInput
            size="xs"
            label={t("orders.minAmount")}
            value={filter.minAmount ?? ""}
            onChange={(e) => onChange({ ...filter, minAmount: e.currentTarget.value || null })}
            error={error("minAmount")}
            inputMode="decimal"
            data-testid="filter-min-amount"
          />
          <TextInput
            size="xs"
            label={t("orders.maxAmount")}
            value={filter.maxAmount ?? ""}
            onChange={(e) => onChange({ ...filter, maxAmount: e.currentTarget.value || null })}
            error={error("maxAmount")}
            inputMode="decimal"
            data-testid="filter-max-amount"
          />
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
