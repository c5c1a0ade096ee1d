//! Move ordering memory: killer moves per ply and a history table of quiet moves.

use dama_rules::{Color, Move};

use crate::alphabeta::MAX_PLY;

/// Two quiet moves per ply that caused a cut-off in a sibling node.
pub(crate) struct Killers([[Option<Move>; 2]; MAX_PLY]);

impl Default for Killers {
    fn default() -> Killers {
        Killers([[None; 2]; MAX_PLY])
    }
}

impl Killers {
    #[inline]
    pub fn add(&mut self, ply: usize, m: Move) {
        let slot = &mut self.0[ply];
        if slot[0] != Some(m) {
            slot[1] = slot[0];
            slot[0] = Some(m);
        }
    }

    /// Which killer slot `m` is in at `ply`, if any.
    #[inline]
    pub fn slot(&self, ply: usize, m: Move) -> Option<usize> {
        self.0[ply].iter().position(|&k| k == Some(m))
    }
}

/// How often a quiet move (by side, from, to) caused a cut-off, weighted by depth².
pub(crate) struct History(Box<[[[i32; 32]; 32]; 2]>);

/// Ceiling of a history value; all values are halved when one reaches it.
const HISTORY_MAX: i32 = 1 << 20;

impl Default for History {
    fn default() -> History {
        History(Box::new([[[0; 32]; 32]; 2]))
    }
}

impl History {
    #[inline]
    pub fn get(&self, us: Color, m: Move) -> i32 {
        self.0[us.index()][m.from().index()][m.to().index()]
    }

    #[inline]
    pub fn reward(&mut self, us: Color, m: Move, depth: i32) {
        let entry = &mut self.0[us.index()][m.from().index()][m.to().index()];
        *entry += depth * depth;
        if *entry >= HISTORY_MAX {
            for v in self.0.iter_mut().flatten().flatten() {
                *v /= 2;
            }
        }
    }
}
