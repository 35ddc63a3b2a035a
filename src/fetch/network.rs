//! Where a repository's configuration may send the runner: the rules for
//! the `https://` schema locations of `.yttcheck.yml`, and which addresses
//! a name they give may resolve to. Pure (the fetcher, `fetch::schemas`,
//! resolves and connects; it asks these functions first).
//!
//! A pull request writes `.yttcheck.yml`, and `check`, `ci` and the editor
//! fetch what it names: an address inside the runner's network (a metadata
//! service, loopback, a private host) must not be reachable through it, nor
//! mapped through the errors in a public log. So the configuration may name
//! only public host names on port 443 (no IP literal, no user name, no
//! other port), and a name is used only when every address it resolves to
//! is public. The runner widens this by flag (`--allow-schema-host`); its
//! own `--schema-location`s are its own to choose.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The host (lowercase) and port of an `http(s)://` URL, as written; none
/// when it has no authority.
pub fn authority(url: &str) -> Option<(String, Option<&str>)> {
    let rest = url.split_once("://")?.1;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let auth = &rest[..end];
    let (host, port) = if let Some(v6) = auth.strip_prefix('[') {
        let (h, after) = v6.split_once(']')?;
        (format!("[{h}]"), after.strip_prefix(':'))
    } else {
        match auth.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (auth.to_string(), None),
        }
    };
    Some((host.to_ascii_lowercase(), port))
}

/// Whether `--allow-schema-host` entries name this URL's host (and port):
/// `HOST` allows it on 443, `HOST:PORT` on that port.
pub fn allowed(url: &str, allow: &[String]) -> bool {
    let Some((host, port)) = authority(url) else {
        return false;
    };
    let port = port.unwrap_or("443");
    allow.iter().any(|a| {
        let a = a.trim().to_ascii_lowercase();
        match authority(&format!("https://{a}")) {
            Some((h, p)) => h == host && p.unwrap_or("443") == port,
            None => false,
        }
    })
}

/// Checks an `https://` location of a repository's configuration: a
/// public host name on port 443, or a host the runner allowed. The error
/// says what is wrong and what to do.
pub fn check_config_url(url: &str, allow: &[String]) -> Result<(), String> {
    if allowed(url, allow) {
        return Ok(());
    }
    let widen = "a repository's configuration may name public host names on port 443 only (the runner allows others with --allow-schema-host HOST[:PORT], or gives its own with --schema-location)";
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let auth = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    if auth.contains('@') {
        return Err(format!("the schema location {url} names a user; {widen}"));
    }
    let Some((host, port)) = authority(url) else {
        return Err(format!("the schema location {url} names no host; {widen}"));
    };
    if let Some(p) = port {
        if p != "443" {
            return Err(format!("the schema location {url} names port {p}; {widen}"));
        }
    }
    if host.starts_with('[') || host.parse::<Ipv4Addr>().is_ok() {
        return Err(format!(
            "the schema location {url} names an IP address; {widen}"
        ));
    }
    if !is_public_name(&host) {
        return Err(format!(
            "the schema location {url} does not name a public host; {widen}"
        ));
    }
    Ok(())
}

/// Whether a host name is a public DNS name: dot-separated labels of
/// letters, digits and dashes, a top-level label that is not a number (so
/// no spelling of an IPv4 address: `2130706433`, `0x7f.1`), and none of
/// the names kept for local networks.
fn is_public_name(host: &str) -> bool {
    let labels: Vec<&str> = host.split('.').collect();
    let label_ok = |l: &&str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    let Some(top) = labels.last() else {
        return false;
    };
    let local = [
        "localhost",
        "local",
        "internal",
        "intranet",
        "lan",
        "home",
        "corp",
        "private",
        "localdomain",
        "arpa",
        "test",
        "invalid",
        "example",
    ];
    host.len() <= 253
        && labels.len() >= 2
        && labels.iter().all(label_ok)
        && !top.bytes().all(|b| b.is_ascii_digit())
        && !top.starts_with("0x")
        && !local.contains(top)
}

/// Whether an address is one of the public internet's: not loopback,
/// private, link-local, shared (CGNAT), unspecified, multicast, reserved,
/// documentation or benchmarking, and not an IPv6 form of such an IPv4
/// address (mapped, compatible, 6to4, NAT64).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(a == 0
        || a == 10
        || a == 127
        || (a == 100 && (64..128).contains(&b))
        || (a == 169 && b == 254)
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 192 && b == 0 && c == 2)
        || (a == 192 && b == 88 && c == 99)
        || (a == 192 && b == 168)
        || (a == 198 && (18..20).contains(&b))
        || (a == 198 && b == 51 && c == 100)
        || (a == 203 && b == 0 && c == 113)
        || a >= 224)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    let embedded =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    if ip.is_unspecified() || ip.is_loopback() {
        return false;
    }
    // IPv4-mapped (::ffff:a.b.c.d) and -compatible (::a.b.c.d)
    if s[..5] == [0; 5] && (s[5] == 0xffff || s[5] == 0) {
        return is_public_v4(embedded(s[6], s[7]));
    }
    // NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48)
    if s[0] == 0x64 && s[1] == 0xff9b {
        return s[2] == 0 && is_public_v4(embedded(s[6], s[7]));
    }
    // 6to4 (2002::/16) carries an IPv4 address
    if s[0] == 0x2002 {
        return is_public_v4(embedded(s[1], s[2]));
    }
    !((s[0] & 0xfe00) == 0xfc00 // unique local
        || (s[0] & 0xffc0) == 0xfe80 // link-local
        || (s[0] & 0xffc0) == 0xfec0 // site-local (deprecated)
        || (s[0] & 0xff00) == 0xff00 // multicast
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        || (s[0] == 0x2001 && s[1] < 0x0200) // IETF protocol assignments (Teredo, ORCHID...)
        || s[0] == 0x0100 && s[1..4] == [0; 3]) // discard-only
}

/// Checks a Kubernetes version as written in configuration or a flag: it
/// becomes part of schema paths and URLs, so only `master` or `[v]X.Y.Z`.
pub fn check_version(version: &str) -> Result<(), String> {
    let v = version.strip_prefix('v').unwrap_or(version);
    let numeric = v.split('.').count() == 3
        && v.split('.')
            .all(|p| !p.is_empty() && p.len() <= 6 && p.bytes().all(|b| b.is_ascii_digit()));
    if version == "master" || numeric {
        Ok(())
    } else {
        Err(format!(
            "version {}: expected `master` or a version like 1.30.0",
            crate::escape::control(version)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_may_name_public_host_names_on_443_only() {
        let ok = [
            "https://raw.githubusercontent.com/yannh/kubernetes-json-schema/master/{{ .ResourceKind }}.json",
            "https://schemas.example.org:443/x.json",
            "HTTPS://Schemas.Example.ORG/x.json",
        ];
        for u in ok {
            assert_eq!(check_config_url(u, &[]), Ok(()), "{u}");
        }
        let refused = [
            ("https://169.254.169.254/latest/x.json", "IP address"),
            ("https://127.0.0.1/x.json", "IP address"),
            ("https://[::1]/x.json", "IP address"),
            ("https://[fe80::1%25eth0]/x.json", "IP address"),
            ("https://2130706433/x.json", "public host"),
            ("https://0x7f.1/x.json", "public host"),
            ("https://127.1/x.json", "public host"),
            ("https://metadata/x.json", "public host"),
            ("https://kube.internal/x.json", "public host"),
            ("https://localhost/x.json", "public host"),
            ("https://a.localhost/x.json", "public host"),
            ("https://schemas.example.org:8443/x.json", "port 8443"),
            ("https://user:pw@schemas.example.org/x.json", "names a user"),
            ("https://evil.org\\@10.0.0.1/x.json", "names a user"),
            ("https://{{ .Group }}.org/x.json", "public host"),
            ("https://a_b.org/x.json", "public host"),
            ("https:///x.json", "public host"),
        ];
        for (u, says) in refused {
            let e = check_config_url(u, &[]).unwrap_err();
            assert!(e.contains(says), "{u}: {e}");
            assert!(e.contains("--allow-schema-host"), "{e}");
        }
    }

    #[test]
    fn the_runner_may_allow_a_host_and_port() {
        let allow = vec!["mirror.corp".to_string(), "10.0.0.5:8443".to_string()];
        assert_eq!(
            check_config_url("https://mirror.corp/x.json", &allow),
            Ok(())
        );
        assert!(check_config_url("https://mirror.corp:444/x.json", &allow).is_err());
        assert_eq!(
            check_config_url("https://10.0.0.5:8443/x.json", &allow),
            Ok(())
        );
        assert!(check_config_url("https://10.0.0.5/x.json", &allow).is_err());
        assert!(allowed("https://MIRROR.corp/a", &allow));
        assert!(!allowed("https://mirror.corp.evil.org/a", &allow));
    }

    #[test]
    fn only_public_addresses_are_public() {
        let private = [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "192.0.2.1",
            "198.18.0.1",
            "::1",
            "::",
            "fc00::1",
            "fd12::1",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
            "2002:a9fe:a9fe::1",
            "2001:db8::1",
            "::127.0.0.1",
        ];
        for ip in private {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "140.82.112.3",
            "185.199.108.133",
            "8.8.8.8",
            "2606:4700::1111",
            "2a00:1450:4001::200e",
            "::ffff:8.8.8.8",
            "172.32.0.1",
        ] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn a_version_is_master_or_three_numbers() {
        for v in ["master", "1.30.0", "v1.25.16"] {
            assert_eq!(check_version(v), Ok(()), "{v}");
        }
        for v in [
            "1.30.0/../../x",
            "1.30",
            "1.30.0?",
            "",
            "latest",
            "v1.30.0-rc.1",
            "1.30.0\n",
        ] {
            assert!(check_version(v).is_err(), "{v}");
        }
    }
}
