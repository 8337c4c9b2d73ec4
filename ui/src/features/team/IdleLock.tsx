import { Button, Center, Modal, PasswordInput, Stack, Text, Title } from "@mantine/core";
import { useIdle } from "@mantine/hooks";
import { IconLock } from "@tabler/icons-react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { commands } from "../../bindings";
import { FormError } from "../../components/ErrorAlert";
import { unwrap } from "../../lib/ipc";
import { setLocked, useLocked } from "./lock";
import { useTeamStatus } from "./queries";

/// What counts as the member's activity (the screens' own polling does not).
const ACTIVITY = ["keydown", "mousedown", "touchstart", "wheel"] as const;
/// The backend hears of activity at most this often.
const TOUCH_MS = 15_000;

/// The team desk's idle lock: after the team's idle time without a key press or a click
/// the desk locks (the backend closes the team's connections and refuses every command)
/// and this screen covers everything until the member's database password is given
/// again. A single desk never locks.
export function IdleLock() {
  const { t } = useTranslation();
  const team = useTeamStatus().data;
  const minutes = team?.idleLockMinutes ?? 0;
  const locked = useLocked();
  const idle = useIdle(Math.max(minutes, 1) * 60_000, {
    events: [...ACTIVITY],
    initialState: false,
  });
  const qc = useQueryClient();
  const [password, setPassword] = useState("");
  const unlock = useMutation({
    mutationFn: (p: string) => unwrap(commands.sessionUnlock(p)),
    onSuccess: () => {
      setPassword("");
      setLocked(false);
      void qc.invalidateQueries();
    },
  });

  // The window's own clock: lock as soon as the idle time is out, not at the next command.
  useEffect(() => {
    if (team && idle && !locked) {
      setLocked(true);
      void commands.sessionLock();
    }
  }, [team, idle, locked]);

  // Tell the backend the member is here, at most every TOUCH_MS.
  useEffect(() => {
    if (!team) return;
    let last = 0;
    const touch = () => {
      const now = Date.now();
      if (now - last < TOUCH_MS) return;
      last = now;
      void commands.sessionTouch().then((r) => {
        if (r.status === "error" && r.error.code === "locked") setLocked(true);
      });
    };
    for (const e of ACTIVITY) window.addEventListener(e, touch, { passive: true });
    return () => {
      for (const e of ACTIVITY) window.removeEventListener(e, touch);
    };
  }, [team]);

  return (
    <Modal
      opened={locked}
      onClose={() => {}}
      withCloseButton={false}
      closeOnEscape={false}
      closeOnClickOutside={false}
      fullScreen
      data-testid="lock-screen"
    >
      <Center h="80vh">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (!unlock.isPending) unlock.mutate(password);
          }}
        >
          <Stack w={360} align="stretch">
            <Center>
              <IconLock size={40} />
            </Center>
            <Title order={2} ta="center">
              {t("lock.title")}
            </Title>
            <Text size="sm" c="dimmed" ta="center">
              {t("lock.body", { minutes, user: team?.user ?? "" })}
            </Text>
            <PasswordInput
              label={t("lock.password")}
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              autoComplete="current-password"
              data-autofocus
              required
              data-testid="lock-password"
            />
            <FormError error={unlock.error} testId="lock-error" />
            <Button type="submit" loading={unlock.isPending} data-testid="lock-unlock">
              {t("lock.unlock")}
            </Button>
          </Stack>
        </form>
      </Center>
    </Modal>
  );
}
