// Settings → Signing tools (issue 32): `paydesk verify` and `paydesk sign` in the window.
// Nothing is kept; a private key never crosses IPC, only signatures do.
import { commands } from "../../bindings";
import { useCommandMutation } from "../../lib/invalidate";
import { unwrap } from "../../lib/ipc";

export type SignOptions = { body: string; exclude: string[] | null; keepEmpty: boolean };

/// Checks a signature with the pasted public key, or the profile's gateway key.
export function useVerifySignature() {
  return useCommandMutation(
    "toolsVerify",
    (v: SignOptions & { signature: string; publicKey: string | null }) =>
      unwrap(commands.toolsVerify(v.body, v.signature, v.publicKey, v.exclude, v.keepEmpty)),
  );
}

/// Signs with the active profile's merchant key (kept in the keyring).
export function useSignBody() {
  return useCommandMutation("toolsSign", (v: SignOptions) =>
    unwrap(commands.toolsSign(v.body, v.exclude, v.keepEmpty)),
  );
}
