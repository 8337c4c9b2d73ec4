import { useQuery } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";
import type { NewBeneficiary, TeamPayeeRow } from "../../lib/types";
import { beneficiaryKeys } from "./keys";

/// The book of payees (masked); none on a desk that keeps no book (a team's, for now).
export function useBeneficiaries() {
  return useQuery({
    queryKey: beneficiaryKeys.list,
    queryFn: () => unwrap(commands.beneficiariesList()),
    retry: false,
  });
}

export function useAddBeneficiary() {
  return useCommandMutation("beneficiaryAdd", (payee: NewBeneficiary) =>
    unwrap(commands.beneficiaryAdd(payee)),
  );
}

/// On a team: approves a payee another member added (the database says who may): the
/// row the book showed (its id and sealed account's hash), never a nickname.
export function useApproveBeneficiary() {
  return useCommandMutation("beneficiaryApprove", (row: TeamPayeeRow) =>
    unwrap(commands.beneficiaryApprove(row)),
  );
}

/// On a team: whether a new payee needs another member's approval (null: a solo desk).
export function usePayeeApproval() {
  return useQuery({
    queryKey: beneficiaryKeys.approval,
    queryFn: () => unwrap(commands.payeeApproval()),
    retry: false,
  });
}

export function useSetPayeeApproval() {
  return useCommandMutation("payeeApprovalSet", (on: boolean) =>
    unwrap(commands.payeeApprovalSet(on)),
  );
}

export function useRemoveBeneficiary() {
  return useCommandMutation("beneficiaryRemove", (nickname: string) =>
    unwrap(commands.beneficiaryRemove(nickname)),
  );
}
