import i18n from "i18next";
import { initReactI18next } from "react-i18next";
import { en } from "./en";
import { zh } from "./zh";

export const LANGUAGES = [
  { value: "en", label: "English" },
  { value: "zh", label: "简体中文" },
] as const;
export type Language = (typeof LANGUAGES)[number]["value"];

const STORAGE_KEY = "paydesk.language";

function initialLanguage(): Language {
  const saved = globalThis.localStorage?.getItem(STORAGE_KEY);
  if (saved === "en" || saved === "zh") return saved;
  return globalThis.navigator?.language?.toLowerCase().startsWith("zh") ? "zh" : "en";
}

void i18n.use(initReactI18next).init({
  resources: { en: { translation: en }, zh: { translation: zh } },
  lng: initialLanguage(),
  fallbackLng: "en",
  interpolation: { escapeValue: false },
  returnNull: false,
});

export function setLanguage(lang: Language) {
  globalThis.localStorage?.setItem(STORAGE_KEY, lang);
  void i18n.changeLanguage(lang);
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
}

/// The BCP 47 locale for number and date formatting.
export function locale(lang: string = i18n.language): string {
  return lang === "zh" ? "zh-CN" : "en-US";
}

export default i18n;
