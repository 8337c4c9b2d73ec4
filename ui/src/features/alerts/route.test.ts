import { describe, expect, it } from "vitest";
import { alertRoute } from "./route";

describe("alertRoute", () => {
  it("opens what each alert is about", () => {
    expect(alertRoute({ to: "entry", id: 7, tradeNo: null })).toBe("/?entry=7");
    expect(alertRoute({ to: "entry", id: 7, tradeNo: "T 1" })).toBe("/orders?order=T%201");
    expect(alertRoute({ to: "order", tradeNo: "T9" })).toBe("/orders?order=T9");
    expect(alertRoute({ to: "balances", currency: "MXN" })).toBe("/balances?currency=MXN");
    expect(alertRoute({ to: "sync" })).toBe("/");
    expect(alertRoute({ to: "request", id: 3 })).toBe("/approvals?request=3");
  });
});
