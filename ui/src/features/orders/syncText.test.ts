import { describe, expect, it } from "vitest";
import i18n from "../../i18n";
import type { SyncReport } from "../../lib/types";
import { syncDoneText, syncLine } from "./syncText";

const en = i18n.getFixedT("en");
const zh = i18n.getFixedT("zh");

const running: SyncReport["progress"] = {
  windowsDone: 30,
  windowsTotal: 91,
  pages: 40,
  orders: 12_400,
  ordersPerSecond: 25_300,
  etaSeconds: 3_900,
  ordersExpected: 1_000_000,
  requests: 77,
};

function report(requests: number, retries: number): SyncReport {
  return {
    progress: { ...running, windowsDone: 91, etaSeconds: 0 },
    windowsSkipped: 0,
    changed: 1_200,
    reread: 0,
    seconds: 40,
    writeSeconds: 1,
    requests,
    retries,
    refusedCount: 0,
    refused: [],
    windowsReread: 0,
    incompleteCount: 0,
    incomplete: [],
  };
}

describe("the sync's words", () => {
  it("say the progress in Chinese, with the estimate marked", () => {
    const line = syncLine(zh, running, "zh-CN", null);
    expect(line.read).toBe("已读取 12,400 / 约 1,000,000 笔订单");
    expect(line.pace).toBe("每秒 25,300 笔 · 约剩 1小时5分钟");
    expect(line.detail).toContain("已读取 30 / 91 天 · 已向网关发送 77 个请求");
    const unknown = syncLine(zh, { ...running, etaSeconds: null }, "zh-CN", null);
    expect(unknown.pace).toBe("每秒 25,300 笔 · 剩余时间暂不可知");
  });

  it("leave the rate out until there is one", () => {
    const line = syncLine(en, { ...running, ordersPerSecond: null }, "en-US", null);
    expect(line.pace).toBe("about 1 hr 5 min left");
  });

  it("name the requests, and the lost pages asked again only when there were some", () => {
    expect(syncDoneText(en, report(2_003, 0), "en-US")).toBe(
      "Sync finished: 12,400 orders read, 1,200 changed (2,003 requests to the gateway)",
    );
    expect(syncDoneText(en, report(2_003, 1), "en-US")).toBe(
      "Sync finished: 12,400 orders read, 1,200 changed (2,003 requests to the gateway, 1 of them asking again for a lost page)",
    );
    expect(syncDoneText(zh, report(2_003, 3), "zh-CN")).toBe(
      "同步完成：读取 12,400 笔订单，1,200 笔有变化（向网关发送 2,003 个请求，其中 3 个重新请求丢失的页面）",
    );
  });
});
