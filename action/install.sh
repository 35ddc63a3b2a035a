#!/usr/bin/env bash
# Puts a yttcheck binary on the PATH of a GitHub Actions job, for action.yml.
#
#   METHOD=release  download the release binary of VERSION and check its
#                   SHA-256 (seconds; needs a release with assets)
#   METHOD=cargo    build the action's own checkout with `cargo install
#                   --locked` (minutes the first time; action.yml caches
#                   the binary, so later runs take seconds)
#   METHOD=path     use the yttcheck already on PATH (a container image,
#                   a self-hosted runner)
#   METHOD=auto     release when VERSION names a release (v1.2.3), else
#                   cargo; a failed download falls back to cargo. An action
#                   pinned by commit (VERSION is a 40-hex SHA) uses the
#                   release its checkout declares (v + Cargo.toml's version)
#                   when that release was cut from exactly this commit (each
#                   release publishes yttcheck-vX.Y.Z.commit); otherwise it
#                   builds
#
# `install.sh plan` only decides: it writes `method` (release, cargo or
# path) and `cache-key` (of the sources a cargo build would compile) to
# GITHUB_OUTPUT, so action.yml restores a cached build before installing.
#
# Inputs (environment): METHOD, VERSION, ACTION_PATH (the action's
# checkout), BIN_DIR (where the binary goes; action.yml caches it),
# DOWNLOAD_BASE (release downloads; default: the action's repository on
# GitHub), GITHUB_PATH.
set -euo pipefail

METHOD="${METHOD:-auto}"
VERSION="${VERSION:-}"
ACTION_PATH="${ACTION_PATH:-}"
# A used action is unpacked at .../_actions/OWNER/REPO/REF, and
# `github.action_ref` is empty inside composite actions: read both off the path.
if [ -z "${VERSION}" ] && [ -n "${ACTION_PATH}" ]; then
  VERSION="$(basename "${ACTION_PATH}")"
fi
if [ -z "${DOWNLOAD_BASE:-}" ]; then
  repo="yttcheck/yttcheck"
  if [ -n "${ACTION_PATH}" ] && [ "$(basename "$(dirname "$(dirname "$(dirname "${ACTION_PATH}")")")")" = _actions ]; then
    repo="$(basename "$(dirname "$(dirname "${ACTION_PATH}")")")/$(basename "$(dirname "${ACTION_PATH}")")"
  fi
  DOWNLOAD_BASE="${GITHUB_SERVER_URL:-https://github.com}/${repo}/releases/download"
fi
: "${BIN_DIR:?BIN_DIR is required}"

log() { echo "yttcheck install: $*" >&2; }
fail() { echo "::error title=yttcheck install::$*"; exit 1; }

target() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) echo x86_64-unknown-linux-gnu ;;
    Linux-aarch64) echo aarch64-unknown-linux-gnu ;;
    Darwin-arm64) echo aarch64-apple-darwin ;;
    Darwin-x86_64) echo x86_64-apple-darwin ;;
    *) echo unknown ;;
  esac
}

is_release() { [[ "$1" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; }

is_commit() { [[ "$1" =~ ^[0-9a-f]{40}$ ]]; }

# The release an action pinned by commit was cut from, when it was: the
# checkout's Cargo.toml version, if that release's published commit is
# this one.
release_of_commit() {
  local sha="$1" version published
  version="v$(sed -n 's/^version = "\(.*\)"$/\1/p' "${ACTION_PATH}/Cargo.toml" 2>/dev/null | head -n1)"
  is_release "${version}" || return 1
  published="$(curl --fail --silent --location --retry 2 "${DOWNLOAD_BASE}/${version}/yttcheck-${version}.commit" 2>/dev/null | tr -d '[:space:]')" || return 1
  [ "${published}" = "${sha}" ] || return 1
  echo "${version}"
}

if [ "${METHOD}" = auto ] && is_commit "${VERSION}"; then
  if v="$(release_of_commit "${VERSION}")"; then
    log "pinned commit ${VERSION} is release ${v}"
    VERSION="${v}"
  else
    log "pinned commit ${VERSION} is not a release's commit: building it (set version: vX.Y.Z to download a release instead)"
  fi
fi

release() {
  local version="$1" t archive url tmp
  t="$(target)"
  [ "$t" != unknown ] || { log "no release binary for $(uname -s) $(uname -m)"; return 1; }
  archive="yttcheck-${version}-${t}.tar.gz"
  url="${DOWNLOAD_BASE}/${version}/${archive}"
  tmp="$(mktemp -d)"
  log "downloading ${url}"
  curl --fail --silent --show-error --location --retry 3 --output "${tmp}/${archive}" "${url}" || return 1
  curl --fail --silent --show-error --location --retry 3 --output "${tmp}/${archive}.sha256" "${url}.sha256" || return 1
  # the checksum file is "<sha256>  <name>"; compare the digest alone
  local want got
  want="$(cut -d' ' -f1 < "${tmp}/${archive}.sha256")"
  got="$(sha256sum "${tmp}/${archive}" | cut -d' ' -f1)"
  if [ "${want}" != "${got}" ]; then
    fail "the SHA-256 of ${archive} is ${got}, but its release says ${want}: not installing it"
  fi
  mkdir -p "${BIN_DIR}"
  tar -xzf "${tmp}/${archive}" -C "${BIN_DIR}" yttcheck
  rm -rf "${tmp}"
}

cargo_build() {
  if [ -x "${BIN_DIR}/yttcheck" ]; then
    log "using the cached build in ${BIN_DIR}"
    return 0
  fi
  command -v cargo >/dev/null || fail "install: cargo needs a Rust toolchain on the runner (GitHub's hosted runners have one)"
  [ -f "${ACTION_PATH}/Cargo.toml" ] || fail "install: cargo needs the action's checkout (ACTION_PATH='${ACTION_PATH}')"
  local root
  root="$(mktemp -d)"
  log "building yttcheck from ${ACTION_PATH} (cargo install --locked; cached for later runs)"
  cargo install --locked --quiet --path "${ACTION_PATH}" --root "${root}"
  mkdir -p "${BIN_DIR}"
  mv "${root}/bin/yttcheck" "${BIN_DIR}/yttcheck"
  rm -rf "${root}"
}

if [ "${1:-}" = plan ]; then
  : "${GITHUB_OUTPUT:?GITHUB_OUTPUT is required (run inside GitHub Actions)}"
  method="${METHOD}"
  if [ "${method}" = auto ]; then
    if is_release "${VERSION}"; then method=release; else method=cargo; fi
  fi
  key=none
  if [ "${method}" = cargo ] && [ -f "${ACTION_PATH}/Cargo.lock" ]; then
    key="yttcheck-$(uname -s)-$(uname -m)-$(cd "${ACTION_PATH}" && find Cargo.lock Cargo.toml src -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-32)"
  fi
  { echo "method=${method}"; echo "cache-key=${key}"; } >> "${GITHUB_OUTPUT}"
  log "method ${method}, cache key ${key}"
  exit 0
fi

case "${METHOD}" in
  path)
    command -v yttcheck >/dev/null || fail "install: path, but yttcheck is not on PATH"
    log "using $(command -v yttcheck)"
    yttcheck --version
    exit 0
    ;;
  release)
    is_release "${VERSION}" || fail "install: release needs a release version like v1.2.3 (got '${VERSION}')"
    release "${VERSION}" || fail "cannot download yttcheck ${VERSION} for $(target); use install: cargo"
    ;;
  cargo)
    cargo_build
    ;;
  auto)
    if is_release "${VERSION}" && release "${VERSION}"; then
      :
    else
      is_release "${VERSION}" && log "no release binary for ${VERSION}; building instead"
      cargo_build
    fi
    ;;
  *)
    fail "install must be auto, release, cargo or path (got '${METHOD}')"
    ;;
esac

: "${GITHUB_PATH:?GITHUB_PATH is required (run inside GitHub Actions)}"
echo "${BIN_DIR}" >> "${GITHUB_PATH}"
"${BIN_DIR}/yttcheck" --version
