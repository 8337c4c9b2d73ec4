export const eventKeys = {
  all: ["events"] as const,
};
