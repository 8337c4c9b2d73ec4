import { useQuery } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import { dashboardKeys } from "./keys";

export const dashboardQuery = {
  queryKey: dashboardKeys.all,
  queryFn: () => unwrap(commands.dashboard()),
};

export function useDashboard() {
  return useQuery(dashboardQuery);
}
