import {
  Badge,
  Button,
  Checkbox,
  Group,
  Menu,
  Modal,
  Stack,
  Text,
  TextInput,
  Tooltip,
} from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import {
  IconCheck,
  IconDeviceFloppy,
  IconLayoutList,
  IconRefresh,
  IconTrash,
  IconUsers,
  IconX,
} from "@tabler/icons-react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { errorText, toastError, toastOk } from "../../components/ErrorAlert";
import { useAccess } from "../team/queries";
import { useDeleteView, useSaveView, useUpdateView, useViews } from "./queries";
import type { SavedView, Screen, ViewSpec } from "./types";

interface Props {
  screen: Screen;
  /// What the screen shows now, as a view would keep it.
  current: () => ViewSpec;
  /// The view the screen shows, or null.
  selected: SavedView | null;
  /// Applies a view (null: the screen's own, no view).
  onSelect: (view: SavedView | null) => void;
}

/// The saved views of a screen behind one button: pick one (arrow keys and Enter), save
/// what the screen shows as a new view (shared with the team on a team profile), update
/// or delete the one shown (its author's; an admin's too for a shared one), or go back
/// to no view.
export function ViewsMenu({ screen, current, selected, onSelect }: Props) {
  const { t } = useTranslation();
  const views = useViews(screen);
  const save = useSaveView();
  const update = useUpdateView();
  const remove = useDeleteView();
  const access = useAccess();
  const onTeam = access.team !== null && access.team !== undefined;
  const admin = onTeam && (access.team?.roles.includes("admin") ?? false);
  const [saving, saveModal] = useDisclosure(false);
  const [name, setName] = useState("");
  const [shared, setShared] = useState(false);
  const list = views.data ?? [];
  const mayChange = selected !== null && (selected.mine || (selected.shared && admin));
  const label = selected ? t("views.shown", { name: selected.name }) : t("views.title");

  return (
    <>
      <Menu position="bottom-start" shadow="md" withinPortal>
        <Menu.Target>
          <Tooltip label={label}>
            <Button
              size="xs"
              variant={selected ? "light" : "default"}
              leftSection={<IconLayoutList size={14} />}
              aria-label={label}
              data-testid={`views-${screen}`}
              data-selected={selected?.name}
              maw={200}
            >
              <Text size="xs" truncate>
                {selected ? selected.name : t("views.title")}
              </Text>
            </Button>
          </Tooltip>
        </Menu.Target>
        <Menu.Dropdown data-testid="views-menu">
          <Menu.Label>{t("views.title")}</Menu.Label>
          {list.length === 0 ? <Menu.Label>{t("views.none")}</Menu.Label> : null}
          {list.map((v) => (
            <Menu.Item
              key={v.id}
              onClick={() => onSelect(v)}
              leftSection={
                v.id === selected?.id ? <IconCheck size={14} /> : <span style={{ width: 14 }} />
              }
              rightSection={
                v.shared ? (
                  <Badge
                    size="xs"
                    variant="light"
                    leftSection={<IconUsers size={10} />}
                    aria-label={
                      v.mine ? t("views.sharedByMe") : t("views.sharedBy", { owner: v.owner })
                    }
                  >
                    {v.mine ? t("views.sharedShort") : v.owner}
                  </Badge>
                ) : null
              }
              fw={v.id === selected?.id ? 600 : undefined}
              data-testid="view-item"
              data-name={v.name}
            >
              {v.name}
            </Menu.Item>
          ))}
          <Menu.Divider />
          <Menu.Item
            leftSection={<IconDeviceFloppy size={14} />}
            onClick={() => {
              setName("");
              setShared(false);
              save.reset();
              saveModal.open();
            }}
            data-testid="view-save-new"
          >
            {t("views.saveNew")}
          </Menu.Item>
          {selected && mayChange ? (
            <Menu.Item
              leftSection={<IconRefresh size={14} />}
              onClick={() =>
                update.mutate(
                  { id: selected.id, spec: current(), shared: selected.shared },
                  {
                    onSuccess: () => toastOk(t("views.updated", { name: selected.name })),
                    onError: (e) => toastError(t, e),
                  },
                )
              }
              data-testid="view-update"
            >
              {t("views.update", { name: selected.name })}
            </Menu.Item>
          ) : null}
          {selected && mayChange ? (
            <Menu.Item
              color="red"
              leftSection={<IconTrash size={14} />}
              onClick={() =>
                remove.mutate(selected.id, {
                  onSuccess: () => onSelect(null),
                  onError: (e) => toastError(t, e),
                })
              }
              data-testid="view-delete"
            >
              {t("views.delete", { name: selected.name })}
            </Menu.Item>
          ) : null}
          {selected ? (
            <Menu.Item
              leftSection={<IconX size={14} />}
              onClick={() => onSelect(null)}
              data-testid="view-none"
            >
              {t("views.noView")}
            </Menu.Item>
          ) : null}
        </Menu.Dropdown>
      </Menu>
      <Modal opened={saving} onClose={saveModal.close} title={t("views.saveNew")}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate(
              { screen, name, spec: current(), shared },
              {
                onSuccess: (v) => {
                  toastOk(t("views.saved", { name: v.name }));
                  onSelect(v);
                  saveModal.close();
                },
              },
            );
          }}
        >
          <Stack gap="sm">
            <Text size="sm" c="dimmed">
              {t("views.saveWhat")}
            </Text>
            <TextInput
              label={t("views.name")}
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={save.error ? errorText(t, save.error) : undefined}
              data-autofocus
              data-testid="view-name"
            />
            {onTeam ? (
              <Checkbox
                label={t("views.share")}
                description={t("views.shareWhy")}
                checked={shared}
                onChange={(e) => setShared(e.currentTarget.checked)}
                data-testid="view-share"
              />
            ) : null}
            <Group justify="flex-end">
              <Button type="submit" loading={save.isPending} data-testid="view-save">
                {t("common.save")}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
