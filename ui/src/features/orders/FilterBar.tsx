import { ActionIcon, Group, Select, TextInput, Tooltip } from "@mantine/core";
import { DatePickerInput, DatesProvider } from "@mantine/dates";
import "dayjs/locale/zh-cn";
import { useDebouncedCallback } from "@mantine/hooks";
import { IconFilterOff, IconSearch } from "@tabler/icons-react";
import { memo, useState } from "react";
import { useTranslation } from "react-i18next";
import { CompactMultiSelect } from "../../components/CompactMultiSelect";
import type { OrderFilter, OrderKind } from "../../lib/types";
import { useStateMeanings } from "../app/queries";
import { useResolveRange } from "../views/queries";
import { RELATIVE_RANGES, type RelativeRange } from "../views/types";
import { calendarDays, pickedRange } from "./dateRange";
import { MoreFilters } from "./MoreFilters";
import { EMPTY_FILTER, useCurrencies } from "./queries";

/// The payment methods of the interface (known only for orders created at this desk).
const METHODS = [
  "WECHAT",
  "PIX",
  "APPLE_PAY",
  "CASH_APP",
  "GCASH",
  "SEPA",
  "VN_BANK",
  "CLABE",
  "CARD",
];
/// Payout methods (the rest are payin methods, named by the payin screen's labels).
const PAYOUT_METHODS = new Set(["CLABE", "CARD"]);

/// The kinds the journal knows (orders this desk, or a colleague on its journal, made).
const KINDS: OrderKind[] = ["payin", "payout", "topUp", "withdraw"];
/// The kind filter's value for orders of unknown kind (`OrderFilter.unknownKind`).
const UNKNOWN_KIND = "unknown";

interface Props {
  filter: OrderFilter;
  onChange: (f: OrderFilter) => void;
  /// The dates as a relative range ("last 7 days", in the business's time zone), when
  /// they were picked as one: a saved view keeps them so.
  relative?: RelativeRange | null;
  onRelative?: (r: RelativeRange | null) => void;
  /// A validation error of the current filter (from the cache query), shown on its field.
  invalid: { field: string; rule: string } | null;
}

/// Every filter of the orders table on one line: the search, the dates (a range relative
/// to today in the business's time zone, or days picked), state, type, method and
/// currency, amounts under "More filters". (Saved views sit beside the bar.)
export const FilterBar = memo(function FilterBar({
  filter,
  onChange,
  invalid,
  relative = null,
  onRelative,
}: Props) {
  const { t, i18n } = useTranslation();
  const meanings = useStateMeanings();
  const currencies = useCurrencies();
  const [search, setSearch] = useState(filter.search ?? "");
  // "Custom" with no day picked yet is a choice no range shows.
  const [custom, setCustom] = useState(false);
  const pushSearch = useDebouncedCallback((v: string) => {
    onChange({ ...filter, search: v.trim() || null });
  }, 200);

  const resolve = useResolveRange();
  const range = { from: filter.from, to: filter.to };
  const choice: RelativeRange | "custom" | null =
    relative ?? (custom || range.from !== null || range.to !== null ? "custom" : null);

  const stateEntries = meanings.data?.filter((m) => m.field === "orderState") ?? [];
  const stateOptions = stateEntries.map((m) => {
    const label = t(`meaning.${m.meaning}`);
    // A profile may read two values as one meaning: the raw value tells them apart.
    const twice = stateEntries.filter((o) => o.meaning === m.meaning).length > 1;
    return { value: m.raw, label: twice ? `${label} (${m.raw})` : label };
  });
  const methodLabel = (m: string) =>
    PAYOUT_METHODS.has(m) ? t(`orders.methods.${m}`) : t(`payins.methods.${m}`);

  return (
    <Group
      gap={6}
      wrap="wrap"
      align="center"
      style={{ flex: 1, minWidth: 0 }}
      data-testid="filter-bar"
    >
      <TextInput
        size="xs"
        aria-label={t("orders.search")}
        placeholder={t("orders.searchShort")}
        title={t("orders.searchPlaceholder")}
        leftSection={<IconSearch size={14} />}
        value={search}
        onChange={(e) => {
          setSearch(e.currentTarget.value);
          pushSearch(e.currentTarget.value);
        }}
        // The one elastic field: it takes the room the others leave, so the bar stays one
        // line with long choices ("State: Partly refunded") and grows in a wide window.
        style={{ flex: "1 1 130px", maxWidth: 280 }}
        data-testid="orders-search"
      />
      <Select
        size="xs"
        aria-label={t("orders.dateRange")}
        placeholder={t("orders.anyDate")}
        data={[
          ...RELATIVE_RANGES.map((p) => ({ value: p, label: t(`views.range.${p}`) })),
          { value: "custom", label: t("orders.preset.custom") },
        ]}
        value={choice}
        onChange={(v) => {
          if (v === "custom") {
            setCustom(true);
            onRelative?.(null);
            return;
          }
          setCustom(false);
          if (!v) {
            onRelative?.(null);
            onChange({ ...filter, from: null, to: null });
            return;
          }
          const r = v as RelativeRange;
          void resolve(r).then((p) => {
            onRelative?.(r);
            onChange({ ...filter, from: p.from, to: p.to });
          });
        }}
        clearable
        allowDeselect={false}
        w={136}
        comboboxProps={{ width: "max-content" }}
        data-testid="filter-dates"
      />
      {choice === "custom" ? (
        <DatesProvider settings={{ locale: i18n.language === "zh" ? "zh-cn" : "en" }}>
          <DatePickerInput
            size="xs"
            type="range"
            aria-label={t("orders.customDates")}
            placeholder={t("orders.pickDays")}
            clearable
            allowSingleDateInRange
            valueFormat="YYYY-MM-DD"
            w={200}
            value={calendarDays(range)}
            onChange={([from, to]) => {
              onRelative?.(null);
              onChange({ ...filter, ...pickedRange(from, to) });
            }}
            data-testid="filter-dates-custom"
          />
        </DatesProvider>
      ) : null}
      <CompactMultiSelect
        label={t("orders.state")}
        data={stateOptions}
        value={filter.states.map(String)}
        onChange={(v) => onChange({ ...filter, states: v.map(Number) })}
        id="filter-state"
        data-testid="filter-state"
      />
      <CompactMultiSelect
        label={t("orders.col.kind")}
        data={[
          ...KINDS.map((k) => ({ value: k, label: t(`orders.kind.${k}`) })),
          // Orders whose kind neither a journal nor the conventions' rules give.
          { value: UNKNOWN_KIND, label: t("orders.kind.unknown") },
        ]}
        value={[...filter.kinds, ...(filter.unknownKind ? [UNKNOWN_KIND] : [])]}
        onChange={(v) =>
          onChange({
            ...filter,
            kinds: v.filter((k) => k !== UNKNOWN_KIND) as OrderKind[],
            unknownKind: v.includes(UNKNOWN_KIND),
          })
        }
        data-testid="filter-kind"
      />
      <CompactMultiSelect
        label={t("orders.method")}
        data={METHODS.map((m) => ({ value: m, label: methodLabel(m) }))}
        value={filter.methods}
        onChange={(v) => onChange({ ...filter, methods: v })}
        data-testid="filter-method"
      />
      <CompactMultiSelect
        label={t("orders.currency")}
        data={(currencies.data ?? []).map((c) => ({ value: c, label: c }))}
        value={filter.currencies}
        onChange={(v) => onChange({ ...filter, currencies: v })}
        searchable
        data-testid="filter-currency"
      />
      <MoreFilters filter={filter} onChange={onChange} invalid={invalid} />
      <Tooltip label={t("orders.clearFilters")}>
        <ActionIcon
          variant="default"
          size={30}
          aria-label={t("orders.clearFilters")}
          data-testid="clear-filters"
          onClick={() => {
            setSearch("");
            setCustom(false);
            onRelative?.(null);
            onChange({ ...EMPTY_FILTER, sort: filter.sort, descending: filter.descending });
          }}
        >
          <IconFilterOff size={16} />
        </ActionIcon>
      </Tooltip>
    </Group>
  );
});
