// Settings → Built-in sandbox (issue 32): demo orders added to the in-process sandbox,
// as `paydesk sandbox --seed-orders` and `paydesk orders seed` do.
import { commands } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";

export function useSeedSandbox() {
  return useCommandMutation("sandboxSeed", (count: number) => unwrap(commands.sandboxSeed(count)));
}
