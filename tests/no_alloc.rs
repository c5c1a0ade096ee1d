//! Move generation and perft never touch the heap: a counting global allocator watches them.
//!
//! The one `unsafe` of the workspace: a global allocator cannot be written without it.

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use dama::rules::notation::fen;
use dama::rules::perft::perft;
use dama::rules::variant::{Czech, Italian, Russian, Spanish};
use dama::rules::{MoveList, Position, Rules};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call unchanged to the system allocator; it only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    f();
    ALLOCATIONS.load(Ordering::Relaxed) - before
}

fn check<R: Rules>(pos: &Position, depth: u32) {
    let n = allocations_during(|| {
        std::hint::black_box(perft::<R>(pos, depth));
        let mut list = MoveList::new();
        pos.generate::<R>(&mut list);
        std::hint::black_box(&list);
    });
    assert_eq!(n, 0, "{pos:?} depth {depth}");
}

#[test]
fn generation_and_perft_do_not_allocate() {
    // The counter sees allocations at all.
    assert_eq!(
        allocations_during(|| drop(std::hint::black_box(vec![1u8]))),
        1
    );
    let positions = [
        Position::start(),
        fen::parse("W:WK3,K14,19,22,K24,27,30:B2,5,K10,12,K17,K28").expect("valid"),
        fen::parse("W:WK30:B10,K12,K18,20,K26,K27").expect("valid"),
    ];
    for pos in &positions {
        check::<Italian>(pos, 5);
        check::<Spanish>(pos, 5);
        check::<Czech>(pos, 5);
        check::<Russian>(pos, 5);
    }
}
