//! The book of payees (issue 35): a nickname unique per book, the payee's name, the
//! account masked as everywhere else (first 6, last 4), the bank a CLABE's first three
//! digits name, the country. The full account is never kept in clear: the book holds it
//! sealed (AES-256-GCM under a key derived from the profile's intent key, which lives in
//! the keyring, the key the journal's fingerprints are made with) next to a keyed digest
//! that says whether a payout's account is in the book without opening anything.

use serde::{Deserialize, Serialize};

use crate::error::{CoreError, CoreResult, Rule};
use crate::forms::PayoutKind;
use paydesk_gateway::validate as v;

/// The longest nickname and name.
/// The book's records are the model's (`paydesk-model`); kept at this path.
pub use paydesk_model::beneficiaries::{
    Beneficiary, StoredBeneficiary, TeamPayeeRow, kind_name, kind_of, nickname_key,
};

pub const NICKNAME_MAX: usize = 40;
pub const NAME_MAX: usize = 80;

/// A payee to add, as typed: the one place the full account passes (its `Debug` masks it).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewBeneficiary {
    pub nickname: String,
    /// `CLABE` or `CARD`; empty: read from the account (18 digits is a CLABE).
    #[serde(default)]
    pub kind: Option<PayoutKind>,
    #[serde(default)]
    pub first_name: String,
    #[serde(default)]
    pub last_name: String,
    pub account: String,
    #[serde(default)]
    pub country: String,
}
paydesk_gateway::masked_debug!(NewBeneficiary);

/// Whether a payout's account is in the book: what a confirmation (and each row of a
/// bulk plan) says about its payee.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Payee {
    /// The book holds this account under `nickname`.
    #[serde(rename_all = "camelCase")]
    Known { nickname: String, name: String },
    /// The book has never seen this account.
    New,
}

/// Capitals that read as Latin letters, mapped before lowercasing (review r6 R6-1): all
/// Greek "ΑΝΝΑ" reads "ANNA", a capital I reads as l. The team's database maps the same
/// (schema 0031 `nickname_skeleton`).
const CAPITALS: (&str, &str) = (
    "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧАВЕКМНОРСТХУІЈЅӀԚԜI",
    "abezhlkmnoptyxabekmhopctxyljslqwl",
);
/// Small letters of Greek, Cyrillic, Armenian and Coptic that print as Latin ones, 0 and 1.
const SMALL: (&str, &str) = (
    "аеорсухіјѕԁӏһԛԝкмнвтгαοριυνκτχβεηζօսհոռցքզⲟ01",
    "aeopcyxijsdlhqwkmhbtraopiuvktxbenzouhnngpqool",
);

fn translate(text: &str, (from, to): (&str, &str)) -> String {
    text.chars()
        .map(|c| match from.chars().position(|f| f == c) {
            Some(i) => to.chars().nth(i).unwrap_or(c),
            None => c,
        })
        .collect()
}

/// What a nickname reads as, so that look-alikes compare equal: its NFKC form (fullwidth
/// and mathematical letters fold to the ones they imitate), trimmed, the look-alike
/// capitals mapped, lowercased, the look-alike small letters mapped, "rn" read as "m".
pub fn nickname_skeleton(nickname: &str) -> String {
    use unicode_normalization::UnicodeNormalization as _;
    let folded: String = nickname.nfkc().collect();
    let capitals = translate(folded.trim(), CAPITALS);
    translate(&capitals.to_lowercase(), SMALL).replace("rn", "m")
}

/// Whether a nickname (in its NFKC form) mixes Latin letters with Greek, Cyrillic (any
/// block) or Armenian ones.
pub fn mixes_scripts(nickname: &str) -> bool {
    use unicode_normalization::UnicodeNormalization as _;
    let folded: String = nickname.nfkc().collect();
    // Latin with diacritics is Latin too (review sql-r6 F2: "ÉΤΑΤ" mixes scripts).
    folded.chars().any(|c| {
        c.is_ascii_alphabetic()
            || matches!(c,
                '\u{00C0}'..='\u{00D6}'
                | '\u{00D8}'..='\u{00F6}'
                | '\u{00F8}'..='\u{024F}'
                | '\u{1E00}'..='\u{1EFF}')
    }) && folded.chars().any(|c| {
        matches!(c,
                '\u{0370}'..='\u{03FF}'
                | '\u{1F00}'..='\u{1FFF}'
                | '\u{0400}'..='\u{052F}'
                | '\u{1C80}'..='\u{1C8F}'
                | '\u{2DE0}'..='\u{2DFF}'
                | '\u{A640}'..='\u{A69F}'
                | '\u{0530}'..='\u{058F}')
    })
}

/// An account with spaces and dashes left out (as the payout forms read it).
pub fn normalized_account(account: &str) -> String {
    account
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect()
}

/// A character a payee's nickname, names and bank never hold: controls, no-break and
/// other invisible spaces, and invisible or direction-changing characters (the team's
/// database refuses the same set: schema 0028).
pub fn forbidden(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{00A0}'
            | '\u{00AD}'
            | '\u{061C}'
            | '\u{180E}'
            | '\u{2007}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202F}'
            | '\u{2060}'..='\u{2069}'
            | '\u{FEFF}')
        || default_ignorable(c)
}

/// Invisible "default-ignorable" characters NFKC keeps (review sql-r6 F2; the team's
/// database refuses the same: schema 0032): the combining grapheme joiner, Hangul
/// fillers, Khmer and Mongolian invisibles, variation selectors, shorthand and musical
/// format controls, tag characters.
fn default_ignorable(c: char) -> bool {
    matches!(c,
        '\u{034F}'
        | '\u{115F}'
        | '\u{1160}'
        | '\u{17B4}'
        | '\u{17B5}'
        | '\u{180B}'..='\u{180F}'
        | '\u{3164}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{FFA0}'
        | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0000}'..='\u{E0FFF}')
}

fn text_rule(field: &str, value: &str, max: usize) -> CoreResult<()> {
    if let Some(c) = value.chars().find(|c| !c.is_control() && forbidden(*c)) {
        return Err(CoreError::keyed(
            field,
            format!(
                "printable text only: no invisible, no-break or direction-changing characters (found U+{:04X})",
                c as u32
            ),
            "payeeCharacter",
            &[("code", format!("U+{:04X}", c as u32))],
        ));
    }
    if value.chars().count() > max || value.chars().any(char::is_control) {
        return Err(CoreError::keyed(
            field,
            format!("must be at most {max} characters, without control characters"),
            "payeeText",
            &[("max", max.to_string())],
        ));
    }
    Ok(())
}

/// A payee checked: nickname, kind (from the account when not given), names, account
/// (the CLABE's or the card's rules) and country. Returns the payee as it is kept, with
/// its full account apart.
pub fn check(new: &NewBeneficiary) -> CoreResult<(Beneficiary, String)> {
    let nickname = new.nickname.trim().to_string();
    if nickname.is_empty() {
        return Err(CoreError::keyed(
            "nickname",
            "is required",
            "payeeNicknameRequired",
            &[],
        ));
    }
    text_rule("nickname", &nickname, NICKNAME_MAX)?;
    // Review r5 F8: Latin letters mixed with Cyrillic or Greek ones make a look-alike of
    // another nickname (the team's database refuses it too: schema 0029).
    // (Review r6 R6-1: in the NFKC form, every Greek, Cyrillic and Armenian block.)
    if mixes_scripts(&nickname) {
        return Err(CoreError::keyed(
            "nickname",
            "mixes Latin letters with Greek, Cyrillic or Armenian ones (a look-alike of another name): use one script",
            "payeeNicknameMixedScript",
            &[],
        ));
    }
    if nickname.starts_with(['=', '+', '-', '@']) {
        return Err(CoreError::keyed(
            "nickname",
            "must not start with =, +, - or @ (a spreadsheet would run it as a formula)",
            "payeeNicknameFormula",
            &[],
        ));
    }
    let account = normalized_account(&new.account);
    let kind = match new.kind {
        Some(k) => k,
        None if account.len() == 18 => PayoutKind::Clabe,
        None => PayoutKind::Card,
    };
    let first_name = new.first_name.trim().to_string();
    let last_name = new.last_name.trim().to_string();
    text_rule("firstName", &first_name, NAME_MAX)?;
    text_rule("lastName", &last_name, NAME_MAX)?;
    if first_name.is_empty() && last_name.is_empty() {
        return Err(CoreError::keyed(
            "firstName",
            "the payee needs a name",
            "payeeNameRequired",
            &[],
        ));
    }
    let country = new.country.trim().to_ascii_uppercase();
    let country = match kind {
        PayoutKind::Clabe if country.is_empty() => "MX".to_string(),
        _ => country,
    };
    if !(country.len() == 2 && country.bytes().all(|b| b.is_ascii_uppercase())) {
        return Err(CoreError::keyed(
            "country",
            format!("must be a two-letter country code such as MX, got {country:?}"),
            "payeeCountry",
            &[("got", country.clone())],
        ));
    }
    let bank = match kind {
        PayoutKind::Clabe => {
            v::clabe("account", &account)?;
            account.get(..3).and_then(v::clabe_bank).map(str::to_string)
        }
        PayoutKind::Card => {
            v::card_number("account", &account)?;
            if last_name.is_empty() || first_name.is_empty() {
                return Err(CoreError::keyed(
                    "lastName",
                    "a card payout needs the payee's first and last name",
                    "payeeCardNames",
                    &[],
                ));
            }
            None
        }
    };
    Ok((
        Beneficiary {
            nickname,
            kind,
            first_name,
            last_name,
            account: v::mask_card(&account),
            bank,
            country,
            created_at: 0,
            awaiting_approval: false,
            team_row: None,
        },
        account,
    ))
}

/// The keyed digest of an account under the profile's intent key: equal for the same
/// account, and no help in guessing the digits the mask hides.
pub fn account_digest(intent_key: &[u8], kind: PayoutKind, account: &str) -> String {
    crate::journal::keyed_digest(
        intent_key,
        &format!(
            "beneficiary account|{}|{}",
            kind_name(kind),
            normalized_account(account)
        ),
        16,
    )
}

fn seal_key(intent_key: &[u8]) -> CoreResult<aws_lc_rs::aead::LessSafeKey> {
    let key = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, intent_key);
    let derived = aws_lc_rs::hmac::sign(&key, b"paydesk beneficiary account seal v1");
    let unbound = aws_lc_rs::aead::UnboundKey::new(&aws_lc_rs::aead::AES_256_GCM, derived.as_ref())
        .map_err(|_| CoreError::internal("the book's seal key cannot be made"))?;
    Ok(aws_lc_rs::aead::LessSafeKey::new(unbound))
}

/// The account sealed under the profile's intent key, bound to its digest (a sealed
/// value moved to another row does not open there).
pub fn seal(intent_key: &[u8], digest: &str, account: &str) -> CoreResult<String> {
    use base64::Engine as _;
    let key = seal_key(intent_key)?;
    let mut nonce = [0u8; 12];
    aws_lc_rs::rand::fill(&mut nonce).map_err(|_| CoreError::internal("no random nonce"))?;
    let mut data = account.as_bytes().to_vec();
    key.seal_in_place_append_tag(
        aws_lc_rs::aead::Nonce::assume_unique_for_key(nonce),
        aws_lc_rs::aead::Aad::from(digest.as_bytes()),
        &mut data,
    )
    .map_err(|_| CoreError::internal("the account cannot be sealed"))?;
    let mut out = nonce.to_vec();
    out.extend_from_slice(&data);
    Ok(base64::engine::general_purpose::STANDARD.encode(out))
}

/// Opens what [`seal`] sealed; an error (naming the payee) when the key or the binding differs.
pub fn unseal(intent_key: &[u8], digest: &str, sealed: &str, nickname: &str) -> CoreResult<String> {
    use base64::Engine as _;
    let unreadable = || {
        CoreError::keyed(
            "beneficiary",
            format!(
                "the account of payee {nickname:?} cannot be opened with this desk's key (the keyring's intent key changed?); add the payee again"
            ),
            "payeeSealUnreadable",
            &[("nickname", nickname.to_string())],
        )
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(sealed)
        .map_err(|_| unreadable())?;
    if bytes.len() < 12 + 16 {
        return Err(unreadable());
    }
    let (nonce, rest) = bytes.split_at(12);
    let mut data = rest.to_vec();
    let key = seal_key(intent_key)?;
    let nonce =
        aws_lc_rs::aead::Nonce::try_assume_unique_for_key(nonce).map_err(|_| unreadable())?;
    let plain = key
        .open_in_place(
            nonce,
            aws_lc_rs::aead::Aad::from(digest.as_bytes()),
            &mut data,
        )
        .map_err(|_| unreadable())?;
    let account = String::from_utf8(plain.to_vec()).map_err(|_| unreadable())?;
    // The digest is the account's: a row whose columns were swapped does not pass.
    Ok(account)
}

/// A payee opened for sending: its full account (the `Debug` masks it).
#[derive(Clone, Serialize)]
pub struct Opened {
    pub nickname: String,
    pub kind: PayoutKind,
    pub first_name: String,
    pub last_name: String,
    pub account: String,
    pub country: String,
}
paydesk_gateway::masked_debug!(Opened);

/// The book as a bulk file's rows read it: payees by nickname, opened (the `Debug`
/// prints the count only).
#[derive(Clone, Default)]
pub struct Book {
    by_nickname: std::collections::HashMap<String, Opened>,
    /// Payees whose sealed account this desk's key does not open (its intent key
    /// changed): a row naming one is refused; the others still go.
    unreadable: std::collections::HashSet<String>,
    /// Where payouts do not take payees from the book (a team's requests, for now).
    closed: bool,
}

impl std::fmt::Debug for Book {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Book {{ {} payees }}", self.by_nickname.len())
    }
}

/// What a bulk row gives: its `beneficiary` cell, and its type, account, names and
/// country cells (empty when not given).
pub struct RowCells<'a> {
    pub kind: &'a mut String,
    pub account: &'a mut String,
    pub first_name: &'a mut String,
    pub last_name: &'a mut String,
    pub country: &'a mut String,
}

impl std::fmt::Debug for RowCells<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RowCells { .. }")
    }
}

impl Book {
    pub fn new(payees: Vec<Opened>) -> Self {
        Book {
            by_nickname: payees
                .into_iter()
                .map(|p| (nickname_key(&p.nickname), p))
                .collect(),
            unreadable: Default::default(),
            closed: false,
        }
    }

    /// The book of a team's payout requests, which do not take payees from it yet: a
    /// row naming one is refused saying so.
    pub fn not_for_team_payouts() -> Self {
        Book {
            closed: true,
            ..Book::default()
        }
    }

    /// Notes a payee whose account cannot be opened here.
    pub fn unreadable(&mut self, nickname: &str) {
        self.unreadable.insert(nickname_key(nickname));
    }

    pub fn len(&self) -> usize {
        self.by_nickname.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_nickname.is_empty()
    }

    pub fn get(&self, nickname: &str) -> Option<&Opened> {
        self.by_nickname.get(&nickname_key(nickname))
    }

    /// Fills a bulk row's cells from the payee its `beneficiary` cell names. Refused
    /// (with the field and the rule): a nickname the book does not hold, and a row whose
    /// own type or account disagrees with the payee's. Names and country the row leaves
    /// empty come from the book.
    pub fn fill_row(&self, nickname: &str, row: RowCells<'_>) -> Result<(), (String, Rule)> {
        if self.closed {
            return Err((
                "beneficiary".into(),
                Rule::keyed(
                    "a team's payouts do not take a payee from the book yet: give the account",
                    "payeeTeamBook",
                    &[],
                ),
            ));
        }
        if self.unreadable.contains(&nickname_key(nickname)) {
            return Err((
                "beneficiary".into(),
                Rule::keyed(
                    format!(
                        "the account of payee {nickname:?} cannot be opened with this desk's key (the keyring's intent key changed?); add the payee again"
                    ),
                    "payeeSealUnreadable",
                    &[("nickname", nickname.to_string())],
                ),
            ));
        }
        let Some(p) = self.get(nickname) else {
            return Err((
                "beneficiary".into(),
                Rule::keyed(
                    format!(
                        "no payee {nickname:?} in the book (Beneficiaries): add it first, or give the account"
                    ),
                    "payeeUnknown",
                    &[("nickname", nickname.to_string())],
                ),
            ));
        };
        let kind = kind_name(p.kind);
        if !row.kind.trim().is_empty() && !row.kind.trim().eq_ignore_ascii_case(kind) {
            return Err((
                "type".into(),
                Rule::keyed(
                    format!(
                        "is {:?}, but payee {nickname:?} is paid by {kind}",
                        row.kind.trim()
                    ),
                    "payeeTypeDiffers",
                    &[
                        ("nickname", nickname.to_string()),
                        ("kind", kind.to_string()),
                    ],
                ),
            ));
        }
        let given = normalized_account(row.account);
        if !given.is_empty() && given != p.account {
            return Err((
                "account".into(),
                Rule::keyed(
                    format!(
                        "differs from the account the book holds for payee {nickname:?} ({}): give one or the other",
                        v::mask_card(&p.account)
                    ),
                    "payeeAccountDiffers",
                    &[
                        ("nickname", nickname.to_string()),
                        ("account", v::mask_card(&p.account)),
                    ],
                ),
            ));
        }
        *row.kind = kind.to_string();
        *row.account = p.account.clone();
        if p.kind == PayoutKind::Card {
            if row.first_name.trim().is_empty() && row.last_name.trim().is_empty() {
                *row.first_name = p.first_name.clone();
                *row.last_name = p.last_name.clone();
            }
            if row.country.trim().is_empty() {
                *row.country = p.country.clone();
            }
        } else if row.first_name.trim().is_empty() && row.last_name.trim().is_empty() {
            // A CLABE payout sends no name; the plan shows the book's.
            *row.first_name = p.first_name.clone();
            *row.last_name = p.last_name.clone();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

    #[test]
    fn a_sealed_account_opens_only_with_its_key_and_digest() {
        let d = account_digest(KEY, PayoutKind::Clabe, "002010077777777771");
        let sealed = seal(KEY, &d, "002010077777777771").unwrap();
        assert!(!sealed.contains("77777777"));
        assert_eq!(unseal(KEY, &d, &sealed, "n").unwrap(), "002010077777777771");
        assert!(unseal(b"another key entirely.............", &d, &sealed, "n").is_err());
        let other = account_digest(KEY, PayoutKind::Clabe, "012180001234567897");
        assert!(unseal(KEY, &other, &sealed, "n").is_err());
    }

    #[test]
    fn a_book_closed_to_payouts_refuses_a_row_by_nickname_saying_why() {
        let (mut kind, mut account, mut first, mut last, mut country) = Default::default();
        let cells = RowCells {
            kind: &mut kind,
            account: &mut account,
            first_name: &mut first,
            last_name: &mut last,
            country: &mut country,
        };
        let (field, rule) = Book::not_for_team_payouts()
            .fill_row("rent", cells)
            .unwrap_err();
        assert_eq!(field, "beneficiary");
        assert_eq!(rule.key.as_deref(), Some("payeeTeamBook"));
        let cells = RowCells {
            kind: &mut kind,
            account: &mut account,
            first_name: &mut first,
            last_name: &mut last,
            country: &mut country,
        };
        let (_, unknown) = Book::default().fill_row("rent", cells).unwrap_err();
        assert_eq!(unknown.key.as_deref(), Some("payeeUnknown"));
    }

    #[test]
    fn a_nickname_mixing_latin_with_cyrillic_or_greek_is_refused() {
        let new = |nickname: &str| NewBeneficiary {
            nickname: nickname.into(),
            first_name: "Casa".into(),
            account: "002010077777777771".into(),
            ..Default::default()
        };
        for mixed in [
            "\u{0430}cme",
            "acm\u{03B5}",
            "acm\u{0585}",
            "p\u{1C82}l",
            "pa\u{A64B}",
        ] {
            let e = check(&new(mixed)).unwrap_err();
            assert!(e.to_string().contains("mixes Latin letters"), "{e}");
        }
        for one in ["acme", "Иван", "Ωμέγα"] {
            check(&new(one)).unwrap();
        }
    }

    /// Review r6 R6-1: the desk reads look-alikes as the team's database does (schema
    /// 0031): pairs a reader takes for the same nickname, and pairs a reader tells apart.
    #[test]
    fn look_alike_nicknames_read_the_same() {
        for (a, b) in [
            ("\u{0391}\u{039D}\u{039D}\u{0391}", "ANNA"),
            ("\u{039C}\u{0391}\u{03A7}\u{0399}\u{039C}\u{0391}", "MAXIMA"),
            ("\u{FF41}\u{FF43}\u{FF4D}\u{FF45}", "acme"),
            ("\u{1D5BA}cme", "acme"),
            ("\u{0410}\u{0421}\u{041C}\u{0415}", "acme"),
            ("Ian", "lan"),
            ("pa1", "pal"),
            ("rnark", "mark"),
        ] {
            assert_eq!(nickname_skeleton(a), nickname_skeleton(b), "{a} / {b}");
        }
        for (a, b) in [("anna", "emma"), ("Иван", "ivan"), ("rent", "rant")] {
            assert_ne!(nickname_skeleton(a), nickname_skeleton(b), "{a} / {b}");
        }
    }

    #[test]
    fn a_payee_is_checked_and_its_bank_read_from_the_clabe() {
        let (b, full) = check(&NewBeneficiary {
            nickname: " Rent ".into(),
            first_name: "Casa".into(),
            account: "0020 1007 7777 7777 71".into(),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(b.nickname, "Rent");
        assert_eq!(b.kind, PayoutKind::Clabe);
        assert_eq!(b.bank.as_deref(), Some("BANAMEX"));
        assert_eq!(b.country, "MX");
        assert_eq!(b.account, "002010********7771");
        assert_eq!(full, "002010077777777771");
        let bad = check(&NewBeneficiary {
            nickname: "x".into(),
            first_name: "A".into(),
            account: "002010077777777772".into(),
            ..Default::default()
        })
        .unwrap_err();
        assert!(bad.to_string().contains("account"), "{bad}");
        let card = check(&NewBeneficiary {
            nickname: "=cmd".into(),
            first_name: "A".into(),
            last_name: "B".into(),
            account: "4111111111111111".into(),
            country: "us".into(),
            ..Default::default()
        });
        assert!(card.is_err());
    }
}
