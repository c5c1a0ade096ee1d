//! Fairness between client addresses: how many connections and event streams each address
//! holds open, so that one client cannot take every slot of the server.
//!
//! A [`PerAddress`] counts what each address holds; [`PerAddress::take`] hands out a
//! [`Ticket`] while the address is under its cap, and the ticket gives its place back when
//! dropped (the connection closed, the stream ended).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

/// Past this share of `--max-connections` (the last eighth), only addresses holding fewer
/// than [`FEW`] connections may open one more: room kept for new visitors.
pub const RESERVE_DIVISOR: usize = 8;

/// The connections an address may hold and still get into the reserved room (a browser
/// opens up to six to one host; a page of ours needs two or three).
pub const FEW: usize = 4;

/// What each client address holds open now.
#[derive(Default)]
pub struct PerAddress {
    held: Mutex<HashMap<IpAddr, usize>>,
}

/// One place held by an address; given back when dropped.
pub struct Ticket {
    of: Arc<PerAddress>,
    ip: IpAddr,
}

impl PerAddress {
    /// A place for `ip` if it holds fewer than `cap`.
    pub fn take(self: &Arc<Self>, ip: IpAddr, cap: usize) -> Option<Ticket> {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let n = held.entry(ip).or_insert(0);
        if *n >= cap {
            if *n == 0 {
                held.remove(&ip);
            }
            return None;
        }
        *n += 1;
        Some(Ticket {
            of: Arc::clone(self),
            ip,
        })
    }

    /// How many places `ip` holds.
    #[cfg(test)]
    pub fn held(&self, ip: IpAddr) -> usize {
        let held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        held.get(&ip).copied().unwrap_or(0)
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut held = self.of.held.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = held.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.ip);
            }
        }
    }
}

/// The connections `ip` may hold when `open` of `max` are open: `per_address`, or only
/// [`FEW`] once the open ones reach the reserved last eighth of `max`.
pub fn connection_cap(open: usize, max: usize, per_address: usize) -> usize {
    let reserve = max / RESERVE_DIVISOR;
    if open >= max.saturating_sub(reserve) {
        per_address.min(FEW)
    } else {
        per_address
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_at_most_its_cap_and_gets_places_back() {
        let per = Arc::new(PerAddress::default());
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let held: Vec<Ticket> = (0..3).map(|_| per.take(a, 3).unwrap()).collect();
        assert!(per.take(a, 3).is_none());
        assert!(per.take(b, 3).is_some());
        drop(held);
        assert_eq!(per.held(a), 0);
        assert!(per.take(a, 3).is_some());
        assert!(per.take(a, 0).is_none());
        assert!(per.held.lock().unwrap().is_empty());
    }

    #[test]
    fn the_last_eighth_is_kept_for_addresses_with_few_connections() {
        assert_eq!(connection_cap(0, 800, 64), 64);
        assert_eq!(connection_cap(699, 800, 64), 64);
        assert_eq!(connection_cap(700, 800, 64), FEW);
        assert_eq!(connection_cap(700, 800, 2), 2);
    }
}
