// The saved views' shapes as the UI works with them (the bindings' serialize side).
export type {
  RelativeRange,
  SavedView_Serialize as SavedView,
  Screen,
  ViewColumn_Serialize as ViewColumn,
  ViewDates_Serialize as ViewDates,
  ViewSort,
  ViewSpec_Serialize as ViewSpec,
} from "../../bindings";

/// The relative ranges, in the order the date menus offer them.
export const RELATIVE_RANGES = [
  "today",
  "yesterday",
  "last7Days",
  "last30Days",
  "thisMonth",
  "lastMonth",
] as const;
