//! One module per crate; each turns a workload into a runnable closure, using the
//! crate the way its documentation recommends for speed (prepared or cached
//! queries, batch spawning, its own scheduler and parallel iteration).

pub mod baseline;
pub mod bevy;
pub mod ecs;
pub mod flecs;
pub mod hecs;
pub mod legion;
pub mod shipyard;
pub mod specs;

/// One iteration of a workload, with its prepared state.
pub type Runner = Box<dyn FnMut()>;

/// Calls `$cb!(0 1 … 99)`.
macro_rules! hundred {
    ($cb:ident) => {
        $cb!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35
             36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68
             69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99);
    };
}

/// Calls `$cb!(0 1 … 25)`: the 26 fragment types A..Z.
macro_rules! twenty_six {
    ($cb:ident) => {
        $cb!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25);
    };
}

pub(crate) use hundred;
pub(crate) use twenty_six;
