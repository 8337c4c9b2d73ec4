import type { RequestState } from "../../lib/types";

export const teamKeys = {
  all: ["team"] as const,
  status: ["team", "status"] as const,
  sealKey: ["team", "sealKey"] as const,
  requests: (states: readonly RequestState[]) => ["team", "requests", ...states] as const,
  request: (id: number) => ["team", "request", id] as const,
};
