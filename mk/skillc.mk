# skillc.mk — the pipeline's user targets. The top Makefile includes it in the
# source tree; installed, use it directly: make -f <datadir>/skillc.mk task=x ingest
#
# Two levels: the outer make checks the request, takes the run's lock and
# starts an inner make (SKILLC_INNER=1) that includes the run's generated
# rules.mk, where GNU Make decides from content-hash stamps what must run.

SKILLC_MK := $(abspath $(lastword $(MAKEFILE_LIST)))
SKILLC_MK_DIR := $(dir $(SKILLC_MK))
-include $(SKILLC_MK_DIR)paths.mk
SKILLC_BIN ?= $(abspath $(SKILLC_MK_DIR)../bin)
SKILLC_DATA ?= $(abspath $(SKILLC_MK_DIR)..)
-include local.mk
include $(SKILLC_MK_DIR)defaults.mk

# Goals that work on one run (they take its lock), and goals that only read.
SKILLC_STAGE_GOALS := ingest profile static raw-eval raw-index static-eval static-index l1-image l2-image
SKILLC_RUN_GOALS := $(SKILLC_STAGE_GOALS) eval final images clean-stage
SKILLC_READ_GOALS := status
SKILLC_RUN_TARGETS := $(SKILLC_RUN_GOALS) $(SKILLC_READ_GOALS)
# Goals over a run (task=) or, without one, every run under RESULTS.
SKILLC_FREE_GOALS := summary report watch doctor gate junit runtime-image

# --- Values from outside never reach a shell or a rule unchecked: take each
# one's text without expanding it, then check them all once, in C, against
# the settings table (skillc-rules check); a bad one stops make here.
$(foreach v,$(SKILLC_SETTINGS),$(eval override $v := $$(value $v)))
skillc_quote = '$(subst ','\'',$1)'
ifeq ($(SKILLC_INNER),)
ifneq ($(filter $(SKILLC_RUN_TARGETS) $(SKILLC_FREE_GOALS),$(MAKECMDGOALS)),)
ifeq ($(wildcard $(SKILLC_BIN)/skillc-rules),)
$(error skillc: the tools are not built ($(SKILLC_BIN)/skillc-rules is missing): run make first)
endif
skillc_bad := $(shell $(SKILLC_BIN)/skillc-rules check $(foreach v,$(SKILLC_SETTINGS),$(call skillc_quote,$v=$($v))) 2>&1)
ifneq ($(skillc_bad),)
$(error $(skillc_bad))
endif
endif
endif

skillc_slug = $(subst /,_,$(subst :,_,$(subst @,_,$1)))
ifneq ($(task),)
SKILLC_TASK_DIR := $(TASKS_DIR)/$(task)
RUN := $(if $(RUN_DIR),$(RUN_DIR),$(RESULTS)/$(task)--$(HARNESS)--$(if $(MODEL),$(call skillc_slug,$(MODEL)),no-model))
ifneq ($(RUN_DIR),)
ifeq ($(filter $(RESULTS)/%,$(RUN_DIR)),)
$(error skillc: RUN_DIR '$(RUN_DIR)' must be under RESULTS '$(RESULTS)')
endif
ifneq ($(findstring ..,$(RUN_DIR)),)
$(error skillc: RUN_DIR '$(RUN_DIR)' must not contain '..')
endif
endif
endif

# The tools read the settings from the environment: export them, but only
# for skillc's own goals (`make check` in the source tree runs tests that
# start their own makes, which must not inherit these).
SKILLC_RUN := $(RUN)
SKILLC_TASK := $(task)
# the rules data the tools read (model profiles, harnesses, routes): rules/
# in the source tree, $(DATADIR)/rules when installed
SKILLC_RULES := $(SKILLC_DATA)/rules
ifneq ($(filter $(SKILLC_RUN_TARGETS) $(SKILLC_FREE_GOALS),$(MAKECMDGOALS)),)
export $(SKILLC_SETTINGS) SKILLC_GIVEN SKILLC_RUN SKILLC_TASK SKILLC_TASK_DIR SKILLC_RULES
endif
# $(shell) does not see exported variables in make 4.3: pass them by hand
# (every value was checked above and holds no quote).
skillc_env := $(foreach v,$(SKILLC_SETTINGS) SKILLC_GIVEN SKILLC_RUN SKILLC_TASK SKILLC_TASK_DIR SKILLC_RULES,$v='$($v)')

skillc_goals := $(filter $(SKILLC_RUN_TARGETS),$(MAKECMDGOALS))
ifneq ($(skillc_goals),)
ifeq ($(task)$(tasks),)
$(error skillc: set task=<name> (a folder under TASKS_DIR=$(TASKS_DIR)) or tasks="a b")
endif
# a run that remembers its TASKS_DIR finds its task there (skillc-rules checks it)
ifneq ($(task),)
ifeq ($(wildcard $(SKILLC_TASK_DIR)/. $(RUN)/settings.json),)
$(error skillc: task '$(task)' not found: no folder $(SKILLC_TASK_DIR) (TASKS_DIR=$(TASKS_DIR)))
endif
endif
# every stage after ingest is for the target model: say so before any work,
# and name the runs of the task there are
ifneq ($(filter-out ingest clean-stage status images l1-image l2-image,$(filter $(SKILLC_RUN_GOALS),$(MAKECMDGOALS))),)
ifeq ($(MODEL)$(RUN_DIR),)
skillc_runs_of_task := $(patsubst $(RESULTS)/%/settings.json,%,$(wildcard $(RESULTS)/$(task)--*/settings.json))
$(error skillc: set MODEL=provider/model-id, the target model (e.g. MODEL=vllm/Qwen/Qwen3.5-27B; providers are in ROUTES)$(if $(skillc_runs_of_task),; runs of task $(task): $(skillc_runs_of_task)))
endif
endif
ifneq ($(filter clean-stage,$(MAKECMDGOALS)),)
ifeq ($(STAGE),)
$(error skillc: clean-stage needs STAGE=<stage>, e.g. make clean-stage STAGE=ingest task=$(task))
endif
endif
endif

ifeq ($(SKILLC_INNER),)
# ---------------------------------------------------------------- outer make
skillc_lock_goals := $(filter $(SKILLC_RUN_GOALS),$(MAKECMDGOALS))

ifneq ($(tasks),)
# A matrix: one make per task, each with its own run and lock; -jN spreads
# the jobserver's slots over all of them.
$(SKILLC_RUN_TARGETS): $(addprefix skillc-task-,$(tasks)) ; @:
skillc-task-%:
	+@$(MAKE) --no-print-directory -f $(SKILLC_MK) task=$* tasks= $(skillc_goals)
else
$(skillc_lock_goals): skillc-locked ; @:
skillc-locked:
	+@$(SKILLC_BIN)/skillc-stage lock --what 'make task=$(task) $(skillc_lock_goals)' -- \
		$(MAKE) --no-print-directory -f $(SKILLC_MK) SKILLC_INNER=1 $(skillc_lock_goals)

endif

# status and doctor only read, so they take no lock (status works while
# another make runs) and answer 0 when all is well, 1 when not. A recipe
# cannot make make exit 1 (a failed recipe is 2), so the report is made
# while the makefile is read, and "not well" puts make in question mode
# (-q), whose answer for an out-of-date target is exit 1.
skillc_report := $(firstword $(filter status doctor,$(MAKECMDGOALS)))
ifneq ($(skillc_report)$(tasks),$(skillc_report))
skillc_report :=
endif
# gate and junit: the run (task=), the runs of tasks="a b", or every run under RESULTS
skillc_runs_of = $(if $(tasks),$(foreach t,$(tasks),$(RESULTS)/$t--$(HARNESS)--$(if $(MODEL),$(call skillc_slug,$(MODEL)),no-model)),$(if $(task),$(RUN),$(RESULTS)))
# gate judges finished runs (docs/ci.md): 0 the rule holds, 1 it does not,
# 2 they cannot be judged. It answers for trials already made, so it runs
# alone, after the make that made them.
ifneq ($(filter gate,$(MAKECMDGOALS)),)
ifneq ($(filter-out gate,$(MAKECMDGOALS)),)
$(error skillc: run make gate on its own, after the make that runs the trials (its exit status is the verdict))
endif
skillc_report := gate
endif
ifneq ($(skillc_report),)
skillc_report_gate = $(SKILLC_BIN)/skillc-gate --stage '$(GATE_STAGE)' --min-delta '$(GATE_MIN_DELTA)' \
	--max-regressed '$(GATE_MAX_REGRESSED)' --vs '$(GATE_VS)' $(skillc_runs_of)
skillc_report_fail_gate = cannot judge the runs (see the lines above)
skillc_report_status = $(SKILLC_BIN)/skillc-stage status $(GOAL)
skillc_report_doctor = $(SKILLC_BIN)/skillc-doctor
skillc_report_tmp := $(shell mktemp "$${TMPDIR:-/tmp}/skillc-report.XXXXXX")
skillc_report_rc := $(shell $(skillc_env) $(skillc_report_$(skillc_report)) >$(skillc_report_tmp) 2>&1; echo $$?)
$(info $(file <$(skillc_report_tmp)))
$(shell rm -f $(skillc_report_tmp))
ifeq ($(skillc_report_rc),0)
$(skillc_report): ; @:
else ifeq ($(skillc_report_rc),1)
MAKEFLAGS += -q
$(skillc_report): skillc-not-well ; @:
skillc-not-well: ; @:
else
$(error skillc: $(skillc_report) $(or $(skillc_report_fail_$(skillc_report)),could not run (see the line above)))
endif
endif

# summary / report / watch read run folders only: no lock, no task needed.
skillc_results_of = $(if $(task),$(RUN),$(RESULTS))
# HARBOR_JOBS: Harbor job folders join the table; the summary stays beside
# the runs (or, with no runs yet, goes into HARBOR_JOBS)
skillc_summary_in = $(or $(wildcard $(skillc_results_of)) $(HARBOR_JOBS),$(skillc_results_of))
summary:
	@$(SKILLC_BIN)/skillc-summary $(if $(HARBOR_JOBS),--out $(firstword $(skillc_summary_in))) $(skillc_summary_in)
report:
	@$(SKILLC_BIN)/skillc-report $(if $(task),--index $(RESULTS)) $(skillc_results_of)
watch:
	@$(SKILLC_BIN)/skillc-summary --watch $(if $(filter-out 0,$(WATCH_TIMEOUT)),--timeout $(WATCH_TIMEOUT)) \
		$(skillc_results_of)

runtime-image:
	@$(SKILLC_BIN)/skillc-runtime build --base $(call skillc_quote,$(RUNTIME_BASE))
junit:
	@$(SKILLC_BIN)/skillc-junit $(if $(tasks),--out $(RESULTS)/junit.xml) $(skillc_runs_of)
help:
	@sed -n 's/^#: \{0,1\}//p' $(SKILLC_MK) $(SKILLC_MK_DIR)defaults.mk

.PHONY: $(SKILLC_RUN_TARGETS) $(SKILLC_FREE_GOALS) skillc-locked help

else
# ---------------------------------------------------------------- inner make
MAKEFLAGS += -rR
SKILLC_STAGE := $(SKILLC_BIN)/skillc-stage

include $(RUN)/rules.mk
# Runs at every make: refreshes source hashes and config files (rewriting
# only what changed) and rules.mk itself, which make then re-reads.
# make runs a makefile's recipe even under -n and -q, without saying so in
# MAKEFLAGS: tell skillc-rules, which then records no settings.
skillc_flags := $(if $(filter -%,$(firstword $(MAKEFLAGS))),,$(firstword $(MAKEFLAGS)))
$(RUN)/rules.mk: FORCE
	@$(if $(findstring n,$(skillc_flags))$(findstring q,$(skillc_flags)),SKILLC_DRY_RUN=1 )$(SKILLC_BIN)/skillc-rules

# each stage's goal needs the stamps rules.mk lists for it
$(foreach g,$(SKILLC_STAGE_GOALS),$(eval $g: $$(SKILLC_GOAL_$g)))
eval: $(SKILLC_GOAL_eval)
final: $(SKILLC_GOAL_final)
# the baked images of SANDBOX=docker (none under bwrap: the stages are not in the run)
images: $(SKILLC_GOAL_l2-image)
	@$(if $(SKILLC_GOAL_l2-image),:,echo "skillc: no images in this run: they are for RUNNER=local SANDBOX=docker")
clean-stage:
	@$(SKILLC_STAGE) clean $(STAGE)

FORCE:
.PHONY: $(SKILLC_RUN_GOALS) FORCE
.DELETE_ON_ERROR:
# No .SECONDARY: without prerequisites it makes every target intermediate
# (make 4.3), and under -j an intermediate that does not exist yet is taken
# as up to date: an index whose new trials are still running was skipped.
endif

#: skillc — compile an Agent Skill for one model and harness, and measure it.
#:
#: Targets (task=<name> picks a folder under TASKS_DIR; tasks="a b" runs several):
#:   make task=T ingest         copy and validate the task's skill into the run
#:   make task=T profile        resolve MODEL to a model profile (artifacts/static/profile.json)
#:   make task=T static         static compile for MODEL (artifacts/static/S_static/, report.md)
#:   make task=T raw-eval       REPEAT trials of the raw skill (-jN: N at a time)
#:   make task=T static-eval    REPEAT trials of the compiled skill (reused when it equals the raw one)
#:   make task=T raw-index / static-index   that stage's traces/<task>/<stage>/index.json
#:   make task=T eval           every evaluation trial that is due, and each stage's index.json
#:   make task=T final          the whole pipeline for the task (resumable)
#:   make task=T images         SANDBOX=docker: the task's L1 and L2 images that are due (-jN with tasks=)
#:   make summary               results tables (md/csv/json) of the run (task=T) or of all RESULTS (+ HARBOR_JOBS)
#:   make report                report.html + charts/*.svg of the run (task=T) or of every run, and index.html
#:   make watch                 a live table until every due trial is done (WATCH_TIMEOUT=s: exit 2 after)
#:   make junit                 junit.xml (one test case per run and stage) beside the summary
#:   make gate                  exit 0 when GATE_STAGE beats raw by the rule, 1 when not, 2 cannot judge
#:   make task=T status         what is done, what is stale and why (exit 0 up to date, 1 not)
#:   make task=T clean-stage STAGE=S   forget stage S (or one trial, raw-eval.003) and every stage after it
#:   make runtime-image         the Docker-in-Docker runtime image (skillc-runtime run -- make ...)
#:   make doctor                check routes, keys, model servers (MODEL, EXTERNAL_MODEL), the cluster (LAUNCHER=srun), docker (SANDBOX=docker)
#:   make help                  this text
#:   make / make check / make install   build the tools, run the tests, install
#:
#: A run lives in RESULTS/<task>--<harness>--<model>/ (or RUN_DIR); see docs/pipeline.md.
#:
