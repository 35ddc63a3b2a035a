# yttcheck as a container image:
#
#   docker run --rm -v "$PWD:/repo" ghcr.io/yttcheck/yttcheck check
#
# The build stage compiles the release binary exactly as the README's
# install does (`cargo build --locked --release`); the final stage is
# distroless: glibc, libgcc and nothing else, no shell, no package manager,
# no git (yttcheck reads repositories with gix). Both stages are Debian 12,
# so the binary never needs a newer glibc than the image has.

FROM rust:1.88-slim-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock build.rs ./
COPY src ./src
COPY vendor ./vendor
COPY benches ./benches
COPY hooks ./hooks
RUN cargo build --locked --release \
    && install -D --mode=0755 target/release/yttcheck /out/yttcheck

FROM gcr.io/distroless/cc-debian12:nonroot
LABEL org.opencontainers.image.title="yttcheck" \
      org.opencontainers.image.description="A fast, git-aware checker for Carvel ytt data values, schemas and validations" \
      org.opencontainers.image.source="https://github.com/yttcheck/yttcheck" \
      org.opencontainers.image.documentation="https://github.com/yttcheck/yttcheck#readme" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="0.1.0"
COPY --from=build /out/yttcheck /usr/local/bin/yttcheck
# Mount the repository here. It is usually owned by another user than the
# image's (uid 65532): git would refuse it ("dubious ownership") unless told
# `safe.directory`, but yttcheck reads it with gix, which opens it with
# reduced trust (the repository's own config cannot run programs) and never
# writes to it; nothing is needed.
WORKDIR /repo
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/yttcheck"]
CMD ["check"]
