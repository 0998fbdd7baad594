# skillc.mk — the pipeline's user targets. The top Makefile includes it in the
# source tree; installed, use it directly (make -f <datadir>/skillc.mk task=x
# ingest) or include it in your own Makefile: everything it defines for its
# own use is named skillc-* / SKILLC_* / skillc_*, and its `help` yields to
# yours (skillc-help is always there).
#
# One make process for any number of runs: the make you start hands the
# request to skillc-rules (settings checked once, in C, against the settings
# table), which takes every run's lock, brings their rules up to date and
# starts the one make of the rules the goals need in every run (SKILLC_PLAN),
# where GNU Make decides from content-hash stamps what must run.

# an including Makefile keeps its own default goal (restored at the end)
skillc_default_goal := $(.DEFAULT_GOAL)
SKILLC_MK := $(abspath $(lastword $(MAKEFILE_LIST)))
SKILLC_MK_DIR := $(dir $(SKILLC_MK))
-include $(SKILLC_MK_DIR)paths.mk
SKILLC_BIN ?= $(abspath $(SKILLC_MK_DIR)../bin)
SKILLC_DATA ?= $(abspath $(SKILLC_MK_DIR)..)
-include local.mk
include $(SKILLC_MK_DIR)defaults.mk

# Goals that work on runs (they take the locks), that only read, and that
# need no run. SKILLC_STAGE_GOALS comes from the stage table (defaults.mk).
SKILLC_WORK_GOALS := $(SKILLC_STAGE_GOALS) eval final images clean-stage
SKILLC_READ_GOALS := status
SKILLC_FREE_GOALS := summary report audit watch doctor gate junit runtime-image pin export
SKILLC_GOALS := $(SKILLC_WORK_GOALS) $(SKILLC_READ_GOALS) $(SKILLC_FREE_GOALS)
# The targets that run a tool: in the source tree they need the tools built.
SKILLC_NEEDS_TOOLS := $(SKILLC_FREE_GOALS)
skillc_work := $(filter $(SKILLC_WORK_GOALS),$(MAKECMDGOALS))
skillc_read := $(filter $(SKILLC_READ_GOALS),$(MAKECMDGOALS))
skillc_any := $(filter $(SKILLC_GOALS),$(MAKECMDGOALS))
# the rules data the tools read (model profiles, harnesses, routes): rules/
# in the source tree, $(DATADIR)/rules when installed
SKILLC_RULES := $(SKILLC_DATA)/rules
SKILLC_STAGE := $(SKILLC_BIN)/skillc-stage

# A skill run (skill=, docs/skill-runs.md): skillc-skillrun plans it and
# makes its member runs, each an ordinary make of this file.
# gate judges its held-out test tasks (docs/ci.md); watch shows its member
# runs by role.
skillc_skillrun := $(if $(and $(skill),$(if $(SKILLC_PLAN),,yes)),$(filter $(SKILLC_WORK_GOALS) $(SKILLC_READ_GOALS) summary report gate watch,$(MAKECMDGOALS)))
ifneq ($(skillc_skillrun),)
ifneq ($(and $(filter gate,$(MAKECMDGOALS)),$(filter-out gate,$(MAKECMDGOALS))),)
$(error skillc: run make gate on its own, after the make that runs the trials (its exit status is the verdict))
endif
$(foreach v,$(SKILLC_SETTINGS),$(eval override $v := $$(value $v)))
skillc_quote = '$(subst ','\'',$1)'
skillc_sr = $(SKILLC_BIN)/skillc-skillrun $1 --given '$(SKILLC_GIVEN)' $(foreach v,$(SKILLC_SETTINGS),$(call skillc_quote,$v=$($v)))
# make -n and -q answer from a run's records; a skill run has several
skillc_sr_flags := $(if $(filter -%,$(firstword $(MAKEFLAGS))),,$(firstword $(MAKEFLAGS)))
ifneq ($(findstring n,$(skillc_sr_flags))$(findstring q,$(skillc_sr_flags)),)
$(error skillc: make -n and -q do not take a skill run: make status skill=... says what is due in each of its runs)
endif
# bad settings or a bad plan stop make while it reads this file, in one line
skillc_sr_bad := $(shell $(SKILLC_BIN)/skillc-rules check $(foreach v,$(SKILLC_SETTINGS),$(call skillc_quote,$v=$($v))) 2>&1)
skillc_sr_bad := $(or $(skillc_sr_bad),$(shell $(call skillc_sr,check) 2>&1))
$(if $(skillc_sr_bad),$(error $(skillc_sr_bad)))
skillc_sr_read := $(filter status gate,$(skillc_skillrun))
ifneq ($(skillc_sr_read),)
# status and gate answer while the makefile is read: status 0 up to date,
# 1 not (as a run's); gate 0 pass, 1 fail, 2 cannot judge
skillc_sr_tmp := $(shell mktemp "$${TMPDIR:-/tmp}/skillc-report.XXXXXX")
skillc_sr_rc := $(shell $(call skillc_sr,$(firstword $(skillc_sr_read))) >$(skillc_sr_tmp) 2>&1; echo $$?)
skillc_sr_out := $(file <$(skillc_sr_tmp))
$(shell rm -f $(skillc_sr_tmp))
ifeq ($(skillc_sr_rc)$(skillc_sr_read),2gate)
$(error $(skillc_sr_out))
endif
$(info $(skillc_sr_out))
MAKEFLAGS += -s
ifeq ($(skillc_sr_rc),1)
MAKEFLAGS += -q
$(skillc_sr_read): skillc-not-well
skillc-not-well: ; @:
else ifneq ($(skillc_sr_rc),0)
$(error skillc: $(skillc_sr_read) could not run (see the lines above))
endif
$(skillc_sr_read): ; @:
endif
$(filter-out status gate,$(skillc_skillrun)):
	+@$(call skillc_sr,$@)
.PHONY: $(skillc_skillrun) skillc-not-well
else ifeq ($(SKILLC_PLAN),)
# ---------------------------------------------------- the make you started
# The goals that read runs, given no RESULTS and no run, read
# SKILLC_FALLBACK_RESULTS (the source tree's Makefile names the demo's,
# docs/demo.md) while RESULTS holds no run, and say so.
ifneq ($(and $(SKILLC_FALLBACK_RESULTS),$(filter status summary report audit,$(MAKECMDGOALS))),)
ifeq ($(filter RESULTS RUN_DIR task tasks MATRIX,$(SKILLC_GIVEN))$(wildcard $(RESULTS)/*/settings.json),)
ifneq ($(wildcard $(SKILLC_FALLBACK_RESULTS)/*/settings.json),)
$(info skillc: no run under $(RESULTS): reading $(SKILLC_FALLBACK_RESULTS) (make demo's runs); RESULTS=<folder> reads another)
RESULTS := $(SKILLC_FALLBACK_RESULTS)
endif
endif
endif
# Values from outside never reach a shell or a rule unchecked: take each
# one's text without expanding it, pass it quoted, check it in C.
$(foreach v,$(SKILLC_SETTINGS),$(eval override $v := $$(value $v)))
skillc_quote = '$(subst ','\'',$1)'
# (each quoted as skillc_quote does, inline: a $(call) a setting was a
# fifth of what make does on a no-op)
skillc_sets := $(foreach v,$(SKILLC_SETTINGS),'$(subst ','\'',$v=$($v))')
skillc_args := --given '$(SKILLC_GIVEN)' $(skillc_sets)
# make -n / -q: its one-letter flags, the first word of MAKEFLAGS
skillc_flags := $(if $(filter -%,$(firstword $(MAKEFLAGS))),,$(firstword $(MAKEFLAGS)))
skillc_dry := $(if $(findstring n,$(skillc_flags)),dry,$(if $(findstring q,$(skillc_flags)),question))

# make -f <datadir>/skillc.mk: the commands skillc suggests name the file too
SKILLC_MAKE_F := $(if $(filter $(SKILLC_MK),$(abspath $(firstword $(MAKEFILE_LIST)))),$(SKILLC_MK))
export SKILLC_MAKE_F

# Command-line variables that are no setting: a misspelt one (REPAET=5,
# repeat=5) is refused when skillc.mk is the makefile (or the source
# tree's), only warned about when a Makefile of yours includes it (your
# own variables are yours).
# The candidates are the words of make's own record of them (name=value or
# name:=value, a value's spaces escaped): a few, not every variable.
skillc_strays := $(filter-out $(SKILLC_SETTINGS) SKILLC_% V SANITIZE T,$(foreach v,$(sort $(subst =, ,$(subst \
	:=,=,$(value -*-command-variables-*-)))),$(if $(filter command line,$(origin $v)),$v)))
skillc_included := $(if $(filter $(SKILLC_MK) $(abspath $(SKILLC_MK_DIR)../Makefile),$(abspath $(firstword $(MAKEFILE_LIST)))),,yes)
# Goals no makefile here has (a path is make's own business): one near a
# goal of skillc's is refused naming it ("did you mean static?").
skillc_odd_goals := $(if $(skillc_included),,$(filter-out $(SKILLC_GOALS) $(SKILLC_OWN_GOALS) help skillc-help %/%,$(MAKECMDGOALS)))
ifneq ($(skillc_odd_goals),)
ifneq ($(wildcard $(SKILLC_BIN)/skillc-rules),)
skillc_bad_goal := $(shell $(SKILLC_BIN)/skillc-rules check --goals $(call skillc_quote,$(skillc_odd_goals)) --known $(call skillc_quote,$(SKILLC_GOALS) $(SKILLC_OWN_GOALS) help))
$(if $(skillc_bad_goal),$(error $(skillc_bad_goal)))
endif
endif
# A work goal whose make did nothing last time may be answered from the
# command's no-op journal (docs/internals/make.md): not
# for make -n/-q/-t/-B, clean-stage, images, DATASET_PIN, nor in the source
# tree, whose tools this make may rebuild first; nor when make starts over
# after the work (the status below): the run just recorded that journal.
skillc_noop_goals := $(if $(MAKE_RESTARTS)$(skillc_read)$(skillc_dry)$(SKILLC_BUILDS_TOOLS)$(DATASET_PIN)$(filter clean-stage images,$(skillc_work))$(findstring t,$(skillc_flags))$(findstring B,$(skillc_flags)),,$(skillc_work))
# skillc's goals: the settings checked in C (not again when make starts
# over after the work: skillc-rules run checked them too)
ifneq ($(skillc_any),)
ifneq ($(MAKE_RESTARTS),)
else ifneq ($(wildcard $(SKILLC_BIN)/skillc-rules),)
skillc_strays_arg := $(if $(skillc_included),,--strays $(call skillc_quote,$(skillc_strays)))
skillc_noop_args := $(if $(skillc_noop_goals),--noop '$(skillc_noop_goals)' --given '$(SKILLC_GIVEN)' \
	--make-f $(call skillc_quote,$(SKILLC_MAKE_F)) --rules $(call skillc_quote,$(SKILLC_RULES)))
# the journal is probed inside make by skillc.so's $(skillc-noop): a no-op
# starts no process. What it cannot vouch for, and a make without the
# plugin, go to skillc-rules check (which probes the journal itself).
# (Only a file that is there: make would try to remake a missing one.)
ifneq ($(and $(skillc_noop_args),$(filter load,$(.FEATURES)),$(wildcard $(SKILLC_BIN)/skillc.so)),)
-load $(SKILLC_BIN)/skillc.so
endif
# (not for a stray variable, which check refuses, unless a Makefile of yours includes this)
skillc_noop_free := $(if $(skillc_included),yes,$(if $(skillc_strays),,yes))
skillc_noop_so := $(and $(skillc_noop_args),$(filter $(SKILLC_BIN)/skillc.so,$(.LOADED)),$(skillc_noop_free))
skillc_bad := $(if $(skillc_noop_so),$(skillc-noop skillc_noop_goals SKILLC_GIVEN SKILLC_MAKE_F SKILLC_RULES SKILLC_SETTINGS))
ifeq ($(skillc_bad),)
skillc_bad := $(shell $(SKILLC_BIN)/skillc-rules check $(skillc_strays_arg) \
	$(if $(skillc_noop_so),,$(skillc_noop_args)) $(skillc_sets))
endif
skillc_noop := $(filter skillc-noop:,$(firstword $(skillc_bad)))
ifneq ($(skillc_noop),)
skillc_noop := $(subst skillc-noop: ,,$(skillc_bad))
else ifneq ($(skillc_bad),)
$(error $(skillc_bad))
endif
ifneq ($(skillc_included),)
skillc_stray_note := $(if $(skillc_strays),$(shell $(SKILLC_BIN)/skillc-rules check --strays $(call skillc_quote,$(skillc_strays))))
$(if $(skillc_stray_note),$(warning $(subst skillc: ,skillc: warning: ,$(skillc_stray_note))))
endif
else ifneq ($(skillc_read)$(skillc_dry)$(filter doctor gate junit,$(MAKECMDGOALS)),)
$(error skillc: the tools are not built ($(SKILLC_BIN)/skillc-rules is missing): run make first)
endif
# DATASET_PIN: a task that differs from the pin stops make before anything
# runs (one line, exit 2)
ifneq ($(and $(skillc_work),$(DATASET_PIN),$(wildcard $(SKILLC_BIN)/skillc-rules)),)
skillc_pin_bad := $(shell $(SKILLC_BIN)/skillc-rules pin-check $(skillc_args))
ifneq ($(skillc_pin_bad),)
$(error $(skillc_pin_bad))
endif
endif
# The tools read the settings of one command from the environment: export
# them, but only for skillc's goals (`make check` in the source tree runs
# tests that start makes of their own).
export $(SKILLC_SETTINGS) SKILLC_RULES
endif

# status, make -n and make -q only read: answered while the makefile is read
# (no lock: status works while another make runs), 0 when all is up to date,
# 1 when not. A recipe cannot make make exit 1 (a failed recipe is 2), so
# "not up to date" puts make in question mode (-q), whose answer for an
# out-of-date target is 1. doctor and gate answer the same way.
# The runs of a command (task=, a matrix): their folders, for gate and junit;
# without any, every run under RESULTS.
skillc_runs_of = $(if $(task)$(tasks)$(MATRIX),$(shell $(SKILLC_BIN)/skillc-rules report --as runs $(skillc_args)),$(RESULTS))
# gate judges finished runs (docs/ci.md): 0 the rule holds, 1 it does not,
# 2 they cannot be judged. It answers for trials already made, so it runs
# alone, after the make that made them.
ifneq ($(filter gate,$(MAKECMDGOALS)),)
ifneq ($(filter-out gate,$(MAKECMDGOALS)),)
$(error skillc: run make gate on its own, after the make that runs the trials (its exit status is the verdict))
endif
endif
skillc_report :=
ifneq ($(skillc_read),)
skillc_report := SKILLC_MAKE_F=$(call skillc_quote,$(SKILLC_MAKE_F)) $(SKILLC_BIN)/skillc-rules report --as status --goals '$(skillc_read)' $(skillc_args)
else ifneq ($(if $(skillc_dry),$(skillc_work)),)
skillc_report := SKILLC_MAKE_F=$(call skillc_quote,$(SKILLC_MAKE_F)) $(SKILLC_BIN)/skillc-rules report --as $(skillc_dry) --goals '$(skillc_work)' $(skillc_args)
else ifneq ($(filter doctor,$(MAKECMDGOALS)),)
# $(shell) does not see exported variables in make 4.3: pass them by hand
skillc_report := $(foreach v,$(SKILLC_SETTINGS) SKILLC_RULES,$v=$(call skillc_quote,$($v))) $(SKILLC_BIN)/skillc-doctor $(call skillc_quote,$(GOAL))
else ifneq ($(filter gate,$(MAKECMDGOALS)),)
skillc_report := $(SKILLC_BIN)/skillc-gate --stage '$(GATE_STAGE)' --rule '$(GATE_RULE)' --min-delta '$(GATE_MIN_DELTA)' \
	--max-regressed '$(GATE_MAX_REGRESSED)' --vs '$(GATE_VS)' --across '$(GATE_ACROSS)' $(skillc_runs_of)
skillc_report_fail := cannot judge the runs (see the lines above)
endif
ifneq ($(skillc_report),)
skillc_report_tmp := $(shell mktemp "$${TMPDIR:-/tmp}/skillc-report.XXXXXX")
skillc_report_rc := $(shell $(skillc_report) >$(skillc_report_tmp) 2>&1; echo $$?)
skillc_report_out := $(file <$(skillc_report_tmp))
$(if $(skillc_report_out),$(info $(skillc_report_out)))
$(shell rm -f $(skillc_report_tmp))
skillc_answered := $(skillc_read) $(skillc_work) $(filter doctor gate,$(MAKECMDGOALS))
MAKEFLAGS += -s
ifeq ($(skillc_report_rc),0)
$(skillc_answered):
else ifeq ($(skillc_report_rc),1)
ifneq ($(skillc_dry),dry)
MAKEFLAGS += -q
$(skillc_answered): skillc-not-well
skillc-not-well: ; @:
else
$(skillc_answered):
endif
else
$(error skillc: $(firstword $(skillc_answered)) $(or $(skillc_report_fail),could not run (see the line above)))
endif
else ifneq ($(skillc_noop),)
# Nothing changed since the last make of this command found nothing to do:
# its last line again, and no process started.
$(info $(skillc_noop))
$(skillc_work): ;
else ifneq ($(skillc_work),)
# Work: skillc-rules takes the locks, refreshes the runs and starts the one
# make. Its status is the failed stage's (docs/pipeline.md: 1 the work
# failed, 2 bad input), which no recipe can make make's own (a failed recipe
# is 2): the work runs as the remaking of an included makefile that records
# the status; make then starts over, reads it and answers as status does
# (question mode for 1). The file is named by this make's pid, which the
# restart keeps. The shell traps INT and TERM (its children keep the default)
# so that, when they come, it waits for skillc-rules as make waits for it:
# a trapped signal waits for the command in the foreground (POSIX).
skillc_rc_file := $(or $(TMPDIR),/tmp)/skillc-rc.$(shell echo $$PPID)
skillc_rc :=
ifneq ($(MAKE_RESTARTS),)
-include $(skillc_rc_file)
$(shell rm -f $(skillc_rc_file))
endif
ifeq ($(skillc_rc),)
$(shell rm -f $(skillc_rc_file))
-include $(skillc_rc_file)
SKILLC_NEEDS_TOOLS += $(skillc_rc_file)
$(skillc_rc_file):
	+@trap : INT TERM; $(SKILLC_BIN)/skillc-rules run --goals '$(skillc_work)' $(skillc_args) -- \
		$(MAKE) --no-print-directory -f $(SKILLC_MK); echo "skillc_rc := $$?" >$@
# reached only when the status could not be written (make starts over first)
$(skillc_work):
	@echo 'skillc: cannot write $(skillc_rc_file): the status of the make is unknown' >&2; exit 2
else ifeq ($(skillc_rc),0)
$(skillc_work): ; @:
else ifeq ($(skillc_rc),1)
MAKEFLAGS += -q
$(skillc_work): skillc-not-well
skillc-not-well: ; @:
else
$(skillc_work): ; @exit 2
endif
endif

# summary / report / watch read run folders only: no lock, no task needed.
skillc_slug = $(subst /,_,$(subst :,_,$(subst @,_,$1)))
skillc_src = $(if $(SKILL_SOURCE),--$(shell $(SKILLC_BIN)/skillc-rules source-tag $(call skillc_quote,$(SKILL_SOURCE))))
skillc_results_of = $(if $(RUN_DIR),$(RUN_DIR),$(if $(task),$(RESULTS)/$(task)--$(HARNESS)--$(if $(MODEL),$(call skillc_slug,$(MODEL)),no-model)$(skillc_src),$(RESULTS)))
# HARBOR_JOBS: Harbor job folders join the table; the summary stays beside
# the runs (or, with no runs yet, goes into HARBOR_JOBS)
skillc_summary_in = $(or $(wildcard $(skillc_results_of)) $(HARBOR_JOBS),$(skillc_results_of))
summary:
	@$(SKILLC_BIN)/skillc-summary $(if $(HARBOR_JOBS),--out $(call skillc_quote,$(firstword $(skillc_summary_in)))) \
		$(foreach p,$(skillc_summary_in),$(call skillc_quote,$p))
report:
	@$(SKILLC_BIN)/skillc-report $(if $(task),--index $(RESULTS)) $(call skillc_quote,$(skillc_results_of))
# the leakage guard's findings and the agent's use of each skill, per run
# and stage (docs/leakage.md#make-audit)
audit:
	@$(SKILLC_BIN)/skillc-audit $(if $(task)$(tasks)$(MATRIX),$(skillc_runs_of),$(call skillc_quote,$(skillc_results_of)))
junit:
	@$(SKILLC_BIN)/skillc-junit $(if $(tasks)$(MATRIX),--out $(RESULTS)/junit.xml) $(skillc_runs_of)
watch:
	@$(SKILLC_BIN)/skillc-summary --watch $(if $(filter-out 0,$(WATCH_TIMEOUT)),--timeout $(WATCH_TIMEOUT)) \
		$(call skillc_quote,$(skillc_results_of))
runtime-image:
	@$(SKILLC_BIN)/skillc-runtime build --base $(call skillc_quote,$(RUNTIME_BASE))
# the task tree's identity, for DATASET_PIN (docs/export.md)
pin:
	@$(SKILLC_BIN)/skillc-rules pin $(skillc_args)
# every run (or task=T's) as one checkable bundle
export:
	@$(SKILLC_BIN)/skillc-export --out $(call skillc_quote,$(OUT)) $(if $(DATASET_PIN),--pin $(call skillc_quote,$(DATASET_PIN))) \
		--env-file $(call skillc_quote,$(ENV_FILE)) \
		$(call skillc_quote,$(skillc_results_of))

.PHONY: $(SKILLC_GOALS) skillc-not-well

else
# -------------------------------- the one make of every run (SKILLC_PLAN)
MAKEFLAGS += -rR
include $(SKILLC_PLAN)
# each goal needs the targets the plan lists for it ("<goal>: ...")
# the baked images of SANDBOX=docker or podman (none under bwrap: the stages are not in the runs)
images:
	@$(if $(filter %/l2-image.ok,$^),:,echo "skillc: no images in this run: they are for RUNNER=local SANDBOX=docker or podman")
# the whole pipeline ends with each run's summary written (the last line,
# printed by skillc-rules, names the deliverable)
final:
	@$(foreach r,$(SKILLC_RUNS),$(SKILLC_BIN)/skillc-summary $r >/dev/null &&) :
clean-stage:
	@$(foreach r,$(SKILLC_RUNS),$(SKILLC_STAGE) clean $r $(STAGE) &&) :

.PHONY: $(SKILLC_WORK_GOALS)
.DELETE_ON_ERROR:
# No .SECONDARY: without prerequisites it makes every target intermediate
# (make 4.3), and under -j an intermediate that does not exist yet is taken
# as up to date: an index whose new trials are still running was skipped.
endif

# `make help` is yours when your Makefile has one (an explicit rule wins
# over this pattern); `make skillc-help` is always this text.
skillc-help:
	@sed -n 's/^#: \{0,1\}//p' $(SKILLC_MK) $(SKILLC_MK_DIR)defaults.mk
h%lp: skillc-help ;
.PHONY: skillc-help
# skillc's own makefiles are never remade: no search of the built-in rules
# for a way to (a third of what make does reading this file on a no-op)
$(SKILLC_MK) $(SKILLC_MK_DIR)defaults.mk $(wildcard $(SKILLC_MK_DIR)paths.mk): ;
# Nor are the built-in rules installed (make does it after reading the
# makefiles: 60% of an empty make) when this file is the makefile and every
# goal is its own: none of its targets needs one (a Makefile of yours
# including it keeps them).
ifeq ($(filter $(SKILLC_MK),$(abspath $(firstword $(MAKEFILE_LIST)))),$(SKILLC_MK))
ifeq ($(filter-out $(SKILLC_GOALS) $(SKILLC_OWN_GOALS) help skillc-help,$(MAKECMDGOALS)),)
MAKEFLAGS += -r
endif
endif
.DEFAULT_GOAL := $(skillc_default_goal)

#: skillc — compile an Agent Skill for one model and harness, and measure it.
#:
#: Targets (task=<name> picks a folder under TASKS_DIR; a matrix: tasks="a b",
#: harnesses="h1 h2", models="m1 m2" or MATRIX=file.yaml, one run each, one make):
#:   make task=T ingest         copy and validate the task's skill into the run
#:   make task=T profile        resolve MODEL to a model profile (artifacts/static/profile.json)
#:   make task=T static         static compile for MODEL (artifacts/static/S_static/, report.md)
#:   make task=T raw-eval       REPEAT trials of the raw skill (-jN: N at a time)
#:   make task=T static-eval    max(REPEAT, FAST_MIN_TRACES) trials of the compiled skill (reused when it equals the raw one)
#:   make task=T fast-score     score the static traces (verifier, pre-score, AgentRM) and pick top/bottom groups
#:   make task=T fast           the fast stage up to S_fast: scores, map calls (-jN), reduce, patches
#:   make task=T fast-eval / fast-index   REPEAT trials of S_fast / their index.json
#:   make task=T deep           the deep rounds up to S_final (deep-start, deep-K-score/-edit/-eval.NNN/-look.NNN/-decide, deep-final)
#:   make task=T final-eval / final-index FINAL_REPEAT trials of S_final (or the last accepted round's) / their index.json
#:   make task=T raw-index / static-index   that stage's traces/<task>/<stage>/index.json
#:   make task=T noskill-eval   REPEAT trials with no skill at all (BASELINE=1: part of eval and final)
#:   make task=T eval           every evaluation trial that is due, and each stage's index.json
#:   make task=T final          the whole pipeline for the task (resumable)
#:   make task=T images         SANDBOX=docker/podman: the task's L1 and L2 images that are due (-jN with tasks=)
#:   make summary               results tables (md/csv/json) of the run (task=T) or of all RESULTS (+ HARBOR_JOBS)
#:   make report                report.html + charts/*.svg of the run (task=T) or of every run, and index.html
#:   make watch                 a live table until every due trial is done (WATCH_TIMEOUT=s: exit 2 after)
#:   make audit                 per run and stage: leakage findings rolled back, the share of trials that
#:                              invoked or read each skill, and a warning when the final skill went unused
#:   make junit                 junit.xml (one test case per run and stage) beside the summary
#:   make pin                   DATASET_PIN (default dataset-pin.json): the task tree's git commit and task digests;
#:                              with DATASET_PIN set, a run whose task differs from it refuses to start
#:   make export OUT=b.tar.gz   the runs (task=T: one) as a bundle: skills, summary, report, trials,
#:                              ATIF trajectories, settings, pin, checksums (.tar.zst too; skillc-verify b.tar.gz)
#:   make gate                  exit 0 when GATE_STAGE beats raw by the rule, 1 when not, 2 cannot judge
#:                              (skill=...: the held-out test tasks' S_final against raw, across them)
#:   make task=T status         what is done, what is stale and why (exit 0 up to date, 1 not);
#:                              over a matrix or every run under RESULTS: one line a run
#:   make -n / make -q ...      what make would start / whether it would (from the same records)
#:   make task=T clean-stage STAGE=S   forget stage S (or one trial, raw-eval.003) and every stage after it
#:   make runtime-image         the Docker-in-Docker runtime image (skillc-runtime run -- make ...)
#:   make doctor [GOAL=stage]   check what the goal (default final) needs: models, runner, harness, sandbox, cluster, docker
#:   make demo                  the whole pipeline offline on a sample task (source tree; docs/demo.md)
#:   make help / skillc-help    this text (help is yours when your Makefile has one)
#:   make / make check / make install   build the tools, run the tests, install
#:   make fuzz [FUZZ_SECONDS=N] the libFuzzer harnesses of every parser (source tree; docs/fuzzing.md)
#:
#: A run lives in RESULTS/<task>--<harness>--<model>/ (or RUN_DIR); see docs/pipeline.md.
#: SKILL_SOURCE=<dir> evaluates a skill from elsewhere, in a run of its own (docs/baseline.md).
#:
