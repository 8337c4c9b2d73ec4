import { ActionIcon, Button, Group, TextInput } from "@mantine/core";
import { IconPlus, IconTrash } from "@tabler/icons-react";
import { useTranslation } from "react-i18next";
import { CodeSelect } from "./CodeSelect";

/// One item of information about the order: its type code and its text.
export type Info = { code: string; content: string };

export const blankInfo = (): Info[] => [{ code: "1", content: "" }];

/// The items of information, each editable and removable, and a button that adds one;
/// `err` gives the submission's broken rule an item names, and `edited` hears of each
/// item changed (both as `useFieldErrors` has them).
export function InfoItems({
  info,
  onChange,
  err,
  edited,
}: {
  info: Info[];
  onChange: (info: Info[]) => void;
  err: (...fields: string[]) => string | undefined;
  edited: (...fields: string[]) => void;
}) {
  const { t } = useTranslation();
  return (
    <>
      {info.map((item, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: items have no identity but their place
        <Group key={i} align="flex-start" wrap="nowrap">
          <CodeSelect
            kind="info"
            label={t("review.infoType")}
            value={item.code}
            onChange={(v) => {
              edited(`infoList[${i}].infoType`);
              onChange(info.map((x, j) => (j === i ? { ...x, code: v } : x)));
            }}
            error={err(`infoList[${i}].infoType`)}
            testId={`review-info-type-${i}`}
          />
          <TextInput
            label={t("review.infoContent")}
            style={{ flex: 1 }}
            value={item.content}
            onChange={(e) => {
              const v = e.currentTarget.value;
              edited(`infoList[${i}].infoContent`);
              onChange(info.map((x, j) => (j === i ? { ...x, content: v } : x)));
            }}
            error={err(`infoList[${i}].infoContent`)}
            data-testid={`review-info-${i}`}
          />
          <ActionIcon
            variant="subtle"
            mt={26}
            aria-label={t("review.removeInfo")}
            onClick={() => onChange(info.filter((_, j) => j !== i))}
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
        onClick={() => onChange([...info, { code: "1", content: "" }])}
      >
        {t("review.addInfo")}
      </Button>
    </>
  );
}
