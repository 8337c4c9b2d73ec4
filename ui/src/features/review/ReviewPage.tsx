import {
  Button,
  Card,
  Progress,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useSearchParams } from "react-router";
import { FormError } from "../../components/ErrorAlert";
import { reviewSubmitCommand } from "../../lib/cliCommand";
import { useFieldErrors } from "../../lib/fieldErrors";
import type { Receipt, ReviewRequest } from "../../lib/types";
import { useProfileName } from "../app/queries";
import { DuplicateGuard, duplicateOf, useDuplicate } from "../money/DuplicateGuard";
import { useOrderNo } from "../money/queries";
import { ReceiptView } from "../money/ReceiptView";
import { GatewayNotice, useGatewayClosed } from "../team/GatewayNotice";
import type { Chosen } from "./FilePreview";
import { blankInfo, type Info, InfoItems } from "./InfoItems";
import { useReviewSubmit } from "./queries";
import { ReviewBatch } from "./ReviewBatch";
import { type Pending, ReviewConfirm } from "./ReviewConfirm";
import { ReviewFiles } from "./ReviewFiles";
import { ReviewHistory } from "./ReviewHistory";
import { ReviewQueue } from "./ReviewQueue";

export function ReviewPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const [tradeNo, setTradeNo] = useState(params.get("tradeNo") ?? "");
  const [reference, renew] = useOrderNo("RV");
  const closed = useGatewayClosed();
  const [info, setInfo] = useState<Info[]>(blankInfo);
  const [files, setFiles] = useState<Chosen[]>([]);
  // One order's form, or files for several orders matched by name.
  const [mode, setMode] = useState<"one" | "batch">("one");
  // The submission waiting for its confirmation.
  const [pending, setPending] = useState<Pending | null>(null);
  const dup = useDuplicate();
  // A resend under the same reference keeps the receipt it was made from until it answers.
  const [kept, setKept] = useState<Receipt | undefined>(undefined);
  const submit = useReviewSubmit((data, error) => {
    setPending(null);
    dup.settle(data, error);
  });
  const failure = useFieldErrors(submit.error);
  const profile = useProfileName();
  const request = (): ReviewRequest => ({
    tradeNo,
    info: info.filter((i) => i.content.trim()).map((i) => [i.code, i.content] as [string, string]),
    files: files.map((f) => [f.code, f.check.path] as [string, string]),
  });
  const receipt = submit.data ?? (submit.isPending ? kept : undefined);
  /// The submission as sent, again under its reference (`allowDuplicate` once confirmed).
  const resend = (allowDuplicate: boolean) => {
    const sent = submit.variables;
    if (!sent || submit.isPending) return;
    setKept(receipt);
    submit.mutate({ ...sent, allowDuplicate });
  };

  return (
    <Stack data-testid="screen-review">
      <GatewayNotice />
      <Title order={2}>{t("review.title")}</Title>
      <Text size="sm" c="dimmed">
        {t("review.intro", { max: "5 MiB" })}
      </Text>
      <ReviewQueue
        onOpen={(item) => {
          setMode("one");
          setTradeNo(item.tradeNo);
        }}
      />
      <SegmentedControl
        w="fit-content"
        value={mode}
        onChange={(v) => setMode(v === "batch" ? "batch" : "one")}
        data={[
          { value: "one", label: t("reviewDesk.modeOne") },
          { value: "batch", label: t("reviewDesk.modeBatch") },
        ]}
        data-testid="review-mode"
      />
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
        <Card withBorder>
          {mode === "batch" ? (
            <ReviewBatch />
          ) : (
            <Stack gap="sm">
              <TextInput
                label={t("review.tradeNo")}
                required
                value={tradeNo}
                onChange={(e) => {
                  failure.edited("tradeNo");
                  setTradeNo(e.currentTarget.value);
                }}
                error={failure.err("tradeNo")}
                data-testid="review-trade-no"
              />
              <Text size="sm" fw={500}>
                {t("review.info")}
              </Text>
              <Text size="xs" c="dimmed">
                {t("review.codesHint")}
              </Text>
              <InfoItems info={info} onChange={setInfo} err={failure.err} edited={failure.edited} />
              <ReviewFiles files={files} setFiles={setFiles} />
              {submit.isPending && (
                <Progress value={100} animated aria-label={t("review.sending")} />
              )}
              <FormError
                error={duplicateOf(failure.error) ? null : failure.error}
                testId="review-field-error"
              />
              <DuplicateGuard
                duplicate={dup.duplicate}
                sending={submit.isPending}
                onConfirm={() => resend(true)}
              />
              {receipt ? (
                <Button
                  w="fit-content"
                  onClick={() => {
                    submit.reset();
                    dup.clear();
                    setKept(undefined);
                    renew();
                    setFiles([]);
                    setInfo(blankInfo());
                  }}
                  data-testid="review-next"
                >
                  {t("review.another")}
                </Button>
              ) : (
                <Button
                  w="fit-content"
                  loading={submit.isPending}
                  disabled={!reference || !!closed}
                  onClick={() => {
                    if (submit.isPending) return;
                    dup.clear();
                    const r = request();
                    setPending({
                      tradeNo: r.tradeNo,
                      info: info.filter((i) => i.content.trim()),
                      files,
                    });
                  }}
                  data-testid="review-submit"
                >
                  {t("review.submit")}
                </Button>
              )}
              {receipt && (
                <ReceiptView
                  receipt={receipt}
                  onRetry={() => resend(false)}
                  retrying={submit.isPending}
                  retryTestId="review-retry-same"
                />
              )}
            </Stack>
          )}
        </Card>
        <ReviewHistory tradeNo={mode === "one" ? tradeNo.trim() : ""} />
      </SimpleGrid>
      <ReviewConfirm
        pending={pending}
        command={
          profile && pending ? reviewSubmitCommand({ profile, ...request(), reference }) : null
        }
        sending={submit.isPending}
        onCancel={() => !submit.isPending && setPending(null)}
        onConfirm={() => {
          if (submit.isPending) return;
          submit.mutate({ reference, request: request(), allowDuplicate: false });
        }}
      />
    </Stack>
  );
}
