export const cardKeys = {
  all: ["cards"] as const,
  list: ["cards", "list"] as const,
  operations: ["cards", "operations"] as const,
};
