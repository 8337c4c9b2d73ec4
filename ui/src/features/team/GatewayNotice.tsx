import { Alert } from "@mantine/core";
import { IconKeyOff } from "@tabler/icons-react";
import { useTranslation } from "react-i18next";
import { useAccess } from "./queries";

/// Why this desk cannot do what talks to the gateway, or undefined when it can (a single
/// desk, or a team desk holding the merchant key). Buttons that would talk to the
/// gateway are disabled with this reason.
export function useGatewayClosed(): string | undefined {
  const { t } = useTranslation();
  return useAccess().reason(t);
}

/// On a team desk without the merchant key: what this screen cannot do here, and who
/// does it (`what` names the screen's own action; `instead` what the member can do).
export function GatewayNotice({ instead }: { instead?: string }) {
  const closed = useGatewayClosed();
  if (!closed) return null;
  return (
    <Alert color="gray" icon={<IconKeyOff size={18} />} data-testid="gateway-closed">
      {closed}
      {instead ? ` ${instead}` : ""}
    </Alert>
  );
}
