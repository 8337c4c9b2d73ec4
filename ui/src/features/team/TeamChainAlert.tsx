import { Alert } from "@mantine/core";
import { IconAlertTriangle } from "@tabler/icons-react";
import { useTranslation } from "react-i18next";
import { useTeamChainWatch } from "./queries";

/// On a team desk whose check of the team's audit chain failed (the chain cut or
/// rewritten against the head this desk's keyring anchored; checked when it connects,
/// after its own steps and every minute while it is open, idle or not): a red alert
/// saying so and what it means, asked again every few seconds. Nothing on a single desk
/// or when the chain holds.
export function TeamChainAlert() {
  const { t } = useTranslation();
  const problem = useTeamChainWatch().data?.chainProblem;
  if (!problem) return null;
  return (
    <Alert
      color="red"
      icon={<IconAlertTriangle size={18} />}
      title={t("teamAdmin.chainProblem")}
      data-testid="team-chain-problem"
      role="alert"
    >
      {problem}
      <br />
      {t("teamAdmin.chainProblemWhat")}
    </Alert>
  );
}
