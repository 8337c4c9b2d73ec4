/// The refunds and chargebacks the desk cached.
export const reversalKeys = {
  all: ["reversals"] as const,
  list: (tradeNo: string) => ["reversals", tradeNo] as const,
};
