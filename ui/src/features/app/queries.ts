import { useQuery } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";

export const appKeys = {
  status: ["app", "status"] as const,
  meanings: ["app", "meanings"] as const,
};

export function useAppStatus() {
  return useQuery({ queryKey: appKeys.status, queryFn: () => unwrap(commands.appStatus()) });
}

/// The profile's state dictionary, as raw value → meaning per field.
export function useStateMeanings() {
  return useQuery({
    queryKey: appKeys.meanings,
    queryFn: () => unwrap(commands.stateMeanings()),
    staleTime: Number.POSITIVE_INFINITY,
  });
}
