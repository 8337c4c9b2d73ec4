import {
  Alert,
  Badge,
  Button,
  Group,
  Modal,
  Progress,
  Stack,
  Text,
  ThemeIcon,
} from "@mantine/core";
import {
  IconAlertTriangle,
  IconCircleCheck,
  IconCircleX,
  IconInfoCircle,
} from "@tabler/icons-react";
import type { TFunction } from "i18next";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../../components/ErrorAlert";
import i18n from "../../i18n";
import type { CheckItem } from "../../lib/types";
import { useCheckConnection } from "./queries";
import { useSetupState } from "./setupQueries";

const OUTCOME = {
  works: { color: "teal", Icon: IconCircleCheck },
  note: { color: "blue", Icon: IconInfoCircle },
  fails: { color: "red", Icon: IconCircleX },
} as const;

/// What a setting a finding names is called on screen: a conventions member by its
/// field's label, another setting by its own.
export function settingLabel(t: TFunction, setting: string): string {
  if (setting.startsWith("conventions.")) {
    // A member's label, with its name as the file spells it (`states.payCode` under the
    // state dictionary's label).
    const member = setting.slice("conventions.".length);
    const top = member.split(/[.[]/)[0] ?? member;
    const key = `conventions.field.${top}`;
    return i18n.exists(key) ? `${t(key)} (${member})` : setting;
  }
  return t(`check.setting.${setting}`, { defaultValue: setting });
}

function Finding({ item, onSetting }: { item: CheckItem; onSetting: (s: string) => void }) {
  const { t } = useTranslation();
  const { color, Icon } = OUTCOME[item.outcome];
  return (
    <Group
      align="flex-start"
      wrap="nowrap"
      gap="sm"
      data-testid="check-item"
      data-what={item.what}
      data-outcome={item.outcome}
    >
      <ThemeIcon color={color} variant="light" radius="xl" aria-hidden>
        <Icon size={18} />
      </ThemeIcon>
      <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
        <Group gap="xs">
          <Text fw={600} size="sm">
            {t(`check.what.${item.what}`, { defaultValue: item.what })}
          </Text>
          <Badge color={color} variant="light" size="sm">
            {t(`check.outcome.${item.outcome}`)}
          </Badge>
        </Group>
        <Text size="sm" style={{ overflowWrap: "anywhere" }}>
          {item.detail}
        </Text>
        {item.setting ? (
          <Group>
            <Button
              size="compact-xs"
              variant="light"
              color={item.outcome === "fails" ? "red" : undefined}
              onClick={() => item.setting && onSetting(item.setting)}
              data-testid="check-setting"
              data-setting={item.setting}
            >
              {t("check.open", { setting: settingLabel(t, item.setting) })}
            </Button>
          </Group>
        ) : null}
      </Stack>
    </Group>
  );
}

interface Props {
  /// The profile checked; null: closed.
  profile: string | null;
  onClose: () => void;
  /// Opens the place where `setting` is changed (a conventions member, the keys, a
  /// profile field).
  onSetting: (profile: string, setting: string) => void;
}

/// A connection check of a profile, run as it opens: each finding with its outcome,
/// what happened and the setting to change.
export function ConnectionCheckModal({ profile, onClose, onSetting }: Props) {
  const { t } = useTranslation();
  const check = useCheckConnection();
  const { mutate, reset } = check;
  useEffect(() => {
    reset();
    if (profile) mutate(profile);
  }, [profile, mutate, reset]);
  const result = check.data;
  // The set-up's last step is ticked by a check that passed, and unticked by one that
  // did not.
  const [, setSetup] = useSetupState(profile ?? "");
  useEffect(() => {
    if (result && result.profile === profile) setSetup((s) => ({ ...s, checkPassed: result.ok }));
  }, [result, profile, setSetup]);
  return (
    <Modal
      opened={profile !== null}
      onClose={onClose}
      size="lg"
      title={t("check.title", { name: profile ?? "" })}
    >
      <Stack data-testid="check-panel" data-state={check.status}>
        {check.isPending ? (
          <Stack gap="xs" data-testid="check-running">
            <Text size="sm">{t("check.running")}</Text>
            <Progress value={100} animated striped aria-label={t("check.running")} />
          </Stack>
        ) : null}
        <ErrorAlert error={check.error} />
        {result ? (
          <>
            <Text size="xs" c="dimmed" style={{ overflowWrap: "anywhere" }}>
              {t("check.gateway", { url: result.baseUrl })}
            </Text>
            <Alert
              color={result.ok ? "teal" : "red"}
              variant="light"
              icon={result.ok ? <IconCircleCheck size={18} /> : <IconAlertTriangle size={18} />}
              data-testid="check-summary"
              data-ok={result.ok}
            >
              {result.ok ? t("check.ok") : t("check.failed")}
            </Alert>
            {result.items.map((item, i) => (
              <Finding
                // The findings are a fixed list in the order tried.
                // biome-ignore lint/suspicious/noArrayIndexKey: never reordered
                key={`${item.what}-${i}`}
                item={item}
                onSetting={(s) => onSetting(result.profile, s)}
              />
            ))}
          </>
        ) : null}
        <Group justify="flex-end">
          <Button
            variant="default"
            onClick={() => profile && mutate(profile)}
            disabled={check.isPending}
            data-testid="check-again"
          >
            {t("check.again")}
          </Button>
          <Button onClick={onClose}>{t("common.close")}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
