//! Compile-time checks of the derive macros: what must compile (including under
//! `#![no_implicit_prelude]`) and each misuse, with its expected message checked in
//! next to it as `.stderr`. Regenerate with `TRYBUILD=overwrite cargo test --test derive`
//! and review the diff.

#[test]
fn derives() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
