#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Makes the Debian sid root that tests/read/cmd-crates.sh reads Rust
# programs from: cargo, rustc and cargo-auditable, with a few of Debian's
# packaged crates (librust-*-dev, unpacked under /usr/share/cargo/registry),
# and builds in it, offline, a small program with `cargo auditable build`,
# Debian's registry directory standing in for crates.io as dh-cargo sets it
# up.  The program depends on three packaged crates (itoa, cfg-if and
# num-traits, which itself has a build-dependency), one crate of its own
# tree (a path dependency: source "local") and, from its build script, on
# autocfg (kind "build"), so that its .dep-v0 section lists each source
# and kind and edges between packaged crates.  The programs are kept in the root's /build/out: demo as
# built, demo.stripped after strip(1), demo.nosection after strip
# --remove-section=.dep-v0.
#   sh dist/make-sid-rust-root.sh [DIR]   (default /var/cache/pkgnote/roots/sid-rust)
# Needs mmdebstrap and the network; run as root.
set -eu
if [ "${1:-}" = --build ]; then
        # mmdebstrap's customize hook: $2 is the root, with /proc and /dev
        # mounted in it.
        r=$2
        mkdir -p "$r/build/demo/src" "$r/build/demo/helper/src" "$r/build/demo/.cargo" "$r/build/out"
        cat > "$r/build/demo/.cargo/config.toml" << 'TOML'
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "/usr/share/cargo/registry"
[net]
offline = true
TOML
        cat > "$r/build/demo/Cargo.toml" << 'TOML'
[package]
name = "demo"
version = "0.3.1"
edition = "2021"
build = "build.rs"

[dependencies]
itoa = "1"
cfg-if = "1"
num-traits = { version = "0.2", default-features = false }
helper = { path = "helper" }

[build-dependencies]
autocfg = "1"
TOML
        cat > "$r/build/demo/build.rs" << 'RS'
fn main() {
    let ac = autocfg::new();
    ac.emit_has_type("i128");
}
RS
        cat > "$r/build/demo/src/main.rs" << 'RS'
cfg_if::cfg_if! {
    if #[cfg(has_i128)] {
        fn wide() -> &'static str { "i128" }
    } else {
        fn wide() -> &'static str { "no i128" }
    }
}
fn main() {
    let mut b = itoa::Buffer::new();
    let n: u32 = num_traits::Zero::zero();
    println!("{} {} {}", b.format(helper::answer() + n), wide(), std::env::args().count());
}
RS
        cat > "$r/build/demo/helper/Cargo.toml" << 'TOML'
[package]
name = "helper"
version = "0.1.0"
edition = "2021"
TOML
        printf 'pub fn answer() -> u32 {\n    42\n}\n' > "$r/build/demo/helper/src/lib.rs"
        chroot "$r" sh -c 'cd /build/demo && HOME=/build CARGO_HOME=/build/cargo-home cargo auditable build --release --offline'
        cp "$r/build/demo/target/release/demo" "$r/build/out/demo"
        chroot "$r" strip -o /build/out/demo.stripped /build/out/demo
        chroot "$r" strip --remove-section=.dep-v0 -o /build/out/demo.nosection /build/out/demo
        chroot "$r" sh -c 'cargo --version; rustc --version; dpkg-query -W cargo-auditable' > "$r/build/out/versions"
        exit 0
fi
dir=${1:-${PKGNOTE_SID_RUST_ROOT:-/var/cache/pkgnote/roots/sid-rust}}
[ -f "$dir/.pkgnote-sid-rust-root" ] && exit 0
command -v mmdebstrap > /dev/null || { echo "mmdebstrap is not installed" >&2; exit 1; }
self=$(readlink -f "$0")
mkdir -p "$(dirname "$dir")"
rm -rf "$dir.tmp"
pkgs=cargo,rustc,cargo-auditable,gcc,libc6-dev,binutils
pkgs=$pkgs,librust-itoa-dev,librust-cfg-if-dev,librust-autocfg-dev,librust-num-traits-dev
# As dist/make-sid-root.sh: sid's Release file is valid for a week only.
mmdebstrap --variant=minbase --include="$pkgs" --skip=check/empty \
        --aptopt='Acquire::Check-Valid-Until "false"' \
        --customize-hook="sh '$self' --build \"\$1\"" \
        --customize-hook='chroot "$1" dpkg-query -W > "$1/.pkgnote-sid-packages"' \
        sid "$dir.tmp" http://deb.debian.org/debian
[ -x "$dir.tmp/build/out/demo" ] && [ -f "$dir.tmp/build/out/demo.stripped" ]
touch "$dir.tmp/.pkgnote-sid-rust-root"
mv "$dir.tmp" "$dir"
