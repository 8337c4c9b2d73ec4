import { Button, Center, Modal, PasswordInput, Stack, Text, Title } from "@mantine/core";
import { useIdle } from "@mantine/hooks";
import { IconLock } from "@tabler/icons-react";
import { type ReactNode, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { FormError } from "../../components/ErrorAlert";
import { setLocked, useLocked } from "./lock";
import {
  lockNow,
  touchSession,
  useChooseDeskPassword,
  useDeskLockSettings,
  useSessionState,
  useUnlock,
} from "./lockQueries";
import { useTeamStatus } from "./queries";

/// What counts as the person's activity (the screens' own polling does not).
const ACTIVITY = ["keydown", "mousedown", "touchstart", "wheel"] as const;
/// The backend hears of activity at most this often.
const TOUCH_MS = 15_000;

/// The desk's idle lock: after the idle time without a key press or a click the desk
/// locks (the backend closes the desk and refuses every command, and remembers it across
/// a relaunch) and this screen covers everything until the password is given again: a
/// team member's database password, or a single desk's desk password when it holds a
/// live profile's merchant key. Wrong passwords are throttled and audited by the backend.
/// A single live desk without a desk password is asked to choose one first.
export function IdleLock() {
  const { t } = useTranslation();
  const team = useTeamStatus().data;
  const locked = useLocked();
  const lockState = useSessionState();
  const minutes = lockState.data?.idleLockMinutes ?? 0;
  const idle = useIdle(Math.max(minutes, 1) * 60_000, {
    events: [...ACTIVITY],
    initialState: false,
  });
  const [password, setPassword] = useState("");
  const unlock = useUnlock(() => {
    setPassword("");
    unlock.reset();
    setLocked(false);
  });

  // Locked when the app starts: the desk was locked when it quit.
  useEffect(() => {
    if (lockState.data?.locked) setLocked(true);
  }, [lockState.data?.locked]);

  // The window's own clock: lock as soon as the idle time is out, not at the next command.
  useEffect(() => {
    if (minutes > 0 && idle && !locked) {
      setLocked(true);
      lockNow();
    }
  }, [minutes, idle, locked]);

  // Tell the backend the person is here, at most every TOUCH_MS.
  useEffect(() => {
    if (minutes <= 0) return;
    let last = 0;
    const touch = () => {
      const now = Date.now();
      if (now - last < TOUCH_MS) return;
      last = now;
      touchSession();
    };
    for (const e of ACTIVITY) window.addEventListener(e, touch, { passive: true });
    return () => {
      for (const e of ACTIVITY) window.removeEventListener(e, touch);
    };
  }, [minutes]);

  const isTeam = lockState.data?.team ?? !!team;
  const profile = lockState.data?.profile ?? "";
  const body = isTeam
    ? minutes > 0
      ? t("lock.body", { minutes, user: team?.user ?? profile })
      : t("lock.bodyTeamLocked", { profile })
    : minutes > 0
      ? t("lock.bodyDesk", { count: minutes, profile })
      : t("lock.bodyDeskLocked", { profile });

  return (
    <>
      <LockDialog opened={locked} testId="lock-screen" titleId="lock-screen-title">
        <Center h="80vh">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (!unlock.isPending) unlock.mutate(password);
            }}
          >
            <Stack w={380} align="stretch">
              <Center>
                <IconLock size={40} />
              </Center>
              <Title order={2} ta="center" id="lock-screen-title">
                {t("lock.title")}
              </Title>
              <Text size="sm" c="dimmed" ta="center" data-testid="lock-body">
                {body}
              </Text>
              <PasswordInput
                label={isTeam ? t("lock.password") : t("lock.deskPassword")}
                value={password}
                onChange={(e) => setPassword(e.currentTarget.value)}
                autoComplete="current-password"
                data-autofocus
                required
                data-testid="lock-password"
              />
              <FormError error={unlock.error} testId="lock-error" />
              <Text size="xs" c="dimmed" ta="center">
                {t("lock.throttleHint")}
              </Text>
              <Button type="submit" loading={unlock.isPending} data-testid="lock-unlock">
                {t("lock.unlock")}
              </Button>
            </Stack>
          </form>
        </Center>
      </LockDialog>
      {locked ? null : <ChooseDeskPassword />}
    </>
  );
}

/// A single desk holding a live profile's key with no desk password yet: one is chosen
/// before the desk is used, so its idle lock can guard it.
function ChooseDeskPassword() {
  const { t } = useTranslation();
  const settings = useDeskLockSettings();
  const [password, setPassword] = useState("");
  const [again, setAgain] = useState("");
  const [mismatch, setMismatch] = useState(false);
  const choose = useChooseDeskPassword(() => {
    setPassword("");
    setAgain("");
  });
  const needed = !!settings.data?.applies && !settings.data.passwordSet;
  return (
    <LockDialog opened={needed} testId="desk-password-setup" titleId="desk-password-setup-title">
      <Center h="80vh">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (password !== again) {
              setMismatch(true);
              return;
            }
            setMismatch(false);
            if (!choose.isPending) choose.mutate(password);
          }}
        >
          <Stack w={420} align="stretch">
            <Center>
              <IconLock size={40} />
            </Center>
            <Title order={2} ta="center" id="desk-password-setup-title">
              {t("lock.setupTitle")}
            </Title>
            <Text size="sm" c="dimmed" ta="center">
              {t("lock.setupBody", { minutes: settings.data?.idleMinutes ?? 15 })}
            </Text>
            <PasswordInput
              label={t("lock.deskPassword")}
              description={t("lock.deskPasswordHint")}
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              autoComplete="new-password"
              data-autofocus
              required
              data-testid="desk-password-new"
            />
            <PasswordInput
              label={t("lock.deskPasswordAgain")}
              value={again}
              onChange={(e) => setAgain(e.currentTarget.value)}
              autoComplete="new-password"
              error={mismatch ? t("lock.mismatch") : undefined}
              required
              data-testid="desk-password-again"
            />
            <FormError error={choose.error} testId="desk-password-error" />
            <Button type="submit" loading={choose.isPending} data-testid="desk-password-save">
              {t("lock.setupSave")}
            </Button>
          </Stack>
        </form>
      </Center>
    </LockDialog>
  );
}

/// A full-window dialog nobody closes but by its own form (the lock, the desk password's
/// set-up), shown at once (nothing of the desk shows while it fades in), named by its
/// title for assistive technology.
function LockDialog({
  opened,
  testId,
  titleId,
  children,
}: {
  opened: boolean;
  testId: string;
  titleId: string;
  children: ReactNode;
}) {
  return (
    <Modal.Root
      opened={opened}
      onClose={() => {}}
      closeOnEscape={false}
      closeOnClickOutside={false}
      transitionProps={{ duration: 0 }}
      fullScreen
      data-testid={testId}
    >
      <Modal.Overlay />
      <Modal.Content aria-labelledby={titleId}>
        <Modal.Body>{children}</Modal.Body>
      </Modal.Content>
    </Modal.Root>
  );
}
