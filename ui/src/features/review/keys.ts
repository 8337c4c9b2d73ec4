export const reviewKeys = {
  all: ["review"] as const,
  list: (tradeNo: string) => ["review", "list", tradeNo] as const,
  queue: ["review", "queue"] as const,
};
