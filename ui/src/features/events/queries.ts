import { useMutation, useQuery } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import { eventKeys } from "./keys";

/// The notifications received, newest first; new ones come in while the screen is open.
export function useEvents() {
  return useQuery({
    queryKey: eventKeys.all,
    queryFn: () => unwrap(commands.events()),
    refetchInterval: 5000,
  });
}

/// Checks the signature of a notification body pasted in.
export function useVerifyEvent() {
  return useMutation({ mutationFn: (body: string) => unwrap(commands.eventVerify(body)) });
}
