//! The PGN `TimeControl` tag (standard section 9.6.1), for the two forms a server of
//! Marseillais games writes: incremental `base+increment` (seconds, `300+3`), and the period
//! form `moves/seconds`, of which a correspondence game's days per turn is the one-turn period
//! (`1/259200`: one turn in 259,200 s, three days). The standard has no days-per-turn form;
//! lichess writes `-` ("no time control") for correspondence, which loses the days. A period
//! of one turn keeps them and stays a valid tag that any PGN reader accepts.
//!
//! Read: the forms above, and the standard's sudden death `secs` (read as `secs+0`). Anything
//! else (`?`, `-`, sandclock `*60`, several periods `40/9000:300`) is no typed time control.

use std::fmt;

/// A `TimeControl` tag this module can write and read back.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TimeControlTag {
    /// `base+increment`, both in seconds.
    Incremental { base_secs: u32, increment_secs: u32 },
    /// `moves/secs`: `moves` moves (turns, in Marseillais) in `secs` seconds.
    Period { moves: u32, secs: u64 },
}

impl TimeControlTag {
    /// The tag's value read, or `None` for any other form (see the module comment).
    pub fn parse(value: &str) -> Option<TimeControlTag> {
        let value = value.trim();
        let number = |text: &str| -> Option<u64> {
            (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
                .then(|| text.parse().ok())
                .flatten()
        };
        if let Some((moves, secs)) = value.split_once('/') {
            return Some(TimeControlTag::Period {
                moves: u32::try_from(number(moves)?).ok()?,
                secs: number(secs)?,
            });
        }
        let (base, increment) = value.split_once('+').unwrap_or((value, "0"));
        Some(TimeControlTag::Incremental {
            base_secs: u32::try_from(number(base)?).ok()?,
            increment_secs: u32::try_from(number(increment)?).ok()?,
        })
    }
}

impl fmt::Display for TimeControlTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControlTag::Incremental {
                base_secs,
                increment_secs,
            } => write!(f, "{base_secs}+{increment_secs}"),
            TimeControlTag::Period { moves, secs } => write!(f, "{moves}/{secs}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_are_written_and_read_back() {
        for tag in [
            TimeControlTag::Incremental {
                base_secs: 300,
                increment_secs: 3,
            },
            TimeControlTag::Period {
                moves: 1,
                secs: 259_200,
            },
        ] {
            assert_eq!(TimeControlTag::parse(&tag.to_string()), Some(tag));
        }
        assert_eq!(
            TimeControlTag::parse("1/259200"),
            Some(TimeControlTag::Period {
                moves: 1,
                secs: 259_200
            })
        );
    }

    #[test]
    fn sudden_death_reads_as_no_increment_and_other_forms_as_none() {
        assert_eq!(
            TimeControlTag::parse("600"),
            Some(TimeControlTag::Incremental {
                base_secs: 600,
                increment_secs: 0
            })
        );
        for other in [
            "?",
            "-",
            "*60",
            "40/9000:300",
            "",
            "+3",
            "300+",
            "1/",
            "-1/5",
            "99999999999+1",
        ] {
            assert_eq!(TimeControlTag::parse(other), None, "{other:?}");
        }
    }
}
