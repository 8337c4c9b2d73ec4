export type {
  Found,
  GatewayAsked,
  LookupReport_Serialize as LookupReport,
  LookupRow_Serialize as LookupRow,
  RejectedLine,
} from "../../bindings";
