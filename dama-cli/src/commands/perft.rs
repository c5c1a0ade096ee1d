//! `dama perft`: leaf counts of the legal-move tree.

use std::time::Instant;

use dama_rules::perft::{divide_of, perft_of};
use dama_rules::Variant;

use crate::error::CliError;
use crate::exit::Status;
use crate::output;

pub fn run(
    variant: Variant,
    fen_text: Option<&str>,
    depth: u32,
    show_divide: bool,
) -> Result<Status, CliError> {
    let pos = super::position(fen_text)?;
    if show_divide && depth > 0 {
        let mut counts = divide_of(variant, &pos, depth);
        counts.sort_by_key(|&(m, _)| m);
        for (m, n) in counts {
            output::line(format_args!("{m}: {n}"))?;
        }
    }
    // perft(0) is 1 by definition: printed when asked for alone. Once a depth has no leaves,
    // no deeper one has any: counting stops there.
    let first = depth.min(1);
    for d in first..=depth {
        let start = Instant::now();
        let nodes = perft_of(variant, &pos, d);
        let secs = start.elapsed().as_secs_f64();
        let nps = if secs > 0.0 { nodes as f64 / secs } else { 0.0 };
        output::line(format_args!(
            "depth {d} nodes {nodes} time {secs:.3} nps {nps:.0}"
        ))?;
        if nodes == 0 {
            break;
        }
    }
    Ok(Status::Ok)
}
