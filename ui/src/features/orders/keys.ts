import type { OrderFilter } from "../../lib/types";

export const orderKeys = {
  all: ["orders"] as const,
  page: (filter: OrderFilter, page: number) => ["orders", "page", filter, page] as const,
  detail: (tradeNo: string) => ["orders", "detail", tradeNo] as const,
  customer: (tradeNo: string) => ["orders", "customer", tradeNo] as const,
  /// The sandbox's actions that apply to an order now (they change with its state).
  actions: (tradeNo: string) => ["orders", "actions", tradeNo] as const,
  currencies: ["orders", "currencies"] as const,
  /// The file name an export suggests. Outside `all` on purpose: refreshing the orders
  /// (a sync, a simulation, a payment) must not suggest a new name over one being typed.
  exportPath: (format: string, opened: boolean) => ["export-path", format, opened] as const,
};
