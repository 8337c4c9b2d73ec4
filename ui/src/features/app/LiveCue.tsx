import { Alert } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { useAppStatus } from "./queries";

/// A money confirmation's cue on a live profile: LIVE, and which profile.
export function LiveCue() {
  const { t } = useTranslation();
  const status = useAppStatus().data;
  if (!status || status.sandbox) return null;
  return (
    <Alert color="red" variant="filled" data-testid="live-cue" p="xs">
      {t("entry.liveConfirm", { profile: status.profile.name })}
    </Alert>
  );
}
