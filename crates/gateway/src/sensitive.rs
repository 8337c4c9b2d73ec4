//! `Sensitive<T>`: a value that must never be printed, logged or serialized (bearer
//! tokens, key bytes). `Debug` prints `<redacted>`; there is no `Display` and no
//! `Serialize`, so it cannot leak through logs or IPC by accident.

use std::fmt;

#[derive(Clone, PartialEq, Eq)]
pub struct Sensitive<T>(T);

impl<T> Sensitive<T> {
    pub fn new(value: T) -> Self {
        Self(value)
    }

    /// The value itself; call sites are few and easy to audit.
    pub fn expose(&self) -> &T {
        &self.0
    }
}

impl<T> fmt::Debug for Sensitive<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

impl<T> From<T> for Sensitive<T> {
    fn from(value: T) -> Self {
        Self(value)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn debug_is_redacted() {
        let s = super::Sensitive::new("tok_live_123".to_string());
        assert_eq!(format!("{s:?}"), "<redacted>");
        assert_eq!(format!("{:?}", Some(&s)), "Some(<redacted>)");
    }
}
