//! The one instant identity material is generated at, and how it is written in messages.

use super::error::IdentityError;
use std::time::{SystemTime, UNIX_EPOCH};
use time::OffsetDateTime;

/// The time to generate from, converted only when something needs it.
#[derive(Clone, Copy)]
pub(super) struct Clock(pub(super) SystemTime);

impl Clock {
    pub(super) fn unix_seconds(self) -> Result<i64, IdentityError> {
        let since =
            self.0
                .duration_since(UNIX_EPOCH)
                .map_err(|_| IdentityError::TimeOutOfRange {
                    detail: "before 1970".to_owned(),
                })?;
        i64::try_from(since.as_secs()).map_err(|_| IdentityError::TimeOutOfRange {
            detail: format!("{} seconds after 1970", since.as_secs()),
        })
    }

    pub(super) fn datetime(self) -> Result<OffsetDateTime, IdentityError> {
        let seconds = self.unix_seconds()?;
        OffsetDateTime::from_unix_timestamp(seconds).map_err(|_| IdentityError::TimeOutOfRange {
            detail: format!("{seconds} seconds after 1970"),
        })
    }
}

/// `2030-08-26T07:13:47Z`.
pub(super) fn rfc3339(at: OffsetDateTime) -> String {
    let at = at.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_is_utc_with_seconds() {
        let at = OffsetDateTime::from_unix_timestamp(1_913_958_827).expect("in range");
        assert_eq!(rfc3339(at), "2030-08-26T07:13:47Z");
    }
}
