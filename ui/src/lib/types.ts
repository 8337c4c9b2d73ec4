// The shapes the UI works with, from the generated bindings: what the backend sends
// (serde's serialize side, every field present).
export type {
  CachedOrder_Serialize as CachedOrder,
  CoreError,
  Dashboard_Serialize as Dashboard,
  ExportProgress,
  KeyInfo,
  Meaning,
  OrderFilter_Serialize as OrderFilter,
  OrderRecord_Serialize as OrderRecord,
  Profile_Serialize as Profile,
  SignatureStatus,
  SortKey,
  StateField,
  SyncProgress_Deserialize as SyncProgress,
} from "../bindings";
