//! Is an address public? A table of special-purpose ranges, with IPv4
//! addresses embedded in IPv6 classified by the IPv4 address they carry.
//!
//! The ranges come from the IANA special-purpose registries (RFC 6890 and
//! its updates). std's `is_global` and friends are unstable, and the stable
//! helpers miss ranges (`is_private` has no 100.64/10), so the table is ours
//! and every row is tested.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not public.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AddressClass {
    /// A public unicast address.
    Public,
    /// `0.0.0.0/8`, `::` (Linux connects these to the local host).
    Unspecified,
    /// `127.0.0.0/8`, `::1`.
    Loopback,
    /// RFC 1918 `10/8`, `172.16/12`, `192.168/16`.
    Private,
    /// `100.64.0.0/10`, carrier-grade NAT.
    SharedCgnat,
    /// `169.254.0.0/16`, `fe80::/10`.
    LinkLocal,
    /// Cloud metadata endpoints (`169.254.169.254`, `169.254.170.2`, `fd00:ec2::254`).
    Metadata,
    /// `fc00::/7` unique local, `fec0::/10` site-local.
    UniqueLocal,
    /// `224.0.0.0/4`, `ff00::/8`.
    Multicast,
    /// `255.255.255.255`.
    Broadcast,
    /// Documentation ranges (`192.0.2/24`, `198.51.100/24`, `203.0.113/24`, `2001:db8::/32`).
    Documentation,
    /// `198.18.0.0/15`, benchmarking.
    Benchmarking,
    /// Reserved or protocol-assignment ranges (`240/4`, `192.0.0/24`,
    /// `192.88.99/24`, `100::/64`, `2001::/23` outside Teredo).
    Reserved,
}

impl AddressClass {
    /// Whether connections to this class are allowed by default.
    pub fn is_public(self) -> bool {
        self == AddressClass::Public
    }

    /// A stable snake_case code.
    pub fn code(self) -> &'static str {
        match self {
            AddressClass::Public => "public",
            AddressClass::Unspecified => "unspecified",
            AddressClass::Loopback => "loopback",
            AddressClass::Private => "private",
            AddressClass::SharedCgnat => "shared_cgnat",
            AddressClass::LinkLocal => "link_local",
            AddressClass::Metadata => "metadata",
            AddressClass::UniqueLocal => "unique_local",
            AddressClass::Multicast => "multicast",
            AddressClass::Broadcast => "broadcast",
            AddressClass::Documentation => "documentation",
            AddressClass::Benchmarking => "benchmarking",
            AddressClass::Reserved => "reserved",
        }
    }
}

fn in_v4(ip: Ipv4Addr, net: [u8; 4], prefix: u32) -> bool {
    let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - prefix) };
    u32::from(ip) & mask == u32::from(Ipv4Addr::from(net)) & mask
}

fn in_v6(ip: Ipv6Addr, net: Ipv6Addr, prefix: u32) -> bool {
    let mask = if prefix == 0 { 0 } else { u128::MAX << (128 - prefix) };
    u128::from(ip) & mask == u128::from(net) & mask
}

/// IPv4 special-purpose ranges, most specific first.
const V4: &[([u8; 4], u32, AddressClass)] = &[
    ([169, 254, 169, 254], 32, AddressClass::Metadata),
    ([169, 254, 170, 2], 32, AddressClass::Metadata),
    ([255, 255, 255, 255], 32, AddressClass::Broadcast),
    ([0, 0, 0, 0], 8, AddressClass::Unspecified),
    ([10, 0, 0, 0], 8, AddressClass::Private),
    ([100, 64, 0, 0], 10, AddressClass::SharedCgnat),
    ([127, 0, 0, 0], 8, AddressClass::Loopback),
    ([169, 254, 0, 0], 16, AddressClass::LinkLocal),
    ([172, 16, 0, 0], 12, AddressClass::Private),
    ([192, 0, 0, 0], 24, AddressClass::Reserved),
    ([192, 0, 2, 0], 24, AddressClass::Documentation),
    ([192, 88, 99, 0], 24, AddressClass::Reserved),
    ([192, 168, 0, 0], 16, AddressClass::Private),
    ([198, 18, 0, 0], 15, AddressClass::Benchmarking),
    ([198, 51, 100, 0], 24, AddressClass::Documentation),
    ([203, 0, 113, 0], 24, AddressClass::Documentation),
    ([224, 0, 0, 0], 4, AddressClass::Multicast),
    ([240, 0, 0, 0], 4, AddressClass::Reserved),
];

/// Classifies an IPv4 address.
pub fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    V4.iter().find(|(net, prefix, _)| in_v4(ip, *net, *prefix)).map_or(AddressClass::Public, |(_, _, class)| *class)
}

/// The IPv4 address an IPv6 address carries, for the forms that carry one:
/// mapped `::ffff:a.b.c.d`, translated `::ffff:0:a.b.c.d` (RFC 2765),
/// compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`
/// and `64:ff9b:1::/48`, 6to4 `2002::/16`, and Teredo `2001::/32` (whose
/// client address is stored inverted in the last 32 bits).
pub fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let bits = u128::from(ip);
    let low32 = Ipv4Addr::from((bits & 0xffff_ffff) as u32);
    let seg = ip.segments();
    if bits >> 32 == 0xffff || bits >> 32 == 0xffff_0000 {
        return Some(low32);
    }
    // `::` and `::1` are not IPv4-compatible forms of 0.0.0.0 and 0.0.0.1.
    if bits >> 32 == 0 && bits > 1 {
        return Some(low32);
    }
    if in_v6(ip, Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96)
        || in_v6(ip, Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0), 48)
    {
        return Some(low32);
    }
    if seg[0] == 0x2002 {
        return Some(Ipv4Addr::from(((seg[1] as u32) << 16) | seg[2] as u32));
    }
    if seg[0] == 0x2001 && seg[1] == 0 {
        return Some(Ipv4Addr::from(!((bits & 0xffff_ffff) as u32)));
    }
    None
}

/// Classifies an IPv6 address; one that carries an IPv4 address is
/// classified by that address, so `::ffff:127.0.0.1` is loopback.
pub fn classify_v6(ip: Ipv6Addr) -> AddressClass {
    if let Some(v4) = embedded_v4(ip) {
        let inner = classify_v4(v4);
        // A translated public address is still reachable only through a
        // translator this host may not have; public stays public.
        return inner;
    }
    let rows: &[(Ipv6Addr, u32, AddressClass)] = &[
        (Ipv6Addr::UNSPECIFIED, 128, AddressClass::Unspecified),
        (Ipv6Addr::LOCALHOST, 128, AddressClass::Loopback),
        (Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254), 128, AddressClass::Metadata),
        (Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0), 64, AddressClass::Reserved),
        (Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32, AddressClass::Documentation),
        (Ipv6Addr::new(0x2001, 0x10, 0, 0, 0, 0, 0, 0), 28, AddressClass::Reserved),
        (Ipv6Addr::new(0x2001, 0x20, 0, 0, 0, 0, 0, 0), 28, AddressClass::Reserved),
        (Ipv6Addr::new(0x2001, 0x2, 0, 0, 0, 0, 0, 0), 48, AddressClass::Benchmarking),
        (Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0), 7, AddressClass::UniqueLocal),
        (Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0), 10, AddressClass::UniqueLocal),
        (Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, AddressClass::LinkLocal),
        (Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0), 8, AddressClass::Multicast),
    ];
    rows.iter().find(|(net, prefix, _)| in_v6(ip, *net, *prefix)).map_or(AddressClass::Public, |(_, _, c)| *c)
}

/// Classifies any address.
pub fn classify(ip: IpAddr) -> AddressClass {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_row() {
        let cases: &[(&str, AddressClass)] = &[
            ("0.0.0.0", AddressClass::Unspecified),
            ("0.1.2.3", AddressClass::Unspecified),
            ("10.0.0.1", AddressClass::Private),
            ("100.64.0.1", AddressClass::SharedCgnat),
            ("100.127.255.255", AddressClass::SharedCgnat),
            ("100.128.0.1", AddressClass::Public),
            ("127.0.0.1", AddressClass::Loopback),
            ("127.255.255.254", AddressClass::Loopback),
            ("169.254.0.1", AddressClass::LinkLocal),
            ("169.254.169.254", AddressClass::Metadata),
            ("169.254.170.2", AddressClass::Metadata),
            ("172.16.0.1", AddressClass::Private),
            ("172.31.255.255", AddressClass::Private),
            ("172.32.0.1", AddressClass::Public),
            ("192.0.0.1", AddressClass::Reserved),
            ("192.0.2.1", AddressClass::Documentation),
            ("192.88.99.1", AddressClass::Reserved),
            ("192.168.1.1", AddressClass::Private),
            ("198.18.0.1", AddressClass::Benchmarking),
            ("198.19.255.255", AddressClass::Benchmarking),
            ("198.20.0.1", AddressClass::Public),
            ("198.51.100.1", AddressClass::Documentation),
            ("203.0.113.1", AddressClass::Documentation),
            ("224.0.0.1", AddressClass::Multicast),
            ("239.255.255.250", AddressClass::Multicast),
            ("240.0.0.1", AddressClass::Reserved),
            ("255.255.255.255", AddressClass::Broadcast),
            ("8.8.8.8", AddressClass::Public),
            ("93.184.216.34", AddressClass::Public),
            ("::", AddressClass::Unspecified),
            ("::1", AddressClass::Loopback),
            ("::ffff:127.0.0.1", AddressClass::Loopback),
            ("::ffff:7f00:1", AddressClass::Loopback),
            ("::127.0.0.1", AddressClass::Loopback),
            ("::ffff:169.254.169.254", AddressClass::Metadata),
            ("::ffff:8.8.8.8", AddressClass::Public),
            ("::ffff:0:127.0.0.1", AddressClass::Loopback),
            ("::ffff:0:8.8.8.8", AddressClass::Public),
            ("64:ff9b::a9fe:a9fe", AddressClass::Metadata),
            ("64:ff9b::808:808", AddressClass::Public),
            ("64:ff9b:1::a00:1", AddressClass::Private),
            ("2002:a9fe:a9fe::1", AddressClass::Metadata),
            ("2002:0808:0808::1", AddressClass::Public),
            ("2001:0:4136:e378:8000:63bf:3fff:fdd2", AddressClass::Documentation),
            ("2001:0:4136:e378:8000:63bf:80ff:fffe", AddressClass::Loopback),
            ("fd00:ec2::254", AddressClass::Metadata),
            ("fc00::1", AddressClass::UniqueLocal),
            ("fd12:3456::1", AddressClass::UniqueLocal),
            ("fec0::1", AddressClass::UniqueLocal),
            ("fe80::1", AddressClass::LinkLocal),
            ("ff02::1", AddressClass::Multicast),
            ("100::1", AddressClass::Reserved),
            ("2001:db8::1", AddressClass::Documentation),
            ("2001:10::1", AddressClass::Reserved),
            ("2001:20::1", AddressClass::Reserved),
            ("2606:4700:4700::1111", AddressClass::Public),
            ("2a00:1450:4001::1", AddressClass::Public),
        ];
        for (text, expected) in cases {
            let ip: IpAddr = text.parse().unwrap();
            assert_eq!(classify(ip), *expected, "{text}");
        }
    }
}
