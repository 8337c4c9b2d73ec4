export const balanceKeys = {
  all: ["balances"] as const,
  latest: ["balances", "latest"] as const,
  history: (currency: string) => ["balances", "history", currency] as const,
  overview: (target: string, rates: string) => ["balances", "overview", target, rates] as const,
};
