//! Tables built in memory on first need.

use std::marker::PhantomData;
use std::sync::OnceLock;

use dama_rules::{Move, Position, Rules};

use crate::index::Material;
use crate::solve::{self, canonical, dependencies, Metric, Source, Stats};
use crate::{Error, Value};

/// The tables of rule set `R` with at most `max_pieces` pieces, each class built in memory
/// the first time a probe needs it (with the classes it converts into). Safe to share
/// between threads; a probe that needs an unbuilt class waits for it.
///
/// The distances are MTC by default, like the files'; [`Memory::dtw`] makes tables whose
/// distances are DTW (plies to the end of the game), which say which winning move brings the
/// end closer where MTC cannot (in a kings-only ending the quickest conversion may be a
/// sacrifice, the loser's capture).
pub struct Memory<R: Rules> {
    max_pieces: u32,
    kings_only: u32,
    threads: usize,
    metric: Metric,
    slots: Vec<OnceLock<Result<Box<[u8]>, String>>>,
    _rules: PhantomData<R>,
}

impl<R: Rules> Memory<R> {
    /// Empty tables covering up to `max_pieces` pieces (capped at 7).
    pub fn new(max_pieces: u32) -> Memory<R> {
        Memory {
            max_pieces: max_pieces.min(7),
            kings_only: 0,
            threads: 1,
            metric: Metric::Mtc,
            slots: (0..4096).map(|_| OnceLock::new()).collect(),
            _rules: PhantomData,
        }
    }

    /// Builds with `threads` threads.
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Memory<R> {
        self.threads = threads.max(1);
        self
    }

    /// Distances in DTW rather than MTC: plies to the end of the game, every ply counted
    /// (see [`Metric::Dtw`]). The capture positions are stored as the others are.
    #[must_use]
    pub fn dtw(mut self) -> Memory<R> {
        self.metric = Metric::Dtw;
        self
    }

    /// The metric of the distances.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// Whether class `m` is built already (a probe of it never waits).
    pub fn is_built(&self, m: Material) -> bool {
        self.slots[m.key()].get().is_some()
    }

    /// Covers the kings-only classes of up to `pieces` pieces as well (capped at 7).
    #[must_use]
    pub fn with_kings_only(mut self, pieces: u32) -> Memory<R> {
        self.kings_only = pieces.min(7);
        self
    }

    /// The most pieces covered in every class.
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// Whether class `m` is covered.
    pub fn covers(&self, m: Material) -> bool {
        m.is_table()
            && (m.pieces() <= self.max_pieces || (m.men() == 0 && m.pieces() <= self.kings_only))
    }

    /// The values of class `m` (built now if needed); `None` outside the tables.
    pub fn table(&self, m: Material) -> Option<&[u8]> {
        if !self.covers(m) {
            return None;
        }
        self.ensure(m).ok()
    }

    fn ensure(&self, m: Material) -> Result<&[u8], Error> {
        let c = canonical(m);
        let built = self.slots[c.key()].get_or_init(|| {
            for d in dependencies(c) {
                if let Err(e) = self.ensure(d) {
                    return Err(e.to_string());
                }
            }
            match solve::solve_pair::<R, _>(self, c, self.threads, self.metric) {
                Ok((va, vb)) => {
                    if let Some(vb) = vb {
                        let _ = self.slots[c.flip().key()].set(Ok(vb));
                    }
                    Ok(va)
                }
                Err(e) => Err(e.to_string()),
            }
        });
        if let Err(e) = built {
            return Err(Error::Corrupt {
                path: "<memory>".into(),
                why: e.clone(),
            });
        }
        match self.slots[m.key()].get() {
            Some(Ok(t)) => Ok(t),
            _ => Err(Error::Missing { material: m }),
        }
    }

    /// The value of `pos` for its side to move, `None` with more pieces than covered.
    pub fn probe(&self, pos: &Position) -> Option<Value> {
        if pos.occupied().count() > self.max_pieces.max(self.kings_only) {
            return None;
        }
        solve::value_of::<R, _>(self, pos, false).ok().flatten()
    }

    /// As [`Memory::probe`], but never builds (nor waits for) a class: `None` unless the
    /// class of `pos` is built already (see [`Memory::table`] to build one).
    pub fn probe_built(&self, pos: &Position) -> Option<Value> {
        if pos.occupied().count() > self.max_pieces.max(self.kings_only) {
            return None;
        }
        solve::value_of::<R, _>(&Built(self), pos, false)
            .ok()
            .flatten()
    }

    /// A legal move keeping the value of `pos`: the quickest win (the quickest winning
    /// conversion in MTC), a draw, or the longest loss; `None` outside the tables or without
    /// a legal move.
    pub fn best_move(&self, pos: &Position) -> Option<Move> {
        best_move::<R>(pos, self.metric, |p| self.probe(p))
    }

    /// Counts over class `m` (built now if needed).
    pub fn stats(&self, m: Material) -> Option<Stats> {
        self.table(m).map(|t| solve::stats_of(m, t, self.metric))
    }

    /// Checks every position of class `m` against its successors; the number checked.
    ///
    /// # Errors
    /// [`Error::Mismatch`] at the first disagreement.
    pub fn verify(&self, m: Material) -> Result<u64, Error> {
        let t = self.ensure(m)?;
        verify_class::<R, _>(self, m, t, false, self.metric)
    }
}

impl<R: Rules> Source for Memory<R> {
    fn metric(&self) -> Metric {
        self.metric
    }

    fn byte(&self, m: Material, i: usize) -> Result<Option<u8>, Error> {
        if !self.covers(m) {
            return Ok(None);
        }
        Ok(self.ensure(m)?.get(i).copied())
    }
}

/// The classes of a [`Memory`] that are built, and nothing else.
struct Built<'a, R: Rules>(&'a Memory<R>);

impl<R: Rules> Source for Built<'_, R> {
    fn metric(&self) -> Metric {
        self.0.metric
    }

    fn byte(&self, m: Material, i: usize) -> Result<Option<u8>, Error> {
        if !self.0.covers(m) {
            return Ok(None);
        }
        Ok(match self.0.slots[m.key()].get() {
            Some(Ok(t)) => t.get(i).copied(),
            _ => None,
        })
    }
}

/// The move of `pos` whose successor `probe` values best for the side to move: by the MTC
/// rules (conversions count by their result only) or by DTW (every move one ply).
pub(crate) fn best_move<R: Rules>(
    pos: &Position,
    metric: Metric,
    mut probe: impl FnMut(&Position) -> Option<Value>,
) -> Option<Move> {
    let list = pos.moves::<R>();
    let kings = pos.kings(pos.turn());
    let mut best: Option<(i64, Move)> = None;
    for &m in list.iter() {
        let child = probe(&pos.after(m))?;
        let conversion = metric == Metric::Mtc && (m.is_capture() || !kings.contains(m.from()));
        let v = match (conversion, child) {
            (true, Value::Win(_)) => Value::Loss(1),
            (true, Value::Loss(_)) => Value::Win(1),
            (_, Value::Draw) => Value::Draw,
            (false, Value::Win(d)) => Value::Loss(d + 1),
            (false, Value::Loss(d)) => Value::Win(d + 1),
        };
        if best.is_none_or(|(k, _)| v.key() > k) {
            best = Some((v.key(), m));
        }
    }
    best.map(|(_, m)| m)
}

/// The verify pass over class `m` whose bytes are `t`: every position's stored value (or,
/// with `resolve_captures`, the value of a capture found by search) against its successors.
pub(crate) fn verify_class<R: Rules, S: Source + ?Sized>(
    src: &S,
    m: Material,
    t: &[u8],
    resolve_captures: bool,
    metric: Metric,
) -> Result<u64, Error> {
    let mut n = 0;
    let mut err = None;
    solve::for_each_placement(m, |i, p| {
        if err.is_some() {
            return;
        }
        let pos = p.position();
        if resolve_captures && pos.must_capture::<R>() {
            return;
        }
        let stored = solve::decode_in(t[i], metric);
        match solve::from_successors::<R, S>(src, &pos, resolve_captures, metric) {
            Ok(Some(expected)) if expected == stored => n += 1,
            Ok(Some(expected)) => {
                err = Some(Error::Mismatch {
                    material: m,
                    fen: pos.fen(),
                    stored,
                    expected,
                })
            }
            Ok(None) => err = Some(Error::Missing { material: m }),
            Err(e) => err = Some(e),
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(n),
    }
}
