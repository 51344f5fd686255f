# SPDX-License-Identifier: LGPL-2.1-or-later
# debian/rules snippet: the ELF package note (FDO_PACKAGING_METADATA) in
# every executable and shared library the package links with the build
# flags.  In debian/rules, before /usr/share/dpkg/default.mk or
# buildflags.mk (whose dpkg-buildflags call must see the appended flags):
#
#   include /usr/share/pkgnote/pkgnote.mk
#   %:
#           dh $@
#
# The note says: type deb, name the source package, version its full
# version (with the epoch, as dpkg-parsechangelog gives it), architecture
# DEB_HOST_ARCH; os and osVersion are the build environment's os-release
# ID and VERSION_ID when it describes Debian, Ubuntu or a derivative (ID or
# ID_LIKE), and none otherwise (pkgnote(1), METADATA PRECEDENCE); with no
# os-release, os is the dpkg vendor, lowercased.
#
# How: when debian/rules is read, an object holding the note is made in
# debian/.debhelper/pkgnote/ (dh_clean removes it) and its path is added
# to LDFLAGS through DEB_LDFLAGS_MAINT_APPEND, so dh, dpkg-buildflags and
# every build system (make, autotools, meson, CMake) link it in, with gcc or
# clang and any linker.  A path has nothing to quote, which matters:
# buildflags.mk hands DEB_LDFLAGS_MAINT_APPEND to a shell in double quotes,
# and make expands $ in LDFLAGS taken from the environment.
#
# Relocatable (-r) links get LDFLAGS too; the note's section is in a COMDAT
# group named after a hash of the note, so the linker keeps one copy when
# such a partial object is linked with the note object again.
#
# Variables (set before the include to change them):
#   PKGNOTE             the pkgnote program (default: pkgnote on PATH)
#   PKGNOTE_ENABLED     0 turns the snippet off; so does
#                       DEB_BUILD_OPTIONS=nopkgnote
#   PKGNOTE_NAME, PKGNOTE_VERSION, PKGNOTE_ARCH, PKGNOTE_OS
#   PKGNOTE_EXTRA_ARGS  more 'pkgnote generate' options, such as
#                       --debuginfod-url https://debuginfod.debian.net
#   PKGNOTE_CC          the compiler driver that assembles the object
#                       (default $(CC); for cross builds include
#                       /usr/share/dpkg/buildtools.mk first)
#   PKGNOTE_DISTRIBUTION_NOTE  take-over or stand-aside, see below
#
# The distribution's own note: Ubuntu's dpkg (1.22.6ubuntu11 and later)
# adds one to every binary, through the LDFLAGS of dpkg-buildflags (a gcc
# -specs file whose link spec passes --package-metadata, or a
# --package-metadata option) or, from 1.22.11ubuntu1, through
# ELF_PACKAGE_METADATA in the environment, which its compilers and linkers
# turn into a note when no option names one.  Both at once would put two
# different notes in every binary, so when the snippet finds either, the
# build log says what it did (a "pkgnote.mk:" line), after
# PKGNOTE_DISTRIBUTION_NOTE:
#   take-over (default)  pkgnote's note alone: the distribution's flags go
#                        into DEB_LDFLAGS_MAINT_STRIP and
#                        ELF_PACKAGE_METADATA is unexported;
#   stand-aside          the distribution's note alone: nothing is added.

PKGNOTE ?= pkgnote
PKGNOTE_ENABLED ?= 1

ifneq ($(PKGNOTE_ENABLED),0)
ifeq (,$(filter nopkgnote,$(DEB_BUILD_OPTIONS)))

PKGNOTE_DISTRIBUTION_NOTE ?= take-over
# LDFLAGS words that add a note: a package-metadata option, or a -specs
# file that passes one.
PKGNOTE_DIST_FLAGS := $(strip $(foreach w,$(shell dpkg-buildflags --get LDFLAGS 2>/dev/null),\
	$(if $(findstring package-metadata,$(w)),$(w),$(if $(and $(filter -specs=% --specs=%,$(w)),$(if $(findstring ',$(w)),,x)),\
	$(if $(shell grep -ls -e package-metadata -- '$(patsubst --specs=%,%,$(patsubst -specs=%,%,$(w)))' 2>/dev/null),$(w))))))
PKGNOTE_DIST := $(strip $(PKGNOTE_DIST_FLAGS) $(if $(ELF_PACKAGE_METADATA),ELF_PACKAGE_METADATA))
PKGNOTE_ACTIVE := 1
ifneq ($(PKGNOTE_DIST),)
ifeq ($(PKGNOTE_DISTRIBUTION_NOTE),stand-aside)
$(info pkgnote.mk: the distribution adds the package note ($(PKGNOTE_DIST)); standing aside, as PKGNOTE_DISTRIBUTION_NOTE is stand-aside)
PKGNOTE_ACTIVE := 0
else
$(info pkgnote.mk: taking over the package note from the distribution ($(PKGNOTE_DIST) removed); the binaries carry the note pkgnote makes)
export DEB_LDFLAGS_MAINT_STRIP += $(PKGNOTE_DIST_FLAGS)
unexport ELF_PACKAGE_METADATA
endif
endif

ifneq ($(PKGNOTE_ACTIVE),0)
PKGNOTE_NAME ?= $(or $(DEB_SOURCE),$(shell dpkg-parsechangelog -SSource))
PKGNOTE_VERSION ?= $(or $(DEB_VERSION),$(shell dpkg-parsechangelog -SVersion))
PKGNOTE_ARCH ?= $(or $(DEB_HOST_ARCH),$(shell dpkg-architecture -qDEB_HOST_ARCH))
# The target of the assembler source: the host's GNU type, which gives
# x86 and aarch64 the GNU property note that keeps IBT/SHSTK or BTI/PAC;
# an architecture pkgnote does not know gets ELFnnLE/BE (no such note;
# the assembler writes the real class and byte order).
PKGNOTE_GNU_TYPE ?= $(or $(DEB_HOST_GNU_TYPE),$(shell dpkg-architecture -qDEB_HOST_GNU_TYPE))
PKGNOTE_BITS ?= $(or $(DEB_HOST_ARCH_BITS),$(shell dpkg-architecture -qDEB_HOST_ARCH_BITS))
PKGNOTE_ENDIAN ?= $(or $(DEB_HOST_ARCH_ENDIAN),$(shell dpkg-architecture -qDEB_HOST_ARCH_ENDIAN))
PKGNOTE_TARGET ?= $(shell '$(PKGNOTE)' generate --no-os-release --target '$(PKGNOTE_GNU_TYPE)' >/dev/null 2>&1 && \
	echo '$(PKGNOTE_GNU_TYPE)' || echo ELF$(PKGNOTE_BITS)$(if $(filter big,$(PKGNOTE_ENDIAN)),BE,LE))
PKGNOTE_OS ?= $(if $(wildcard /etc/os-release /usr/lib/os-release),,$(shell dpkg-vendor --query Vendor | tr A-Z a-z))
PKGNOTE_EXTRA_ARGS ?=
PKGNOTE_CC ?= $(CC)
PKGNOTE_DIR ?= $(CURDIR)/debian/.debhelper/pkgnote
PKGNOTE_OBJECT = $(PKGNOTE_DIR)/note-$(PKGNOTE_ARCH).o

# The assembler source from pkgnote (the note in a COMDAT group, so that
# copies from -r links collapse into one); the compiler driver assembles
# it.  The object is replaced only when the source changed, so rereading
# debian/rules relinks nothing.
PKGNOTE_STATUS := $(shell set -e; d='$(PKGNOTE_DIR)'; mkdir -p "$$d"; \
	'$(PKGNOTE)' generate --type deb --name '$(PKGNOTE_NAME)' --version '$(PKGNOTE_VERSION)' \
		--architecture '$(PKGNOTE_ARCH)' $(if $(PKGNOTE_OS),--os '$(PKGNOTE_OS)') $(PKGNOTE_EXTRA_ARGS) \
		--format asm --target '$(PKGNOTE_TARGET)' -o "$$d/note.s.new"; \
	if [ -s '$(PKGNOTE_OBJECT)' ] && cmp -s "$$d/note.s.new" "$$d/note.s"; then rm -f "$$d/note.s.new"; echo ok; exit 0; fi; \
	mv -f "$$d/note.s.new" "$$d/note.s"; \
	$(PKGNOTE_CC) -c "$$d/note.s" -o '$(PKGNOTE_OBJECT).tmp'; \
	mv -f '$(PKGNOTE_OBJECT).tmp' '$(PKGNOTE_OBJECT)'; \
	echo ok)
ifneq ($(PKGNOTE_STATUS),ok)
$(error pkgnote.mk: cannot make the package note object with $(PKGNOTE))
endif

export DEB_LDFLAGS_MAINT_APPEND += $(PKGNOTE_OBJECT)

endif
endif
endif
