//! Where notifications about orders made at this desk go.

use crate::desk::lock;
use crate::error::{CoreError, CoreResult};
use crate::profile::NotifyTarget;

impl<'d> crate::desk::Records<'d> {
    /// Where notifications about orders made here go.
    pub fn notify_target(&self) -> NotifyTarget {
        if self.desk.profile.notifies_desk() {
            return NotifyTarget::Desk {
                url: lock(&self.desk.notify_url).clone(),
            };
        }
        if self.desk.profile.notify_url.is_empty() {
            NotifyTarget::Missing
        } else {
            NotifyTarget::Profile {
                url: self.desk.profile.notify_url.clone(),
            }
        }
    }

    /// The `notifyUrl` to put on payins and payouts made here.
    pub fn notify_url(&self) -> CoreResult<String> {
        match self.notify_target() {
            NotifyTarget::Profile { url } | NotifyTarget::Desk { url: Some(url) } => Ok(url),
            // The built-in sandbox from the CLI: no receiver runs; the sandbox's own
            // origin stands in (its notifications are kept in its state either way).
            NotifyTarget::Desk { url: None } if self.desk.profile.is_sandbox() => Ok(format!(
                "{}/notify",
                self.desk.profile.origin.trim_end_matches('/')
            )),
            // No receiver runs here (the CLI): the profile's own URL, if it has one.
            NotifyTarget::Desk { url: None } if !self.desk.profile.notify_url.is_empty() => {
                Ok(self.desk.profile.notify_url.clone())
            }
            NotifyTarget::Desk { url: None } => Err(CoreError::keyed(
                "notifyUrl",
                "this profile receives notifications at the desk, whose receiver runs only in \
                 the app; set a notifyUrl on the profile to create orders from here",
                "notifyAtDeskCli",
                &[],
            )),
            NotifyTarget::Missing => Err(CoreError::keyed(
                "notifyUrl",
                crate::profile::NOTIFY_URL_RULE,
                "notifyUrlRequired",
                &[],
            )),
        }
    }

    /// The desk's own notification endpoint runs at `url` (set by the layer that runs it).
    pub fn set_notify_url(&self, url: &str) {
        *lock(&self.desk.notify_url) = Some(url.to_string());
    }
}
