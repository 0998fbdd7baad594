# Makefile — builds the tools into bin/, runs the tests, installs, and
# (through mk/skillc.mk) drives the pipeline: make task=<name> ingest.
# Needs GNU Make 4.3+. Run ./configure first.

.DEFAULT_GOAL := all
MAKEFLAGS += -r

-include mk/config.mk
ifeq ($(wildcard mk/config.mk),)
ifeq ($(filter help,$(MAKECMDGOALS)),)
$(error mk/config.mk is missing: run ./configure first)
endif
endif

# configure writes these too; older mk/config.mk files lack them
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/skillc
LIBEXECDIR ?= $(PREFIX)/libexec/skillc

SANITIZE ?=
V ?=
Q = $(if $(V),,@)
WARN = -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wno-unused-parameter
SAN_FLAGS = $(if $(SANITIZE),-fsanitize=address$(comma)undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
comma := ,
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(DEP_CFLAGS) -Itools/lib $(CPPFLAGS) $(CFLAGS) $(SAN_FLAGS)
# --as-needed: a tool loads only the libraries it calls. libcurl is never
# linked: llm/curldl.c loads it on the first HTTP request (its ~30 libraries
# cost every start-up ~15 ms); -ldl for glibc before 2.34. The libraries
# configure found as archives (DEP_STATIC_LIBS) are linked in, and LINK_OPT
# packs the relocations: what is left of a start-up is libc, libcjson,
# libxxhash and libm (docs/benchmarks.md). Older config.mk files lack both.
DEP_STATIC_LIBS ?=
LINK_OPT ?=
LEAN_STATIC_LIBS ?=
SAN_LDFLAGS ?=
ALL_LDFLAGS = -Wl,--as-needed $(LINK_OPT) $(LDFLAGS) $(SAN_FLAGS) $(if $(SANITIZE),$(SAN_LDFLAGS))
LIBS = $(filter-out -lcurl,$(DEP_LIBS)) \
	$(if $(strip $(DEP_STATIC_LIBS)),-Wl$(comma)-Bstatic $(DEP_STATIC_LIBS) -Wl$(comma)-Bdynamic) -ldl -lm

# tools/lib/<concern>/: one folder per concern (tools/lib/LAYERS says which
# may include which; `make check` enforces it).
LIB_SRC := $(sort $(wildcard tools/lib/*/*.c))
LIB_HDR := $(sort $(wildcard tools/lib/*/*.h))
LIB_OBJ := $(LIB_SRC:tools/lib/%.c=build/lib/%.o)
TOOL_SRC := $(sort $(wildcard tools/*.c))
TOOLS := $(TOOL_SRC:tools/%.c=bin/%)
TEST_SRC := $(sort $(wildcard tests/unit/*.c tests/helpers/*.c))
TEST_BINS := $(patsubst tests/%.c,build/tests/%,$(TEST_SRC))

# The stand-ins a user may run by hand (docs/demo.md): the loopback model
# server (OpenAI-compatible and AgentRM) and the scripted ACP agent.
HELPERS := libexec/fakellm libexec/acpagent

all: $(TOOLS) bin/skillc.so $(HELPERS) build/settings.stamp
tools: all

# Rebuild everything when the compiler flags change (git's GIT-CFLAGS idea).
# The file gets a rule only when its text differs, so an up-to-date tree is
# up to date for make -n and -q too (a FORCE rule would always look due).
BUILD_FLAGS := $(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(LIBS) $(LEAN_STATIC_LIBS)
ifneq ($(BUILD_FLAGS),$(file <build/flags))
build/flags: FORCE
	@mkdir -p build
	@printf '%s\n' '$(BUILD_FLAGS)' > $@
endif

build/lib/%.o: tools/lib/%.c $(LIB_HDR) build/flags
	@mkdir -p $(@D)
	@$(if $(V),,echo '  CC      $<')
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

build/libskillc.a: $(LIB_OBJ)
	@rm -f $@
	$(Q)ar rcs $@ $^

bin/%: tools/%.c build/libskillc.a $(LIB_HDR) build/flags
	@mkdir -p bin
	@$(if $(V),,echo '  CCLD    $@')
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(TOOL_OBJ) build/libskillc.a $(ALL_LDFLAGS) $(LIBS)

# skillc-static starts once a skill (hundreds of processes over a corpus):
# where configure found libxxhash.a (LEAN_STATIC_LIBS), it links it in too
# and loads libc, libcjson and libm only (one library fewer a start). Its
# hash object then takes the plain XXH3 entry points (libxxhash.a has no
# dispatcher; SSE2 is ample for a skill's few KB); linked ahead of the
# archive, it stands in for the archive's hash.o. Not with the sanitizers.
ifneq ($(strip $(LEAN_STATIC_LIBS)),)
ifeq ($(SANITIZE),)
bin/skillc-static: build/lib/base/hash-plain.o
bin/skillc-static: TOOL_OBJ = build/lib/base/hash-plain.o
bin/skillc-static: LIBS = $(filter-out -lcurl $(LEAN_STATIC_LIBS),$(DEP_LIBS)) \
	-Wl,-Bstatic $(DEP_STATIC_LIBS) $(LEAN_STATIC_LIBS) -Wl,-Bdynamic -ldl -lm
endif
endif
build/lib/base/hash-plain.o: tools/lib/base/hash.c $(LIB_HDR) build/flags
	@mkdir -p $(@D)
	@$(if $(V),,echo '  CC      $< (plain XXH3)')
	$(Q)$(CC) $(ALL_CFLAGS) -DSKILLC_XXH_PLAIN -c -o $@ $<

# skillc-init runs inside sandboxes and containers, whose images lack our
# libraries: linked statically from the few sources it needs, never with
# the sanitizers (they cannot link statically).
INIT_SRC := tools/skillc-init.c tools/lib/local/supervisor.c tools/lib/local/relay.c \
	tools/lib/base/proc.c tools/lib/base/util.c tools/lib/base/log.c tools/lib/base/fs.c \
	tools/lib/base/opts.c
bin/skillc-init: $(INIT_SRC) $(LIB_HDR) build/flags
	@mkdir -p bin
	@$(if $(V),,echo '  CCLD    $@ (static)')
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -DSKILLC_STATIC_INIT $(WARN) -Itools/lib $(CPPFLAGS) $(CFLAGS) -static -o $@ $(INIT_SRC) $(LDFLAGS) -lm

# skillc.so is loaded into GNU Make by skillc.mk (tools/plugin/skillc.c):
# it answers a make with nothing to do, which then starts no process; it
# looks for skillc-rules beside itself (installed too). Never with the
# sanitizers (make is not sanitized); libxxhash linked in where configure
# found its archive (plain XXH3, as skillc-static's); what the probe does
# not call left out, so all it needs from outside is libc and make's gmk_*.
PLUGIN_SRC := tools/plugin/skillc.c tools/lib/pipeline/noop.c tools/lib/base/fs.c \
	tools/lib/base/util.c tools/lib/base/log.c tools/lib/base/hash.c tools/lib/base/strmap.c
PLUGIN_XXH = $(if $(strip $(LEAN_STATIC_LIBS)),-DSKILLC_XXH_PLAIN,)
PLUGIN_LIBS = $(if $(strip $(LEAN_STATIC_LIBS)),\
	-Wl$(comma)-Bstatic $(LEAN_STATIC_LIBS) -Wl$(comma)-Bdynamic,-lxxhash)
bin/skillc.so: $(PLUGIN_SRC) $(LIB_HDR) build/flags
	@mkdir -p bin
	@$(if $(V),,echo '  CCLD    $@ (GNU Make plugin)')
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -DSKILLC_STATIC_INIT $(PLUGIN_XXH) $(WARN) $(DEP_CFLAGS) \
		-Itools/lib $(CPPFLAGS) $(CFLAGS) -shared -fPIC -fvisibility=hidden -ffunction-sections \
		-Wl,--gc-sections,--exclude-libs,ALL -o $@ $(PLUGIN_SRC) $(LDFLAGS) $(PLUGIN_LIBS)

libexec/%: tests/helpers/%.c build/libskillc.a $(LIB_HDR) build/flags
	@mkdir -p libexec
	@$(if $(V),,echo '  CCLD    $@')
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< build/libskillc.a $(ALL_LDFLAGS) $(LIBS)

build/tests/%: tests/%.c tests/unit/t.h build/libskillc.a $(LIB_HDR) build/flags
	@mkdir -p $(@D)
	@$(if $(V),,echo '  CCLD    $@')
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(TEST_EXTRA) build/libskillc.a $(ALL_LDFLAGS) $(LIBS)
# the plugin's glue, with make's gmk_ functions stood in for by the test
build/tests/unit/plugin_test: tools/plugin/skillc.c
build/tests/unit/plugin_test: TEST_EXTRA = tools/plugin/skillc.c

# Written from the one settings table (tools/lib/pipeline/settings.c):
# mk/defaults.mk (make's defaults and `make help`'s settings) and the table
# in docs/settings.md. Both are committed; CI fails when they drift.
build/gen/settings: tools/gen/settings.c build/libskillc.a $(LIB_HDR) build/flags
	@mkdir -p $(@D)
	@$(if $(V),,echo '  CCLD    $@')
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< build/libskillc.a $(ALL_LDFLAGS) $(LIBS)

build/settings.stamp: build/gen/settings
	@build/gen/settings mk > build/defaults.mk.tmp
	@if cmp -s build/defaults.mk.tmp mk/defaults.mk; then rm -f build/defaults.mk.tmp; \
	else mv -f build/defaults.mk.tmp mk/defaults.mk; echo '  GEN     mk/defaults.mk'; fi
	@build/gen/settings md docs/settings.md > build/settings.md.tmp
	@if cmp -s build/settings.md.tmp docs/settings.md; then rm -f build/settings.md.tmp; \
	else mv -f build/settings.md.tmp docs/settings.md; echo '  GEN     docs/settings.md'; fi
	@touch $@

# The whole suite: unit tests, then end-to-end tests driving real make.
# Prints one "N passed, N failed" line; exits non-zero on any failure.
check: all $(TEST_BINS)
	@SANITIZE='$(SANITIZE)' tests/run $(if $(T),$(T))

# The style rules a script can check (docs/internals/style.md); CI runs it.
style:
	@tools/gen/check-style

# libFuzzer harnesses (tests/fuzz/*.c) with clang, ASan+UBSan and leak
# checking, seeded from the project's own files: make fuzz FUZZ_SECONDS=N
# runs each for N seconds and fails on any finding (docs/fuzzing.md). The
# library is compiled again into build/fuzz/; the normal build is untouched.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 20
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -g -O1 $(WARN) -Wno-unused-function $(DEP_CFLAGS) -Itools/lib -Itests/fuzz $(FUZZ_SAN)
FUZZ_SRC := $(sort $(wildcard tests/fuzz/*.c))
FUZZ_BINS := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
FUZZ_LIB_OBJ := $(LIB_SRC:tools/lib/%.c=build/fuzz/lib/%.o)

build/fuzz/flags: FORCE
	@mkdir -p $(@D)
	@echo '$(FUZZ_CC) $(FUZZ_CFLAGS) $(LIBS)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi

build/fuzz/lib/%.o: tools/lib/%.c $(LIB_HDR) build/fuzz/flags
	@mkdir -p $(@D)
	@$(if $(V),,echo '  FUZZCC  $<')
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/libskillc.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	$(Q)ar rcs $@ $^

build/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h build/fuzz/libskillc.a $(LIB_HDR) build/fuzz/flags
	@$(if $(V),,echo '  FUZZLD  $@')
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< build/fuzz/libskillc.a $(LIBS)

fuzz-build: $(FUZZ_BINS)
fuzz: fuzz-build
	@tests/fuzz/run $(FUZZ_SECONDS) $(if $(FUZZ),$(FUZZ))

clean:
	rm -rf build bin libexec

distclean: clean
	rm -f mk/config.mk

# Installed layout: tools in BINDIR; make fragments, rules data and the
# paths they need in DATADIR, so `make -f $(DATADIR)/skillc.mk` works anywhere;
# skillc(7) and skillc-<tool>(1) in MANDIR; the docs/ pages in DOCDIR.
MAN_PAGES := $(sort $(wildcard man/*.[1-8]))
install: all
	mkdir -p '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(DATADIR)' '$(DESTDIR)$(MANDIR)/man1' '$(DESTDIR)$(MANDIR)/man7' \
	  '$(DESTDIR)$(LIBEXECDIR)'
	cp -f $(HELPERS) '$(DESTDIR)$(LIBEXECDIR)/'
	for t in $(TOOLS) bin/skillc.so; do cp -f $$t '$(DESTDIR)$(BINDIR)/'.$${t#bin/}.tmp && \
	  mv -f '$(DESTDIR)$(BINDIR)/'.$${t#bin/}.tmp '$(DESTDIR)$(BINDIR)/'$${t#bin/}; done
	cp -f mk/skillc.mk mk/defaults.mk '$(DESTDIR)$(DATADIR)/'
	rm -rf '$(DESTDIR)$(DATADIR)/rules' && cp -R rules '$(DESTDIR)$(DATADIR)/rules'
	printf 'SKILLC_BIN := %s\nSKILLC_DATA := %s\n' '$(BINDIR)' '$(DATADIR)' > '$(DESTDIR)$(DATADIR)/paths.mk'
	for m in $(MAN_PAGES); do cp -f $$m '$(DESTDIR)$(MANDIR)/man'$${m##*.}/; done
	rm -rf '$(DESTDIR)$(DOCDIR)' && mkdir -p '$(DESTDIR)$(DOCDIR)' && cp -R docs/. '$(DESTDIR)$(DOCDIR)/'

uninstall:
	for t in $(TOOLS) bin/skillc.so; do rm -f '$(DESTDIR)$(BINDIR)/'$${t#bin/}; done
	rm -rf '$(DESTDIR)$(DATADIR)' '$(DESTDIR)$(DOCDIR)' '$(DESTDIR)$(LIBEXECDIR)'
	for m in $(MAN_PAGES); do rm -f '$(DESTDIR)$(MANDIR)/man'$${m##*.}/$${m#man/}; done

FORCE:
.PHONY: all tools check style clean distclean install uninstall fuzz fuzz-build FORCE

# make demo's folder (mk/demo.sh): right after the demo, plain make
# summary, report and status read its runs while RESULTS holds none.
DEMO_DIR ?= results/demo
SKILLC_FALLBACK_RESULTS := $(DEMO_DIR)/results

# The pipeline's user targets (ingest, status, clean-stage, help, ...).
# the goals of this Makefile, beside skillc.mk's (a goal near one is a typo)
SKILLC_OWN_GOALS := all tools check clean distclean install uninstall demo fuzz fuzz-build
# this make may rebuild the tools before a run: no answer from a no-op journal
SKILLC_BUILDS_TOOLS := yes
include mk/skillc.mk
$(SKILLC_NEEDS_TOOLS): | all

# The whole pipeline offline on a sample task, against the stand-ins in
# libexec/ (docs/demo.md); DEMO_DIR (default results/demo) holds it all.
demo: all
	+@DEMO_DIR='$(DEMO_DIR)' $(SHELL) mk/demo.sh
.PHONY: demo
