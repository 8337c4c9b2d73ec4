//! The sandbox's state: merchants, orders with their lifecycle, cards, reviews.
//!
//! Balances are never edited directly: every change to an order goes through
//! [`State::update_order`], which applies the difference between the order's ledger
//! effect before and after. So the balances always equal what the orders imply, and
//! [`State::check_ledger`] can prove it from scratch.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use paydesk_gateway::PublicKey;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Order-list `state` values (the project's state dictionary).
pub mod st {
    pub const CREATED: i64 = 1;
    pub const PENDING: i64 = 2;
    pub const FAILED: i64 = 3;
    pub const CLOSED: i64 = 4;
    pub const SUCCESS: i64 = 5;
    pub const REFUNDED: i64 = 6;
    pub const PARTLY_REFUNDED: i64 = 7;
    pub const CHARGED_BACK: i64 = 8;
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Merchant {
    pub mer_no: u64,
    /// SPKI DER, base64.
    pub public_key: String,
    /// Registered origins (`scheme://host[:port]`) accepted in `Referer`.
    pub origins: Vec<String>,
    /// Bearer tokens, kept as `sha256:<hex>` digests (as a real gateway keeps them);
    /// plain tokens given at registration are digested by [`State::add_merchant`].
    pub tokens: Vec<String>,
    /// Percentage fee on payins (0.025 = 2.5%).
    pub fee_rate: Decimal,
    /// Fixed fee per payin, in the order's currency.
    pub fixed_fee: Decimal,
    /// Share of each payin held as rolling reserve until released.
    pub reserve_rate: Decimal,
    /// Fixed fee per payout.
    pub payout_fee: Decimal,
    /// Fee on card withdrawals (share of the amount).
    pub withdraw_fee_rate: Decimal,
    /// Opening balances per currency (what was there before any order).
    pub opening: BTreeMap<String, Decimal>,
    /// Where card notifications go (top-up and withdraw carry no `notifyUrl`).
    #[serde(default)]
    pub card_notify_url: String,
}

/// `sha256:<hex>` of a bearer token; a digest is returned as it is.
pub fn token_digest(token: &str) -> String {
    use sha2::Digest as _;
    if token.starts_with("sha256:") {
        return token.to_string();
    }
    let hex: String = sha2::Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}

impl Merchant {
    /// Whether `token` is one of the merchant's.
    pub fn has_token(&self, token: &str) -> bool {
        let d = token_digest(token);
        self.tokens.contains(&d)
    }

    pub fn key(&self) -> Option<PublicKey> {
        PublicKey::from_text(&self.public_key).ok()
    }

    /// The checks the simulation API makes before registering a merchant: a usable
    /// key, origins and notification URL, and every rate, fee and opening balance
    /// within [`MAX_RATE_SCALE`] / [`MAX_FEE_SCALE`] and [`MAX_MONEY`], so no
    /// arithmetic on them can overflow or round. The message names the field.
    pub fn check(&self) -> Result<(), String> {
        if self.mer_no == 0 {
            return Err("mer_no: must be a positive merchant number".into());
        }
        if self.key().is_none() {
            return Err("public_key: not an RSA public key of 2048 to 4096 bits".into());
        }
        for (i, o) in self.origins.iter().enumerate() {
            if !is_http_url(o) {
                return Err(format!("origins[{i}]: must be an http or https origin"));
            }
        }
        for (i, t) in self.tokens.iter().enumerate() {
            if t.is_empty() || t.chars().any(char::is_control) {
                return Err(format!(
                    "tokens[{i}]: must be non-empty, without control characters"
                ));
            }
        }
        if !self.card_notify_url.is_empty() && !is_http_url(&self.card_notify_url) {
            return Err("card_notify_url: must be an http or https URL".into());
        }
        for (field, rate) in [
            ("fee_rate", self.fee_rate),
            ("reserve_rate", self.reserve_rate),
            ("withdraw_fee_rate", self.withdraw_fee_rate),
        ] {
            if rate < Decimal::ZERO
                || rate > Decimal::ONE
                || rate.normalize().scale() > MAX_RATE_SCALE
            {
                return Err(format!(
                    "{field}: must be from 0 to 1 with at most {MAX_RATE_SCALE} decimal places"
                ));
            }
        }
        for (field, fee) in [
            ("fixed_fee", self.fixed_fee),
            ("payout_fee", self.payout_fee),
        ] {
            check_money(field, fee, MAX_FEE_SCALE)?;
        }
        for (cur, amount) in &self.opening {
            let units = paydesk_gateway::Currency::parse(cur)
                .map_err(|e| format!("opening.{cur}: the currency {e}"))?
                .minor_units();
            check_money(&format!("opening.{cur}"), *amount, units)?;
        }
        Ok(())
    }
}

/// Opening balances, fees and card balances the simulation API takes: at most this
/// (10^15, the gateway's largest amount).
pub const MAX_MONEY: i64 = paydesk_gateway::money::MAX_AMOUNT;
/// Decimal places of a merchant's rates (0.025 = 2.5 %).
pub const MAX_RATE_SCALE: u32 = 6;
/// Decimal places of a merchant's fixed fees.
pub const MAX_FEE_SCALE: u32 = 4;

fn check_money(field: &str, amount: Decimal, scale: u32) -> Result<(), String> {
    if amount < Decimal::ZERO
        || amount > Decimal::from(MAX_MONEY)
        || amount.normalize().scale() > scale
    {
        return Err(format!(
            "{field}: must be from 0 to {MAX_MONEY} with at most {scale} decimal places"
        ));
    }
    Ok(())
}

fn is_http_url(text: &str) -> bool {
    url::Url::parse(text)
        .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
}

/// A merchant's money in one currency.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Balance {
    /// Settled and available (`balance`).
    pub available: Decimal,
    /// Paid but not yet settled (`unCheckedBalance`).
    pub unchecked: Decimal,
    /// Rolling reserve held back from payins (not part of `totalBalance`).
    pub reserve: Decimal,
}

impl Balance {
    pub fn total(&self) -> Decimal {
        self.available + self.unchecked
    }

    fn add(&mut self, o: Balance) {
        self.available += o.available;
        self.unchecked += o.unchecked;
        self.reserve += o.reserve;
    }

    fn sub(&mut self, o: Balance) {
        self.available -= o.available;
        self.unchecked -= o.unchecked;
        self.reserve -= o.reserve;
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Payin,
    Payout,
    TopUp,
    Withdraw,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Refund {
    pub refund_no: String,
    pub amount: Decimal,
    /// V1 refund `state`: 1 submitted, 2 processing, 3 success, 4 failed.
    pub state: i64,
    pub created: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Order {
    pub trade_no: String,
    pub mer_no: u64,
    pub mer_order_no: String,
    pub kind: Kind,
    /// `paymentType` of payins, `CARD` or `CLABE` for payouts, `CARD` for card operations.
    pub method: String,
    pub currency: String,
    pub amount: Decimal,
    pub state: i64,
    pub created: DateTime<Utc>,
    pub updated: DateTime<Utc>,
    #[serde(default)]
    pub notify_url: String,
    pub fee: Decimal,
    pub fixed_fee: Decimal,
    pub reserve: Decimal,
    pub reserve_released: bool,
    pub settled: bool,
    #[serde(default)]
    pub refunds: Vec<Refund>,
    #[serde(default)]
    pub chargeback: Option<Decimal>,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub refusal_reason: String,
    /// The card of a top-up or withdraw.
    #[serde(default)]
    pub card: String,
    /// Masked account of a payout (first 6, last 4 of a card; CLABE bank and last 4).
    #[serde(default)]
    pub account: String,
    #[serde(default)]
    pub pay_url: String,
    /// Amount ends in `.44`: the sandbox never completes it by itself.
    #[serde(default)]
    pub hold: bool,
}

impl Order {
    /// A pending order with no fees, refunds or settlement yet.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        trade_no: String,
        mer_no: u64,
        mer_order_no: String,
        kind: Kind,
        method: &str,
        currency: &str,
        amount: Decimal,
        created: DateTime<Utc>,
    ) -> Self {
        Self {
            trade_no,
            mer_no,
            mer_order_no,
            kind,
            method: method.to_string(),
            currency: currency.to_string(),
            amount,
            state: st::PENDING,
            created,
            updated: created,
            notify_url: String::new(),
            fee: Decimal::ZERO,
            fixed_fee: Decimal::ZERO,
            reserve: Decimal::ZERO,
            reserve_released: false,
            settled: false,
            refunds: Vec::new(),
            chargeback: None,
            message: String::new(),
            refusal_reason: String::new(),
            card: String::new(),
            account: String::new(),
            pay_url: String::new(),
            hold: false,
        }
    }

    pub fn is_paid(&self) -> bool {
        matches!(
            self.state,
            st::SUCCESS | st::REFUNDED | st::PARTLY_REFUNDED | st::CHARGED_BACK
        )
    }

    pub fn is_open(&self) -> bool {
        matches!(self.state, st::CREATED | st::PENDING)
    }

    pub fn refunded(&self) -> Decimal {
        self.refunds
            .iter()
            .filter(|r| r.state == 3)
            .map(|r| r.amount)
            .sum()
    }

    /// What the merchant receives from a paid payin before refunds and chargebacks.
    pub fn net(&self) -> Decimal {
        self.amount - self.fee - self.fixed_fee - self.reserve
    }

    /// This order's contribution to its merchant's balance in its currency.
    pub fn effect(&self) -> Balance {
        let mut b = Balance::default();
        match self.kind {
            Kind::Payin if self.is_paid() => {
                let bucket = if self.settled {
                    &mut b.available
                } else {
                    &mut b.unchecked
                };
                *bucket += self.net() - self.refunded();
                if self.reserve_released {
                    b.available += self.reserve;
                } else {
                    b.reserve += self.reserve;
                }
                b.available -= self.chargeback.unwrap_or_default();
            }
            Kind::Payout if self.is_open() || self.state == st::SUCCESS => {
                b.available -= self.amount + self.fee;
            }
            Kind::TopUp if self.state == st::SUCCESS => b.available -= self.amount,
            Kind::Withdraw if self.state == st::SUCCESS => b.available += self.amount - self.fee,
            _ => {}
        }
        b
    }

    /// This order's contribution to its card's balance.
    pub fn card_effect(&self) -> Decimal {
        match self.kind {
            Kind::TopUp if self.state == st::SUCCESS => self.amount,
            Kind::Withdraw if self.state == st::SUCCESS => -self.amount,
            _ => Decimal::ZERO,
        }
    }

    /// `payCode`: 0 success, 1 failed, 2 pending.
    pub fn pay_code(&self) -> i64 {
        match self.state {
            st::CREATED | st::PENDING => 2,
            st::FAILED | st::CLOSED => 1,
            _ => 0,
        }
    }

    /// V2 query `status`. A chargeback is sent as `CHARGEBACK`, a value outside the
    /// project's dictionary, so clients show unknown values raw.
    pub fn status(&self) -> &'static str {
        match self.state {
            st::CREATED | st::PENDING => "PENDING",
            st::FAILED => "FAILED",
            st::CLOSED => "CLOSED",
            st::REFUNDED => "REFUNDED",
            st::CHARGED_BACK => "CHARGEBACK",
            _ => "SUCCESS",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Card {
    pub mer_no: u64,
    /// The card's application number: top-up and withdraw name the card by it.
    pub apply_order_no: String,
    pub sub_mer_no: String,
    pub holder: String,
    pub currency: String,
    /// Opening balance before any top-up or withdraw.
    pub opening: Decimal,
    pub balance: Decimal,
}

impl Card {
    /// The checks the simulation API makes before registering a card: a merchant
    /// number, an `applyOrderNo` the gateway's operations can name, an ISO 4217
    /// currency and an opening balance from 0 to [`MAX_MONEY`] in its minor units.
    pub fn check(&self) -> Result<(), String> {
        if self.mer_no == 0 {
            return Err("mer_no: must be a positive merchant number".into());
        }
        paydesk_gateway::validate::order_no("apply_order_no", &self.apply_order_no)
            .map_err(|e| e.to_string())?;
        let units = paydesk_gateway::Currency::parse(&self.currency)
            .map_err(|e| format!("currency: {e}"))?
            .minor_units();
        check_money("opening", self.opening, units)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewFile {
    pub file_type: String,
    pub file_name: String,
    pub suffix: String,
    pub size: usize,
    /// SHA-256 of the decoded bytes, hex.
    pub sha256: String,
    /// The file as received (standard base64), served decoded by the simulation API.
    #[serde(default)]
    pub content_base64: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Review {
    pub id: u64,
    pub mer_no: u64,
    pub trade_no: String,
    pub info: Vec<(String, String)>,
    pub files: Vec<ReviewFile>,
    /// `submitted`, `approved` or `rejected`.
    pub status: String,
    pub created: DateTime<Utc>,
}

/// The whole sandbox state. Orders are kept in one vector; indexes find them by
/// trade number, by merchant order number and by creation time per merchant.
#[derive(Debug, Default)]
pub struct State {
    pub merchants: BTreeMap<u64, Merchant>,
    pub balances: BTreeMap<(u64, String), Balance>,
    pub orders: Vec<Order>,
    by_trade: HashMap<String, usize>,
    by_mer_order: HashMap<(u64, String), usize>,
    /// Per merchant, (created millis, index) in ascending order.
    by_time: HashMap<u64, Vec<(i64, usize)>>,
    pub cards: BTreeMap<(u64, String), Card>,
    pub reviews: Vec<Review>,
    pub next_trade: u64,
}

impl State {
    /// Registers a merchant, or replaces one (its opening balances with it).
    pub fn add_merchant(&mut self, mut m: Merchant) {
        m.tokens = m.tokens.iter().map(|t| token_digest(t)).collect();
        if let Some(old) = self.merchants.get(&m.mer_no) {
            for (cur, amount) in &old.opening {
                self.balances
                    .entry((m.mer_no, cur.clone()))
                    .or_default()
                    .available -= *amount;
            }
        }
        for (cur, amount) in &m.opening {
            let b = self.balances.entry((m.mer_no, cur.clone())).or_default();
            b.available += *amount;
        }
        self.merchants.insert(m.mer_no, m);
    }

    /// Registers (or replaces) a card. Its balance is its opening balance moved by the
    /// top-ups and withdrawals already made on it (the `balance` given is ignored), so
    /// replacing a card keeps the ledger whole.
    pub fn put_card(&mut self, mut c: Card) {
        let key = (c.mer_no, c.apply_order_no.clone());
        c.balance = c.opening
            + self
                .orders
                .iter()
                .filter(|o| o.mer_no == c.mer_no && o.card == c.apply_order_no)
                .map(Order::card_effect)
                .sum::<Decimal>();
        self.cards.insert(key, c);
    }

    pub fn balance(&self, mer_no: u64, currency: &str) -> Balance {
        self.balances
            .get(&(mer_no, currency.to_string()))
            .copied()
            .unwrap_or_default()
    }

    pub fn new_trade_no(&mut self, at: DateTime<Utc>) -> String {
        self.next_trade += 1;
        format!("T{}{:08}", at.format("%Y%m%d"), self.next_trade)
    }

    pub fn order(&self, trade_no: &str) -> Option<&Order> {
        self.by_trade.get(trade_no).map(|&i| &self.orders[i])
    }

    pub fn index_of(&self, trade_no: &str) -> Option<usize> {
        self.by_trade.get(trade_no).copied()
    }

    pub fn by_mer_order(&self, mer_no: u64, mer_order_no: &str) -> Option<&Order> {
        self.by_mer_order
            .get(&(mer_no, mer_order_no.to_string()))
            .map(|&i| &self.orders[i])
    }

    /// Adds an order and applies its ledger effect. The caller has checked that the
    /// `merOrderNo` is new for the merchant.
    pub fn insert_order(&mut self, o: Order) -> usize {
        let idx = self.orders.len();
        self.apply(&o, Balance::default(), Decimal::ZERO);
        self.by_trade.insert(o.trade_no.clone(), idx);
        // A reused number (only when the sandbox accepts them) keeps its first order.
        self.by_mer_order
            .entry((o.mer_no, o.mer_order_no.clone()))
            .or_insert(idx);
        let times = self.by_time.entry(o.mer_no).or_default();
        let key = (o.created.timestamp_millis(), idx);
        // Orders mostly arrive in time order: appending is the common case.
        if times.last().is_none_or(|last| *last <= key) {
            times.push(key);
        } else {
            let pos = times.partition_point(|k| *k < key);
            times.insert(pos, key);
        }
        self.orders.push(o);
        idx
    }

    /// Changes an order through `f` and moves balances by the change in its effect.
    pub fn update_order<R>(&mut self, idx: usize, f: impl FnOnce(&mut Order) -> R) -> R {
        let before = self.orders[idx].effect();
        let card_before = self.orders[idx].card_effect();
        let r = f(&mut self.orders[idx]);
        let o = self.orders[idx].clone();
        self.apply(&o, before, card_before);
        r
    }

    fn apply(&mut self, o: &Order, before: Balance, card_before: Decimal) {
        let b = self
            .balances
            .entry((o.mer_no, o.currency.clone()))
            .or_default();
        b.sub(before);
        b.add(o.effect());
        let card_delta = o.card_effect() - card_before;
        if !card_delta.is_zero()
            && let Some(card) = self.cards.get_mut(&(o.mer_no, o.card.clone()))
        {
            card.balance += card_delta;
        }
    }

    /// Orders of a merchant created within `[from, to]` (millis), in creation order.
    pub fn window(&self, mer_no: u64, from: i64, to: i64) -> &[(i64, usize)] {
        let Some(times) = self.by_time.get(&mer_no) else {
            return &[];
        };
        let start = times.partition_point(|(t, _)| *t < from);
        let end = times.partition_point(|(t, _)| *t <= to);
        &times[start..end.max(start)]
    }

    /// Recomputes every balance from the opening balances and the orders, and compares.
    pub fn check_ledger(&self) -> Result<(), String> {
        let mut want: BTreeMap<(u64, String), Balance> = BTreeMap::new();
        for m in self.merchants.values() {
            for (cur, amount) in &m.opening {
                want.entry((m.mer_no, cur.clone())).or_default().available += *amount;
            }
        }
        let mut cards: BTreeMap<(u64, String), Decimal> = self
            .cards
            .iter()
            .map(|(k, c)| (k.clone(), c.opening))
            .collect();
        for o in &self.orders {
            want.entry((o.mer_no, o.currency.clone()))
                .or_default()
                .add(o.effect());
            if let Some(c) = cards.get_mut(&(o.mer_no, o.card.clone())) {
                *c += o.card_effect();
            }
        }
        for (k, b) in &want {
            let have = self.balances.get(k).copied().unwrap_or_default();
            if have != *b {
                return Err(format!("balance {k:?}: have {have:?}, orders imply {b:?}"));
            }
        }
        for (k, c) in &self.cards {
            if cards.get(k) != Some(&c.balance) {
                return Err(format!(
                    "card {k:?}: have {}, orders imply {:?}",
                    c.balance,
                    cards.get(k)
                ));
            }
        }
        Ok(())
    }

    /// Rebuilds the indexes after loading orders from storage.
    pub fn reindex(&mut self) {
        self.by_trade.clear();
        self.by_mer_order.clear();
        self.by_time.clear();
        for (idx, o) in self.orders.iter().enumerate() {
            self.by_trade.insert(o.trade_no.clone(), idx);
            self.by_mer_order
                .entry((o.mer_no, o.mer_order_no.clone()))
                .or_insert(idx);
            self.by_time
                .entry(o.mer_no)
                .or_default()
                .push((o.created.timestamp_millis(), idx));
        }
        for v in self.by_time.values_mut() {
            v.sort_unstable();
        }
    }

    /// Recomputes balances and card balances from the orders (after loading).
    pub fn rebuild_balances(&mut self) {
        self.balances.clear();
        for m in self.merchants.values() {
            for (cur, amount) in &m.opening {
                self.balances
                    .entry((m.mer_no, cur.clone()))
                    .or_default()
                    .available += *amount;
            }
        }
        for c in self.cards.values_mut() {
            c.balance = c.opening;
        }
        for o in &self.orders {
            self.balances
                .entry((o.mer_no, o.currency.clone()))
                .or_default()
                .add(o.effect());
            if let Some(c) = self.cards.get_mut(&(o.mer_no, o.card.clone())) {
                c.balance += o.card_effect();
            }
        }
    }
}
