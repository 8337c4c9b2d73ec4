import {
  Badge,
  Button,
  Card,
  Code,
  CopyButton,
  Group,
  PasswordInput,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  Title,
} from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ConfirmModal } from "../../components/ConfirmModal";
import { ErrorAlert, errorText, toastError, toastOk } from "../../components/ErrorAlert";
import type { KeyInfo } from "../../lib/types";
import {
  useCheckKey,
  useDeleteKey,
  useGenerateKey,
  useImportKey,
  useKeys,
  useSetGatewayKey,
  useSetToken,
} from "./queries";
import { SetupSteps } from "./SetupSteps";

/// A public key's size, fingerprint and PEM; `label` says what the key is for (the
/// merchant's is registered with the gateway; the gateway's checks its answers).
function KeyView({ info, testid, label }: { info: KeyInfo; testid: string; label: string }) {
  const { t } = useTranslation();
  return (
    <Stack gap={4} data-testid={testid}>
      <Badge variant="light">{t("settings.bits", { bits: info.bits })}</Badge>
      <Text size="sm" fw={600}>
        {t("settings.fingerprint")}
      </Text>
      <Code
        data-testid={`${testid}-fingerprint`}
        style={{ whiteSpace: "normal", wordBreak: "break-all" }}
      >
        {info.fingerprint}
      </Code>
      <Group justify="space-between">
        <Text size="sm" fw={600}>
          {label}
        </Text>
        <CopyButton value={info.public_pem}>
          {({ copied, copy }) => (
            <Button size="compact-xs" variant="default" onClick={copy}>
              {copied ? t("common.copied") : t("common.copy")}
            </Button>
          )}
        </CopyButton>
      </Group>
      <Code
        block
        style={{ maxHeight: 140, overflow: "auto", fontSize: 11 }}
        tabIndex={0}
        aria-label={label}
      >
        {info.public_pem}
      </Code>
    </Stack>
  );
}

/// The profile's keys: the merchant's private key (never shown, only its public half),
/// the gateway's public key, the bearer token.
export function KeysPanel({
  profile,
  live = false,
  onCheck,
}: {
  profile: string;
  /// A real gateway's profile: the set-up's steps are shown above its keys.
  live?: boolean;
  onCheck?: () => void;
}) {
  const { t } = useTranslation();
  const keys = useKeys(profile);
  const importKey = useImportKey();
  const generate = useGenerateKey();
  const del = useDeleteKey();
  const gateway = useSetGatewayKey();
  const token = useSetToken();
  const [pem, setPem] = useState("");
  const [gatewayPem, setGatewayPem] = useState("");
  const [tokenText, setTokenText] = useState("");
  const [bits, setBits] = useState("2048");
  const [confirmGenerate, generateModal] = useDisclosure(false);
  const [confirmDelete, deleteModal] = useDisclosure(false);
  const [confirmImport, importModal] = useDisclosure(false);
  const [incoming, setIncoming] = useState("");
  const checkKey = useCheckKey();
  const merchant = keys.data?.merchant ?? null;

  const runGenerate = () =>
    generate.mutate(
      { profile, bits: Number(bits) },
      {
        onSuccess: (k) => {
          generateModal.close();
          toastOk(t("settings.generated", { fingerprint: k.fingerprint }));
        },
        onError: (e) => toastError(t, e),
      },
    );

  const runImport = () =>
    importKey.mutate(
      { profile, text: pem },
      {
        onSuccess: (k) => {
          importModal.close();
          setPem("");
          toastOk(t("settings.imported", { fingerprint: k.fingerprint }));
        },
        onError: () => importModal.close(),
      },
    );

  return (
    <Stack data-testid="keys-panel">
      <Title order={3} size="h4">
        {t("settings.keys", { name: profile })}
      </Title>
      {live && onCheck ? <SetupSteps profile={profile} onCheck={onCheck} /> : null}
      <ErrorAlert error={keys.error} />
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Card withBorder id="keys-merchantKey" tabIndex={-1}>
          <Title order={4} size="h5">
            {t("settings.merchantKey")}
          </Title>
          <Text size="xs" c="dimmed" mb="sm">
            {t("settings.merchantKeyHint")}
          </Text>
          {merchant ? (
            <KeyView info={merchant} testid="merchant-key" label={t("settings.publicKey")} />
          ) : (
            <Text c="dimmed">{t("settings.noKey")}</Text>
          )}
          <form
            onSubmit={(e) => {
              e.preventDefault();
              // The text is read first (a mistake is said under it at once); replacing
              // a private key is then asked, whether it is imported or made.
              checkKey.mutate(pem, {
                onSuccess: (info) => {
                  setIncoming(info.fingerprint);
                  if (merchant) importModal.open();
                  else runImport();
                },
              });
            }}
          >
            <Textarea
              mt="md"
              label={t("settings.importKey")}
              description={t("settings.importHint")}
              autosize
              minRows={3}
              maxRows={6}
              value={pem}
              onChange={(e) => {
                setPem(e.currentTarget.value);
                checkKey.reset();
                importKey.reset();
              }}
              error={
                (importKey.error ?? checkKey.error)
                  ? errorText(t, importKey.error ?? checkKey.error)
                  : undefined
              }
              styles={{ input: { fontFamily: "monospace", fontSize: 11 } }}
              data-testid="key-import-text"
              autoComplete="off"
              spellCheck={false}
            />
            <Group mt="xs">
              <Button
                type="submit"
                size="xs"
                loading={importKey.isPending || checkKey.isPending}
                disabled={!pem.trim()}
                data-testid="key-import-run"
              >
                {t("settings.importRun")}
              </Button>
            </Group>
          </form>
          <Group mt="md" align="flex-end">
            <Select
              label={t("settings.generate")}
              data={["2048", "3072", "4096"].map((b) => ({
                value: b,
                label: t("settings.bits", { bits: b }),
              }))}
              value={bits}
              onChange={(v) => setBits(v ?? "2048")}
              w={160}
              allowDeselect={false}
            />
            <Button
              size="sm"
              variant="light"
              loading={generate.isPending}
              onClick={() => (merchant ? generateModal.open() : runGenerate())}
              data-testid="key-generate"
            >
              {t("settings.generate")}
            </Button>
            {merchant ? (
              <Button size="sm" variant="subtle" color="red" onClick={deleteModal.open}>
                {t("settings.deleteKey")}
              </Button>
            ) : null}
          </Group>
        </Card>
        <Stack>
          <Card withBorder id="keys-gatewayKey" tabIndex={-1}>
            <Title order={4} size="h5">
              {t("settings.gatewayKey")}
            </Title>
            <Text size="xs" c="dimmed" mb="sm">
              {t("settings.gatewayKeyHint")}
            </Text>
            {keys.data?.gateway ? (
              <KeyView
                info={keys.data.gateway}
                testid="gateway-key"
                label={t("settings.gatewayPublicKey")}
              />
            ) : (
              <Text c="dimmed">{t("settings.noKey")}</Text>
            )}
            <Textarea
              mt="md"
              label={t("settings.setGatewayKey")}
              autosize
              minRows={2}
              maxRows={5}
              value={gatewayPem}
              onChange={(e) => setGatewayPem(e.currentTarget.value)}
              data-testid="gateway-key-text"
              error={gateway.error ? errorText(t, gateway.error) : undefined}
              styles={{ input: { fontFamily: "monospace", fontSize: 11 } }}
              spellCheck={false}
            />
            <Group mt="xs">
              <Button
                size="xs"
                disabled={!gatewayPem.trim()}
                loading={gateway.isPending}
                data-testid="gateway-key-set"
                onClick={() =>
                  gateway.mutate(
                    { profile, text: gatewayPem },
                    {
                      onSuccess: () => {
                        setGatewayPem("");
                        toastOk(t("settings.gatewayKeySet"));
                      },
                    },
                  )
                }
              >
                {t("settings.setGatewayKey")}
              </Button>
            </Group>
          </Card>
          <Card withBorder id="keys-token" tabIndex={-1}>
            <Title order={4} size="h5">
              {t("settings.token")}
            </Title>
            <Text size="sm" mb="xs" c={keys.data?.hasToken ? "teal" : "dimmed"}>
              {keys.data?.hasToken ? t("settings.tokenPresent") : t("settings.tokenMissing")}
            </Text>
            <Group align="flex-end">
              <PasswordInput
                label={t("settings.token")}
                value={tokenText}
                onChange={(e) => setTokenText(e.currentTarget.value)}
                data-testid="token-text"
                error={token.error ? errorText(t, token.error) : undefined}
                autoComplete="off"
                w={280}
              />
              <Button
                size="sm"
                disabled={!tokenText.trim()}
                loading={token.isPending}
                data-testid="token-set"
                onClick={() =>
                  token.mutate(
                    { profile, token: tokenText },
                    {
                      onSuccess: () => {
                        setTokenText("");
                        toastOk(t("settings.tokenSet"));
                      },
                    },
                  )
                }
              >
                {t("settings.setToken")}
              </Button>
            </Group>
          </Card>
        </Stack>
      </SimpleGrid>
      <ConfirmModal
        opened={confirmGenerate}
        onClose={generateModal.close}
        title={t("settings.generate")}
        message={t("settings.replaceWarning")}
        confirmLabel={t("common.confirm")}
        color="orange"
        loading={generate.isPending}
        onConfirm={runGenerate}
      />
      <ConfirmModal
        opened={confirmImport}
        onClose={importModal.close}
        title={t("flows.setup.replaceKeyTitle")}
        message={`${t("flows.setup.replaceKeyBody", { name: profile })} ${t("flows.setup.replaceKeyNew", { fingerprint: incoming })}`}
        confirmLabel={t("flows.setup.replaceKey")}
        color="orange"
        loading={importKey.isPending}
        onConfirm={runImport}
      />
      <ConfirmModal
        opened={confirmDelete}
        onClose={deleteModal.close}
        title={t("settings.deleteKey")}
        message={t("settings.deleteKeyConfirm", { name: profile })}
        confirmLabel={t("common.delete")}
        color="red"
        loading={del.isPending}
        onConfirm={() =>
          del.mutate(profile, {
            onSuccess: () => {
              deleteModal.close();
              toastOk(t("settings.keyDeleted"));
            },
            onError: (e) => toastError(t, e),
          })
        }
      />
    </Stack>
  );
}
