//! The contract of the puzzle searches over a few thousand puzzles, against a plain reading of
//! their rules computed here from the puzzles as they stand: `puzzle_near` gives the first
//! puzzle by (rounded rating, id) at or above the target, having the theme, that the player
//! never played, else the last one below, and never a played one, while rounds move the
//! ratings; `puzzle_after` walks a theme by id and wraps round; the export pages every puzzle
//! by id. Ids mix cases, so that a backend ordering them other than byte by byte shows.

use std::collections::{BTreeMap, HashSet};

use marseillais::server::domain::user::UserId;
use marseillais::server::store::{PuzzleRecord, RoundOutcome, Store, puzzle_rating_key};

use super::puzzles::{puzzle, puzzle_user, round};
use crate::support::rng::Rng;

const PUZZLES: usize = 3_000;
const THEMES: [&str; 4] = ["fork", "mateIn1", "endgame", "promotion"];
const ID_CHARS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// The puzzles of the search checks: ids of six characters of every case, ratings from 600 to
/// 3,000 (more puzzles than whole ratings, so many share a rounded rating and the id decides),
/// each theme on about one puzzle in two.
fn many_puzzles(rng: &mut Rng) -> Vec<PuzzleRecord> {
    let mut ids = HashSet::new();
    let mut puzzles = Vec::with_capacity(PUZZLES);
    while puzzles.len() < PUZZLES {
        let id: String = (0..6)
            .map(|_| char::from(ID_CHARS[rng.below(ID_CHARS.len() as u64) as usize]))
            .collect();
        if !ids.insert(id.clone()) {
            continue;
        }
        let rating = 600.0 + rng.below(2_400) as f64 + rng.below(1_000) as f64 / 1_000.0;
        let mut themes: Vec<&str> = THEMES
            .iter()
            .copied()
            .filter(|_| rng.below(2) == 0)
            .collect();
        themes.sort_unstable();
        puzzles.push(puzzle(&id, rating, &themes));
    }
    puzzles
}

/// What the stores must answer, from the puzzles as they stand and the rounds played.
struct Reference {
    puzzles: BTreeMap<String, PuzzleRecord>,
    played: HashSet<(UserId, String)>,
}

impl Reference {
    fn eligible<'a>(
        &'a self,
        user: Option<UserId>,
        theme: Option<&'a str>,
    ) -> impl Iterator<Item = &'a PuzzleRecord> + 'a {
        self.puzzles.values().filter(move |p| {
            theme.is_none_or(|t| p.themes.iter().any(|k| k == t))
                && user.is_none_or(|u| !self.played.contains(&(u, p.id.clone())))
        })
    }

    fn near(&self, user: Option<UserId>, theme: Option<&str>, target: i32) -> Option<String> {
        let target = i64::from(target);
        let order = |p: &&PuzzleRecord| (puzzle_rating_key(p.rating.rating), p.id.clone());
        let above = self
            .eligible(user, theme)
            .filter(|p| puzzle_rating_key(p.rating.rating) >= target)
            .min_by_key(order);
        above
            .or_else(|| {
                self.eligible(user, theme)
                    .filter(|p| puzzle_rating_key(p.rating.rating) < target)
                    .max_by_key(order)
            })
            .map(|p| p.id.clone())
    }

    /// Plays a round and follows its effect on the puzzle.
    async fn play(&mut self, store: &dyn Store, user: UserId, id: &str, solved: bool, at: i64) {
        match store
            .record_puzzle_round(round(user, id, solved, at))
            .await
            .expect("round")
        {
            RoundOutcome::Rated { puzzle_after, .. } => {
                let puzzle = self.puzzles.get_mut(id).expect("a known puzzle");
                puzzle.rating = puzzle_after;
                puzzle.plays += 1;
                assert!(self.played.insert((user, id.to_owned())), "a first try");
            }
            RoundOutcome::Repeated => panic!("{id} was given to a player who had played it"),
        }
    }
}

fn search_case(rng: &mut Rng, users: &[UserId]) -> (Option<UserId>, Option<&'static str>, i32) {
    let user = match rng.below(3) {
        0 => None,
        i => Some(users[i as usize - 1]),
    };
    let theme = match rng.below(6) {
        0 | 1 => None,
        5 => Some("noSuchTheme"),
        i => Some(THEMES[i as usize - 2]),
    };
    let target = 400 + rng.below(2_800) as i32;
    (user, theme, target)
}

/// Searches of every kind (a player or none, a theme or none, targets below, inside and above
/// the ratings), each compared with the reference, while the players play what they are given:
/// their rounds move the puzzles' ratings, and what they played is never given again.
pub async fn check_the_nearest_puzzle_is_the_first_unplayed_at_or_above_else_below(
    store: &dyn Store,
) {
    let mut rng = Rng::new(0x7075_7a7a);
    let puzzles = many_puzzles(&mut rng);
    assert_eq!(
        store.import_puzzles(puzzles.clone()).await.expect("import"),
        PUZZLES as u64
    );
    let users = [
        puzzle_user(store, "ann").await,
        puzzle_user(store, "bob").await,
    ];
    let mut reference = Reference {
        puzzles: puzzles.into_iter().map(|p| (p.id.clone(), p)).collect(),
        played: HashSet::new(),
    };
    let mut at = 0;
    // Ann plays the forty puzzles nearest 1,500 one after another, then forty past the top,
    // where each next one is the last below.
    for target in [1_500, 5_000] {
        for _ in 0..40 {
            let expected = reference.near(Some(users[0]), None, target);
            let got = store
                .puzzle_near(Some(users[0]), None, target)
                .await
                .expect("near");
            assert_eq!(got.as_ref().map(|p| p.id.clone()), expected, "{target}");
            let got = got.expect("puzzles left");
            at += 1;
            let solved = rng.below(2) == 0;
            reference.play(store, users[0], &got.id, solved, at).await;
        }
    }
    for case in 0..400 {
        let (user, theme, target) = search_case(&mut rng, &users);
        let got = store
            .puzzle_near(user, theme.map(str::to_owned), target)
            .await
            .expect("near");
        let expected = reference.near(user, theme, target);
        assert_eq!(
            got.as_ref().map(|p| p.id.clone()),
            expected,
            "case {case}: {user:?} {theme:?} {target}"
        );
        if let Some(got) = got {
            assert_eq!(Some(&got), reference.puzzles.get(&got.id), "as it stands");
            if let Some(user) = user
                && rng.below(2) == 0
            {
                at += 1;
                let solved = rng.below(2) == 0;
                reference.play(store, user, &got.id, solved, at).await;
            }
        }
    }
    // Every puzzle as the reference has it, paged by id.
    let mut exported = Vec::new();
    let mut after = None;
    loop {
        let page = store.export_puzzles(after, 700).await.expect("export");
        let Some(last) = page.last() else { break };
        after = Some(last.id.clone());
        exported.extend(page);
    }
    let expected: Vec<PuzzleRecord> = reference.puzzles.values().cloned().collect();
    assert_eq!(exported.len(), expected.len());
    assert!(exported == expected, "the export is every puzzle by id");
}

/// `puzzle_after` walks the puzzles of a theme (or all) in id order from the given id and wraps
/// round to the first; the theme counts are the puzzles having each theme.
pub async fn check_puzzles_after_an_id_go_by_id_within_a_theme_and_wrap_round(store: &dyn Store) {
    let mut rng = Rng::new(0x6166_7465);
    let puzzles: Vec<PuzzleRecord> = many_puzzles(&mut rng).into_iter().take(600).collect();
    store.import_puzzles(puzzles.clone()).await.expect("import");
    for theme in [None, Some("fork"), Some("promotion")] {
        let mut ids: Vec<String> = puzzles
            .iter()
            .filter(|p| theme.is_none_or(|t| p.themes.iter().any(|k| k == t)))
            .map(|p| p.id.clone())
            .collect();
        ids.sort();
        let mut after: Option<String> = None;
        // Once round and three more: the walk wraps.
        for step in 0..ids.len() + 3 {
            let next = store
                .puzzle_after(theme.map(str::to_owned), after.clone())
                .await
                .expect("after")
                .expect("a puzzle");
            assert_eq!(next.id, ids[step % ids.len()], "{theme:?} step {step}");
            after = Some(next.id);
        }
        // From an id that is not a puzzle's: the next one.
        let between = format!("{}!", ids[0]);
        let next = store
            .puzzle_after(theme.map(str::to_owned), Some(between))
            .await
            .expect("after")
            .expect("a puzzle");
        assert_eq!(next.id, ids[1]);
    }
    assert_eq!(
        store
            .puzzle_after(Some("noSuchTheme".into()), None)
            .await
            .expect("after"),
        None
    );
    let counts = store.puzzle_themes().await.expect("themes");
    let mut expected: Vec<(String, u64)> = THEMES
        .iter()
        .map(|t| {
            let n = puzzles.iter().filter(|p| p.themes.iter().any(|k| k == t));
            ((*t).to_owned(), n.count() as u64)
        })
        .collect();
    expected.sort();
    assert_eq!(counts, expected);
    assert_eq!(store.puzzle_count().await.expect("count"), 600);
}
