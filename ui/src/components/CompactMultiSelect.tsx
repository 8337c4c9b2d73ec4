import {
  Button,
  Checkbox,
  Combobox,
  Group,
  InputBase,
  ScrollArea,
  Text,
  useCombobox,
} from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";

export interface Option {
  value: string;
  label: string;
}

interface Props {
  /// What is filtered ("State"); the button reads "State" with nothing picked, "State:
  /// Pending" with one value, "State: 2" with more (the picked labels on hover).
  label: string;
  data: Option[];
  value: string[];
  onChange: (value: string[]) => void;
  /// A search field in the list (long lists such as currencies).
  searchable?: boolean;
  id?: string;
  "data-testid"?: string;
}

/// A multi-select that stays one line high in a filter bar: a button naming what is
/// picked, and a list of checkboxes under it. Mantine's MultiSelect grows a line per
/// few values picked, which pushed the table down.
export function CompactMultiSelect({
  label,
  data,
  value,
  onChange,
  searchable,
  id,
  "data-testid": testId,
}: Props) {
  const { t } = useTranslation();
  const [search, setSearch] = useState("");
  const combobox = useCombobox({
    onDropdownClose: () => {
      combobox.resetSelectedOption();
      setSearch("");
    },
    onDropdownOpen: () => {
      if (searchable) combobox.focusSearchInput();
    },
  });
  const picked = data.filter((o) => value.includes(o.value));
  // A value no option names (a saved filter's currency no longer cached) still counts.
  const count = value.length;
  const summary =
    count === 0
      ? label
      : count === 1
        ? t("common.pickedOne", { label, value: picked[0]?.label ?? value[0] })
        : t("common.pickedMany", { label, count });
  const needle = search.trim().toLowerCase();
  const shown = needle
    ? data.filter(
        (o) => o.label.toLowerCase().includes(needle) || o.value.toLowerCase().includes(needle),
      )
    : data;
  const toggle = (v: string) =>
    onChange(value.includes(v) ? value.filter((x) => x !== v) : [...value, v]);

  return (
    <Combobox store={combobox} onOptionSubmit={toggle} width="max-content" position="bottom-start">
      <Combobox.Target targetType="button">
        <InputBase
          component="button"
          type="button"
          size="xs"
          pointer
          id={id}
          data-testid={testId}
          data-count={count}
          title={count > 1 ? picked.map((o) => o.label).join(", ") : undefined}
          rightSection={<Combobox.Chevron size="xs" />}
          rightSectionPointerEvents="none"
          onClick={() => combobox.toggleDropdown()}
          styles={{
            input: {
              whiteSpace: "nowrap",
              fontWeight: count > 0 ? 600 : undefined,
              borderColor: count > 0 ? "var(--mantine-primary-color-filled)" : undefined,
            },
          }}
        >
          {summary}
        </InputBase>
      </Combobox.Target>
      <Combobox.Dropdown miw={180}>
        {searchable ? (
          <Combobox.Search
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
            placeholder={t("common.search")}
            aria-label={t("common.searchIn", { what: label })}
          />
        ) : null}
        <Combobox.Options aria-label={label}>
          <ScrollArea.Autosize mah={260} type="scroll">
            {shown.length === 0 ? (
              <Combobox.Empty>{t("common.nothingFound")}</Combobox.Empty>
            ) : null}
            {shown.map((o) => {
              const on = value.includes(o.value);
              return (
                <Combobox.Option value={o.value} key={o.value} active={on} aria-selected={on}>
                  <Group gap="xs" wrap="nowrap">
                    <Checkbox.Indicator checked={on} size="xs" aria-hidden />
                    <Text size="sm" span>
                      {o.label}
                    </Text>
                  </Group>
                </Combobox.Option>
              );
            })}
          </ScrollArea.Autosize>
        </Combobox.Options>
        {count > 0 ? (
          <Combobox.Footer>
            <Button size="compact-xs" variant="subtle" onClick={() => onChange([])}>
              {t("common.clear")}
            </Button>
          </Combobox.Footer>
        ) : null}
      </Combobox.Dropdown>
    </Combobox>
  );
}
