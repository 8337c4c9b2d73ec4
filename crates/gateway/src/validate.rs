//! Field validators. Every failure names the wire field and the rule it broke, so a
//! form can put the message on the right input and a CLI can print it as is.

use std::fmt;
use std::net::IpAddr;

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

/// A validation failure: the wire name of the field and the rule, in words (English,
/// what the CLI prints). A rule a window shows in the user's language also carries a
/// message `key` and its `params` (the values the words name), which the UI's
/// catalogues translate (`rules.<key>`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldError {
    pub field: String,
    pub rule: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub params: std::collections::BTreeMap<String, String>,
}

impl FieldError {
    pub fn new(field: impl Into<String>, rule: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            rule: rule.into(),
            key: None,
            params: Default::default(),
        }
    }

    /// A rule with its message key and parameters (see the type's docs).
    pub fn keyed(
        field: impl Into<String>,
        rule: impl Into<String>,
        key: &str,
        params: &[(&str, String)],
    ) -> Self {
        Self {
            field: field.into(),
            rule: rule.into(),
            key: Some(key.to_string()),
            params: params
                .iter()
                .map(|(k, v)| ((*k).to_string(), v.clone()))
                .collect(),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.rule)
    }
}

impl std::error::Error for FieldError {}

pub type Check = Result<(), FieldError>;

/// Format of `dateLimit.from` and `dateLimit.to`.
pub const DATE_TIME_FORMAT: &str = "%Y-%m-%d %H:%M:%S";
/// Largest `pageSize` this project sends and the sandbox accepts.
pub const MAX_PAGE_SIZE: u32 = 500;
/// Longest order number accepted (the interface gives none; real gateways use 32-64).
pub const MAX_ORDER_NO_LEN: usize = 64;

pub fn required(field: &str, value: &str) -> Check {
    if value.trim().is_empty() {
        return Err(FieldError::keyed(field, "is required", "required", &[]));
    }
    Ok(())
}

/// The longest name (a beneficiary's, a payer's, a product's) sent to the gateway.
pub const MAX_NAME_CHARS: usize = 100;
/// The longest other free text sent to the gateway (an address line, a remark, a
/// customer id), and the longest URL.
pub const MAX_TEXT_CHARS: usize = 255;
pub const MAX_URL_CHARS: usize = 2_048;
/// The longest review information text.
pub const MAX_INFO_CHARS: usize = 2_000;

/// A free text sent to the gateway: no control character (NUL, line breaks, escape), no
/// character that reorders text (bidi controls), at most `max` characters.
pub fn free_text(field: &str, value: &str, max: usize) -> Check {
    if let Some(c) = value.chars().find(|&c| {
        c.is_control()
            || matches!(
                c,
                '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}'
            )
    }) {
        return Err(FieldError::new(
            field,
            format!(
                "must not contain control or text-direction characters (found U+{:04X})",
                c as u32
            ),
        ));
    }
    let n = value.chars().count();
    if n > max {
        return Err(FieldError::keyed(
            field,
            format!("must be at most {max} characters (it has {n})"),
            "textTooLong",
            &[("max", max.to_string()), ("count", n.to_string())],
        ));
    }
    Ok(())
}

/// The bound of a request member's text, by its wire name: names, URLs, review
/// information, and everything else; `None` for members that are not text for people
/// (a review file's content, bounded by its own rule).
fn text_bound(key: &str) -> Option<usize> {
    match key {
        "fileContent" => None,
        "infoContent" => Some(MAX_INFO_CHARS),
        // A browser's own text, sent as the browser gave it.
        "userAgent" => Some(1_024),
        k if k.ends_with("Url") || k == "productUrl" => Some(MAX_URL_CHARS),
        k if k.ends_with("Name") || k == "name" || k == "holder" => Some(MAX_NAME_CHARS),
        _ => Some(MAX_TEXT_CHARS),
    }
}

/// Every text of a request body, at any depth, checked with [`free_text`] under its
/// member's bound ([`MAX_NAME_CHARS`] for names, ...): the one place every request passes
/// before it is signed, so no form or file can send a NUL, a line break or a megabyte.
/// The error names the member (`products[0].productName`).
pub fn request_texts(body: &serde_json::Map<String, serde_json::Value>) -> Check {
    fn walk(path: &str, key: &str, v: &serde_json::Value) -> Check {
        match v {
            serde_json::Value::String(s) => match text_bound(key) {
                Some(max) => free_text(path, s, max),
                None => Ok(()),
            },
            serde_json::Value::Array(items) => items
                .iter()
                .enumerate()
                .try_for_each(|(i, item)| walk(&format!("{path}[{i}]"), key, item)),
            serde_json::Value::Object(m) => m.iter().try_for_each(|(k, item)| {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                walk(&p, k, item)
            }),
            _ => Ok(()),
        }
    }
    body.iter().try_for_each(|(k, v)| walk(k, k, v))
}

/// [`request_texts`] of a request as it will be sent (a bulk file's rows are checked
/// so before any is sent).
pub fn texts_of<T: Serialize>(op: &T) -> Check {
    match serde_json::to_value(op) {
        Ok(serde_json::Value::Object(m)) => request_texts(&m),
        _ => Ok(()),
    }
}

/// The longest trade number the desk keeps.
pub const MAX_TRADE_NO_LEN: usize = 64;

/// A trade number the desk can believe, keep and show: 1 to 64 printable ASCII
/// characters without spaces.
pub fn trade_no(field: &str, value: &str) -> Check {
    if value.is_empty() {
        return Err(FieldError::new(field, "is empty"));
    }
    if value.len() > MAX_TRADE_NO_LEN {
        return Err(FieldError::new(
            field,
            format!("is {} bytes long; at most {MAX_TRADE_NO_LEN}", value.len()),
        ));
    }
    if !value.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(FieldError::new(
            field,
            "may only contain printable ASCII characters without spaces",
        ));
    }
    Ok(())
}

/// Order numbers: 1 to 64 printable ASCII characters without spaces.
pub fn order_no(field: &str, value: &str) -> Check {
    required(field, value)?;
    if value.len() > MAX_ORDER_NO_LEN {
        return Err(FieldError::keyed(
            field,
            format!("must be at most {MAX_ORDER_NO_LEN} characters"),
            "orderNoLength",
            &[("max", MAX_ORDER_NO_LEN.to_string())],
        ));
    }
    if !value.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(FieldError::keyed(
            field,
            "may only contain printable ASCII characters without spaces",
            "orderNoCharacters",
            &[],
        ));
    }
    Ok(())
}

/// A CLABE: 18 digits, a known bank code in the first three, and the check digit
/// computed with the weights 3, 7, 1.
pub fn clabe(field: &str, value: &str) -> Check {
    if value.len() != 18 || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(FieldError::keyed(
            field,
            "must be exactly 18 digits",
            "clabeDigits",
            &[],
        ));
    }
    let digits: Vec<u32> = value.bytes().map(|b| u32::from(b - b'0')).collect();
    let sum: u32 = digits[..17]
        .iter()
        .zip([3, 7, 1].iter().cycle())
        .map(|(d, w)| (d * w) % 10)
        .sum();
    let check = (10 - sum % 10) % 10;
    if check != digits[17] {
        return Err(FieldError::keyed(
            field,
            format!("check digit is wrong (expected {check})"),
            "clabeCheckDigit",
            &[("expected", check.to_string())],
        ));
    }
    let bank = &value[..3];
    if clabe_bank(bank).is_none() {
        return Err(FieldError::keyed(
            field,
            format!("bank code {bank} is not a known Mexican bank"),
            "clabeBank",
            &[("bank", bank.to_string())],
        ));
    }
    Ok(())
}

/// The bank a CLABE's first three digits name (Banxico's participant codes).
pub fn clabe_bank(code: &str) -> Option<&'static str> {
    CLABE_BANKS
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, name)| *name)
}

const CLABE_BANKS: &[(&str, &str)] = &[
    ("002", "BANAMEX"),
    ("006", "BANCOMEXT"),
    ("009", "BANOBRAS"),
    ("012", "BBVA MEXICO"),
    ("014", "SANTANDER"),
    ("019", "BANJERCITO"),
    ("021", "HSBC"),
    ("030", "BAJIO"),
    ("036", "INBURSA"),
    ("042", "MIFEL"),
    ("044", "SCOTIABANK"),
    ("058", "BANREGIO"),
    ("059", "INVEX"),
    ("060", "BANSI"),
    ("062", "AFIRME"),
    ("072", "BANORTE"),
    ("106", "BANK OF AMERICA"),
    ("108", "MUFG"),
    ("110", "JP MORGAN"),
    ("112", "BMONEX"),
    ("113", "VE POR MAS"),
    ("124", "CITI MEXICO"),
    ("127", "AZTECA"),
    ("128", "AUTOFIN"),
    ("129", "BARCLAYS"),
    ("130", "COMPARTAMOS"),
    ("132", "MULTIVA"),
    ("133", "ACTINVER"),
    ("135", "NAFIN"),
    ("136", "INTERCAM BANCO"),
    ("137", "BANCOPPEL"),
    ("138", "ABC CAPITAL"),
    ("140", "CONSUBANCO"),
    ("141", "VOLKSWAGEN"),
    ("143", "CIBANCO"),
    ("145", "BBASE"),
    ("147", "BANKAOOL"),
    ("148", "PAGATODO"),
    ("150", "INMOBILIARIO"),
    ("151", "DONDE"),
    ("152", "BANCREA"),
    ("154", "BANCO COVALTO"),
    ("155", "ICBC"),
    ("156", "SABADELL"),
    ("157", "SHINHAN"),
    ("158", "MIZUHO BANK"),
    ("159", "BANK OF CHINA"),
    ("160", "BANCO S3"),
    ("166", "BANCO DEL BIENESTAR"),
    ("167", "HEY BANCO"),
    ("168", "HIPOTECARIA FEDERAL"),
    ("600", "MONEXCB"),
    ("601", "GBM"),
    ("602", "MASARI"),
    ("605", "VALUE"),
    ("608", "VECTOR"),
    ("610", "B&B"),
    ("616", "FINAMEX"),
    ("617", "VALMEX"),
    ("620", "PROFUTURO"),
    ("630", "CB INTERCAM"),
    ("631", "CI BOLSA"),
    ("634", "FINCOMUN"),
    ("638", "NU MEXICO"),
    ("646", "STP"),
    ("652", "CREDICAPITAL"),
    ("653", "KUSPIT"),
    ("656", "UNAGRA"),
    ("659", "ASP INTEGRA OPC"),
    ("661", "ALTERNATIVOS"),
    ("670", "LIBERTAD"),
    ("677", "CAJA POP MEXICA"),
    ("680", "CRISTOBAL COLON"),
    ("683", "CAJA TELEFONIST"),
    ("684", "TRANSFER"),
    ("685", "FONDO FIRA"),
    ("686", "INVERCAP"),
    ("689", "FOMPED"),
    ("699", "FONDEADORA"),
    ("703", "TESORED"),
    ("706", "ARCUS"),
    ("710", "NVIO"),
    ("722", "MERCADO PAGO"),
    ("723", "CUENCA"),
    ("728", "SPIN BY OXXO"),
    ("901", "CLS"),
    ("902", "INDEVAL"),
];

/// An IBAN: country-specific length and the mod-97 check, spaces allowed.
pub fn iban(field: &str, value: &str) -> Check {
    value
        .parse::<iban::Iban>()
        .map(|_| ())
        .map_err(|e| FieldError::new(field, format!("is not a valid IBAN ({e})")))
}

/// A card number: 12 to 19 digits passing the Luhn check.
pub fn card_number(field: &str, value: &str) -> Check {
    if !(12..=19).contains(&value.len()) || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(FieldError::keyed(
            field,
            "must be 12 to 19 digits",
            "cardDigits",
            &[],
        ));
    }
    let sum: u32 = value
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 1 {
                let x = d * 2;
                if x > 9 { x - 9 } else { x }
            } else {
                d
            }
        })
        .sum();
    if !sum.is_multiple_of(10) {
        return Err(FieldError::keyed(
            field,
            "fails the Luhn check digit",
            "cardLuhn",
            &[],
        ));
    }
    Ok(())
}

/// Shows a card number as its first 6 and last 4 digits, the rest as `*`.
pub fn mask_card(value: &str) -> String {
    let n = value.chars().count();
    if n <= 10 {
        return "*".repeat(n);
    }
    value
        .chars()
        .enumerate()
        .map(|(i, c)| if i < 6 || i >= n - 4 { c } else { '*' })
        .collect()
}

pub fn email(field: &str, value: &str) -> Check {
    if email_address::EmailAddress::is_valid(value) && value.contains('.') {
        Ok(())
    } else {
        Err(FieldError::keyed(
            field,
            format!("must be an e-mail address such as name@example.com, got {value:?}"),
            "email",
            &[("got", value.to_string())],
        ))
    }
}

/// IPv4 or IPv6 text.
pub fn ip_address(field: &str, value: &str) -> Check {
    value.parse::<IpAddr>().map(|_| ()).map_err(|_| {
        FieldError::new(
            field,
            format!("must be an IPv4 or IPv6 address, got {value:?}"),
        )
    })
}

/// An absolute `http` or `https` URL with a host.
pub fn url(field: &str, value: &str) -> Check {
    match url::Url::parse(value) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => Ok(()),
        Ok(_) => Err(FieldError::new(
            field,
            "must be an http or https URL with a host",
        )),
        Err(e) => Err(FieldError::new(field, format!("is not a URL ({e})"))),
    }
}

/// A notification URL: [`url`], and not an address of the built-in sandbox's own
/// simulation API (a path segment `__sandbox`, however written): a notification there
/// would drive or wipe the sandbox instead of reaching the merchant.
pub fn notify_url(field: &str, value: &str) -> Check {
    url(field, value)?;
    let parsed = url::Url::parse(value).map_err(|e| FieldError::new(field, e.to_string()))?;
    let simulation = parsed.path_segments().into_iter().flatten().any(|segment| {
        // Percent-escapes undone (repeatedly: `%255F` is `%5F` is `_`), case ignored.
        let mut text = segment.to_string();
        for _ in 0..4 {
            let decoded = percent_decode(&text);
            if decoded == text {
                break;
            }
            text = decoded;
        }
        text.to_ascii_lowercase()
            .trim_matches(|c| c == '.' || c == ' ')
            .starts_with("__sandbox")
    });
    if simulation {
        return Err(FieldError::new(
            field,
            "must not point at the sandbox's simulation API (/__sandbox/)",
        ));
    }
    Ok(())
}

/// `%XX` escapes undone once (invalid ones kept as written).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push(u8::try_from(h * 16 + l).unwrap_or(b'%'));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub fn currency(field: &str, value: &str) -> Check {
    crate::money::Currency::parse(value)
        .map(|_| ())
        .map_err(|rule| FieldError::new(field, rule))
}

/// A positive decimal string whose scale fits the currency's minor units.
pub fn amount(field: &str, value: &str, currency_code: &str) -> Check {
    let cur = crate::money::Currency::parse(currency_code)
        .map_err(|rule| FieldError::new(field, format!("currency {rule}")))?;
    crate::money::Money::parse(value, cur, field).map(|_| ())
}

/// `YYYY-MM-DD HH:MM:SS`, a real calendar date and time.
pub fn date_time(field: &str, value: &str) -> Result<NaiveDateTime, FieldError> {
    if value.len() != 19 {
        return Err(FieldError::new(
            field,
            format!("must have the form YYYY-MM-DD HH:MM:SS, got {value:?}"),
        ));
    }
    NaiveDateTime::parse_from_str(value, DATE_TIME_FORMAT).map_err(|_| {
        FieldError::new(
            field,
            format!("must be a real date and time of the form YYYY-MM-DD HH:MM:SS, got {value:?}"),
        )
    })
}

pub fn page_num(field: &str, value: i64) -> Check {
    if value < 1 {
        return Err(FieldError::new(field, "must be 1 or more"));
    }
    Ok(())
}

pub fn page_size(field: &str, value: i64) -> Check {
    if !(1..=i64::from(MAX_PAGE_SIZE)).contains(&value) {
        return Err(FieldError::new(
            field,
            format!("must be between 1 and {MAX_PAGE_SIZE}"),
        ));
    }
    Ok(())
}

/// A file suffix with its leading dot, such as `.png`.
pub fn suffix(field: &str, value: &str) -> Check {
    let ok = value.len() >= 2
        && value.len() <= 10
        && value.starts_with('.')
        && value[1..].bytes().all(|b| b.is_ascii_alphanumeric());
    if ok {
        Ok(())
    } else {
        Err(FieldError::new(
            field,
            format!("must be a file suffix with a leading dot such as .png, got {value:?}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clabe_checks_length_digit_and_bank() {
        clabe("clabe", "002010077777777771").unwrap();
        assert!(
            clabe("clabe", "002010077777777772")
                .unwrap_err()
                .rule
                .contains("check digit")
        );
        assert!(
            clabe("clabe", "00201007777777777")
                .unwrap_err()
                .rule
                .contains("18 digits")
        );
        assert!(clabe("clabe", "00201007777777777a").is_err());
        // A correct check digit on an unknown bank code (999).
        let mut s = String::from("99901007777777777");
        let sum: u32 = s
            .bytes()
            .zip([3u32, 7, 1].iter().cycle())
            .map(|(b, w)| (u32::from(b - b'0') * w) % 10)
            .sum();
        s.push(char::from(b'0' + ((10 - sum % 10) % 10) as u8));
        assert!(
            clabe("clabe", &s)
                .unwrap_err()
                .rule
                .contains("bank code 999")
        );
    }

    #[test]
    fn iban_checks_country_length_and_mod97() {
        iban("IBAN", "DE89370400440532013000").unwrap();
        iban("IBAN", "GB82 WEST 1234 5698 7654 32").unwrap();
        assert!(iban("IBAN", "DE89370400440532013001").is_err());
        assert!(iban("IBAN", "DE8937040044053201300").is_err());
    }

    #[test]
    fn card_numbers_use_luhn() {
        card_number("cardNo", "4111111111111111").unwrap();
        card_number("cardNo", "5555555555554444").unwrap();
        assert!(
            card_number("cardNo", "4111111111111112")
                .unwrap_err()
                .rule
                .contains("Luhn")
        );
        assert!(card_number("cardNo", "41111111111").is_err());
        assert!(card_number("cardNo", "4111 1111 1111 1111").is_err());
        assert_eq!(mask_card("4111111111111111"), "411111******1111");
    }

    #[test]
    fn simple_formats() {
        email("email", "buyer+tag@example.com").unwrap();
        assert!(email("email", "not-an-email").is_err());
        ip_address("ipAddress", "203.0.113.7").unwrap();
        ip_address("ipAddress", "2001:db8::1").unwrap();
        assert!(ip_address("ipAddress", "300.1.1.1").is_err());
        url("notifyUrl", "https://shop.example/n").unwrap();
        assert!(url("notifyUrl", "ftp://x").is_err());
        assert!(url("notifyUrl", "shop.example").is_err());
        notify_url("notifyUrl", "http://127.0.0.1:8700/notify").unwrap();
        for hostile in [
            "http://127.0.0.1:8700/__sandbox/reset",
            "http://127.0.0.1:8700//__sandbox/reset",
            "http://127.0.0.1:8700/x/../__sandbox/reset",
            "http://LOCALHOST:8700/%5F%5Fsandbox/reset",
            "http://127.0.0.1:8700/__SANDBOX/seed",
            "http://127.0.0.1:8700/__sandbox2/hook",
            "http://127.0.0.1:8700/%5F%5Fs%61ndbox/x",
            "http://127.0.0.1:8700/%255F%255Fsandbox/x",
        ] {
            assert!(notify_url("notifyUrl", hostile).is_err(), "{hostile}");
        }
        currency("currencyCode", "MXN").unwrap();
        assert!(currency("currencyCode", "mxn").is_err());
        amount("sourceAmount", "2500.50", "MXN").unwrap();
        assert!(amount("sourceAmount", "2500.505", "MXN").is_err());
        date_time("dateLimit.from", "2026-11-01 00:00:00").unwrap();
        assert!(date_time("dateLimit.from", "2026-02-30 00:00:00").is_err());
        assert!(date_time("dateLimit.from", "2026-11-01T00:00:00").is_err());
        page_size("pageSize", 500).unwrap();
        assert!(page_size("pageSize", 501).is_err());
        assert!(page_num("pageNum", 0).is_err());
        suffix("suffix", ".png").unwrap();
        assert!(suffix("suffix", "png").is_err());
        let e = order_no("merOrderNo", "a b").unwrap_err();
        assert_eq!(
            e.to_string(),
            "merOrderNo: may only contain printable ASCII characters without spaces"
        );
    }

    #[test]
    fn free_texts_to_the_gateway_have_no_controls_and_a_bound() {
        let body = |v: serde_json::Value| v.as_object().cloned().unwrap_or_default();
        request_texts(&body(serde_json::json!({
            "benFirstName": "Ana María", "addressLine": "Calle 1", "notifyUrl": "https://m.example/n",
            "fileList": [{"fileContent": "A".repeat(100_000)}]
        })))
        .unwrap();
        let said = |v: serde_json::Value| request_texts(&body(v)).unwrap_err().to_string();
        assert_eq!(
            said(serde_json::json!({"benFirstName": "Ana\u{0}"})),
            "benFirstName: must not contain control or text-direction characters (found U+0000)"
        );
        assert!(said(serde_json::json!({"benLastName": "x\u{202e}y"})).contains("U+202E"));
        assert!(said(serde_json::json!({"city": "a\nb"})).starts_with("city: "));
        assert_eq!(
            said(serde_json::json!({"benFirstName": "x".repeat(1_000_000)})),
            "benFirstName: must be at most 100 characters (it has 1000000)"
        );
        assert!(
            said(serde_json::json!({"products": [{"productName": "p\u{1b}"}]}))
                .starts_with("products[0].productName: ")
        );
    }
}
