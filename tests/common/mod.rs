//! Helpers shared by the integration tests (a module, not a test target).

/// The message of a caught panic (`panic!("…")` with or without arguments).
#[allow(dead_code, reason = "not every test target that shares this module uses it")]
pub fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// A property test's number of cases: `PROPTEST_CASES` when set (CI sets it
/// low for the run under valgrind, some fifty times slower), else `default`.
/// An explicit `cases` in a `ProptestConfig` would otherwise override it.
#[allow(dead_code, reason = "not every test target that shares this module uses it")]
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

thread_local! {
    /// Per thread, so that tests running side by side do not count each other.
    static ROWS_ASKED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A query item that yields `()` for every row and counts the rows it is
/// asked about: how many rows a filter made a query read.
#[allow(dead_code, reason = "not every test target that shares this module uses it")]
pub struct CountRows;

/// The rows [`CountRows`] was asked about on this thread since the last
/// [`reset_rows_asked`].
#[allow(dead_code, reason = "not every test target that shares this module uses it")]
pub fn rows_asked() -> usize {
    ROWS_ASKED.get()
}

#[allow(dead_code, reason = "not every test target that shares this module uses it")]
pub fn reset_rows_asked() {
    ROWS_ASKED.set(0);
}

// SAFETY: reads nothing, caches nothing, matches everything.
unsafe impl ecs_core::query::QueryData for CountRows {
    type Item<'w> = ();
    type Slice<'w> = ();
    type Fetch<'w> = ();
    type State = ();
    const COLUMNS: usize = 0;
    const DENSE: bool = false;

    fn init_state() {}
    fn access(_: &(), _: &mut ecs_core::query::Access) {}
    fn matches(_: &(), _: &ecs_core::archetype::Archetype) -> bool {
        true
    }
    fn required(_: &(), _: &mut impl FnMut(ecs_core::ComponentId)) {}
    fn columns(_: &(), _: &ecs_core::archetype::Archetype, _: &mut Vec<ecs_core::query::CachedColumn>) {}
    unsafe fn fetch_archetype(
        _: &ecs_core::archetype::Archetype,
        _: &mut &[ecs_core::query::CachedColumn],
        _: ecs_core::query::FetchContext,
    ) {
    }
    unsafe fn filter_row(_: &(), _: usize) -> bool {
        ROWS_ASKED.set(ROWS_ASKED.get() + 1);
        true
    }
    unsafe fn fetch<'w>(_: &Self::Fetch<'w>, _: usize) -> Self::Item<'w> {}
    fn shrink<'long: 'short, 'short>(_: ()) {}
    unsafe fn slice<'w>(_: &Self::Fetch<'w>, _: std::ops::Range<usize>) -> Self::Slice<'w> {}
}

// SAFETY: reads nothing.
unsafe impl ecs_core::query::ReadOnlyQueryData for CountRows {}

/// Where `name` is in a log of system names; panics naming it when it is missing.
#[allow(dead_code, reason = "not every test target that shares this module uses it")]
pub fn position(log: &[&str], name: &str) -> usize {
    log.iter().position(|n| *n == name).unwrap_or_else(|| panic!("{name} did not run: {log:?}"))
}
