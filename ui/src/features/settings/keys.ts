export const settingsKeys = {
  all: ["settings"] as const,
  profiles: ["settings", "profiles"] as const,
  keys: (profile: string) => ["settings", "keys", profile] as const,
  conventions: (profile: string) => ["settings", "conventions", profile] as const,
};
