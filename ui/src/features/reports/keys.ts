import type { Days } from "./period";

export const reportKeys = {
  all: ["reports"] as const,
  settings: ["reports", "settings"] as const,
  statement: (days: Days | null, zone: string | null, currency: string | null) =>
    ["reports", "statement", days, zone, currency] as const,
  exportPath: (format: string) => ["reports", "exportPath", format] as const,
};

/// Reports → Schedules (the profile's scheduled reports and their runs).
export const scheduleKeys = { all: ["schedules"] as const };
