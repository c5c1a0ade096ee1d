//! The controller: owns the game, the settings and the output; turns input lines into
//! commands and search events into `info` and `done` lines. It never waits on a search.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use dama_rules::notation::{parse_move, MoveFormat};
use dama_rules::{Game, Position, Variant};
use dama_search::{Level, Limits, SearchResult, Signals};

use crate::command::{is_go, is_pos, Command, GoMode};
use crate::error::{excerpt, Error};
use crate::reader::{self, Input, MAX_LINE};
use crate::response::{InfoLine, ParamType, Response};
use crate::searcher::{Job, SearchEvent, SearchJob, Searcher};

/// The search limits used when no `level` line has been received: one second per move.
pub const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(1);

/// Largest `hash`, in MiB.
pub const MAX_HASH_MIB: i64 = 4096;
/// Largest `threads`.
pub const MAX_THREADS: i64 = 64;
/// Largest `multipv`.
pub const MAX_MULTIPV: i64 = 32;
/// Largest `contempt`, in hundredths of a man.
const MAX_CONTEMPT: i64 = 100;
/// Largest `book-margin`, in hundredths of a man.
pub const MAX_BOOK_MARGIN: i64 = 1000;
/// Largest `seed`.
pub const MAX_SEED: i64 = i32::MAX as i64;

/// The parameters `hub` declares, in its order: `set-param` knows these and no other.
const PARAMETERS: [&str; 13] = [
    "variant",
    "level",
    "hash",
    "threads",
    "seed",
    "multipv",
    "egtb-dir",
    "egtb-init",
    "book",
    "book-margin",
    "contempt",
    "book-file",
    "eval-file",
];

/// Longest `error` message sent, in characters.
const MAX_MESSAGE: usize = 400;

/// What reaches the controller: input from the reader thread, reports from the searcher.
#[derive(Debug)]
pub(crate) enum Event {
    Input(Input),
    Search(SearchEvent),
    /// The endgame tables of `init` are built: `ready` may go.
    Prepared,
}

/// Runs the Hub engine on `input` and `output` until `quit` or the end of the input.
///
/// Lines are read on a thread of their own (at most [`MAX_LINE`] bytes kept per line), the
/// search runs on another, and this function answers every line as it comes: `ping` during a
/// search is answered at once, `stop` ends the search within milliseconds.
///
/// ```
/// let mut out = Vec::new();
/// dama_protocol::run("hub\ninit\nping\nquit\n".as_bytes(), &mut out)?;
/// let out = String::from_utf8(out).unwrap();
/// assert!(out.starts_with("id name=dama"));
/// assert!(out.ends_with("wait\nready\npong\n"));
/// # Ok::<_, dama_protocol::Error>(())
/// ```
///
/// # Errors
/// Only a failure to start a thread or to write the output (the GUI is gone); bad input is
/// answered with `error` lines.
pub fn run<R, W>(input: R, output: W) -> Result<(), Error>
where
    R: Read + Send + 'static,
    W: Write,
{
    let (tx, rx) = mpsc::channel();
    reader::spawn(input, MAX_LINE, tx.clone(), Event::Input)?;
    let searcher = Searcher::spawn(tx.clone())?;
    let mut controller = Controller::new(output, rx, tx, searcher);
    let result = controller.run();
    controller.shutdown();
    result
}

/// The engine's parameters, as `set-param` changes them.
#[derive(Clone, Debug)]
struct Settings {
    variant: Variant,
    level: Level,
    hash: i64,
    threads: i64,
    seed: i64,
    multipv: i64,
    egtb_dir: String,
    egtb_init: bool,
    book: bool,
    book_margin: i64,
    contempt: i64,
    book_file: String,
    eval_file: String,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            variant: Variant::Italian,
            level: Level::Hard,
            hash: dama_search::Engine::DEFAULT_HASH_MIB as i64,
            threads: 1,
            seed: 0,
            multipv: 1,
            egtb_dir: crate::searcher::default_egtb_dir(),
            egtb_init: true,
            book: true,
            book_margin: i64::from(dama_search::book::DEFAULT_MARGIN),
            contempt: 0,
            book_file: String::new(),
            eval_file: String::new(),
        }
    }
}

/// The search in progress.
struct Running {
    id: u64,
    /// `done` waits for `stop` (analysis, infinite limits).
    hold: bool,
    /// Pondering: `done` waits for `ponder-hit` or `stop`.
    pondering: bool,
    /// A `stop` was received (or a later `go` is waiting).
    stopped: bool,
    /// A level's choice: no `info` was streamed, one is printed with `done`.
    summary: bool,
    signals: Signals,
    /// The result, kept until the client may have it.
    held: Option<Result<SearchResult, String>>,
}

enum Flow {
    Continue,
    Quit,
}

struct Controller<W: Write> {
    out: W,
    events: Receiver<Event>,
    /// For the thread that builds the endgame tables at `init`.
    sender: Sender<Event>,
    /// The tables of `init` are being built: input waits in `deferred` (so that every line
    /// after `init` is answered after `ready`, as by an engine that reads one line at a time).
    preparing: bool,
    deferred: VecDeque<Input>,
    searcher: Option<Searcher>,
    settings: Settings,
    game: Game,
    /// Why the last `pos` was refused, until a valid position arrives: `go` has nothing to
    /// search (rather than the position before, which the GUI no longer means).
    refused: Option<String>,
    limits: Option<Limits>,
    running: Option<Running>,
    /// `go`s received during a search, started in turn.
    pending: VecDeque<(SearchJob, GoMode)>,
    next_id: u64,
}

impl<W: Write> Controller<W> {
    fn new(
        out: W,
        events: Receiver<Event>,
        sender: Sender<Event>,
        searcher: Searcher,
    ) -> Controller<W> {
        Controller {
            out,
            events,
            sender,
            preparing: false,
            deferred: VecDeque::new(),
            searcher: Some(searcher),
            settings: Settings::default(),
            game: Game::new(),
            refused: None,
            limits: None,
            running: None,
            pending: VecDeque::new(),
            next_id: 1,
        }
    }

    fn run(&mut self) -> Result<(), Error> {
        while let Ok(event) = self.events.recv() {
            let flow = match event {
                Event::Input(input) => self.input(input)?,
                Event::Search(e) => {
                    self.search_event(e)?;
                    Flow::Continue
                }
                Event::Prepared => self.prepared()?,
            };
            if let Flow::Quit = flow {
                break;
            }
        }
        Ok(())
    }

    /// One input, or, while the tables of `init` are built, its place in the queue: a `quit`
    /// (or the end of the input) right after `init` ends the engine at once, one after other
    /// lines waits for their answers.
    fn input(&mut self, input: Input) -> Result<Flow, Error> {
        if self.preparing {
            let quits = match &input {
                Input::Eof => true,
                Input::Line(line) => matches!(Command::parse(line), Ok(Some(Command::Quit))),
                Input::TooLong(_) => false,
            };
            if !quits || !self.deferred.is_empty() {
                self.deferred.push_back(input);
                return Ok(Flow::Continue);
            }
        }
        match input {
            Input::Line(line) => self.line(&line),
            Input::TooLong(bytes) => {
                self.error(&Error::LineTooLong {
                    bytes,
                    limit: MAX_LINE,
                })?;
                Ok(Flow::Continue)
            }
            Input::Eof => {
                tracing::debug!("end of input");
                Ok(Flow::Quit)
            }
        }
    }

    /// The tables of `init` are built: `ready`, then the input that waited for it, in order
    /// (up to another `init`, which waits in turn).
    fn prepared(&mut self) -> Result<Flow, Error> {
        self.preparing = false;
        self.send(&Response::Ready)?;
        while !self.preparing {
            let Some(input) = self.deferred.pop_front() else {
                break;
            };
            if let Flow::Quit = self.input(input)? {
                return Ok(Flow::Quit);
            }
        }
        Ok(Flow::Continue)
    }

    /// Stops any search and ends the searcher thread.
    fn shutdown(&mut self) {
        if let Some(r) = &self.running {
            r.signals.stop.store(true, Ordering::Relaxed);
        }
        for (job, _) in &self.pending {
            job.signals.stop.store(true, Ordering::Relaxed);
        }
        self.searcher = None;
    }

    fn send(&mut self, r: &Response) -> Result<(), Error> {
        writeln!(self.out, "{r}")?;
        self.out.flush()?;
        Ok(())
    }

    fn error(&mut self, e: &Error) -> Result<(), Error> {
        tracing::debug!("error: {e}");
        let mut message = e.to_string();
        if message.chars().count() > MAX_MESSAGE {
            message = message.chars().take(MAX_MESSAGE).collect::<String>() + "…";
        }
        self.send(&Response::Error(message))
    }

    fn job(&self, job: Job) {
        if let Some(s) = &self.searcher {
            s.send(job);
        }
    }

    fn line(&mut self, text: &str) -> Result<Flow, Error> {
        tracing::debug!(line = %excerpt(text), "received");
        match Command::parse(text) {
            Ok(None) => Ok(Flow::Continue),
            Ok(Some(command)) => self.command(command),
            Err(e) => {
                self.error(&e)?;
                if is_pos(text) {
                    self.refused = Some(excerpt(&e.to_string()));
                }
                if is_go(text) {
                    // A `go` always gets its `done`, even one that cannot be read.
                    self.send(&Response::Done {
                        mv: None,
                        ponder: None,
                    })?;
                }
                Ok(Flow::Continue)
            }
        }
    }

    fn command(&mut self, command: Command) -> Result<Flow, Error> {
        match command {
            Command::Hub => self.hub()?,
            Command::Init => {
                self.job(Job::Init);
                if self.settings.egtb_init {
                    self.prepare()?;
                } else {
                    self.send(&Response::Ready)?;
                }
            }
            Command::SetParam { name, value } => {
                if let Err(e) = self.set_param(&name, &value) {
                    self.error(&e)?;
                }
            }
            Command::Pos { position, moves } => match self.replay(position, &moves) {
                Ok(game) => self.set_game(game),
                Err(e) => {
                    self.refused = Some(excerpt(&e.to_string()));
                    self.error(&e)?;
                }
            },
            Command::Level(limits) => self.limits = Some(limits),
            Command::Go(mode) => self.go(mode)?,
            Command::PonderHit => self.ponder_hit()?,
            Command::Stop => self.stop()?,
            Command::Ping => self.send(&Response::Pong)?,
            Command::NewGame => {
                self.stop()?;
                self.job(Job::NewGame);
                self.set_game(Game::from_position(
                    self.settings.variant,
                    Position::start(),
                ));
            }
            Command::Quit => return Ok(Flow::Quit),
        }
        Ok(Flow::Continue)
    }

    /// Builds the endgame tables of `init` on a thread of its own, which has `ready` sent when
    /// they are there; the lines received meanwhile wait for it, except a `quit` (or the end
    /// of the input) with no line waiting before it, which does not wait for the tables.
    fn prepare(&mut self) -> Result<(), Error> {
        let variant = self.settings.variant;
        let sender = self.sender.clone();
        let spawned = std::thread::Builder::new()
            .name("dama-egtb-init".into())
            .spawn(move || {
                crate::prepare::build(variant);
                let _ = sender.send(Event::Prepared);
            });
        match spawned {
            Ok(_) => {
                self.preparing = true;
                Ok(())
            }
            Err(e) => {
                tracing::warn!("endgame tables not built at init: {e}");
                self.send(&Response::Ready)
            }
        }
    }

    /// A valid position arrived: the one to search from now on.
    fn set_game(&mut self, game: Game) {
        self.game = game;
        self.refused = None;
    }

    fn hub(&mut self) -> Result<(), Error> {
        self.send(&Response::Id {
            name: "dama".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            author: "the dama authors".into(),
            country: "Italy".into(),
        })?;
        let s = self.settings.clone();
        let enum_param = |name: &str, value: &str, values: Vec<String>| Response::Param {
            name: name.into(),
            value: value.into(),
            kind: ParamType::Enum { values },
        };
        let int_param = |name: &str, value: i64, min: i64, max: i64| Response::Param {
            name: name.into(),
            value: value.to_string(),
            kind: ParamType::Int { min, max },
        };
        let params = [
            enum_param(
                "variant",
                s.variant.name(),
                Variant::ALL.iter().map(|v| v.name().to_string()).collect(),
            ),
            enum_param(
                "level",
                s.level.name(),
                Level::ALL.iter().map(|l| l.name().to_string()).collect(),
            ),
            int_param("hash", s.hash, 1, MAX_HASH_MIB),
            int_param("threads", s.threads, 1, MAX_THREADS),
            int_param("seed", s.seed, 0, MAX_SEED),
            int_param("multipv", s.multipv, 1, MAX_MULTIPV),
            Response::Param {
                name: "egtb-dir".into(),
                value: s.egtb_dir.clone(),
                kind: ParamType::String,
            },
            Response::Param {
                name: "egtb-init".into(),
                value: s.egtb_init.to_string(),
                kind: ParamType::Bool,
            },
            Response::Param {
                name: "book".into(),
                value: s.book.to_string(),
                kind: ParamType::Bool,
            },
            int_param("book-margin", s.book_margin, 0, MAX_BOOK_MARGIN),
            int_param("contempt", s.contempt, 0, MAX_CONTEMPT),
            Response::Param {
                name: "book-file".into(),
                value: s.book_file.clone(),
                kind: ParamType::String,
            },
            Response::Param {
                name: "eval-file".into(),
                value: s.eval_file.clone(),
                kind: ParamType::String,
            },
        ];
        for p in &params {
            self.send(p)?;
        }
        self.send(&Response::Wait)
    }

    fn set_param(&mut self, name: &str, value: &str) -> Result<(), Error> {
        let bad = |expected: String| Error::BadValue {
            command: "set-param",
            argument: name.to_string(),
            value: excerpt(value),
            expected,
        };
        let int = |min: i64, max: i64| {
            value
                .trim()
                .parse::<i64>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| bad(format!("a whole number in {min}..={max}")))
        };
        match name {
            "variant" => {
                let v: Variant = value.parse().map_err(|_| {
                    let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
                    bad(format!("one of {}", names.join(", ")))
                })?;
                self.settings.variant = v;
                self.set_game(Game::from_position(v, Position::start()));
            }
            "level" => {
                self.settings.level = value.parse().map_err(|_| {
                    bad("novice, easy, normal, strong or hard (or 1..5)".to_string())
                })?;
            }
            "hash" => {
                self.settings.hash = int(1, MAX_HASH_MIB)?;
                self.job(Job::Hash(self.settings.hash as usize));
            }
            "threads" => {
                self.settings.threads = int(1, MAX_THREADS)?;
                self.job(Job::Threads(self.settings.threads as usize));
            }
            "seed" => {
                self.settings.seed = int(0, MAX_SEED)?;
                self.job(Job::Seed(self.settings.seed as u64));
            }
            "multipv" => {
                self.settings.multipv = int(1, MAX_MULTIPV)?;
                self.job(Job::MultiPv(self.settings.multipv as usize));
            }
            "egtb-dir" => {
                self.settings.egtb_dir = value.to_string();
                self.job(Job::EgtbDir(value.to_string()));
            }
            "egtb-init" => {
                self.settings.egtb_init =
                    boolean(value).ok_or_else(|| bad("true or false".into()))?;
            }
            "book" => {
                self.settings.book = boolean(value).ok_or_else(|| bad("true or false".into()))?;
                self.job(Job::Book(self.settings.book));
            }
            "book-margin" => {
                self.settings.book_margin = int(0, MAX_BOOK_MARGIN)?;
                self.job(Job::BookMargin(self.settings.book_margin as i32));
            }
            "contempt" => {
                self.settings.contempt = int(0, MAX_CONTEMPT)?;
                self.job(Job::Contempt(self.settings.contempt as u8));
            }
            "book-file" => {
                let book = crate::searcher::book_for(value).map_err(|e| {
                    bad(format!(
                        "a dama opening book file, or nothing for the built-in book ({e})"
                    ))
                })?;
                self.settings.book_file = value.to_string();
                self.job(Job::BookFile(book));
            }
            "eval-file" => {
                let weights = crate::searcher::weights_for(value).map_err(|e| {
                    bad(format!(
                        "a dama weights file (`dama tune fit --out`), or nothing for the \
                         built-in weights ({e})"
                    ))
                })?;
                self.settings.eval_file = value.to_string();
                self.job(Job::Weights(weights));
            }
            other => {
                return Err(Error::UnknownParameter {
                    name: excerpt(other),
                    known: PARAMETERS.join(", "),
                })
            }
        }
        Ok(())
    }

    /// The game from `start` after `moves`, each in Hub text.
    fn replay(&self, start: Position, moves: &[String]) -> Result<Game, Error> {
        let variant = self.settings.variant;
        let mut game = Game::from_position(variant, start);
        for (i, text) in moves.iter().enumerate() {
            let bad = |reason| Error::BadMove {
                index: i + 1,
                count: moves.len(),
                reason,
            };
            let pos = *game.position();
            let m =
                dama_rules::with_rules!(variant, R => parse_move::<R>(&pos, text, MoveFormat::Hub))
                    .map_err(|e| bad(shorten(e)))?;
            if let Err(e) = game.play(m) {
                match e {
                    // The GUI is the arbiter: a game it goes on with after a draw by dama's
                    // count goes on here too, from the position reached.
                    dama_rules::Error::GameOver { .. } => {
                        game = Game::from_position(variant, pos);
                        game.play(m).map_err(bad)?;
                    }
                    e => return Err(bad(e)),
                }
            }
        }
        Ok(game)
    }

    fn go(&mut self, mode: GoMode) -> Result<(), Error> {
        let game = match &self.refused {
            Some(why) => Err(Error::NoPosition { why: why.clone() }),
            None => searchable(&self.game),
        };
        let game = match game {
            Ok(g) => g,
            Err(e) => {
                self.error(&e)?;
                return self.send(&Response::Done {
                    mv: None,
                    ponder: None,
                });
            }
        };
        let limits = match mode {
            GoMode::Analyze => Limits::infinite(),
            _ => self
                .limits
                .unwrap_or_else(|| Limits::move_time(DEFAULT_MOVE_TIME)),
        };
        let signals = Signals::default();
        signals
            .pondering
            .store(mode == GoMode::Ponder, Ordering::Relaxed);
        let job = SearchJob {
            id: self.next_id,
            game,
            limits,
            level: self.settings.level,
            stream: mode == GoMode::Analyze || self.settings.level == Level::Hard,
            analysis: mode == GoMode::Analyze,
            signals,
        };
        self.next_id += 1;
        self.pending.push_back((job, mode));
        if let Some(r) = &mut self.running {
            // A `go` during a search: the running one answers now, this one follows.
            r.stopped = true;
            r.signals.stop.store(true, Ordering::Relaxed);
            if let Some(result) = r.held.take() {
                self.finish(result)?;
            }
            Ok(())
        } else {
            self.start_next();
            Ok(())
        }
    }

    fn start_next(&mut self) {
        let Some((job, mode)) = self.pending.pop_front() else {
            return;
        };
        // A later `go` is waiting, or a `stop` came for this one while it was queued.
        let stopped = !self.pending.is_empty() || job.signals.stop.load(Ordering::Relaxed);
        if stopped {
            job.signals.stop.store(true, Ordering::Relaxed);
        }
        self.running = Some(Running {
            id: job.id,
            hold: mode == GoMode::Analyze || job.limits.is_infinite(),
            pondering: mode == GoMode::Ponder,
            stopped,
            summary: !job.stream,
            signals: job.signals.clone(),
            held: None,
        });
        self.job(Job::Search(Box::new(job)));
    }

    /// Ends the running search and the queued ones: a `stop` is for the search the GUI asked
    /// for last, which may still wait behind the one answering.
    fn stop(&mut self) -> Result<(), Error> {
        for (job, _) in &self.pending {
            job.signals.stop.store(true, Ordering::Relaxed);
        }
        let Some(r) = &mut self.running else {
            return Ok(());
        };
        r.stopped = true;
        r.signals.stop.store(true, Ordering::Relaxed);
        if let Some(result) = r.held.take() {
            self.finish(result)?;
        }
        Ok(())
    }

    /// The expected move was played: the clock applies to the search the GUI asked for last
    /// (a queued `go ponder` becomes a `go think`).
    fn ponder_hit(&mut self) -> Result<(), Error> {
        for (job, mode) in &mut self.pending {
            if *mode == GoMode::Ponder {
                *mode = GoMode::Think;
                job.signals.pondering.store(false, Ordering::Relaxed);
            }
        }
        let Some(r) = &mut self.running else {
            return Ok(());
        };
        if !r.pondering {
            return Ok(());
        }
        r.pondering = false;
        r.signals.pondering.store(false, Ordering::Relaxed);
        if !r.hold {
            if let Some(result) = r.held.take() {
                self.finish(result)?;
            }
        }
        Ok(())
    }

    fn search_event(&mut self, event: SearchEvent) -> Result<(), Error> {
        match event {
            SearchEvent::Info { id, info } => {
                if self.running.as_ref().is_some_and(|r| r.id == id) {
                    self.send(&Response::Info(InfoLine::from(&info)))?;
                }
            }
            SearchEvent::Done { id, result } => {
                let Some(r) = self.running.as_mut().filter(|r| r.id == id) else {
                    return Ok(());
                };
                if (r.hold || r.pondering) && !r.stopped {
                    r.held = Some(result);
                } else {
                    self.finish(result)?;
                }
            }
        }
        Ok(())
    }

    /// Sends the running search's result and starts the next `go`, if any.
    fn finish(&mut self, result: Result<SearchResult, String>) -> Result<(), Error> {
        let summary = self.running.take().is_some_and(|r| r.summary);
        match result {
            Ok(r) => {
                if summary && r.depth > 0 {
                    self.send(&Response::Info(InfoLine {
                        depth: r.depth,
                        multipv: 1,
                        score: r.score,
                        nodes: r.nodes,
                        time: r.time,
                        nps: (r.nodes as f64 / r.time.as_secs_f64().max(1e-6)) as u64,
                        pv: r.pv.clone(),
                    }))?;
                }
                self.send(&Response::Done {
                    mv: r.best,
                    ponder: r.ponder,
                })?;
            }
            Err(why) => {
                self.error(&Error::SearchFailed { why })?;
                self.send(&Response::Done {
                    mv: None,
                    ponder: None,
                })?;
            }
        }
        self.start_next();
        Ok(())
    }
}

/// The game to search: refused when the side to move has no move or when a side has no piece
/// left (the game is over: the side without pieces lost, whoever is to move); a game over by
/// a draw rule (which the GUI did not apply) is searched all the same, history included.
fn searchable(game: &Game) -> Result<Game, Error> {
    let pos = game.position();
    if let Some(loser) = [pos.turn(), !pos.turn()]
        .into_iter()
        .find(|&c| pos.pieces(c).is_empty())
    {
        let why = format!("{loser} has no piece left: {} won", !loser);
        return Err(Error::NoLegalMove { why });
    }
    if game.legal_moves().is_empty() {
        let why = game
            .outcome()
            .map_or_else(|| "the game is over".to_string(), |o| o.to_string());
        return Err(Error::NoLegalMove { why });
    }
    Ok(game.clone())
}

/// The value of a bool parameter: `true`, `on`, `1`, `yes` or their opposites, in any case.
fn boolean(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "on" | "1" | "yes" => Some(true),
        "false" | "off" | "0" | "no" => Some(false),
        _ => None,
    }
}

/// Keeps a rules error quoting a huge move text readable.
fn shorten(e: dama_rules::Error) -> dama_rules::Error {
    match e {
        dama_rules::Error::MalformedMove { text } => dama_rules::Error::MalformedMove {
            text: excerpt(&text),
        },
        other => other,
    }
}
