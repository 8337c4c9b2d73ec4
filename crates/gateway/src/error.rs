//! The client's error taxonomy. Each variant tells the caller what it may do next;
//! for money that decides between "safe to retry" and "reconcile first".

use crate::validate::FieldError;

/// What the caller may do after an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextStep {
    /// Nothing reached the gateway: sending again (with the same `merOrderNo`) is safe.
    Retry,
    /// The request may have been acted on: look the order up (order list by
    /// `merOrderNos`) before sending anything again.
    Reconcile,
    /// The gateway decided: fix the input or give up; resending the same thing gets
    /// the same answer.
    Stop,
}

#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// The request was never sent: a field failed validation, the body could not be
    /// signed, the configuration is unusable, or the connection could not be opened.
    /// Safe to retry once the cause is fixed.
    #[error("not sent: {reason}")]
    NotSent { reason: String },

    /// A field of the request broke a rule; the request was not sent.
    #[error("not sent: {0}")]
    Invalid(FieldError),

    /// The request left this machine but no complete answer came back (timeout,
    /// connection reset, a 5xx from a proxy or the gateway). The gateway may have acted
    /// on it: reconcile by querying before any retry, never resend blindly.
    #[error("outcome unknown: {reason}")]
    OutcomeUnknown { reason: String },

    /// The gateway answered with a business failure `code` (not `00000`). Nothing was
    /// done; the same request will fail the same way.
    #[error("rejected by the gateway: {code} {message}")]
    Rejected { code: String, message: String },

    /// The gateway refused under an HTTP status that the interface documents for the
    /// operation (400 and 404 on the Vietnam bank payin) or that the profile's
    /// conventions add, with its JSON envelope: nothing was done. Any other status, or
    /// such a status with another body (a proxy's HTML page), is
    /// [`GatewayError::OutcomeUnknown`].
    #[error("HTTP {status}: {message}")]
    Http { status: u16, message: String },

    /// A complete answer arrived but could not be read (not JSON, wrong types, missing
    /// `data`, too large). For an operation that moves money this is as good as an
    /// unknown outcome: reconcile before any retry.
    #[error("unreadable response: {reason}")]
    BadResponse { reason: String },

    /// The answer's `sign` did not verify with the gateway's public key, or a signed
    /// answer came without one. Its data is not to be trusted or cached as verified.
    #[error("response signature invalid: {reason}")]
    SignatureInvalid { reason: String },
}

impl GatewayError {
    /// The error with every text from outside (the gateway's code and message, a
    /// decoder's quote of the answer) made safe to show: control and bidi characters
    /// escaped, long texts cut with a marker.
    pub fn shown_safely(self) -> Self {
        use crate::redact::terminal_safe as safe;
        const TEXT: usize = 500;
        match self {
            Self::OutcomeUnknown { reason } => Self::OutcomeUnknown {
                reason: safe(&reason, TEXT),
            },
            Self::Rejected { code, message } => Self::Rejected {
                code: safe(&code, 40),
                message: safe(&message, TEXT),
            },
            Self::Http { status, message } => Self::Http {
                status,
                message: safe(&message, TEXT),
            },
            Self::BadResponse { reason } => Self::BadResponse {
                reason: safe(&reason, TEXT),
            },
            Self::SignatureInvalid { reason } => Self::SignatureInvalid {
                reason: safe(&reason, TEXT),
            },
            other => other,
        }
    }

    pub fn not_sent(reason: impl Into<String>) -> Self {
        Self::NotSent {
            reason: reason.into(),
        }
    }

    pub fn next_step(&self) -> NextStep {
        match self {
            Self::NotSent { .. } | Self::Invalid(_) => NextStep::Retry,
            Self::OutcomeUnknown { .. }
            | Self::BadResponse { .. }
            | Self::SignatureInvalid { .. } => NextStep::Reconcile,
            // Made only for a documented refusal with the gateway's envelope (the client
            // reads every other status as an unknown outcome).
            Self::Http { .. } => NextStep::Stop,
            Self::Rejected { .. } => NextStep::Stop,
        }
    }

    /// True when the request may have taken effect at the gateway.
    pub fn may_have_taken_effect(&self) -> bool {
        self.next_step() == NextStep::Reconcile
    }
}

impl From<FieldError> for GatewayError {
    fn from(e: FieldError) -> Self {
        Self::Invalid(e)
    }
}
