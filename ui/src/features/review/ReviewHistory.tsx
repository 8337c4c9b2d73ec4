import { Badge, Button, Card, Table, Title } from "@mantine/core";
import type { TFunction } from "i18next";
import { useTranslation } from "react-i18next";
import { ErrorAlert, toastError } from "../../components/ErrorAlert";
import { locale } from "../../i18n";
import { formatDateTimeShort } from "../../lib/format";
import { Evidence } from "./Evidence";
import { useReviewList, useReviewResend } from "./queries";

/// The submissions made (of the order typed, if any); a queued one can be sent again.
export function ReviewHistory({ tradeNo }: { tradeNo: string }) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const list = useReviewList(tradeNo);
  const resend = useReviewResend((e) => toastError(t, e));
  return (
    <Card withBorder>
      <Title order={4} mb="xs">
        {tradeNo ? t("review.historyOf", { tradeNo }) : t("review.history")}
      </Title>
      {list.error && <ErrorAlert error={list.error} />}
      <Table.ScrollContainer minWidth={520}>
        <Table data-testid="review-history">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t("review.when")}</Table.Th>
              <Table.Th>{t("review.tradeNo")}</Table.Th>
              <Table.Th>{t("review.files")}</Table.Th>
              <Table.Th>{t("review.outcome")}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(list.data ?? []).map((s) => (
              <Table.Tr key={s.id} data-outcome={s.outcome}>
                <Table.Td>{formatDateTimeShort(s.at, loc)}</Table.Td>
                <Table.Td>{s.tradeNo}</Table.Td>
                <Table.Td>
                  {t("review.itemsAndFiles", { count: s.infoCount, files: s.files || "—" })}
                  <Evidence files={s.evidence} />
                </Table.Td>
                <Table.Td style={{ whiteSpace: "nowrap" }}>
                  <Badge
                    variant="light"
                    data-testid="review-outcome"
                    color={
                      s.queued
                        ? "yellow"
                        : s.outcome === "accepted"
                          ? "teal"
                          : s.outcome === "rejected"
                            ? "red"
                            : "gray"
                    }
                  >
                    {s.queued ? t("review.queued") : reviewOutcome(t, s.outcome)}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  {s.queued && (
                    <Button
                      size="xs"
                      variant="default"
                      loading={resend.isPending && resend.variables === s.reference}
                      onClick={() => resend.mutate(s.reference)}
                    >
                      {t("review.resend")}
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Card>
  );
}

/// A submission's outcome in the user's words: a journal status, or why nothing was sent
/// (the desk's own reason, quoted).
export function reviewOutcome(t: TFunction, outcome: string): string {
  if (outcome.startsWith("error: ")) {
    return t("review.notSent", { why: outcome.slice("error: ".length) });
  }
  return t(`journal.${outcome}`, { defaultValue: outcome });
}
