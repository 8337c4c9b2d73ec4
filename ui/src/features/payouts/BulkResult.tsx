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
  return (
    <Alert
      color="teal"
      variant="light"
      data-testid="bulk-result"
      data-accepted={count("accepted")}
      data-invalid={count("invalid")}
      data-held={count("held")}
      data-rejected={count("rejected")}
      data-unknown={count("unknown")}
      data-pending={count("pending")}
    >
      <Stack gap="xs">
        <Text size="sm">
          {t("payouts.bulkDone", {
            accepted: count("accepted"),
            rejected: count("rejected"),
            unknown: count("unknown"),
            pending: count("pending"),
            held: count("held"),
            invalid: count("invalid"),
            path: out.resultPath,
          })}
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
