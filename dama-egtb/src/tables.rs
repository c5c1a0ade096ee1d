//! Tables on disk: the build into a directory, and [`Tables`], the probe with a block cache.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use dama_rules::{Move, Position, Rules, Variant};

use crate::file::{self, TableFile};
use crate::index::Material;
use crate::memory::{best_move, verify_class};
use crate::solve::{self, build_order, Source, Stats};
use crate::{Error, Value};

/// The directory of the tables when none is given: `$DAMA_EGTB`, else the user's cache
/// directory (`$XDG_CACHE_HOME/dama/egtb` or `~/.cache/dama/egtb`).
pub fn default_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("DAMA_EGTB").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(d).join("dama").join("egtb");
    }
    let home = std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .map_or_else(|| PathBuf::from("."), PathBuf::from);
    home.join(".cache").join("dama").join("egtb")
}

/// The tables held in memory during a build, one byte per index, by [`Material::key`].
pub(crate) struct Store {
    slots: Vec<Option<Box<[u8]>>>,
}

impl Store {
    pub fn new() -> Store {
        Store {
            slots: (0..4096).map(|_| None).collect(),
        }
    }

    pub fn get(&self, m: Material) -> Option<&[u8]> {
        self.slots[m.key()].as_deref()
    }

    pub fn insert(&mut self, m: Material, values: Box<[u8]>) {
        self.slots[m.key()] = Some(values);
    }
}

impl Source for Store {
    fn byte(&self, m: Material, i: usize) -> Result<Option<u8>, Error> {
        Ok(self.get(m).and_then(|t| t.get(i).copied()))
    }
}

/// What a build reports as it goes.
#[derive(Clone, Debug)]
pub enum BuildEvent {
    /// A class pair is about to be solved: `done` of `total` pairs are finished.
    Start {
        /// The class (its twin is solved with it).
        material: Material,
        /// Pairs finished.
        done: usize,
        /// Pairs in all.
        total: usize,
        /// Indices of the pair.
        positions: u64,
    },
    /// A class pair was solved and written, or found already built (`seconds` is 0).
    Finished {
        /// The class.
        material: Material,
        /// Pairs finished, this one included.
        done: usize,
        /// Pairs in all.
        total: usize,
        /// Indices of the pair.
        positions: u64,
        /// Bytes of its files.
        bytes: u64,
        /// Time to solve and write it.
        seconds: f64,
        /// Whether it was there from an earlier build.
        resumed: bool,
    },
}

/// The directory of one variant's tables.
pub fn variant_dir(dir: &Path, variant: Variant) -> PathBuf {
    dir.join(variant.name())
}

/// Builds every table of `variant` with at most `pieces` pieces into `dir` (in the
/// subdirectory named after the variant), with `threads` threads. Resumable: classes whose
/// files are there and valid are read instead of solved, so a build that was killed goes on
/// from the last finished class. A manifest (`manifest.txt`) lists each finished class with
/// its size, build time and checksum.
///
/// # Errors
/// [`Error::Io`] when the directory cannot be written; [`Error::Corrupt`] never (a bad file
/// is rebuilt).
pub fn build(
    variant: Variant,
    pieces: u32,
    dir: &Path,
    threads: usize,
    mut progress: impl FnMut(&BuildEvent),
) -> Result<(), Error> {
    dama_rules::with_rules!(variant, R => build_for::<R>(pieces, dir, threads, &mut progress))
}

fn build_for<R: Rules>(
    pieces: u32,
    dir: &Path,
    threads: usize,
    progress: &mut dyn FnMut(&BuildEvent),
) -> Result<(), Error> {
    let vdir = variant_dir(dir, R::VARIANT);
    std::fs::create_dir_all(&vdir).map_err(|source| Error::Io {
        path: vdir.clone(),
        source,
    })?;
    let order = build_order(pieces.min(7));
    let total = order.len();
    let mut store = Store::new();
    for (done, &m) in order.iter().enumerate() {
        let twins: Vec<Material> = if m == m.flip() {
            vec![m]
        } else {
            vec![m, m.flip()]
        };
        let positions: u64 = twins.iter().map(|t| t.len() as u64).sum();
        let existing: Option<Vec<(Material, Vec<u8>, u64)>> = twins
            .iter()
            .map(|&t| {
                let f = TableFile::open(&vdir.join(file::file_name(t))).ok()?;
                (f.header().variant == R::VARIANT && f.header().material == t)
                    .then(|| f.read_all().ok().map(|v| (t, v, f.size())))
                    .flatten()
            })
            .collect();
        if let Some(existing) = existing {
            let bytes = existing.iter().map(|e| e.2).sum();
            for (t, v, _) in existing {
                store.insert(t, v.into_boxed_slice());
            }
            progress(&BuildEvent::Finished {
                material: m,
                done: done + 1,
                total,
                positions,
                bytes,
                seconds: 0.0,
                resumed: true,
            });
            continue;
        }
        progress(&BuildEvent::Start {
            material: m,
            done,
            total,
            positions,
        });
        let t0 = Instant::now();
        let (va, vb) = solve::solve_pair::<R, _>(&store, m, threads, solve::Metric::Mtc)?;
        let mut results = vec![(m, va)];
        if let Some(vb) = vb {
            results.push((m.flip(), vb));
        }
        let mut bytes = 0;
        let mut lines = String::new();
        for (t, values) in results {
            let path = vdir.join(file::file_name(t));
            let header = file::write(&path, R::VARIANT, t, &values, |i| {
                t.placement(i)
                    .is_none_or(|p| p.position().must_capture::<R>())
            })?;
            let size = std::fs::metadata(&path).map_or(0, |md| md.len());
            bytes += size;
            store.insert(t, values);
            lines.push_str(&format!(
                "{t} positions={} bytes={size} seconds={:.2} checksum={:016x}\n",
                t.len(),
                t0.elapsed().as_secs_f64(),
                header.checksum
            ));
        }
        append_manifest(&vdir, &lines)?;
        progress(&BuildEvent::Finished {
            material: m,
            done: done + 1,
            total,
            positions,
            bytes,
            seconds: t0.elapsed().as_secs_f64(),
            resumed: false,
        });
    }
    Ok(())
}

fn append_manifest(vdir: &Path, lines: &str) -> Result<(), Error> {
    use std::io::Write;
    let path = vdir.join("manifest.txt");
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(lines.as_bytes()))
        .map_err(|source| Error::Io { path, source })
}

/// Decompressed blocks kept, at most.
const CACHE_BLOCKS: usize = 512;

/// A block: variant slot, class key, block number.
type BlockKey = (u8, u16, u32);

/// A small cache of decompressed blocks, least recently used out: each entry carries the
/// tick of its last use, and a miss with the cache full drops the oldest (a scan of at most
/// [`CACHE_BLOCKS`] entries, nothing beside the inflation of a block).
#[derive(Default)]
struct Cache {
    map: HashMap<BlockKey, (Arc<[u8]>, u64)>,
    tick: u64,
}

impl Cache {
    fn get(&mut self, key: &BlockKey, i: usize) -> Option<Option<u8>> {
        self.tick += 1;
        let tick = self.tick;
        self.map.get_mut(key).map(|(block, used)| {
            *used = tick;
            block.get(i).copied()
        })
    }

    fn insert(&mut self, key: BlockKey, block: Arc<[u8]>) {
        if self.map.len() >= CACHE_BLOCKS && !self.map.contains_key(&key) {
            if let Some(old) = self
                .map
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| *k)
            {
                self.map.remove(&old);
            }
        }
        self.tick += 1;
        self.map.insert(key, (block, self.tick));
    }
}

/// A class's file once looked for: absent, open, or refused (with why).
type Opened = Option<Result<Arc<TableFile>, String>>;

/// Endgame tables in a directory, as `dama egtb build` leaves them: each class's file is
/// opened on its first probe, and a probe reads one block (cached: 512 blocks of 32 Ki
/// values, 16 MiB at most).
///
/// ```
/// use dama_egtb::{build, Tables, Value};
/// use dama_rules::{Position, Variant};
///
/// let dir = std::env::temp_dir().join(format!("dama-egtb-doc-{}", std::process::id()));
/// build(Variant::Italian, 3, &dir, 1, |_| {})?;
/// let tables = Tables::open(&dir)?;
/// let pos: Position = "W:WK18,22:BK29".parse()?;
/// assert!(matches!(tables.probe(Variant::Italian, &pos)?, Some(Value::Win(_))));
/// // Four pieces: not built, unknown.
/// let pos: Position = "W:WK18,22:BK29,K30".parse()?;
/// assert_eq!(tables.probe(Variant::Italian, &pos)?, None);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub struct Tables {
    dir: PathBuf,
    files: Vec<OnceLock<Opened>>,
    cache: Mutex<Cache>,
    max_pieces: [u32; 6],
}

impl Tables {
    /// The tables in `dir` (which need not exist: then nothing is known).
    ///
    /// # Errors
    /// None today; the `Result` leaves room for a manifest check.
    pub fn open(dir: impl AsRef<Path>) -> Result<Tables, Error> {
        let dir = dir.as_ref().to_path_buf();
        let mut max_pieces = [0u32; 6];
        for (v, slot) in Variant::ALL.iter().zip(&mut max_pieces) {
            let vdir = variant_dir(&dir, *v);
            for n in 2..=7 {
                let complete = build_order(n).iter().all(|m| {
                    [*m, m.flip()]
                        .iter()
                        .all(|t| vdir.join(file::file_name(*t)).is_file())
                });
                if !complete {
                    break;
                }
                *slot = n;
            }
        }
        Ok(Tables {
            dir,
            files: (0..6 * 4096).map(|_| OnceLock::new()).collect(),
            cache: Mutex::new(Cache::default()),
            max_pieces,
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The most pieces for which every class of `variant` has its file (0 when none).
    pub fn max_pieces(&self, variant: Variant) -> u32 {
        self.max_pieces[variant_slot(variant)]
    }

    fn file(&self, variant: Variant, m: Material) -> Result<Option<Arc<TableFile>>, Error> {
        let slot = &self.files[variant_slot(variant) * 4096 + m.key()];
        let path = variant_dir(&self.dir, variant).join(file::file_name(m));
        let f = slot.get_or_init(|| {
            if !path.is_file() {
                return None;
            }
            Some(
                TableFile::open(&path)
                    .and_then(|f| {
                        let h = f.header();
                        if h.variant != variant || h.material != m {
                            Err(Error::Corrupt {
                                path: path.clone(),
                                why: format!(
                                    "it holds {} {}, expected {variant} {m}",
                                    h.variant, h.material
                                ),
                            })
                        } else {
                            Ok(Arc::new(f))
                        }
                    })
                    .map_err(|e| e.to_string()),
            )
        });
        match f {
            None => Ok(None),
            Some(Ok(f)) => Ok(Some(f.clone())),
            Some(Err(why)) => Err(Error::Corrupt {
                path,
                why: why.clone(),
            }),
        }
    }

    /// The value of `pos` under the rules of `variant` for its side to move; `None` when the
    /// tables of its class are not there. Positions with a capture for the side to move are
    /// valued by searching the captures.
    ///
    /// # Errors
    /// [`Error::Corrupt`] or [`Error::Io`] when a file needed is bad.
    pub fn probe(&self, variant: Variant, pos: &Position) -> Result<Option<Value>, Error> {
        dama_rules::with_rules!(variant, R => self.probe_rules::<R>(pos))
    }

    /// [`Tables::probe`] for a rule set known at compile time.
    ///
    /// # Errors
    /// As [`Tables::probe`].
    pub fn probe_rules<R: Rules>(&self, pos: &Position) -> Result<Option<Value>, Error> {
        if pos.occupied().count() > 7 {
            return Ok(None);
        }
        solve::value_of::<R, _>(&Files::<R>(self, Default::default()), pos, true)
    }

    /// A legal move keeping the value of `pos`; `None` when unknown or without a move.
    pub fn best_move<R: Rules>(&self, pos: &Position) -> Option<Move> {
        best_move::<R>(pos, solve::Metric::Mtc, |p| {
            self.probe_rules::<R>(p).ok().flatten()
        })
    }

    /// Counts over class `m` of `variant` (captures not stored are valued by search);
    /// `None` when its file is not there.
    ///
    /// # Errors
    /// As [`Tables::probe`].
    pub fn stats(&self, variant: Variant, m: Material) -> Result<Option<Stats>, Error> {
        let Some(f) = self.file(variant, m)? else {
            return Ok(None);
        };
        let values = f.read_all()?;
        Ok(Some(solve::stats_of(m, &values, solve::Metric::Mtc)))
    }

    /// The header and size of class `m`'s file, `None` when it is not there.
    ///
    /// # Errors
    /// As [`Tables::probe`].
    pub fn header(
        &self,
        variant: Variant,
        m: Material,
    ) -> Result<Option<(file::Header, u64)>, Error> {
        Ok(self.file(variant, m)?.map(|f| (*f.header(), f.size())))
    }

    /// The verify pass over the file of class `m`: every stored position against its
    /// successors' values; the number checked. The class and its twin (where king moves
    /// and men's steps lead) are read whole into memory for it; the classes its captures and
    /// promotions lead into are probed through the cache.
    ///
    /// # Errors
    /// [`Error::Mismatch`] at the first disagreement; [`Error::Missing`] when the file or
    /// one it converts into is not there.
    pub fn verify(&self, variant: Variant, m: Material) -> Result<u64, Error> {
        let read = |m: Material| -> Result<Vec<u8>, Error> {
            self.file(variant, m)?
                .ok_or(Error::Missing { material: m })?
                .read_all()
        };
        let values = read(m)?;
        let twin = if m.flip() == m {
            Vec::new()
        } else {
            read(m.flip())?
        };
        dama_rules::with_rules!(variant, R => {
            let src = Held {
                files: Files::<R>(self, Default::default()),
                held: [(m, &values), (m.flip(), &twin)],
            };
            verify_class::<R, _>(&src, m, &values, true, solve::Metric::Mtc)
        })
    }

    fn byte(&self, variant: Variant, m: Material, i: usize) -> Result<Option<u8>, Error> {
        let Some(f) = self.file(variant, m)? else {
            return Ok(None);
        };
        let b = i / file::BLOCK;
        let key = (variant_slot(variant) as u8, m.key() as u16, b as u32);
        if let Some(v) = self.lock().get(&key, i % file::BLOCK) {
            return Ok(v);
        }
        let block: Arc<[u8]> = f.block(b)?.into();
        let v = block.get(i % file::BLOCK).copied();
        self.lock().insert(key, block);
        Ok(v)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl std::fmt::Debug for Tables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tables")
            .field("dir", &self.dir)
            .field("max_pieces", &self.max_pieces)
            .finish()
    }
}

fn variant_slot(v: Variant) -> usize {
    Variant::ALL.iter().position(|&x| x == v).unwrap_or(0)
}

/// Files, with up to two classes held in memory.
struct Held<'a, R> {
    files: Files<'a, R>,
    held: [(Material, &'a [u8]); 2],
}

impl<R: Rules> Source for Held<'_, R> {
    fn byte(&self, m: Material, i: usize) -> Result<Option<u8>, Error> {
        match self.held.iter().find(|(h, v)| *h == m && !v.is_empty()) {
            Some((_, v)) => Ok(v.get(i).copied()),
            None => self.files.byte(m, i),
        }
    }
}

/// The files of one rule set as a [`Source`].
struct Files<'a, R>(&'a Tables, std::marker::PhantomData<R>);

impl<R: Rules> Source for Files<'_, R> {
    fn byte(&self, m: Material, i: usize) -> Result<Option<u8>, Error> {
        self.0.byte(R::VARIANT, m, i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_drops_the_least_recently_used_block() {
        let mut c = Cache::default();
        let block: Arc<[u8]> = vec![7u8; 4].into();
        c.insert((0, 0, 0), block.clone());
        for b in 1..CACHE_BLOCKS as u32 * 3 {
            // The block in use stays; the others come and go.
            assert_eq!(c.get(&(0, 0, 0), 1), Some(Some(7)));
            c.insert((0, 0, b), block.clone());
            assert!(c.map.len() <= CACHE_BLOCKS);
        }
        assert_eq!(c.get(&(0, 0, 1), 0), None);
        assert_eq!(c.get(&(0, 0, CACHE_BLOCKS as u32 * 3 - 1), 9), Some(None));
    }
}
