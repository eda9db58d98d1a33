# arcturn build. `make` gives build/arcturn: static (musl), with the Landlock
# helper built in the same run and embedded. Third-party sources are fetched
# and verified by vendor/fetch.sh into .deps/ (ignored), never committed.

CC       = musl-gcc
AR       = ar
HOSTCC   = gcc
BUILD    = build
DEPS     = .deps/musl
HOSTDEPS = .deps/host
# What `arcturn --version` reports besides the version: the target (from
# the compiler) and the commit (`git rev-parse` now, "-dirty" when tracked
# files differ from it, "unknown" outside a checkout). release/build.sh
# passes GIT_COMMIT itself, so that a build from a copy of the tree says
# the same as one from the checkout.
TARGET  := $(word 1,$(subst -, ,$(shell $(CC) -dumpmachine 2>/dev/null)))-linux-musl
GIT_COMMIT := $(shell c=$$(git rev-parse --verify -q HEAD 2>/dev/null) && \
              { git diff --no-ext-diff --quiet HEAD -- 2>/dev/null || c=$$c-dirty; } && \
              echo $$c || echo unknown)
# Every flag is set here and only here. EXTRA_CFLAGS is appended to the
# compiles of build/arcturn, the embedded helper and the cross builds;
# release/build.sh passes its reproducibility flags through it and
# nothing else.
# XWARN: what another compiler needs on top (clang: the gcc-only names).
WARN     = -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Wno-format-truncation $(XWARN)
XWARN    =
EXTRA_CFLAGS =
# The Linux binary is built for size, as the helper is: each release file
# stays at most 512 KiB with the helper in it (release/build.sh checks).
# No unwind tables (C, nothing unwinds) and no compiler ident. -Os is on
# the link lines too: zig cc links in debug mode without it, and its lld
# then merges no strings (27 KB of .comment alone in the aarch64 binary).
SIZEFLAGS = -fno-asynchronous-unwind-tables -fno-unwind-tables -fno-ident
CFLAGS   = -std=c11 -D_GNU_SOURCE -Os $(WARN) $(SIZEFLAGS) \
           -ffunction-sections -fdata-sections -Isrc -I. \
           -I$(BUILD) -I$(DEPS)/include $(EXTRA_CFLAGS)
LDFLAGS  = -Os -static -s -Wl,--gc-sections
HFLAGS   = -std=c11 -D_GNU_SOURCE -Os $(WARN) $(SIZEFLAGS) -I. \
           -ffunction-sections -fdata-sections $(EXTRA_CFLAGS)
HLDFLAGS = -Os -static -s -Wl,--gc-sections
# Unit tests build with the host compiler and sanitizers (leak checks
# included), against host-built copies of the same pinned dependencies.
TFLAGS   = -std=c11 -D_GNU_SOURCE -g -O1 $(WARN) -fsanitize=address,undefined \
           -fno-omit-frame-pointer -Isrc -I. -I$(BUILD) -I$(HOSTDEPS)/include

# Sources, one list per platform (module names in src/, as FOLDER/NAME,
# lowest layer first). A module is linked where it is called: the Linux
# binary carries no Seatbelt profile generator, label journal or Windows
# argv quoting. Their unit tests link them on Linux all the same
# (TEST_MODS). cross.mk builds the other lists.
CORE_MODS  = lib/edit lib/fsx lib/fsx_replace lib/hash lib/jsonfile lib/mem \
             lib/path lib/pstate lib/readall lib/rx lib/sha256 lib/utc lib/utf8 \
             policy/config policy/config_check policy/config_file \
             policy/caches policy/gitconfig policy/gitctl policy/grants \
             policy/roots policy/strlist policy/writecheck \
             diff/diff diff/udiff apply/apply apply/apply_new apply/apply_phase \
             apply/apply_swap \
             checkpoint/checkpoint checkpoint/checkpoint_land \
             checkpoint/checkpoint_record \
             checkpoint/checkpoint_state checkpoint/rewind \
             session/changes session/changes_base session/conflict \
             session/keep session/keep_recover session/plan session/review session/session \
             session/session_apply session/session_base session/session_land \
             session/session_rmtree session/session_run session/shadow \
             session/shadow_base session/workspace session/wsview \
             sandbox/sandbox
FRONT_MODS = cli/cli cli/cmd_apply cli/cmd_checkpoint cli/cmd_diff \
             cli/cmd_discard cli/cmd_dryrun cli/cmd_exec cli/cmd_file \
             cli/cmd_json cli/cmd_sandbox cli/cmd_session cli/cmd_turn \
             cli/say
# The MCP server (mcp.h): a front end over the others.
MCP_MODS   = mcp/mcp mcp/mcp_args mcp/mcp_cmds mcp/mcp_jobs mcp/mcp_json mcp/mcp_lines mcp/mcp_nav mcp/mcp_find mcp/mcp_run mcp/mcp_schema mcp/mcp_tools mcp/mcp_turns
LINUX_MODS = $(CORE_MODS) $(FRONT_MODS) $(MCP_MODS) lib/os_linux \
             sandbox/kernel_linux sandbox/sandbox_bwrap_linux \
             sandbox/sandbox_helper_linux \
             sandbox/sandbox_limits_linux sandbox/sandbox_linux \
             sandbox/sandbox_posix sandbox/sandbox_probe_linux \
             sandbox/sandbox_sweep_linux sandbox/sigfwd mcp/mcp_linux
MACOS_MODS = $(CORE_MODS) $(FRONT_MODS) $(MCP_MODS) lib/os_macos \
             sandbox/sandbox_macos sandbox/sandbox_posix sandbox/seatbelt \
             sandbox/sigfwd mcp/mcp_macos
WIN_MODS   = lib/jsonfile lib/mem lib/path lib/readall lib/utf8 \
             policy/caches policy/config policy/config_check \
             policy/config_file policy/gitconfig policy/gitctl \
             policy/grants_win policy/roots policy/strlist \
             sandbox/labeljournal sandbox/sandbox sandbox/sandbox_win \
             sandbox/winquote \
             cli/cli cli/cmd_dryrun_win cli/cmd_exec cli/cmd_sandbox cli/say mcp/mcp_win
# Portable modules of the other platforms, unit-tested here.
TEST_MODS  = sandbox/labeljournal sandbox/seatbelt sandbox/winquote

# Helper files that arcturn links too, so that both say a thing one way
# (fmt: userns_why formats with it).
HELPER_SHARED = fmt userns_why
CORE_OBJS = $(LINUX_MODS:%=$(BUILD)/obj/%.o) $(HELPER_SHARED:%=$(BUILD)/obj/%.o)
HDRS      = $(wildcard src/*/*.h uapi/*.h) $(BUILD)/helper_sum.h $(HELPER_SHARED:%=landlock-helper/%.h)
HELPER_SRCS = $(wildcard landlock-helper/*.c)
# Unit tests link the modules, not the command front ends.
# mcp_run is the one MCP module with no front end under it: unit-tested
# (mcp_linux, its platform part, is in LINUX_MODS).
UNIT_LINK = $(addprefix $(BUILD)/tobj/,$(addsuffix .o,$(filter-out $(FRONT_MODS) $(MCP_MODS),$(LINUX_MODS)) $(TEST_MODS) mcp/mcp_run $(HELPER_SHARED)))
UNIT_SRCS = $(wildcard tests/unit/*_test.c)
UNIT_BINS = $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_SRCS = $(wildcard tests/tools/*.c)
TOOL_BINS = $(TOOL_SRCS:tests/tools/%.c=$(BUILD)/tools/%)

.PHONY: all check stress test tests demo clean cross release bench install fuzz-mods FORCE
# Keep the object files of the unit tests (make would delete them as
# intermediates, and a second `make tests` would then relink).
.SECONDARY:
all: $(BUILD)/arcturn

# The modules tests/fuzz/run links: the portable core and the Linux seam
# (the sandbox front end and the backends are not fuzzed).
fuzz-mods:
	@echo $(filter-out sandbox/sandbox,$(CORE_MODS)) lib/os_linux

# The Debian sources another target's build already fetched are reused
# (fetch.sh verifies every file against vendor/lock either way); only the
# files vendor/lock names are copied.
XDEPS_SEED = mkdir -p $(@D)/download && \
	for f in $$(awk '$$1 !~ /^\#/ && NF == 4 { print $$3 }' vendor/lock); do \
		for d in .deps/*/download; do \
			[ -f "$$d/$$f" ] && cp -n "$$d/$$f" $(@D)/download/ && break; \
		done; \
	done; true

$(DEPS)/.built: vendor/lock vendor/fetch.sh
	$(XDEPS_SEED)
	vendor/fetch.sh $(DEPS) "$(CC)" "$(AR)" "$(SIZEFLAGS)"
	touch $@

$(HOSTDEPS)/.built: vendor/lock vendor/fetch.sh
	vendor/fetch.sh $(HOSTDEPS) $(HOSTCC)
	touch $@

$(BUILD)/landlock-helper: $(HELPER_SRCS) $(wildcard landlock-helper/*.h uapi/*.h)
	@mkdir -p $(@D)
	$(CC) $(HFLAGS) -o $@ $(HELPER_SRCS) $(HLDFLAGS)

$(BUILD)/helper_sum.h: $(BUILD)/landlock-helper
	{ printf '/* generated: SHA-256 of the embedded landlock-helper */\n#define HELPER_SHA256 "'; \
	  sha256sum $< | cut -d' ' -f1 | tr -d '\n'; printf '"\n'; } >$@.tmp && mv $@.tmp $@

# The build identity main.c prints: one header per target, rewritten only
# when its text changes (so a new commit recompiles main.c alone).
# buildinfo.sh COMMIT TARGET [HELPER]: no HELPER, no embedded helper.
$(BUILD)/info/$(TARGET)/buildinfo.h: FORCE $(BUILD)/landlock-helper
	@mkdir -p $(@D)
	@release/buildinfo.sh "$(GIT_COMMIT)" $(TARGET) $(BUILD)/landlock-helper >$@.new
	@cmp -s $@.new $@ && rm -f $@.new || mv $@.new $@

$(BUILD)/obj/cli/main.o: CFLAGS += -I$(BUILD)/info/$(TARGET)
$(BUILD)/obj/cli/main.o: $(BUILD)/info/$(TARGET)/buildinfo.h

$(BUILD)/obj/%.o: src/%.c $(HDRS) $(DEPS)/.built
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(HELPER_SHARED:%=$(BUILD)/obj/%.o): $(BUILD)/obj/%.o: landlock-helper/%.c landlock-helper/%.h $(DEPS)/.built
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

# The helper's hash is on the command line: a compiler that caches objects
# (zig cc, for the cross builds) keys them on the source and the flags, and
# knows nothing of the file .incbin reads, so it handed back an object
# with an older helper in it.
$(BUILD)/obj/sandbox/helper_embed.o: src/sandbox/helper_embed.S $(BUILD)/landlock-helper
	@mkdir -p $(@D)
	$(CC) -c -DHELPER_PATH='"$(BUILD)/landlock-helper"' \
		-DHELPER_KEY=$$(sha256sum $(BUILD)/landlock-helper | cut -c1-16) -o $@ $<

$(BUILD)/arcturn: $(BUILD)/obj/cli/main.o $(CORE_OBJS) $(BUILD)/obj/sandbox/helper_embed.o $(DEPS)/.built
	$(CC) -o $@ $(BUILD)/obj/cli/main.o $(CORE_OBJS) $(BUILD)/obj/sandbox/helper_embed.o \
		$(DEPS)/lib/libcjson.a $(DEPS)/lib/libbearssl.a $(LDFLAGS)

# Unit tests: each links the modules directly (not main.c).
$(BUILD)/tobj/%.o: src/%.c $(HDRS) $(HOSTDEPS)/.built
	@mkdir -p $(@D)
	$(HOSTCC) $(TFLAGS) -c -o $@ $<

$(HELPER_SHARED:%=$(BUILD)/tobj/%.o): $(BUILD)/tobj/%.o: landlock-helper/%.c landlock-helper/%.h $(HOSTDEPS)/.built
	@mkdir -p $(@D)
	$(HOSTCC) $(TFLAGS) -c -o $@ $<

$(BUILD)/tobj/sandbox/helper_embed.o: src/sandbox/helper_embed.S $(BUILD)/landlock-helper
	@mkdir -p $(@D)
	$(HOSTCC) -c -DHELPER_PATH='"$(BUILD)/landlock-helper"' -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(UNIT_LINK) $(BUILD)/tobj/sandbox/helper_embed.o
	@mkdir -p $(@D)
	$(HOSTCC) $(TFLAGS) -Itests/unit -o $@ $< $(UNIT_LINK) \
		$(BUILD)/tobj/sandbox/helper_embed.o $(HOSTDEPS)/lib/libcjson.a $(HOSTDEPS)/lib/libbearssl.a

# Small static programs the black-box tests use (seccomp launcher, ...).
$(BUILD)/tools/%: tests/tools/%.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 $(WARN) -o $@ $< -static

tests: $(BUILD)/arcturn $(UNIT_BINS) $(TOOL_BINS)

# make test: every test (what CI runs); each part installs what it needs
# the first time (vendor/need.sh). make check: the quick tier, the unit
# tests and the fast black-box files, with only what vendor/bootstrap.sh
# installed.
test: tests
	tests/run

check: tests
	tests/run --check

# make stress: the long fault sweeps (README, Quick start): every mutating
# system call of the checkpoint commands, then apply's kill and race runs.
stress: $(BUILD)/arcturn
	tests/stress/ckpt-sweep $(BUILD)/arcturn --ops undo,rewind,write,turn,apply,exec
	tests/stress/kill9 $(BUILD)/arcturn 20
	tests/stress/apply-race $(BUILD)/arcturn 10 8

demo: $(BUILD)/arcturn
	tests/demo.sh $(BUILD)/arcturn

# The five release files, each built twice in two folders and published
# only when the builds are byte-identical (release/build.sh).
release:
	@release/build.sh

# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, and the man
# page and completions of release/ where they exist (release/install.sh).
PREFIX  = /usr/local
DESTDIR =
install: $(BUILD)/arcturn
	release/install.sh $(BUILD)/arcturn "$(DESTDIR)" "$(PREFIX)"

clean:
	rm -rf $(BUILD)

-include cross.mk
