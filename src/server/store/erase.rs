//! Erasing a deleted account's name from the JSON the store keeps of its games (issue 32):
//! one pure function every backend applies, in its deletion transaction, to the listing row
//! (`summary`) and the events of each game the account was seated in.

use crate::server::domain::user::{DELETED_LABEL, Username};

/// `text` with every `"name":"<name>"` replaced by `"name":"deleted"` ([`DELETED_LABEL`]), or
/// None when the name does not occur (nothing to rewrite).
///
/// Textual on purpose: stored events and summaries are serde_json's compact output, and a
/// username is `[A-Za-z0-9_-]` (never escaped), so the member reads exactly so. Rewriting the
/// bytes keeps every other byte of the event (its field order included) as it was, which a
/// decode-and-encode through `serde_json::Value` would not. A username never changes, so the
/// spelling in the account's games is the account's. The seat user of an event (`{"id",
/// "name", ...}`) and the summary's players and creator (`{"name", "rating"?}`) are the only
/// `name` members the game JSON has.
pub fn erase_name(text: &str, name: &Username) -> Option<String> {
    let member = format!("\"name\":\"{}\"", name.as_str());
    if !text.contains(&member) {
        return None;
    }
    Some(text.replace(&member, &format!("\"name\":\"{DELETED_LABEL}\"")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(text: &str) -> Username {
        Username::parse(text).unwrap()
    }

    #[test]
    fn a_deleted_players_name_becomes_the_label_in_an_event_and_a_summary() {
        let event = r#"{"k":"joined","at_ms":2,"color":"black","seat_hash":"b","user":{"id":8,"name":"bob_2"}}"#;
        assert_eq!(
            erase_name(event, &name("bob_2")).unwrap(),
            r#"{"k":"joined","at_ms":2,"color":"black","seat_hash":"b","user":{"id":8,"name":"deleted"}}"#
        );
        let summary = r#"{"players":{"black":{"name":"bob_2"},"white":{"name":"alice"}}}"#;
        assert_eq!(
            erase_name(summary, &name("bob_2")).unwrap(),
            r#"{"players":{"black":{"name":"deleted"},"white":{"name":"alice"}}}"#
        );
    }

    #[test]
    fn another_players_name_that_starts_the_same_is_left_alone() {
        let summary = r#"{"players":{"black":{"name":"bob_2"},"white":{"name":"bob"}}}"#;
        assert_eq!(
            erase_name(summary, &name("bob")).unwrap(),
            r#"{"players":{"black":{"name":"bob_2"},"white":{"name":"deleted"}}}"#
        );
        assert_eq!(erase_name(summary, &name("carol")), None);
    }
}
