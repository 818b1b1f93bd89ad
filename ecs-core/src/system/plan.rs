//! The schedule's planner: from the systems, their access, explicit order,
//! sets and sync points to a plan of batches that may run side by side,
//! exclusive systems and the points where commands are applied.

use super::SystemAccess;
use super::schedule::{Entry, Schedule};
use super::set::{InternedSet, Label};

use crate::parallel::{Adaptive, annotate};

/// The systems between two sync points, or an exclusive system (a sync point on
/// both sides).
pub(super) enum Segment {
    Systems(Vec<usize>),
    Exclusive(usize),
}

/// One step of the plan.
#[derive(Debug)]
pub(super) enum Step {
    /// Systems that may run side by side, and what running them inline or in
    /// parallel was measured to cost.
    Batch(Vec<usize>, Adaptive),
    /// An exclusive system, alone.
    Exclusive(usize),
    /// Apply the commands of every system so far, in insertion order: the
    /// systems listed, those that may have any (`System::has_deferred`).
    Apply(Vec<usize>),
}

/// An explicit ordering constraint between two systems of one segment.
#[derive(Clone, Copy, Debug)]
pub(super) struct Edge {
    pub(super) first: usize,
    pub(super) then: usize,
    /// Whether `then` sees `first`'s commands applied (an automatic sync
    /// point); `false` for `chain_ignore_deferred`.
    pub(super) sync: bool,
}

impl Schedule {
    /// Orders the systems into batches and sync points.
    ///
    /// # Panics
    /// When a constraint names a system that is not in the schedule, asks for an
    /// order across a sync point that the sync point reverses, or the explicit
    /// constraints form a cycle.
    #[track_caller]
    /// `set_conditions` is [`set_condition_members`](Self::set_condition_members).
    pub(super) fn make_plan(&self, set_conditions: &[Vec<(usize, usize)>]) -> Vec<Step> {
        self.check_sets();
        let segments = self.segments();
        let explicit = self.explicit_edges(&segments);
        // A system's access includes its conditions' and its sets' conditions'.
        let mut accesses: Vec<SystemAccess> = self.entries.iter().map(Entry::access).collect();
        for (access, list) in accesses.iter_mut().zip(set_conditions) {
            for &(set, condition) in list {
                let state = annotate::lock(&self.sets[set].conditions[condition]);
                access.extend(state.condition.access());
            }
        }
        // Most systems queue no commands: a sync point visits only those that may.
        let deferred: Vec<usize> =
            self.order.iter().flatten().copied().filter(|&index| self.entries[index].system.has_deferred()).collect();
        let mut plan = Vec::new();
        for segment in &segments {
            match segment {
                // Always after a `Systems` segment, whose `Apply` precedes it.
                Segment::Exclusive(index) => plan.push(Step::Exclusive(*index)),
                Segment::Systems(systems) => {
                    self.plan_segment(systems, &explicit, &accesses, &deferred, &mut plan);
                    plan.push(Step::Apply(deferred.clone()));
                }
            }
        }
        plan
    }

    /// Refuses set configurations that can never hold, whether or not the sets
    /// have systems yet: a set ordered against itself, sets ordered in a cycle,
    /// a set inside itself, a set ordered against a set it is inside (or that is
    /// inside it), and a system in two sets ordered one after the other.
    ///
    /// # Panics
    /// On each of those, naming the sets.
    #[track_caller]
    pub(super) fn check_sets(&self) {
        // Every set named anywhere, and its direct parents.
        let mut sets: Vec<InternedSet> = Vec::new();
        let note = |set: &InternedSet, sets: &mut Vec<InternedSet>| {
            if !sets.contains(set) {
                sets.push(set.clone());
            }
        };
        for config in &self.sets {
            note(&config.set, &mut sets);
            config.parents.iter().for_each(|p| note(p, &mut sets));
            for label in config.before.iter().chain(&config.after) {
                if let Label::Set(set) = label {
                    note(set, &mut sets);
                }
            }
        }
        let index = |set: &InternedSet, sets: &[InternedSet]| sets.iter().position(|s| s == set).expect("noted");
        let n = sets.len();
        let mut parents = vec![Vec::new(); n];
        // Ordering between sets, as (first, then).
        let mut order = Vec::new();
        for config in &self.sets {
            let s = index(&config.set, &sets);
            parents[s].extend(config.parents.iter().map(|p| index(p, &sets)));
            for (labels, after) in [(&config.after, true), (&config.before, false)] {
                for label in labels {
                    let Label::Set(other) = label else { continue };
                    let o = index(other, &sets);
                    if o == s {
                        let relation = if after { "after" } else { "before" };
                        panic!("set `{}` is ordered {relation} itself", sets[s].name());
                    }
                    order.push(if after { (o, s) } else { (s, o) });
                }
            }
        }
        // Containment: `inside[s]` lists every set `s` is in, through parents.
        let mut inside: Vec<Vec<usize>> = vec![Vec::new(); n];
        for s in 0..n {
            let mut stack = parents[s].clone();
            while let Some(p) = stack.pop() {
                if p == s {
                    panic!("set `{}` is inside itself (through `in_set`)", sets[s].name());
                }
                if !inside[s].contains(&p) {
                    inside[s].push(p);
                    stack.extend(parents[p].iter().copied());
                }
            }
        }
        for &(first, then) in &order {
            if inside[first].contains(&then) || inside[then].contains(&first) {
                let (inner, outer) = if inside[first].contains(&then) { (first, then) } else { (then, first) };
                panic!(
                    "set `{}` is inside set `{}` and ordered against it: a set's systems cannot run before or \
                     after themselves",
                    sets[inner].name(),
                    sets[outer].name(),
                );
            }
        }
        // A cycle of ordering between sets.
        let mut preds = vec![Vec::new(); n];
        for &(first, then) in &order {
            preds[then].push(first);
        }
        let mut placed = vec![false; n];
        while let Some(next) = (0..n).find(|&s| !placed[s] && preds[s].iter().all(|&p| placed[p])) {
            placed[next] = true;
        }
        if placed.iter().any(|&p| !p) {
            let cycle = Self::cycle(&preds, &placed);
            let names: Vec<_> = cycle.iter().map(|&s| format!("`{}`", sets[s].name())).collect();
            panic!("the sets are ordered in a cycle: {}", names.join(" -> "));
        }
        // A system in two sets that are ordered one after the other.
        for (i, plan) in self.plans.iter().enumerate() {
            let closure = self.set_closure(&plan.sets);
            for &(first, then) in &order {
                if closure.contains(&sets[first]) && closure.contains(&sets[then]) {
                    panic!(
                        "system `{}` is in set `{}` and in set `{}`, which is ordered after it: the system would \
                         have to run after itself",
                        self.entries[i].system.name(),
                        sets[first].name(),
                        sets[then].name(),
                    );
                }
            }
        }
    }

    /// For each entry, the run conditions of the sets it is in (directly or
    /// through sets inside sets), as (index in `sets`, index of the condition);
    /// empty when no set has a condition.
    pub(super) fn set_condition_members(&self) -> Vec<Vec<(usize, usize)>> {
        if self.sets.iter().all(|config| config.conditions.is_empty()) {
            return Vec::new();
        }
        self.plans
            .iter()
            .map(|plan| {
                let sets = self.set_closure(&plan.sets);
                let mut list = Vec::new();
                for (s, config) in self.sets.iter().enumerate() {
                    if sets.contains(&config.set) {
                        list.extend((0..config.conditions.len()).map(|c| (s, c)));
                    }
                }
                list
            })
            .collect()
    }

    /// The runs of systems between sync points, in order: exclusive systems are a
    /// segment of their own (they are a sync point on both sides).
    pub(super) fn segments(&self) -> Vec<Segment> {
        let mut segments = Vec::new();
        let mut current = Vec::new();
        for slot in self.order.iter().copied().chain([None]) {
            match slot {
                Some(index) if self.entries[index].system.is_exclusive() => {
                    segments.push(Segment::Systems(core::mem::take(&mut current)));
                    segments.push(Segment::Exclusive(index));
                }
                Some(index) => current.push(index),
                None => segments.push(Segment::Systems(core::mem::take(&mut current))),
            }
        }
        segments
    }

    /// The explicit `before`/`after` constraints, of systems and of sets, as edges
    /// `(first, then)` between systems of one segment. A constraint between
    /// segments is checked here: one the segments' order already keeps is
    /// satisfied; one it reverses is refused.
    ///
    /// # Panics
    /// As for [`make_plan`](Self::make_plan), naming both systems.
    #[track_caller]
    pub(super) fn explicit_edges(&self, segments: &[Segment]) -> Vec<Edge> {
        let mut segment_of = vec![0; self.entries.len()];
        for (s, segment) in segments.iter().enumerate() {
            match segment {
                Segment::Exclusive(index) => segment_of[*index] = s,
                Segment::Systems(systems) => systems.iter().for_each(|&i| segment_of[i] = s),
            }
        }
        let sets_of: Vec<Vec<InternedSet>> = self.plans.iter().map(|p| self.set_closure(&p.sets)).collect();
        let members = |label: &Label| -> Vec<usize> {
            (0..self.entries.len())
                .filter(|&i| match label {
                    Label::System(id, _) => self.entries[i].system.label() == *id,
                    Label::Instance(instance, ..) => self.plans[i].instance == *instance,
                    Label::Set(set) => sets_of[i].contains(set),
                })
                .collect()
        };
        let name = |i: usize| self.entries[i].system.name();
        // (who is constrained, its systems, the relation, to what)
        let mut constraints: Vec<(Option<&InternedSet>, Vec<usize>, &str, &Label)> = Vec::new();
        for (i, plan) in self.plans.iter().enumerate() {
            constraints.extend(plan.after.iter().map(|label| (None, vec![i], "after", label)));
            constraints.extend(plan.before.iter().map(|label| (None, vec![i], "before", label)));
        }
        for config in &self.sets {
            let systems = members(&Label::Set(config.set.clone()));
            constraints.extend(config.after.iter().map(|label| (Some(&config.set), systems.clone(), "after", label)));
            constraints.extend(config.before.iter().map(|label| (Some(&config.set), systems.clone(), "before", label)));
        }
        let mut edges = Vec::new();
        for (set, subjects, relation, label) in constraints {
            let targets = members(label);
            if targets.is_empty() {
                match (label, set) {
                    // An empty set orders nothing, as an unused set would.
                    (Label::Set(_), _) => continue,
                    (Label::System(_, missing), Some(set)) => panic!(
                        "set `{}` is ordered {relation} system `{missing}`, which is not in the schedule; \
                         add it with `schedule.add_systems({})`, or drop the constraint",
                        set.name(),
                        short_fn(missing),
                    ),
                    // A chain's systems are added together: never missing.
                    (Label::Instance(..), _) => continue,
                    (Label::System(_, missing), None) => panic!(
                        "system `{}` is ordered {relation} system `{missing}`, which is not in the schedule; \
                         add it with `schedule.add_systems({})`, or drop the constraint",
                        name(subjects[0]),
                        short_fn(missing),
                    ),
                }
            }
            if let (Label::System(_, path), [_, _, ..]) = (label, targets.as_slice()) {
                // bevy_ecs refuses this too: which of them is meant is a guess.
                let subject =
                    set.map_or_else(|| format!("system `{}`", name(subjects[0])), |s| format!("set `{}`", s.name()));
                panic!(
                    "{subject} is ordered {relation} system `{path}`, which was added {} times: which one is meant \
                     is ambiguous; put them in a set (`.in_set(…)`) and order against the set",
                    targets.len(),
                );
            }
            // How the constraint reads in messages.
            let who = set.map_or_else(|| "it".to_owned(), |set| format!("set `{}`", set.name()));
            let whom = match label {
                Label::System(..) | Label::Instance(..) => format!("`{}`", name(targets[0])),
                Label::Set(target) => format!("set `{}`", target.name()),
            };
            let through = match (set, label) {
                (Some(set), _) | (None, Label::Set(set)) => format!(" (through set `{}`)", set.name()),
                (None, Label::System(..) | Label::Instance(..)) => String::new(),
            };
            for &subject in &subjects {
                for &other in &targets {
                    let (first, then) = if relation == "after" { (other, subject) } else { (subject, other) };
                    if first == then {
                        panic!(
                            "system `{}` is ordered {relation} itself ({who} is ordered {relation} {whom})",
                            name(subject)
                        );
                    }
                    match segment_of[first].cmp(&segment_of[then]) {
                        core::cmp::Ordering::Less => {} // the sync point between them keeps the order
                        core::cmp::Ordering::Equal => {
                            let sync = !matches!(label, Label::Instance(_, _, false));
                            edges.push(Edge { first, then, sync });
                        }
                        core::cmp::Ordering::Greater => panic!(
                            "system `{}` is ordered {relation} `{}`{through}, but a sync point (or an exclusive \
                             system) between them runs `{}` first; move one of them across the sync point or drop \
                             the constraint",
                            name(subject),
                            name(other),
                            name(then),
                        ),
                    }
                }
            }
        }
        edges
    }

    /// `direct` and every set those are in (through `configure_sets(… .in_set(…))`),
    /// transitively.
    pub(super) fn set_closure(&self, direct: &[InternedSet]) -> Vec<InternedSet> {
        let mut all = direct.to_vec();
        let mut next = 0;
        while next < all.len() {
            let set = all[next].clone();
            for config in self.sets.iter().filter(|c| c.set == set) {
                for parent in &config.parents {
                    if !all.contains(parent) {
                        all.push(parent.clone());
                    }
                }
            }
            next += 1;
        }
        all
    }

    /// Orders one segment's systems into batches. Explicit constraints come first;
    /// systems whose access conflicts are then ordered as the explicit constraints
    /// and, where those leave it open, insertion order say (a stable topological
    /// order), so an explicit constraint always wins over the insertion default.
    ///
    /// A system explicitly ordered after one that may queue commands (`after`,
    /// `before`, `.chain()`) sees those commands applied: an automatic sync point
    /// goes between their batches, as in bevy_ecs. Ordering that only conflicts
    /// imply adds none.
    ///
    /// # Panics
    /// When the explicit constraints form a cycle, naming the systems on it.
    #[track_caller]
    pub(super) fn plan_segment(
        &self,
        segment: &[usize],
        explicit: &[Edge],
        accesses: &[SystemAccess],
        deferred: &[usize],
        plan: &mut Vec<Step>,
    ) {
        let n = segment.len();
        let local = |index: usize| segment.iter().position(|&i| i == index);
        // preds[j]: systems (local indices) that must finish before segment[j].
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        for &Edge { first, then, .. } in explicit {
            if let (Some(f), Some(t)) = (local(first), local(then)) {
                preds[t].push(f);
            }
        }
        // Stable topological order of the explicit constraints: of the systems
        // whose predecessors are all placed, the earliest added goes next.
        let mut order = Vec::with_capacity(n);
        let mut placed = vec![false; n];
        while order.len() < n {
            let next = (0..n).find(|&j| !placed[j] && preds[j].iter().all(|&p| placed[p]));
            let Some(j) = next else {
                let cycle = Self::cycle(&preds, &placed);
                let names: Vec<_> = cycle.iter().map(|&j| self.entries[segment[j]].system.name()).collect();
                panic!("the ordering constraints form a cycle: {}", names.join(" -> "));
            };
            placed[j] = true;
            order.push(j);
        }
        let mut rank = vec![0; n];
        for (r, &j) in order.iter().enumerate() {
            rank[j] = r;
        }
        for j in 0..n {
            for i in 0..n {
                let conflict = || accesses[segment[i]].conflict(&accesses[segment[j]]).is_some();
                if rank[i] < rank[j] && conflict() {
                    preds[j].push(i);
                }
            }
        }
        // Layer by longest path, in topological order (every edge goes forward in it).
        let mut level = vec![0usize; n];
        for &j in &order {
            level[j] = preds[j].iter().map(|&p| level[p] + 1).max().unwrap_or(0);
        }
        // Automatic sync points: each explicit edge from a system with deferred
        // work needs an `Apply` after its source's batch and before its target's.
        // Each such edge is an interval of levels (source, target]; a sync point
        // placed at an interval's end covers every interval that contains it, so
        // taking them by end, a point goes in only where none covers yet.
        let mut intervals: Vec<(usize, usize)> = explicit
            .iter()
            .filter(|edge| edge.sync && deferred.contains(&edge.first))
            .filter_map(|edge| Some((level[local(edge.first)?], level[local(edge.then)?])))
            .collect();
        intervals.sort_unstable_by_key(|&(_, end)| end);
        let mut sync_before = vec![false; n + 1];
        let mut last_sync = None;
        for (start, end) in intervals {
            if last_sync.is_none_or(|at| at <= start) {
                sync_before[end] = true;
                last_sync = Some(end);
            }
        }
        let depth = level.iter().max().map_or(0, |d| d + 1);
        for (d, &sync) in sync_before.iter().enumerate().take(depth) {
            if sync {
                plan.push(Step::Apply(deferred.to_vec()));
            }
            let batch: Vec<usize> = (0..n).filter(|&j| level[j] == d).map(|j| segment[j]).collect();
            plan.push(Step::Batch(batch, Adaptive::new()));
        }
    }

    /// A cycle among the systems not `placed` (each has an unplaced predecessor),
    /// in constraint order (each runs before the next), the first repeated last.
    pub(super) fn cycle(preds: &[Vec<usize>], placed: &[bool]) -> Vec<usize> {
        let start = (0..preds.len()).find(|&j| !placed[j]).expect("a cycle leaves systems unplaced");
        // Walk backwards along unplaced predecessors until a system repeats.
        let mut path = vec![start];
        loop {
            let last = *path.last().expect("the path is never empty");
            let pred = *preds[last].iter().find(|&&p| !placed[p]).expect("an unplaced system waits on one");
            if let Some(at) = path.iter().position(|&j| j == pred) {
                let mut cycle: Vec<usize> = path[at..].to_vec();
                cycle.reverse();
                cycle.push(*cycle.first().expect("a cycle has a system"));
                return cycle;
            }
            path.push(pred);
        }
    }
}

/// The last segment of a function's path (`game::systems::movement` ->
/// `movement`): what the user writes in `add_systems`.
fn short_fn(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path)
}
