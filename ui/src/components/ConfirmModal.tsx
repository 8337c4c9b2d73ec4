import { Button, Group, Modal, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";

interface Props {
  opened: boolean;
  title: string;
  message: string;
  /// The confirming button's label and colour.
  confirmLabel: string;
  color: string;
  loading: boolean;
  onConfirm: () => void;
  onClose: () => void;
}

/// Asks before something that cannot be undone (replacing or deleting a key, removing a
/// profile).
export function ConfirmModal(p: Props) {
  const { t } = useTranslation();
  return (
    <Modal opened={p.opened} onClose={p.onClose} title={p.title}>
      <Text mb="md">{p.message}</Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={p.onClose}>
          {t("common.cancel")}
        </Button>
        <Button color={p.color} loading={p.loading} onClick={p.onConfirm}>
          {p.confirmLabel}
        </Button>
      </Group>
    </Modal>
  );
}
