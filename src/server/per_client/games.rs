//! The games a client holds (issue 35): its open games (made by `POST /api/games`, nobody has
//! joined them yet) and its games against the computer that are not finished, each kind capped
//! per address and per account like its sockets ([`super::PerClient`]).
//!
//! A game's slot is taken before the game is made and kept here under the game's id, because
//! an open game's room retires from memory while it waits (nobody watching) and comes back
//! when someone asks for it: the registry ([`crate::server::play::rooms`]) gives a slot back
//! when it sees the game leave what it was counted for ([`GameHolds::follow`]: an open game
//! joined, aborted or expired; a game against the computer finished), whoever ended it (its
//! room, the expiry sweeper, or on several nodes another node, checked by each sweep).
//!
//! A rematch of a game against the computer has no request to refuse: it takes its finished
//! game's slot again, for the same keys, even past the cap ([`GameHolds::rematch`]). A rematch
//! follows a finished game, so it never adds a game to what the client plays; at worst the
//! client made one new game between the two and plays one more than the cap until one ends,
//! never two (a new game is refused while it is at the cap).
//!
//! What is not known is not counted: a game made before a restart holds nothing for its
//! address (addresses are not stored); its account's slot is taken again at startup for the
//! open games and the live games against the computer ([`GameHolds::restored`]), not for a
//! correspondence game against the computer (it stays in the store until its deadline), nor
//! for the rematch of a finished game whose room retired in the meantime (the account only).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::server::domain::status::GameStatus;
use crate::server::domain::user::UserId;
use crate::server::web::holdings::{Full, Hold, Holdings};
use crate::server::web::ratelimit::Holder;

/// What a game holds of its creator's caps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameKind {
    /// A game waiting for an opponent: holds while it is open.
    Open,
    /// A game against the computer: holds until it is finished.
    Computer,
}

impl GameKind {
    /// The kind of a game made by `POST /api/games`: one against the computer (its seat is
    /// taken in the game's first commit) or one that waits for an opponent.
    pub fn of_new(against_computer: bool) -> GameKind {
        if against_computer {
            GameKind::Computer
        } else {
            GameKind::Open
        }
    }

    /// Whether a game of this kind still holds its slot in `status`.
    pub fn holds_in(self, status: GameStatus) -> bool {
        match self {
            GameKind::Open => status == GameStatus::Open,
            GameKind::Computer => status != GameStatus::Finished,
        }
    }
}

type Keys = Vec<Holder<UserId>>;

/// A slot taken for a game about to be made, given back if it is dropped before the game is
/// ([`GameHolds::keep`]).
pub struct GameHold {
    kind: GameKind,
    hold: Hold<Holder<UserId>>,
}

enum Entry {
    Holding(GameKind, Hold<Holder<UserId>>),
    /// A finished game against the computer whose room still runs: the keys its slot was
    /// counted for, which its rematch takes again.
    Finished(Keys),
}

/// The slots of every client's games, and which game holds which.
pub struct GameHolds {
    open: Arc<Holdings<Holder<UserId>>>,
    computer: Arc<Holdings<Holder<UserId>>>,
    /// By game id: the games that hold a slot, and the finished games against the computer
    /// whose room may still start a rematch. Bounded by the games in the caps and the rooms.
    games: Mutex<HashMap<String, Entry>>,
}

impl GameHolds {
    /// At most `open` open games and `computer` unfinished games against the computer per
    /// address and per account (0: no cap).
    pub fn new(open: u32, computer: u32) -> GameHolds {
        GameHolds {
            open: Holdings::new(open),
            computer: Holdings::new(computer),
            games: Mutex::new(HashMap::new()),
        }
    }

    fn holdings(&self, kind: GameKind) -> &Arc<Holdings<Holder<UserId>>> {
        match kind {
            GameKind::Open => &self.open,
            GameKind::Computer => &self.computer,
        }
    }

    fn games(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A slot of `kind` for a game of the client at `ip` (signed in as `account`), unless its
    /// address or its account holds its cap already.
    pub fn take(
        &self,
        kind: GameKind,
        ip: IpAddr,
        account: Option<UserId>,
    ) -> Result<GameHold, Full> {
        let hold = self.holdings(kind).take(Holder::of(ip, account))?;
        Ok(GameHold { kind, hold })
    }

    /// Game `game` is made: it holds `hold` until [`GameHolds::follow`] sees it leave its kind.
    pub fn keep(&self, game: &str, hold: GameHold) {
        let GameHold { kind, hold } = hold;
        let old = self
            .games()
            .insert(game.to_owned(), Entry::Holding(kind, hold));
        drop(old);
    }

    /// Game `game` holds nothing any more (its first commit failed; it is not in the store).
    pub fn forget(&self, game: &str) {
        let old = self.games().remove(game);
        drop(old);
    }

    /// Game `game` is now `status`: its slot comes back if it left what it was counted for.
    pub fn follow(&self, game: &str, status: GameStatus) {
        let mut games = self.games();
        let leaves =
            matches!(games.get(game), Some(Entry::Holding(kind, _)) if !kind.holds_in(status));
        if !leaves {
            return;
        }
        let released = games.remove(game);
        if let Some(Entry::Holding(GameKind::Computer, hold)) = &released {
            games.insert(game.to_owned(), Entry::Finished(hold.keys().to_vec()));
        }
        drop(games);
        drop(released);
    }

    /// `new` is the rematch of the finished game against the computer `old`: it takes `old`'s
    /// slot again, for the keys `old` was counted for (when `old`'s room forgot them, after a
    /// restart or a retirement: for `account`, the player's), past the cap if need be.
    pub fn rematch(&self, old: &str, new: &str, account: Option<UserId>) {
        let mut games = self.games();
        let keys = match games.remove(old) {
            Some(Entry::Finished(keys)) => keys,
            Some(holding) => {
                games.insert(old.to_owned(), holding);
                return;
            }
            None => account.map(Holder::Account).into_iter().collect(),
        };
        if keys.is_empty() || games.contains_key(new) {
            return;
        }
        let hold = self.computer.force(keys);
        games.insert(new.to_owned(), Entry::Holding(GameKind::Computer, hold));
    }

    /// The room of game `game` stopped: a finished game's keys are forgotten (no rematch can
    /// start from it now). A game still held stays held: an open game waits in the store.
    pub fn retired(&self, game: &str) {
        let mut games = self.games();
        if matches!(games.get(game), Some(Entry::Finished(_))) {
            games.remove(game);
        }
    }

    /// Game `game` of `kind`, made before this process started by `account`: its account's
    /// slot is taken again (past the cap if need be; its address is not known).
    pub fn restored(&self, game: &str, kind: GameKind, account: UserId) {
        let mut games = self.games();
        if games.contains_key(game) {
            return;
        }
        let hold = self.holdings(kind).force([Holder::Account(account)]);
        games.insert(game.to_owned(), Entry::Holding(kind, hold));
    }

    /// The games holding a slot now.
    pub fn held_games(&self) -> Vec<String> {
        self.games()
            .iter()
            .filter(|(_, entry)| matches!(entry, Entry::Holding(..)))
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// How many games of `kind` the client key `key` holds now.
    pub fn held(&self, kind: GameKind, key: &Holder<UserId>) -> u32 {
        self.holdings(kind).held(key)
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;
    use crate::server::web::ratelimit::Client;

    const IP: IpAddr = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1));
    const ADDRESS: Holder<UserId> = Holder::Address(Client::V4(0xC000_0201));

    fn alice() -> UserId {
        UserId(7)
    }

    #[test]
    fn an_open_game_holds_while_open_and_one_against_the_computer_until_it_is_finished() {
        use GameStatus::*;
        let open: Vec<bool> = [Open, Playing, Finished]
            .map(|s| GameKind::Open.holds_in(s))
            .into();
        let computer: Vec<bool> = [Open, Playing, Finished]
            .map(|s| GameKind::Computer.holds_in(s))
            .into();
        assert_eq!(open, [true, false, false]);
        assert_eq!(computer, [true, true, false]);
        assert_eq!(GameKind::of_new(true), GameKind::Computer);
        assert_eq!(GameKind::of_new(false), GameKind::Open);
    }

    #[test]
    fn a_client_holds_its_cap_of_open_games_and_gets_a_slot_back_when_one_is_joined() {
        let holds = GameHolds::new(2, 2);
        for game in ["a", "b"] {
            let hold = holds.take(GameKind::Open, IP, None).expect("under the cap");
            holds.keep(game, hold);
        }
        assert!(holds.take(GameKind::Open, IP, None).is_err());
        assert!(
            holds.take(GameKind::Computer, IP, None).is_ok(),
            "each kind its own cap"
        );
        holds.follow("a", GameStatus::Open);
        assert!(holds.take(GameKind::Open, IP, None).is_err(), "still open");
        holds.follow("a", GameStatus::Playing);
        assert_eq!(holds.held(GameKind::Open, &ADDRESS), 1);
        assert_eq!(holds.held_games(), ["b"]);
    }

    #[test]
    fn a_slot_taken_for_a_game_never_made_comes_back_when_dropped_or_forgotten() {
        let holds = GameHolds::new(1, 1);
        let hold = holds
            .take(GameKind::Open, IP, Some(alice()))
            .expect("first");
        drop(hold);
        let hold = holds
            .take(GameKind::Open, IP, Some(alice()))
            .expect("again");
        holds.keep("a", hold);
        holds.forget("a");
        assert_eq!(holds.held(GameKind::Open, &Holder::Account(alice())), 0);
    }

    #[test]
    fn a_rematch_takes_its_finished_games_slot_again_past_the_cap_and_a_retired_room_forgets_it() {
        let holds = GameHolds::new(1, 1);
        let hold = holds.take(GameKind::Computer, IP, None).expect("first");
        holds.keep("old", hold);
        holds.follow("old", GameStatus::Playing);
        assert!(holds.take(GameKind::Computer, IP, None).is_err());
        holds.follow("old", GameStatus::Finished);
        assert_eq!(holds.held(GameKind::Computer, &ADDRESS), 0);
        // A new game meanwhile, then the rematch: one over the cap, never refused.
        let hold = holds.take(GameKind::Computer, IP, None).expect("freed");
        holds.keep("other", hold);
        holds.rematch("old", "new", None);
        assert_eq!(holds.held(GameKind::Computer, &ADDRESS), 2);
        holds.follow("new", GameStatus::Finished);
        holds.retired("new");
        holds.rematch("new", "newer", None);
        assert_eq!(
            holds.held(GameKind::Computer, &ADDRESS),
            1,
            "no keys once the room retired, and no account"
        );
        holds.retired("other");
        assert_eq!(holds.held_games(), ["other"], "a held game stays held");
    }

    #[test]
    fn a_game_restored_after_a_restart_holds_for_its_account_once() {
        let holds = GameHolds::new(1, 1);
        holds.restored("a", GameKind::Open, alice());
        holds.restored("a", GameKind::Open, alice());
        holds.restored("b", GameKind::Open, alice());
        let key = Holder::Account(alice());
        assert_eq!(holds.held(GameKind::Open, &key), 2, "past the cap");
        assert!(holds.take(GameKind::Open, IP, Some(alice())).is_err());
        holds.follow("a", GameStatus::Finished);
        holds.follow("b", GameStatus::Playing);
        assert_eq!(holds.held(GameKind::Open, &key), 0);
        holds.rematch("gone", "rematch", Some(alice()));
        assert_eq!(holds.held(GameKind::Computer, &key), 1);
    }
}
