// The payout desk's query keys (what `lib/invalidates.ts` may name): a payout's balance
// check and the profile's limits (issue 35).
export const fundsKeys = {
  all: ["funds"] as const,
  payout: (currency: string, amount: string) => ["funds", "payout", currency, amount] as const,
  limits: ["funds", "limits"] as const,
};
