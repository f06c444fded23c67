//! The most pairs at the least cost: a maximum-cardinality, minimum-cost matching on a general
//! graph, as the pools' waves (and lichess's) need. A pair's cost comes from the caller (`None`:
//! the two may never meet); the matching is `integer-blossom`'s primal-dual blossom algorithm,
//! O(n³), not a greedy pass: a greedy pass pairs the two closest players first and can leave
//! two far-apart ones to meet, where the optimum pairs everyone at a small cost.
//!
//! The reduction: every allowed edge weighs `BIG - cost`, with `BIG` larger than any sum of
//! costs a matching can have, so one more pair always outweighs any saving in cost, and among
//! matchings of the most pairs the heaviest is the cheapest.

use integer_blossom::max_weight_matching;

/// Most players matched in one solve: the blossom algorithm is cubic (one solve of 128 seeks
/// took 4.0 ms on this machine, of 64 seeks 0.51 ms, of 20 seeks 22 µs; docs/performance.md
/// "Quick pairing"), and the queues' lock is held meanwhile. A larger crowd is cut into groups of neighbours by rating
/// first ([`pairs`]), where the exact optimum would pair far-apart players only at the cut.
pub const GROUP: usize = 64;

/// The pairs `(i, j)`, `i < j`, of the most pairs that `cost` allows, and among those, of the
/// least total cost. `order` ranks the `n` players for cutting a crowd larger than [`GROUP`]
/// into groups of neighbours (the pools' rating); within a group the matching is exact.
pub fn pairs(
    n: usize,
    order: impl Fn(usize) -> i64,
    cost: impl Fn(usize, usize) -> Option<u32>,
) -> Vec<(usize, usize)> {
    if n <= GROUP {
        return exact(&(0..n).collect::<Vec<_>>(), &cost);
    }
    let mut ranked: Vec<usize> = (0..n).collect();
    ranked.sort_by_key(|&i| order(i));
    let mut out = Vec::with_capacity(n / 2);
    let mut left: Vec<usize> = Vec::new();
    for group in ranked.chunks(GROUP) {
        // The unpaired of one group go on with the next: nobody is stranded by the cut.
        let members: Vec<usize> = left.drain(..).chain(group.iter().copied()).collect();
        let found = exact(&members, &cost);
        let paired: std::collections::HashSet<usize> =
            found.iter().flat_map(|&(a, b)| [a, b]).collect();
        left = members
            .into_iter()
            .filter(|i| !paired.contains(i))
            .collect();
        out.extend(found);
    }
    out
}

/// The exact matching of `members` (indices into the caller's players).
fn exact(members: &[usize], cost: &impl Fn(usize, usize) -> Option<u32>) -> Vec<(usize, usize)> {
    let n = members.len();
    if n < 2 {
        return Vec::new();
    }
    let costs: Vec<Option<u32>> = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            if i < j {
                cost(members[i], members[j])
            } else {
                None
            }
        })
        .collect();
    let most = costs.iter().flatten().copied().max().unwrap_or(0);
    // Above any matching's total cost (at most n/2 edges of at most `most` each): one more
    // pair is always worth more than every saving. Costs are u32 and n <= GROUP plus a carry,
    // so this stays far inside i64.
    let big = (n as i64 / 2 + 1) * (i64::from(most) + 1);
    let weights: Vec<i64> = costs
        .iter()
        .map(|c| c.map_or(0, |c| big - i64::from(c)))
        .collect();
    let mate = max_weight_matching(&weights, n);
    mate.iter()
        .enumerate()
        .filter_map(|(i, m)| match m {
            Some(j) if i < *j => Some((members[i], members[*j])),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every matching of `0..n` under `cost`, by brute force: the most pairs, then the least
    /// total cost.
    fn best_by_brute_force(n: usize, cost: &dyn Fn(usize, usize) -> Option<u32>) -> (usize, u64) {
        fn go(
            free: &mut Vec<usize>,
            cost: &dyn Fn(usize, usize) -> Option<u32>,
            pairs: usize,
            total: u64,
            best: &mut (usize, u64),
        ) {
            let Some(first) = free.pop() else {
                if pairs > best.0 || (pairs == best.0 && total < best.1) {
                    *best = (pairs, total);
                }
                return;
            };
            // `first` left alone.
            go(free, cost, pairs, total, best);
            for k in 0..free.len() {
                let other = free[k];
                if let Some(c) = cost(first.min(other), first.max(other)) {
                    free.remove(k);
                    go(free, cost, pairs + 1, total + u64::from(c), best);
                    free.insert(k, other);
                }
            }
            free.push(first);
        }
        let mut best = (0, u64::MAX);
        go(&mut (0..n).collect(), cost, 0, 0, &mut best);
        if best.0 == 0 {
            best.1 = 0;
        }
        best
    }

    fn summary(
        found: &[(usize, usize)],
        cost: &dyn Fn(usize, usize) -> Option<u32>,
    ) -> (usize, u64) {
        let total = found
            .iter()
            .map(|&(a, b)| u64::from(cost(a, b).expect("only allowed pairs")))
            .sum();
        (found.len(), total)
    }

    #[test]
    fn the_optimum_pairs_everyone_where_greedy_would_strand_two() {
        // Ratings 1000, 1100, 1150, 1250: greedy takes 1100-1150 (50) first and leaves
        // 1000-1250 (250): 300 in all. The optimum is 1000-1100 and 1150-1250: 200.
        let ratings = [1000_i64, 1100, 1150, 1250];
        let cost = |a: usize, b: usize| Some(ratings[a].abs_diff(ratings[b]) as u32);
        let mut found = pairs(4, |i| ratings[i], cost);
        found.sort();
        assert_eq!(found, [(0, 1), (2, 3)]);
    }

    #[test]
    fn a_forbidden_pair_is_never_made_even_if_it_leaves_both_alone() {
        let found = pairs(2, |_| 0, |_, _| None);
        assert!(found.is_empty());
        // 0 may meet only 2, and 1 only 3: that is the one matching, however cheap 2-3 is.
        let cost = |a: usize, b: usize| match (a, b) {
            (0, 1) | (0, 3) | (1, 2) => None,
            (0, 2) | (1, 3) => Some(500),
            _ => Some(1),
        };
        let mut found = pairs(4, |_| 0, cost);
        found.sort();
        assert_eq!(found, [(0, 2), (1, 3)]);
    }

    #[test]
    fn more_pairs_always_beat_cheaper_ones() {
        // 0-1 costs 0, but taking it leaves 2 and 3 (who may only meet 0 and 1) alone.
        let cost = |a: usize, b: usize| match (a, b) {
            (0, 1) => Some(0),
            (0, 2) | (1, 3) => Some(4_000),
            _ => None,
        };
        assert_eq!(pairs(4, |_| 0, cost).len(), 2);
    }

    #[test]
    fn a_crowd_larger_than_a_group_is_paired_whole() {
        let n = GROUP * 2 + 7;
        let found = pairs(n, |i| i as i64, |a, b| Some(a.abs_diff(b) as u32));
        assert_eq!(found.len(), n / 2, "everyone but one is paired");
        let mut seen = std::collections::HashSet::new();
        for (a, b) in found {
            assert!(seen.insert(a) && seen.insert(b), "{a} or {b} paired twice");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn pairs_are_the_most_and_then_the_cheapest(
            n in 0usize..9,
            table in proptest::collection::vec(proptest::option::weighted(0.8, 0u32..600), 81),
        ) {
            let cost = |a: usize, b: usize| {
                let (a, b) = (a.min(b), a.max(b));
                table[a * 9 + b]
            };
            let found = pairs(n, |_| 0, cost);
            prop_assert_eq!(summary(&found, &cost), best_by_brute_force(n, &cost));
        }
    }
}
