// Reports → Schedules: the profile's scheduled reports and their runs (the desk runs
// what falls due in the background, so the list is read again every few seconds while
// shown), and what changes them.
import { useQuery } from "@tanstack/react-query";
import {
  commands,
  type ScheduleAlert_Serialize,
  type ScheduleRun_Serialize,
  type ScheduleSpec_Deserialize,
  type Schedules_Serialize,
} from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";

export type Schedules = Schedules_Serialize;
export type ScheduleView = Schedules["schedules"][number];
export type ScheduleRun = ScheduleRun_Serialize;
export type ScheduleSpec = ScheduleSpec_Deserialize;
export type ScheduleAlert = ScheduleAlert_Serialize;

export const scheduleKeys = { all: ["schedules"] as const };

export function useSchedules() {
  return useQuery({
    queryKey: scheduleKeys.all,
    queryFn: () => unwrap(commands.schedules()),
    refetchInterval: 5_000,
  });
}

export function useSaveSchedule() {
  return useCommandMutation("scheduleSave", (v: { id: number | null; spec: ScheduleSpec }) =>
    unwrap(commands.scheduleSave(v.id, v.spec)),
  );
}

export function usePauseSchedule() {
  return useCommandMutation("schedulePause", (v: { id: number; paused: boolean }) =>
    unwrap(commands.schedulePause(v.id, v.paused)),
  );
}

export function useRemoveSchedule() {
  return useCommandMutation("scheduleRemove", (id: number) => unwrap(commands.scheduleRemove(id)));
}

export function useRunScheduleNow() {
  return useCommandMutation("scheduleRunNow", (id: number) => unwrap(commands.scheduleRunNow(id)));
}

export function useScheduleRunsSeen() {
  return useCommandMutation("scheduleRunsSeen", (ids: number[]) =>
    unwrap(commands.scheduleRunsSeen(ids)),
  );
}
