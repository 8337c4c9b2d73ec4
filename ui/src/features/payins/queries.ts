import { commands } from "../../bindings";
import { unwrap } from "../../lib/ipc";
import type { PayinForm } from "../../lib/types";
import { type Settled, useMoneyMutation } from "../money/queries";

export function useCreatePayin(onSettled?: Settled) {
  return useMoneyMutation(
    "payinCreate",
    (v: { form: PayinForm; allowDuplicate: boolean }) =>
      unwrap(commands.payinCreate(v.form, v.allowDuplicate)),
    onSettled,
  );
}
