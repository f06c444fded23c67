//! The chat rules that need no moderator (issue 32), over every chat line of the server, the
//! lobby's and the games' alike: the word list ([`super::words`]), then the flood rule
//! ([`super::repeat`]). A writer is its account when signed in, else its address (the
//! [`Holder`] keys of [`super::flood`]): silencing an address would silence everyone behind
//! it, and an account is who wrote.
//!
//! One [`ChatGuard`] per server (in [`crate::server::per_client::PerClient`]); on several nodes
//! each node judges the lines said on it.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::repeat::{FloodRule, Silenced, Writer, normalized};
use super::words::WordList;
use crate::server::domain::user::UserId;
use crate::server::web::ratelimit::{Client, Holder};

/// Writers remembered before the idle ones are swept out (a sweep costs one pass).
const SWEEP_AT: usize = 4096;

/// Why a line was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChatRefused {
    /// The line holds a word of the word list; it was not sent (nothing else follows).
    Word,
    /// The writer is silenced for `secs` more seconds (`why` it was, or [`Silenced::Still`]).
    Silenced { why: Silenced, secs: u64 },
}

impl ChatRefused {
    /// The sentence the writer is told.
    pub fn message(self) -> String {
        match self {
            ChatRefused::Word => {
                "your line holds a word this server does not allow; it was not sent".to_owned()
            }
            ChatRefused::Silenced { why, secs } => {
                let because = match why {
                    Silenced::Repeated => "you repeat yourself: ",
                    Silenced::TooMany => "too many lines at once: ",
                    Silenced::Still => "",
                };
                format!("{because}you are silenced for {secs} s; the line was not sent")
            }
        }
    }
}

pub struct ChatGuard {
    words: WordList,
    rule: FloodRule,
    writers: Mutex<HashMap<Holder<UserId>, Writer>>,
}

impl ChatGuard {
    pub fn new(words: WordList, rule: FloodRule) -> ChatGuard {
        ChatGuard {
            words,
            rule,
            writers: Mutex::new(HashMap::new()),
        }
    }

    /// Judges a line of the writer at `ip` (signed in as `account`) said at `now`: refused by
    /// the word list, or because the writer is or becomes silenced; else kept as said.
    pub fn check(
        &self,
        ip: IpAddr,
        account: Option<UserId>,
        text: &str,
        now: Instant,
    ) -> Result<(), ChatRefused> {
        if self.words.matches(text) {
            return Err(ChatRefused::Word);
        }
        if self.rule.is_off() {
            return Ok(());
        }
        let holder = match account {
            Some(user) => Holder::Account(user),
            None => Holder::Address(Client::from(ip)),
        };
        let line = normalized(text);
        let mut writers = self.writers.lock().unwrap_or_else(|e| e.into_inner());
        if writers.len() >= SWEEP_AT {
            writers.retain(|_, w| !w.idle(now, &self.rule));
        }
        let writer = writers.entry(holder).or_default();
        match writer.judge(&line, now, &self.rule) {
            Ok(()) => {
                writer.said(line, now, &self.rule);
                Ok(())
            }
            Err(why) => {
                if why != Silenced::Still {
                    writer.silence(now, &self.rule);
                }
                let left = writer.silenced(now).unwrap_or(Duration::ZERO);
                Err(ChatRefused::Silenced {
                    why,
                    secs: left.as_secs() + u64::from(left.subsec_nanos() > 0),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    fn ip(last: u8) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(127, 0, 0, last))
    }

    fn guard() -> ChatGuard {
        ChatGuard::new(WordList::parse("idiot"), FloodRule::default())
    }

    #[test]
    fn a_listed_word_is_refused_without_silencing() {
        let guard = guard();
        let now = Instant::now();
        assert_eq!(
            guard.check(ip(1), None, "you Idiot", now),
            Err(ChatRefused::Word)
        );
        assert_eq!(guard.check(ip(1), None, "sorry", now), Ok(()));
    }

    #[test]
    fn a_silenced_account_is_told_for_how_long_and_others_behind_its_address_are_not() {
        let guard = guard();
        let now = Instant::now();
        let alice = Some(UserId(1));
        guard.check(ip(1), alice, "buy", now).expect("first");
        let refused = guard.check(ip(1), alice, "BUY", now).unwrap_err();
        assert_eq!(
            refused,
            ChatRefused::Silenced {
                why: Silenced::Repeated,
                secs: 60
            }
        );
        assert!(refused.message().contains("60 s"), "{}", refused.message());
        let later = now + Duration::from_millis(30_500);
        assert_eq!(
            guard.check(ip(2), alice, "hi", later),
            Err(ChatRefused::Silenced {
                why: Silenced::Still,
                secs: 30
            }),
            "the account, from any address"
        );
        assert_eq!(guard.check(ip(1), Some(UserId(2)), "buy", now), Ok(()));
        assert_eq!(guard.check(ip(1), None, "buy", now), Ok(()));
    }

    #[test]
    fn with_the_rule_off_only_the_word_list_refuses() {
        let guard = ChatGuard::new(WordList::parse("idiot"), FloodRule::OFF);
        let now = Instant::now();
        for _ in 0..20 {
            assert_eq!(guard.check(ip(1), None, "same", now), Ok(()));
        }
        assert_eq!(
            guard.check(ip(1), None, "idiot", now),
            Err(ChatRefused::Word)
        );
    }

    #[test]
    fn anonymous_writers_are_their_address() {
        let guard = guard();
        let now = Instant::now();
        guard.check(ip(1), None, "spam spam", now).expect("first");
        assert!(guard.check(ip(1), None, "spam spam", now).is_err());
        assert_eq!(guard.check(ip(2), None, "spam spam", now), Ok(()));
    }
}
