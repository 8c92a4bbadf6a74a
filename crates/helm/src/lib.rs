//! A Helm-style chart renderer: everything `helm template` does offline, and nothing about
//! Linkerd.
//!
//! [`input`] is the one door every byte a user hands us comes through (see its rules), and
//! [`output`] the one door every file we write goes through (see its rules). [`chart`] reads
//! charts from folders, archives or files in memory; [`values`] merges values as Helm does and
//! checks them against a chart's schema; [`engine`] renders templates with Helm's functions;
//! [`manifest`] splits, checks, orders and frames what they render; [`package`] writes chart
//! archives. [`redact`] keeps private keys out of messages, [`epoch`] reads the one clock input
//! (`SOURCE_DATE_EPOCH`), [`limits`] holds the budgets a render runs on, [`parallel`] the
//! threads it runs on and [`process`] what a process that renders once leaves to its exit.

#![deny(missing_docs)]
// What is `pub` is the crate's surface: an item only the crate uses says `pub(crate)`.
#![warn(unreachable_pub)]

pub use meshchart_yaml as yaml;

pub mod chart;
pub mod digest;
pub mod engine;
pub mod epoch;
pub mod files;
pub mod gotpl;
pub mod input;
pub mod limits;
pub mod manifest;
pub mod output;
pub mod package;
pub mod parallel;
pub mod process;
pub mod redact;
pub mod values;
