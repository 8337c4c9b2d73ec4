import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  List,
  Paper,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { IconFolderOpen, IconUpload } from "@tabler/icons-react";
import { useCallback, useState } from "react";
import { useTranslation } from "react-i18next";
import { errorText, FormError, toastError } from "../../components/ErrorAlert";
import { useFieldErrors } from "../../lib/fieldErrors";
import type { FileMatch, ReviewRequest } from "../../lib/types";
import { useOrderNo } from "../money/queries";
import { ReceiptView } from "../money/ReceiptView";
import { useGatewayClosed } from "../team/GatewayNotice";
import { type Chosen, FilePreview } from "./FilePreview";
import { blankInfo, type Info, InfoItems } from "./InfoItems";
import {
  checkReviewFile,
  matchReviewFiles,
  pickReviewFiles,
  useDroppedFiles,
  useReviewSubmit,
} from "./queries";
import { type Pending, ReviewConfirm } from "./ReviewConfirm";

/// The files of one order, as matched (or assigned) to it.
type Group_ = { tradeNo: string; files: Chosen[] };

/// Files for several orders at once: dropped, picked or typed, each matched to an order
/// of the queue by the order number in its name (see the README's rule); the ambiguous
/// ones can be given to one of their orders, the unmatched ones are listed. Each order's
/// files are then reviewed, confirmed and sent on their own.
export function ReviewBatch() {
  const { t } = useTranslation();
  const [groups, setGroups] = useState<Group_[]>([]);
  const [ambiguous, setAmbiguous] = useState<FileMatch[]>([]);
  const [unmatched, setUnmatched] = useState<FileMatch[]>([]);
  const [fileError, setFileError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const [path, setPath] = useState("");

  const place = useCallback(async (tradeNo: string, filePath: string) => {
    const c = await checkReviewFile(filePath);
    setGroups((gs) => {
      const has = gs.some((g) => g.tradeNo === tradeNo);
      const next = has ? gs : [...gs, { tradeNo, files: [] }];
      return next.map((g) =>
        g.tradeNo !== tradeNo || g.files.some((f) => f.check.path === c.path)
          ? g
          : { ...g, files: [...g.files, { check: c, code: "21" }] },
      );
    });
  }, []);

  const add = useCallback(
    async (paths: string[]) => {
      setFileError(null);
      setChecking(true);
      try {
        const matches = await matchReviewFiles(paths.map((p) => p.trim()).filter(Boolean));
        for (const m of matches) {
          const others = (list: FileMatch[]) => list.filter((x) => x.path !== m.path);
          setAmbiguous(others);
          setUnmatched(others);
          if (m.status === "matched" && m.tradeNo) {
            try {
              await place(m.tradeNo, m.path);
            } catch (e) {
              setFileError(`${m.name}: ${errorText(t, e)}`);
            }
          } else if (m.status === "ambiguous") {
            setAmbiguous((l) => [...others(l), m]);
          } else {
            setUnmatched((l) => [...others(l), m]);
          }
        }
      } catch (e) {
        setFileError(errorText(t, e));
      }
      setChecking(false);
    },
    [t, place],
  );

  const { dragging, ready } = useDroppedFiles(add);

  return (
    <Stack data-testid="review-batch">
      <Text size="sm" c="dimmed">
        {t("reviewDesk.batchIntro")}
      </Text>
      <Paper
        withBorder
        p="md"
        style={{
          borderStyle: "dashed",
          borderColor: dragging ? "var(--mantine-primary-color-filled)" : undefined,
        }}
        data-testid="review-batch-drop"
        data-ready={ready}
      >
        <Stack gap="xs" align="center">
          <IconUpload size={28} aria-hidden />
          <Text size="sm">{t(ready ? "reviewDesk.drop" : "review.noDrop")}</Text>
        </Stack>
      </Paper>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const submitted = path;
          if (submitted.trim())
            void add([submitted.trim()]).then(() =>
              setPath((now) => (now === submitted ? "" : now)),
            );
        }}
      >
        <Group align="flex-end">
          <TextInput
            label={t("review.path")}
            placeholder="/home/me/T1001_passport.png"
            style={{ flex: 1 }}
            value={path}
            onChange={(e) => setPath(e.currentTarget.value)}
            data-testid="review-batch-path"
          />
          <Button type="submit" variant="default" loading={checking} data-testid="review-batch-add">
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
        <Alert color="red" variant="light" data-testid="review-batch-error">
          {fileError}
        </Alert>
      )}
      {unmatched.length > 0 && (
        <Alert
          color="orange"
          variant="light"
          title={t("reviewDesk.unmatched", { count: unmatched.length })}
          data-testid="review-unmatched"
        >
          <Text size="xs" mb={4}>
            {t("reviewDesk.unmatchedHint")}
          </Text>
          <List size="sm">
            {unmatched.map((m) => (
              <List.Item key={m.path} data-testid="review-unmatched-file" data-name={m.name}>
                {m.name}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
      {ambiguous.length > 0 && (
        <Alert
          color="yellow"
          variant="light"
          title={t("reviewDesk.ambiguous", { count: ambiguous.length })}
          data-testid="review-ambiguous"
        >
          <Stack gap="xs">
            {ambiguous.map((m) => (
              <Group
                key={m.path}
                data-testid="review-ambiguous-file"
                data-name={m.name}
                wrap="nowrap"
              >
                <Text size="sm" style={{ flex: 1, wordBreak: "break-all" }}>
                  {m.name}
                </Text>
                <Select
                  size="xs"
                  aria-label={t("reviewDesk.assignTo", { name: m.name })}
                  placeholder={t("reviewDesk.assign")}
                  data={m.candidates}
                  data-testid="review-assign"
                  value={null}
                  onChange={(v) => {
                    if (!v) return;
                    void place(v, m.path)
                      .then(() => setAmbiguous((l) => l.filter((x) => x.path !== m.path)))
                      .catch((e) => setFileError(`${m.name}: ${errorText(t, e)}`));
                  }}
                />
              </Group>
            ))}
          </Stack>
        </Alert>
      )}
      {groups.map((g) => (
        <BatchGroup
          key={g.tradeNo}
          group={g}
          setFiles={(files) =>
            setGroups((gs) => gs.map((x) => (x.tradeNo === g.tradeNo ? { ...x, files } : x)))
          }
          onDone={() => setGroups((gs) => gs.filter((x) => x.tradeNo !== g.tradeNo))}
        />
      ))}
    </Stack>
  );
}

/// One order's matched files and its information items, reviewed, confirmed and sent on
/// their own, under a reference of their own.
function BatchGroup({
  group,
  setFiles,
  onDone,
}: {
  group: Group_;
  setFiles: (files: Chosen[]) => void;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const [info, setInfo] = useState<Info[]>(blankInfo);
  const [reference] = useOrderNo("RV");
  const [pending, setPending] = useState<Pending | null>(null);
  const closed = useGatewayClosed();
  const submit = useReviewSubmit(() => setPending(null));
  const failure = useFieldErrors(submit.error);
  const filled = info.filter((i) => i.content.trim());
  const request = (): ReviewRequest => ({
    tradeNo: group.tradeNo,
    info: filled.map((i) => [i.code, i.content] as [string, string]),
    files: group.files.map((f) => [f.code, f.check.path] as [string, string]),
  });
  const receipt = submit.data;
  return (
    <Card withBorder data-testid="review-group" data-trade-no={group.tradeNo}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={5}>{t("reviewDesk.groupTitle", { tradeNo: group.tradeNo })}</Title>
          <Badge variant="light">{t("reviewDesk.groupFiles", { count: group.files.length })}</Badge>
        </Group>
        {group.files.map((f) => (
          <FilePreview
            key={f.check.path}
            f={f}
            onCode={(c) => setFiles(group.files.map((x) => (x === f ? { ...x, code: c } : x)))}
            onRemove={() => setFiles(group.files.filter((x) => x !== f))}
          />
        ))}
        {!receipt && (
          <InfoItems info={info} onChange={setInfo} err={failure.err} edited={failure.edited} />
        )}
        <FormError error={failure.error} testId="review-group-error" />
        {receipt ? (
          <>
            <ReceiptView receipt={receipt} />
            <Button w="fit-content" variant="default" onClick={onDone}>
              {t("reviewDesk.groupDone")}
            </Button>
          </>
        ) : (
          <Button
            w="fit-content"
            disabled={!reference || !!closed || (group.files.length === 0 && filled.length === 0)}
            onClick={() => setPending({ tradeNo: group.tradeNo, info: filled, files: group.files })}
            data-testid="review-group-review"
          >
            {t("reviewDesk.reviewAndSend")}
          </Button>
        )}
      </Stack>
      <ReviewConfirm
        pending={pending}
        sending={submit.isPending}
        onCancel={() => !submit.isPending && setPending(null)}
        onConfirm={() => {
          if (submit.isPending) return;
          submit.mutate({ reference, request: request(), allowDuplicate: false });
        }}
      />
    </Card>
  );
}
