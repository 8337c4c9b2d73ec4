//! Files for several orders' reviews at once, matched to their orders by the order
//! number in each file's name.
//!
//! The rule: a file belongs to an order when the order's trade number (`tradeNo`) or
//! merchant order number (`merOrderNo`) appears in the file's name as a whole token:
//! ASCII letters compared without case, and the characters just before and just after
//! it not ASCII letters or digits (or the name's start or end; a word in another script
//! may touch it). So `T100` is not found in `T1001.png` but is in `T100_passport.png`,
//! `id-T100.pdf` and `护照T100.png`. A number found inside a longer number also found in
//! the same name counts only as the longer one (`PD-1-2.png` is `PD-1-2`'s, not also
//! `PD-1`'s). A name with the numbers of two or more orders is ambiguous (none is
//! chosen); a name with none is unmatched.

use serde::{Deserialize, Serialize};

/// An order a file may be matched to: its two numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderNumbers {
    pub trade_no: String,
    pub mer_order_no: String,
}

/// What a file's name says about its order.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum MatchStatus {
    /// One order's number is in the name.
    Matched,
    /// Numbers of several orders are in the name.
    Ambiguous,
    /// No order's number is in the name.
    Unmatched,
}

/// Which of an order's numbers was found.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum MatchedBy {
    TradeNo,
    MerOrderNo,
}

/// One file's match.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileMatch {
    /// The file's full path, as given.
    pub path: String,
    /// Its name (the last part of the path).
    pub name: String,
    pub status: MatchStatus,
    /// The order's trade number, when matched.
    pub trade_no: Option<String>,
    /// Which number was found, when matched.
    pub by: Option<MatchedBy>,
    /// The trade numbers of the orders found in an ambiguous name.
    pub candidates: Vec<String>,
}

/// Where `number` occurs in `name` as a whole token (byte ranges), without case.
fn occurrences(name: &str, number: &str) -> Vec<(usize, usize)> {
    let number = number.trim();
    if number.is_empty() || number.len() > name.len() {
        return Vec::new();
    }
    let hay = name.as_bytes();
    let needle = number.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric();
    (0..=hay.len() - needle.len())
        .filter(|&i| hay[i..i + needle.len()].eq_ignore_ascii_case(needle))
        .filter(|&i| i == 0 || !word(hay[i - 1]))
        .filter(|&i| i + needle.len() == hay.len() || !word(hay[i + needle.len()]))
        .map(|i| (i, i + needle.len()))
        .collect()
}

/// Matches each file (its full path) to the orders by [the rule](self).
pub fn match_files(paths: &[String], orders: &[OrderNumbers]) -> Vec<FileMatch> {
    paths.iter().map(|p| match_one(p, orders)).collect()
}

fn match_one(path: &str, orders: &[OrderNumbers]) -> FileMatch {
    let name = std::path::Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(path)
        .to_string();
    // Every whole-token occurrence: (start, end, order's index, which number).
    let mut found: Vec<(usize, usize, usize, MatchedBy)> = Vec::new();
    for (i, o) in orders.iter().enumerate() {
        for (number, by) in [
            (&o.trade_no, MatchedBy::TradeNo),
            (&o.mer_order_no, MatchedBy::MerOrderNo),
        ] {
            for (s, e) in occurrences(&name, number) {
                found.push((s, e, i, by));
            }
        }
    }
    // A number inside a longer one found in the same place is not a number of its own.
    let kept: Vec<_> = found
        .iter()
        .filter(|a| {
            !found
                .iter()
                .any(|b| b.2 != a.2 && b.0 <= a.0 && a.1 <= b.1 && b.1 - b.0 > a.1 - a.0)
        })
        .copied()
        .collect();
    let mut orders_found: Vec<usize> = kept.iter().map(|k| k.2).collect();
    orders_found.sort_unstable();
    orders_found.dedup();
    let (status, trade_no, by, candidates) = match orders_found.as_slice() {
        [] => (MatchStatus::Unmatched, None, None, Vec::new()),
        [one] => {
            // The trade number when it is in the name, else the merchant order number.
            let by = if kept
                .iter()
                .any(|k| k.2 == *one && k.3 == MatchedBy::TradeNo)
            {
                MatchedBy::TradeNo
            } else {
                MatchedBy::MerOrderNo
            };
            (
                MatchStatus::Matched,
                Some(orders[*one].trade_no.clone()),
                Some(by),
                Vec::new(),
            )
        }
        many => (
            MatchStatus::Ambiguous,
            None,
            None,
            many.iter().map(|i| orders[*i].trade_no.clone()).collect(),
        ),
    };
    FileMatch {
        path: path.to_string(),
        name,
        status,
        trade_no,
        by,
        candidates,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(trade_no: &str, mer_order_no: &str) -> OrderNumbers {
        OrderNumbers {
            trade_no: trade_no.into(),
            mer_order_no: mer_order_no.into(),
        }
    }

    fn one(path: &str, orders: &[OrderNumbers]) -> FileMatch {
        match_files(&[path.to_string()], orders).remove(0)
    }

    #[test]
    fn a_trade_number_or_a_merchant_order_number_matches_as_a_whole_token() {
        let orders = [order("T1001", "PI-77"), order("T100", "PI-7")];
        let m = one("/tmp/scans/T1001_passport.png", &orders);
        assert_eq!(
            (m.status, m.trade_no.as_deref(), m.by, m.name.as_str()),
            (
                MatchStatus::Matched,
                Some("T1001"),
                Some(MatchedBy::TradeNo),
                "T1001_passport.png"
            )
        );
        // `T100` is not in `T1001`: the character after it is a digit.
        let m = one("/tmp/id-T100.pdf", &orders);
        assert_eq!(m.trade_no.as_deref(), Some("T100"));
        // By the merchant order number, without case; `PI-7` is not in `pi-77`.
        let m = one("/tmp/invoice pi-77.jpg", &orders);
        assert_eq!(
            (m.status, m.trade_no.as_deref(), m.by),
            (
                MatchStatus::Matched,
                Some("T1001"),
                Some(MatchedBy::MerOrderNo)
            )
        );
        // Words in another script touch a number without hiding it.
        let m = one("护照T100.png", &orders);
        assert_eq!(m.trade_no.as_deref(), Some("T100"));
        // Both numbers of one order: one order, said by its trade number.
        let m = one("PI-7 T100.png", &orders);
        assert_eq!(
            (m.status, m.trade_no.as_deref(), m.by),
            (MatchStatus::Matched, Some("T100"), Some(MatchedBy::TradeNo))
        );
    }

    #[test]
    fn a_name_with_two_orders_numbers_is_ambiguous_and_one_with_none_unmatched() {
        let orders = [order("T1", "PI-A"), order("T2", "PI-B")];
        let m = one("T1 and T2.png", &orders);
        assert_eq!(m.status, MatchStatus::Ambiguous);
        assert_eq!(m.trade_no, None);
        assert_eq!(m.candidates, vec!["T1".to_string(), "T2".to_string()]);
        // A trade number of one order and the merchant order number of another.
        let m = one("T1-PI-B.pdf", &orders);
        assert_eq!((m.status, m.candidates.len()), (MatchStatus::Ambiguous, 2));
        for name in ["T12.png", "holiday.jpg", "XT1.png", "T1x.pdf", ""] {
            let m = one(name, &orders);
            assert_eq!(m.status, MatchStatus::Unmatched, "{name}");
            assert!(m.trade_no.is_none() && m.candidates.is_empty(), "{name}");
        }
    }

    #[test]
    fn a_number_inside_a_longer_one_found_there_is_the_longer_ones() {
        let orders = [order("T9", "PD-1"), order("T8", "PD-1-2")];
        let m = one("PD-1-2.png", &orders);
        assert_eq!(
            (m.status, m.trade_no.as_deref()),
            (MatchStatus::Matched, Some("T8"))
        );
        // Both, in two places: ambiguous.
        let m = one("PD-1 PD-1-2.png", &orders);
        assert_eq!(m.status, MatchStatus::Ambiguous);
        // An order with no merchant order number matches by its trade number only.
        let m = one("T9.png", &[order("T9", "")]);
        assert_eq!(m.trade_no.as_deref(), Some("T9"));
    }

    #[test]
    fn many_files_keep_their_order_and_paths() {
        let orders = [order("T1", "A"), order("T2", "B")];
        let paths: Vec<String> = ["/x/T2.png", "/x/none.png", "/x/A.pdf"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let m = match_files(&paths, &orders);
        let got: Vec<_> = m
            .iter()
            .map(|f| (f.path.as_str(), f.trade_no.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("/x/T2.png", Some("T2")),
                ("/x/none.png", None),
                ("/x/A.pdf", Some("T1"))
            ]
        );
    }
}
