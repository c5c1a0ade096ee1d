//! The searcher thread: owns the [`Engine`] and runs one search at a time, reporting through
//! the controller's event channel. It never prints.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

use dama_rules::Game;
use dama_search::weights::Weights;
use dama_search::{Book, Endgames, Engine, Info, Level, Limits, SearchResult, Signals};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::controller::Event;

/// One search to run.
pub(crate) struct SearchJob {
    /// Tells this search's events apart from earlier ones.
    pub id: u64,
    pub game: Game,
    pub limits: Limits,
    pub level: Level,
    /// Full strength with an `info` per iteration (Hard, or analysis), rather than a level's
    /// choice.
    pub stream: bool,
    /// `go analyze`: a single legal move is searched like any other, not played at once.
    pub analysis: bool,
    pub signals: Signals,
}

/// Work for the searcher thread, done in order.
pub(crate) enum Job {
    Search(Box<SearchJob>),
    /// Allocate the table now if not done yet (at `init`).
    Init,
    Hash(usize),
    Threads(usize),
    MultiPv(usize),
    /// Seed of the level choices; 0 draws a fresh seed at each new game.
    Seed(u64),
    /// The endgame tables' directory (empty: the small in-memory tables only).
    EgtbDir(String),
    /// Whether the levels play from the opening book.
    Book(bool),
    /// The margin Hard and Strong choose book moves within.
    BookMargin(i32),
    /// The opening book (read by the controller, so that a bad file is answered there).
    BookFile(Arc<Book>),
    /// Evaluation weights in place of the built-in ones (read by the controller, as the book).
    Weights(Option<Arc<Weights>>),
    /// The contempt, in hundredths of a man.
    Contempt(u8),
    NewGame,
}

/// What the searcher reports.
#[derive(Debug)]
pub(crate) enum SearchEvent {
    Info {
        id: u64,
        info: Info,
    },
    Done {
        id: u64,
        result: Result<SearchResult, String>,
    },
}

/// The controller's handle on the searcher thread.
pub(crate) struct Searcher {
    jobs: Option<Sender<Job>>,
    handle: Option<JoinHandle<()>>,
}

impl Searcher {
    /// Starts the thread; it ends when the handle is dropped.
    pub fn spawn(events: Sender<Event>) -> std::io::Result<Searcher> {
        let (jobs, rx) = mpsc::channel::<Job>();
        let handle = std::thread::Builder::new()
            .name("hub-searcher".into())
            .spawn(move || {
                let mut state = State::new();
                while let Ok(job) = rx.recv() {
                    if !state.run(job, &events) {
                        break;
                    }
                }
            })?;
        Ok(Searcher {
            jobs: Some(jobs),
            handle: Some(handle),
        })
    }

    /// Queues `job`; it runs after the jobs before it.
    pub fn send(&self, job: Job) {
        if let Some(jobs) = &self.jobs {
            if jobs.send(job).is_err() {
                tracing::warn!("the searcher thread is gone");
            }
        }
    }
}

impl Drop for Searcher {
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// The default of the `egtb-dir` parameter: `$DAMA_EGTB`, else `~/.cache/dama/egtb`.
pub(crate) fn default_egtb_dir() -> String {
    dama_search::egtb::default_dir().display().to_string()
}

/// The book of the `book-file` parameter: the file, or the built-in book for an empty value.
pub(crate) fn book_for(path: &str) -> Result<Arc<Book>, dama_search::book::BookError> {
    if path.trim().is_empty() {
        Ok(Book::embedded())
    } else {
        Book::load(std::path::Path::new(path.trim())).map(Arc::new)
    }
}

/// The weights of the `eval-file` parameter: the file's, or none (the built-in weights) for
/// an empty value.
pub(crate) fn weights_for(path: &str) -> Result<Option<Arc<Weights>>, dama_search::Error> {
    if path.trim().is_empty() {
        Ok(None)
    } else {
        Weights::read(std::path::Path::new(path.trim())).map(|w| Some(Arc::new(w)))
    }
}

/// The tables of `dir`: its files, built there in the background when the 5-piece ones
/// are missing; an empty `dir` means the small in-memory tables only.
fn endgames_for(dir: &str) -> Endgames {
    if dir.trim().is_empty() {
        Endgames::memory_only()
    } else {
        Endgames::from_dir(std::path::Path::new(dir.trim()), true)
    }
}

/// The searcher thread's state: the engine (made at `init` or at the first search, so that
/// an idle engine holds no table) and its settings.
struct State {
    engine: Option<Engine>,
    hash: usize,
    threads: usize,
    multipv: usize,
    seed: u64,
    rng: ChaCha8Rng,
    endgames: Endgames,
    /// The opening book, and whether it is used.
    book: Arc<Book>,
    book_on: bool,
    book_margin: i32,
    /// Weights of the `eval-file` parameter.
    weights: Option<Arc<Weights>>,
    contempt: u8,
}

impl State {
    fn new() -> State {
        State {
            engine: None,
            hash: Engine::DEFAULT_HASH_MIB,
            threads: 1,
            multipv: 1,
            seed: 0,
            rng: rng_for(0),
            endgames: endgames_for(&default_egtb_dir()),
            book: Book::embedded(),
            book_on: true,
            book_margin: dama_search::book::DEFAULT_MARGIN,
            weights: None,
            contempt: 0,
        }
    }

    fn engine(&mut self) -> &mut Engine {
        let (hash, threads, multipv) = (self.hash, self.threads, self.multipv);
        let endgames = self.endgames.clone();
        let book = self.book_on.then(|| self.book.clone());
        let margin = self.book_margin;
        let weights = self.weights.clone();
        let contempt = self.contempt;
        self.engine.get_or_insert_with(|| {
            tracing::debug!(hash, threads, multipv, "allocating the engine");
            let mut e = Engine::with_hash(hash);
            e.set_threads(threads);
            e.set_multipv(multipv);
            e.set_endgames(endgames);
            e.set_book(book);
            e.set_book_margin(margin);
            e.set_weights(weights);
            e.set_contempt(contempt);
            e
        })
    }

    /// Runs one job; `false` when the controller is gone.
    fn run(&mut self, job: Job, events: &Sender<Event>) -> bool {
        match job {
            Job::Search(job) => {
                let id = job.id;
                let result =
                    catch_unwind(AssertUnwindSafe(|| self.search(&job, events))).map_err(|panic| {
                        // The engine may be half-updated: start afresh.
                        self.engine = None;
                        panic_text(&panic)
                    });
                return events
                    .send(Event::Search(SearchEvent::Done { id, result }))
                    .is_ok();
            }
            Job::Init => {
                self.engine();
            }
            Job::Hash(mib) => {
                self.hash = mib;
                if let Some(e) = &mut self.engine {
                    e.set_hash(mib);
                }
            }
            Job::Threads(n) => {
                self.threads = n;
                if let Some(e) = &mut self.engine {
                    e.set_threads(n);
                }
            }
            Job::MultiPv(n) => {
                self.multipv = n;
                if let Some(e) = &mut self.engine {
                    e.set_multipv(n);
                }
            }
            Job::Seed(seed) => {
                self.seed = seed;
                self.rng = rng_for(seed);
            }
            Job::EgtbDir(dir) => {
                self.endgames = endgames_for(&dir);
                if let Some(e) = &mut self.engine {
                    e.set_endgames(self.endgames.clone());
                }
            }
            Job::Book(on) => {
                self.book_on = on;
                self.set_book();
            }
            Job::BookMargin(margin) => {
                self.book_margin = margin;
                if let Some(e) = &mut self.engine {
                    e.set_book_margin(margin);
                }
            }
            Job::BookFile(book) => {
                self.book = book;
                self.set_book();
            }
            Job::Weights(weights) => {
                if let Some(e) = &mut self.engine {
                    e.set_weights(weights.clone());
                }
                self.weights = weights;
            }
            Job::Contempt(c) => {
                self.contempt = c;
                if let Some(e) = &mut self.engine {
                    e.set_contempt(c);
                }
            }
            Job::NewGame => {
                if let Some(e) = &mut self.engine {
                    e.clear();
                }
                self.rng = rng_for(self.seed);
            }
        }
        true
    }

    fn set_book(&mut self) {
        let book = self.book_on.then(|| self.book.clone());
        if let Some(e) = &mut self.engine {
            e.set_book(book);
        }
    }

    fn search(&mut self, job: &SearchJob, events: &Sender<Event>) -> SearchResult {
        tracing::debug!(id = job.id, limits = ?job.limits, level = %job.level, "search starts");
        if !job.analysis {
            let mut rng = self.rng.clone();
            let line = self.engine().book_move(&job.game, job.level, &mut rng);
            self.rng = rng;
            if let Some(line) = line {
                tracing::debug!(id = job.id, mv = %line.mv, "book move");
                let result = SearchResult::book(line);
                if job.stream {
                    let _ = events.send(Event::Search(SearchEvent::Info {
                        id: job.id,
                        info: book_info(&result),
                    }));
                }
                return result;
            }
        }
        let result = if job.stream {
            let id = job.id;
            let mut on_info = |info: &Info| {
                let _ = events.send(Event::Search(SearchEvent::Info {
                    id,
                    info: info.clone(),
                }));
            };
            if job.analysis {
                self.engine()
                    .analyze_with(&job.game, &job.limits, &job.signals, &mut on_info)
            } else {
                self.engine()
                    .search_with(&job.game, &job.limits, &job.signals, &mut on_info)
            }
        } else {
            let mut rng = self.rng.clone();
            let r =
                self.engine()
                    .play_level(&job.game, job.level, &job.limits, &job.signals, &mut rng);
            self.rng = rng;
            r
        };
        tracing::debug!(
            id = job.id,
            depth = result.depth,
            nodes = result.nodes,
            stopped = job.signals.stop.load(Ordering::Relaxed),
            "search ends"
        );
        result
    }
}

/// The `info` line of a book move: depth 0, no nodes, the book value and the move.
fn book_info(r: &SearchResult) -> Info {
    Info {
        depth: 0,
        seldepth: 0,
        multipv: 1,
        score: r.score,
        nodes: 0,
        nps: 0,
        time: std::time::Duration::ZERO,
        pv: r.pv.clone(),
    }
}

/// The generator of level choices for `seed`; seed 0 draws one from the clock.
fn rng_for(seed: u64) -> ChaCha8Rng {
    let seed = if seed == 0 {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        t ^ u64::from(std::process::id()).rotate_left(32)
    } else {
        seed
    };
    ChaCha8Rng::seed_from_u64(seed)
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "the search thread panicked".into())
}
