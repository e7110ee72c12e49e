//! An entity's version: the number of a stored command row (1, 2, ...), and in a
//! command the version it goes on top of, where two values have a meaning of their own:
//! [`Version::FIRST`] (0, create) and [`Version::LATEST`] (-1, whatever is newest). On
//! the wire and in the tables it is the seed's plain number.

use std::fmt;

use serde::{Deserialize, Serialize};

/// An entity's version (see the module). Compares with plain numbers
/// (`row.version == 3`), so tests and logs read as the seed's numbers do.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Version(i64);

impl Version {
    /// The version a command that creates an entity goes on top of.
    pub const FIRST: Version = Version(0);
    /// "On top of the latest version", whatever it is; also what a sort key without a
    /// version reports.
    pub const LATEST: Version = Version(-1);

    pub const fn new(number: i64) -> Version {
        Version(number)
    }

    /// The seed's number.
    pub const fn get(self) -> i64 {
        self.0
    }

    /// The version written on top of this one.
    pub const fn next(self) -> Version {
        Version(self.0 + 1)
    }

    /// The version this one was written on top of.
    pub const fn previous(self) -> Version {
        Version(self.0 - 1)
    }

    pub const fn is_latest(self) -> bool {
        self.0 == Version::LATEST.0
    }

    /// Whether it names a stored version (1 or more), not [`Version::FIRST`] or
    /// [`Version::LATEST`].
    pub const fn is_stored(self) -> bool {
        self.0 > 0
    }
}

impl From<i64> for Version {
    fn from(number: i64) -> Version {
        Version(number)
    }
}

impl From<Version> for i64 {
    fn from(version: Version) -> i64 {
        version.0
    }
}

impl PartialEq<i64> for Version {
    fn eq(&self, other: &i64) -> bool {
        self.0 == *other
    }
}

impl PartialEq<Version> for i64 {
    fn eq(&self, other: &Version) -> bool {
        *self == other.0
    }
}

impl PartialOrd<i64> for Version {
    fn partial_cmp(&self, other: &i64) -> Option<std::cmp::Ordering> {
        self.0.partial_cmp(other)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::str::FromStr for Version {
    type Err = std::num::ParseIntError;

    fn from_str(text: &str) -> Result<Version, Self::Err> {
        text.parse().map(Version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_as_the_seeds_number() {
        assert_eq!((Version::FIRST.get(), Version::LATEST.get()), (0, -1));
        assert_eq!(Version::new(3), 3);
        assert!(Version::new(3) > 2 && Version::new(3) > Version::FIRST);
        assert_eq!(Version::FIRST.next(), 1);
        assert!(Version::LATEST.is_latest() && !Version::FIRST.is_stored());
        assert_eq!(serde_json::to_string(&Version::new(7)).expect("json"), "7");
        assert_eq!("12".parse::<Version>().expect("parse").to_string(), "12");
    }
}
