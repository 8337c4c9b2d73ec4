import type { TFunction } from "i18next";
import { formatCount, formatDuration } from "../../lib/format";
import type { SyncProgress, SyncReport } from "../../lib/types";

/// What the sync panel says of a run: two short lines under the bar (what has been read,
/// then how fast and how long is left), the longer detail for its tooltip, and the
/// bar's value in percent.
export interface SyncLine {
  read: string;
  pace: string;
  detail: string;
  percent: number;
}

/// The words for `p`, the run's latest progress; `report` once the run has finished.
export function syncLine(
  t: TFunction,
  p: SyncProgress,
  locale: string,
  report: SyncReport | null,
): SyncLine {
  const expected = p.ordersExpected ?? null;
  // The gateway's counts cover only the days counted so far; the rest are estimated, so
  // the total is "about" until every day is done.
  const estimate = expected !== null && p.windowsDone < p.windowsTotal;
  const daysRead = t("orders.syncDaysRead", {
    done: formatCount(p.windowsDone, locale),
    count: p.windowsTotal,
  });
  let read: string;
  if (report) {
    read = t("orders.syncOrdersRead", { count: p.orders });
  } else if (expected === null) {
    read = t("orders.syncProgress", {
      days: daysRead,
      orders: t("orders.rows", { count: p.orders }),
    });
  } else {
    read = t(estimate ? "orders.syncOrdersOfAbout" : "orders.syncOrdersOf", {
      done: formatCount(p.orders, locale),
      count: expected,
    });
  }

  const speed =
    p.ordersPerSecond === null || p.ordersPerSecond === undefined
      ? null
      : t("orders.syncSpeed", { count: Math.round(p.ordersPerSecond) });
  const pace = [speed, timeText(t, p, locale, report)].filter((x) => x !== null).join(" · ");

  const requests = t("orders.syncRequests", { count: p.requests });
  const detail = [[daysRead, requests].join(" · "), estimate ? t("orders.syncEstimate") : null]
    .filter((x) => x !== null)
    .join("\n");

  let percent = p.windowsTotal > 0 ? (100 * p.windowsDone) / p.windowsTotal : 0;
  if (report) percent = 100;
  else if (expected !== null && expected > 0) percent = Math.min(100, (100 * p.orders) / expected);
  return { read, pace, detail, percent };
}

function timeText(
  t: TFunction,
  p: SyncProgress,
  locale: string,
  report: SyncReport | null,
): string | null {
  if (report) {
    return report.seconds === null
      ? null
      : t("orders.syncTook", { time: formatDuration(report.seconds, locale) });
  }
  const eta = p.etaSeconds ?? null;
  if (eta === null) return t("orders.syncTimeLeftUnknown");
  if (eta <= 0) return t("orders.syncFinishing");
  return t("orders.syncTimeLeft", { time: formatDuration(eta, locale) });
}

/// The message of a finished sync: what was read and changed, then how many requests it
/// took and, only when there were some, how many of them asked again for a lost page.
export function syncDoneText(t: TFunction, r: SyncReport, locale: string): string {
  const done = t("orders.syncDone", {
    count: r.progress.orders,
    changed: formatCount(r.changed, locale),
  });
  if (r.requests <= 0) return done;
  const requests = t("orders.syncDoneRequests", { count: r.requests });
  if (r.retries <= 0) return t("orders.syncDoneDetail", { done, requests });
  const retries = t("orders.syncDoneRetries", { count: r.retries });
  return t("orders.syncDoneDetailRetries", { done, requests, retries });
}
