import type { Conventions } from "../lib/types";

/// The sandbox's reading, as `conventions` answers it (abridged state lists).
export const SANDBOX: Conventions = {
  format: 1,
  name: "sandbox",
  states: {
    payCode: { SUCCESS: "success", PENDING: "pending", FAILED: "failed" },
    orderState: { "0": "pending", "1": "success", "2": "failed" },
    refundState: { "0": "pending", "1": "refunded" },
    queryStatus: { SUCCESS: "success" },
    settle: { "0": "not_settled", "1": "settled" },
    rollingReserveStatus: { "0": "held", "1": "released" },
  },
  successCodes: ["00000"],
  duplicateCodes: ["E1011"],
  notFoundCodes: ["E1016"],
  signing: { excludedKeys: ["sign"], skipEmpty: true },
  timeZone: "UTC",
  maxPageSize: 500,
  maxSpanHours: 0,
  queryTypes: { sales: "sales", refund: "refund", chargeback: "chargeback" },
  v1QuerySignField: "sign",
  listShows: { payins: true, payouts: true, topUps: true, withdrawals: true },
  kindRules: [],
  requesterIp: "127.0.0.1",
  refusalStatuses: {},
};
