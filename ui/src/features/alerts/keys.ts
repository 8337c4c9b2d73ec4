export const alertKeys = {
  all: ["alerts"] as const,
  list: ["alerts", "list"] as const,
  settings: ["alerts", "settings"] as const,
};
