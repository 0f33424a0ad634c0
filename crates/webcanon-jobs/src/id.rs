//! [`JobId`]: a job's name, random so that one client cannot guess
//! another's.

use std::fmt;
use std::str::FromStr;

/// The bytes of randomness in an id (128 bits).
const ID_BYTES: usize = 16;

/// A job's id: 32 lowercase hexadecimal digits, drawn from the operating
/// system's random source. Checked once when parsed, so a path built from
/// it can never leave the jobs folder.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(String);

impl JobId {
    /// A fresh random id.
    pub(crate) fn random() -> Result<JobId, getrandom::Error> {
        let mut bytes = [0u8; ID_BYTES];
        getrandom::fill(&mut bytes)?;
        Ok(JobId(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    /// The id as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A string that is not a job id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a job id (32 lowercase hexadecimal digits)")]
pub struct InvalidJobId(String);

impl FromStr for JobId {
    type Err = InvalidJobId;

    fn from_str(input: &str) -> Result<JobId, InvalidJobId> {
        let valid = input.len() == ID_BYTES * 2 && input.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if valid { Ok(JobId(input.to_string())) } else { Err(InvalidJobId(input.chars().take(80).collect())) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_random_hex_and_only_hex_parses() {
        let (a, b) = (JobId::random().unwrap(), JobId::random().unwrap());
        assert_ne!(a, b);
        assert_eq!(a.as_str().parse::<JobId>(), Ok(a.clone()));
        for bad in ["", "../../etc/passwd", "0123456789ABCDEF0123456789abcdef", "0123456789abcdef0123456789abcde"] {
            assert!(bad.parse::<JobId>().is_err(), "{bad}");
        }
    }
}
