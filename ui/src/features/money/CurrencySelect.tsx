import { Select } from "@mantine/core";
import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import { locale } from "../../i18n";
import { useCurrencies } from "../orders/queries";

/// Every ISO 4217 code the web view knows (Rust checks the code again on submit).
function isoCodes(): string[] {
  try {
    return Intl.supportedValuesOf("currency");
  } catch {
    return [];
  }
}

/// A currency chosen from a list, never typed free: the merchant's own currencies first
/// (those its orders and balances show), then every other ISO 4217 currency, each with
/// its name in the user's language. Searchable by code or name.
export function CurrencySelect({
  label,
  value,
  onChange,
  error,
  testId,
  required = true,
}: {
  label: string;
  value: string;
  onChange: (code: string) => void;
  error?: string;
  testId?: string;
  required?: boolean;
}) {
  const { t, i18n } = useTranslation();
  const loc = locale(i18n.language);
  const mine = useCurrencies().data;
  const data = useMemo(() => {
    let names: Intl.DisplayNames | null = null;
    try {
      names = new Intl.DisplayNames([loc], { type: "currency" });
    } catch {
      names = null;
    }
    const item = (code: string) => {
      const name = names?.of(code);
      return { value: code, label: name && name !== code ? `${code} · ${name}` : code };
    };
    const own = [...new Set([...(mine ?? []), ...(value ? [value] : [])])].sort();
    const rest = isoCodes().filter((c) => !own.includes(c));
    return [
      ...(own.length > 0 ? [{ group: t("common.yourCurrencies"), items: own.map(item) }] : []),
      { group: t("common.otherCurrencies"), items: rest.map(item) },
    ];
  }, [mine, value, loc, t]);
  return (
    <Select
      label={label}
      required={required}
      searchable
      allowDeselect={false}
      nothingFoundMessage={t("common.noCurrency")}
      data={data}
      value={value || null}
      onChange={(v) => onChange(v ?? "")}
      error={error}
      data-testid={testId}
      comboboxProps={{ withinPortal: true }}
      maxDropdownHeight={280}
    />
  );
}
