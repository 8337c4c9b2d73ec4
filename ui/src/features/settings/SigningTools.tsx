// Settings → Signing tools (issue 32): what `paydesk verify` and `paydesk sign` do, in the
// window. A JSON object's canonical string is shown with the answer, so a person can see
// what was signed. Checking uses a pasted public key or the profile's gateway key;
// signing uses the profile's merchant key, which stays in the keyring. A new key pair is
// made in the keyring from the profile's keys (`paydesk keygen` writes files instead).
import {
  Badge,
  Button,
  Card,
  Checkbox,
  Code,
  Group,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ErrorAlert } from "../../components/ErrorAlert";
import { fieldError } from "../../lib/ipc";
import { useSignBody, useVerifySignature } from "./toolsQueries";

export function SigningTools() {
  const { t } = useTranslation();
  const verify = useVerifySignature();
  const sign = useSignBody();
  const [body, setBody] = useState("");
  const [signature, setSignature] = useState("");
  const [publicKey, setPublicKey] = useState("");
  const [exclude, setExclude] = useState("");
  const [keepEmpty, setKeepEmpty] = useState(false);
  const options = () => ({
    body,
    exclude: exclude.trim() === "" ? null : exclude.split(","),
    keepEmpty,
  });
  const error = verify.error ?? sign.error;
  return (
    <Card withBorder data-testid="signing-tools">
      <Stack>
        <Title order={3}>{t("signingTools.title")}</Title>
        <Text size="sm" c="dimmed">
          {t("signingTools.intro")}
        </Text>
        <Textarea
          label={t("signingTools.body")}
          placeholder='{"merNo": "10001", "amount": "10.00"}'
          rows={4}
          value={body}
          onChange={(e) => setBody(e.currentTarget.value)}
          error={fieldError(error, "body")}
          data-testid="tools-body"
        />
        <Group grow align="flex-start">
          <TextInput
            label={t("signingTools.exclude")}
            description={t("signingTools.excludeHint")}
            placeholder="sign,sing,signType"
            value={exclude}
            onChange={(e) => setExclude(e.currentTarget.value)}
            data-testid="tools-exclude"
          />
          <Checkbox
            mt="xl"
            label={t("signingTools.keepEmpty")}
            checked={keepEmpty}
            onChange={(e) => setKeepEmpty(e.currentTarget.checked)}
            data-testid="tools-keep-empty"
          />
        </Group>
        <TextInput
          label={t("signingTools.signature")}
          value={signature}
          onChange={(e) => setSignature(e.currentTarget.value)}
          error={fieldError(error, "signature")}
          data-testid="tools-signature"
        />
        <Textarea
          label={t("signingTools.publicKey")}
          description={t("signingTools.publicKeyHint")}
          rows={3}
          value={publicKey}
          onChange={(e) => setPublicKey(e.currentTarget.value)}
          error={fieldError(error, "publicKey")}
          data-testid="tools-public-key"
        />
        <Group>
          <Button
            loading={verify.isPending}
            disabled={body.trim() === "" || signature.trim() === ""}
            onClick={() => {
              sign.reset();
              verify.mutate({
                ...options(),
                signature,
                publicKey: publicKey.trim() === "" ? null : publicKey,
              });
            }}
            data-testid="tools-verify"
          >
            {t("signingTools.verify")}
          </Button>
          <Button
            variant="light"
            loading={sign.isPending}
            disabled={body.trim() === ""}
            onClick={() => {
              verify.reset();
              sign.mutate(options());
            }}
            data-testid="tools-sign"
          >
            {t("signingTools.sign")}
          </Button>
        </Group>
        <ErrorAlert error={error} />
        {verify.data ? (
          <Stack gap={4} data-testid="tools-verified">
            <Group>
              <Badge
                color={verify.data.valid ? "teal" : "red"}
                data-testid="tools-valid"
                data-valid={verify.data.valid ? "true" : "false"}
              >
                {verify.data.valid ? t("signingTools.valid") : t("signingTools.invalid")}
              </Badge>
              <Text size="xs" c="dimmed">
                {t("signingTools.key", { fingerprint: verify.data.keyFingerprint })}
              </Text>
            </Group>
            <Text size="sm">{t("signingTools.canonical")}</Text>
            <Code block data-testid="tools-canonical">
              {verify.data.canonical}
            </Code>
          </Stack>
        ) : null}
        {sign.data ? (
          <Stack gap={4} data-testid="tools-signed">
            <Text size="sm">{t("signingTools.signedBy", { profile: sign.data.profile })}</Text>
            <Code block data-testid="tools-sign-result">
              {sign.data.sign}
            </Code>
            <Text size="sm">{t("signingTools.canonical")}</Text>
            <Code block>{sign.data.canonical}</Code>
          </Stack>
        ) : null}
      </Stack>
    </Card>
  );
}
