//! The client of a request: whose address every per-address limit counts (seat grants, logins,
//! registrations, analyses, challenges, the pools' seeks) and which scheme the Origin check
//! expects. Pure: a TCP peer and request headers in, an address (or a scheme) out.
//!
//! Behind a reverse proxy every connection comes from the proxy, so without this every user of
//! the site would share one budget. `--trusted-proxies CIDR,...` names the proxies whose word is
//! taken; by default nobody's is.
//!
//! The rule, for a request whose TCP peer is P:
//! - P not trusted: the client is P, whatever the headers say (anyone can write them).
//! - P trusted: `X-Forwarded-For` (every such header, in order, each a comma list) read from the
//!   right, skipping trusted addresses: the first address that is not trusted is the client,
//!   since each trusted proxy appended the address it got the request from, and what is left of
//!   the last untrusted hop was written by someone we do not trust. All hops trusted: the
//!   leftmost (a client inside the trusted network). Without `X-Forwarded-For`, RFC 7239
//!   `Forwarded`'s `for=` parameters, read the same way.
//! - A hop that is not an address (garbage, `unknown`, an obfuscated `_name`, an element
//!   without `for=`) ends the walk as if the list began after it: the client is then the last
//!   trusted hop read, or P if none was.
//!
//! **`X-Forwarded-For` wins over `Forwarded`** when a request has both: nginx (the proxy
//! docs/deploy.md recommends), HAProxy, Caddy, Traefik and the cloud balancers append it by
//! default, while `Forwarded` needs configuring, and a proxy that appends one header passes the
//! other through as the client wrote it. So the operator's proxy must append
//! `X-Forwarded-For`, or, if it only writes `Forwarded`, remove the client's `X-Forwarded-For`.
//!
//! Hostile headers: hyper bounds the size of a request's headers; within them the walk
//! allocates nothing (it splits the header values in place, from the right) and stops at the
//! first untrusted hop or after [`MAX_HOPS`] trusted ones, so a 100 KB list of 10,000 hops
//! costs at most one pass over its bytes (checking that they are text) and 64 parses.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::str::FromStr;

use axum::http::HeaderMap;
use axum::http::header::{FORWARDED, HeaderName};

/// Trusted hops read at most from one header before the walk stops (a real chain has a few).
pub const MAX_HOPS: usize = 64;

const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");
const X_FORWARDED_PROTO: HeaderName = HeaderName::from_static("x-forwarded-proto");

/// The TCP peer of a request's connection (a request extension beside `ConnectInfo`, which
/// holds the client address): the proxy, behind one. For logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerAddr(pub SocketAddr);

/// The scheme a request came with as the browser sent it (a request extension): this server
/// speaks plain HTTP, so `Http` unless a trusted proxy says it terminated TLS.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scheme {
    #[default]
    Http,
    Https,
}

impl Scheme {
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }

    fn parse(text: &str) -> Option<Scheme> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("http") {
            Some(Scheme::Http)
        } else if text.eq_ignore_ascii_case("https") {
            Some(Scheme::Https)
        } else {
            None
        }
    }
}

/// One network of `--trusted-proxies`: an address and a prefix length (a bare address is
/// one host). Kept with its host bits zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cidr {
    V4 { network: u32, prefix: u8 },
    V6 { network: u128, prefix: u8 },
}

/// A `--trusted-proxies` entry that is not a network.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadCidr {
    #[error("{value:?} is not an IP address or network (e.g. 127.0.0.1/32, 10.0.0.0/8, ::1/128)")]
    Address { value: String },
    #[error("{value:?}: the prefix length must be a number from 0 to {max}")]
    Prefix { value: String, max: u8 },
    #[error("{value:?} has bits set after its /{prefix}: the network is {network}")]
    HostBits {
        value: String,
        prefix: u8,
        network: String,
    },
}

/// The mask of the first `prefix` bits of a `bits`-bit address (`bits` 32 or 128).
fn mask(prefix: u8, bits: u8) -> u128 {
    let all = u128::MAX >> (128 - u32::from(bits));
    all & !all.checked_shr(u32::from(prefix)).unwrap_or(0)
}

/// IPv4-mapped IPv6 (`::ffff:a.b.c.d`, what a dual-stack listener gives for an IPv4 peer) is
/// the IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

impl Cidr {
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (*self, canonical(ip)) {
            (Cidr::V4 { network, prefix }, IpAddr::V4(ip)) => {
                u128::from(u32::from(ip)) & mask(prefix, 32) == u128::from(network)
            }
            (Cidr::V6 { network, prefix }, IpAddr::V6(ip)) => {
                u128::from(ip) & mask(prefix, 128) == network
            }
            _ => false,
        }
    }
}

impl FromStr for Cidr {
    type Err = BadCidr;

    fn from_str(value: &str) -> Result<Cidr, BadCidr> {
        let text = value.trim();
        let (address, prefix) = match text.split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text, None),
        };
        let address: IpAddr = address.parse().map_err(|_| BadCidr::Address {
            value: value.to_owned(),
        })?;
        let (bits, max): (u128, u8) = match address {
            IpAddr::V4(v4) => (u128::from(u32::from(v4)), 32),
            IpAddr::V6(v6) => (u128::from(v6), 128),
        };
        let prefix = match prefix {
            None => max,
            // `u8::from_str` takes a leading `+`, which is no prefix length.
            Some(digits) => match digits.parse::<u8>() {
                Ok(prefix) if prefix <= max && !digits.starts_with('+') => prefix,
                _ => {
                    return Err(BadCidr::Prefix {
                        value: value.to_owned(),
                        max,
                    });
                }
            },
        };
        let network = bits & mask(prefix, max);
        if network != bits {
            // A typo (10.0.0.1/8 for 10.0.0.0/8, or /8 for /32) would trust far more or less
            // than meant: say so rather than guess.
            let shown = match address {
                IpAddr::V4(_) => Ipv4Addr::from(network as u32).to_string(),
                IpAddr::V6(_) => Ipv6Addr::from(network).to_string(),
            };
            return Err(BadCidr::HostBits {
                value: value.to_owned(),
                prefix,
                network: format!("{shown}/{prefix}"),
            });
        }
        Ok(match address {
            IpAddr::V4(_) => Cidr::V4 {
                network: network as u32,
                prefix,
            },
            IpAddr::V6(_) => Cidr::V6 { network, prefix },
        })
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Cidr::V4 { network, prefix } => write!(f, "{}/{prefix}", Ipv4Addr::from(network)),
            Cidr::V6 { network, prefix } => write!(f, "{}/{prefix}", Ipv6Addr::from(network)),
        }
    }
}

/// `--trusted-proxies`: the networks whose forwarding headers are believed. Empty (the
/// default): nobody's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<Cidr>);

impl FromStr for TrustedProxies {
    type Err = BadCidr;

    /// A comma list (`127.0.0.1/32,10.0.0.0/8,::1/128`); blanks around entries and empty
    /// entries are ignored, so `""` trusts nobody.
    fn from_str(list: &str) -> Result<TrustedProxies, BadCidr> {
        list.split(',')
            .filter(|entry| !entry.trim().is_empty())
            .map(str::parse)
            .collect::<Result<Vec<_>, _>>()
            .map(TrustedProxies)
    }
}

impl fmt::Display for TrustedProxies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, cidr) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{cidr}")?;
        }
        Ok(())
    }
}

impl TrustedProxies {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|cidr| cidr.contains(ip))
    }

    /// The client of a request from `peer` with these headers (see the module's rule). The
    /// port is the peer's when the client is the peer, else 0 (the limits count addresses).
    pub fn client(&self, peer: SocketAddr, headers: &HeaderMap) -> SocketAddr {
        if !self.contains(peer.ip()) {
            return peer;
        }
        let hops = if headers.contains_key(X_FORWARDED_FOR) {
            self.walk(
                headers
                    .get_all(X_FORWARDED_FOR)
                    .iter()
                    .rev()
                    .flat_map(|value| value.to_str().unwrap_or("").rsplit(','))
                    .map(parse_node),
            )
        } else {
            self.walk(
                headers
                    .get_all(FORWARDED)
                    .iter()
                    .rev()
                    .flat_map(|value| value.to_str().unwrap_or("").rsplit(','))
                    .map(|element| forwarded_param(element, "for").and_then(parse_node)),
            )
        };
        match hops {
            Some(ip) => SocketAddr::new(ip, 0),
            None => peer,
        }
    }

    /// The scheme of a request from `peer`: `X-Forwarded-Proto` (its first value), else the
    /// first `proto=` of `Forwarded`, from a trusted peer only; else `Http`, this server's own.
    ///
    /// The first value is what the proxy nearest the browser saw. A client may forge it where a
    /// proxy appends instead of setting it, but only for its own requests: the Origin check it
    /// serves protects a browser from another site's page, which cannot add these headers (a
    /// cross-site request with a custom header needs a CORS preflight this server never grants).
    pub fn scheme(&self, peer: SocketAddr, headers: &HeaderMap) -> Scheme {
        if !self.contains(peer.ip()) {
            return Scheme::Http;
        }
        let forwarded = match headers.get(X_FORWARDED_PROTO) {
            Some(value) => value
                .to_str()
                .ok()
                .and_then(|v| v.split(',').next())
                .and_then(Scheme::parse),
            None => headers
                .get_all(FORWARDED)
                .iter()
                .flat_map(|value| value.to_str().unwrap_or("").split(','))
                .find_map(|element| forwarded_param(element, "proto"))
                .and_then(Scheme::parse),
        };
        forwarded.unwrap_or(Scheme::Http)
    }

    /// Hops from the right: the first untrusted one; or the last trusted one read when the list
    /// ends, a hop is not an address, or [`MAX_HOPS`] trusted ones were read.
    fn walk(&self, hops: impl Iterator<Item = Option<IpAddr>>) -> Option<IpAddr> {
        let mut leftmost_trusted = None;
        for hop in hops.take(MAX_HOPS) {
            let Some(ip) = hop else { break };
            if !self.contains(ip) {
                return Some(ip);
            }
            leftmost_trusted = Some(ip);
        }
        leftmost_trusted
    }
}

/// The value of parameter `name` in one `Forwarded` element (`for=1.2.3.4;proto=https`),
/// unquoted. Elements are split on commas and parameters on semicolons without reading quoted
/// strings: no address, scheme or port holds either, and a client's unbalanced quote then
/// cannot swallow the element a proxy appended after it.
fn forwarded_param<'a>(element: &'a str, name: &str) -> Option<&'a str> {
    element.split(';').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        if !key.trim().eq_ignore_ascii_case(name) {
            return None;
        }
        let value = value.trim();
        Some(
            value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .unwrap_or(value),
        )
    })
}

/// One hop as an address: `1.2.3.4`, `1.2.3.4:port`, `2001:db8::1`, `[2001:db8::1]` or
/// `[2001:db8::1]:port` (the port, perhaps an obfuscated `_name`, is ignored). `unknown`, an
/// obfuscated `_name` or anything else: `None`.
fn parse_node(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim();
    if let Ok(ip) = hop.parse::<IpAddr>() {
        return Some(canonical(ip));
    }
    if let Some(bracketed) = hop.strip_prefix('[') {
        let (v6, rest) = bracketed.split_once(']')?;
        let port_ok = rest.is_empty() || rest.strip_prefix(':').is_some_and(|p| !p.is_empty());
        if !port_ok {
            return None;
        }
        return v6
            .parse::<Ipv6Addr>()
            .ok()
            .map(|ip| canonical(IpAddr::V6(ip)));
    }
    let (v4, port) = hop.split_once(':')?;
    if port.is_empty() {
        return None;
    }
    v4.parse::<Ipv4Addr>().ok().map(IpAddr::V4)
}

#[cfg(test)]
mod tests;
