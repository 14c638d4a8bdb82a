# syntax=docker/dockerfile:1
# The Senet server as a small container: a stripped release build (Cargo.toml's `dist` profile)
# in the Rust image, run from a slim Debian image as an unprivileged user, with the SQLite
# database on the /data volume.

ARG RUST_VERSION=1.95
ARG DEBIAN_RELEASE=bookworm

FROM rust:${RUST_VERSION}-slim-${DEBIAN_RELEASE} AS builder
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
WORKDIR /build

# Dependencies first, against stub sources: this layer is rebuilt only when Cargo.toml or
# Cargo.lock change, not on every source edit. Declared [[bench]]/[[test]] targets get stubs
# too, because cargo checks that every target in the manifest exists.
COPY Cargo.toml Cargo.lock ./
RUN mkdir -p src benches tests \
    && echo 'fn main() {}' > src/main.rs \
    && touch src/lib.rs \
    && sed -n '/^\[\[\(bench\|test\)\]\]/,/^name/ s/^name *= *"\(.*\)"/\1/p' Cargo.toml \
       | while read -r target; do \
           echo 'fn main() {}' > "benches/${target}.rs"; cp "benches/${target}.rs" "tests/${target}.rs"; \
         done \
    && cargo build --profile dist --locked --bin senet \
    && rm -rf src benches tests

# The real sources (see .dockerignore for what stays out).
COPY . .
# Cargo compares timestamps: make sure the stubs' build is not taken for this one.
RUN touch src/main.rs src/lib.rs \
    && cargo build --profile dist --locked --bin senet \
    && cp target/dist/senet /usr/local/bin/senet

FROM debian:${DEBIAN_RELEASE}-slim AS runtime
RUN useradd --system --uid 10001 --user-group --home-dir /data --no-create-home senet \
    && mkdir /data \
    && chown senet:senet /data
COPY --from=builder /usr/local/bin/senet /usr/local/bin/senet

# Listening beyond loopback, the server requires its public origin: run the image with
# SENET_PUBLIC_ORIGIN (such as https://senet.example) or it refuses to start. /metrics is on a
# port of its own, for Prometheus on the container network; publish 8080 only.
ENV SENET_LISTEN=0.0.0.0:8080 \
    SENET_METRICS_LISTEN=0.0.0.0:8808 \
    DATABASE_URL=sqlite:///data/senet.db \
    RUST_LOG=info
VOLUME ["/data"]
WORKDIR /data
# Numeric, so the runtime can check it is not root without reading /etc/passwd.
USER 10001:10001
EXPOSE 8080 8808
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD ["senet", "healthcheck"]
# Exec form: the server is PID 1 and receives SIGTERM itself, so it shuts down gracefully.
ENTRYPOINT ["senet"]
CMD ["serve"]
