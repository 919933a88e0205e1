# kinbox — see README.md. `make deps && make check` on a fresh Debian/Ubuntu.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/kinbox
MANDIR     ?= $(PREFIX)/share/man
DATADIR    ?= $(PREFIX)/share
DESTDIR    ?=
VERSION    := 0.1.0
# the stage libraries' rules come first below: `make` alone builds all
.DEFAULT_GOAL := all

CC      ?= cc
CSTD    = -std=c11 -D_GNU_SOURCE
WARN    = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
          -Wmissing-declarations -Wformat=2 -Wformat-security -Wswitch-enum \
          -Wimplicit-fallthrough -Wnull-dereference -Wvla -Wpointer-arith -Wundef \
          -Wcast-align -Wwrite-strings -fno-common
HARDEN  = -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE
OPT     ?= -O2 -g
CFLAGS  ?=
DEFS    = -DKB_VERSION='"$(VERSION)"' -DKB_LIBEXECDIR='"$(LIBEXECDIR)"'
ALLCFLAGS = $(CSTD) $(WARN) $(OPT) $(HARDEN) $(DEFS) $(CFLAGS)
LDFLAGS ?=
ALLLDFLAGS = -pie -Wl,-z,relro,-z,now -Wl,--as-needed $(LDFLAGS)
SAN     = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all

LIBS_KINBOX = -linih -ljansson -lbsd
# kinbox is on the start path of every sandboxed command: linked statically
# (static-pie, full RELRO) it skips the dynamic loader's work, about 1 ms of
# a 16 ms bwrap start on the reference VM (see make bench). libbsd needs
# libmd when linked statically.
STATICLDFLAGS = -static-pie -Wl,-z,relro,-z,now $(LDFLAGS)
LIBS_STATIC_EXTRA = -lmd

# One static library per stage; each program links the stages it uses
# and the linker takes only the objects it needs from each. The layers,
# lowest first (a stage includes only the headers of the stages it uses):
#   lib/       util, fsat, execsearch, envfd, hostenv, closelater, fdpass,
#              ring
#              (libc, libbsd)
#   profile/   the policy model, its config and stores: the option table,
#              paths, tables, grants/runs/journal stores, the completion
#              scripts                                        (lib)
#   gitguard/  the git scan, snapshot and audit              (profile, lib)
#   host/      what this machine can do: the probes, the run directory,
#              kinbox --status                      (gitguard, profile, lib)
#   mediate/   services outside the sandbox acting for the command: the
#              egress proxy and its resolver, the unix-socket and
#              metadata supervisors                    (host, profile, lib)
#   backends/  policy -> plan -> run: bwrap, landlock, seatbelt, seccomp,
#              mounts, memory, env, the run and its keeper
#                                   (mediate, host, gitguard, profile, lib)
#   classify/  text in, verdict out: the denial classifier and report,
#              the shell lexer and the read-only classifier   (profile, lib)
#   sidecar/   kinpolicy's verbs and rules: decide, check-write, protected,
#              grants, hook, hook install      (classify, host, gitguard,
#                                                           profile, lib)
# kinbox links classify, backends, mediate, host, gitguard, profile, lib,
# never sidecar/; kinpolicy links sidecar, classify, host, gitguard,
# profile, lib, never backends/ or mediate/ (`make check-layers` verifies
# the includes, the symbols and these link lists; it reads the stage lists
# below).
LIB_SRCS      = lib/util.c lib/fsat.c lib/execsearch.c lib/envfd.c lib/hostenv.c \
                lib/closelater.c lib/fdpass.c lib/ring.c
PROFILE_SRCS  = profile/policy.c profile/options.c profile/option-table.c \
                profile/finalize.c profile/paths.c \
                profile/tables.c profile/env.c profile/masks.c profile/config.c \
                profile/stores.c profile/resolve.c profile/runs.c profile/hosts.c \
                profile/devices.c profile/journal.c profile/completion.c
GITGUARD_SRCS = gitguard/scan.c gitguard/include.c gitguard/audit.c gitguard/gitconfig.c \
                gitguard/gitindex.c gitguard/snap.c gitguard/snapstore.c gitguard/watch.c
HOST_SRCS     = host/probe.c host/rundir.c host/bwrap-probe.c host/status.c \
                host/status-report.c
MEDIATE_SRCS  = mediate/unotify.c mediate/unotify-decide.c mediate/unotify-meta.c \
                mediate/egress.c mediate/egress-http.c mediate/egress-tls.c \
                mediate/proxy.c mediate/proxy-relay.c mediate/resolve.c
BACKEND_SRCS  = backends/plan.c backends/bwrap.c \
                backends/env.c backends/mounts.c backends/seccomp-blob.c \
                backends/choose.c backends/run.c backends/relay.c backends/outcome.c \
                backends/keeper.c backends/run-posix.c backends/proctab.c \
                backends/landlock.c backends/seatbelt.c backends/memory.c
CLASSIFY_SRCS = classify/denial.c classify/denial-text.c classify/evidence.c \
                classify/patterns.c classify/oracle.c classify/report.c \
                classify/shlex.c classify/readonly.c \
                classify/readonly-rules.c classify/readonly-rules-git.c \
                classify/readonly-sed.c classify/readonly-getopt.c \
                classify/readonly-tools.c
SIDECAR_SRCS  = sidecar/decide.c sidecar/checkwrite.c sidecar/protected.c \
                sidecar/grants.c sidecar/hook.c sidecar/agentrules.c \
                sidecar/agentpolicy.c sidecar/hookinstall.c sidecar/udiff.c
STAGES = lib profile gitguard host mediate backends classify sidecar
lib_SRCS = $(LIB_SRCS)
profile_SRCS = $(PROFILE_SRCS)
gitguard_SRCS = $(GITGUARD_SRCS)
host_SRCS = $(HOST_SRCS)
mediate_SRCS = $(MEDIATE_SRCS)
backends_SRCS = $(BACKEND_SRCS)
classify_SRCS = $(CLASSIFY_SRCS)
sidecar_SRCS = $(SIDECAR_SRCS)
STAGE_LIBS = $(foreach s,$(STAGES),$(s)/libkb-$(s).a)
define stage_lib
$(1)/libkb-$(1).a: $$($(1)_SRCS:.c=.o)
	rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach s,$(STAGES),$(eval $(call stage_lib,$(s))))

CORE_SRCS = $(LIB_SRCS) $(PROFILE_SRCS) $(GITGUARD_SRCS) $(HOST_SRCS) \
            $(MEDIATE_SRCS) $(BACKEND_SRCS) $(CLASSIFY_SRCS) $(SIDECAR_SRCS)
CORE_OBJS = $(CORE_SRCS:.c=.o)
# link order: a library before the ones it uses
KINBOX_LIBS    = classify/libkb-classify.a backends/libkb-backends.a \
                 mediate/libkb-mediate.a host/libkb-host.a \
                 gitguard/libkb-gitguard.a profile/libkb-profile.a lib/libkb-lib.a
KINPOLICY_LIBS = sidecar/libkb-sidecar.a classify/libkb-classify.a \
                 host/libkb-host.a gitguard/libkb-gitguard.a \
                 profile/libkb-profile.a lib/libkb-lib.a
HDRS = $(filter-out backends/seccomp-bpf.h,$(wildcard lib/*.h profile/*.h gitguard/*.h host/*.h \
         mediate/*.h backends/*.h classify/*.h sidecar/*.h))

# every tests/unit/test-NAME.c is a unit test, built by the pattern rule
# below (or a rule of its own: test-proxy); make unit runs them in name order
UNIT_TESTS = $(sort $(patsubst %.c,%,$(wildcard tests/unit/test-*.c)))
# the headers the unit tests share (static functions and tables)
UNIT_HDRS = tests/unit/tap.h tests/unit/ro-check.h tests/unit/readonly-cases.h \
            tests/unit/config-fixture.h tests/unit/golden-harness.h tests/unit/tree.h \
            tests/unit/egress-hellos.h tests/unit/sbpl-check.h tests/unit/seatbelt-cases.h \
            tests/unit/udiff-apply.h tests/unit/status-machine.h

.PHONY: all check check-layers format format-check unit unit-san unit-valgrind \
        integration stub-check man-check bench deps demo install uninstall clean \
        fuzz fuzz-short golden-update install-check state-check helpers \
        portable-check portable-check-selftest agents FORCE

# the completion scripts, generated by the built kinbox from its option
# table (kinbox completion bash|zsh) and installed under DATADIR
COMPLETIONS = kinbox.bash-completion kinbox.zsh-completion

all: kinbox kinbox-exec kinpolicy kinbox-sh $(COMPLETIONS)

%.o: %.c $(HDRS)
	$(CC) $(ALLCFLAGS) -c -o $@ $<

# The install paths and the version are compiled in (kinbox's helper
# path): .build-defs changes when they do, so that `make install
# PREFIX=...` after a plain `make` builds kinbox for that PREFIX
BUILD_DEFS = $(VERSION) $(LIBEXECDIR)
.build-defs: FORCE
	@printf '%s\n' '$(BUILD_DEFS)' | cmp -s - $@ || \
	  printf '%s\n' '$(BUILD_DEFS)' >$@
kinbox.o profile/completion.o kinpolicy.o: .build-defs

# kinbox's own object: main (the completion scripts, profile/completion.c,
# present the option table as --help does)
KINBOX_OBJS = kinbox.o
kinbox: $(KINBOX_OBJS) $(KINBOX_LIBS)
	$(CC) $(ALLCFLAGS) $(STATICLDFLAGS) -o $@ $(KINBOX_OBJS) $(KINBOX_LIBS) $(LIBS_KINBOX) $(LIBS_STATIC_EXTRA)

# The test build: kinbox with mediate/resolve.c's KINBOX_TEST_RESOLVE
# override compiled in (the tests' upstreams live on 127.0.0.1, which the
# release build refuses). Never installed, never named kinbox.
mediate/resolve-test.o: mediate/resolve.c $(HDRS)
	$(CC) $(ALLCFLAGS) -DKB_TEST_BUILD -c -o $@ $<
kinbox-test: $(KINBOX_OBJS) mediate/resolve-test.o $(KINBOX_LIBS)
	$(CC) $(ALLCFLAGS) $(STATICLDFLAGS) -o $@ $(KINBOX_OBJS) mediate/resolve-test.o $(KINBOX_LIBS) $(LIBS_KINBOX) $(LIBS_STATIC_EXTRA)

kinbox.bash-completion: kinbox
	./kinbox completion bash >$@.tmp && mv $@.tmp $@
kinbox.zsh-completion: kinbox
	./kinbox completion zsh >$@.tmp && mv $@.tmp $@

# kinpolicy's own objects: main and the verb table (kinpolicy.c), the
# verbs (sidecar/kinpolicy-*.c)
KINPOLICY_OBJS = kinpolicy.o sidecar/kinpolicy-grants.o sidecar/kinpolicy-gate.o \
                 sidecar/kinpolicy-journal.o sidecar/kinpolicy-gc.o \
                 sidecar/kinpolicy-hook.o sidecar/kinpolicy-install.o
kinpolicy: $(KINPOLICY_OBJS) $(KINPOLICY_LIBS)
	$(CC) $(ALLCFLAGS) $(STATICLDFLAGS) -o $@ $(KINPOLICY_OBJS) $(KINPOLICY_LIBS) $(LIBS_KINBOX) $(LIBS_STATIC_EXTRA)

# The seccomp filters are constant: compiled once at build time with
# libseccomp (seccomp.c), embedded in kinbox (seccomp-blob.c); seccomp.bpf
# is the bwrap one, raw, for the benchmark.
backends/seccomp-gen: backends/seccomp-gen.c backends/seccomp.c lib/util.c $(HDRS)
	$(CC) $(ALLCFLAGS) -o $@ backends/seccomp-gen.c backends/seccomp.c lib/util.c -lseccomp

backends/seccomp-bpf.h backends/seccomp.bpf: backends/seccomp-gen
	./backends/seccomp-gen backends/seccomp-bpf.h backends/seccomp.bpf

backends/seccomp-blob.o: backends/seccomp-blob.c backends/seccomp-bpf.h $(HDRS)
	$(CC) $(ALLCFLAGS) -c -o $@ $<

# Static and libc-only: it is exec'd once per sandboxed command.
kinbox-exec: backends/kinbox-exec.c backends/exec-landlock.c backends/exec-landlock.h \
             mediate/proxy.h mediate/unotify.h mediate/unotify-meta.h \
             lib/execsearch.c lib/execsearch.h lib/envfd.c lib/hostenv.h lib/fdpass.c lib/fdpass.h
	$(CC) $(CSTD) $(WARN) -O2 -static -o $@ backends/kinbox-exec.c backends/exec-landlock.c lib/execsearch.c lib/envfd.c lib/fdpass.c

# The sh-compatible shim (kinbox-sh.c): static and libc-only as
# kinbox-exec, started once per shell command a tool runs
kinbox-sh: kinbox-sh.c
	$(CC) $(CSTD) $(WARN) -O2 -static -o $@ kinbox-sh.c

# --- tests ---------------------------------------------------------------
# Static, libc-only helpers that make bwrap fail as it does on hosts that
# refuse it namespaces, so that kinbox's fallback to its Landlock backend
# is tested for real (tests/helpers/*.c say what each simulates;
# sh tests/helpers/check-helpers.sh checks them against the real bwrap);
# one that takes pidfd_getfd away (kinbox's unix-socket fallback) and one
# that races a connect's address (tests/t31-unix-sockets.sh)
HELPERS = tests/helpers/kb-no-userns tests/helpers/kb-no-procwrite \
          tests/helpers/kb-no-pidfd-getfd tests/helpers/kb-connect-race
$(HELPERS): tests/helpers/%: tests/helpers/%.c
	$(CC) $(CSTD) $(WARN) -O2 -static -o $@ $<
helpers: $(HELPERS)

tests/unit/test-%: tests/unit/test-%.c $(CORE_OBJS) backends/seccomp.o $(UNIT_HDRS)
	$(CC) $(ALLCFLAGS) $(ALLLDFLAGS) -o $@ $< $(CORE_OBJS) backends/seccomp.o $(LIBS_KINBOX) -lseccomp

# The sanitizer builds compile each source once, into .san/ (ASan/UBSan,
# for unit-san) and .fuzz/ (libFuzzer's, for the fuzz targets), and link
# every object into each test, as a command line naming every source did:
# the same programs, not one compile of each source per test (32 unit
# tests and 8 fuzz targets took minutes of make check that way).
SAN_OBJS = $(patsubst %.c,.san/%.o,$(CORE_SRCS) backends/seccomp.c)
.san/%.o: %.c $(HDRS) backends/seccomp-bpf.h
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(SAN) $(DEFS) -c -o $@ $<
.san/profile/completion.o: .build-defs

tests/unit/san-%: tests/unit/test-%.c $(SAN_OBJS) $(UNIT_HDRS)
	$(CC) $(CSTD) $(WARN) $(SAN) $(DEFS) -o $@ $< $(SAN_OBJS) $(LIBS_KINBOX) -lseccomp

# test-proxy serves the egress proxy in-process against upstreams of its
# own on 127.0.0.1, which the release resolver refuses: it links the test
# resolver (KINBOX_TEST_RESOLVE, as kinbox-test does) instead. These
# explicit rules take the place of the pattern rules above for it.
PROXY_TEST_OBJS = $(filter-out mediate/resolve.o,$(CORE_OBJS)) mediate/resolve-test.o
tests/unit/test-proxy: tests/unit/test-proxy.c $(PROXY_TEST_OBJS) backends/seccomp.o $(UNIT_HDRS)
	$(CC) $(ALLCFLAGS) $(ALLLDFLAGS) -o $@ $< $(PROXY_TEST_OBJS) backends/seccomp.o $(LIBS_KINBOX) -lseccomp

mediate/resolve-test-san.o: mediate/resolve.c $(HDRS)
	$(CC) $(CSTD) $(WARN) $(SAN) $(DEFS) -DKB_TEST_BUILD -c -o $@ $<
SAN_PROXY_OBJS = $(filter-out .san/mediate/resolve.o,$(SAN_OBJS)) mediate/resolve-test-san.o
tests/unit/san-proxy: tests/unit/test-proxy.c $(SAN_PROXY_OBJS) $(UNIT_HDRS)
	$(CC) $(CSTD) $(WARN) $(SAN) $(DEFS) -o $@ $< $(SAN_PROXY_OBJS) $(LIBS_KINBOX) -lseccomp

unit: $(UNIT_TESTS)
	@for t in $(UNIT_TESTS); do echo "# $$t"; ./$$t || exit 1; done

unit-san: $(UNIT_TESTS:tests/unit/test-%=tests/unit/san-%)
	@for t in $^; do echo "# $$t (ASan/UBSan)"; \
	  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./$$t || exit 1; done

unit-valgrind: $(UNIT_TESTS)
	@for t in $(UNIT_TESTS); do echo "# $$t (valgrind)"; \
	  valgrind -q --error-exitcode=1 --leak-check=full ./$$t >/dev/null || exit 1; done

# tests/golden/*.plan: the plans test-golden compares with; this rewrites
# them from the current planner (review the result: git diff tests/golden)
golden-update: tests/unit/test-golden
	@KB_GOLDEN_UPDATE=1 ./tests/unit/test-golden

# make integration KINBOX=/path/to/kinbox KINPOLICY=/path/to/kinpolicy runs
# the suites against another build or an installed copy
# (KB_SUITES="t20-core.sh ...": only these suites)
#
# The targets that run kinbox (integration, stub-check, demo, bench,
# install-check) run it with a home and XDG_RUNTIME_DIR of their own
# (tests/tools/isolated.sh): the caller's grants, denial journal and sessions
# are never read or written; make state-check checks that
ISOLATED = sh tests/tools/isolated.sh
integration: kinbox kinbox-test kinbox-exec kinbox-sh kinpolicy $(HELPERS)
	@KINBOX="$(if $(KINBOX),$(KINBOX),$(CURDIR)/kinbox)" \
	 KINPOLICY="$(if $(KINPOLICY),$(KINPOLICY),$(if $(KINBOX),$(dir $(KINBOX))kinpolicy,$(CURDIR)/kinpolicy))" \
	 KINBOX_TEST="$(if $(KINBOX_TEST),$(KINBOX_TEST),$(if $(KINBOX),$(dir $(KINBOX))kinbox-test,$(CURDIR)/kinbox-test))" \
	 $(ISOLATED) sh tests/run-integration.sh

# make demo and an integration run (KB_STATE_SUITES, default t20-core.sh)
# leave the caller's kinbox config, journal and sessions as they were
state-check: all
	@MAKE="$(MAKE)" sh tests/tools/state-check.sh

# make install into a temporary PREFIX (and a DESTDIR staging), the
# installed kinbox run on a real command, make uninstall; then the tree is
# built again for this make's own PREFIX
install-check: all
	@MAKE="$(MAKE)" $(ISOLATED) sh tests/tools/install-check.sh
	@$(MAKE) -s --no-print-directory all

# The layers (the stages at the top of this file): includes, no two files
# of a folder including each other, the symbols each library takes from the others, no sidecar/ symbol in kinbox, no
# backends/ or mediate/ symbol in kinpolicy, the programs' link lists, and
# each file's first comment naming its own path (tests/tools/check-layers.sh,
# which reads the stage lists from this Makefile)
check-layers: all
	@sh tests/tools/check-layers.sh

# make stub-check: a self-test of the suites. They run (as the caller only)
# against tests/stub/kinbox-stub, which runs nothing, and the real kinpolicy;
# every test that still passes must be in tests/stub-allow.txt, with why
stub-check: kinpolicy kinbox-sh
	@KINBOX="$(CURDIR)/tests/stub/kinbox-stub" \
	 KINPOLICY="$(if $(KINPOLICY),$(KINPOLICY),$(CURDIR)/kinpolicy)" \
	 $(ISOLATED) sh tests/tools/stub-check.sh

# The C layout is .clang-format's (STYLE.md 3.10, clang-format 14); the
# generated seccomp header is not ours to format
FORMAT_SRCS = $(filter-out backends/seccomp-bpf.h,$(wildcard *.c *.h */*.c */*.h))
format-check:
	@clang-format --dry-run -Werror $(FORMAT_SRCS) && \
	  echo "ok format-check: $(words $(FORMAT_SRCS)) files as .clang-format says"
format:
	clang-format -i $(FORMAT_SRCS)

MANPAGES = man/kinbox.1 man/kinpolicy.1 man/kinbox-sh.1 man/kinbox.conf.5
man-check:
	@for m in $(MANPAGES); do \
	  out=$$(LC_ALL=C groff -ww -man -Tutf8 -z $$m 2>&1; mandoc -Tlint $$m 2>&1); \
	  if [ -n "$$out" ]; then echo "$$out"; echo "not ok $$m: warnings"; exit 1; fi; \
	  echo "ok $$m renders without warnings (groff -ww, mandoc -Tlint)"; done

# --- the portable set (the macOS backend) ----------------------------------
# What must build on macOS, compiled here as POSIX.1-2008 C11 with its
# X/Open System Interfaces (realpath; macOS has them all): _GNU_SOURCE
# off (and not the project's CSTD), the project's warnings as errors, an
# undeclared function an error, and tests/portable-poison.h forced in
# first, which poisons the Linux-only interfaces. Then tests/unit/test-posix, built from util.c, ring.c and run-posix.c
# alone under the same flags, runs here (it exercises util.c's POSIX
# stand-ins for reallocarray and vasprintf). None of it is a macOS build:
# Apple's headers and libc may still differ.
PORTABLE_SRCS = $(strip lib/util.c lib/ring.c backends/run-posix.c backends/proctab.c backends/plan.c \
                $(wildcard backends/seatbelt.c))
PORTABLE_CFLAGS = -std=c11 -U_GNU_SOURCE -D_POSIX_C_SOURCE=200809L -D_XOPEN_SOURCE=700 $(WARN) \
                  -Werror=implicit-function-declaration -O2 \
                  -include tests/portable-poison.h
# tests/portable-slip.c: 0 the clean control, 1.. the slips
PORTABLE_SLIPS = 1 2 3 4 5

portable-check: portable-check-selftest
	@d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT && \
	for f in $(PORTABLE_SRCS); do \
	  $(CC) $(PORTABLE_CFLAGS) -c -o "$$d/$$(echo $$f | tr / _).o" $$f || \
	    { echo "not ok portable-check: $$f is not portable C (above)"; exit 1; }; \
	done && \
	echo "portable-check: compiled $(PORTABLE_SRCS) as POSIX C11 with the Linux-only interfaces poisoned; nothing was built or run on macOS" && \
	$(CC) $(PORTABLE_CFLAGS) -o "$$d/test-posix" tests/unit/test-posix.c \
	    lib/util.c lib/ring.c backends/run-posix.c backends/proctab.c && \
	if out=$$("$$d/test-posix" 2>&1); then \
	  echo "portable-check: tests/unit/test-posix built from lib/util.c, lib/ring.c, backends/run-posix.c and backends/proctab.c alone under those flags, run here on Linux: $$(echo "$$out" | tail -1)"; \
	else echo "$$out"; echo "not ok portable-check: the POSIX build of test-posix fails"; exit 1; fi

portable-check-selftest:
	@d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT && \
	$(CC) $(PORTABLE_CFLAGS) -DSLIP=0 -c -o "$$d/ok.o" tests/portable-slip.c || \
	  { echo "not ok portable-check-selftest: the clean control does not compile"; exit 1; }; \
	for n in $(PORTABLE_SLIPS); do \
	  if $(CC) $(PORTABLE_CFLAGS) -DSLIP=$$n -c -o "$$d/slip.o" tests/portable-slip.c 2>"$$d/err"; then \
	    echo "not ok portable-check-selftest: slip $$n of tests/portable-slip.c compiled"; exit 1; fi; \
	  grep -q -e poisoned -e 'implicit declaration' "$$d/err" || \
	    { cat "$$d/err"; echo "not ok portable-check-selftest: slip $$n failed for another reason"; exit 1; }; \
	done && \
	echo "ok portable-check-selftest: the clean control compiles, the $(words $(PORTABLE_SLIPS)) slips of tests/portable-slip.c (signalfd, pipe2 under a late _GNU_SOURCE, O_PATH, reallocarray) do not"

# --- fuzzing (libFuzzer, clang) ----------------------------------------------
FUZZ_TARGETS = tests/fuzz/fuzz-classify tests/fuzz/fuzz-gitindex tests/fuzz/fuzz-shlex \
               tests/fuzz/fuzz-gitconfig tests/fuzz/fuzz-config tests/fuzz/fuzz-egress \
               tests/fuzz/fuzz-hook tests/fuzz/fuzz-hookinstall
FUZZ_SRCS = $(filter-out backends/run.c backends/relay.c backends/bwrap.c,$(CORE_SRCS))
FUZZ_SECONDS ?= 300
FUZZ_CHECK_SECONDS ?= 15
FUZZCC = clang

FUZZ_OBJS = $(patsubst %.c,.fuzz/%.o,$(FUZZ_SRCS))
.fuzz/%.o: %.c $(HDRS) backends/seccomp-bpf.h
	@mkdir -p $(@D)
	$(FUZZCC) $(CSTD) $(WARN) -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
	    $(DEFS) -c -o $@ $<
.fuzz/profile/completion.o: .build-defs
# both kept between runs (make deletes what only a pattern rule's chain
# makes)
.SECONDARY: $(SAN_OBJS) $(FUZZ_OBJS)

tests/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ_OBJS)
	$(FUZZCC) $(CSTD) $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined $(DEFS) \
	    -o $@ $< $(FUZZ_OBJS) $(LIBS_KINBOX)

# The seed corpus of a target (read only; new inputs go to the first dir):
# the config files for fuzz-config, for fuzz-egress two real ClientHellos,
# request heads, a host and addresses, git configs with includes for
# fuzz-gitconfig, agents' settings files for fuzz-hookinstall (the first
# byte picks the agent); the denial texts for the others.
FUZZ_SEEDS = seeds=tests/fixtures/denials; \
  case $$t in */fuzz-config) seeds=tests/fuzz/config.seeds;; \
    */fuzz-egress) seeds=tests/fuzz/egress.seeds;; \
    */fuzz-hook) seeds="tests/fixtures/denials tests/fuzz/hook.seeds";; \
    */fuzz-gitconfig) seeds=tests/fuzz/gitconfig.seeds;; \
    */fuzz-hookinstall) seeds=tests/fuzz/hookinstall.seeds;; esac

# make fuzz: a long run; make check runs each target briefly (fuzz-short)
fuzz: $(FUZZ_TARGETS)
	@for t in $(FUZZ_TARGETS); do mkdir -p $$t.corpus; $(FUZZ_SEEDS); \
	  ./$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 $$t.corpus \
	    $$seeds || exit 1; done

fuzz-short: $(FUZZ_TARGETS)
	@for t in $(FUZZ_TARGETS); do d=$$(mktemp -d); $(FUZZ_SEEDS); \
	  ./$$t -max_total_time=$(FUZZ_CHECK_SECONDS) -max_len=65536 $$d \
	    $$seeds >$$d.log 2>&1 || { tail -40 $$d.log; rm -rf $$d $$d.log; \
	    echo "not ok $$t"; exit 1; }; \
	  echo "ok $$t: $$(grep -o 'Done [0-9]* runs' $$d.log) in $(FUZZ_CHECK_SECONDS) s, no crash"; \
	  rm -rf $$d $$d.log; done

check: all format-check portable-check check-layers unit unit-san unit-valgrind man-check fuzz-short \
       integration stub-check install-check state-check

bench: kinbox kinbox-exec kinbox-test
	@$(ISOLATED) sh tests/tools/bench.sh

# Installs what building and testing need; a no-op when all is present.
DEB_PKGS = bubblewrap libseccomp-dev libcap-ng-dev libinih-dev libbsd-dev \
           libjansson-dev gcc make pkg-config git groff-base valgrind \
           util-linux socat python3 openssh-client procps hyperfine mandoc \
           time strace clang clang-format \
           golang-go pre-commit python3-venv curl openssl python3-pip \
           python3-jsonschema zsh python3-pytest zip
# python3-jsonschema: tests/t53-hooks.sh validates the Codex hook answers;
# zsh: tests/t81-completion.sh checks the zsh completion script;
# python3-pytest, zip: tests/t41-stdout.sh runs them (with go and pre-commit)
# go, pre-commit and python3-venv: tests/t26-caches.sh runs them under kinbox
# with the default caches (npm and cargo are used where present: Debian's
# npm would replace a newer Node.js)
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "deps: all present"; fi
	@$(MAKE) -s --no-print-directory agents || \
	  echo "deps: the agents are not installed (above): tests/t82-agents.sh skips their tests"

# The coding agents tests/t82-agents.sh drives (Claude Code, Codex, Gemini
# CLI), at the versions tests/agents/package-lock.json pins, into
# tests/agents/node_modules from the npm registry; once (a no-op when that
# lock is installed). tests/agents/README says what runs them and how.
agents:
	@sh tests/agents/install.sh

demo: all
	@$(ISOLATED) sh tests/tools/demo.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(DATADIR)/bash-completion/completions \
	    $(DESTDIR)$(DATADIR)/zsh/site-functions
	install -m 0755 kinbox $(DESTDIR)$(BINDIR)/kinbox
	install -m 0755 kinpolicy $(DESTDIR)$(BINDIR)/kinpolicy
	install -m 0755 kinbox-sh $(DESTDIR)$(BINDIR)/kinbox-sh
	install -m 0755 kinbox-exec $(DESTDIR)$(LIBEXECDIR)/kinbox-exec
	install -m 0644 man/kinbox.1 $(DESTDIR)$(MANDIR)/man1/kinbox.1
	install -m 0644 man/kinpolicy.1 $(DESTDIR)$(MANDIR)/man1/kinpolicy.1
	install -m 0644 man/kinbox-sh.1 $(DESTDIR)$(MANDIR)/man1/kinbox-sh.1
	install -m 0644 man/kinbox.conf.5 $(DESTDIR)$(MANDIR)/man5/kinbox.conf.5
	install -m 0644 kinbox.bash-completion \
	    $(DESTDIR)$(DATADIR)/bash-completion/completions/kinbox
	install -m 0644 kinbox.zsh-completion $(DESTDIR)$(DATADIR)/zsh/site-functions/_kinbox

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/kinbox $(DESTDIR)$(BINDIR)/kinpolicy \
	      $(DESTDIR)$(BINDIR)/kinbox-sh $(DESTDIR)$(LIBEXECDIR)/kinbox-exec \
	      $(DESTDIR)$(MANDIR)/man1/kinbox.1 $(DESTDIR)$(MANDIR)/man1/kinpolicy.1 \
	      $(DESTDIR)$(MANDIR)/man1/kinbox-sh.1 \
	      $(DESTDIR)$(MANDIR)/man5/kinbox.conf.5 \
	      $(DESTDIR)$(DATADIR)/bash-completion/completions/kinbox \
	      $(DESTDIR)$(DATADIR)/zsh/site-functions/_kinbox
	-rmdir $(DESTDIR)$(LIBEXECDIR)

clean:
	rm -f backends/seccomp-gen backends/seccomp-bpf.h backends/seccomp.bpf
	rm -rf $(FUZZ_TARGETS) tests/fuzz/*.corpus
	rm -f kinbox kinbox-test kinbox-exec kinbox-sh kinpolicy $(COMPLETIONS) *.o */*.o */*.a $(UNIT_TESTS) tests/unit/san-*
	rm -rf .san .fuzz
	rm -f $(HELPERS)
	rm -f .build-defs
