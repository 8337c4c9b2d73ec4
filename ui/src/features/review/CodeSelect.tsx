import { Select } from "@mantine/core";
import type { TFunction } from "i18next";
import { useState } from "react";
import { useTranslation } from "react-i18next";

/// The codes the interface's examples show, with what the project reads them as; the
/// gateway's reference pages list others, which can be typed as a number.
export const INFO_CODES = ["1", "2"] as const;
export const FILE_CODES = ["21", "22"] as const;

/// A code as the list shows it: its name and number, or the number alone.
export function codeLabel(t: TFunction, kind: "info" | "file", code: string): string {
  const known: readonly string[] = kind === "info" ? INFO_CODES : FILE_CODES;
  return known.includes(code)
    ? t("review.codeNamed", { name: t(`review.code.${kind}${code}`), code })
    : t("review.codeOther", { code });
}

/// A review code chosen from the list, each shown with its code beside it
/// ("Proof of payment · 22"); a number typed that is not on it is offered as that code.
export function CodeSelect({
  kind,
  label,
  value,
  onChange,
  error,
  size,
  testId,
}: {
  kind: "info" | "file";
  label: string;
  value: string;
  onChange: (code: string) => void;
  error?: string;
  size?: "xs" | "sm";
  testId?: string;
}) {
  const { t } = useTranslation();
  const [search, setSearch] = useState("");
  const known: readonly string[] = kind === "info" ? INFO_CODES : FILE_CODES;
  const name = (code: string) => codeLabel(t, kind, code);
  const typed = search.trim();
  const extra = [value, /^\d{1,4}$/.test(typed) ? typed : ""].filter(
    (c, i, all) => c !== "" && !known.includes(c) && all.indexOf(c) === i,
  );
  return (
    <Select
      label={label}
      size={size}
      searchable
      allowDeselect={false}
      searchValue={search}
      onSearchChange={setSearch}
      data={[...known, ...extra].map((c) => ({ value: c, label: name(c) }))}
      value={value || null}
      onChange={(v) => onChange(v ?? "")}
      error={error}
      nothingFoundMessage={t("review.codeNone")}
      data-testid={testId}
    />
  );
}
