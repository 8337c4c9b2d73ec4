import { useQuery } from "@tanstack/react-query";
import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import type { CardForm } from "../../lib/types";
import { type Settled, useMoneyMutation } from "../money/queries";
import { cardKeys } from "./keys";

export function useCards() {
  // Sandbox balances move when an operation completes, a few seconds after it is sent.
  return useQuery({
    queryKey: cardKeys.list,
    queryFn: () => unwrap(commands.cards()),
    refetchInterval: 3000,
  });
}

export function useCardOperations() {
  return useQuery({
    queryKey: cardKeys.operations,
    queryFn: () => unwrap(commands.cardOperations()),
  });
}

/// A top-up or a withdrawal.
export function useCardMove(onSettled?: Settled) {
  return useMoneyMutation(
    "cardMove",
    (v: { form: CardForm; allowDuplicate: boolean }) =>
      unwrap(commands.cardMove(v.form, v.allowDuplicate)),
    onSettled,
  );
}
