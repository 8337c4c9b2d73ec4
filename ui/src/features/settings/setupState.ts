import { useLocalStorage } from "@mantine/hooks";

/// What the desk cannot read back from the keyring or the gateway about a live set-up,
/// kept on this machine per profile: the fingerprint of the public key the user said
/// they gave the gateway (a new key unticks the step), and whether the last connection
/// check of the profile passed.
export interface SetupState {
  publicKeyGiven?: string;
  checkPassed?: boolean;
}

export function useSetupState(profile: string) {
  return useLocalStorage<SetupState>({
    key: `paydesk.setup.${profile}`,
    defaultValue: {},
    getInitialValueInEffect: false,
  });
}
