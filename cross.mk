# Cross builds and the platform pieces the Linux build also needs.
# Included at the end of the Makefile (`-include cross.mk`).

# The Seatbelt profile is static text embedded at build time: every build
# of src/seatbelt.c (Linux, its unit test, the macOS cross build) includes
# the header generated from seatbelt/*.sb.
SB_SRCS = seatbelt/base.sb seatbelt/network-off.sb

$(BUILD)/seatbelt_sb.h: $(SB_SRCS) seatbelt/embed.sh
	@mkdir -p $(@D)
	seatbelt/embed.sh $(SB_SRCS) >$@.tmp && mv $@.tmp $@

$(BUILD)/obj/seatbelt.o $(BUILD)/tobj/seatbelt.o: $(BUILD)/seatbelt_sb.h

# ---------------------------------------------------------------------------
# make cross: the macOS binaries (arm64, x86_64; zig 0.11 from the npm
# registry, pinned and verified by vendor/fetch-npm.sh) and the Windows
# binary (mingw-w64), all with warnings as errors. Output in $(XOUT).
# Nothing here runs the binaries but the Windows tests under Wine
# (`make wine-tests`); the macOS ones have never run on a Mac.

XOUT    = $(BUILD)/cross
NPMDEPS = .deps/npm
ZIGDIR  = $(NPMDEPS)/ryoppippi+zig-linux-x64-0.11.0
ZIG     = $(abspath $(ZIGDIR))/zig
# zig keeps its caches beside it, never in $HOME.
ZIGENV  = ZIG_GLOBAL_CACHE_DIR=$(abspath $(NPMDEPS))/zig-cache \
          ZIG_LOCAL_CACHE_DIR=$(abspath $(NPMDEPS))/zig-cache
XFLAGS  = -std=c11 -O2 $(WARN) -Isrc -Ilandlock-helper -I$(BUILD)
# clang (zig cc) does not know every gcc warning named in WARN.
ZFLAGS  = $(XFLAGS) -Wno-unknown-warning-option -idirafter seatbelt/sdk

# macOS 13 at least: shadow.c uses mknodat, which macOS has since 13.
MACMIN   = 13.0
MAC_SRCS = src/main.c $(MACOS_MODS:%=src/%.c)
MAC_BINS = $(XOUT)/arcturn-macos-arm64 $(XOUT)/arcturn-macos-x86_64

.PHONY: cross cross-macos cross-windows wine-tests
cross: cross-macos cross-windows
cross-macos: $(MAC_BINS)

$(ZIGDIR)/.unpacked: vendor/lock-npm vendor/fetch-npm.sh
	vendor/fetch-npm.sh $(NPMDEPS)

# The Debian sources fetched for the native build are reused when present
# (fetch.sh verifies every file against vendor/lock either way).
XDEPS_SEED = mkdir -p $(@D)/download && \
	for f in .deps/*/download/*; do [ -f "$$f" ] && cp -n "$$f" $(@D)/download/; done; true

.deps/macos-%/.built: vendor/lock vendor/fetch.sh $(ZIGDIR)/.unpacked
	$(XDEPS_SEED)
	$(ZIGENV) vendor/fetch.sh $(@D) "$(ZIG) cc -target $*-macos" "$(ZIG) ar"
	touch $@

$(XOUT)/arcturn-macos-arm64: $(MAC_SRCS) $(HDRS) $(wildcard seatbelt/sdk/*/*.h) $(BUILD)/seatbelt_sb.h .deps/macos-aarch64/.built
	@mkdir -p $(@D)
	$(ZIGENV) $(ZIG) cc -target aarch64-macos.$(MACMIN) $(ZFLAGS) -I.deps/macos-aarch64/include \
		-o $@ $(MAC_SRCS) .deps/macos-aarch64/lib/libcjson.a .deps/macos-aarch64/lib/libbearssl.a

$(XOUT)/arcturn-macos-x86_64: $(MAC_SRCS) $(HDRS) $(wildcard seatbelt/sdk/*/*.h) $(BUILD)/seatbelt_sb.h .deps/macos-x86_64/.built
	@mkdir -p $(@D)
	$(ZIGENV) $(ZIG) cc -target x86_64-macos.$(MACMIN) $(ZFLAGS) -I.deps/macos-x86_64/include \
		-o $@ $(MAC_SRCS) .deps/macos-x86_64/lib/libcjson.a .deps/macos-x86_64/lib/libbearssl.a

# Windows: the exec front end, config, the Low-integrity backend and the
# label journal; the dry-run engine is POSIX-only and replaced by
# cmd_dryrun_win.c. win/compat supplies what mingw lacks (compat.h is
# force-included so shared files carry no #ifdef); wmain.c converts the
# UTF-16 argv and calls main.c's main, renamed arcturn_main.
WINCC    = x86_64-w64-mingw32-gcc
WINAR    = x86_64-w64-mingw32-ar
WIN_SRCS = src/main.c $(WIN_MODS:%=src/%.c) win/wmain.c win/compat/compat.c
WINFLAGS = $(XFLAGS) -Iwin/compat -include win/compat/compat.h \
           -D_WIN32_WINNT=0x0601 -D__USE_MINGW_ANSI_STDIO=1 -Dmain=arcturn_main
WINLIBS  = -municode -static -ladvapi32

cross-windows: $(XOUT)/arcturn-windows-x86_64.exe

.deps/win64/.built: vendor/lock vendor/fetch.sh
	@command -v $(WINCC) >/dev/null || { echo "cross: $(WINCC) missing: apt-get install mingw-w64" >&2; exit 1; }
	$(XDEPS_SEED)
	vendor/fetch.sh $(@D) $(WINCC) $(WINAR)
	touch $@

$(XOUT)/arcturn-windows-x86_64.exe: $(WIN_SRCS) $(HDRS) $(wildcard win/compat/*.h) .deps/win64/.built
	@mkdir -p $(@D)
	$(WINCC) $(WINFLAGS) -I.deps/win64/include -o $@ $(WIN_SRCS) \
		.deps/win64/lib/libcjson.a $(WINLIBS)

# Windows programs the Wine tests run (tests/wine/run drives them).
WINE_BINS = $(XOUT)/quote_roundtrip.exe
wine-tests: $(XOUT)/arcturn-windows-x86_64.exe $(WINE_BINS)

$(XOUT)/quote_roundtrip.exe: tests/wine/quote_roundtrip.c tests/wine/quote_cases.h \
		src/winquote.c src/winquote.h src/mem.c src/mem.h
	@mkdir -p $(@D)
	$(WINCC) $(XFLAGS) -Itests/wine -municode -o $@ tests/wine/quote_roundtrip.c \
		src/winquote.c src/mem.c -lshell32
