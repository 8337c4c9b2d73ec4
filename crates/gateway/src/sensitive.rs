//! `Sensitive<T>`: a value that must never be printed, logged or serialized (bearer
//! tokens, key bytes). `Debug` prints `<redacted>`; there is no `Display` and no
//! `Serialize`, so it cannot leak through logs or IPC by accident; and its memory is
//! zeroized when it is dropped.

use std::fmt;

use zeroize::Zeroize;

#[derive(Clone, PartialEq, Eq)]
pub struct Sensitive<T: Zeroize>(T);

impl<T: Zeroize> Sensitive<T> {
    pub fn new(value: T) -> Self {
        Self(value)
    }

    /// The value itself; call sites are few and easy to audit.
    pub fn expose(&self) -> &T {
        &self.0
    }
}

impl<T: Zeroize> Drop for Sensitive<T> {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl<T: Zeroize> fmt::Debug for Sensitive<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

impl<T: Zeroize> From<T> for Sensitive<T> {
    fn from(value: T) -> Self {
        Self(value)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use zeroize::Zeroize;

    #[test]
    fn debug_is_redacted() {
        let s = super::Sensitive::new("tok_live_123".to_string());
        assert_eq!(format!("{s:?}"), "<redacted>");
        assert_eq!(format!("{:?}", Some(&s)), "Some(<redacted>)");
    }

    /// A secret that tells when its memory is wiped, and what it held then.
    struct Probe(Vec<u8>, Rc<Cell<Option<usize>>>);

    impl Zeroize for Probe {
        fn zeroize(&mut self) {
            self.0.zeroize();
            // After zeroize, a Vec is empty: report how many non-zero bytes remain.
            self.1.set(Some(self.0.iter().filter(|b| **b != 0).count()));
        }
    }

    #[test]
    fn dropping_a_secret_zeroizes_it() {
        let wiped = Rc::new(Cell::new(None));
        let s = super::Sensitive::new(Probe(b"secret bytes of a test key".to_vec(), wiped.clone()));
        assert_eq!(s.expose().0.len(), 26);
        assert_eq!(wiped.get(), None, "not wiped while in use");
        drop(s);
        assert_eq!(wiped.get(), Some(0), "wiped on drop");
    }
}
