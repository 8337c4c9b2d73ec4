import { ActionIcon, Button, Group, Menu, Modal, TextInput, Tooltip } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { IconBookmarks, IconDeviceFloppy, IconTrash } from "@tabler/icons-react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { errorText, toastError, toastOk } from "../../components/ErrorAlert";
import type { OrderFilter } from "../../lib/types";
import { useDeleteFilter, useSavedFilters, useSaveFilter } from "./queries";

interface Props {
  filter: OrderFilter;
  /// The saved set last applied (its name on the button), or null.
  selected: string | null;
  onSelect: (name: string | null, filter: OrderFilter | null) => void;
}

/// Saved filter sets behind one icon (the filter bar has no room for a field): a menu
/// to apply one, save the current filters under a name, or delete the one applied,
/// whose name the icon's label and tooltip give.
export function SavedFilters({ filter, selected, onSelect }: Props) {
  const { t } = useTranslation();
  const saved = useSavedFilters();
  const save = useSaveFilter();
  const remove = useDeleteFilter();
  const [saving, saveModal] = useDisclosure(false);
  const [name, setName] = useState("");
  const sets = saved.data ?? [];
  const buttonLabel = selected
    ? t("orders.savedFilterApplied", { name: selected })
    : t("orders.savedFilters");

  return (
    <>
      <Menu position="bottom-start" shadow="md" withinPortal>
        <Menu.Target>
          <Tooltip label={buttonLabel}>
            <ActionIcon
              variant={selected ? "light" : "default"}
              size={30}
              aria-label={buttonLabel}
              data-testid="saved-filters"
              data-selected={selected ?? undefined}
            >
              <IconBookmarks size={16} />
            </ActionIcon>
          </Tooltip>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Label>{t("orders.savedFilters")}</Menu.Label>
          {sets.length === 0 ? <Menu.Label>{t("orders.noSavedFilters")}</Menu.Label> : null}
          {sets.map((s) => (
            <Menu.Item
              key={s.name}
              onClick={() => onSelect(s.name, s.filter)}
              fw={s.name === selected ? 600 : undefined}
            >
              {s.name}
            </Menu.Item>
          ))}
          <Menu.Divider />
          <Menu.Item
            leftSection={<IconDeviceFloppy size={14} />}
            onClick={() => {
              setName(selected ?? "");
              saveModal.open();
            }}
          >
            {t("orders.saveFilter")}
          </Menu.Item>
          {selected ? (
            <Menu.Item
              color="red"
              leftSection={<IconTrash size={14} />}
              onClick={() =>
                remove.mutate(selected, {
                  onSuccess: () => onSelect(null, null),
                  onError: (e) => toastError(t, e),
                })
              }
            >
              {t("orders.deleteFilter", { name: selected })}
            </Menu.Item>
          ) : null}
        </Menu.Dropdown>
      </Menu>
      <Modal opened={saving} onClose={saveModal.close} title={t("orders.saveFilter")}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate(
              { name, filter },
              {
                onSuccess: () => {
                  toastOk(t("orders.filterSaved", { name: name.trim() }));
                  onSelect(name.trim(), null);
                  saveModal.close();
                },
              },
            );
          }}
        >
          <TextInput
            label={t("orders.filterName")}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={save.error ? errorText(t, save.error) : undefined}
            data-autofocus
          />
          <Group justify="flex-end" mt="md">
            <Button type="submit" loading={save.isPending}>
              {t("common.save")}
            </Button>
          </Group>
        </form>
      </Modal>
    </>
  );
}
