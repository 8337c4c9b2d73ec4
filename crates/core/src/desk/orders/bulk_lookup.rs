//! Bulk look-up: many order or trade numbers (pasted, or a text/CSV file) looked up in
//! the cache and, for what the cache lacks, at the gateway in order-list requests that
//! carry many numbers at once. One function for both front ends ([`Orders::bulk_lookup`]).
//!
//! The interface gives no limit on how many numbers `merOrderNos` and `tradeNos` take;
//! the one limit it leaves open that bounds a request is the page size (the profile's
//! conventions, `maxPageSize`). A batch holds at most one page of numbers, so that one
//! page can answer it; a batch whose answer runs over is read page by page.
//!
//! A number is "not found" only when the gateway was asked and its answer for the batch
//! was complete; a number the gateway was not asked (offline, stopped, a failed request)
//! says so and is never called absent. Nothing the gateway did not give is filled in.
//! What the gateway answered for orders the cache already holds updates the cache; an
//! order the cache lacks is not added, because the list gives no day to place it on (a
//! statement would count it on the wrong day): the next sync of its days caches it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use paydesk_gateway::StateField;
use paydesk_gateway::dictionary::Meaning;
use paydesk_gateway::wire::{self, MerNo, OrderListItem};
use serde::{Deserialize, Serialize};

use crate::desk::Desk;
use crate::error::{CoreError, CoreResult};

/// The most distinct numbers one look-up takes.
pub const MAX_LOOKUP_NUMBERS: usize = 5_000;

/// Header names that mark a CSV's number column (compared without case, spaces, `_`).
const NUMBER_HEADERS: [&str; 7] = [
    "merorderno",
    "tradeno",
    "merchantordernumber",
    "tradenumber",
    "ordernumber",
    "number",
    "ordernumbers",
];

/// Which rule a line that is not a number breaks (the screens word it in their
/// language; [`RejectedLine::rule`] says it in English).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RejectReason {
    /// The CSV's number column is empty on this line.
    EmptyColumn,
    /// Longer than 64 characters.
    TooLong,
    /// A space, or a character that is not printable ASCII.
    NotPrintable,
}

/// A line of the input that is not a number, and the rule it breaks.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RejectedLine {
    /// 1-based line of the input.
    pub line: u32,
    /// The text as given (at most 80 characters, controls replaced).
    pub text: String,
    pub reason: RejectReason,
    /// Why it is not an order or trade number, naming the rule.
    pub rule: String,
}

/// The numbers of a pasted text or file: one a line; in a CSV, the first column, or the
/// column headed `merOrderNo` / `tradeNo` (also PayDesk's own exports' "Trade number",
/// "Merchant order number"). Trimmed, blank lines skipped, duplicates dropped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Numbers {
    /// Distinct numbers with the line each was first seen on, in input order.
    pub numbers: Vec<(String, u32)>,
    pub rejected: Vec<RejectedLine>,
    /// Lines that repeated a number already given.
    pub duplicates: u32,
    /// Whether the first line was taken as a CSV header.
    pub header: bool,
}

fn cells(line: &str) -> Vec<String> {
    let sep = [',', ';', '\t'].into_iter().find(|c| line.contains(*c));
    let parts: Vec<&str> = match sep {
        Some(c) => line.split(c).collect(),
        None => vec![line],
    };
    parts
        .into_iter()
        .map(|p| {
            let p = p.trim();
            let p = p
                .strip_prefix('"')
                .and_then(|q| q.strip_suffix('"'))
                .map_or_else(|| p.to_string(), |q| q.replace("\"\"", "\""));
            p.trim().to_string()
        })
        .collect()
}

fn header_column(cells: &[String]) -> Option<usize> {
    cells.iter().position(|c| {
        let key: String = c
            .chars()
            .filter(|ch| !ch.is_whitespace() && *ch != '_')
            .collect::<String>()
            .to_ascii_lowercase();
        NUMBER_HEADERS.contains(&key.as_str())
    })
}

/// Why `value` is not an order or trade number (both are 1 to 64 printable ASCII
/// characters without spaces, the gateway crate's rules), `None` when it is one.
fn rule_broken(value: &str) -> Option<(RejectReason, String)> {
    paydesk_gateway::validate::order_no("merOrderNo", value).err()?;
    paydesk_gateway::validate::trade_no("tradeNo", value).err()?;
    let most = paydesk_gateway::validate::MAX_ORDER_NO_LEN;
    Some(if value.len() > most {
        (
            RejectReason::TooLong,
            format!(
                "is {} characters long: an order or trade number has at most {most}",
                value.chars().count()
            ),
        )
    } else {
        (
            RejectReason::NotPrintable,
            "holds a space or a character that is not printable ASCII: an order or trade number has neither".into(),
        )
    })
}

/// Reads the numbers of a pasted text or a file's content. Refuses more than
/// [`MAX_LOOKUP_NUMBERS`] distinct numbers, and a text with no line at all.
pub fn parse_numbers(text: &str) -> CoreResult<Numbers> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Numbers::default();
    let mut seen: HashSet<String> = HashSet::new();
    let mut column: Option<usize> = None;
    let mut first = true;
    for (i, raw) in text.lines().enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            continue;
        }
        let row = cells(trimmed);
        if first {
            first = false;
            if let Some(c) = header_column(&row) {
                column = Some(c);
                out.header = true;
                continue;
            }
        }
        let value = row
            .get(column.unwrap_or(0))
            .map(String::as_str)
            .unwrap_or("");
        if value.is_empty() {
            out.rejected.push(RejectedLine {
                line,
                text: paydesk_gateway::redact::terminal_safe(trimmed, 80),
                reason: RejectReason::EmptyColumn,
                rule: "the number column is empty".into(),
            });
            continue;
        }
        if let Some((reason, rule)) = rule_broken(value) {
            out.rejected.push(RejectedLine {
                line,
                text: paydesk_gateway::redact::terminal_safe(value, 80),
                reason,
                rule,
            });
            continue;
        }
        if !seen.insert(value.to_string()) {
            out.duplicates += 1;
            continue;
        }
        out.numbers.push((value.to_string(), line));
        if out.numbers.len() > MAX_LOOKUP_NUMBERS {
            return Err(CoreError::keyed(
                "numbers",
                format!("at most {MAX_LOOKUP_NUMBERS} distinct numbers a look-up"),
                "lookupTooMany",
                &[("max", MAX_LOOKUP_NUMBERS.to_string())],
            ));
        }
    }
    if out.numbers.is_empty() && out.rejected.is_empty() {
        return Err(CoreError::keyed(
            "numbers",
            "no order or trade number given: one a line",
            "lookupEmpty",
            &[],
        ));
    }
    Ok(out)
}

/// Where a number was found, or why it was not.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Found {
    /// In the desk's cache (the gateway was not asked about it).
    Cache,
    /// In the gateway's answer (the cache updated where it held the order).
    Gateway,
    /// The gateway was asked and its complete answer does not hold it.
    NotFound,
    /// Not in the cache, and the gateway was not asked (offline, stopped, or a request
    /// failed): neither found nor absent.
    NotAsked,
    /// The gateway listed it, but its item breaks the desk's rules (not shown, not
    /// cached).
    Unreadable,
    /// Not in the gateway's complete answer, but a merchant order number this desk's
    /// journal sent within the profile's not-found grace (`safety.notFoundGraceSecs`): a
    /// gateway's list may show a new order late, so its absence proves nothing yet.
    NotListedYet,
}

impl Found {
    pub fn label(self) -> &'static str {
        match self {
            Self::Cache => "in cache",
            Self::Gateway => "at the gateway",
            Self::NotFound => "not found",
            Self::NotAsked => "not asked",
            Self::Unreadable => "unreadable answer",
            Self::NotListedYet => "not listed yet",
        }
    }
}

/// One number's result. `None` fields: not given (by the cache or the gateway).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LookupRow {
    pub number: String,
    /// The input line it was first given on.
    pub line: u32,
    pub found: Found,
    pub trade_no: Option<String>,
    pub mer_order_no: Option<String>,
    /// The order list's raw `state`.
    pub state: Option<i64>,
    /// What the profile's dictionary says the state means (`None`: unknown value).
    pub meaning: Option<Meaning>,
    /// `sourceAmount` as its decimal text.
    pub amount: Option<String>,
    pub currency: Option<String>,
    /// Other orders the number also names (a merchant order number of one order and the
    /// trade number of another): their trade numbers.
    pub also: Vec<String>,
    /// Found in the cache, read again at the gateway, and the gateway's list did not
    /// show it.
    pub unlisted: bool,
    /// With [`Found::NotListedYet`]: when the request this desk sent under the number left
    /// (UTC millis), and when the not-found grace after it ends.
    #[serde(default)]
    pub sent_at: Option<i64>,
    #[serde(default)]
    pub grace_until: Option<i64>,
}

/// Whether the gateway was asked about what the cache lacked.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum GatewayAsked {
    /// Every number that needed it was asked.
    Asked,
    /// The cache held every number: nothing to ask.
    NotNeeded,
    /// The look-up was told not to ask (offline).
    Offline,
    /// Stopped by the user before every batch was asked.
    Stopped,
    /// A request failed; the numbers of it and later batches were not asked.
    Failed,
}

/// The result of a look-up.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LookupReport {
    /// One row per distinct number, in input order.
    pub rows: Vec<LookupRow>,
    pub rejected: Vec<RejectedLine>,
    pub duplicates: u32,
    pub gateway: GatewayAsked,
    /// Why the gateway failed (with [`GatewayAsked::Failed`]).
    pub gateway_error: Option<String>,
    /// Order-list requests made.
    pub requests: u32,
    /// Numbers a request carried at most.
    pub batch_size: u32,
    /// Cached orders updated from the gateway's answer.
    pub cache_updated: u32,
}

/// How a look-up goes.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LookupOptions {
    /// Ask the gateway about what the cache lacks (false: offline, the cache only).
    pub ask_gateway: bool,
    /// Also read the orders the cache holds again at the gateway (their states may have
    /// moved), updating the cache.
    pub refresh: bool,
}

impl Default for LookupOptions {
    fn default() -> Self {
        Self {
            ask_gateway: true,
            refresh: false,
        }
    }
}

/// Progress of the gateway part: numbers asked of those to ask, requests made.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LookupProgress {
    pub asked: u32,
    pub to_ask: u32,
    pub requests: u32,
}

fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn row_of(number: &str, line: u32, found: Found) -> LookupRow {
    LookupRow {
        number: number.to_string(),
        line,
        found,
        trade_no: None,
        mer_order_no: None,
        state: None,
        meaning: None,
        amount: None,
        currency: None,
        also: Vec::new(),
        unlisted: false,
        sent_at: None,
        grace_until: None,
    }
}

fn given(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

impl Desk {
    fn meaning_of(&self, state: i64) -> Option<Meaning> {
        self.dictionary()
            .meaning(StateField::OrderState, &state.to_string())
    }

    /// The order list for `numbers` (as merchant order numbers and as trade numbers),
    /// every page of it: its usable items, and the numbers named by items it refused.
    async fn list_numbers(
        &self,
        numbers: &[String],
        requests: &mut u32,
    ) -> CoreResult<(Vec<OrderListItem>, HashSet<String>)> {
        let size = i64::try_from(numbers.len()).unwrap_or(1).max(1);
        let mut items = Vec::new();
        let mut refused_numbers = HashSet::new();
        let mut page_num = 1i64;
        // Each number names about one order (two when it is one order's merchant order
        // number and another's trade number; more only where a gateway accepted a
        // reused number): an answer running past this is not read as complete.
        let most_pages = 10;
        loop {
            let op = wire::V2OrderList {
                mer_no: MerNo(self.profile.mer_no),
                mer_order_nos: numbers.to_vec(),
                trade_nos: numbers.to_vec(),
                date_limit: None,
                page_num,
                page_size: size,
                version: wire::V2OrderList::VERSION.into(),
            };
            *requests += 1;
            let a = self
                .query(
                    &op,
                    format!("lookup numbers={} page={page_num}", numbers.len()),
                )
                .await?;
            crate::answers::order_page(&a.data, size)?;
            let verified = a.signature == paydesk_gateway::SignatureStatus::Verified;
            let total_page = a.data.total_page;
            let listed: Vec<(String, String)> = a
                .data
                .list
                .iter()
                .map(|i| (i.mer_order_no.clone(), i.trade_no.clone()))
                .collect();
            let (kept, _why) = crate::answers::usable_items(a.data.list);
            let kept_trades: HashSet<&str> = kept.iter().map(|i| i.trade_no.as_str()).collect();
            for (m, t) in &listed {
                if !kept_trades.contains(t.as_str()) {
                    refused_numbers.insert(m.clone());
                    refused_numbers.insert(t.clone());
                }
            }
            // Orders the cache holds are updated with what the gateway said.
            let held: Vec<OrderListItem> = {
                let orders = self.store.orders();
                kept.iter()
                    .filter(|i| orders.get(&i.trade_no).ok().flatten().is_some())
                    .cloned()
                    .collect()
            };
            if !held.is_empty() {
                self.store.orders().upsert_items(
                    self.profile.mer_no,
                    &held,
                    self.now_ms(),
                    verified,
                )?;
                self.orders_changed();
            }
            items.extend(kept);
            if page_num >= total_page {
                break;
            }
            if page_num >= most_pages {
                return Err(CoreError::BadResponse {
                    message: format!(
                        "the order list for {} numbers runs past {most_pages} pages: not read as complete",
                        numbers.len()
                    ),
                });
            }
            page_num += 1;
        }
        Ok((items, refused_numbers))
    }

    /// Fills the rows of `chunk` from the gateway's complete answer for them.
    fn take_answer(
        &self,
        report: &mut LookupReport,
        chunk: &[usize],
        items: Vec<OrderListItem>,
        refused: &HashSet<String>,
    ) {
        let mut by_number: HashMap<&str, Vec<&OrderListItem>> = HashMap::new();
        for i in &items {
            by_number
                .entry(i.mer_order_no.as_str())
                .or_default()
                .push(i);
            if i.trade_no != i.mer_order_no {
                by_number.entry(i.trade_no.as_str()).or_default().push(i);
            }
        }
        for &k in chunk {
            let row = &mut report.rows[k];
            let mut matches: Vec<&OrderListItem> = by_number
                .get(row.number.as_str())
                .cloned()
                .unwrap_or_default();
            // A merchant order number's order before a trade number's.
            matches.sort_by_key(|i| i.mer_order_no != row.number);
            matches.dedup_by(|a, b| a.trade_no == b.trade_no);
            match matches.split_first() {
                Some((i, rest)) => {
                    row.found = Found::Gateway;
                    row.trade_no = Some(i.trade_no.clone());
                    row.mer_order_no = given(&i.mer_order_no);
                    row.state = Some(i.state);
                    row.meaning = self.meaning_of(i.state);
                    row.amount = Some(i.source_amount.to_string());
                    row.currency = given(&i.source_currency);
                    row.also = rest.iter().map(|o| o.trade_no.clone()).collect();
                    row.unlisted = false;
                }
                None if refused.contains(&row.number) => {
                    if row.found != Found::Cache {
                        row.found = Found::Unreadable;
                    }
                }
                None if row.found == Found::Cache => row.unlisted = true,
                None => match self.sent_within_grace(&row.number) {
                    Some((sent, until)) => {
                        row.found = Found::NotListedYet;
                        row.sent_at = Some(sent);
                        row.grace_until = Some(until);
                    }
                    None => row.found = Found::NotFound,
                },
            }
        }
    }

    /// When the request this desk's journal sent under merchant order number `number`
    /// left, and when its not-found grace ends, if that is still to come: a gateway's list
    /// may show the order late (the profile's `safety.notFoundGraceSecs`). Not for a
    /// request the gateway refused, or one that never left.
    fn sent_within_grace(&self, number: &str) -> Option<(i64, i64)> {
        let e = self
            .store
            .journal()
            .get_by_number(&self.profile.name, number)
            .ok()
            .flatten()?;
        if matches!(
            e.status,
            crate::journal::Status::Rejected | crate::journal::Status::Pending
        ) {
            return None;
        }
        let left = e.sent_at?;
        let until = left + i64::from(self.profile.safety.not_found_grace_secs) * 1000;
        (self.now_ms() < until).then_some((left, until))
    }
}

impl<'d> super::Orders<'d> {
    /// Looks `text`'s numbers up (see the module's docs): the cache first, then the
    /// gateway in batches of at most a page of numbers; `cancel` stops between batches.
    pub async fn bulk_lookup(
        self,
        text: &str,
        opts: LookupOptions,
        cancel: Arc<AtomicBool>,
        mut progress: impl FnMut(&LookupProgress) + Send,
    ) -> CoreResult<LookupReport> {
        let parsed = parse_numbers(text)?;
        let batch = self
            .desk
            .conventions()
            .max_page_size
            .clamp(1, paydesk_gateway::validate::MAX_PAGE_SIZE);
        let mut report = LookupReport {
            rows: Vec::with_capacity(parsed.numbers.len()),
            rejected: parsed.rejected,
            duplicates: parsed.duplicates,
            gateway: GatewayAsked::NotNeeded,
            gateway_error: None,
            requests: 0,
            batch_size: batch,
            cache_updated: 0,
        };
        // The cache first.
        let mut cached_trade: HashSet<String> = HashSet::new();
        {
            let orders = self.desk.store.orders();
            for (number, line) in &parsed.numbers {
                let by_trade = orders.get(number)?;
                let by_mer = orders.by_mer_order_no(number)?;
                let mut row = row_of(number, *line, Found::NotAsked);
                let (main, other) = match (by_mer, by_trade) {
                    (Some(m), Some(t)) if m.trade_no != t.trade_no => (Some(m), Some(t)),
                    (Some(m), _) => (Some(m), None),
                    (None, t) => (t, None),
                };
                if let Some(o) = main {
                    cached_trade.insert(o.trade_no.clone());
                    row.found = Found::Cache;
                    row.meaning = self.desk.meaning_of(o.state);
                    row.state = Some(o.state);
                    row.amount = given(&o.source_amount);
                    row.currency = given(&o.currency);
                    row.mer_order_no = given(&o.mer_order_no);
                    row.trade_no = Some(o.trade_no);
                    row.also = other.map(|o| o.trade_no).into_iter().collect();
                }
                report.rows.push(row);
            }
        }
        let to_ask: Vec<usize> = (0..report.rows.len())
            .filter(|&i| opts.refresh || report.rows[i].found == Found::NotAsked)
            .collect();
        if to_ask.is_empty() {
            return Ok(report);
        }
        if !opts.ask_gateway {
            report.gateway = GatewayAsked::Offline;
            return Ok(report);
        }
        report.gateway = GatewayAsked::Asked;
        let total = u32_of(to_ask.len());
        let mut asked = 0u32;
        progress(&LookupProgress {
            asked,
            to_ask: total,
            requests: 0,
        });
        for chunk in to_ask.chunks(batch as usize) {
            if cancel.load(Ordering::Relaxed) {
                report.gateway = GatewayAsked::Stopped;
                break;
            }
            let numbers: Vec<String> = chunk
                .iter()
                .map(|&i| report.rows[i].number.clone())
                .collect();
            match self.desk.list_numbers(&numbers, &mut report.requests).await {
                Ok((items, refused)) => self.desk.take_answer(&mut report, chunk, items, &refused),
                Err(e) => {
                    report.gateway = GatewayAsked::Failed;
                    report.gateway_error = Some(e.to_string());
                    break;
                }
            }
            asked += u32_of(chunk.len());
            progress(&LookupProgress {
                asked,
                to_ask: total,
                requests: report.requests,
            });
        }
        // What the gateway said of orders the cache holds, into the cache.
        let updates: Vec<&LookupRow> = report
            .rows
            .iter()
            .filter(|r| r.found == Found::Gateway)
            .filter(|r| {
                r.trade_no
                    .as_ref()
                    .is_some_and(|t| cached_trade.contains(t))
            })
            .collect();
        report.cache_updated = u32_of(updates.len());
        Ok(report)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_trimmed_deduped_and_bad_lines_named() {
        let long = "X".repeat(65);
        let text = format!("  M-1 \n\nT000001\nM-1\nhas space\n{long}\r\nM-2\n");
        let n = parse_numbers(&text).unwrap();
        let numbers: Vec<&str> = n.numbers.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(numbers, ["M-1", "T000001", "M-2"]);
        assert_eq!(n.duplicates, 1);
        assert_eq!(n.rejected.len(), 2);
        assert_eq!(n.rejected[0].line, 5);
        assert!(
            n.rejected[0].rule.contains("a space")
                && n.rejected[0].reason == RejectReason::NotPrintable,
            "{:?}",
            n.rejected
        );
        assert_eq!(n.rejected[1].line, 6);
        assert!(
            n.rejected[1].rule.contains("at most 64")
                && n.rejected[1].reason == RejectReason::TooLong,
            "{:?}",
            n.rejected
        );
    }

    #[test]
    fn a_csv_takes_its_number_column_by_header() {
        let n = parse_numbers("amount,tradeNo\n10.00,T1\n\"5.00\",\"T2\"\n").unwrap();
        assert!(n.header);
        let numbers: Vec<&str> = n.numbers.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(numbers, ["T1", "T2"]);
        assert!(parse_numbers(" \n\n").is_err());
    }
}
