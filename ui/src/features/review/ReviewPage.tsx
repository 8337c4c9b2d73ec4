import {
  ActionIcon,
  Alert,
  Autocomplete,
  Badge,
  Button,
  Card,
  Group,
  Image,
  Paper,
  Progress,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import {
  IconFileTypePdf,
  IconFolderOpen,
  IconPlus,
  IconTrash,
  IconUpload,
} from "@tabler/icons-react";
import { useCallback, useState } from "react";
import { useTranslation } from "react-i18next";
import { useSearchParams } from "react-router";
import { DuplicateGuard, duplicateOf, useDuplicate } from "../../components/DuplicateGuard";
import { ErrorAlert, errorText, FormError, toastError } from "../../components/ErrorAlert";
import { ReceiptView } from "../../components/ReceiptView";
import { locale } from "../../i18n";
import { formatCount, formatDateTimeShort } from "../../lib/format";
import { fieldError } from "../../lib/ipc";
import type { FileCheck, Receipt, ReviewRequest } from "../../lib/types";
import { useOrderNo } from "../money/queries";
import { PdfThumb } from "./PdfThumb";
import {
  checkReviewFile,
  pickReviewFiles,
  useDroppedFiles,
  useReviewList,
  useReviewResend,
  useReviewSubmit,
} from "./queries";

/// Codes the interface shows in its examples; others are typed in.
const INFO_CODES = ["1", "2"];
const FILE_CODES = ["21", "22"];
const MAX_BYTES = 5 * 1024 * 1024;

type Info = { code: string; content: string };
type Chosen = { check: FileCheck; code: string };

function FilePreview({
  f,
  onCode,
  onRemove,
}: {
  f: Chosen;
  onCode: (c: string) => void;
  onRemove: () => void;
}) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  return (
    <Paper withBorder p="xs" data-testid="review-file" data-name={f.check.name}>
      <Group wrap="nowrap" align="flex-start">
        {f.check.suffix === ".pdf" && f.check.preview ? (
          <PdfThumb dataUrl={f.check.preview} label={f.check.name} />
        ) : f.check.preview ? (
          <Image src={f.check.preview} alt={f.check.name} w={72} h={72} fit="contain" />
        ) : (
          <IconFileTypePdf size={56} aria-hidden />
        )}
        <Stack gap={4} style={{ flex: 1 }}>
          <Text size="sm" fw={500} style={{ wordBreak: "break-all" }}>
            {f.check.name}
          </Text>
          <Text size="xs" c="dimmed">
            {t("review.fileFacts", {
              kind: f.check.suffix.slice(1).toUpperCase(),
              size: formatCount(f.check.size, loc),
            })}
            {f.check.pages !== null ? ` · ${t("review.pages", { count: f.check.pages })}` : ""}
          </Text>
          <Autocomplete
            label={t("review.fileType")}
            size="xs"
            data={FILE_CODES}
            value={f.code}
            onChange={onCode}
          />
        </Stack>
        <ActionIcon
          variant="subtle"
          aria-label={t("review.removeFile", { name: f.check.name })}
          onClick={onRemove}
        >
          <IconTrash size={16} />
        </ActionIcon>
      </Group>
    </Paper>
  );
}

function History({ tradeNo }: { tradeNo: string }) {
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
                {t("review.itemsAndFiles", { info: s.infoCount, files: s.files || "—" })}
              </Table.Td>
              <Table.Td style={{ whiteSpace: "nowrap" }}>
                <Badge
                  variant="light"
                  style={{ overflow: "visible" }}
                  color={s.outcome === "accepted" ? "teal" : s.queued ? "yellow" : "gray"}
                >
                  {s.queued
                    ? t("review.queued")
                    : t(`journal.${s.outcome}`, { defaultValue: s.outcome })}
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
    </Card>
  );
}

export function ReviewPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const [tradeNo, setTradeNo] = useState(params.get("tradeNo") ?? "");
  const [reference, renew] = useOrderNo("RV");
  const [info, setInfo] = useState<Info[]>([{ code: "1", content: "" }]);
  const [files, setFiles] = useState<Chosen[]>([]);
  const [path, setPath] = useState("");
  const [fileError, setFileError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const dup = useDuplicate();
  // A resend under the same reference keeps the receipt it was made from until it answers.
  const [kept, setKept] = useState<Receipt | undefined>(undefined);
  const submit = useReviewSubmit(dup.settle);
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

  const add = useCallback(
    async (paths: string[]) => {
      setFileError(null);
      setChecking(true);
      for (const p of paths) {
        try {
          const c = await checkReviewFile(p);
          setFiles((fs) =>
            fs.some((f) => f.check.path === c.path) ? fs : [...fs, { check: c, code: "21" }],
          );
        } catch (e) {
          setFileError(errorText(t, e));
        }
      }
      setChecking(false);
    },
    [t],
  );

  const { dragging, ready: dropReady } = useDroppedFiles(add);

  const total = files.reduce((n, f) => n + f.check.size, 0);
  return (
    <Stack data-testid="screen-review">
      <Title order={2}>{t("review.title")}</Title>
      <Text size="sm" c="dimmed">
        {t("review.intro", { max: "5 MiB" })}
      </Text>
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
        <Card withBorder>
          <Stack gap="sm">
            <TextInput
              label={t("review.tradeNo")}
              required
              value={tradeNo}
              onChange={(e) => setTradeNo(e.currentTarget.value)}
              error={fieldError(submit.error, "tradeNo")}
              data-testid="review-trade-no"
            />
            <Text size="sm" fw={500}>
              {t("review.info")}
            </Text>
            <Text size="xs" c="dimmed">
              {t("review.codesHint")}
            </Text>
            {info.map((item, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: items have no identity but their place
              <Group key={i} align="flex-start" wrap="nowrap">
                <Autocomplete
                  label={t("review.infoType")}
                  w={120}
                  data={INFO_CODES}
                  value={item.code}
                  onChange={(v) => setInfo(info.map((x, j) => (j === i ? { ...x, code: v } : x)))}
                  error={fieldError(submit.error, `infoList[${i}].infoType`)}
                />
                <TextInput
                  label={t("review.infoContent")}
                  style={{ flex: 1 }}
                  value={item.content}
                  onChange={(e) => {
                    const v = e.currentTarget.value;
                    setInfo(info.map((x, j) => (j === i ? { ...x, content: v } : x)));
                  }}
                  error={fieldError(submit.error, `infoList[${i}].infoContent`)}
                  data-testid={`review-info-${i}`}
                />
                <ActionIcon
                  variant="subtle"
                  mt={26}
                  aria-label={t("review.removeInfo")}
                  onClick={() => setInfo(info.filter((_, j) => j !== i))}
                >
                  <IconTrash size={16} />
                </ActionIcon>
              </Group>
            ))}
            <Button
              variant="default"
              size="xs"
              w="fit-content"
              leftSection={<IconPlus size={14} />}
              onClick={() => setInfo([...info, { code: "1", content: "" }])}
            >
              {t("review.addInfo")}
            </Button>
            <Paper
              withBorder
              p="md"
              style={{
                borderStyle: "dashed",
                borderColor: dragging ? "var(--mantine-primary-color-filled)" : undefined,
              }}
              data-testid="review-drop"
              data-ready={dropReady}
            >
              <Stack gap="xs" align="center">
                <IconUpload size={28} aria-hidden />
                <Text size="sm">{t(dropReady ? "review.drop" : "review.noDrop")}</Text>
                <Text size="xs" c="dimmed">
                  {t("review.limits", { max: "5 MiB" })}
                </Text>
              </Stack>
            </Paper>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                if (path.trim()) void add([path.trim()]).then(() => setPath(""));
              }}
            >
              <Group align="flex-end">
                <TextInput
                  label={t("review.path")}
                  placeholder="/home/me/invoice.pdf"
                  style={{ flex: 1 }}
                  value={path}
                  onChange={(e) => setPath(e.currentTarget.value)}
                  data-testid="review-path"
                />
                <Button
                  type="submit"
                  variant="default"
                  loading={checking}
                  data-testid="review-add-file"
                >
                  {t("review.addFile")}
                </Button>
                <Button
                  variant="default"
                  leftSection={<IconFolderOpen size={16} />}
                  onClick={() =>
                    pickReviewFiles()
                      .then(add)
                      .catch((e) => toastError(t, e))
                  }
                >
                  {t("common.browse")}
                </Button>
              </Group>
            </form>
            {fileError && (
              <Alert color="red" variant="light" data-testid="review-file-error">
                {fileError}
              </Alert>
            )}
            {files.map((f) => (
              <FilePreview
                key={f.check.path}
                f={f}
                onCode={(c) => setFiles(files.map((x) => (x === f ? { ...x, code: c } : x)))}
                onRemove={() => setFiles(files.filter((x) => x !== f))}
              />
            ))}
            {total > MAX_BYTES && (
              <Text c="orange" size="sm">
                {t("review.large")}
              </Text>
            )}
            {submit.isPending && <Progress value={100} animated aria-label={t("review.sending")} />}
            <FormError
              error={duplicateOf(submit.error) ? null : submit.error}
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
                  setInfo([{ code: "1", content: "" }]);
                }}
                data-testid="review-next"
              >
                {t("review.another")}
              </Button>
            ) : (
              <Button
                w="fit-content"
                loading={submit.isPending}
                disabled={!reference}
                onClick={() => {
                  if (submit.isPending) return;
                  dup.clear();
                  submit.mutate({ reference, request: request(), allowDuplicate: false });
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
        </Card>
        <History tradeNo={tradeNo.trim()} />
      </SimpleGrid>
    </Stack>
  );
}
