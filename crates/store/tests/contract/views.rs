//! `ViewStore`'s contract: a view saved under a name replaces the one of that name, is
//! listed by name per screen with its spec as written, changed and deleted by id; the
//! view a screen last used is kept (and cleared). A shared view is a team's: a desk's
//! own file refuses one, naming the rule.

use paydesk_store::error::CoreError;
use paydesk_store::prelude::ViewStore;
use paydesk_store::views::Screen;

use super::Facts;

const MXN: &str = r#"{"fields":{"currency":"MXN"}}"#;
const USD: &str = r#"{"fields":{"currency":"USD"}}"#;

pub fn views_are_saved_by_name_listed_per_screen_changed_and_deleted(
    v: &dyn ViewStore,
    facts: Facts,
) {
    let n = facts.name;
    let first = v.save(Screen::Orders, "pesos", USD, false).unwrap();
    let again = v.save(Screen::Orders, "pesos", MXN, false).unwrap();
    assert_eq!(first, again, "{n}: the same name is the same view");
    let other = v.save(Screen::Orders, "all", "{}", false).unwrap();
    v.save(Screen::Events, "events", "{}", false).unwrap();

    let orders = v.list(Screen::Orders).unwrap();
    assert_eq!(
        orders.iter().map(|x| x.name.as_str()).collect::<Vec<_>>(),
        ["all", "pesos"],
        "{n}: by name, this screen's only"
    );
    let pesos = &orders[1];
    assert_eq!(pesos.id, first, "{n}");
    assert_eq!(
        pesos.spec.fields.get("currency").map(String::as_str),
        Some("MXN"),
        "{n}: the spec as last saved"
    );
    assert!(pesos.mine && !pesos.shared, "{n}");

    assert!(v.update(first, USD, false).unwrap(), "{n}");
    let pesos = v
        .list(Screen::Orders)
        .unwrap()
        .into_iter()
        .find(|x| x.id == first)
        .unwrap();
    assert_eq!(
        pesos.spec.fields.get("currency").map(String::as_str),
        Some("USD"),
        "{n}"
    );
    assert!(v.delete(other).unwrap(), "{n}");
    assert!(!v.delete(other).unwrap(), "{n}: gone already");
    assert!(!v.update(other, MXN, false).unwrap(), "{n}: gone already");
    assert_eq!(v.list(Screen::Orders).unwrap().len(), 1, "{n}");

    assert_eq!(v.last(Screen::Orders).unwrap(), None, "{n}");
    v.set_last(Screen::Orders, Some(first)).unwrap();
    assert_eq!(v.last(Screen::Orders).unwrap(), Some(first), "{n}");
    assert_eq!(v.last(Screen::Events).unwrap(), None, "{n}: per screen");
    v.set_last(Screen::Orders, None).unwrap();
    assert_eq!(v.last(Screen::Orders).unwrap(), None, "{n}");

    // Sharing is a team's: its database keeps a shared view, a desk's file refuses one.
    match v.save(Screen::Orders, "team's", MXN, true) {
        Ok(_) => assert!(facts.shared_by_profiles, "{n}: a desk's file shared a view"),
        Err(CoreError::Validation { field, rule }) => {
            assert!(!facts.shared_by_profiles, "{n}: {rule}");
            assert_eq!(field, "shared", "{n}");
            assert_eq!(rule.key.as_deref(), Some("viewSharedTeamOnly"), "{n}");
        }
        Err(e) => panic!("{n}: {e}"),
    }
}
