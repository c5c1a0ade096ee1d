//! Move generation and perft never touch the heap: a counting global allocator watches them.
//!
//! One of the two `unsafe`s of the workspace (the other is dama-search's cache prefetch): a
//! global allocator cannot be written without it.
//!
//! Only the measuring thread's allocations are counted: the test harness's other threads
//! (its main thread, output capture, other tests) allocate whenever they like, and a shared
//! counter saw them now and then (a flaky failure about once in 40 to 300 runs).

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::{Arc, Barrier};

use dama::rules::notation::fen;
use dama::rules::perft::perft;
use dama::rules::variant::{Czech, Italian, Russian, Spanish};
use dama::rules::{MoveList, Position, Rules};

struct Counting;

thread_local! {
    /// Allocations made by this thread. `const` initialisation: reading it never allocates,
    /// which the allocator itself relies on.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// Adds one to this thread's count. `try_with`: a thread being torn down, whose
/// thread-locals are gone, may still allocate; that is not counted.
fn count_one() {
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: forwards every call unchanged to the system allocator; it only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
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

/// The allocations this thread makes while running `f`.
fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
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
    // The counter sees this thread's allocations, and only them.
    assert_eq!(
        allocations_during(|| drop(std::hint::black_box(vec![1u8]))),
        1
    );
    // Another thread allocating meanwhile is not counted here (it counts on its own).
    let barrier = Arc::new(Barrier::new(2));
    let other = Arc::clone(&barrier);
    let worker = std::thread::spawn(move || {
        other.wait();
        let n = allocations_during(|| drop(std::hint::black_box(vec![1u8; 64])));
        other.wait();
        n
    });
    let here = allocations_during(|| {
        barrier.wait();
        barrier.wait();
    });
    assert_eq!((here, worker.join().expect("the worker runs")), (0, 1));
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
