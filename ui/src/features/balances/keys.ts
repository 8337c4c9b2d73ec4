export const balanceKeys = {
  all: ["balances"] as const,
  latest: ["balances", "latest"] as const,
  history: (currency: string) => ["balances", "history", currency] as const,
  reconcile: (currency: string, from: number, to: number) =>
    ["balances", "reconcile", currency, from, to] as const,
  upcoming: ["balances", "upcoming"] as const,
  overview: (target: string, rates: string) => ["balances", "overview", target, rates] as const,
};
