# Cross builds and the platform pieces the Linux build also needs.
# Included at the end of the Makefile (`-include cross.mk`).

# The Seatbelt profile is static text embedded at build time: every build
# of src/sandbox/seatbelt.c (Linux, its unit test, the macOS cross build)
# includes the header generated from seatbelt/*.sb.
SB_SRCS = seatbelt/base.sb seatbelt/network-off.sb

$(BUILD)/seatbelt_sb.h: $(SB_SRCS) seatbelt/embed.sh
	@mkdir -p $(@D)
	seatbelt/embed.sh $(SB_SRCS) >$@.tmp && mv $@.tmp $@

$(BUILD)/obj/sandbox/seatbelt.o $(BUILD)/tobj/sandbox/seatbelt.o: $(BUILD)/seatbelt_sb.h

# ---------------------------------------------------------------------------
# make cross: the Linux aarch64 binary and the macOS binaries (arm64,
# x86_64), all with zig 0.11 from the npm registry (pinned and verified by
# vendor/fetch-npm.sh), and the Windows binary (mingw-w64), all with
# warnings as errors. Output in $(XOUT). The aarch64 binary runs under
# qemu-user (tests/qemu/run) and Windows under Wine (`make wine-tests`);
# the macOS ones have never run on a Mac.
#
# Every link is reproducible (release/build.sh checks it): -s drops the
# Mach-O symbol table, which named each object with its path and mtime,
# and the PE header gets no link time.

XOUT    = $(BUILD)/cross
NPMDEPS = .deps/npm
ZIGDIR  = $(NPMDEPS)/ryoppippi+zig-linux-x64-0.11.0
ZIG     = $(abspath $(ZIGDIR))/zig
# zig keeps its caches beside it and in the build, never in $HOME: the
# global one holds what zig builds of itself (the target libcs, compiler-rt),
# the local one our own objects, so that a second build in another folder
# (release/build.sh) compiles them again instead of finding them cached.
ZIGENV  = ZIG_GLOBAL_CACHE_DIR=$(abspath $(NPMDEPS))/zig-cache \
          ZIG_LOCAL_CACHE_DIR=$(abspath $(BUILD))/zig-cache
XFLAGS  = -std=c11 -O2 $(WARN) -Isrc -I. -I$(BUILD) $(EXTRA_CFLAGS)
# clang (zig cc) does not know every gcc warning named in WARN.
ZFLAGS  = $(XFLAGS) -Wno-unknown-warning-option -idirafter seatbelt/sdk

# macOS 13 at least: shadow.c uses mknodat, which macOS has since 13.
MACMIN   = 13.0
MAC_SRCS = src/cli/main.c $(MACOS_MODS:%=src/%.c)
MAC_BINS = $(XOUT)/arcturn-macos-arm64 $(XOUT)/arcturn-macos-x86_64

.PHONY: cross cross-linux-aarch64 cross-macos cross-windows wine-tests
cross: cross-linux-aarch64 cross-macos cross-windows
cross-macos: $(MAC_BINS)

$(ZIGDIR)/.unpacked: vendor/lock-npm vendor/fetch-npm.sh
	vendor/fetch-npm.sh $(NPMDEPS)

# Linux aarch64: this Makefile again, with zig's clang for the target, so
# that the flags, the helper and its embedding are those of the native
# build. The deps go to .deps/linux-aarch64 through the same rule.
A64      = $(BUILD)/linux-aarch64
A64CC    = $(ZIG) cc -target aarch64-linux-musl
A64MAKE  = $(ZIGENV) $(MAKE) -f $(firstword $(MAKEFILE_LIST)) BUILD=$(A64) \
	CC="$(A64CC)" AR="$(ZIG) ar" DEPS=.deps/linux-aarch64 TARGET=aarch64-linux-musl \
	XWARN=-Wno-unknown-warning-option GIT_COMMIT="$(GIT_COMMIT)"

cross-linux-aarch64: $(XOUT)/arcturn-linux-aarch64

$(XOUT)/arcturn-linux-aarch64: $(ZIGDIR)/.unpacked FORCE
	@+$(A64MAKE) $(A64)/arcturn
	@mkdir -p $(@D)
	@cmp -s $(A64)/arcturn $@ || cp $(A64)/arcturn $@

# What tests/qemu/run needs: the binary, the helper it embeds, and static
# aarch64 programs to run inside `arcturn exec`.
QEMU_TOOLS = $(A64)/tools/true $(A64)/tools/probe
.PHONY: qemu-tests
qemu-tests: $(XOUT)/arcturn-linux-aarch64 $(QEMU_TOOLS)

$(A64)/tools/%: tests/qemu/%.c $(ZIGDIR)/.unpacked
	@mkdir -p $(@D)
	$(ZIGENV) $(A64CC) -std=c11 -D_GNU_SOURCE -O2 $(WARN) -Wno-unknown-warning-option \
		-static -s -o $@ $<

.deps/macos-%/.built: vendor/lock vendor/fetch.sh $(ZIGDIR)/.unpacked
	$(XDEPS_SEED)
	$(ZIGENV) vendor/fetch.sh $(@D) "$(ZIG) cc -target $*-macos" "$(ZIG) ar"
	touch $@

# The build identity of each cross target (main.c's buildinfo.h; see the
# Makefile). No helper: Seatbelt and Low integrity are not Landlock.
$(XOUT)/info/%/buildinfo.h: FORCE
	@mkdir -p $(@D)
	@release/buildinfo.sh "$(GIT_COMMIT)" $* >$@.new
	@cmp -s $@.new $@ && rm -f $@.new || mv $@.new $@

$(XOUT)/arcturn-macos-arm64: $(MAC_SRCS) $(HDRS) $(wildcard seatbelt/sdk/*/*.h) $(BUILD)/seatbelt_sb.h \
		.deps/macos-aarch64/.built $(XOUT)/info/aarch64-macos/buildinfo.h
	@mkdir -p $(@D)
	$(ZIGENV) $(ZIG) cc -target aarch64-macos.$(MACMIN) -I$(XOUT)/info/aarch64-macos $(ZFLAGS) \
		-I.deps/macos-aarch64/include -s -o $@ $(MAC_SRCS) \
		.deps/macos-aarch64/lib/libcjson.a .deps/macos-aarch64/lib/libbearssl.a

$(XOUT)/arcturn-macos-x86_64: $(MAC_SRCS) $(HDRS) $(wildcard seatbelt/sdk/*/*.h) $(BUILD)/seatbelt_sb.h \
		.deps/macos-x86_64/.built $(XOUT)/info/x86_64-macos/buildinfo.h
	@mkdir -p $(@D)
	$(ZIGENV) $(ZIG) cc -target x86_64-macos.$(MACMIN) -I$(XOUT)/info/x86_64-macos $(ZFLAGS) \
		-I.deps/macos-x86_64/include -s -o $@ $(MAC_SRCS) \
		.deps/macos-x86_64/lib/libcjson.a .deps/macos-x86_64/lib/libbearssl.a

# Windows: the exec front end, config, the Low-integrity backend and the
# label journal; the dry-run engine is POSIX-only and replaced by
# cmd_dryrun_win.c. win/compat supplies what mingw lacks (compat.h is
# force-included so shared files carry no #ifdef); wmain.c converts the
# UTF-16 argv and calls main.c's main, renamed arcturn_main.
WINCC    = x86_64-w64-mingw32-gcc
WINAR    = x86_64-w64-mingw32-ar
WIN_SRCS = src/cli/main.c $(WIN_MODS:%=src/%.c) win/wmain.c win/compat/compat.c
WINFLAGS = $(XFLAGS) -Iwin/compat -include win/compat/compat.h \
           -D_WIN32_WINNT=0x0601 -D__USE_MINGW_ANSI_STDIO=1 -Dmain=arcturn_main
WINLIBS  = -municode -static -s -Wl,--no-insert-timestamp -ladvapi32

cross-windows: $(XOUT)/arcturn-windows-x86_64.exe

.deps/win64/.built: vendor/lock vendor/fetch.sh
	@command -v $(WINCC) >/dev/null || { echo "cross: $(WINCC) missing: apt-get install mingw-w64" >&2; exit 1; }
	$(XDEPS_SEED)
	vendor/fetch.sh $(@D) $(WINCC) $(WINAR)
	touch $@

$(XOUT)/arcturn-windows-x86_64.exe: $(WIN_SRCS) $(HDRS) $(wildcard win/compat/*.h) .deps/win64/.built \
		$(XOUT)/info/x86_64-windows-gnu/buildinfo.h
	@mkdir -p $(@D)
	$(WINCC) -I$(XOUT)/info/x86_64-windows-gnu $(WINFLAGS) -I.deps/win64/include -o $@ $(WIN_SRCS) \
		.deps/win64/lib/libcjson.a $(WINLIBS)

# Windows programs the Wine tests run (tests/wine/run drives them).
WINE_BINS = $(XOUT)/quote_roundtrip.exe
wine-tests: $(XOUT)/arcturn-windows-x86_64.exe $(WINE_BINS)

$(XOUT)/quote_roundtrip.exe: tests/wine/quote_roundtrip.c tests/wine/quote_cases.h \
		src/sandbox/winquote.c src/sandbox/winquote.h src/lib/mem.c src/lib/mem.h
	@mkdir -p $(@D)
	$(WINCC) $(XFLAGS) -Itests/wine -municode -o $@ tests/wine/quote_roundtrip.c \
		src/sandbox/winquote.c src/lib/mem.c -lshell32

# ---------------------------------------------------------------------------
# What release/build.sh builds (twice, in two places) and publishes.
RELEASE_BINS = $(BUILD)/arcturn $(XOUT)/arcturn-linux-aarch64 $(MAC_BINS) \
	$(XOUT)/arcturn-windows-x86_64.exe
.PHONY: release-bins print-commit print-target
release-bins: $(RELEASE_BINS)
print-commit:
	@echo $(GIT_COMMIT)
print-target:
	@echo $(TARGET)
