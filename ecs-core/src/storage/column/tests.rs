use super::*;
use crate::storage::array::{PAGE, PAGE_ALIGNED_FROM};
use crate::storage::growth::MAPPED_FROM;
use std::cell::Cell;

thread_local!(static DROPS: Cell<usize> = const { Cell::new(0) });

struct Counted(#[allow(dead_code)] u64);
impl Drop for Counted {
    fn drop(&mut self) {
        DROPS.with(|d| d.set(d.get() + 1));
    }
}

fn drops() -> usize {
    DROPS.with(Cell::get)
}

unsafe fn drop_counted(ptr: OwningPtr<'_>, _: *const ()) {
    // SAFETY: only used for columns of `Counted`.
    unsafe { ptr.drop_as::<Counted>() }
}

fn counted_column() -> Column {
    let glue: &'static DropGlue = const {
        // SAFETY: `drop_counted` drops a `Counted`, the column's values; no context.
        &unsafe { DropGlue::new(drop_counted, core::ptr::null()) }
    };
    Column::from_layout(Layout::new::<Counted>(), Some(glue))
}

fn push<T>(column: &mut Column, value: T) {
    // SAFETY: the tests use each column with a single type `T`.
    OwningPtr::make(value, |ptr| unsafe { column.push(ptr, Tick::new(0)) });
}

fn read<T: Copy>(column: &Column, row: usize) -> T {
    // SAFETY: the tests use each column with a single type `T`.
    unsafe { *column.get(row).unwrap().deref::<T>() }
}

#[test]
fn small_copies_move_every_byte_for_every_size() {
    for size in 0..=80usize {
        let src: Vec<u8> = (0..size as u8).map(|b| b.wrapping_mul(37).wrapping_add(1)).collect();
        let mut dst = vec![0xAAu8; size + 2];
        // SAFETY: both buffers hold at least `size` bytes and are distinct.
        unsafe { copy_item(src.as_ptr(), dst.as_mut_ptr().add(1), size) };
        assert_eq!(&dst[1..=size], &src[..], "size {size}");
        assert_eq!((dst[0], dst[size + 1]), (0xAA, 0xAA), "size {size} wrote out of bounds");
    }
}

#[test]
fn grows_across_reallocation_keeping_values() {
    let mut column = Column::from_layout(Layout::new::<u64>(), None);
    for i in 0..1000u64 {
        push(&mut column, i * 3);
        assert!(column.capacity() >= column.len());
    }
    assert!((0..1000).all(|i| read::<u64>(&column, i) == i as u64 * 3));
    assert!(column.get(1000).is_none());
    column.check_invariants().unwrap();
}

#[test]
fn over_aligned_values_are_aligned_after_every_growth() {
    #[derive(Clone, Copy)]
    #[repr(align(4096))]
    struct Page(u8);
    let mut column = Column::from_layout(Layout::new::<Page>(), None);
    for i in 0..20u8 {
        push(&mut column, Page(i));
        assert_eq!(column.data_ptr().as_ptr() as usize % 4096, 0);
    }
    assert!((0..20).all(|i| read::<Page>(&column, i).0 == i as u8));
}

#[test]
fn arrays_of_a_kibibyte_or_more_start_on_a_page_and_keep_their_values() {
    // u16 rows: small arrays first (not aligned), then the growth that first
    // reaches `PAGE_ALIGNED_FROM` moves the rows to a page-aligned block, and
    // later ones keep that alignment, up to and past the mapped size.
    let mut column = Column::from_layout(Layout::new::<u16>(), None);
    let mut small = 0;
    for i in 0..(MAPPED_FROM / 2 + 1000) {
        push(&mut column, i as u16);
        let bytes = column.capacity() * 2;
        if bytes >= PAGE_ALIGNED_FROM {
            assert_eq!(column.data_ptr().as_ptr() as usize % PAGE, 0, "{bytes} bytes");
        } else {
            small += 1;
        }
    }
    assert!(small > 0, "some arrays were below the threshold");
    assert!((0..column.len()).all(|i| read::<u16>(&column, i) == i as u16));
    column.check_invariants().unwrap();
}

#[test]
fn zero_sized_values_never_allocate() {
    let mut column = Column::from_layout(Layout::new::<()>(), None);
    for _ in 0..10_000 {
        push(&mut column, ());
    }
    assert_eq!(column.len(), 10_000);
    assert_eq!(column.data_ptr().as_ptr() as usize, 1, "no allocation for the values");
    let mut panic = None;
    // SAFETY: row 0 is live.
    unsafe { column.swap_remove_drop(0, &mut panic) };
    assert_eq!(column.len(), 9_999);
}

#[test]
fn swap_remove_moves_last_row_and_drops_once() {
    let before = drops();
    let mut column = counted_column();
    for i in 0..4 {
        push(&mut column, Counted(i));
    }
    let mut panic = None;
    // SAFETY: row 1 is live.
    unsafe { column.swap_remove_drop(1, &mut panic) };
    assert!(panic.is_none());
    assert_eq!(drops() - before, 1);
    // SAFETY: `Counted` is `repr(Rust)` with one u64 field; reading the u64 is fine.
    let ids: Vec<u64> = (0..3).map(|r| unsafe { column.get(r).unwrap().deref::<Counted>().0 }).collect();
    assert_eq!(ids, [0, 3, 2]);
    drop(column);
    assert_eq!(drops() - before, 4);
}

#[test]
fn swap_remove_into_moves_without_drop() {
    let before = drops();
    let mut a = counted_column();
    let mut b = counted_column();
    push(&mut a, Counted(1));
    push(&mut a, Counted(2));
    b.reserve(1);
    // SAFETY: row 0 is live, same type, `b` has room.
    unsafe { a.swap_remove_into(0, &mut b, Tick::new(1)) };
    assert_eq!(drops(), before);
    assert_eq!((a.len(), b.len()), (1, 1));
    drop((a, b));
    assert_eq!(drops() - before, 2);
}
