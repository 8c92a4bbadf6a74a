//! `SOURCE_DATE_EPOCH`, the one way a time enters a render or a package: generated certificates
//! are dated by it, given ones checked against it, archives stamped with it.

use std::ffi::OsStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The environment variable that pins "now" (seconds since 1970-01-01T00:00:00Z).
pub const SOURCE_DATE_EPOCH: &str = "SOURCE_DATE_EPOCH";

/// `SOURCE_DATE_EPOCH` is set but is not whole seconds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "SOURCE_DATE_EPOCH is {value:?}: expected whole seconds since 1970-01-01T00:00:00Z, \
     e.g. 1700000000"
)]
pub struct EpochError {
    /// The variable's value.
    pub value: String,
}

/// `SOURCE_DATE_EPOCH` as an instant: `None` when unset, an error when set but not whole
/// seconds. The one reader of that variable.
pub fn source_date_epoch_from_env() -> Result<Option<SystemTime>, EpochError> {
    source_date_epoch(std::env::var_os(SOURCE_DATE_EPOCH).as_deref())
}

/// Parses a `SOURCE_DATE_EPOCH` value: `None` when unset, an error when set but not seconds.
fn source_date_epoch(raw: Option<&OsStr>) -> Result<Option<SystemTime>, EpochError> {
    let Some(raw) = raw else {
        return Ok(None);
    };
    let invalid = || EpochError {
        value: raw.to_string_lossy().into_owned(),
    };
    let text = raw.to_str().ok_or_else(invalid)?;
    // `u64::from_str` takes a leading `+`; the variable's specification does not.
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    let seconds: u64 = text.parse().map_err(|_| invalid())?;
    UNIX_EPOCH
        .checked_add(Duration::from_secs(seconds))
        .map(Some)
        .ok_or_else(invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_date_epoch_unset_means_the_clock() {
        assert!(source_date_epoch(None).expect("unset is fine").is_none());
    }

    #[test]
    fn source_date_epoch_gives_that_many_seconds_after_1970() {
        let pinned = source_date_epoch(Some(OsStr::new("1700000000")))
            .expect("valid")
            .expect("set");
        assert_eq!(pinned, UNIX_EPOCH + Duration::from_secs(1_700_000_000));
    }

    #[test]
    fn source_date_epoch_that_is_not_seconds_is_an_error_naming_the_variable() {
        for bad in [
            "",
            "17e8",
            "-5",
            "+5",
            " 1700000000",
            "1700000000.5",
            "soon",
        ] {
            let err = source_date_epoch(Some(OsStr::new(bad)))
                .err()
                .unwrap_or_else(|| panic!("{bad:?} should be rejected"));
            let text = err.to_string();
            assert!(text.starts_with("SOURCE_DATE_EPOCH is "), "{text}");
            assert!(text.contains(&format!("{bad:?}")), "{text}");
        }
    }
}
