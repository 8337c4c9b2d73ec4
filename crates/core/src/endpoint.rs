//! Where an opened desk's gateway is. The engine never starts or links a gateway of its
//! own: the layer above it (`paydesk-session`) decides whether a profile talks to the
//! built-in sandbox, starts it, and hands the desk its address and, through
//! [`SandboxControl`], the few records such a gateway keeps that the interface does not
//! show (card balances, notification deliveries).

use std::sync::Arc;

use rust_decimal::Decimal;

/// A card as the gateway that holds it knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardBalance {
    /// The card's application number (`applyOrderNo`).
    pub card: String,
    pub currency: String,
    pub holder: String,
    pub balance: Decimal,
}

/// The gateway's record of one notification it sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The `sign` of the body as sent: what ties it to a notification the desk stored.
    pub sign: Option<String>,
    pub attempts: u32,
    pub delivered: bool,
}

/// What a desk may read of a gateway its caller runs for it (the built-in sandbox).
pub trait SandboxControl: Send + Sync + std::fmt::Debug {
    /// The merchant's cards with their balances (the interface has no card query).
    fn cards(&self, mer_no: u64) -> Vec<CardBalance>;
    /// Every notification sent so far, with its delivery.
    fn deliveries(&self) -> Vec<Delivery>;
}

/// Where [`crate::Desk::open`] finds the profile's gateway.
#[derive(Debug, Clone)]
pub enum Endpoint {
    /// The profile's own `baseUrl` (a real gateway, or one served apart, such as
    /// `paydesk sandbox`).
    Profile,
    /// A gateway the caller runs for this desk on `base_url` (the built-in sandbox).
    Local {
        base_url: url::Url,
        control: Arc<dyn SandboxControl>,
    },
}
