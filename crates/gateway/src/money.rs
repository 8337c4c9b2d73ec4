//! Money: a `Decimal` amount tied to an ISO 4217 currency and checked against the
//! currency's minor units. Amounts travel on the wire as decimal strings.

use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::validate::FieldError;

/// A validated ISO 4217 currency (three upper-case letters known to the standard).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Currency(iso_currency::Currency);

impl Currency {
    /// Parses a currency code; the code must be exactly three upper-case ASCII letters
    /// and name an ISO 4217 currency.
    pub fn parse(code: &str) -> Result<Self, String> {
        if code.len() != 3 || !code.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(format!(
                "must be a 3-letter upper-case ISO 4217 code, got {code:?}"
            ));
        }
        iso_currency::Currency::from_code(code)
            .map(Self)
            .ok_or_else(|| format!("{code:?} is not an ISO 4217 currency"))
    }

    pub fn code(self) -> &'static str {
        self.0.code()
    }

    /// Digits after the decimal point allowed for this currency (JPY 0, USD 2, BHD 3).
    /// Funds and metals without minor units in the standard count as 2.
    pub fn minor_units(self) -> u32 {
        self.0.exponent().map_or(2, u32::from)
    }
}

impl fmt::Debug for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl FromStr for Currency {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl Serialize for Currency {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

impl<'de> Deserialize<'de> for Currency {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// An amount in a currency. Construction checks that the amount is positive and that
/// its scale does not exceed the currency's minor units.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Money {
    amount: Decimal,
    currency: Currency,
}

impl Money {
    /// `field` names the amount field in any error, e.g. `sourceAmount`.
    pub fn new(amount: Decimal, currency: Currency, field: &str) -> Result<Self, FieldError> {
        check_amount(field, amount, currency)?;
        Ok(Self { amount, currency })
    }

    /// Parses a decimal string such as `"100.00"` in `currency`.
    pub fn parse(amount: &str, currency: Currency, field: &str) -> Result<Self, FieldError> {
        let amount = parse_decimal(field, amount)?;
        Self::new(amount, currency, field)
    }

    pub fn amount(&self) -> Decimal {
        self.amount
    }

    pub fn currency(&self) -> Currency {
        self.currency
    }

    /// The amount in minor units (cents), exact because the scale was checked.
    pub fn minor(&self) -> i128 {
        let mut scaled = self.amount;
        scaled.rescale(self.currency.minor_units());
        scaled.mantissa()
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.amount, self.currency)
    }
}

/// Parses a plain decimal string (digits, one optional point, optional leading `-`),
/// refusing exponents, spaces and thousands separators that `Decimal::from_str` would
/// otherwise accept or misread.
pub fn parse_decimal(field: &str, text: &str) -> Result<Decimal, FieldError> {
    let body = text.strip_prefix('-').unwrap_or(text);
    let mut parts = body.splitn(2, '.');
    let int = parts.next().unwrap_or_default();
    let frac = parts.next();
    let digits_ok = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits_ok(int) || frac.is_some_and(|f| !digits_ok(f)) {
        return Err(FieldError::keyed(
            field,
            format!("must be a decimal number such as 100.00, got {text:?}"),
            "amountDecimal",
            &[("got", text.to_string())],
        ));
    }
    Decimal::from_str(text)
        .map_err(|e| FieldError::new(field, format!("is not a usable decimal ({e}): {text:?}")))
}

/// The largest amount a request may carry: a quadrillion (10^15) in any currency, far
/// above any real payment, far below what arithmetic on it could overflow.
pub const MAX_AMOUNT: i64 = 1_000_000_000_000_000;

/// Checks that `amount` is positive, at most [`MAX_AMOUNT`], and fits `currency`'s
/// minor units.
pub fn check_amount(field: &str, amount: Decimal, currency: Currency) -> Result<(), FieldError> {
    if amount <= Decimal::ZERO {
        return Err(FieldError::keyed(
            field,
            format!("must be greater than zero, got {amount}"),
            "amountPositive",
            &[("got", amount.to_string())],
        ));
    }
    if amount > Decimal::from(MAX_AMOUNT) {
        return Err(FieldError::keyed(
            field,
            format!("must be at most {MAX_AMOUNT}"),
            "amountMax",
            &[("max", MAX_AMOUNT.to_string())],
        ));
    }
    let units = currency.minor_units();
    if amount.scale() > units {
        return Err(FieldError::keyed(
            field,
            format!(
                "has {} decimal places but {} allows at most {units}",
                amount.scale(),
                currency
            ),
            "amountDecimals",
            &[
                ("places", amount.scale().to_string()),
                ("currency", currency.to_string()),
                ("max", units.to_string()),
            ],
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cur(c: &str) -> Currency {
        Currency::parse(c).unwrap()
    }

    #[test]
    fn minor_units_follow_iso_4217() {
        assert_eq!(cur("JPY").minor_units(), 0);
        assert_eq!(cur("USD").minor_units(), 2);
        assert_eq!(cur("BHD").minor_units(), 3);
        assert_eq!(cur("VND").minor_units(), 0);
    }

    #[test]
    fn currency_must_be_known_and_upper_case() {
        assert!(Currency::parse("usd").is_err());
        assert!(Currency::parse("US").is_err());
        assert!(Currency::parse("XYZ").is_err());
        assert_eq!(cur("EUR").code(), "EUR");
    }

    #[test]
    fn scale_beyond_minor_units_is_refused_with_the_field() {
        let err = Money::parse("10.5", cur("JPY"), "sourceAmount").unwrap_err();
        assert_eq!(err.field, "sourceAmount");
        assert!(err.rule.contains("JPY allows at most 0"), "{}", err.rule);
        assert!(Money::parse("1.234", cur("BHD"), "amount").is_ok());
        assert!(Money::parse("1.2345", cur("BHD"), "amount").is_err());
    }

    #[test]
    fn amounts_must_be_positive_plain_decimals() {
        for bad in [
            "0", "0.00", "-1.00", "1e3", " 1.00", "1,000.00", "", ".5", "5.", "abc",
        ] {
            assert!(
                Money::parse(bad, cur("USD"), "sourceAmount").is_err(),
                "{bad:?} accepted"
            );
        }
        let m = Money::parse("100.00", cur("USD"), "sourceAmount").unwrap();
        assert_eq!(m.amount().to_string(), "100.00");
        assert_eq!(m.minor(), 10000);
    }
}
