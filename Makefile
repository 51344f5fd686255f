# Thin wrapper over meson for the two quick-start commands:
#   make demo    set up, build and run a real demonstration
#   make check   set up, build and run the whole test suite
# Missing Debian packages are installed with apt-get when run as root;
# otherwise the exact command to run is printed.

BUILD ?= build
SAN_BUILD ?= build-sanitize
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME ?= 600
MESON ?= meson

DEPS_BUILD = gcc make meson ninja-build pkg-config libjansson-dev libdw-dev libzstd-dev liblzma-dev liblz4-dev zlib1g-dev libarchive-dev libsquashfs-dev binutils python3 python3-dev
# Every package a test uses is named here: packages are installed without
# their Recommends, so the cross C libraries are listed on their own. Under
# make check a test whose tool is missing fails (PKGNOTE_STRICT=1).
# cmd-packaging builds the .deb (debhelper, dh-python, dpkg-dev, lintian, devscripts)
# and the rpm (rpm, rpmlint); cmd-routes links a Rust crate (rustc, cargo)
# and a Go program (golang-go) with the response file.
DEPS_TEST = $(DEPS_BUILD) clang libclang-rt-14-dev elfutils lld lld-16 mold \
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-s390x-linux-gnu libc6-dev-s390x-cross \
	gcc-i686-linux-gnu libc6-dev-i386-cross gcc-m68k-linux-gnu gcc-sh4-linux-gnu gcc-hppa-linux-gnu \
	qemu-user-static qemu-system-x86 libc6-dev \
	systemd zstd xz-utils lz4 cmake rpm rpm2cpio libsqlite3-0 cpio build-essential debhelper dh-python dpkg-dev \
	graphviz attr libcap2-bin bsdutils nodejs npm:npm umoci skopeo buildah xorriso squashfs-tools squashfs-tools-ng bubblewrap mmdebstrap abigail-tools \
	debuginfod libdebuginfod1 strace curl bzip2 gdb time needrestart pax-utils \
	lintian rpmlint devscripts rustc cargo golang-go systemd-journal-remote chromium iproute2 \
	python3-dev python3-mesonpy python3-venv python3-pytest python3-pyelftools mypy \
	gcc-mingw-w64-x86-64 gcc-mingw-w64-i686 binutils-mingw-w64-x86-64 wine wine64 systemd-boot-efi sbsigntool gnu-efi openssl

.PHONY: all build demo check check-sanitize check-features fuzz deps-build deps-test install clean

all: build

deps-build:
	@sh dist/install-deps.sh $(DEPS_BUILD)

deps-test:
	@sh dist/install-deps.sh $(DEPS_TEST)
	@sh dist/fetch-systemd-coredump.sh
	@sh dist/make-test-root.sh
	@sh dist/make-ukify-root.sh
	@sh dist/make-sid-root.sh
	@sh dist/make-sid-artefacts.sh
	@sh dist/make-sid-rust-root.sh
	@sh dist/make-sid-go-root.sh
	@sh dist/fetch-go-corpus.sh
	@sh dist/make-vm-image.sh
	@sh dist/fetch-sid-systemd-coredump.sh
	@sh dist/fetch-pe-corpus.sh

$(BUILD)/build.ninja:
	$(MESON) setup $(BUILD)

build: deps-build $(BUILD)/build.ninja
	ninja -C $(BUILD)

demo: build
	@sh dist/demo.sh $(BUILD)/pkgnote

check: deps-test $(BUILD)/build.ninja
	ninja -C $(BUILD)
	PKGNOTE_STRICT=1 $(MESON) test -C $(BUILD) --print-errorlogs --num-processes 2

$(SAN_BUILD)/build.ninja:
	$(MESON) setup $(SAN_BUILD) -Db_sanitize=address,undefined -Db_lundef=false

check-sanitize: deps-test $(SAN_BUILD)/build.ninja
	ninja -C $(SAN_BUILD)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		PKGNOTE_STRICT=1 $(MESON) test -C $(SAN_BUILD) --print-errorlogs --num-processes 2 --timeout-multiplier 3

# Each optional library switched off, and all at once: every build links
# and passes the tests that apply to it.
check-features: deps-test
	sh tests/arch/check-features.sh

$(FUZZ_BUILD)/build.ninja:
	CC=clang $(MESON) setup $(FUZZ_BUILD) -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false

fuzz: deps-test $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD)
	sh fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_TIME)

install: build
	$(MESON) install -C $(BUILD)

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(FUZZ_BUILD) build-features-*
