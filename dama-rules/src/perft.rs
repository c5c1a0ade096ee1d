//! Perft: counting the leaves of the legal-move tree, to check the generator.

use crate::{Move, MoveList, Position, Rules};

/// Leaves of the legal-move tree of depth `depth` under rules `R`.
///
/// The last ply is bulk-counted: quiet moves are counted with population counts, never listed.
/// Draw rules do not stop the count.
///
/// ```
/// use dama_rules::{perft::perft, variant::Italian, Position};
/// assert_eq!(perft::<Italian>(&Position::start(), 4), 1469);
/// ```
pub fn perft<R: Rules>(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves::<R>(),
        _ => {
            let mut list = MoveList::new();
            pos.generate::<R>(&mut list);
            list.iter()
                .map(|&m| perft::<R>(&pos.after(m), depth - 1))
                .sum()
        }
    }
}

/// Perft of each legal move at depth `depth` (the "divide" of a perft run), in generation order.
pub fn divide<R: Rules>(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    pos.moves::<R>()
        .iter()
        .map(|&m| (m, perft::<R>(&pos.after(m), depth.saturating_sub(1))))
        .collect()
}
