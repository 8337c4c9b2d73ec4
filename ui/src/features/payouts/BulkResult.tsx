import { Alert, Button, Stack, Text } from "@mantine/core";
import { IconFileSpreadsheet } from "@tabler/icons-react";
import { useTranslation } from "react-i18next";
import { toastError } from "../../components/ErrorAlert";
import type { BulkOutcome } from "../../lib/types";
import { useOpenBulkResult } from "./queries";

/// What a bulk run did, counted by outcome, and the result file it wrote.
export function BulkResult({ out }: { out: BulkOutcome }) {
  const { t } = useTranslation();
  const openResult = useOpenBulkResult((e) => toastError(t, e));
  const count = (s: string) => out.results.filter((r) => r.status === s).length;
  // Counts of this run: a row paid by an earlier run reads "accepted" in the file, but
  // this run did not send it.
  const ran = out.results.filter((r) => r.thisRun);
  const now = (s: string) => ran.filter((r) => r.status === s).length;
  const paidBefore = out.results.filter((r) => !r.thisRun && r.status === "accepted").length;
  return (
    <Alert
      color="teal"
      variant="light"
      data-testid="bulk-result"
      // Where focus goes once the confirmation that sent the rows is gone.
      data-focus-home
      data-accepted={count("accepted")}
      data-invalid={count("invalid")}
      data-held={count("held")}
      data-rejected={count("rejected")}
      data-unknown={count("unknown")}
      data-pending={count("pending")}
      data-sent={ran.length}
      data-paid-before={paidBefore}
    >
      <Stack gap="xs">
        <Text size="sm" data-testid="bulk-result-summary">
          {t("flows.bulk.done", {
            sent: ran.length,
            accepted: now("accepted"),
            rejected: now("rejected"),
            unknown: now("unknown") + now("sending"),
            pending: now("pending"),
            paid: paidBefore,
            held: count("held"),
            invalid: count("invalid"),
          })}
        </Text>
        <Text size="sm" data-testid="bulk-result-path">
          {t("flows.bulk.resultFile", { path: out.resultPath })}
        </Text>
        <Button
          variant="default"
          w="fit-content"
          leftSection={<IconFileSpreadsheet size={16} />}
          loading={openResult.isPending}
          onClick={() => openResult.mutate(out.resultPath)}
          data-testid="bulk-open-result"
        >
          {t("payouts.bulkOpenResult")}
        </Button>
      </Stack>
    </Alert>
  );
}
