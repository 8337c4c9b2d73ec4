import {
  ActionIcon,
  Button,
  Group,
  Modal,
  MultiSelect,
  Select,
  TextInput,
  Tooltip,
} from "@mantine/core";
import { DatePickerInput, DatesProvider } from "@mantine/dates";
import "dayjs/locale/zh-cn";
import { useDebouncedCallback, useDisclosure } from "@mantine/hooks";
import { IconDeviceFloppy, IconFilterOff, IconSearch, IconTrash } from "@tabler/icons-react";
import { memo, useState } from "react";
import { useTranslation } from "react-i18next";
import { errorText, toastError, toastOk } from "../../components/ErrorAlert";
import type { OrderFilter, OrderKind } from "../../lib/types";
import { useStateMeanings } from "../app/queries";
import {
  EMPTY_FILTER,
  useCurrencies,
  useDeleteFilter,
  useSavedFilters,
  useSaveFilter,
} from "./queries";

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

/// The kinds the journal knows (orders this desk, or a colleague on its journal, made).
const KINDS: OrderKind[] = ["payin", "payout", "topUp", "withdraw"];

const DAY = 86_400_000;

function toDate(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString().slice(0, 10);
}

/// A picked local day's start, as UTC millis.
function dayStart(value: string | null): number | null {
  if (!value) return null;
  const [y, m, d] = value.split("-").map(Number);
  if (!y || !m || !d) return null;
  return new Date(y, m - 1, d).getTime();
}

interface Props {
  filter: OrderFilter;
  onChange: (f: OrderFilter) => void;
  /// A validation error of the current filter (from the cache query), shown on its field.
  invalid: { field: string; rule: string } | null;
}

export const FilterBar = memo(function FilterBar({ filter, onChange, invalid }: Props) {
  const { t, i18n } = useTranslation();
  const meanings = useStateMeanings();
  const currencies = useCurrencies();
  const saved = useSavedFilters();
  const save = useSaveFilter();
  const remove = useDeleteFilter();
  const [search, setSearch] = useState(filter.search ?? "");
  const [saving, saveModal] = useDisclosure(false);
  const [name, setName] = useState("");
  const [selected, setSelected] = useState<string | null>(null);
  const pushSearch = useDebouncedCallback((v: string) => {
    onChange({ ...filter, search: v.trim() || null });
  }, 200);

  const stateOptions =
    meanings.data
      ?.filter((m) => m.field === "orderState")
      .map((m) => ({ value: m.raw, label: `${m.raw} · ${t(`meaning.${m.meaning}`)}` })) ?? [];
  const fieldError = (f: string) => (invalid?.field === f ? invalid.rule : undefined);

  return (
    <>
      <Group align="flex-end" gap="sm" wrap="wrap">
        <TextInput
          label={t("orders.search")}
          placeholder={t("orders.searchPlaceholder")}
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            pushSearch(e.currentTarget.value);
          }}
          w={300}
          data-testid="orders-search"
        />
        <DatesProvider settings={{ locale: i18n.language === "zh" ? "zh-cn" : "en" }}>
          <DatePickerInput
            type="range"
            clearButtonProps={{ "aria-label": t("common.clear") }}
            label={t("orders.dateRange")}
            clearable
            allowSingleDateInRange
            w={230}
            value={[toDate(filter.from), toDate(filter.to === null ? null : filter.to - DAY)]}
            onChange={([from, to]) => {
              const start = dayStart(from);
              const end = dayStart(to);
              onChange({ ...filter, from: start, to: end === null ? null : end + DAY });
            }}
          />
        </DatesProvider>
        <MultiSelect
          label={t("orders.state")}
          data={stateOptions}
          value={filter.states.map(String)}
          onChange={(v) => onChange({ ...filter, states: v.map(Number) })}
          clearable
          w={200}
          id="filter-state"
        />
        <MultiSelect
          label={t("orders.currency")}
          data={currencies.data ?? []}
          value={filter.currencies}
          onChange={(v) => onChange({ ...filter, currencies: v })}
          clearable
          searchable
          w={160}
        />
        <MultiSelect
          label={t("orders.col.kind")}
          data={KINDS.map((k) => ({ value: k, label: t(`orders.kind.${k}`) }))}
          value={filter.kinds}
          onChange={(v) => onChange({ ...filter, kinds: v as OrderKind[] })}
          clearable
          w={160}
          data-testid="filter-kind"
        />
        <MultiSelect
          label={t("orders.method")}
          data={METHODS}
          value={filter.methods}
          onChange={(v) => onChange({ ...filter, methods: v })}
          clearable
          w={160}
        />
        <TextInput
          label={t("orders.minAmount")}
          value={filter.minAmount ?? ""}
          onChange={(e) => onChange({ ...filter, minAmount: e.currentTarget.value || null })}
          error={fieldError("minAmount")}
          inputMode="decimal"
          w={110}
          data-testid="filter-min-amount"
        />
        <TextInput
          label={t("orders.maxAmount")}
          value={filter.maxAmount ?? ""}
          onChange={(e) => onChange({ ...filter, maxAmount: e.currentTarget.value || null })}
          error={fieldError("maxAmount")}
          inputMode="decimal"
          w={110}
        />
        <Tooltip label={t("orders.clearFilters")}>
          <ActionIcon
            variant="default"
            size="lg"
            aria-label={t("orders.clearFilters")}
            onClick={() => {
              setSearch("");
              setSelected(null);
              onChange({ ...EMPTY_FILTER, sort: filter.sort, descending: filter.descending });
            }}
          >
            <IconFilterOff size={18} />
          </ActionIcon>
        </Tooltip>
      </Group>
      <Group gap="sm" align="flex-end">
        <Select
          label={t("orders.savedFilters")}
          data={saved.data?.map((s) => s.name) ?? []}
          value={selected}
          onChange={(v) => {
            setSelected(v);
            const f = saved.data?.find((s) => s.name === v)?.filter;
            if (f) {
              setSearch(f.search ?? "");
              onChange(f);
            }
          }}
          w={220}
          clearable
        />
        <Button
          variant="default"
          leftSection={<IconDeviceFloppy size={16} />}
          onClick={() => {
            setName(selected ?? "");
            saveModal.open();
          }}
        >
          {t("orders.saveFilter")}
        </Button>
        {selected ? (
          <Tooltip label={t("orders.deleteFilter")}>
            <ActionIcon
              variant="default"
              size="lg"
              aria-label={t("orders.deleteFilter")}
              onClick={() =>
                remove.mutate(selected, {
                  onSuccess: () => setSelected(null),
                  onError: (e) => toastError(t, e),
                })
              }
            >
              <IconTrash size={18} />
            </ActionIcon>
          </Tooltip>
        ) : null}
      </Group>
      <Modal opened={saving} onClose={saveModal.close} title={t("orders.saveFilter")}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate(
              { name, filter },
              {
                onSuccess: () => {
                  toastOk(t("orders.filterSaved", { name: name.trim() }));
                  setSelected(name.trim());
                  saveModal.close();
                },
              },
            );
          }}
        >
          <TextInput
            label={t("orders.filterName")}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={save.error ? errorText(t, save.error) : undefined}
            data-autofocus
          />
          <Group justify="flex-end" mt="md">
            <Button type="submit" loading={save.isPending}>
              {t("common.save")}
            </Button>
          </Group>
        </form>
      </Modal>
    </>
  );
});
