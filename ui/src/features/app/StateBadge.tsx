import { Badge } from "@mantine/core";
import { useCallback } from "react";
import { useTranslation } from "react-i18next";
import type { Meaning, StateField } from "../../lib/types";
import { useStateMeanings } from "./queries";

const COLORS: Partial<Record<Meaning, string>> = {
  created: "gray",
  pending: "yellow",
  processing: "yellow",
  submitted: "gray",
  success: "teal",
  settled: "teal",
  released: "teal",
  failed: "red",
  closed: "gray",
  refunded: "violet",
  partly_refunded: "violet",
  charged_back: "orange",
  held: "yellow",
  not_settled: "gray",
};

/// A state value with its meaning from the profile's dictionary; an unknown value is
/// shown raw, never dropped.
export function useMeaning() {
  const { t } = useTranslation();
  const { data } = useStateMeanings();
  // One function while the meanings and the language stay: tables build their columns
  // from it, and a new one each render would remount every cell.
  return useCallback(
    (field: StateField, raw: string | number | null | undefined) => {
      const text = raw === null || raw === undefined ? "" : String(raw);
      const m = data?.find((e) => e.field === field && e.raw === text)?.meaning;
      return {
        meaning: m,
        label: m ? t(`meaning.${m}`) : t("meaning.unknown", { raw: text }),
      };
    },
    [t, data],
  );
}

export function StateBadge({ field, raw }: { field: StateField; raw: string | number }) {
  const read = useMeaning();
  const { meaning, label } = read(field, raw);
  return (
    <Badge
      variant="light"
      color={(meaning && COLORS[meaning]) ?? "gray"}
      data-meaning={meaning ?? "unknown"}
    >
      {label}
    </Badge>
  );
}
