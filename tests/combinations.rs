//! `iter_combinations` / `iter_combinations_mut`: every unordered K-subset of the
//! matches exactly once, in every form (QueryState, system Query, world.query()).

use std::collections::BTreeSet;

use ecs_core::prelude::*;

#[derive(Component, Debug, PartialEq)]
struct Id(u32);
#[derive(Component)]
struct Red;
#[derive(Component)]
#[component(storage = "sparse")]
struct Marked;
#[derive(Component, Default)]
struct Hits(u32);

/// `n` entities spread over three archetypes, every third one `Marked`.
fn world_with(n: u32) -> World {
    let mut world = World::new();
    for i in 0..n {
        let e = match i % 3 {
            0 => world.spawn((Id(i), Hits::default())),
            1 => world.spawn((Id(i), Hits::default(), Red)),
            _ => world.spawn((Red, Id(i))),
        };
        if i % 3 == 1 {
            world.insert(e, Marked).unwrap();
        }
    }
    world
}

fn choose(n: usize, k: usize) -> usize {
    if k > n {
        return 0;
    }
    (1..=k).fold(1, |acc, i| acc * (n - k + i) / i)
}

#[test]
fn pairs_and_triples_each_once_for_0_1_and_n_rows() {
    for n in 0..9u32 {
        let mut world = world_with(n);
        let mut ids = world.query_state::<&Id>();
        let pairs: Vec<[u32; 2]> = ids.iter_combinations::<2>(&world).map(|[a, b]| [a.0, b.0]).collect();
        assert_eq!(pairs.len(), choose(n as usize, 2), "n = {n}");
        let unordered: BTreeSet<[u32; 2]> = pairs.iter().map(|&[a, b]| [a.min(b), a.max(b)]).collect();
        assert_eq!(unordered.len(), pairs.len(), "a pair came twice, n = {n}");
        assert!(pairs.iter().all(|[a, b]| a != b), "an entity paired with itself, n = {n}");

        let triples: Vec<[u32; 3]> = ids.iter_combinations::<3>(&world).map(|t| t.map(|id| id.0)).collect();
        assert_eq!(triples.len(), choose(n as usize, 3), "n = {n}");
        let sets: BTreeSet<BTreeSet<u32>> = triples.iter().map(|t| t.iter().copied().collect()).collect();
        assert_eq!(sets.len(), triples.len());
        assert!(sets.iter().all(|s| s.len() == 3));

        assert_eq!(ids.iter_combinations::<0>(&world).count(), 0);
        let singles: BTreeSet<u32> = ids.iter_combinations::<1>(&world).map(|[a]| a.0).collect();
        assert_eq!(singles, (0..n).collect());
        // world.query() agrees.
        assert_eq!(world.query::<&Id>().iter_combinations::<2>().count(), pairs.len());
        let _ = &mut world;
    }
}

#[test]
fn filters_and_sparse_components_narrow_the_matches() {
    let world = world_with(9);
    let mut red = world.query_state_filtered::<&Id, With<Red>>();
    assert_eq!(red.iter_combinations::<2>(&world).count(), choose(6, 2));
    let mut marked = world.query_state::<(&Id, &Marked)>();
    let pairs: Vec<[u32; 2]> = marked.iter_combinations::<2>(&world).map(|[(a, _), (b, _)]| [a.0, b.0]).collect();
    assert_eq!(pairs, [[1, 4], [1, 7], [4, 7]]);
}

#[test]
fn mutable_combinations_write_each_pair_once() {
    for n in [0u32, 1, 2, 7] {
        let mut world = world_with(n);
        let mut hits = world.query_state::<&mut Hits>();
        let mut pairs = hits.iter_combinations_mut::<2>(&mut world);
        let mut steps = 0;
        while let Some([a, b]) = pairs.fetch_next() {
            a.0 += 1;
            b.0 += 1;
            steps += 1;
        }
        assert!(pairs.fetch_next().is_none(), "stays finished");
        let with_hits = world.query::<&Hits>().count();
        assert_eq!(steps, choose(with_hits, 2));
        // Each entity is in n - 1 pairs.
        for h in world.query::<&Hits>() {
            assert_eq!(h.0 as usize, with_hits.saturating_sub(1));
        }
    }
}

#[test]
fn system_queries_offer_both_forms() {
    fn gravity(mut bodies: Query<(&Id, &mut Hits)>) {
        let mut triples = bodies.iter_combinations_mut::<3>();
        while let Some([(_, a), (_, b), (_, c)]) = triples.fetch_next() {
            a.0 += 1;
            b.0 += 1;
            c.0 += 1;
        }
    }
    fn count_pairs(q: Query<&Id, With<Red>>) -> usize {
        q.iter_combinations::<2>().count()
    }
    let mut world = world_with(6);
    world.run_system_once(gravity).unwrap();
    // 4 entities with Hits: each in C(3, 2) = 3 triples.
    assert!(world.query::<&Hits>().all(|h| h.0 == 3));
    assert_eq!(world.run_system_once(count_pairs), Ok(choose(4, 2)));
}

#[test]
fn mutable_combinations_mark_written_rows_changed() {
    let mut world = world_with(3);
    let mut changed = world.query_state_filtered::<&Id, Changed<Hits>>();
    assert_eq!(changed.iter(&world).count(), 2);
    assert_eq!(changed.iter(&world).count(), 0);
    let mut hits = world.query_state::<&mut Hits>();
    let mut pairs = hits.iter_combinations_mut::<2>(&mut world);
    let [a, _] = pairs.fetch_next().unwrap();
    a.0 += 1;
    assert_eq!(changed.iter(&world).count(), 2);
}

#[test]
fn size_hint_is_exact_and_shrinks_as_combinations_are_handed_out() {
    fn walk<const K: usize>(n: u32) {
        let world = world_with(n);
        let mut ids = world.query_state::<&Id>();
        let mut combinations = ids.iter_combinations::<K>(&world);
        let mut left = choose(n as usize, K);
        assert_eq!(combinations.size_hint(), (left, Some(left)), "n = {n}, K = {K}, before the first");
        while combinations.next().is_some() {
            left -= 1;
            assert_eq!(combinations.size_hint(), (left, Some(left)), "n = {n}, K = {K}");
        }
        assert_eq!(left, 0);
    }
    for n in 0..9 {
        walk::<1>(n);
        walk::<2>(n);
        walk::<3>(n);
        walk::<4>(n);
    }
}
