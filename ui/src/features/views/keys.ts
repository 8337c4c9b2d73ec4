import type { RelativeRange, Screen } from "./types";

export const viewKeys = {
  all: ["views"] as const,
  list: (screen: Screen) => ["views", "list", screen] as const,
  last: (screen: Screen) => ["views", "last", screen] as const,
  range: (range: RelativeRange) => ["views", "range", range] as const,
};
