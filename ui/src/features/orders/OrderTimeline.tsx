import { Badge, Group, Stack, Text, Timeline } from "@mantine/core";
import {
  IconArrowBackUp,
  IconBell,
  IconFileUpload,
  IconListCheck,
  IconSend,
  IconShieldCheck,
} from "@tabler/icons-react";
import type { TFunction } from "i18next";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import type { TimelineEvent } from "../../bindings";
import { locale } from "../../i18n";
import { formatDateTime, formatMoney, formatUtcDay } from "../../lib/format";
import { operationLabel } from "../../lib/operations";
import { StateBadge } from "../app/StateBadge";
import { purposeWords } from "../money/PurposeFields";
import { Evidence } from "../review/Evidence";
import { reviewOutcome } from "../review/ReviewHistory";

const HOW: Record<string, string> = {
  "made here": "detail.how.madeHere",
  "first seen": "detail.how.firstSeen",
  sync: "detail.how.sync",
};

const STATUS_COLOR: Record<string, string> = {
  accepted: "teal",
  rejected: "red",
  unknown: "yellow",
  sending: "yellow",
  pending: "gray",
};

/// One event: its bullet, its title and the line under it.
function item(e: TimelineEvent, t: TFunction, loc: string): [ReactNode, ReactNode, ReactNode] {
  const at = formatDateTime(e.at, loc);
  switch (e.type) {
    case "state":
      return [
        <IconListCheck key="i" size={12} />,
        <StateBadge key="s" field="orderState" raw={e.state} />,
        // A list-dated order: its day, never an invented 00:00:00.
        e.dayOnly ? (
          <span key="d" data-testid="timeline-day-only">
            {`${formatUtcDay(e.at)} · ${t(HOW[e.how] ?? "detail.how.sync")} · ${t("orders.dayOnly")}`}
          </span>
        ) : (
          `${at} · ${t(HOW[e.how] ?? "detail.how.sync")}`
        ),
      ];
    case "request":
      return [
        <IconSend key="i" size={12} />,
        <Group key="g" gap={6}>
          <Text size="sm" fw={500}>
            {operationLabel(t, e.operation)}
          </Text>
          <Badge size="sm" variant="light" color={STATUS_COLOR[e.status] ?? "gray"}>
            {t(`journal.${e.status}`)}
          </Badge>
        </Group>,
        // Why (issue 35): the purpose written with the request, when one was.
        `${at} · ${t("detail.tl.orderNo", { no: e.merOrderNo })}${
          e.purpose ? ` · ${t("purpose.label")}: ${purposeWords(t, e.purpose)}` : ""
        }`,
      ];
    case "reversal":
      return [
        <IconArrowBackUp key="i" size={12} />,
        <Group key="g" gap={6}>
          <Text size="sm" fw={500}>
            {e.kind === "chargeback"
              ? t("detail.tl.chargeback")
              : t("detail.tl.refund", { no: e.refundNo })}
          </Text>
          {e.state ? (
            <StateBadge
              field={e.kind === "chargeback" ? "queryStatus" : "refundState"}
              raw={e.state}
            />
          ) : (
            <Badge size="sm" variant="outline" color="gray">
              {t("detail.tl.stateNotGiven")}
            </Badge>
          )}
        </Group>,
        `${at} · ${e.amount ? formatMoney(e.amount, e.currency, loc) : t("orders.notGiven")}`,
      ];
    case "notification":
      return [
        <IconBell key="i" size={12} />,
        <Text key="t" size="sm" fw={500}>
          {t("detail.tl.notification", {
            kind: t(`detail.tl.notify.${e.kind}`, { defaultValue: e.kind }),
          })}
        </Text>,
        `${at} · ${e.signatureOk ? t("detail.tl.signed") : t("detail.tl.notSigned")}`,
      ];
    case "review":
      return [
        <IconFileUpload key="i" size={12} />,
        <Group key="g" gap={6}>
          <Text size="sm" fw={500}>
            {t("detail.tl.review")}
          </Text>
          <Badge size="sm" variant="light" color={STATUS_COLOR[e.outcome] ?? "red"}>
            {reviewOutcome(t, e.outcome)}
          </Badge>
        </Group>,
        <Stack key="l" gap={2}>
          <Text size="xs" c="dimmed">
            {`${at} · ${t("review.itemsAndFiles", { count: e.infoCount, files: e.files || "—" })}`}
          </Text>
          <Evidence files={e.evidence ?? []} />
        </Stack>,
      ];
    case "audit":
      return [
        <IconShieldCheck key="i" size={12} />,
        <Text key="t" size="sm">
          {t("detail.tl.audit", { operation: operationLabel(t, e.operation) })}
        </Text>,
        `${at} · ${e.operator} · ${e.result}`,
      ];
  }
}

/// What the desk knows happened to an order, oldest first: its states, the requests the
/// journal made about it, refunds and chargebacks, notifications, review submissions and
/// the audit entries that name it.
export function OrderTimeline({ events }: { events: TimelineEvent[] }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  if (events.length === 0) {
    return <Text c="dimmed">{t("detail.timelineEmpty")}</Text>;
  }
  return (
    <Timeline bulletSize={22} lineWidth={2} data-testid="detail-timeline">
      {events.map((e, i) => {
        const [bullet, title, line] = item(e, t, loc);
        return (
          <Timeline.Item
            // biome-ignore lint/suspicious/noArrayIndexKey: events have no identity across kinds
            key={i}
            bullet={bullet}
            title={title}
            data-testid="timeline-item"
            data-type={e.type}
          >
            {e.type === "review" ? (
              // Its line holds the files' evidence, blocks of their own.
              line
            ) : (
              <Text size="xs" c="dimmed">
                {line}
              </Text>
            )}
          </Timeline.Item>
        );
      })}
    </Timeline>
  );
}
