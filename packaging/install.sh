#!/bin/sh
# Installs a yttcheck release binary, after checking its SHA-256.
#
#   curl -fsSL https://github.com/yttcheck/yttcheck/releases/latest/download/install.sh | sh
#   sh install.sh --version v0.1.0 --to ~/.local/bin
#
# Options (or the environment):
#   --version vX.Y.Z   YTTCHECK_VERSION   the release (default: the latest)
#   --to DIR           YTTCHECK_INSTALL   where the binary goes (default: ~/.local/bin)
#   YTTCHECK_DOWNLOAD_BASE   where releases are (default: the GitHub releases of
#                            yttcheck/yttcheck; a file:// URL works, for tests and mirrors)
#
# It downloads yttcheck-<version>-<target>.tar.gz and its .sha256, refuses a
# checksum that does not match (nothing is installed then), and installs the
# binary with mode 0755. POSIX sh, curl or wget, tar, and sha256sum or shasum.
set -eu

version="${YTTCHECK_VERSION:-}"
dest="${YTTCHECK_INSTALL:-${HOME}/.local/bin}"
base="${YTTCHECK_DOWNLOAD_BASE:-https://github.com/yttcheck/yttcheck/releases}"

while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="$2"; shift 2 ;;
    --to) dest="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

say() { echo "yttcheck install: $*" >&2; }
die() { say "error: $*"; exit 1; }

# the release target of this machine (static musl binaries on Linux: they
# run on any distribution, Alpine and scratch images too)
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) target=x86_64-unknown-linux-musl ;;
  Linux-aarch64|Linux-arm64) target=aarch64-unknown-linux-musl ;;
  Darwin-arm64) target=aarch64-apple-darwin ;;
  Darwin-x86_64) target=x86_64-apple-darwin ;;
  *) die "no release binary for $(uname -s) $(uname -m): install with 'pip install yttcheck' or 'cargo install --locked yttcheck'" ;;
esac

fetch() { # URL FILE
  case "$1" in
    file://*) cp "${1#file://}" "$2" ;;
    *)
      if command -v curl >/dev/null 2>&1; then
        curl --fail --silent --show-error --location --proto '=https' --tlsv1.2 --retry 2 -o "$2" "$1"
      elif command -v wget >/dev/null 2>&1; then
        wget --quiet --https-only -O "$2" "$1"
      else
        die "neither curl nor wget is installed"
      fi
      ;;
  esac
}

case "${version}" in
  "") path="latest/download" ;;
  v[0-9]*.[0-9]*.[0-9]*) path="download/${version}" ;;
  *) die "--version expects vX.Y.Z, got '${version}'" ;;
esac
tmp="$(mktemp -d)"
trap 'rm -rf "${tmp}"' EXIT INT TERM
if [ -z "${version}" ]; then
  # the latest release names its assets by its tag: read it from the
  # version file every release publishes
  fetch "${base}/${path}/VERSION" "${tmp}/VERSION" || die "cannot find the latest release at ${base}"
  version="$(tr -d '[:space:]' < "${tmp}/VERSION")"
  case "${version}" in v[0-9]*.[0-9]*.[0-9]*) ;; *) die "the latest release names no version" ;; esac
fi
archive="yttcheck-${version}-${target}.tar.gz"
say "downloading ${archive}"
fetch "${base}/${path}/${archive}" "${tmp}/${archive}" || die "cannot download ${archive}"
fetch "${base}/${path}/${archive}.sha256" "${tmp}/${archive}.sha256" || die "cannot download ${archive}.sha256"

want="$(awk '{print $1; exit}' "${tmp}/${archive}.sha256")"
if command -v sha256sum >/dev/null 2>&1; then
  got="$(sha256sum "${tmp}/${archive}" | awk '{print $1}')"
elif command -v shasum >/dev/null 2>&1; then
  got="$(shasum -a 256 "${tmp}/${archive}" | awk '{print $1}')"
else
  die "neither sha256sum nor shasum is installed: cannot check the download"
fi
[ -n "${want}" ] && [ "${want}" = "${got}" ] \
  || die "checksum mismatch for ${archive} (expected ${want:-nothing}, got ${got}): nothing installed"

tar -xzf "${tmp}/${archive}" -C "${tmp}" yttcheck || die "${archive} holds no yttcheck binary"
mkdir -p "${dest}"
# a new file renamed into place: a running yttcheck keeps its binary
cp "${tmp}/yttcheck" "${dest}/.yttcheck.new"
chmod 0755 "${dest}/.yttcheck.new"
mv -f "${dest}/.yttcheck.new" "${dest}/yttcheck"
say "installed ${dest}/yttcheck ($("${dest}/yttcheck" --version 2>/dev/null || echo "${version}"))"
case ":${PATH}:" in
  *":${dest}:"*) ;;
  *) say "add ${dest} to your PATH" ;;
esac
