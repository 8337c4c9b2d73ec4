// Reports → Schedules: the profile's scheduled reports and their runs (the desk runs
// what falls due in the background, so the list is read again every few seconds while
// shown), and what changes them.
import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import {
  commands,
  type ScheduleAlert_Serialize,
  type ScheduleRun_Serialize,
  type ScheduleSpec_Deserialize,
  type Schedules_Serialize,
} from "../../bindings";
import { useCommandMutation, useInvalidateAfter } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";
import { scheduleKeys } from "./keys";

export type Schedules = Schedules_Serialize;
export type ScheduleView = Schedules["schedules"][number];
export type ScheduleRun = ScheduleRun_Serialize;
export type ScheduleSpec = ScheduleSpec_Deserialize;
export type ScheduleAlert = ScheduleAlert_Serialize;

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

/// A run the desk made in the background (on time, caught up, or failed) changes what
/// the Dashboard shows as a Run now does: while mounted, the runs are read every 15 s and
/// a new or finished one refreshes what `schedule_run_now` makes stale.
export function useWatchScheduleRuns() {
  const invalidate = useInvalidateAfter();
  const q = useQuery({
    queryKey: scheduleKeys.all,
    queryFn: () => unwrap(commands.schedules()),
    refetchInterval: 15_000,
  });
  const newest = q.data?.runs[0];
  const mark = newest ? `${newest.id}:${newest.outcome}` : "";
  const seen = useRef<string | null>(null);
  useEffect(() => {
    if (!q.isSuccess) return;
    if (seen.current !== null && seen.current !== mark) void invalidate("scheduleRunNow");
    seen.current = mark;
  }, [mark, q.isSuccess, invalidate]);
}
