//! `meshchart certs`: the certificate lifecycle of a `--certs-dir` folder, as flags; the work is
//! [`meshchart::identity::lifecycle`]'s.

use camino::Utf8PathBuf;
use clap::{Args, Subcommand, ValueEnum};
use meshchart::identity::lifecycle::{
    self, CreateRequest, RenewRequest, RotatePhase, RotateRequest,
};
use meshchart::Error;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The instant a command works at.
#[derive(Args, Clone, Debug, Default, PartialEq)]
pub struct NowFlag {
    /// The instant to work at: RFC 3339 (`2026-12-02T06:00:00Z`) or seconds since 1970
    /// (default: SOURCE_DATE_EPOCH, else the clock).
    #[arg(long, value_name = "TIME", value_parser = parse_now)]
    pub now: Option<SystemTime>,
}

impl NowFlag {
    fn instant(&self) -> Result<SystemTime, Error> {
        match self.now {
            Some(now) => Ok(now),
            None => Ok(meshchart::identity::now_from_env()?),
        }
    }
}

/// A root, issuer and webhook lifecycle for a `render --certs-dir` folder (as `step
/// certificate` and Linkerd's docs do it by hand).
#[derive(Subcommand, Debug)]
pub enum CertsCommand {
    /// Make a trust root (ca.crt, ca.key) and an issuer it signs (issuer.crt, issuer.key) in
    /// DIR, which is made if missing (its parent must exist).
    Create {
        /// The folder.
        #[arg(value_name = "DIR")]
        dir: Utf8PathBuf,
        /// The trust domain the issuer is named for (identity.linkerd.DOMAIN), as `linkerd
        /// install --identity-trust-domain`. The root is named `root.linkerd` whatever the
        /// domain: one root may serve clusters of several trust domains.
        #[arg(long, value_name = "DOMAIN", default_value = "cluster.local")]
        identity_trust_domain: String,
        /// How long the root is valid (`87600h`, `3650d`).
        #[arg(long, value_name = "DURATION", default_value = "87600h", value_parser = parse_duration)]
        root_validity: Duration,
        /// How long the issuer is valid (`8760h`, `365d`).
        #[arg(long, value_name = "DURATION", default_value = "8760h", value_parser = parse_duration)]
        issuer_validity: Duration,
        #[command(flatten)]
        now: NowFlag,
    },
    /// Renew the issuer from the kept root: same root, new issuer key and certificate (the old
    /// issuer is kept under retired/ until it expires, for a rollback); a folder holding a root
    /// and no issuer gets its first one. With --webhooks, renew the webhook serving pairs
    /// instead.
    Renew {
        /// The folder.
        #[arg(value_name = "DIR")]
        dir: Utf8PathBuf,
        /// The root's key, when DIR keeps no ca.key (the root kept offline); read, never copied.
        #[arg(long, value_name = "PATH")]
        ca_key: Option<Utf8PathBuf>,
        /// How long the new certificates are valid (`8760h`, `365d`).
        #[arg(long, value_name = "DURATION", default_value = "8760h", value_parser = parse_duration)]
        validity: Duration,
        /// Renew the webhook serving pairs (proxy-injector, sp-validator, policy-validator)
        /// for the names they serve, instead of the issuer.
        #[arg(long, conflicts_with = "ca_key")]
        webhooks: bool,
        /// When DIR holds a root and no issuer yet: the trust domain the new issuer is named
        /// for (identity.linkerd.DOMAIN; default cluster.local).
        #[arg(long, value_name = "DOMAIN", conflicts_with = "webhooks")]
        identity_trust_domain: Option<String>,
        #[command(flatten)]
        now: NowFlag,
    },
    /// Rotate the trust root in Linkerd's three phases, each rolled out before the next:
    /// `bundle` (a new root; ca.crt holds new + old), `issuer` (a new issuer from the new
    /// root), `finish` (ca.crt holds the new root only).
    RotateRoot {
        /// The folder.
        #[arg(value_name = "DIR")]
        dir: Utf8PathBuf,
        /// The phase to run.
        #[arg(long, value_enum)]
        phase: Phase,
        /// For `--phase issuer`: the new root's key, when DIR keeps no ca-next.key.
        #[arg(long, value_name = "PATH")]
        ca_key: Option<Utf8PathBuf>,
        /// How long the new root (`bundle`) or issuer (`issuer`) is valid; default 87600h for
        /// a root, 8760h for an issuer.
        #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
        validity: Option<Duration>,
        #[command(flatten)]
        now: NowFlag,
    },
    /// Show what DIR holds: each certificate's subject, SHA-256 fingerprint, not-after and days
    /// left, which root signed the issuer, where a rotation stands, and retired material.
    #[command(alias = "status")]
    Inspect {
        /// The folder.
        #[arg(value_name = "DIR")]
        dir: Utf8PathBuf,
        #[command(flatten)]
        now: NowFlag,
        #[command(flatten)]
        format: meshchart::flags::FormatFlag,
    },
}

/// `--phase`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Phase {
    /// A new root; ca.crt bundles the new and the old root.
    Bundle,
    /// A new issuer signed by the new root.
    Issuer,
    /// Drop the old root from ca.crt.
    Finish,
}

/// Runs a `certs` command: notes on stderr, `inspect`'s report on stdout.
pub fn run(command: CertsCommand) -> Result<(), Error> {
    let notes = match command {
        CertsCommand::Create {
            dir,
            identity_trust_domain,
            root_validity,
            issuer_validity,
            now,
        } => lifecycle::create(&CreateRequest {
            dir,
            trust_domain: identity_trust_domain,
            root_validity,
            issuer_validity,
            now: now.instant()?,
        })?,
        CertsCommand::Renew {
            dir,
            ca_key,
            validity,
            webhooks,
            identity_trust_domain,
            now,
        } => lifecycle::renew(&RenewRequest {
            dir,
            ca_key,
            validity,
            webhooks,
            trust_domain: identity_trust_domain,
            now: now.instant()?,
        })?,
        CertsCommand::RotateRoot {
            dir,
            phase,
            ca_key,
            validity,
            now,
        } => {
            let (phase, default_validity) = match phase {
                Phase::Bundle => (RotatePhase::Bundle, 87_600),
                Phase::Issuer => (RotatePhase::Issuer, 8_760),
                Phase::Finish => (RotatePhase::Finish, 8_760),
            };
            lifecycle::rotate_root(&RotateRequest {
                dir,
                phase,
                ca_key,
                validity: validity.unwrap_or(Duration::from_secs(default_validity * 3600)),
                now: now.instant()?,
            })?
        }
        CertsCommand::Inspect { dir, now, format } => {
            let inspection = lifecycle::inspect_folder(&dir, now.instant()?)?;
            super::write_stdout(&match format.json() {
                true => super::json_text(&inspection.to_json()),
                false => inspection.to_text(),
            })?;
            Vec::new()
        }
    };
    super::print_notes(&notes);
    Ok(())
}

/// `8760h`, `365d`, `90m`, `3600s`: a whole number and a unit.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let unit_at = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("{text:?} has no unit: write e.g. 8760h or 365d"))?;
    let (number, unit) = text.split_at(unit_at);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("{text:?} does not start with a whole number"))?;
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        _ => return Err(format!("{text:?}: the unit must be s, m, h or d")),
    };
    if number == 0 {
        return Err(format!(
            "{text:?}: a certificate must be valid for some time"
        ));
    }
    number
        .checked_mul(seconds)
        .map(Duration::from_secs)
        .ok_or_else(|| format!("{text:?} is too long"))
}

/// `--now`: RFC 3339 in UTC (`2026-12-02T06:00:00Z`) or whole seconds since 1970.
fn parse_now(text: &str) -> Result<SystemTime, String> {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        let seconds: u64 = text.parse().map_err(|_| format!("{text:?} is too large"))?;
        return Ok(UNIX_EPOCH + Duration::from_secs(seconds));
    }
    let bad =
        || format!("{text:?} is neither RFC 3339 (2026-12-02T06:00:00Z) nor seconds since 1970");
    let b = text.as_bytes();
    let shape_ok = b.len() == 20
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'Z',
            _ => c.is_ascii_digit(),
        });
    if !shape_ok {
        return Err(bad());
    }
    let field = |from: usize, to: usize| text[from..to].parse::<u16>().map_err(|_| bad());
    let month =
        time::Month::try_from(u8::try_from(field(5, 7)?).map_err(|_| bad())?).map_err(|_| bad())?;
    let small = |v: u16| u8::try_from(v).map_err(|_| bad());
    let date =
        time::Date::from_calendar_date(i32::from(field(0, 4)?), month, small(field(8, 10)?)?)
            .map_err(|_| bad())?;
    let clock = time::Time::from_hms(
        small(field(11, 13)?)?,
        small(field(14, 16)?)?,
        small(field(17, 19)?)?,
    )
    .map_err(|_| bad())?;
    let at = time::PrimitiveDateTime::new(date, clock).assume_utc();
    let seconds =
        u64::try_from(at.unix_timestamp()).map_err(|_| format!("{text:?} is before 1970"))?;
    Ok(UNIX_EPOCH + Duration::from_secs(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_a_whole_number_and_a_unit() {
        assert_eq!(
            parse_duration("8760h"),
            Ok(Duration::from_secs(8760 * 3600))
        );
        assert_eq!(
            parse_duration("365d"),
            Ok(Duration::from_secs(365 * 86_400))
        );
        assert_eq!(parse_duration("90m"), Ok(Duration::from_secs(5400)));
        for bad in ["", "h", "12", "1.5h", "12y", "0d", "-1d"] {
            assert!(parse_duration(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn now_is_rfc3339_or_seconds() {
        assert_eq!(
            parse_now("1700000000"),
            Ok(UNIX_EPOCH + Duration::from_secs(1_700_000_000))
        );
        assert_eq!(
            parse_now("2023-11-14T22:13:20Z"),
            Ok(UNIX_EPOCH + Duration::from_secs(1_700_000_000))
        );
        assert!(parse_now("yesterday").is_err());
    }
}
