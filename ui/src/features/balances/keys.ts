export const balanceKeys = {
  all: ["balances"] as const,
  history: (currency: string) => ["balances", "history", currency] as const,
};
