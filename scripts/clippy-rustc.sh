#!/usr/bin/env bash
# rustc for the workspace's own crates, through Clippy, with every warning an error.
# scripts/test.sh sets it as RUSTC_WORKSPACE_WRAPPER, so that the test build is also the
# lint: Clippy checks each crate of the workspace while rustc compiles it, and the
# dependencies (which cargo never wraps) are compiled once, not a second time in check
# mode for a separate `cargo clippy` (ADR 0032). Cargo calls it as `WRAPPER RUSTC ARGS...`.
exec "${CLIPPY_DRIVER:-clippy-driver}" "$@" -D warnings
