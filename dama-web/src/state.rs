//! What every handler reads: the live games, the engines, the limits and the counters. The
//! bottom of the server: it imports no handler, and every handler imports it.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use super::analysis::Analyst;
use super::computer::Computer;
use super::db::Db;
use super::fair::PerAddress;
use super::guard::Limit;
use super::metrics::Metrics;
use super::store::Store;
use super::Options;

/// The largest request body accepted; every request of the API fits in a few hundred bytes.
pub const BODY_LIMIT: usize = 4 * 1024;

/// What every request handler shares.
pub struct State {
    /// The live games.
    pub store: Arc<Store>,
    /// The engines.
    pub computer: Computer,
    /// The engines and slots of reviews and live analysis.
    pub analyst: Arc<Analyst>,
    /// The counters of `GET /metrics`.
    pub metrics: Arc<Metrics>,
    /// The per-address limit on new games.
    pub new_games: Option<Limit>,
    /// The per-address limit on computer replies.
    pub replies: Option<Limit>,
    /// Whether `X-Forwarded-For` names the client.
    pub trust_proxy: bool,
    /// Turns true when the server stops (the event streams end).
    pub stopping: watch::Receiver<bool>,
    /// How long a request body may take to arrive.
    pub body_timeout: Duration,
    /// The connections each client address holds open.
    pub connections: Arc<PerAddress>,
    /// The event streams each client address follows.
    pub streams: Arc<PerAddress>,
    /// The most event streams one address may follow.
    pub streams_per_address: usize,
    /// How long an event stream lasts before the client reconnects.
    pub stream_lifetime: Duration,
}

impl State {
    /// The state for `opts`, over `db`, stopping when `stopping` turns true.
    pub fn new(opts: &Options, db: Db, stopping: watch::Receiver<bool>) -> State {
        let metrics = Arc::new(Metrics::default());
        let computer = Computer::new(opts.searchers, Arc::clone(&metrics), opts.egtb.as_deref());
        let analyst = Arc::new(Analyst::new(opts.analysts, computer.endgames()));
        State {
            store: Arc::new(Store::new(
                opts.max_games,
                opts.idle,
                db,
                opts.data.is_some() || opts.database.is_some(),
                opts.keep,
            )),
            computer,
            analyst,
            metrics,
            new_games: Limit::new(opts.games_per_minute, "new games"),
            replies: Limit::new(opts.replies_per_minute, "computer replies"),
            trust_proxy: opts.trust_proxy,
            stopping,
            body_timeout: opts.body_timeout,
            connections: Arc::default(),
            streams: Arc::default(),
            streams_per_address: opts.streams_per_address,
            stream_lifetime: opts.stream_lifetime,
        }
    }
}

/// The state as an axum extractor.
pub type AxState = axum::extract::State<Arc<State>>;
