//! An arena's standings and who waits for a game, pure, read from its players and its games
//! (in the order they were paired): the same reading after a restart as before it, since
//! everything it needs is what the store keeps.

use std::collections::HashMap;

use crate::rules::Color;
use crate::server::domain::user::UserId;

use super::pairing::{Colors, Waiting};
use super::score::{self, GameResult, Played, Scored};

/// A player of the arena.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entrant {
    pub user: UserId,
    /// Their rating at the arena's speed.
    pub rating: i32,
    pub withdrawn: bool,
}

/// How an arena game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    /// `None`: a draw.
    pub winner: Option<Color>,
    /// Numbered turns played.
    pub turns: u32,
    /// Who berserked, White then Black.
    pub berserk: [bool; 2],
}

/// One game of the arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArenaGame {
    pub white: UserId,
    pub black: UserId,
    /// The players' ratings when it began, White then Black.
    pub ratings: [i32; 2],
    /// `None` while it is played.
    pub end: Option<Ending>,
}

impl ArenaGame {
    fn color_of(&self, user: UserId) -> Option<Color> {
        if self.white == user {
            Some(Color::White)
        } else if self.black == user {
            Some(Color::Black)
        } else {
            None
        }
    }
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    /// 1 for the leader; every player has a rank of their own (a full tie goes to who joined
    /// first).
    pub rank: u32,
    pub user: UserId,
    pub points: u32,
    /// Each finished game's score, in order (the page draws the fire and berserk marks).
    pub sheet: Vec<Scored>,
    /// Their next result scores double.
    pub on_fire: bool,
    pub performance: Option<i32>,
    /// A game of theirs is being played.
    pub playing: bool,
    pub withdrawn: bool,
}

/// Each player's games (indices into the arena's games, in order), read once: the standings
/// and the waiting list then cost one pass over the games, not one per player (1,000 players
/// and 6,000 games: 6 million comparisons a step otherwise).
fn games_by_player(games: &[ArenaGame]) -> HashMap<UserId, Vec<usize>> {
    let mut by_player: HashMap<UserId, Vec<usize>> = HashMap::new();
    for (index, game) in games.iter().enumerate() {
        by_player.entry(game.white).or_default().push(index);
        by_player.entry(game.black).or_default().push(index);
    }
    by_player
}

/// `user`'s finished games (`mine`: the indices of theirs), as the scoring reads them.
fn played(user: UserId, mine: &[usize], games: &[ArenaGame]) -> Vec<Played> {
    mine.iter()
        .filter_map(|&index| {
            let game = &games[index];
            let color = game.color_of(user)?;
            let end = game.end?;
            let result = match end.winner {
                None => GameResult::Draw,
                Some(winner) if winner == color => GameResult::Win,
                Some(_) => GameResult::Loss,
            };
            Some(Played {
                result,
                turns: end.turns,
                berserk: end.berserk[color as usize],
                opponent_rating: game.ratings[!color as usize],
            })
        })
        .collect()
}

/// The standings: most points first, then the better performance, then who joined first
/// (`entrants` in the order they joined).
pub fn standings(entrants: &[Entrant], games: &[ArenaGame]) -> Vec<Standing> {
    let by_player = games_by_player(games);
    let none = Vec::new();
    let mut lines: Vec<(usize, Standing)> = entrants
        .iter()
        .enumerate()
        .map(|(joined, entrant)| {
            let mine = by_player.get(&entrant.user).unwrap_or(&none);
            let played = played(entrant.user, mine, games);
            let sheet = score::sheet(&played);
            let line = Standing {
                rank: 0,
                user: entrant.user,
                points: sheet.iter().map(|s| s.points).sum(),
                on_fire: score::on_fire(&played),
                performance: score::performance(&played),
                sheet,
                playing: mine.iter().any(|&index| games[index].end.is_none()),
                withdrawn: entrant.withdrawn,
            };
            (joined, line)
        })
        .collect();
    lines.sort_by(|(ja, a), (jb, b)| {
        score::standing_order((a.points, a.performance), (b.points, b.performance)).then(ja.cmp(jb))
    });
    lines
        .into_iter()
        .enumerate()
        .map(|(i, (_, mut line))| {
            line.rank = i as u32 + 1;
            line
        })
        .collect()
}

/// Who waits for a game: in the arena, not withdrawn, no game being played; with their rank,
/// rating, colours so far and last opponent, as the pairing reads them.
pub fn waiting(entrants: &[Entrant], games: &[ArenaGame], standings: &[Standing]) -> Vec<Waiting> {
    let by_player = games_by_player(games);
    let lines: HashMap<UserId, &Standing> = standings.iter().map(|s| (s.user, s)).collect();
    let none = Vec::new();
    entrants
        .iter()
        .filter(|e| !e.withdrawn)
        .filter_map(|entrant| {
            let line = lines.get(&entrant.user)?;
            if line.playing {
                return None;
            }
            let mut colors = Colors::default();
            let mut last_opponent = None;
            for &index in by_player.get(&entrant.user).unwrap_or(&none) {
                let game = &games[index];
                if let Some(color) = game.color_of(entrant.user) {
                    colors = colors.after(color == Color::White);
                    last_opponent = Some(if color == Color::White {
                        game.black
                    } else {
                        game.white
                    });
                }
            }
            Some(Waiting {
                user: entrant.user,
                rank: line.rank,
                rating: entrant.rating,
                colors,
                last_opponent,
            })
        })
        .collect()
}

/// Players of the arena who have not withdrawn (the pairing's "active" count).
pub fn active(entrants: &[Entrant]) -> usize {
    entrants.iter().filter(|e| !e.withdrawn).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entrant(id: i64, rating: i32) -> Entrant {
        Entrant {
            user: UserId(id),
            rating,
            withdrawn: false,
        }
    }

    fn won_by(white: i64, black: i64, winner: Option<Color>) -> ArenaGame {
        ArenaGame {
            white: UserId(white),
            black: UserId(black),
            ratings: [1500, 1500],
            end: Some(Ending {
                winner,
                turns: 30,
                berserk: [false, false],
            }),
        }
    }

    fn order(lines: &[Standing]) -> Vec<(u32, i64, u32)> {
        lines.iter().map(|l| (l.rank, l.user.0, l.points)).collect()
    }

    #[test]
    fn the_standings_change_as_games_end_and_a_player_on_fire_is_marked() {
        let entrants = [entrant(1, 1500), entrant(2, 1500), entrant(3, 1500)];
        assert_eq!(
            order(&standings(&entrants, &[])),
            [(1, 1, 0), (2, 2, 0), (3, 3, 0)],
            "before any game: the order of joining"
        );
        let games = [
            won_by(3, 1, Some(Color::White)),
            won_by(2, 3, Some(Color::Black)),
            won_by(1, 2, None),
        ];
        let lines = standings(&entrants, &games);
        assert_eq!(order(&lines), [(1, 3, 4), (2, 1, 1), (3, 2, 1)]);
        assert!(lines[0].on_fire, "two wins in a row");
        assert_eq!(lines[0].sheet.len(), 2);
    }

    #[test]
    fn a_game_in_progress_keeps_its_players_from_waiting_and_scores_nothing_yet() {
        let entrants = [entrant(1, 1500), entrant(2, 1600), entrant(3, 1700)];
        let mut playing = won_by(1, 2, None);
        playing.end = None;
        let games = [playing];
        let lines = standings(&entrants, &games);
        assert!(lines.iter().all(|l| l.points == 0));
        assert!(lines.iter().find(|l| l.user == UserId(1)).unwrap().playing);
        let idle = waiting(&entrants, &games, &lines);
        assert_eq!(idle.iter().map(|w| w.user.0).collect::<Vec<_>>(), [3]);
    }

    #[test]
    fn a_withdrawn_player_keeps_their_points_and_is_not_paired() {
        let mut entrants = [entrant(1, 1500), entrant(2, 1500)];
        let games = [won_by(1, 2, Some(Color::White))];
        entrants[0].withdrawn = true;
        let lines = standings(&entrants, &games);
        assert_eq!(order(&lines), [(1, 1, 2), (2, 2, 0)]);
        assert!(lines[0].withdrawn);
        let idle = waiting(&entrants, &games, &lines);
        assert_eq!(idle.iter().map(|w| w.user.0).collect::<Vec<_>>(), [2]);
        assert_eq!(active(&entrants), 1);
    }

    #[test]
    fn the_waiting_list_carries_colours_and_the_last_opponent() {
        let entrants = [entrant(1, 1500), entrant(2, 1500), entrant(3, 1500)];
        let games = [
            won_by(1, 2, None),
            won_by(1, 3, None),
            won_by(1, 2, Some(Color::White)),
        ];
        let lines = standings(&entrants, &games);
        let idle = waiting(&entrants, &games, &lines);
        let one = idle.iter().find(|w| w.user == UserId(1)).unwrap();
        assert_eq!(
            one.colors,
            Colors {
                streak: 3,
                balance: 3
            }
        );
        assert_eq!(one.last_opponent, Some(UserId(2)));
        let three = idle.iter().find(|w| w.user == UserId(3)).unwrap();
        assert_eq!(
            three.colors,
            Colors {
                streak: -1,
                balance: -1
            }
        );
        assert_eq!(three.last_opponent, Some(UserId(1)));
    }

    #[test]
    fn ratings_at_the_start_of_each_game_make_the_performance() {
        let entrants = [entrant(1, 1500), entrant(2, 1500), entrant(3, 1500)];
        let mut strong = won_by(1, 2, Some(Color::White));
        strong.ratings = [1500, 2000];
        let mut weak = won_by(3, 2, Some(Color::White));
        weak.ratings = [1500, 1200];
        let lines = standings(&entrants, &[weak, strong]);
        assert_eq!(
            order(&lines)[..2],
            [(1, 1, 2), (2, 3, 2)],
            "2500 before 1700"
        );
        assert_eq!(lines[0].performance, Some(2500));
    }
}
