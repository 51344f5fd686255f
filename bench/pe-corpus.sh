#!/bin/sh
# Stamps every PE image of the corpus (dist/fetch-pe-corpus.sh: wine's
# 64- and 32-bit modules, the mingw-w64 runtimes, systemd-boot 252 and
# 257, shim, syslinux, rEFInd, iPXE, memtest86+, GRUB), with every check
# of tests/write/cmd-pe-corpus.sh (layout kept, note read back, sbsign and
# osslsigncode signatures verified by both sbverify and osslsigncode,
# stamp then remove byte-identical), and prints the counts and every
# refusal with its reason.  make check runs the named selection only;
# this takes about 18 minutes for 1,517 images on a busy 2-core machine.
#
# Usage: bench/pe-corpus.sh [PKGNOTE]   (default build/pkgnote)
# bench/results-pe-corpus.txt keeps a run.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
PKGNOTE=$(readlink -f "${1:-build/pkgnote}")
export PKGNOTE SRCDIR="$src" LC_ALL=C PKGNOTE_PE_CORPUS_ALL=1
sh "$src/tests/write/cmd-pe-corpus.sh"
