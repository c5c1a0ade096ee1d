//! The client side: runs any Hub engine as a subprocess and asks it for moves.
//!
//! [`HubClient`] does the handshake, sends positions and limits and reads `info` and `done`
//! with deadlines; an engine that exits, hangs or answers nonsense gives an [`Error`], never a
//! hang of ours (a hung engine gets `stop`, then is killed after a grace period).
//! [`HubPlayer`] keeps one running for a series of games, as a match player does (the
//! match runner's `Player` trait is `dama-lab`'s; the `dama` command joins the two).
//!
//! ```no_run
//! use dama_protocol::client::{ClientConfig, HubClient};
//! use dama_rules::Position;
//! use dama_search::Limits;
//!
//! let mut engine = HubClient::launch(&ClientConfig::new("dama-engine"))?;
//! let reply = engine.go(&Position::start(), &[], &Limits::depth(6))?;
//! println!("{} plays {:?}", engine.name(), reply.mv);
//! engine.quit();
//! # Ok::<_, dama_protocol::Error>(())
//! ```

use std::io::Write;
use std::path::Path;
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use dama_rules::notation::{hub, parse_move, MoveFormat};
use dama_rules::{Game, Move, Position, Variant};
use dama_search::{Limits, TimeControl};

use crate::error::{excerpt, Error};
use crate::lexer::{self, quote, Line};
use crate::reader::{self, Input, MAX_LINE};

/// How to run an engine.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// The program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// `set-param` values sent after the handshake, in order (names the engine did not
    /// declare are sent all the same; engines ignore them, dama with an `error` line).
    pub params: Vec<(String, String)>,
    /// Time for `hub` → `wait`.
    pub handshake_timeout: Duration,
    /// Time for `init` → `ready`: an engine may load or build its endgame tables there
    /// (Scan reads its bitbases, dama builds its small kings-only tables by default).
    pub init_timeout: Duration,
    /// Time allowed beyond a search's own budget, then after `stop`, and for exiting after
    /// `quit`.
    pub grace: Duration,
    /// Longest wait for a search without a time limit (depth or nodes only).
    pub max_search_time: Duration,
}

impl ClientConfig {
    /// `program` without arguments, 10 s for `hub` and a minute for `init`, 2 s of grace,
    /// searches without a time limit allowed 5 minutes.
    pub fn new(program: impl Into<String>) -> ClientConfig {
        ClientConfig {
            program: program.into(),
            args: Vec::new(),
            params: Vec::new(),
            handshake_timeout: Duration::from_secs(10),
            init_timeout: Duration::from_secs(60),
            grace: Duration::from_secs(2),
            max_search_time: Duration::from_secs(300),
        }
    }

    /// The same configuration with a parameter to set.
    #[must_use]
    pub fn param(mut self, name: &str, value: &str) -> ClientConfig {
        self.params.push((name.to_string(), value.to_string()));
        self
    }
}

/// What an engine answered to a search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchReply {
    /// The `move=` of `done`, as sent (Hub text), if any.
    pub mv: Option<String>,
    /// The `ponder=` of `done`, if any.
    pub ponder: Option<String>,
    /// Every `info` line, as sent.
    pub infos: Vec<String>,
    /// The messages of `error` lines received during the search.
    pub errors: Vec<String>,
}

/// A running Hub engine.
pub struct HubClient {
    name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Input>,
    declared: Vec<String>,
    config: ClientConfig,
}

impl std::fmt::Debug for HubClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HubClient")
            .field("name", &self.name)
            .field("pid", &self.child.id())
            .finish()
    }
}

impl HubClient {
    /// Starts the engine, sends `hub` and waits for `wait`, sends the configured parameters,
    /// then `init` and waits for `ready`.
    ///
    /// # Errors
    /// [`Error::Spawn`], or the engine exiting, timing out or sending a malformed line during
    /// the handshake (it is killed).
    pub fn launch(config: &ClientConfig) -> Result<HubClient, Error> {
        let mut child = Process::new(&config.program)
            .args(&config.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| Error::Spawn {
                program: config.program.clone(),
                why: e.to_string(),
            })?;
        let (tx, lines) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().ok_or_else(|| Error::Spawn {
            program: config.program.clone(),
            why: "no standard output".into(),
        })?;
        let stdin = child.stdin.take();
        let name = Path::new(&config.program)
            .file_name()
            .map_or_else(|| config.program.clone(), |n| n.to_string_lossy().into());
        let mut client = HubClient {
            name,
            child,
            stdin,
            lines,
            declared: Vec::new(),
            config: config.clone(),
        };
        if let Err(e) = reader::spawn(stdout, MAX_LINE, tx, |i| i) {
            client.kill();
            return Err(e.into());
        }
        if let Err(e) = client.handshake() {
            client.kill();
            return Err(e);
        }
        Ok(client)
    }

    fn handshake(&mut self) -> Result<(), Error> {
        self.send("hub")?;
        let deadline = Instant::now() + self.config.handshake_timeout;
        loop {
            let (text, line) = self.recv(deadline, "wait")?;
            match line.command.as_str() {
                "wait" => break,
                "id" => {
                    if let Some(name) = line.value("name") {
                        self.name = name.to_string();
                    }
                }
                "param" => {
                    if let Some(name) = line.value("name") {
                        self.declared.push(name.to_string());
                    }
                }
                _ => tracing::debug!(line = %excerpt(&text), "unexpected line before wait"),
            }
        }
        for (name, value) in self.config.params.clone() {
            self.send(&format!(
                "set-param name={} value={}",
                quote(&name),
                quote(&value)
            ))?;
        }
        self.send("init")?;
        let deadline = Instant::now() + self.config.init_timeout;
        while self.recv(deadline, "ready")?.1.command != "ready" {}
        Ok(())
    }

    /// The engine's name (its `id name=`, else the program's file name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The parameters the engine declared.
    pub fn declared_params(&self) -> &[String] {
        &self.declared
    }

    /// Sends one line.
    ///
    /// # Errors
    /// [`Error::EngineExited`] when the engine's input is closed.
    pub fn send(&mut self, line: &str) -> Result<(), Error> {
        tracing::trace!(engine = %self.name, line = %excerpt(line), "to engine");
        let exited = || Error::EngineExited {
            engine: self.name.clone(),
            waiting_for: format!("\"{}\" to be read", excerpt(line)),
        };
        let stdin = self.stdin.as_mut().ok_or_else(exited)?;
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush())
            .map_err(|_| exited())
    }

    /// The next non-blank line, lexed, received before `deadline`.
    ///
    /// # Errors
    /// [`Error::Timeout`] (the engine is not killed here), [`Error::EngineExited`], or
    /// [`Error::BadReply`] for a line that cannot be lexed or is too long.
    pub fn recv(&mut self, deadline: Instant, waiting_for: &str) -> Result<(String, Line), Error> {
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            let input = match self.lines.recv_timeout(wait) {
                Ok(input) => input,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(Error::Timeout {
                        engine: self.name.clone(),
                        waiting_for: waiting_for.to_string(),
                        seconds: wait.as_secs_f64(),
                    })
                }
                Err(RecvTimeoutError::Disconnected) => Input::Eof,
            };
            let text = match input {
                Input::Line(text) => text,
                Input::TooLong(bytes) => {
                    return Err(self.bad_reply(&format!("<{bytes} bytes>"), "line too long"))
                }
                Input::Eof => {
                    return Err(Error::EngineExited {
                        engine: self.name.clone(),
                        waiting_for: waiting_for.to_string(),
                    })
                }
            };
            tracing::trace!(engine = %self.name, line = %excerpt(&text), "from engine");
            match lexer::lex(&text) {
                Ok(Some(line)) => return Ok((text, line)),
                Ok(None) => continue,
                Err(e) => return Err(self.bad_reply(&text, &e.to_string())),
            }
        }
    }

    fn bad_reply(&self, line: &str, why: &str) -> Error {
        Error::BadReply {
            engine: self.name.clone(),
            line: excerpt(line),
            why: why.to_string(),
        }
    }

    /// Sends `ping` and waits for `pong`; returns the round trip.
    ///
    /// # Errors
    /// As [`HubClient::recv`].
    pub fn ping(&mut self, timeout: Duration) -> Result<Duration, Error> {
        let start = Instant::now();
        self.send("ping")?;
        while self.recv(start + timeout, "pong")?.1.command != "pong" {}
        Ok(start.elapsed())
    }

    /// Sends the position: `start` and the moves played from it.
    ///
    /// # Errors
    /// As [`HubClient::send`].
    pub fn position(&mut self, start: &Position, moves: &[Move]) -> Result<(), Error> {
        let mut line = format!("pos pos={}", hub::write(start));
        if !moves.is_empty() {
            let text: Vec<String> = moves.iter().map(|m| m.hub().to_string()).collect();
            line.push_str(&format!(" moves=\"{}\"", text.join(" ")));
        }
        self.send(&line)
    }

    /// Sends the `level` line for `limits`.
    ///
    /// # Errors
    /// As [`HubClient::send`].
    pub fn level(&mut self, limits: &Limits) -> Result<(), Error> {
        self.send(&level_line(limits))
    }

    /// Searches `moves` from `start` under `limits` with `go think` and returns the reply.
    /// A search past its budget plus the grace period gets `stop`; one that still does not
    /// answer within the grace period is killed.
    ///
    /// # Errors
    /// [`Error::Timeout`] (the engine was killed), [`Error::EngineExited`],
    /// [`Error::BadReply`].
    pub fn go(
        &mut self,
        start: &Position,
        moves: &[Move],
        limits: &Limits,
    ) -> Result<SearchReply, Error> {
        self.position(start, moves)?;
        self.level(limits)?;
        self.send("go think")?;
        let budget = match limits.time {
            TimeControl::MoveTime(t) => t,
            TimeControl::Clock(c) => c.time,
            TimeControl::None if limits.is_infinite() => Duration::ZERO,
            TimeControl::None => self.config.max_search_time,
        };
        self.wait_done(Instant::now() + budget + self.config.grace)
    }

    /// Reads `info` lines until `done`; past `deadline` sends `stop` and waits the grace
    /// period, then kills the engine.
    ///
    /// # Errors
    /// As [`HubClient::go`].
    pub fn wait_done(&mut self, deadline: Instant) -> Result<SearchReply, Error> {
        let mut reply = SearchReply::default();
        let mut deadline = deadline;
        let mut stopped = false;
        loop {
            let (text, line) = match self.recv(deadline, "done") {
                Ok(got) => got,
                Err(Error::Timeout { .. }) if !stopped => {
                    stopped = true;
                    self.send("stop")?;
                    deadline = Instant::now() + self.config.grace;
                    continue;
                }
                Err(e) => {
                    self.kill();
                    return Err(e);
                }
            };
            match line.command.as_str() {
                "info" => reply.infos.push(text),
                "error" => reply
                    .errors
                    .push(line.value("message").unwrap_or_default().to_string()),
                "done" => {
                    reply.mv = line.value("move").map(str::to_string);
                    reply.ponder = line.value("ponder").map(str::to_string);
                    return Ok(reply);
                }
                _ => tracing::debug!(line = %excerpt(&text), "unexpected line during a search"),
            }
        }
    }

    /// Sends `new-game`.
    ///
    /// # Errors
    /// As [`HubClient::send`].
    pub fn new_game(&mut self) -> Result<(), Error> {
        self.send("new-game")
    }

    /// Sends `quit` and waits the grace period for the engine to exit, then kills it.
    pub fn quit(mut self) {
        let _ = self.send("quit");
        self.stdin = None;
        let deadline = Instant::now() + self.config.grace;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }

    /// Kills the engine (if it still runs) and reaps it.
    pub fn kill(&mut self) {
        self.stdin = None;
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

impl Drop for HubClient {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The `level` line for `limits`.
///
/// ```
/// use std::time::Duration;
/// use dama_protocol::client::level_line;
/// use dama_search::Limits;
/// assert_eq!(level_line(&Limits::depth(9)), "level depth=9");
/// assert_eq!(level_line(&Limits::move_time(Duration::from_millis(250))), "level move-time=0.25");
/// assert_eq!(level_line(&Limits::infinite()), "level infinite");
/// ```
pub fn level_line(limits: &Limits) -> String {
    if limits.is_infinite() {
        return "level infinite".into();
    }
    let mut line = String::from("level");
    if let Some(d) = limits.depth {
        line.push_str(&format!(" depth={d}"));
    }
    if let Some(n) = limits.nodes {
        line.push_str(&format!(" nodes={n}"));
    }
    match limits.time {
        TimeControl::None => {}
        TimeControl::MoveTime(t) => line.push_str(&format!(" move-time={}", t.as_secs_f64())),
        TimeControl::Clock(c) => {
            if let Some(m) = c.moves_to_go {
                line.push_str(&format!(" moves={m}"));
            }
            // Hub engines add this move's increment to `time` themselves.
            let time = c.time.saturating_sub(c.increment);
            line.push_str(&format!(" time={}", time.as_secs_f64()));
            if !c.increment.is_zero() {
                line.push_str(&format!(" inc={}", c.increment.as_secs_f64()));
            }
        }
    }
    line
}

/// Any Hub engine as a player of a series of games: launched as a game begins (and again at
/// a move after a failure), told the variant, asked for each move with the full game since
/// its start. `dama match` plays it through `dama-lab`'s `Player` trait.
pub struct HubPlayer {
    config: ClientConfig,
    limits: Limits,
    label: String,
    client: Option<HubClient>,
    variant: Option<Variant>,
}

impl HubPlayer {
    /// A player running `config` with `limits` per move, named `label` in game records.
    pub fn new(label: impl Into<String>, config: ClientConfig, limits: Limits) -> HubPlayer {
        HubPlayer {
            config,
            limits,
            label: label.into(),
            client: None,
            variant: None,
        }
    }

    fn client(&mut self, variant: Variant) -> Result<&mut HubClient, Error> {
        if self.client.is_none() {
            self.client = Some(HubClient::launch(&self.config)?);
            self.variant = None;
        }
        let client = self.client.as_mut().ok_or_else(|| Error::Spawn {
            program: self.config.program.clone(),
            why: "not running".into(),
        })?;
        if self.variant != Some(variant) {
            client.send(&format!("set-param name=variant value={}", variant.name()))?;
            self.variant = Some(variant);
        }
        Ok(client)
    }

    fn ask(&mut self, game: &Game) -> Result<Move, Error> {
        let limits = self.limits;
        let client = self.client(game.variant())?;
        let reply = client.go(game.start(), game.moves(), &limits)?;
        let name = client.name().to_string();
        let text = reply.mv.ok_or_else(|| Error::BadReply {
            engine: name.clone(),
            line: "done".into(),
            why: format!(
                "no move in a position with legal moves{}",
                reply
                    .errors
                    .first()
                    .map(|e| format!(" (it said: {e})"))
                    .unwrap_or_default()
            ),
        })?;
        let pos = game.position();
        dama_rules::with_rules!(game.variant(), R => parse_move::<R>(pos, &text, MoveFormat::Hub))
            .map_err(|e| Error::BadReply {
                engine: name,
                line: format!("done move={}", excerpt(&text)),
                why: e.to_string(),
            })
    }

    /// The name it was given, for game records.
    pub fn name(&self) -> String {
        self.label.clone()
    }

    /// A new game starts: the engine is told so, or launched (before the game, so not on
    /// its clock; a failure to launch shows at the first move, which tries again).
    pub fn new_game(&mut self) {
        if let Some(c) = &mut self.client {
            if c.new_game().is_err() {
                self.client = None;
            }
        }
        if self.client.is_none() {
            self.client = HubClient::launch(&self.config).ok();
            self.variant = None;
        }
    }

    /// From now on, moves are searched on `clock` (the player's time left, this move's
    /// increment added) in place of the time limit it was made with.
    pub fn set_clock(&mut self, clock: dama_search::Clock) {
        self.limits.time = TimeControl::Clock(clock);
    }

    /// The engine's move in `game`, which is not over.
    ///
    /// # Errors
    /// Whatever went wrong: the engine could not start, exited, hung or answered a move
    /// that is not legal. The next game then starts with a fresh process.
    pub fn choose(&mut self, game: &Game) -> Result<Move, Error> {
        self.ask(game).inspect_err(|_| self.client = None)
    }
}
