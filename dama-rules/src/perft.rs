//! Perft: counting the leaves of the legal-move tree, to check the generator.

use crate::movegen::{
    count_for_side, for_each_quiet_child, perft2_short, BlackSide, Side, WhiteSide,
};
use crate::{with_rules, Color, Move, MoveList, Position, Rules, Variant};

/// Leaves of the legal-move tree of depth `depth` under rules `R`.
///
/// The last ply is bulk-counted: quiet moves are counted with population counts, never listed;
/// above it, quiet moves are played straight from the bitboards, never listed either.
/// Under short-king rules the ply above the last counts each quiet move's replies from the
/// counts before it (the replies onto the emptied square gained, onto the filled one lost).
/// Draw rules do not stop the count.
///
/// ```
/// use dama_rules::{perft::perft, variant::Italian, Position};
/// assert_eq!(perft::<Italian>(&Position::start(), 4), 1469);
/// ```
pub fn perft<R: Rules>(pos: &Position, depth: u32) -> u64 {
    match pos.turn() {
        Color::White => perft_side::<R, WhiteSide>(pos, depth),
        Color::Black => perft_side::<R, BlackSide>(pos, depth),
    }
}

fn perft_side<R: Rules, S: Side>(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => count_for_side::<R, S>(pos),
        2 if !R::KINGS_FLY => perft2_short::<R, S>(pos),
        _ => {
            let mut total = 0;
            // Quiet moves are played straight from the bitboards, never listed.
            let mut list = MoveList::new();
            let captures = for_each_quiet_child::<R, S>(pos, &mut list, |next| {
                total += perft_side::<R, S::Other>(next, depth - 1);
            });
            if captures {
                for &m in &list {
                    let mut next = *pos;
                    next.play_side::<S>(m);
                    total += perft_side::<R, S::Other>(&next, depth - 1);
                }
            }
            total
        }
    }
}

/// [`perft`] under the rules of a variant chosen at run time.
///
/// Compiled here, with this crate's optimisation: a caller built without optimisation (a test
/// or a debug build of a tool) counts at full speed, which it would not with `perft::<R>`
/// instantiated in its own code.
///
/// ```
/// use dama_rules::{perft::perft_of, Position, Variant};
/// assert_eq!(perft_of(Variant::Italian, &Position::start(), 4), 1469);
/// ```
pub fn perft_of(variant: Variant, pos: &Position, depth: u32) -> u64 {
    with_rules!(variant, R => perft::<R>(pos, depth))
}

/// [`divide`] under the rules of a variant chosen at run time (compiled here, as
/// [`perft_of`]).
pub fn divide_of(variant: Variant, pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    with_rules!(variant, R => divide::<R>(pos, depth))
}

/// Perft of each legal move at depth `depth` (the "divide" of a perft run), in generation order.
pub fn divide<R: Rules>(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    pos.moves::<R>()
        .iter()
        .map(|&m| (m, perft::<R>(&pos.after(m), depth.saturating_sub(1))))
        .collect()
}
