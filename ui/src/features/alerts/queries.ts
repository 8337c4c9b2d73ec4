// Alerts (issue 35 item 4): the inbox, its marks, the thresholds, and the system's
// notifications the engine hands out once each (worded here, shown by the app).
import { useQuery } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";
import type { Alert, AlertSettings } from "../../lib/types";
import { alertKeys } from "./keys";

/// How often the inbox is read again, and the system's notifications asked for.
export const ALERTS_EVERY_MS = 15_000;

export function useAlerts(enabled: boolean) {
  return useQuery({
    queryKey: alertKeys.list,
    enabled,
    refetchInterval: ALERTS_EVERY_MS,
    queryFn: () => unwrap(commands.alertsList()),
  });
}

export function useMarkAlerts() {
  return useCommandMutation(
    "alertsMark",
    ({ keys, dismiss }: { keys: string[]; dismiss: boolean }) =>
      unwrap(commands.alertsMark(keys, dismiss)),
  );
}

/// The alerts to notify now (each handed out once by the engine).
export function alertsDue(): Promise<Alert[]> {
  return unwrap(commands.alertsDue());
}

/// Shows one system notification.
export function alertNotify(title: string, body: string): Promise<null> {
  return unwrap(commands.alertNotify(title, body));
}

export function useAlertSettings() {
  return useQuery({
    queryKey: alertKeys.settings,
    queryFn: () => unwrap(commands.alertSettings()),
  });
}

export function useSaveAlertSettings() {
  return useCommandMutation("alertSettingsSave", (settings: AlertSettings) =>
    unwrap(commands.alertSettingsSave(settings)),
  );
}
