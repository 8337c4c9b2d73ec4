// The alerts inbox (issue 35 item 4): a bell in the header with the unread count, a
// drawer listing what needs a person (newest first), each opening what it is about;
// and, while the desk is open, the system's notifications the engine hands out.
import {
  ActionIcon,
  Badge,
  Button,
  Drawer,
  Group,
  Indicator,
  Paper,
  Stack,
  Text,
  Tooltip,
} from "@mantine/core";
import { IconBellRinging } from "@tabler/icons-react";
import { useCallback, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate } from "react-router";
import { ErrorAlert } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatDateTime, formatMoney } from "../../lib/format";
import type { Alert } from "../../lib/types";
import { ALERTS_EVERY_MS, alertNotify, alertsDue, useAlerts, useMarkAlerts } from "./queries";
import { alertRoute } from "./route";

/// An alert in the user's language: its title and one line.
export function useAlertWords() {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  return (a: Alert) => {
    const p: Record<string, string> = { ...a.params };
    // Amounts as everywhere else: grouped, with the currency's decimals.
    const currency = p.currency ?? "";
    for (const k of ["balance", "threshold", "amount", "total"]) {
      const v = p[k];
      if (v && currency) p[k] = formatMoney(v, currency, loc);
    }
    return {
      title: t(`alerts.kind.${a.kind}`),
      text: t(`alerts.text.${a.kind}`, p),
    };
  };
}

/// Asks for the alerts to notify, every while and whenever the inbox was read again
/// (`trigger`), and shows each in the system's notifications in the user's language.
function useSystemNotifications(enabled: boolean, trigger: number) {
  const words = useAlertWords();
  const [wordsRef] = useState(() => ({ current: words }));
  wordsRef.current = words;
  const [busy] = useState(() => ({ current: false }));
  const round = useCallback(async () => {
    if (busy.current) return;
    busy.current = true;
    try {
      for (const a of await alertsDue()) {
        const w = wordsRef.current(a);
        await alertNotify(w.title, w.text);
      }
    } catch {
      // A locked or closed desk answers nothing: the next round asks again.
    } finally {
      busy.current = false;
    }
  }, [busy, wordsRef]);
  useEffect(() => {
    if (!enabled) return;
    const timer = setInterval(round, ALERTS_EVERY_MS);
    return () => clearInterval(timer);
  }, [enabled, round]);
  useEffect(() => {
    if (enabled && trigger > 0) void round();
  }, [enabled, trigger, round]);
}

function AlertRow({ a, onOpen }: { a: Alert; onOpen: (a: Alert) => void }) {
  const { t, i18n } = useTranslation();
  const words = useAlertWords()(a);
  const mark = useMarkAlerts();
  return (
    <Paper
      withBorder
      p="sm"
      data-testid={`alert-${a.kind}`}
      data-key={a.key}
      data-read={a.read ? "1" : "0"}
    >
      <Stack gap={4}>
        <Group justify="space-between" wrap="nowrap">
          <Group gap="xs" wrap="nowrap">
            {a.read ? null : (
              <Badge size="xs" color="red" variant="filled">
                {t("alerts.new")}
              </Badge>
            )}
            <Text fw={600} size="sm">
              {words.title}
            </Text>
          </Group>
          <Text size="xs" c="dimmed">
            {formatDateTime(a.at, locale(i18n.language))}
          </Text>
        </Group>
        <Text size="sm">{words.text}</Text>
        <Group gap="xs">
          <Button size="xs" onClick={() => onOpen(a)} data-testid="alert-open">
            {t("alerts.open")}
          </Button>
          {a.read ? null : (
            <Button
              size="xs"
              variant="default"
              loading={mark.isPending}
              onClick={() => mark.mutate({ keys: [a.key], dismiss: false })}
            >
              {t("alerts.markRead")}
            </Button>
          )}
          <Button
            size="xs"
            variant="subtle"
            color="gray"
            loading={mark.isPending}
            onClick={() => mark.mutate({ keys: [a.key], dismiss: true })}
            data-testid="alert-dismiss"
          >
            {t("alerts.dismiss")}
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

export function AlertInbox({ enabled }: { enabled: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [opened, setOpened] = useState(false);
  const alerts = useAlerts(enabled);
  const mark = useMarkAlerts();
  useSystemNotifications(enabled, alerts.dataUpdatedAt);
  const list = alerts.data ?? [];
  const unread = list.filter((a) => !a.read);
  const open = (a: Alert) => {
    if (!a.read) mark.mutate({ keys: [a.key], dismiss: false });
    setOpened(false);
    navigate(alertRoute(a.target));
  };
  return (
    <>
      <Tooltip label={t("alerts.inbox")} disabled={opened}>
        <Indicator
          label={unread.length}
          size={16}
          color="red"
          disabled={unread.length === 0}
          data-testid="alerts-count"
          data-count={unread.length}
        >
          <ActionIcon
            variant="default"
            size="lg"
            onClick={() => setOpened(true)}
            aria-label={t("alerts.inboxCount", { count: unread.length })}
            data-testid="alerts-button"
          >
            <IconBellRinging size={18} />
          </ActionIcon>
        </Indicator>
      </Tooltip>
      <Drawer
        opened={opened}
        onClose={() => setOpened(false)}
        position="right"
        title={t("alerts.inbox")}
        data-testid="alerts-inbox"
      >
        <Stack gap="sm" data-testid="alerts-list">
          {alerts.error ? <ErrorAlert error={alerts.error} /> : null}
          {unread.length > 0 ? (
            <Group justify="flex-end">
              <Button
                size="xs"
                variant="default"
                onClick={() => mark.mutate({ keys: unread.map((a) => a.key), dismiss: false })}
              >
                {t("alerts.markAllRead")}
              </Button>
            </Group>
          ) : null}
          {list.length === 0 && !alerts.isPending ? (
            <Text c="dimmed" size="sm" data-testid="alerts-empty">
              {t("alerts.empty")}
            </Text>
          ) : null}
          {list.map((a) => (
            <AlertRow key={a.key} a={a} onOpen={open} />
          ))}
          <Text size="xs" c="dimmed">
            {t("alerts.settingsHint")}
          </Text>
        </Stack>
      </Drawer>
    </>
  );
}
