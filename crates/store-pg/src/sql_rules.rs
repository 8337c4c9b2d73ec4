//! The team's database words its refusals in English (`RAISE EXCEPTION` in the schema):
//! those a member meets through the app are recognised here by their shape and given a
//! message key, so a window words them in the member's language. A refusal not listed
//! (one only a hand-written statement meets) keeps the database's words.

use paydesk_store::error::Rule;

/// The database's refusal (`%` where it names a value), its key in the catalogues, and
/// the names of the values in order.
const KNOWN: &[(&str, &str, &[&str])] = &[
    (
        "four eyes: request % was made by %, who cannot approve or reject it",
        "sqlOwnRequest",
        &["request", "maker"],
    ),
    (
        "request %: four eyes: % of % approvals",
        "sqlApprovalsShort",
        &["request", "given", "needed"],
    ),
    (
        "request % is %, not waiting for approval",
        "sqlNotWaiting",
        &["request", "state"],
    ),
    (
        "request %: rejected only by a rejection with its reason",
        "sqlRejectReason",
        &["request"],
    ),
    (
        "request %: another member's session has held it for 30 s; nothing was changed, try again",
        "sqlRequestBusy",
        &["request"],
    ),
    (
        "only an approver approves or rejects requests",
        "sqlOnlyApprover",
        &[],
    ),
    ("only an admin adds members", "sqlOnlyAdmin", &[]),
    ("only an admin changes members", "sqlOnlyAdmin", &[]),
    ("only an admin removes members", "sqlOnlyAdmin", &[]),
    ("only an admin resets members", "sqlOnlyAdmin", &[]),
    ("only an admin removes approval rules", "sqlOnlyAdmin", &[]),
    (
        "only an admin sets a member's payout limits",
        "sqlOnlyAdmin",
        &[],
    ),
    (
        "amount: row % is % %, over the limit per payout of % % the team set for %",
        "sqlMemberLimitPerPayout",
        &["row", "amount", "currency", "limit", "currency", "member"],
    ),
    (
        "amount: row % (% %) would take %'s payouts today over the limit per day of % % the team set (% % requested today)",
        "sqlMemberLimitPerDay",
        &[
            "row", "amount", "currency", "member", "limit", "currency", "used", "currency",
        ],
    ),
    (
        "member %: already a member (holds %); change the role with `team user role`, the password with `team user password`",
        "sqlAlreadyMember",
        &["member", "roles"],
    ),
    (
        "member %: a database role the team did not make is never taken over (choose another name)",
        "sqlRoleNotTeams",
        &["member"],
    ),
    (
        "member %: a superuser, or a role that creates roles, replicates or bypasses row-level security, is never a member",
        "sqlPrivilegedRole",
        &["member"],
    ),
    (
        "member %: the team's owner is never a member",
        "sqlOwnerNotMember",
        &["member"],
    ),
    (
        "member %: an admin does not change their own roles; another admin or the database's owner does",
        "sqlOwnRoles",
        &["member"],
    ),
    (
        "member %: not a member of the team",
        "sqlNotMember",
        &["member"],
    ),
    ("no member %", "sqlNotMember", &["member"]),
    ("no request %", "sqlNoRequest", &["request"]),
    (
        "role: at least one (to take every role away, remove the member)",
        "memberRoles",
        &[],
    ),
    (
        "merOrderNo %: the merchant used this number already (an order or a send): an order number is requested once",
        "sqlNumberUsed",
        &["orderNo"],
    ),
    (
        "currency: a CLABE payout is in MXN (a CLABE is a Mexican account), not %",
        "clabeCurrency",
        &["currency"],
    ),
    (
        "row %: currency: a CLABE payout is in MXN (a CLABE is a Mexican account), not %",
        "sqlRowClabeCurrency",
        &["row", "currency"],
    ),
];

/// The values a message of `pattern`'s shape names, in order; `None` if its shape is
/// another. A value is matched as short as the literal after it allows; one that ends
/// the message is a single word.
fn values<'a>(pattern: &str, message: &'a str) -> Option<Vec<&'a str>> {
    let mut parts = pattern.split('%');
    let first = parts.next()?;
    let mut rest = message.strip_prefix(first)?;
    let mut out = Vec::new();
    let literals: Vec<&str> = parts.collect();
    for (i, lit) in literals.iter().enumerate() {
        let last = i + 1 == literals.len();
        let at = if lit.is_empty() {
            // A value that ends the message is one word (a number, a name, a code).
            if !last || rest.contains(char::is_whitespace) {
                return None;
            }
            rest.len()
        } else if last {
            // The last literal ends the message.
            if !rest.ends_with(lit) {
                return None;
            }
            rest.len() - lit.len()
        } else {
            rest.find(lit)?
        };
        out.push(&rest[..at]);
        rest = &rest[at + lit.len()..];
    }
    rest.is_empty().then_some(out)
}

/// The database's refusal as a rule: keyed when it is one a member meets in the app.
pub fn rule_of(message: &str) -> Rule {
    for (pattern, key, names) in KNOWN {
        if let Some(found) = values(pattern, message)
            && found.len() == names.len()
        {
            let params: Vec<(&str, String)> = names
                .iter()
                .zip(found)
                .map(|(n, v)| (*n, v.to_string()))
                .collect();
            return Rule::keyed(message, key, &params);
        }
    }
    Rule::from(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_of_a_known_shape_is_keyed_with_its_values() {
        let r = rule_of("four eyes: request 12 was made by ana, who cannot approve or reject it");
        assert_eq!(r.key.as_deref(), Some("sqlOwnRequest"));
        assert_eq!(r.params["request"], "12");
        assert_eq!(r.params["maker"], "ana");
        let r = rule_of("request 7: four eyes: 1 of 2 approvals");
        assert_eq!(r.key.as_deref(), Some("sqlApprovalsShort"));
        assert_eq!((&*r.params["given"], &*r.params["needed"]), ("1", "2"));
        assert_eq!(rule_of("no request 9").params["request"], "9");
    }

    #[test]
    fn another_shape_keeps_the_databases_words() {
        for m in [
            "permission denied for table journal",
            "four eyes: request 12 was made by ana",
            "no request 9 today",
        ] {
            let r = rule_of(m);
            assert_eq!(r.key, None, "{m}");
            assert_eq!(r.text, m);
        }
    }

    /// Every listed shape is the schema's own words (a changed `RAISE` would leave its
    /// refusal in English unseen), and every key is in both catalogues.
    #[test]
    fn every_shape_is_in_the_schema_and_every_key_is_translated() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/schema");
        let mut schema = String::new();
        for f in std::fs::read_dir(dir).unwrap() {
            schema += &std::fs::read_to_string(f.unwrap().path())
                .unwrap()
                .replace("''", "'");
        }
        let ui = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/i18n");
        for (pattern, key, names) in KNOWN {
            assert!(schema.contains(pattern), "not in the schema: {pattern}");
            assert_eq!(pattern.matches('%').count(), names.len(), "{pattern}");
            for lang in ["en", "zh"] {
                let cat = std::fs::read_to_string(ui.join(format!("{lang}.ts"))).unwrap();
                let rules = &cat[cat.find("\n  rules: {").unwrap()..];
                assert!(
                    rules.contains(&format!("\n    {key}:")),
                    "{lang}: rules.{key}"
                );
                if lang == "en" {
                    let line = rules.split(&format!("\n    {key}:")).nth(1).unwrap();
                    let text = line.split("\n    ").next().unwrap();
                    for p in text.split("{{").skip(1) {
                        let name = p.split("}}").next().unwrap();
                        assert!(names.contains(&name), "rules.{key} names {name}");
                    }
                }
            }
        }
    }
}
