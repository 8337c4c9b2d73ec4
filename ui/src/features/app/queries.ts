import { useQuery } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import { appKeys } from "./keys";

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
